/*
 * fakenet_ns.c -- the world's network namespace made an internet
 * (steps 1 and 2 of fakenet.c's overview): netlink by hand for lo and the
 * AnyIP routes, what every child of fakenet does first (child_common),
 * and dnsmasq, confined and started from a copy it may not read.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail/jail_int.h"
#include "jail/jail_sys.h"
#include "world/fakenet_int.h"

#ifndef TIOCLINUX
#define TIOCLINUX		0x541C
#endif

/* ------------------------------------------------------------------ */
/* netlink: lo up, the AnyIP routes                                    */
/* ------------------------------------------------------------------ */

struct nlreq {
	struct nlmsghdr	 h;
	union {
		struct ifinfomsg ifi;
		struct rtmsg	 rt;
	} u;
	char		 attrs[32];
};

static void
nl_attr32(struct nlreq *r, unsigned short type, uint32_t v)
{
	struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->h.nlmsg_len));

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(sizeof v);
	memcpy(RTA_DATA(a), &v, sizeof v);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* Send one request and read its ack: 0, or -1 with errno. */
static int
nl_talk(int fd, struct nlreq *r, uint32_t seq)
{
	union {
		struct nlmsghdr	h;
		char		b[512];
	} ack;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t got;

	r->h.nlmsg_seq = seq;
	if (sendto(fd, r, r->h.nlmsg_len, 0, (struct sockaddr *)&kernel,
	    sizeof kernel) == -1)
		return -1;
	for (;;) {
		got = recv(fd, &ack, sizeof ack, 0);
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1)
			return -1;
		if ((size_t)got < sizeof ack.h || !NLMSG_OK(&ack.h, (size_t)got)) {
			errno = EPROTO;
			return -1;
		}
		if (ack.h.nlmsg_seq != seq)
			continue;
		if (ack.h.nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(&ack.h);

			if (ack.h.nlmsg_len < NLMSG_LENGTH(sizeof *e)) {
				errno = EPROTO;
				return -1;
			}
			if (e->error == 0)
				return 0;
			errno = -e->error;
			return -1;
		}
	}
}

static int
route_local_all(int fd, int family, int ifindex, uint32_t seq)
{
	struct nlreq r;

	memset(&r, 0, sizeof r);
	r.h.nlmsg_len = NLMSG_LENGTH(sizeof r.u.rt);
	r.h.nlmsg_type = RTM_NEWROUTE;
	r.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
	    NLM_F_EXCL;
	r.u.rt.rtm_family = (unsigned char)family;
	r.u.rt.rtm_dst_len = 0;
	r.u.rt.rtm_table = RT_TABLE_LOCAL;
	r.u.rt.rtm_protocol = RTPROT_BOOT;
	r.u.rt.rtm_scope = RT_SCOPE_HOST;
	r.u.rt.rtm_type = RTN_LOCAL;
	nl_attr32(&r, RTA_OIF, (uint32_t)ifindex);
	return nl_talk(fd, &r, seq);
}

int
fnet_net_setup(int *has_ipv6, char *why, size_t n)
{
	struct nlreq r;
	int fd, ifindex;

	*has_ipv6 = 0;
	ifindex = (int)if_nametoindex("lo");
	if (ifindex == 0) {
		snprintf(why, n, "fakenet: no lo: %s", strerror(errno));
		return -1;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd == -1) {
		snprintf(why, n, "fakenet: netlink socket: %s", strerror(errno));
		return -1;
	}
	memset(&r, 0, sizeof r);
	r.h.nlmsg_len = NLMSG_LENGTH(sizeof r.u.ifi);
	r.h.nlmsg_type = RTM_NEWLINK;
	r.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	r.u.ifi.ifi_family = AF_UNSPEC;
	r.u.ifi.ifi_index = ifindex;
	r.u.ifi.ifi_flags = IFF_UP;
	r.u.ifi.ifi_change = IFF_UP;
	if (nl_talk(fd, &r, 1) == -1) {
		snprintf(why, n, "fakenet: set lo up: %s", strerror(errno));
		close(fd);
		return -1;
	}
	/* EEXIST: a fake internet was up in this namespace before. */
	if (route_local_all(fd, AF_INET, ifindex, 2) == -1 && errno != EEXIST) {
		snprintf(why, n, "fakenet: route local 0.0.0.0/0: %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	/* IPv6 is a bonus: a kernel without it still has a fake internet. */
	if (route_local_all(fd, AF_INET6, ifindex, 3) == 0 || errno == EEXIST)
		*has_ipv6 = 1;
	close(fd);
	return 0;
}

/* ------------------------------------------------------------------ */
/* children: what both do first                                        */
/* ------------------------------------------------------------------ */

/* A child (jail_fork) that dies with the caller; descriptors: 0 and 1
 * on /dev/null, 2 on err (or /dev/null), keep[] at 3, 4, ..., everything
 * else closed; default signals, none blocked; a session of its own, so
 * no controlling terminal (the user's, which the caller may still have);
 * / (the world's: the caller has pivoted) as working directory.  As
 * jail_fork: in the child, *failed names the step that failed (the child
 * then _exits). */
static int
child_spec(struct jail_child_spec *spec, int *fds, int devnull, int err,
    const int *keep, unsigned nkeep)
{
	unsigned i;

	if (nkeep > JAIL_FORK_MAX_FDS - 3) {
		errno = EINVAL;
		return -1;
	}
	fds[0] = fds[1] = devnull;
	fds[2] = err;
	for (i = 0; i < nkeep; i++)
		if ((fds[3 + i] = keep[i]) < 0) {
			errno = EBADF;	/* (jail_fork: -1 is /dev/null) */
			return -1;
		}
	*spec = (struct jail_child_spec){ .flags = JAIL_FORK_DEATHSIG |
	    JAIL_FORK_SIGDFL | JAIL_FORK_SIGNALS | JAIL_FORK_SESSION,
	    .fds = fds, .nfds = 3 + nkeep };
	return 0;
}

pid_t
fnet_fork(int devnull, int err, const int *keep, unsigned nkeep,
    const char **failed)
{
	int fds[JAIL_FORK_MAX_FDS];
	struct jail_child_spec spec;
	pid_t pid;

	if (child_spec(&spec, fds, devnull, err, keep, nkeep) == -1)
		return -1;
	pid = jail_fork(&spec, failed);
	if (pid == 0 && *failed == NULL && chdir("/") == -1)
		*failed = "chdir";
	return pid;
}

/* fnet_fork's child for a program: it shares the caller's memory until
 * its exec (jail_spawn), so the world's PID 1 is not copied for a
 * process that replaces itself at once; the steps are fnet_fork's, and
 * the chdir, and then fn(arg, failed), which must exec or _exit. */
struct spawned {
	void	(*fn)(void *, const char *);
	void	*arg;
};

static void
spawned_child(void *p, const char *failed)
{
	const struct spawned *sp = p;

	if (failed == NULL && chdir("/") == -1)
		failed = "chdir";
	sp->fn(sp->arg, failed);
	_exit(127);
}

pid_t
fnet_spawn(int devnull, int err, const int *keep, unsigned nkeep,
    void (*fn)(void *arg, const char *failed), void *arg)
{
	int fds[JAIL_FORK_MAX_FDS];
	struct jail_child_spec spec;
	struct spawned sp = { fn, arg };

	if (child_spec(&spec, fds, devnull, err, keep, nkeep) == -1)
		return -1;
	return jail_spawn(&spec, spawned_child, &sp);
}

/* Keep only the capabilities in mask (jail_caps_keep()), then set
 * no_new_privs. */
int
fnet_caps_keep(uint32_t mask)
{
	if (jail_caps_keep(mask) == -1)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* dnsmasq                                                             */
/* ------------------------------------------------------------------ */

/*
 * dnsmasq's seccomp filter: the jail's table of calls nothing here needs
 * (jail_seccomp.c: programs, processes, ptrace and other processes'
 * memory, mounts and namespaces, io_uring, bpf, keys, modules, System V
 * IPC...) answered EPERM over a default of ALLOW, since dnsmasq is a
 * program we did not write; execveat allowed only from DNSMASQ_EXEC_FD
 * with AT_EMPTY_PATH (the one exec that starts it, before which the
 * filter is loaded), execve never; sockets of the families it uses
 * only (AF_UNIX, AF_INET, AF_INET6, AF_NETLINK); no terminal injection;
 * prctl(PR_SET_DUMPABLE) refused, since dnsmasq -d makes itself dumpable
 * (see fnet_dnsmasq_image).  Compiled once (fakenet_prepare) and loaded by
 * each dnsmasq before its exec.
 */
static struct jail_bpf dnsmasq_filter;

/*
 * dnsmasq's binary, copied once (fakenet_prepare) into a sealed memfd of
 * mode 0111, executed from there: a program executed from a file it may
 * not read is not dumpable, and its memory belongs to the user namespace
 * that may read the file (the host's), so nothing in the world, which
 * runs as dnsmasq's user, can read its /proc links or its memory, or
 * trace it.  -1 where it could not be made (no dnsmasq here, a kernel
 * that refuses executable memfds): dnsmasq is then executed from its
 * path, dumpable, protected from the world's code only by the
 * capability it keeps (a tracer must hold every capability its tracee
 * holds).
 */
int fnet_dnsmasq_image = -1;

#ifndef MFD_EXEC
#define MFD_EXEC		0x0010U
#endif

static int
image_new(const char *path)
{
	char buf[65536];
	ssize_t got;
	int in, fd;

	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	fd = memfd_create("dnsmasq", MFD_CLOEXEC | MFD_ALLOW_SEALING |
	    MFD_EXEC);
	if (fd < 0 && errno == EINVAL)	/* a kernel before MFD_EXEC */
		fd = memfd_create("dnsmasq", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		close(in);
		return -1;
	}
	while ((got = read(in, buf, sizeof buf)) > 0 ||
	    (got < 0 && errno == EINTR))
		if (got > 0 && jail_write_all(fd, buf, (size_t)got) == -1)
			break;
	close(in);
	if (got != 0 || fchmod(fd, 0111) == -1 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
dnsmasq_rules(void *vctx, void *arg)
{
	static const int other_families[] = {
		AF_UNSPEC, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15,
	};
	scmp_filter_ctx ctx = vctx;
	size_t i;
	int rc;

	(void)arg;
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(execveat),
	    1, SCMP_A0(SCMP_CMP_NE, DNSMASQ_EXEC_FD));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(execveat), 1, SCMP_A4(SCMP_CMP_NE, AT_EMPTY_PATH));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_GT, AF_NETLINK));
	for (i = 0; rc == 0 && i < sizeof other_families /
	    sizeof other_families[0]; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ,
		    (scmp_datum_t)other_families[i]));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(socketpair), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
		    SCMP_SYS(clone3), 0);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ,
		    0xffffffffu, TIOCSTI));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ,
		    0xffffffffu, TIOCLINUX));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ,
		    PR_SET_DUMPABLE));
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

/* dnsmasq's filter and image, once (fakenet_prepare, in fakenet.c). */
int
fnet_dnsmasq_prepare(char *why, size_t n)
{
	static const char *const except[] = { "execveat", NULL };

	if (dnsmasq_filter.insns != NULL)
		return 0;
	fnet_dnsmasq_image = image_new(DNSMASQ_PATH);	/* -1: see above */
	if (jail_seccomp_compile_table(&dnsmasq_filter, SCMP_ACT_ERRNO(EPERM),
	    except, dnsmasq_rules, NULL) == -1) {
		snprintf(why, n, "fakenet: dnsmasq's seccomp filter: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* dnsmasq's own descriptor for its exec, at DNSMASQ_EXEC_FD (image, or
 * path when image is -1), with RLIMIT_NOFILE lowered to it: once the
 * exec has closed it (CLOEXEC), no process of dnsmasq's can have that
 * descriptor again. */
static int
exec_fd(const char *path, int image)
{
	struct rlimit rl;
	int fd, hi;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return -1;
	if (rl.rlim_cur <= DNSMASQ_EXEC_FD) {
		if (rl.rlim_max <= DNSMASQ_EXEC_FD) {
			errno = EMFILE;
			return -1;
		}
		rl.rlim_cur = DNSMASQ_EXEC_FD + 1;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			return -1;
	}
	fd = image >= 0 ? image : open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, DNSMASQ_EXEC_FD);
	close(fd);
	if (hi != DNSMASQ_EXEC_FD) {
		errno = EBADF;
		return -1;
	}
	rl.rlim_cur = rl.rlim_max = DNSMASQ_EXEC_FD;
	return setrlimit(RLIMIT_NOFILE, &rl);
}

void __attribute__((noreturn))
fnet_dnsmasq_child(const char *path, int image, const char *answer,
    const char *failed)
{
	char address[64];
	char *const envp[] = { NULL };
	struct sock_fprog prog = { dnsmasq_filter.len, dnsmasq_filter.insns };

	if (failed != NULL) {
		dprintf(2, "set-up: %s", strerror(errno));
		_exit(127);
	}
	if (exec_fd(path, image) == -1) {
		dprintf(2, "%s: %s", path, strerror(errno));
		_exit(127);
	}
	snprintf(address, sizeof address, "--address=/#/%s", answer);
	{
		char *const argv[] = {
			(char *)"dnsmasq",
			(char *)"--conf-file=/dev/null",
			(char *)"--no-daemon",		/* no fork, no setuid */
			(char *)"--no-resolv",
			(char *)"--no-hosts",
			(char *)"--no-poll",
			/* stderr: a log file would be fchown()ed to
			 * --user, the host's own /dev/null under a
			 * full-range id map; the reader of stderr goes
			 * away after start-up, and dnsmasq ignores
			 * SIGPIPE. */
			(char *)"--log-facility=-",
			(char *)"--pid-file=",
			(char *)"--interface=lo",	/* every address on lo */
			(char *)"--port=53",
			(char *)"--local=/#/",		/* never forward: AAAA empty */
			address,
			NULL,
		};

		if (fnet_caps_keep(1u << CAP_NET_BIND_SERVICE) == -1) {
			dprintf(2, "capabilities: %s", strerror(errno));
			_exit(127);
		}
		/* no_new_privs is set (fnet_caps_keep) */
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)
		    == -1) {
			dprintf(2, "seccomp: %s", strerror(errno));
			_exit(127);
		}
		syscall(SYS_execveat, DNSMASQ_EXEC_FD, "", argv, envp,
		    AT_EMPTY_PATH);
		dprintf(2, "execveat %s: %s", path, strerror(errno));
	}
	_exit(127);
}
