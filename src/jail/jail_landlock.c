/*
 * jail_landlock.c -- the Landlock layer: what the evaluating process may
 * do to files and the network, enforced by the kernel.
 *
 * The ruleset "handles" every access right the running kernel knows
 * (probed with LANDLOCK_CREATE_RULESET_VERSION and masked to that ABI),
 * which makes each of them denied unless a rule grants it.  One rule
 * grants the workspace -- by then "/" is the tmpfs, after pivot_root --
 * plain file work: read, write, truncate, list, create and remove
 * regular files and directories.  Never granted: execute, device,
 * socket, fifo and symlink creation, cross-directory rename (REFER),
 * device ioctls.  With ABI >= 4 TCP bind and connect are handled with no
 * rule, so both are denied; with ABI >= 6 the abstract unix socket and
 * signal scopes keep the process from talking to anything outside its
 * domain (including its warden).
 *
 * A jail world (world/jailkind.c) uses the same ruleset with a list of
 * grants instead of the one workspace rule (jail_landlock_enforce_rules).
 *
 * Debian 12's headers stop at ABI 2, so newer constants and the grown
 * ruleset attribute are defined here.  Below ABI 1 the layer refuses.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail_int.h"
#include "jail_sys.h"

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER	(1ULL << 13)	/* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)	/* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV	(1ULL << 15)	/* ABI 5 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP	(1ULL << 0)	/* ABI 4 */
#define LANDLOCK_ACCESS_NET_CONNECT_TCP	(1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)	/* ABI 6 */
#define LANDLOCK_SCOPE_SIGNAL		(1ULL << 1)
#endif

/* struct landlock_ruleset_attr as of ABI 6; older kernels get a prefix. */
struct ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;	/* ABI 4 */
	uint64_t	scoped;			/* ABI 6 */
};

/* Every filesystem right the kernel of this ABI knows. */
static uint64_t
fs_rights(int abi)
{
	uint64_t r = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;	/* ABI 1 */

	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return r;
}

/* The rights a grant gives (masked to the handled ones). */
static uint64_t
grant_rights(enum jail_ll_grant g)
{
	switch (g) {
	case JAIL_LL_READ:
		return LANDLOCK_ACCESS_FS_READ_FILE |
		    LANDLOCK_ACCESS_FS_READ_DIR;
	case JAIL_LL_FILE_RW:
		return LANDLOCK_ACCESS_FS_READ_FILE |
		    LANDLOCK_ACCESS_FS_WRITE_FILE;
	case JAIL_LL_EXEC:
		return LANDLOCK_ACCESS_FS_READ_FILE |
		    LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE;
	case JAIL_LL_DEVICE:
		return LANDLOCK_ACCESS_FS_READ_FILE |
		    LANDLOCK_ACCESS_FS_WRITE_FILE |
		    LANDLOCK_ACCESS_FS_IOCTL_DEV;
	case JAIL_LL_WORK:
	default:
		return LANDLOCK_ACCESS_FS_READ_FILE |
		    LANDLOCK_ACCESS_FS_WRITE_FILE |
		    LANDLOCK_ACCESS_FS_READ_DIR |
		    LANDLOCK_ACCESS_FS_REMOVE_FILE |
		    LANDLOCK_ACCESS_FS_REMOVE_DIR |
		    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_DIR |
		    LANDLOCK_ACCESS_FS_TRUNCATE;
	}
}

int
jail_landlock_enforce(int *abi_out)
{
	static const struct jail_ll_rule root = { "/", JAIL_LL_WORK };

	return jail_landlock_enforce_rules(&root, 1, abi_out, NULL);
}

int
jail_landlock_enforce_rules(const struct jail_ll_rule *rules, size_t n,
    int *abi_out, const char **failed)
{
	struct ruleset_attr attr = { 0, 0, 0 };
	struct landlock_path_beneath_attr rule;
	size_t attr_size, i;
	int abi, ruleset, fd, saved;
	long rc;

	abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		if (abi >= 0)
			errno = EOPNOTSUPP;
		return -1;
	}
	attr.handled_access_fs = fs_rights(abi);
	attr_size = sizeof attr.handled_access_fs;
	if (abi >= 4) {
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
		    LANDLOCK_ACCESS_NET_CONNECT_TCP;
		attr_size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
		    LANDLOCK_SCOPE_SIGNAL;
		attr_size = sizeof attr;
	}
	ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size,
	    0);
	if (ruleset < 0)
		return -1;

	for (i = 0; i < n; i++) {
		struct stat sb;
		uint64_t rights = grant_rights(rules[i].grant);

		if (failed != NULL)
			*failed = rules[i].path;
		fd = open(rules[i].path, O_PATH | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &sb) == -1)
			goto fail_fd;
		if (!S_ISDIR(sb.st_mode))	/* a file takes file rights */
			rights &= LANDLOCK_ACCESS_FS_READ_FILE |
			    LANDLOCK_ACCESS_FS_WRITE_FILE |
			    LANDLOCK_ACCESS_FS_TRUNCATE |
			    LANDLOCK_ACCESS_FS_EXECUTE |
			    LANDLOCK_ACCESS_FS_IOCTL_DEV;
		rule.parent_fd = fd;
		rule.allowed_access = rights & attr.handled_access_fs;
		rc = syscall(__NR_landlock_add_rule, ruleset,
		    LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
		saved = errno;
		close(fd);
		errno = saved;
		if (rc < 0)
			goto fail;
	}
	if (failed != NULL)
		*failed = "landlock_restrict_self";
	if (syscall(__NR_landlock_restrict_self, ruleset, 0) < 0)
		goto fail;
	close(ruleset);
	*abi_out = abi;
	return 0;
fail_fd:
	saved = errno;
	if (fd >= 0)
		close(fd);
	errno = saved;
fail:
	saved = errno;
	close(ruleset);
	errno = saved;
	return -1;
}
