/*
 * fakenet.c -- the fake internet of a replica world (see fakenet.h): the
 * caller's side, and the overview of the pieces (fakenet_int.h lists
 * which file holds what).
 *
 * fakenet_up() runs in the world's process, in its fresh network
 * namespace, and does four things in order:
 *
 *   1. netlink by hand: RTM_NEWLINK sets lo up, RTM_NEWROUTE adds the
 *      AnyIP routes (type local, table local, dst 0.0.0.0/0 and ::/0,
 *      dev lo), so every address is this namespace's own;
 *   2. forks dnsmasq with no host configuration (-C /dev/null,
 *      --no-resolv, --no-hosts), in the foreground (-d, which also keeps
 *      it from changing user: in a user namespace it could not), logging
 *      to its stderr only (never to the host's /dev/log), holding only
 *      CAP_NET_BIND_SERVICE (ambient, so it survives execve whatever uid
 *      the world maps) and no_new_privs, under a seccomp filter that
 *      lets it exec itself once and never again (dnsmasq_rules), from a
 *      copy it may not read, so that it is not dumpable (dnsmasq_image);
 *   3. forks the sink: it binds its listeners and four raw sockets (TCP
 *      and UDP, IPv4 and IPv6), drops every capability, sets
 *      no_new_privs and a seccomp allowlist under which the only
 *      descriptors it can write() are the capture pipe and its ready
 *      pipe (and it can open nothing), says ready on the ready pipe
 *      (or why not), and loops;
 *      Both children first take / as working directory and a session of
 *      their own (child_common): the caller has pivoted into the world's
 *      root, so nothing of theirs names the host's tree or terminal;
 *   4. waits for the sink's word and for dnsmasq to answer a query
 *      (PROBE_NAME, which the sink neither reports nor remembers), both
 *      within cfg->start_ms, without a busy loop (probe_dns).
 * fakenet_start() is steps 1 to 3 and fakenet_wait() step 4, so that a
 * world builds its root while dnsmasq starts; fakenet_up() is both.
 *
 * The sink is one poll loop.  Connections: accept, remember the
 * destination (getsockname: with AnyIP that is the address the client
 * dialled), read at most keep_bytes into the slot's buffer and count the
 * rest up to READ_LIMIT, decide the protocol from the first bytes (TLS
 * record, HTTP method, or SMTP by port), answer as little as lets the
 * client finish, and end the connection on completion, EOF, idle_ms
 * silence or life_ms age, emitting one frame.  The raw sockets (with
 * classic BPF filters: TCP SYN without ACK, UDP) give SYN frames for
 * ports without a listener, UDP frames, and DNS frames whose name is
 * remembered for the connections that follow.  A TLS connection is
 * decrypted with the CA the caller gave (see fakenet_ca.c): OpenSSL on
 * memory BIOs between the sink's own recv() and send(), and the HTTP code
 * reads the plaintext.  Frames go to an output buffer of OUT_CAP bytes
 * flushed when the pipe is writable; when the caller does not read,
 * frames are dropped and counted (with what the raw sockets' full queues
 * dropped), never blocking.
 *
 * A sync is a sequence number written to the ctl pipe: the sink drains
 * what the kernel holds (poll with no wait until nothing is ready),
 * snapshots open connections, and answers with a SYNC frame carrying the
 * number.  Anything the world's input sent before it returned is queued
 * in the kernel by then, so the batch is complete.
 *
 * Frame (little-endian): u32 len (whole frame), u8 version 1, u8 kind,
 * u16 flags, u16 port, u16 aux, u32 conn, u64 bytes, u8 family (0, 4,
 * 6), u8 addr[16], u8 nfields = 7, then name, sni, method, host, path,
 * body, data, each a u16 length and its bytes.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "world/fakenet_int.h"
#include "base/xalloc.h"

#ifndef F_SETPIPE_SZ
#define F_SETPIPE_SZ		1031
#endif

/* ------------------------------------------------------------------ */
/* the caller's side                                                   */
/* ------------------------------------------------------------------ */

#define RBUF_CAP	(2 * FAKENET_FRAME_MAX)

/* Read frames until the SYNC numbered want, by deadline. */
static int
read_until(struct fakenet *fn, uint32_t want, int64_t deadline,
    fakenet_cb cb, void *ctx, char *why, size_t n)
{
	int count = 0;

	for (;;) {
		struct fakenet_capture c;
		size_t flen = fakenet_frame_len(fn->buf, fn->have);

		if (fn->have >= 4 && (flen < FAKENET_HEADER ||
		    flen > FAKENET_FRAME_MAX)) {
			snprintf(why, n, "fakenet: a frame of %zu bytes", flen);
			return -1;
		}
		if (fn->have >= 4 && fn->have >= flen) {
			if (fakenet_decode(fn->buf, flen, &c) == -1) {
				snprintf(why, n, "fakenet: a malformed frame");
				return -1;
			}
			if (c.kind == FAKENET_SYNC) {
				if (c.flags & FAKENET_DROPPED && cb)
					cb(ctx, &c, fn->buf, flen);
			} else if (cb) {
				cb(ctx, &c, fn->buf, flen);
				count++;
			} else {
				count++;
			}
			memmove(fn->buf, fn->buf + flen, fn->have - flen);
			fn->have -= flen;
			if (c.kind == FAKENET_SYNC && c.conn == want)
				return count;
			continue;
		}
		{
			struct pollfd p = { .fd = fn->fd, .events = POLLIN };
			int64_t left = deadline - clock_ms_whole();
			ssize_t got;

			if (left <= 0) {
				snprintf(why, n, "fakenet: the sink did not answer");
				return -1;
			}
			if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
				snprintf(why, n, "fakenet: poll: %s", strerror(errno));
				return -1;
			}
			if (!p.revents)
				continue;
			got = read(fn->fd, fn->buf + fn->have, RBUF_CAP - fn->have);
			if (got < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (got <= 0) {
				snprintf(why, n, "fakenet: the sink is gone");
				return -1;
			}
			fn->have += (size_t)got;
		}
	}
}

/* write() to a pipe whose reader may be dead, without a SIGPIPE that
 * would end the caller (a world's interpreter): blocked for the call, and
 * a pending one taken back. */
static ssize_t
write_nosigpipe(int fd, const void *p, size_t len)
{
	static const struct timespec zero = { 0, 0 };
	sigset_t pipe_only, old;
	ssize_t w;
	int e;

	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &pipe_only, &old) == -1)
		return -1;
	w = write(fd, p, len);
	e = errno;
	if (w == -1 && e == EPIPE && !sigismember(&old, SIGPIPE))
		(void)sigtimedwait(&pipe_only, NULL, &zero);
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return w;
}

int
fakenet_read_captures(struct fakenet *fn, int timeout_ms, fakenet_cb cb,
    void *ctx, char *why, size_t n)
{
	unsigned char seq[4];

	if (fn->fd < 0 || fn->ctl < 0) {
		snprintf(why, n, "fakenet: not running");
		return -1;
	}
	fn->seq++;
	put32(seq, fn->seq);
	/* A dead sink (EPIPE) may have left frames in the pipe: read them
	 * up to its EOF, which read_until reports as the sink gone. */
	if (write_nosigpipe(fn->ctl, seq, sizeof seq) != (ssize_t)sizeof seq &&
	    errno != EPIPE) {
		snprintf(why, n, "fakenet: sync: %s", strerror(errno));
		return -1;
	}
	return read_until(fn, fn->seq, clock_ms_whole() + timeout_ms, cb, ctx, why, n);
}

/*
 * Ask dnsmasq for a name until it answers with the address.  Never a
 * busy loop (dnsmasq needs the CPU it would take): a question refused
 * because nothing listens yet (the ICMP error on the connected socket)
 * is asked again when dnsmasq writes to its log (its "started" line comes
 * once it listens) or after RETRY_MS; one not answered at all, after
 * LOST_MS.  What dnsmasq logs is kept for the reason if it exits.
 */
#define RETRY_MS	1
#define LOST_MS		50

static int
probe_dns(struct fakenet *fn, const uint8_t answer[4], int errfd,
    int64_t deadline, char *why, size_t n)
{
	static const unsigned char q[] = {
		0xfa, 0x4e, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
		7, 'f', 'a', 'k', 'e', 'n', 'e', 't', 7, 'i', 'n', 'v', 'a',
		'l', 'i', 'd', 0, 0, 1, 0, 1,
	};
	struct sockaddr_in to = { .sin_family = AF_INET,
	    .sin_port = htons(53), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned char r[512];
	char text[200];
	size_t have = 0;
	int64_t resend = 0;
	int fd, status, rc = -1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof to) == -1) {
		snprintf(why, n, "fakenet: dns probe: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	text[0] = 0;
	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
		    { .fd = errfd, .events = POLLIN } };
		int64_t t = clock_ms_whole(), wait;
		ssize_t got;

		if (t >= deadline) {
			snprintf(why, n, "fakenet: dnsmasq did not answer");
			break;
		}
		if (t >= resend) {
			(void)send(fd, q, sizeof q, MSG_NOSIGNAL);
			resend = t + LOST_MS;
		}
		wait = (resend < deadline ? resend : deadline) - t;
		if (poll(p, errfd >= 0 ? 2 : 1, (int)(wait > 0 ? wait : 0)) < 0 &&
		    errno != EINTR) {
			snprintf(why, n, "fakenet: poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents) {
			got = recv(fd, r, sizeof r, MSG_DONTWAIT);
			if (got >= (ssize_t)sizeof q + 16 &&
			    r[0] == q[0] && r[1] == q[1] && (r[2] & 0x80) &&
			    (r[3] & 0xf) == 0 &&
			    memcmp(r + got - 4, answer, 4) == 0) {
				rc = 0;
				break;
			}
			if (got < 0 && errno == ECONNREFUSED)	/* not yet */
				resend = clock_ms_whole() + RETRY_MS;
		}
		if (errfd >= 0 && p[1].revents) {
			/* dnsmasq logged (say, that it started), or exited */
			got = read(errfd, text + have, sizeof text - 1 - have);
			if (got > 0 && have + (size_t)got < sizeof text - 1)
				have += (size_t)got;
			else if (got > 0)
				have = 0;	/* keep the latest lines */
			text[have] = 0;
			if (got == 0 || (got < 0 && errno != EINTR &&
			    errno != EAGAIN))
				errfd = -1;	/* EOF: waitpid says why */
			resend = clock_ms_whole();
		}
		if (waitpid(fn->dnsmasq, &status, WNOHANG) == fn->dnsmasq) {
			fn->dnsmasq = 0;
			while (errfd >= 0 && have < sizeof text - 1 &&
			    (got = read(errfd, text + have,
			    sizeof text - 1 - have)) > 0)
				have += (size_t)got;
			text[have] = 0;
			text[strcspn(text, "\n")] = 0;
			snprintf(why, n, "fakenet: dnsmasq exited (%d): %s",
			    WIFEXITED(status) ? WEXITSTATUS(status) : -1, text);
			break;
		}
	}
	close(fd);
	return rc;
}

/* The sink's word on its set-up: a NUL byte, or a reason and EOF. */
static int
wait_sink(int rdy, int64_t deadline, char *why, size_t n)
{
	char text[200];
	size_t have = 0;

	for (;;) {
		struct pollfd p = { .fd = rdy, .events = POLLIN };
		int64_t left = deadline - clock_ms_whole();
		ssize_t got;

		if (left <= 0) {
			snprintf(why, n, "fakenet: the sink did not start");
			return -1;
		}
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		got = read(rdy, text + have, sizeof text - 1 - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got > 0)
			have += (size_t)got;
		if (have == 1 && text[0] == 0)
			return 0;
		if (got <= 0 || have == sizeof text - 1) {
			text[have] = 0;
			snprintf(why, n, "fakenet: sink: %s",
			    have && text[0] ? text : "died during set-up");
			return -1;
		}
	}
}

/* The set-up's own pipes, once fakenet_wait() is done with them. */
static void
close_start(struct fakenet *fn)
{
	if (fn->buf && fn->start_err >= 0)
		close(fn->start_err);
	if (fn->buf && fn->start_rdy >= 0)
		close(fn->start_rdy);
	fn->start_err = fn->start_rdy = -1;
}

/* dnsmasq's start, in a child that shares the caller's memory until the
 * exec (fnet_spawn): what it execs, read only. */
struct dns_exec {
	const char	*path;
	int		 image;		/* its descriptor in the child, or -1 */
	const char	*answer;
};

static void
dns_child(void *arg, const char *failed)
{
	const struct dns_exec *d = arg;

	fnet_dnsmasq_child(d->path, d->image, d->answer, failed);
}

/* What every fake internet needs, made once (in the zygote, before any
 * world): dnsmasq's filter and image, and the sink's filter. */
int
fakenet_prepare(char *why, size_t n)
{
	if (fnet_dnsmasq_prepare(why, n) == -1)
		return -1;
	if (fnet_sink_prepare() == -1) {
		snprintf(why, n, "fakenet: the sink's seccomp filter: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
fakenet_start(const struct fakenet_config *cfg_in, struct fakenet *out,
    char *why, size_t n)
{
	struct fakenet_config cfg = { 0 };
	struct dns_exec dns;
	int cap[2] = { -1, -1 }, ctl[2] = { -1, -1 }, err[2] = { -1, -1 };
	int rdy[2] = { -1, -1 };
	int devnull = -1, rc = -1, image;
	struct in_addr answer;
	const char *failed;

	memset(out, 0, sizeof *out);
	out->fd = out->ctl = -1;
	out->start_err = out->start_rdy = -1;
	if (cfg_in)
		cfg = *cfg_in;
	if (cfg.outside) {		/* consumed whatever happens */
		cap[1] = cfg.capture_wr;
		ctl[0] = cfg.ctl_rd;
	}
	if (!cfg.dnsmasq)
		cfg.dnsmasq = DNSMASQ_PATH;
	if (!cfg.answer)
		cfg.answer = FAKENET_ANSWER;
	if (!cfg.keep_bytes)
		cfg.keep_bytes = 16384;
	if (cfg.keep_bytes > FAKENET_KEEP_MAX)
		cfg.keep_bytes = FAKENET_KEEP_MAX;
	if (!cfg.body_bytes)
		cfg.body_bytes = 4096;
	if (cfg.body_bytes > cfg.keep_bytes)
		cfg.body_bytes = cfg.keep_bytes;
	if (!cfg.idle_ms)
		cfg.idle_ms = 2000;
	if (!cfg.life_ms)
		cfg.life_ms = 10000;
	if (!cfg.start_ms)
		cfg.start_ms = 3000;
	out->start_deadline = clock_ms_whole() + cfg.start_ms;
	out->buf = xmalloc(RBUF_CAP);
	if (inet_pton(AF_INET, cfg.answer, &answer) != 1) {
		snprintf(why, n, "fakenet: answer %s is no IPv4 address",
		    cfg.answer);
		goto done;
	}
	memcpy(out->answer, &answer, 4);
	if (access(cfg.dnsmasq, X_OK) == -1) {
		snprintf(why, n, "fakenet: %s: %s", cfg.dnsmasq, strerror(errno));
		goto done;
	}
	if (fakenet_prepare(why, n) == -1)
		goto done;
	if (!cfg.ca && !(out->own_ca = fakenet_ca_new(why, n)))
		goto done;
	out->ca_pem = fakenet_ca_pem(cfg.ca ? cfg.ca : out->own_ca);
	if (fnet_net_setup(&out->has_ipv6, why, n) == -1)
		goto done;
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0 || (!cfg.outside && (pipe2(cap, O_CLOEXEC) == -1 ||
	    pipe2(ctl, O_CLOEXEC) == -1)) || pipe2(err, O_CLOEXEC) == -1 ||
	    pipe2(rdy, O_CLOEXEC) == -1) {
		snprintf(why, n, "fakenet: pipes: %s", strerror(errno));
		goto done;
	}
	if (!cfg.outside)
		(void)fcntl(cap[0], F_SETPIPE_SZ, 1 << 20);
	image = strcmp(cfg.dnsmasq, DNSMASQ_PATH) == 0 ? fnet_dnsmasq_image :
	    -1;
	dns = (struct dns_exec){ cfg.dnsmasq, image >= 0 ? 3 : -1,
	    cfg.answer };
	out->dnsmasq = fnet_spawn(devnull, err[1], &image, image >= 0 ? 1 : 0,
	    dns_child, &dns);
	if (out->dnsmasq == -1) {
		out->dnsmasq = 0;
		snprintf(why, n, "fakenet: fork: %s", strerror(errno));
		goto done;
	}
	close(err[1]);
	err[1] = -1;
	out->sink = fnet_fork(devnull, devnull, (const int[]){ cap[1], ctl[0],
	    rdy[1] }, 3, &failed);
	if (out->sink == -1) {
		out->sink = 0;
		snprintf(why, n, "fakenet: fork: %s", strerror(errno));
		goto done;
	}
	if (out->sink == 0)
		fnet_sink_child(&cfg, cfg.ca ? cfg.ca : out->own_ca,
		    (const uint8_t *)&answer, failed);
	close(rdy[1]);
	rdy[1] = -1;
	out->fd = cap[0];
	out->ctl = ctl[1];
	cap[0] = ctl[1] = -1;
	if (out->fd >= 0)
		(void)fcntl(out->fd, F_SETFL, O_NONBLOCK);
	out->start_err = err[0];
	out->start_rdy = rdy[0];
	err[0] = rdy[0] = -1;
	rc = 0;
done:
	if (devnull >= 0)
		close(devnull);
	for (int i = 0; i < 2; i++) {
		if (cap[i] >= 0)
			close(cap[i]);
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (rdy[i] >= 0)
			close(rdy[i]);
	}
	if (rc == -1)
		fakenet_down(out);
	return rc;
}

int
fakenet_wait(struct fakenet *fn, char *why, size_t n)
{
	int rc = -1;

	if (fn->start_rdy < 0 || fn->start_err < 0) {
		snprintf(why, n, "fakenet: not started");
		fakenet_down(fn);
		return -1;
	}
	if (wait_sink(fn->start_rdy, fn->start_deadline, why, n) == 0 &&
	    /* Its question is no capture: the sink knows PROBE_NAME. */
	    probe_dns(fn, fn->answer, fn->start_err, fn->start_deadline, why,
	    n) == 0)
		rc = 0;
	close_start(fn);
	if (rc == -1)
		fakenet_down(fn);
	return rc;
}

int
fakenet_up(const struct fakenet_config *cfg, struct fakenet *out,
    char *why, size_t n)
{
	if (fakenet_start(cfg, out, why, n) == -1)
		return -1;
	return fakenet_wait(out, why, n);
}

void
fakenet_attach(struct fakenet *fn, int fd, int ctl)
{
	memset(fn, 0, sizeof *fn);
	fn->buf = xmalloc(RBUF_CAP);
	fn->start_err = fn->start_rdy = -1;
	fn->fd = fd;
	fn->ctl = ctl;
}

void
fakenet_down(struct fakenet *fn)
{
	pid_t *pids[2] = { &fn->sink, &fn->dnsmasq };
	int i;

	for (i = 0; i < 2; i++)
		if (*pids[i] > 0) {
			kill(*pids[i], SIGKILL);
			while (waitpid(*pids[i], NULL, 0) == -1 && errno == EINTR)
				;
			*pids[i] = 0;
		}
	/* buf is set before any descriptor: a zeroed struct has none. */
	if (fn->buf && fn->fd >= 0)
		close(fn->fd);
	if (fn->buf && fn->ctl >= 0)
		close(fn->ctl);
	fn->fd = fn->ctl = -1;
	close_start(fn);
	free(fn->buf);
	fn->buf = NULL;
	fakenet_ca_free(fn->own_ca);
	fn->own_ca = NULL;
	fn->ca_pem = NULL;
	fn->have = 0;
}
