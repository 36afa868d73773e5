/*
 * jail_cgroup.c -- the memory cap of a jail or a world beyond RLIMIT_AS: a
 * cgroup v2 memory.max (or v1 memory.limit_in_bytes), where the machine
 * lets this process have one; and its CPU bound: a v2 cpu.max (or v1
 * cpu.cfs_quota_us) of one core, so that what a world leaves running
 * between inputs takes one core of the host at most, however many
 * processes it is.
 *
 * RLIMIT_AS caps what the jail maps.  What the kernel holds for it
 * outside its address space -- tmpfs pages, pipe buffers, socket
 * buffers, page tables, a memfd never mapped -- is capped only by a
 * memory cgroup, and only cgroup v2 charges all of it.  (System V
 * segments, the worst of these, are denied by seccomp.)
 *
 * Where: under the caller's own cgroup P (read from /proc/self/cgroup),
 * never beside it, so every limit an administrator put on P or above
 * still holds for the jail.  A v2 cgroup hands the memory controller to
 * its children only when it holds no process itself, so, as nsjail
 * does, the caller first moves itself into a leaf P/sandboxrepl,
 * then enables "+memory" in P and makes P/sandboxrepl-jails for the
 * jails, with the memory controller enabled for its children too.  Each
 * jail's warden, still root, makes P/sandboxrepl-jails/jail-<uid> (its
 * uid is its own, jail_ids.h), writes memory.max and memory.swap.max = 0
 * and moves itself in before it unshares; jail_run removes the cgroup
 * once the warden is reaped.
 *
 * Delegated or not: the memory cap is part of a jail's set-up exactly
 * when P is offered the memory controller (it is in P/cgroup.controllers)
 * and this process may write P (root), and when no other process shares
 * P (as root's shell shares a login session's scope: the controller then
 * cannot be handed down, and the caller is moved back).  Then every
 * later failure refuses the jail.  Where v2 has no memory controller (a
 * hybrid machine keeps it on v1), the v1 memory hierarchy serves the same
 * way (v1_prepare: memory.limit_in_bytes, and memory.memsw.limit_in_bytes
 * where swap is accounted).  Otherwise -- not root, a shared P, no
 * writable memory hierarchy -- there is no cgroup and the memory cap is
 * RLIMIT_AS alone,
 * with RLIMIT_MEMLOCK and RLIMIT_MSGQUEUE at 0; the outcome says which
 * (jail_outcome.memory_cgroup).
 *
 * The CPU bound comes with the memory cap where it can: cgroup v2 hands
 * "+cpu" down the same two levels; with the memory controller on v1 (or
 * none), the v1 cpu hierarchy serves (cpu_v1_prepare: the jails' parent
 * beside this process, inside its own cpu cgroup, proved writable).  A
 * machine that offers memory but no cpu controller still gets the memory
 * cap; the CPU bound is then RLIMIT_CPU alone (jail_cgroup_kinds says
 * which, for --doctor).
 *
 * Nothing here prints or exits.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "jail_int.h"

#define SELF_DIR	"sandboxrepl"		/* the callers' leaf */
#define JAILS_DIR	"sandboxrepl-jails"	/* the jails' parent */

/* What the last jail_cgroup_prepare in this process found (a world's
 * warden, a fork of the zygote that prepared, inherits them): the
 * versions of the memory and cpu controllers in use (0: none), and the
 * jails' parent in the v1 cpu hierarchy. */
static int mem_version, cpu_version;
static char cpu_v1_dir[PATH_MAX];

static void
say(char *why, size_t n, const char *what)
{
	if (n > 0)
		snprintf(why, n, "%s", what);
}

/* Read a small cgroup file into buf (NUL-terminated).  0, or -1. */
static int
read_small(const char *path, char *buf, size_t n)
{
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got < 0)
		return -1;
	buf[got] = '\0';
	return 0;
}

/* Is word one of the space-separated words of list? */
static bool
has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n'))
			return true;
		p += len;
	}
	return false;
}

/* The cgroup v2 mount point, or NULL. */
static const char *
v2_mount(void)
{
	static const char *const where[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
	};
	struct statfs fs;
	size_t i;

	for (i = 0; i < sizeof where / sizeof where[0]; i++)
		if (statfs(where[i], &fs) == 0 &&
		    fs.f_type == CGROUP2_SUPER_MAGIC)
			return where[i];
	return NULL;
}

/* This process's v2 cgroup path ("0::/a/b" in /proc/self/cgroup). */
static int
own_cgroup(char *out, size_t n)
{
	char buf[4096], *p, *end;

	if (read_small("/proc/self/cgroup", buf, sizeof buf) == -1)
		return -1;
	p = strstr(buf, "0::/");
	if (p == NULL || (p != buf && p[-1] != '\n')) {
		errno = ENOENT;
		return -1;
	}
	p += 3;
	end = strchr(p, '\n');
	if (end != NULL)
		*end = '\0';
	/* A path of a cgroup namespace's ancestor reads "/..": not ours. */
	if (strstr(p, "/..") != NULL ||
	    (size_t)snprintf(out, n, "%s", p) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * cgroup v1, where the memory controller lives on a hierarchy of its own
 * (a hybrid machine): this process's memory cgroup ("N:memory:/a/b" in
 * /proc/self/cgroup) under the mount of that hierarchy.  A v1 cgroup may
 * hold processes and children at once, so nothing moves: the jails'
 * parent is made beside this process, inside its cgroup, and proved
 * writable (a limit set and read back) before it is offered, so a
 * machine whose hierarchy is read-only has no cgroup rather than jails
 * that all refuse.  1 and dir; 0 when there is none to use.
 */
static int
v1_prepare(char *dir, size_t dirlen)
{
	static const char mnt[] = "/sys/fs/cgroup/memory";
	char buf[4096], path[PATH_MAX + 160], *p, *end;
	struct statfs fs;

	if (statfs(mnt, &fs) == -1 || fs.f_type != CGROUP_SUPER_MAGIC ||
	    read_small("/proc/self/cgroup", buf, sizeof buf) == -1)
		return 0;
	for (p = buf; p != NULL && *p != '\0'; p = end) {
		end = strchr(p, '\n');
		if (end != NULL)
			*end++ = '\0';
		p = strchr(p, ':');
		if (p != NULL && strncmp(p, ":memory:/", 9) == 0)
			break;
	}
	if (p == NULL || *p == '\0')
		return 0;
	p += 8;				/* the path, from its '/' */
	if (strstr(p, "/..") != NULL ||
	    (size_t)snprintf(dir, dirlen, "%s%s/%s", mnt,
	    strcmp(p, "/") == 0 ? "" : p, JAILS_DIR) >= dirlen)
		return 0;
	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		return 0;
	snprintf(path, sizeof path, "%s/memory.use_hierarchy", dir);
	if (read_small(path, buf, sizeof buf) == -1 || buf[0] != '1')
		return 0;		/* a child's limit would not bind us */
	snprintf(path, sizeof path, "%s/memory.limit_in_bytes", dir);
	if (jail_write_text(path, "9223372036854771712", O_NOFOLLOW) == -1)
		return 0;
	return 1;
}

/*
 * The v1 cpu hierarchy ("N:cpu,cpuacct:/a/b" in /proc/self/cgroup, mounted
 * at /sys/fs/cgroup/cpu or cpu,cpuacct): as v1_prepare, the jails' parent
 * made inside this process's own cpu cgroup and proved writable (the
 * quota lifted and read back).  1 and cpu_v1_dir; 0 when there is none.
 */
static int
cpu_v1_prepare(void)
{
	static const char *const mnts[] = {
		"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct",
	};
	char buf[4096], path[PATH_MAX + 160], *p, *end, *list;
	const char *mnt = NULL;
	struct statfs fs;
	size_t i;

	cpu_v1_dir[0] = '\0';
	for (i = 0; mnt == NULL && i < sizeof mnts / sizeof mnts[0]; i++)
		if (statfs(mnts[i], &fs) == 0 && fs.f_type == CGROUP_SUPER_MAGIC)
			mnt = mnts[i];
	if (mnt == NULL ||
	    read_small("/proc/self/cgroup", buf, sizeof buf) == -1)
		return 0;
	for (p = buf; p != NULL && *p != '\0'; p = end) {
		end = strchr(p, '\n');
		if (end != NULL)
			*end++ = '\0';
		list = strchr(p, ':');
		if (list == NULL || (p = strchr(list + 1, ':')) == NULL)
			continue;
		*p++ = '\0';		/* list: "cpu,cpuacct"; p: the path */
		for (char *w = list + 1; *w != '\0'; w += strcspn(w, ","),
		    w += *w == ',') {
			if (strncmp(w, "cpu", 3) == 0 &&
			    (w[3] == ',' || w[3] == '\0'))
				goto found;
		}
	}
	return 0;
found:
	if (*p != '/' || strstr(p, "/..") != NULL ||
	    (size_t)snprintf(cpu_v1_dir, sizeof cpu_v1_dir, "%s%s/%s", mnt,
	    strcmp(p, "/") == 0 ? "" : p, JAILS_DIR) >= sizeof cpu_v1_dir)
		goto none;
	if (mkdir(cpu_v1_dir, 0755) == -1 && errno != EEXIST)
		goto none;
	snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", cpu_v1_dir);
	if (jail_write_text(path, "-1", O_NOFOLLOW) == -1 ||
	    read_small(path, buf, sizeof buf) == -1 || buf[0] != '-')
		goto none;
	return 1;
none:
	cpu_v1_dir[0] = '\0';
	return 0;
}

/* cgroup v2: hand "+cpu" down from p to the jails' parent dir, as memory
 * is.  1, or 0 where the controller is not offered or cannot be handed
 * down (the memory cap holds without it). */
static int
cpu_v2_prepare(const char *p, const char *dir)
{
	char path[PATH_MAX + 128], list[512];

	snprintf(path, sizeof path, "%s/cgroup.controllers", p);
	if (read_small(path, list, sizeof list) == -1 ||
	    !has_word(list, "cpu"))
		return 0;
	snprintf(path, sizeof path, "%s/cgroup.subtree_control", p);
	if (read_small(path, list, sizeof list) == -1)
		return 0;
	if (!has_word(list, "cpu") &&
	    jail_write_text(path, "+cpu", O_NOFOLLOW) == -1)
		return 0;
	snprintf(path, sizeof path, "%s/cgroup.subtree_control", dir);
	if (jail_write_text(path, "+cpu", O_NOFOLLOW) == -1)
		return 0;
	return 1;
}

void
jail_cgroup_kinds(const char **memory, const char **cpu)
{
	static const char *const names[] = { NULL, "cgroup v1", "cgroup v2" };

	*memory = names[mem_version];
	*cpu = names[cpu_version];
}

int
jail_cgroup_prepare(char *dir, size_t dirlen, char *why, size_t n)
{
	char own[PATH_MAX], p[PATH_MAX + 64], path[PATH_MAX + 128];
	char list[512], pid[32];
	const char *mnt;

	dir[0] = '\0';
	mem_version = cpu_version = 0;
	cpu_v1_dir[0] = '\0';
	if (geteuid() != 0) {
		say(why, n, "not root: no cgroup of its own");
		return 0;
	}
	mnt = v2_mount();
	if (mnt != NULL && own_cgroup(own, sizeof own) == 0) {
		snprintf(p, sizeof p, "%s%s", mnt,
		    strcmp(own, "/") == 0 ? "" : own);
		snprintf(path, sizeof path, "%s/cgroup.controllers", p);
	}
	if (mnt == NULL || own_cgroup(own, sizeof own) == -1 ||
	    read_small(path, list, sizeof list) == -1 ||
	    !has_word(list, "memory")) {
		cpu_version = cpu_v1_prepare();
		if (v1_prepare(dir, dirlen) == 1) {
			mem_version = 1;
			say(why, n, "");
			return 1;
		}
		dir[0] = '\0';
		say(why, n, "neither cgroup v2 nor v1 offers a memory "
		    "controller this process may use");
		return 0;
	}
	snprintf(path, sizeof path, "%s/cgroup.subtree_control", p);
	if (read_small(path, list, sizeof list) == -1)
		goto broken;
	if (!has_word(list, "memory")) {
		/* Leave P for a leaf of our own, then hand memory down. */
		snprintf(path, sizeof path, "%s/%s", p, SELF_DIR);
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			goto broken;
		snprintf(path, sizeof path, "%s/%s/cgroup.procs", p, SELF_DIR);
		if (jail_write_text(path, "0", O_NOFOLLOW) == -1)
			goto broken;
		snprintf(path, sizeof path, "%s/cgroup.subtree_control", p);
		if (jail_write_text(path, "+memory", O_NOFOLLOW) == -1) {
			int saved = errno;

			/* Other processes share P: go back, no cgroup. */
			snprintf(path, sizeof path, "%s/cgroup.procs", p);
			snprintf(pid, sizeof pid, "%ld", (long)getpid());
			if (saved != EBUSY || jail_write_text(path, pid, O_NOFOLLOW) == -1) {
				errno = saved;
				goto broken;
			}
			snprintf(path, sizeof path, "%s/%s", p, SELF_DIR);
			(void)rmdir(path);	/* unless another one is in it */
			cpu_version = cpu_v1_prepare();
			say(why, n, "other processes share this cgroup: "
			    "the memory controller cannot be handed down");
			return 0;
		}
	}
	/* From here on the cgroup is part of every jail's set-up. */
	if ((size_t)snprintf(dir, dirlen, "%s/%s", p, JAILS_DIR) >= dirlen) {
		errno = ENAMETOOLONG;
		goto broken;
	}
	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		goto broken;
	snprintf(path, sizeof path, "%s/cgroup.subtree_control", dir);
	if (jail_write_text(path, "+memory", O_NOFOLLOW) == -1)
		goto broken;
	mem_version = 2;
	cpu_version = cpu_v2_prepare(p, dir) == 1 ? 2 : cpu_v1_prepare();
	say(why, n, "");
	return 1;
broken:
	snprintf(why, n, "cgroup v2 under %s", own);
	dir[0] = '\0';
	mem_version = cpu_version = 0;
	return -1;
}

int
jail_cgroup_enter(const char *dir, unsigned id, uint64_t bytes,
    char *detail, size_t n)
{
	char path[PATH_MAX + 64], num[32];

	snprintf(path, sizeof path, "%s/jail-%u", dir, id);
	if (mkdir(path, 0755) == -1 && errno != EEXIST) {
		snprintf(detail, n, "mkdir");
		return -1;
	}
	snprintf(num, sizeof num, "%" PRIu64, bytes);
	snprintf(path, sizeof path, "%s/jail-%u/memory.max", dir, id);
	if (access(path, F_OK) == -1) {
		/* cgroup v1 (see v1_prepare): the limit, and memory plus
		 * swap at the same figure where swap is accounted.  The
		 * kernel wants memsw >= limit at every moment, and the cgroup
		 * may be one a jail or world of the same id left with other
		 * figures: memsw is lifted first, then both are set. */
		snprintf(path, sizeof path,
		    "%s/jail-%u/memory.memsw.limit_in_bytes", dir, id);
		if (jail_write_text(path, "-1", O_NOFOLLOW) == -1 && errno != ENOENT) {
			snprintf(detail, n, "memory.memsw.limit_in_bytes");
			return -1;
		}
		snprintf(path, sizeof path, "%s/jail-%u/memory.limit_in_bytes",
		    dir, id);
		if (jail_write_text(path, num, O_NOFOLLOW) == -1) {
			snprintf(detail, n, "memory.limit_in_bytes");
			return -1;
		}
		snprintf(path, sizeof path,
		    "%s/jail-%u/memory.memsw.limit_in_bytes", dir, id);
		if (jail_write_text(path, num, O_NOFOLLOW) == -1 && errno != ENOENT) {
			snprintf(detail, n, "memory.memsw.limit_in_bytes");
			return -1;
		}
	} else if (jail_write_text(path, num, O_NOFOLLOW) == -1) {
		snprintf(detail, n, "memory.max");
		return -1;
	} else {
		/* No swap to spill into; the file is absent without swap
		 * accounting. */
		snprintf(path, sizeof path, "%s/jail-%u/memory.swap.max",
		    dir, id);
		if (jail_write_text(path, "0", O_NOFOLLOW) == -1 && errno != ENOENT) {
			snprintf(detail, n, "memory.swap.max");
			return -1;
		}
	}
	if (cpu_version == 2) {
		snprintf(path, sizeof path, "%s/jail-%u/cpu.max", dir, id);
		snprintf(num, sizeof num, "%u %u", JAIL_CPU_QUOTA_US,
		    JAIL_CPU_PERIOD_US);
		if (jail_write_text(path, num, O_NOFOLLOW) == -1) {
			snprintf(detail, n, "cpu.max");
			return -1;
		}
	}
	snprintf(path, sizeof path, "%s/jail-%u/cgroup.procs", dir, id);
	if (jail_write_text(path, "0", O_NOFOLLOW) == -1) {
		snprintf(detail, n, "cgroup.procs");
		return -1;
	}
	return jail_cgroup_cpu_enter(id, detail, n);
}

int
jail_cgroup_cpu_enter(unsigned id, char *detail, size_t n)
{
	char path[PATH_MAX + 64], num[32];

	if (cpu_version != 1)
		return 0;	/* none, or v2's, set with the memory cap */
	snprintf(path, sizeof path, "%s/jail-%u", cpu_v1_dir, id);
	if (mkdir(path, 0755) == -1 && errno != EEXIST) {
		snprintf(detail, n, "mkdir (cpu)");
		return -1;
	}
	snprintf(path, sizeof path, "%s/jail-%u/cpu.cfs_period_us",
	    cpu_v1_dir, id);
	snprintf(num, sizeof num, "%u", JAIL_CPU_PERIOD_US);
	if (jail_write_text(path, num, O_NOFOLLOW) == -1) {
		snprintf(detail, n, "cpu.cfs_period_us");
		return -1;
	}
	snprintf(path, sizeof path, "%s/jail-%u/cpu.cfs_quota_us",
	    cpu_v1_dir, id);
	snprintf(num, sizeof num, "%u", JAIL_CPU_QUOTA_US);
	/* (v1 refuses a quota above an ancestor's, EINVAL: that one is
	 * smaller, and binds the jail already) */
	if (jail_write_text(path, num, O_NOFOLLOW) == -1 && errno != EINVAL) {
		snprintf(detail, n, "cpu.cfs_quota_us");
		return -1;
	}
	snprintf(path, sizeof path, "%s/jail-%u/cgroup.procs", cpu_v1_dir, id);
	if (jail_write_text(path, "0", O_NOFOLLOW) == -1) {
		snprintf(detail, n, "cgroup.procs (cpu)");
		return -1;
	}
	return 0;
}

uint64_t
jail_cgroup_charged(const char *dir, unsigned id)
{
	char path[PATH_MAX + 64], buf[32], *end;
	unsigned long long v;

	snprintf(path, sizeof path, "%s/jail-%u/memory.usage_in_bytes", dir,
	    id);
	if (read_small(path, buf, sizeof buf) == -1)
		return UINT64_MAX;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno != 0 || end == buf || (*end != '\n' && *end != '\0'))
		return UINT64_MAX;
	return (uint64_t)v;
}

void
jail_cgroup_remove(const char *dir, unsigned id)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof path, "%s/jail-%u", dir, id);
	(void)rmdir(path);	/* a busy one is reused by the next jail */
	if (cpu_version == 1) {
		snprintf(path, sizeof path, "%s/jail-%u", cpu_v1_dir, id);
		(void)rmdir(path);
	}
}
