/*
 * fakenet_sink.c -- the sink process (step 3 of fakenet.c's overview):
 * its set-up (listeners, raw sockets, capabilities dropped, seccomp), and
 * its one poll loop over the control pipe, the raw sockets, the
 * listeners and the open connections, with the syncs the caller asks for.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "jail/jail_int.h"
#include "world/fakenet_int.h"

/* An address from the kernel into family + 16 bytes (v4-mapped -> 4). */
static void
sockaddr_take(const struct sockaddr_storage *ss, uint8_t *family,
    uint8_t addr[16], uint16_t *port)
{
	memset(addr, 0, 16);
	*family = 0;
	*port = 0;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		*family = 4;
		memcpy(addr, &a->sin_addr, 4);
		*port = ntohs(a->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		*port = ntohs(a->sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) {
			*family = 4;
			memcpy(addr, a->sin6_addr.s6_addr + 12, 4);
		} else {
			*family = 6;
			memcpy(addr, a->sin6_addr.s6_addr, 16);
		}
	}
}
static void
accept_on(struct sink *s, int lfd, uint16_t lport, int64_t now)
{
	int round;

	for (round = 0; round < 64; round++) {
		struct sockaddr_storage local, peer;
		socklen_t ll = sizeof local, pl = sizeof peer;
		struct conn *c = NULL;
		size_t i;
		int fd;

		fd = accept4(lfd, (struct sockaddr *)&peer, &pl,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1)
			return;
		for (i = 0; i < MAX_CONNS; i++)
			if (s->conns[i].fd < 0) {
				c = &s->conns[i];
				break;
			}
		if (c == NULL) {
			struct conn busy;

			memset(&busy, 0, sizeof busy);
			c = &busy;
			c->buf = s->scratch;
			c->flags = FAKENET_BUSY;
		} else {
			unsigned char *buf = c->buf;

			memset(c, 0, sizeof *c);
			c->buf = buf;
		}
		c->fd = fd;
		c->id = ++s->next_id;
		c->start = c->last = now;
		if (getsockname(fd, (struct sockaddr *)&local, &ll) == 0)
			sockaddr_take(&local, &c->family, c->addr, &c->port);
		else
			c->port = lport;
		if (pl <= sizeof peer) {
			uint8_t fam, a[16];

			sockaddr_take(&peer, &fam, a, &c->sport);
		}
		if (c->family == 4 && memcmp(c->addr, s->answer, 4) == 0) {
			memcpy(c->name, s->last_name, s->last_namelen);
			c->namelen = s->last_namelen;
		}
		if (c->flags & FAKENET_BUSY) {
			fnet_conn_end(s, c, 0);
			continue;
		}
		if (fnet_is_smtp_port(c->port)) {
			c->proto = P_SMTP;
			fnet_say(c, "220 fakenet ESMTP\r\n");
		}
	}
}

/* Emit an OPEN snapshot of every live connection. */
static void
snapshot(struct sink *s)
{
	size_t i;

	for (i = 0; i < MAX_CONNS; i++)
		if (s->conns[i].fd >= 0)
			fnet_conn_end(s, &s->conns[i], FAKENET_OPEN);
}

static void
expire(struct sink *s, int64_t now)
{
	size_t i;

	for (i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &s->conns[i];

		if (c->fd >= 0 && (now - c->last >= s->idle ||
		    now - c->start >= s->life))
			fnet_conn_end(s, c, FAKENET_TIMEOUT);
	}
}

static int
next_timeout(const struct sink *s, int64_t now)
{
	int64_t best = -1;
	size_t i;

	for (i = 0; i < MAX_CONNS; i++) {
		const struct conn *c = &s->conns[i];
		int64_t d;

		if (c->fd < 0)
			continue;
		d = c->last + s->idle < c->start + s->life ?
		    c->last + s->idle : c->start + s->life;
		d -= now;
		if (d < 0)
			d = 0;
		if (best < 0 || d < best)
			best = d;
	}
	return best > INT_MAX ? INT_MAX : (int)best;
}

/* One pass: poll (timeout ms), handle what is ready.  Returns the number
 * of descriptors that had input, or -1 when the caller is gone. */
static int
sink_pass(struct sink *s, int timeout, uint32_t *sync_seq, bool *sync)
{
	struct pollfd pfd[2 + NRAW + 16 + MAX_CONNS];
	size_t who[MAX_CONNS];
	size_t np = 0, nc = 0, i;
	int ready;
	int64_t now;

	pfd[np++] = (struct pollfd){ .fd = s->ctl, .events = POLLIN };
	pfd[np++] = (struct pollfd){ .fd = s->out_len ? s->cap : -1,
	    .events = POLLOUT };
	for (i = 0; i < NRAW; i++)
		pfd[np++] = (struct pollfd){ .fd = s->raw[i], .events = POLLIN };
	for (i = 0; i < s->nl; i++)
		pfd[np++] = (struct pollfd){ .fd = s->lfd[i], .events = POLLIN };
	for (i = 0; i < MAX_CONNS; i++)
		if (s->conns[i].fd >= 0) {
			who[nc++] = i;
			pfd[np++] = (struct pollfd){ .fd = s->conns[i].fd,
			    .events = POLLIN };
		}
	ready = poll(pfd, np, timeout);
	if (ready < 0)
		return errno == EINTR ? 0 : -1;
	now = clock_ms_whole();
	/* Packets first: a DNS question comes before the connection it
	 * named, and the connection takes the name at accept.  Read them
	 * whatever poll said: it looks at descriptors one after another,
	 * so a question that arrived after it looked at the raw socket
	 * but before it looked at the listener would come too late. */
	for (i = 0; i < NRAW; i++)
		if (s->raw[i] >= 0)
			fnet_read_raw(s, i);
	if (pfd[1].revents & POLLOUT)
		fnet_out_flush(s);
	if (pfd[1].revents & (POLLERR | POLLHUP))
		return -1;
	for (i = 0; i < s->nl; i++)
		if (pfd[2 + NRAW + i].revents)
			accept_on(s, s->lfd[i], s->lport[i], now);
	for (i = 0; i < nc; i++) {
		struct conn *c = &s->conns[who[i]];
		struct pollfd *p = &pfd[2 + NRAW + s->nl + i];

		if (p->revents && c->fd == p->fd)
			fnet_conn_read(s, c, now);
	}
	if (pfd[0].revents) {
		unsigned char b[64];
		ssize_t got = read(s->ctl, b, sizeof b);

		if (got <= 0)
			return -1;		/* fakenet_down or the caller died */
		if (got >= 4) {
			*sync_seq = get32(b + ((size_t)got / 4 - 1) * 4);
			*sync = true;
		}
	}
	/* What the caller's draining counts is input, not the pipe. */
	return ready - (pfd[1].revents != 0);
}

/* What the kernel dropped from the raw sockets' full queues since the
 * last look (SO_MEMINFO's drop counter): a flood is counted, not lost. */
static void
raw_dropped(struct sink *s)
{
	size_t i;

	for (i = 0; i < NRAW; i++) {
		uint32_t mi[SK_MEMINFO_VARS];
		socklen_t len = sizeof mi;

		if (s->raw[i] < 0 || getsockopt(s->raw[i], SOL_SOCKET,
		    SO_MEMINFO, mi, &len) == -1 ||
		    len <= SK_MEMINFO_DROPS * sizeof mi[0])
			continue;
		s->dropped += (uint32_t)(mi[SK_MEMINFO_DROPS] - s->raw_drops[i]);
		s->raw_drops[i] = mi[SK_MEMINFO_DROPS];
	}
}

static void
say_sync(struct sink *s, uint32_t seq)
{
	struct frame fr;

	raw_dropped(s);
	memset(&fr, 0, sizeof fr);
	fr.kind = FAKENET_SYNC;
	fr.conn = seq;
	fr.bytes = s->dropped;
	if (s->dropped)
		fr.flags = FAKENET_DROPPED;
	s->dropped = 0;
	fnet_emit(s, &fr);
	fnet_out_flush(s);
}

static void __attribute__((noreturn))
sink_loop(struct sink *s)
{
	for (;;) {
		uint32_t seq = 0;
		bool sync = false;
		int round;

		expire(s, clock_ms_whole());
		if (sink_pass(s, next_timeout(s, clock_ms_whole()), &seq, &sync) < 0)
			_exit(0);
		if (!sync)
			continue;
		for (round = 0; round < DRAIN_ROUNDS; round++) {
			bool again = false;
			uint32_t seq2;
			int r = sink_pass(s, 0, &seq2, &again);

			if (r < 0)
				_exit(0);
			if (again)
				seq = seq2;
			if (r == 0)
				break;
		}
		snapshot(s);
		say_sync(s, seq);
	}
}

/* ---- the sink's set-up ---- */

/* Set-up failed: the reason goes to fakenet_up() on the ready pipe. */
static void __attribute__((noreturn))
sink_fail(int rdy, const char *what, int err)
{
	dprintf(rdy, "%s: %s", what, strerror(err));
	_exit(1);
}

static int
listen_on(uint16_t port)
{
	struct sockaddr_in6 a6;
	struct sockaddr_in a4;
	int one = 1, zero = 0, fd;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		memset(&a6, 0, sizeof a6);
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons(port);
		a6.sin6_addr = in6addr_any;
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) == 0 &&
		    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
		    bind(fd, (struct sockaddr *)&a6, sizeof a6) == 0 &&
		    listen(fd, 512) == 0)
			return fd;
		close(fd);
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&a4, 0, sizeof a4);
	a4.sin_family = AF_INET;
	a4.sin_port = htons(port);
	a4.sin_addr.s_addr = htonl(INADDR_ANY);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == -1 ||
	    bind(fd, (struct sockaddr *)&a4, sizeof a4) == -1 ||
	    listen(fd, 512) == -1) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* What the sink's filter depends on: its capture and ready pipes and
 * its last set-up descriptor. */
struct sink_fds {
	int	cap, rdy, last_fd;
};

static int
sink_rules(void *vctx, void *arg)
{
	static const int plain[] = {
		SCMP_SYS(read), SCMP_SYS(recvfrom), SCMP_SYS(recvmsg),
		SCMP_SYS(poll),
		SCMP_SYS(ppoll), SCMP_SYS(accept4), SCMP_SYS(accept),
		SCMP_SYS(close), SCMP_SYS(shutdown), SCMP_SYS(getsockname),
		SCMP_SYS(getpeername), SCMP_SYS(getsockopt),
		SCMP_SYS(clock_gettime),
		SCMP_SYS(gettimeofday), SCMP_SYS(exit), SCMP_SYS(exit_group),
		SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask),
		SCMP_SYS(restart_syscall), SCMP_SYS(brk), SCMP_SYS(munmap),
		SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(futex),
		SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(sched_yield),
		SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep),
		SCMP_SYS(getrandom),
	};
	scmp_filter_ctx ctx = vctx;
	const struct sink_fds *f = arg;
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof plain / sizeof plain[0] && rc == 0; i++)
		if (plain[i] >= 0)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, plain[i], 0);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
		    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)f->cap));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
		    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)f->rdy));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sendto), 2,
		    SCMP_A0(SCMP_CMP_GT, (scmp_datum_t)f->last_fd),
		    SCMP_A4(SCMP_CMP_EQ, 0));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

/*
 * The sink's filter compiled ahead, once, in the zygote (fakenet_prepare),
 * for each last set-up descriptor a sink can have -- where fnet_fork puts
 * the pipes, then a listener a port, then the raw sockets (the IPv6 ones
 * where the kernel has IPv6) -- instead of by libseccomp in every sink:
 * its rules' allocations were a twentieth of a fresh world's page
 * faults.  A sink whose descriptors are not among them compiles its own,
 * the same rules.
 */
#define SINK_CAP	3	/* fnet_fork's: keep[0], keep[2] */
#define SINK_RDY	5
#define SINK_MIN_RAW	2	/* the IPv4 ones */
static struct {
	struct sink_fds	 fds;
	struct jail_bpf	 bpf;
} sink_filter[NRAW - SINK_MIN_RAW + 1];

int
fnet_sink_prepare(void)
{
	size_t k;

	for (k = 0; k < sizeof sink_filter / sizeof sink_filter[0]; k++) {
		struct sink_fds f = { SINK_CAP, SINK_RDY, SINK_RDY +
		    (int)fakenet_nports + SINK_MIN_RAW + (int)k };

		if (sink_filter[k].bpf.insns != NULL)
			continue;
		if (jail_seccomp_compile_over(&sink_filter[k].bpf,
		    SCMP_ACT_KILL_PROCESS, sink_rules, &f) == -1)
			return -1;
		sink_filter[k].fds = f;
	}
	return 0;
}

/* Nothing but the loop's own calls; write() only to the capture pipe
 * (and the ready pipe, whose reader has gone by then),
 * send() only on accepted connections (their descriptors are above every
 * set-up one: nothing set up is ever closed), without an address, so
 * never on a raw socket; no mapping made executable. */
static int
sink_seccomp(const struct sink *s)
{
	const struct sink_fds f = { s->cap, s->rdy, s->last_fd };
	const struct jail_bpf *b = NULL;
	struct jail_bpf own = { NULL, 0 };
	struct sock_fprog prog;
	size_t k;
	int rc;

	for (k = 0; k < sizeof sink_filter / sizeof sink_filter[0]; k++)
		if (sink_filter[k].bpf.insns != NULL &&
		    memcmp(&sink_filter[k].fds, &f, sizeof f) == 0)
			b = &sink_filter[k].bpf;
	if (b == NULL) {
		if (jail_seccomp_compile_over(&own, SCMP_ACT_KILL_PROCESS,
		    sink_rules, (void *)&f) == -1)
			return -errno;
		b = &own;
	}
	prog.len = b->len;
	prog.filter = b->insns;
	/* (no_new_privs is set: fnet_caps_keep) */
	rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	free(own.insns);
	return rc == -1 ? -errno : 0;
}

void __attribute__((noreturn))
fnet_sink_child(const struct fakenet_config *cfg, const struct fakenet_ca *ca,
    const uint8_t answer[4], const char *failed)
{
	/* where fnet_fork put them */
	int cap = 3, ctl = 4, rdy = 5;
	struct sink *s;
	unsigned char *bufs;
	size_t i;
	int rc;

	if (failed != NULL)
		_exit(1);
	signal(SIGPIPE, SIG_IGN);
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);	/* no ptrace by the world */
	s = calloc(1, sizeof *s);
	if (!s)
		sink_fail(rdy, "sink memory", ENOMEM);
	s->cap = cap;
	s->ctl = ctl;
	s->rdy = rdy;
	s->last_fd = rdy;
	memcpy(s->answer, answer, 4);
	s->ca = ca;
	s->keep = cfg->keep_bytes;
	s->body_cap = cfg->body_bytes;
	s->idle = cfg->idle_ms;
	s->life = cfg->life_ms;
	s->out = malloc(OUT_CAP + 256);
	s->frame = malloc(FAKENET_FRAME_MAX);
	s->pktbuf = malloc(PKT_BUF);
	if (!s->out || !s->frame || !s->pktbuf)
		sink_fail(rdy, "sink memory", ENOMEM);
	/* Every connection's buffer, in one mapping made now (so a
	 * connection never lacks one) and touched only by the connections
	 * that come: 224 mallocs from the heap wrote a chunk header into a
	 * fresh page each, a quarter of a fresh world's page faults. */
	bufs = mmap(NULL, MAX_CONNS * s->keep, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bufs == MAP_FAILED)
		sink_fail(rdy, "sink memory", ENOMEM);
	for (i = 0; i < MAX_CONNS; i++) {
		s->conns[i].fd = -1;
		s->conns[i].buf = bufs + i * s->keep;
	}
	for (i = 0; i < fakenet_nports; i++) {
		char what[32];

		s->lport[s->nl] = fakenet_ports[i];
		s->lfd[s->nl] = listen_on(fakenet_ports[i]);
		if (s->lfd[s->nl] < 0) {
			snprintf(what, sizeof what, "listen on port %u",
			    fakenet_ports[i]);
			sink_fail(rdy, what, errno);
		}
		s->nl++;
	}
	for (i = 0; i < NRAW; i++) {
		s->raw[i] = fnet_raw_socket(&fnet_raw_kinds[i]);
		if (s->raw[i] < 0 && (fnet_raw_kinds[i].family == AF_INET ||
		    errno != EAFNOSUPPORT))
			sink_fail(rdy, "raw socket", errno);
		if (s->raw[i] > s->last_fd)
			s->last_fd = s->raw[i];
	}
	for (i = 0; i < s->nl; i++)
		if (s->lfd[i] > s->last_fd)
			s->last_fd = s->lfd[i];
	if (fcntl(cap, F_SETFL, O_NONBLOCK) == -1)
		sink_fail(rdy, "capture pipe", errno);
	if (fnet_caps_keep(0) == -1)
		sink_fail(rdy, "drop capabilities", errno);
	rc = sink_seccomp(s);
	if (rc != 0)
		sink_fail(rdy, "seccomp", -rc);
	/* Ready, and confined: one NUL byte (the pipe is kept open and
	 * never written again). */
	if (write(rdy, "", 1) != 1)
		_exit(1);
	sink_loop(s);
}
