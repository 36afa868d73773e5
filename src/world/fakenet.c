/*
 * fakenet.c -- the fake internet of a replica world (see fakenet.h).
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
 * decrypted with the CA the caller gave (see the TLS section): OpenSSL on
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
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "clock.h"
#include "jail_int.h"
#include "world/fakenet.h"
#include "xalloc.h"

#ifndef __NR_close_range
#define __NR_close_range	436
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT		47
#define PR_CAP_AMBIENT_RAISE	2
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef TIOCLINUX
#define TIOCLINUX		0x541C
#endif
#ifndef F_SETPIPE_SZ
#define F_SETPIPE_SZ		1031
#endif

#define DNSMASQ_PATH	"/usr/sbin/dnsmasq"
/* The descriptor dnsmasq is executed from, at and above which it can
 * open nothing (RLIMIT_NOFILE): the only execveat its filter allows
 * names a descriptor no process of dnsmasq's can have once the exec
 * closed this one (see dnsmasq_child).  Below the world's own
 * RLIMIT_NOFILE (world_int.h's WORLD_NOFILE, 256), which its helpers
 * start under: they are within the world's budget too. */
#define DNSMASQ_EXEC_FD	255
#define FRAME_VERSION	1
#define NFIELDS		7
#define MAX_CONNS	224		/* open connections at once (within
				   the world's 256 descriptors) */
#define READ_LIMIT	(4u << 20)	/* bytes read from one connection */
#define OUT_CAP		(1u << 20)	/* frames waiting for the caller */
#define PKT_BUF		65600		/* one packet from lo (MTU 65536) */
#define NRAW		4		/* raw sockets: TCP, UDP x v4, v6 */
#define RAW_RCVBUF	(4 << 20)	/* each raw socket's queue */
#define TLS_PENDING_MAX	(256u << 10)	/* ciphertext OpenSSL has not read */
#define DRAIN_ROUNDS	64		/* poll passes a sync may take */
/* The name fakenet_up() asks dnsmasq for until it answers: the sink
 * neither reports it nor remembers it for the connections that follow. */
#define PROBE_NAME	"fakenet.invalid"

/* ------------------------------------------------------------------ */
/* names and ports                                                     */
/* ------------------------------------------------------------------ */

/* 25 and 587 are SMTP (the server speaks first); the rest are told
 * apart by what the client sends. */
const uint16_t fakenet_ports[] = {
	25, 80, 443, 587, 1337, 4444, 8000, 8080, 8443,
};
const size_t fakenet_nports = sizeof fakenet_ports / sizeof fakenet_ports[0];
_Static_assert(sizeof fakenet_ports / sizeof fakenet_ports[0] <= 16,
    "struct sink holds 16 listeners");

static const char *const kind_names[] = {
#define X(e, s) s,
	FAKENET_KINDS(X)
#undef X
};

const char *
fakenet_kind_name(enum fakenet_kind k)
{
	return (unsigned)k < FAKENET_KIND_COUNT ? kind_names[k] : "?";
}

const char *
fakenet_flag_name(unsigned bit)
{
#define X(e, v, s) if (bit == (v)) return s;
	FAKENET_FLAGS(X)
#undef X
	return "?";
}

static bool
is_smtp_port(uint16_t port)
{
	return port == 25 || port == 587;
}

static bool
is_sink_port(uint16_t port)
{
	size_t i;

	for (i = 0; i < fakenet_nports; i++)
		if (fakenet_ports[i] == port)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* frames                                                              */
/* ------------------------------------------------------------------ */

/* The field caps, in wire order. */
static const size_t field_max[NFIELDS] = {
	FAKENET_NAME_MAX, FAKENET_NAME_MAX, FAKENET_METHOD_MAX,
	FAKENET_NAME_MAX, FAKENET_PATH_MAX, FAKENET_KEEP_MAX,
	FAKENET_KEEP_MAX,
};

struct frame {
	enum fakenet_kind kind;
	unsigned	 flags;
	uint16_t	 port, aux;
	uint32_t	 conn;
	uint64_t	 bytes;
	uint8_t		 family;	/* 0, 4, 6 */
	uint8_t		 addr[16];
	struct fakenet_str f[NFIELDS];	/* name sni method host path body data */
};
enum { F_NAME, F_SNI, F_METHOD, F_HOST, F_PATH, F_BODY, F_DATA };

static void
put16(unsigned char *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static void
put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static uint16_t
get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
get32(const unsigned char *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}

/* Encode fr into dst (at least FAKENET_FRAME_MAX bytes), each field cut
 * to its cap.  Returns the frame's length. */
static size_t
frame_encode(unsigned char *dst, const struct frame *fr)
{
	size_t off = FAKENET_HEADER, i;

	dst[4] = FRAME_VERSION;
	dst[5] = (unsigned char)fr->kind;
	put16(dst + 6, (uint16_t)fr->flags);
	put16(dst + 8, fr->port);
	put16(dst + 10, fr->aux);
	put32(dst + 12, fr->conn);
	put32(dst + 16, (uint32_t)fr->bytes);
	put32(dst + 20, (uint32_t)(fr->bytes >> 32));
	dst[24] = fr->family;
	memcpy(dst + 25, fr->addr, 16);
	dst[41] = NFIELDS;
	for (i = 0; i < NFIELDS; i++) {
		size_t len = fr->f[i].n < field_max[i] ? fr->f[i].n : field_max[i];

		put16(dst + off, (uint16_t)len);
		if (len)
			memcpy(dst + off + 2, fr->f[i].p, len);
		off += 2 + len;
	}
	put32(dst, (uint32_t)off);
	return off;
}

size_t
fakenet_frame_len(const void *p, size_t have)
{
	return have < 4 ? 0 : get32(p);
}

int
fakenet_decode(const void *frame, size_t len, struct fakenet_capture *c)
{
	const unsigned char *b = frame;
	struct fakenet_str *dst[NFIELDS];
	size_t off = FAKENET_HEADER, i;
	unsigned flags;

	memset(c, 0, sizeof *c);
	if (len < FAKENET_HEADER || len > FAKENET_FRAME_MAX ||
	    get32(b) != len || b[4] != FRAME_VERSION ||
	    b[5] >= FAKENET_KIND_COUNT || b[41] != NFIELDS)
		return -1;
	flags = get16(b + 6);
	if (flags & ~(unsigned)FAKENET_FLAG_MASK)
		return -1;
	c->kind = b[5];
	c->flags = flags;
	c->port = get16(b + 8);
	c->aux = get16(b + 10);
	c->conn = get32(b + 12);
	c->bytes = get32(b + 16) | (uint64_t)get32(b + 20) << 32;
	switch (b[24]) {
	case 0:
		break;
	case 4:
		if (!inet_ntop(AF_INET, b + 25, c->addr, sizeof c->addr))
			return -1;
		break;
	case 6:
		if (!inet_ntop(AF_INET6, b + 25, c->addr, sizeof c->addr))
			return -1;
		break;
	default:
		return -1;
	}
	dst[F_NAME] = &c->name;
	dst[F_SNI] = &c->sni;
	dst[F_METHOD] = &c->method;
	dst[F_HOST] = &c->host;
	dst[F_PATH] = &c->path;
	dst[F_BODY] = &c->body;
	dst[F_DATA] = &c->data;
	for (i = 0; i < NFIELDS; i++) {
		size_t n;

		if (len - off < 2)
			return -1;
		n = get16(b + off);
		off += 2;
		if (n > field_max[i] || n > len - off)
			return -1;
		dst[i]->p = (const char *)b + off;
		dst[i]->n = n;
		off += n;
	}
	return off == len ? 0 : -1;
}

/* ---- where a capture went, as a URL ---- */

struct out {
	char	*p;
	size_t	 n, len;		/* len: what it would take */
};

static void
put_raw(struct out *o, const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++, o->len++)
		if (o->len + 1 < o->n)
			o->p[o->len] = text[i];
}

/* Hostile bytes: printable ASCII but the backslash as is, the rest
 * \xNN, so a name can neither hide nor break a line. */
static void
put_safe(struct out *o, const struct fakenet_str *str)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < str->n; i++) {
		unsigned char ch = (unsigned char)str->p[i];
		char esc[4] = { '\\', 'x', hex[ch >> 4], hex[ch & 15] };

		if (ch > 0x20 && ch < 0x7f && ch != '\\')
			put_raw(o, (const char *)&ch, 1);
		else
			put_raw(o, esc, 4);
	}
}

static void
put_text(struct out *o, const char *text)
{
	put_raw(o, text, strlen(text));
}

size_t
fakenet_url(const struct fakenet_capture *c, char *buf, size_t n)
{
	struct out o = { buf, n, 0 };
	const struct fakenet_str *host = NULL;
	struct fakenet_str addr = { c->addr, strlen(c->addr) };
	const char *scheme;
	unsigned dflt = 0;
	char port[8];
	bool has_port = false;

	if (c->kind == FAKENET_DNS) {
		put_text(&o, "dns://");
		put_safe(&o, &c->name);
		goto done;
	}
	if (c->kind == FAKENET_UDP) {
		scheme = "udp://";
	} else if (c->kind != FAKENET_TCP && c->kind != FAKENET_SYN) {
		put_text(&o, fakenet_kind_name(c->kind));
		goto done;
	} else if (c->flags & FAKENET_HTTP) {
		scheme = c->flags & FAKENET_TLS ? "https://" : "http://";
		dflt = c->flags & FAKENET_TLS ? 443 : 80;
		/* An absolute-form target (a proxy request) says it all. */
		if (c->path.n > 7 && (memcmp(c->path.p, "http://", 7) == 0 ||
		    memcmp(c->path.p, "https://", 8) == 0)) {
			put_safe(&o, &c->path);
			goto done;
		}
		if (c->host.n) {
			host = &c->host;
			has_port = memchr(c->host.p, ':', c->host.n) != NULL;
		}
	} else if (c->flags & FAKENET_TLS) {
		scheme = "https://";
		dflt = 443;
	} else if (c->flags & FAKENET_SMTP) {
		scheme = "smtp://";
		dflt = 25;
	} else {
		scheme = "tcp://";
	}
	put_text(&o, scheme);
	if (!host && c->sni.n)
		host = &c->sni;
	if (!host && c->name.n)
		host = &c->name;
	if (host) {
		put_safe(&o, host);
	} else if (strchr(c->addr, ':')) {
		put_text(&o, "[");
		put_safe(&o, &addr);
		put_text(&o, "]");
	} else {
		put_safe(&o, &addr);
	}
	if (!has_port && c->port != dflt) {
		snprintf(port, sizeof port, ":%u", c->port);
		put_text(&o, port);
	}
	if (c->flags & FAKENET_HTTP)
		put_safe(&o, &c->path);
done:
	if (n)
		buf[o.len < n ? o.len : n - 1] = 0;
	return o.len;
}

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

static int
net_setup(int *has_ipv6, char *why, size_t n)
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

/* Die with the caller; descriptors: 0 and 1 on /dev/null, 2 on err (or
 * /dev/null), keep[] moved to 3, 4, ..., everything else closed; default
 * signals; / (the world's: the caller has pivoted) as working directory;
 * a session of its own, so no controlling terminal (the user's, which
 * the caller may still have).  Returns -1 on failure (the child then
 * _exits). */
static int
child_common(pid_t parent, int devnull, int err, int *keep, int nkeep)
{
	sigset_t all;
	int i, sig;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1 ||
	    getppid() != parent)
		return -1;
	/* Out of the way of 0..2+nkeep first, then into place. */
	for (i = 0; i < nkeep; i++) {
		keep[i] = fcntl(keep[i], F_DUPFD_CLOEXEC, 16);
		if (keep[i] == -1)
			return -1;
	}
	if (dup2(devnull, 0) == -1 || dup2(devnull, 1) == -1 ||
	    dup2(err, 2) == -1)
		return -1;
	for (i = 0; i < nkeep; i++) {
		if (dup2(keep[i], 3 + i) == -1)
			return -1;
		keep[i] = 3 + i;
	}
	if (syscall(__NR_close_range, (unsigned)(3 + nkeep), ~0U, 0U) == -1)
		return -1;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if (chdir("/") == -1 || setsid() == -1)
		return -1;
	return 0;
}

/* Keep only the capabilities in mask (jail_caps_keep()), then set
 * no_new_privs. */
static int
caps_keep(uint32_t mask)
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
 * (see dnsmasq_image).  Compiled once (fakenet_prepare) and loaded by
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
static int dnsmasq_image = -1;

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

int
fakenet_prepare(char *why, size_t n)
{
	static const char *const except[] = { "execveat", NULL };

	if (dnsmasq_filter.insns != NULL)
		return 0;
	dnsmasq_image = image_new(DNSMASQ_PATH);	/* -1: see above */
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

static void __attribute__((noreturn))
dnsmasq_child(pid_t parent, const char *path, int image, const char *answer,
    int devnull, int err)
{
	char address[64];
	char *const envp[] = { NULL };
	struct sock_fprog prog = { dnsmasq_filter.len, dnsmasq_filter.insns };
	int keep[1] = { image };

	if (child_common(parent, devnull, err, keep, image >= 0 ? 1 : 0)
	    == -1) {
		dprintf(2, "set-up: %s", strerror(errno));
		_exit(127);
	}
	if (exec_fd(path, image >= 0 ? keep[0] : -1) == -1) {
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

		if (caps_keep(1u << CAP_NET_BIND_SERVICE) == -1) {
			dprintf(2, "capabilities: %s", strerror(errno));
			_exit(127);
		}
		/* no_new_privs is set (caps_keep) */
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

/* ------------------------------------------------------------------ */
/* the sink                                                            */
/* ------------------------------------------------------------------ */

enum proto { P_UNKNOWN, P_HTTP, P_TLS, P_SMTP, P_RAW };

struct conn {
	int		 fd;		/* -1: free slot */
	uint32_t	 id;
	uint8_t		 family, addr[16];
	uint16_t	 port, sport;
	char		 name[FAKENET_NAME_MAX];
	size_t		 namelen;
	int64_t		 start, last;
	unsigned char	*buf;		/* keep bytes, owned by the sink */
	size_t		 have;
	uint64_t	 total;
	unsigned char	 tail[5];	/* the stream's last bytes */
	unsigned	 flags;
	enum proto	 proto;
	const char	*reply;		/* said after the capture is out */
	bool		 alert;		/* the same: a TLS alert */
	/* HTTP */
	size_t		 hdr_end;	/* 0: headers not complete */
	uint64_t	 clen;
	bool		 chunked, expect, sent100;
	/* SMTP */
	size_t		 line_off, body_off, body_end;
	bool		 in_data;
	/* TLS: the ClientHello's server name; once the handshake is done
	 * buf holds the plaintext, and ptotal counts it */
	SSL		*ssl;		/* NULL: not (or no longer) decrypting */
	bool		 tls, tls_done;
	char		 sni[FAKENET_NAME_MAX];
	size_t		 snilen;
	uint64_t	 ptotal;	/* bytes for the protocol (== total
					   without TLS) */
};

struct sink {
	int		 cap, ctl, rdy;
	int		 raw[NRAW];	/* see raw_kinds; -1: no IPv6 */
	uint32_t	 raw_drops[NRAW];	/* SK_MEMINFO_DROPS so far */
	int		 last_fd;	/* the highest set-up descriptor */
	int		 lfd[16];
	uint16_t	 lport[16];
	size_t		 nl;
	uint8_t		 answer[4];
	size_t		 keep, body_cap;
	int64_t		 idle, life;
	struct conn	 conns[MAX_CONNS];
	uint32_t	 next_id;
	char		 last_name[FAKENET_NAME_MAX];
	size_t		 last_namelen;
	unsigned char	*out;
	size_t		 out_len;
	uint64_t	 dropped;
	unsigned char	*frame;		/* FAKENET_FRAME_MAX scratch */
	unsigned char	*pktbuf;
	unsigned char	 scratch[16384];
	/* the CA (a copy of the caller's, from fork) and the server
	 * context, made at the first ClientHello */
	const struct fakenet_ca *ca;
	SSL_CTX		*tls;
	uint64_t	 serial;
	unsigned char	 plain[16384];
};

static int tls_start(struct sink *s, struct conn *c);
static void tls_pump(struct sink *s, struct conn *c);

static void
out_flush(struct sink *s)
{
	ssize_t w;

	while (s->out_len > 0) {
		w = write(s->cap, s->out, s->out_len);
		if (w <= 0)
			return;		/* EAGAIN: later; EPIPE: caller gone */
		memmove(s->out, s->out + w, s->out_len - (size_t)w);
		s->out_len -= (size_t)w;
	}
}

static void
emit(struct sink *s, const struct frame *fr)
{
	size_t len = frame_encode(s->frame, fr);

	/* A SYNC fits in OUT_CAP's headroom (unless someone else writes
	 * syncs to ctl and never reads: then they are lost too). */
	if (s->out_len + len > OUT_CAP + (fr->kind == FAKENET_SYNC ? 256 : 0)) {
		s->dropped++;
		return;
	}
	memcpy(s->out + s->out_len, s->frame, len);
	s->out_len += len;
}

static void
set_name(const struct sink *s, struct frame *fr)
{
	if (fr->family == 4 && memcmp(fr->addr, s->answer, 4) == 0) {
		fr->f[F_NAME].p = s->last_name;
		fr->f[F_NAME].n = s->last_namelen;
	}
}

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

/* ---- packets seen on lo ---- */

/* A DNS question's name, dotted, into out (cap FAKENET_NAME_MAX), and
 * its qtype.  Returns the name's length, or -1 if it is no question. */
static int
dns_question(const unsigned char *p, size_t n, char *out, uint16_t *qtype)
{
	size_t off = 12, len = 0;

	if (n < 12 || (p[2] & 0x80) || (p[4] == 0 && p[5] == 0))
		return -1;
	for (;;) {
		size_t l;

		if (off >= n)
			return -1;
		l = p[off++];
		if (l == 0)
			break;
		if (l > 63 || off + l > n)
			return -1;	/* compression pointers have no place here */
		if (len + (len > 0) + l > FAKENET_NAME_MAX)
			return -1;
		if (len > 0)
			out[len++] = '.';
		memcpy(out + len, p + off, l);
		len += l;
		off += l;
	}
	if (off + 2 > n)
		return -1;
	*qtype = (uint16_t)(p[off] << 8 | p[off + 1]);
	return (int)len;
}

/* A DNS question in data: a DNS frame (fr has the addresses and ports;
 * aux becomes the qtype), and its name remembered for the connections
 * after it.  false when data is no question. */
static bool
on_question(struct sink *s, struct frame *fr, const unsigned char *data,
    size_t len)
{
	char name[FAKENET_NAME_MAX];
	int namelen = dns_question(data, len, name, &fr->aux);

	if (namelen < 0)
		return false;
	if ((size_t)namelen == strlen(PROBE_NAME) &&
	    memcmp(name, PROBE_NAME, (size_t)namelen) == 0)
		return true;		/* fakenet_up's own */
	/* Only a name asked for an address names the connections after
	 * it (not a PTR, MX, ...). */
	if (fr->aux == 1 || fr->aux == 28) {
		memcpy(s->last_name, name, (size_t)namelen);
		s->last_namelen = (size_t)namelen;
	}
	fr->kind = FAKENET_DNS;
	fr->bytes = len;
	fr->f[F_NAME].p = name;
	fr->f[F_NAME].n = (size_t)namelen;
	emit(s, fr);
	return true;
}

/* A transport header and what follows, n bytes, from family (4, 6) to
 * addr: a SYN frame, a DNS frame or a UDP frame. */
static void
on_l4(struct sink *s, unsigned proto, uint8_t family, const uint8_t *addr,
    const unsigned char *p, size_t n)
{
	struct frame fr;

	memset(&fr, 0, sizeof fr);
	fr.family = family;
	memcpy(fr.addr, addr, family == 4 ? 4 : 16);
	if (proto == IPPROTO_TCP) {
		if (n < 20)
			return;
		fr.aux = (uint16_t)(p[0] << 8 | p[1]);
		fr.port = (uint16_t)(p[2] << 8 | p[3]);
		if ((p[13] & 0x12) != 0x02) {
			/* The filter lets through port 53's segments: a
			 * question over TCP, its 2-byte length first (one
			 * segment: a question is small). */
			size_t doff = (size_t)(p[12] >> 4) * 4;

			if (fr.port == 53 && doff >= 20 && n > doff + 2)
				(void)on_question(s, &fr, p + doff + 2,
				    n - doff - 2);
			return;
		}
		/* A listener there sees it whole.  Port 53 is dnsmasq's and
		 * still reported: the attempt itself. */
		if (is_sink_port(fr.port))
			return;
		fr.kind = FAKENET_SYN;
		set_name(s, &fr);
		emit(s, &fr);
	} else if (proto == IPPROTO_UDP) {
		size_t ulen;
		const unsigned char *data;

		if (n < 8)
			return;
		fr.aux = (uint16_t)(p[0] << 8 | p[1]);
		fr.port = (uint16_t)(p[2] << 8 | p[3]);
		ulen = (size_t)(p[4] << 8 | p[5]);
		if (ulen < 8 || ulen > n)
			return;
		if (fr.aux == 53)
			return;		/* dnsmasq's answers */
		data = p + 8;
		ulen -= 8;
		fr.bytes = ulen;
		if (fr.port == 53 && on_question(s, &fr, data, ulen))
			return;
		fr.kind = FAKENET_UDP;	/* port 53 too, when no question */
		fr.aux = (uint16_t)(p[0] << 8 | p[1]);
		fr.f[F_DATA].p = (const char *)data;
		fr.f[F_DATA].n = ulen < s->keep ? ulen : s->keep;
		if (ulen > s->keep)
			fr.flags |= FAKENET_TRUNCATED;
		set_name(s, &fr);
		emit(s, &fr);
	}
}

/*
 * The raw sockets that see what no listener does: a raw socket gets a
 * copy of every packet delivered locally with its protocol, whatever
 * the port, and (unlike AF_PACKET, whose bind and close each wait for an
 * RCU grace period, 5-15 ms here) costs microseconds.  Classic BPF keeps
 * TCP down to SYNs without ACK and what goes to port 53 (DNS questions
 * over TCP), and drops later IPv4 fragments.
 */
static struct sock_filter syn4_code[] = {
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),			/* 0: frag */
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 7, 0),	/* -> 9 */
	BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),			/* X = ihl */
	BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),			/* dport */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 53, 3, 0),		/* -> 8 */
	BPF_STMT(BPF_LD | BPF_B | BPF_IND, 13),			/* flags */
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x12),		/* SYN|ACK */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x02, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0x40000),			/* 8 */
	BPF_STMT(BPF_RET | BPF_K, 0),				/* 9 */
};
static struct sock_filter udp4_code[] = {
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, 0x40000),
	BPF_STMT(BPF_RET | BPF_K, 0),
};
static struct sock_filter syn6_code[] = {
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 2),			/* 0: dport */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 53, 3, 0),		/* -> 5 */
	BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 13),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x12),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x02, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0x40000),			/* 5 */
	BPF_STMT(BPF_RET | BPF_K, 0),
};

static const struct raw_kind {
	int		 family;
	unsigned	 proto;
	struct sock_filter *code;
	unsigned short	 len;
} raw_kinds[NRAW] = {
	{ AF_INET, IPPROTO_TCP, syn4_code, sizeof syn4_code / sizeof syn4_code[0] },
	{ AF_INET, IPPROTO_UDP, udp4_code, sizeof udp4_code / sizeof udp4_code[0] },
	{ AF_INET6, IPPROTO_TCP, syn6_code, sizeof syn6_code / sizeof syn6_code[0] },
	{ AF_INET6, IPPROTO_UDP, NULL, 0 },
};

static int
raw_socket(const struct raw_kind *k)
{
	struct sock_fprog prog = { k->len, k->code };
	int fd, one = 1, e, rcvbuf = RAW_RCVBUF;

	fd = socket(k->family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    (int)k->proto);
	if (fd < 0)
		return -1;
	/* A deep queue (FORCE: past rmem_max, allowed to the namespace's
	 * own CAP_NET_ADMIN); what still overflows it, raw_dropped()
	 * counts. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
	    sizeof rcvbuf) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
		    sizeof rcvbuf);
	if ((k->code && setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
	    sizeof prog) == -1) ||
	    (k->family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_RECVPKTINFO, &one, sizeof one) == -1)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * Up to 256 packets from raw socket i.  IPv4 hands over the IP header
 * too; IPv6 starts at the transport header, with the destination as
 * IPV6_PKTINFO.
 */
static void
read_raw(struct sink *s, size_t i)
{
	const struct raw_kind *k = &raw_kinds[i];
	int round;

	for (round = 0; round < 256; round++) {
		union {
			struct cmsghdr	 h;
			char		 b[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		} ctl;
		struct iovec iov = { s->pktbuf, PKT_BUF };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
		    .msg_control = &ctl, .msg_controllen = sizeof ctl };
		const unsigned char *p = s->pktbuf;
		const uint8_t *dst6 = NULL;
		struct cmsghdr *c;
		ssize_t got = recvmsg(s->raw[i], &m, MSG_DONTWAIT);
		size_t n, ihl, tot;

		if (got < 0)
			return;
		n = (size_t)got;
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level == IPPROTO_IPV6 &&
			    c->cmsg_type == IPV6_PKTINFO &&
			    c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
				dst6 = CMSG_DATA(c) +
				    offsetof(struct in6_pktinfo, ipi6_addr);
			}
		}
		if (k->family == AF_INET6) {
			uint8_t addr[16];

			if (!dst6)
				continue;
			memcpy(addr, dst6, 16);
			on_l4(s, k->proto, 6, addr, p, n);
			continue;
		}
		if (n < 20 || (p[0] >> 4) != 4)
			continue;
		ihl = (size_t)(p[0] & 0xf) * 4;
		tot = (size_t)(p[2] << 8 | p[3]);
		if (ihl < 20 || tot < ihl || tot > n ||
		    ((p[6] << 8 | p[7]) & 0x1fff) || p[9] != k->proto)
			continue;
		on_l4(s, k->proto, 4, p + 16, p + ihl, tot - ihl);
	}
}

/* ---- protocols ---- */

/* What OpenSSL wrote for the client, onto the socket. */
static void
tls_flush(struct conn *c)
{
	unsigned char tmp[4096];
	int n;

	while ((n = BIO_read(SSL_get_wbio(c->ssl), tmp, sizeof tmp)) > 0)
		(void)send(c->fd, tmp, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void
say(struct conn *c, const char *text)
{
	if (c->ssl && c->tls_done) {
		(void)SSL_write(c->ssl, text, (int)strlen(text));
		tls_flush(c);
		return;
	}
	(void)send(c->fd, text, strlen(text), MSG_DONTWAIT | MSG_NOSIGNAL);
}

static const unsigned char *
find(const unsigned char *b, size_t n, const char *needle, size_t from)
{
	size_t k = strlen(needle);

	for (; from + k <= n; from++)
		if (memcmp(b + from, needle, k) == 0)
			return b + from;
	return NULL;
}

static int
lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
}

/* Does the line [p, p+n) start with header name h (lower case) and ':'? */
static const unsigned char *
header_value(const unsigned char *p, size_t n, const char *h, size_t *vlen)
{
	size_t k = strlen(h), i;

	if (n <= k || p[k] != ':')
		return NULL;
	for (i = 0; i < k; i++)
		if (lower(p[i]) != h[i])
			return NULL;
	for (i = k + 1; i < n && (p[i] == ' ' || p[i] == '\t'); i++)
		;
	while (n > i && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	*vlen = n - i;
	return p + i;
}

/* Is the start of b an HTTP request line?  1 yes, 0 not yet known,
 * -1 no. */
static int
http_start(const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n && i <= FAKENET_METHOD_MAX; i++) {
		if (b[i] == ' ')
			return i > 0 ? 1 : -1;
		if (b[i] < 'A' || b[i] > 'Z')
			return -1;
	}
	return i > FAKENET_METHOD_MAX ? -1 : 0;
}

struct http_req {
	struct fakenet_str method, path, host;
};

/* Split the kept request line and headers; what is not there stays empty. */
static void
http_split(const struct conn *c, struct http_req *r, bool headers)
{
	const unsigned char *b = c->buf, *eol, *sp;
	size_t end = c->hdr_end ? c->hdr_end : c->have, off;

	memset(r, 0, sizeof *r);
	eol = memchr(b, '\n', end);
	if (!eol)
		eol = b + end;
	sp = memchr(b, ' ', (size_t)(eol - b));
	if (!sp)
		return;
	r->method.p = (const char *)b;
	r->method.n = (size_t)(sp - b);
	r->path.p = (const char *)sp + 1;
	r->path.n = (size_t)(eol - sp - 1);
	sp = memchr(sp + 1, ' ', (size_t)(eol - sp - 1));
	if (sp)
		r->path.n = (size_t)((const char *)sp - r->path.p);
	if (!headers)
		return;
	for (off = (size_t)(eol - b) + 1; off < end;) {
		const unsigned char *line = b + off, *v;
		size_t len, vlen;

		eol = memchr(line, '\n', end - off);
		len = eol ? (size_t)(eol - line) : end - off;
		if ((v = header_value(line, len, "host", &vlen)) != NULL) {
			r->host.p = (const char *)v;
			r->host.n = vlen;
		}
		off += len + 1;
	}
}

/* The headers just completed: read what decides the body's end. */
static void
http_headers(struct conn *c)
{
	const unsigned char *b = c->buf, *eol, *v;
	size_t off, len, vlen, i;

	eol = memchr(b, '\n', c->hdr_end);
	for (off = eol ? (size_t)(eol - b) + 1 : c->hdr_end; off < c->hdr_end;) {
		const unsigned char *line = b + off;

		eol = memchr(line, '\n', c->hdr_end - off);
		len = eol ? (size_t)(eol - line) : c->hdr_end - off;
		if ((v = header_value(line, len, "content-length", &vlen))) {
			c->clen = 0;
			for (i = 0; i < vlen && v[i] >= '0' && v[i] <= '9'; i++)
				if (c->clen < READ_LIMIT)
					c->clen = c->clen * 10 + (uint64_t)(v[i] - '0');
		} else if ((v = header_value(line, len, "transfer-encoding", &vlen))) {
			c->chunked = vlen >= 7 &&
			    find(v, vlen, "chunked", 0) != NULL;
		} else if ((v = header_value(line, len, "expect", &vlen))) {
			c->expect = vlen >= 3 && memcmp(v, "100", 3) == 0;
		}
		off += len + 1;
	}
}

/* What a real server that keeps what it is sent might answer, and what
 * the corpus's ground truth (tools/corpus_truth.py) answers: 200 and an
 * empty body, so urlopen().read() is b'' and curl prints nothing. */
static const char http_ok[] =
	"HTTP/1.1 200 OK\r\n"
	"Content-Type: text/plain; charset=utf-8\r\n"
	"Content-Length: 0\r\n"
	"Connection: close\r\n"
	"\r\n";
static const char http_too_big[] =
	"HTTP/1.1 431 Request Header Fields Too Large\r\n"
	"Content-Length: 0\r\n"
	"Connection: close\r\n"
	"\r\n";
/* A fatal handshake_failure alert: the client stops at once. */
static const unsigned char tls_alert[] = { 0x15, 0x03, 0x01, 0x00, 0x02,
	0x02, 0x28 };

/* The server name in a ClientHello record at b (bounded by n). */
static struct fakenet_str
tls_sni(const unsigned char *b, size_t n)
{
	struct fakenet_str none = { NULL, 0 };
	size_t end, p, ext_end;

	if (n < 9 || b[0] != 0x16 || b[5] != 1)
		return none;
	end = 5 + (size_t)(b[3] << 8 | b[4]);
	if (end > n)
		end = n;
	p = 9 + 2 + 32;				/* version, random */
	if (p + 1 > end)
		return none;
	p += 1 + b[p];				/* session id */
	if (p + 2 > end)
		return none;
	p += 2 + (size_t)(b[p] << 8 | b[p + 1]);	/* cipher suites */
	if (p + 1 > end)
		return none;
	p += 1 + b[p];				/* compression */
	if (p + 2 > end)
		return none;
	ext_end = p + 2 + (size_t)(b[p] << 8 | b[p + 1]);
	if (ext_end > end)
		ext_end = end;
	for (p += 2; p + 4 <= ext_end;) {
		size_t type = (size_t)(b[p] << 8 | b[p + 1]);
		size_t len = (size_t)(b[p + 2] << 8 | b[p + 3]), q;

		p += 4;
		if (p + len > ext_end)
			return none;
		if (type == 0) {		/* server_name */
			for (q = p + 2; q + 3 <= p + len;) {
				size_t nl = (size_t)(b[q + 1] << 8 | b[q + 2]);

				if (q + 3 + nl > p + len)
					return none;
				if (b[q] == 0) {
					struct fakenet_str s = {
						(const char *)b + q + 3, nl };
					return s;
				}
				q += 3 + nl;
			}
		}
		p += len;
	}
	return none;
}

static void
conn_end(struct sink *s, struct conn *c, unsigned flags)
{
	struct frame fr;
	struct http_req req;

	memset(&fr, 0, sizeof fr);
	fr.kind = FAKENET_TCP;
	fr.flags = c->flags | flags;
	if (c->ptotal > c->have)
		fr.flags |= FAKENET_TRUNCATED;
	fr.port = c->port;
	fr.aux = c->sport;
	fr.conn = c->id;
	fr.bytes = c->total;
	fr.family = c->family;
	memcpy(fr.addr, c->addr, 16);
	fr.f[F_NAME].p = c->name;
	fr.f[F_NAME].n = c->namelen;
	fr.f[F_DATA].p = (const char *)c->buf;
	fr.f[F_DATA].n = c->have;
	if (c->proto == P_HTTP) {
		fr.flags |= FAKENET_HTTP;
		http_split(c, &req, c->hdr_end > 0);
		fr.f[F_METHOD] = req.method;
		fr.f[F_PATH] = req.path;
		fr.f[F_HOST] = req.host;
		if (c->hdr_end) {
			fr.f[F_BODY].p = (const char *)c->buf + c->hdr_end;
			fr.f[F_BODY].n = c->have - c->hdr_end;
			if (!c->chunked && fr.f[F_BODY].n > c->clen)
				fr.f[F_BODY].n = (size_t)c->clen;
		}
	} else if (c->proto == P_TLS) {		/* not decrypted */
		fr.flags |= FAKENET_TLS;
		if (!c->snilen)
			fr.f[F_SNI] = tls_sni(c->buf, c->have);
	} else if (c->proto == P_SMTP) {
		fr.flags |= FAKENET_SMTP;
		if (c->body_end > c->body_off) {
			fr.f[F_BODY].p = (const char *)c->buf + c->body_off;
			fr.f[F_BODY].n = c->body_end - c->body_off;
		}
	}
	if (c->tls) {
		fr.flags |= FAKENET_TLS;
		if (c->snilen) {
			fr.f[F_SNI].p = c->sni;
			fr.f[F_SNI].n = c->snilen;
		}
	}
	if (fr.f[F_BODY].n > s->body_cap) {
		fr.f[F_BODY].n = s->body_cap;
		fr.flags |= FAKENET_TRUNCATED;
	}
	emit(s, &fr);
	if (flags & FAKENET_OPEN)
		return;
	/* The capture reaches the pipe before the client has the last
	 * word: a client that saw its answer has its capture written. */
	out_flush(s);
	if (c->reply)
		say(c, c->reply);
	if (c->alert)
		(void)send(c->fd, tls_alert, sizeof tls_alert,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
	if (c->ssl) {
		if (c->tls_done) {
			(void)SSL_shutdown(c->ssl);
			tls_flush(c);
		}
		SSL_free(c->ssl);
		c->ssl = NULL;
	}
	close(c->fd);
	c->fd = -1;
}

/* SMTP: answer every complete line; true when the session is over. */
static bool
smtp_step(struct conn *c)
{
	const unsigned char *eol;

	while ((eol = memchr(c->buf + c->line_off, '\n',
	    c->have - c->line_off)) != NULL) {
		const unsigned char *line = c->buf + c->line_off;
		size_t len = (size_t)(eol - line);
		char verb[5];
		size_t i;

		c->line_off += len + 1;
		if (c->in_data) {
			if (len >= 1 && line[0] == '.' &&
			    (len == 1 || (len == 2 && line[1] == '\r'))) {
				c->body_end = (size_t)(line - c->buf);
				c->in_data = false;
				say(c, "250 OK queued\r\n");
			}
			continue;
		}
		for (i = 0; i < 4; i++)
			verb[i] = (char)(i < len ? lower(line[i]) : 0);
		verb[4] = 0;
		if (strcmp(verb, "data") == 0) {
			c->in_data = true;
			c->body_off = c->line_off;
			say(c, "354 End data with <CR><LF>.<CR><LF>\r\n");
		} else if (strcmp(verb, "quit") == 0) {
			c->reply = "221 Bye\r\n";
			return true;
		} else if (strcmp(verb, "ehlo") == 0 || strcmp(verb, "helo") == 0) {
			say(c, "250 fakenet\r\n");
		} else {
			say(c, "250 OK\r\n");
		}
	}
	return false;
}

/* After new bytes: decide, answer, or end.  old is the previous have. */
static void
conn_step(struct sink *s, struct conn *c, size_t old)
{
	if (c->proto == P_UNKNOWN && c->have > 0) {
		int h;

		if (c->buf[0] == 0x16)
			c->proto = P_TLS;
		else if ((h = http_start(c->buf, c->have)) == 1)
			c->proto = P_HTTP;
		else if (h == -1)
			c->proto = P_RAW;
	}
	switch (c->proto) {
	case P_TLS: {
		size_t need = c->have >= 5 ?
		    5 + (size_t)(c->buf[3] << 8 | c->buf[4]) : SIZE_MAX;

		if (c->total < need && c->have < s->keep)
			return;
		if (tls_start(s, c) == -1) {
			c->alert = true;
			conn_end(s, c, 0);
		}
		return;
	}
	case P_HTTP: {
		const unsigned char *e;

		if (!c->hdr_end) {
			size_t from = old > 3 ? old - 3 : 0;

			if ((e = find(c->buf, c->have, "\r\n\r\n", from)))
				c->hdr_end = (size_t)(e - c->buf) + 4;
			else if ((e = find(c->buf, c->have, "\n\n", old ? old - 1 : 0)))
				c->hdr_end = (size_t)(e - c->buf) + 2;
			if (!c->hdr_end) {
				if (c->have == s->keep) {
					c->reply = http_too_big;
					conn_end(s, c, FAKENET_TRUNCATED);
				}
				return;
			}
			http_headers(c);
		}
		if (c->chunked ? memcmp(c->tail, "0\r\n\r\n", 5) == 0 :
		    c->ptotal - c->hdr_end >= c->clen) {
			c->reply = http_ok;
			conn_end(s, c, 0);
		} else if (c->expect && !c->sent100) {
			c->sent100 = true;
			say(c, "HTTP/1.1 100 Continue\r\n\r\n");
		}
		return;
	}
	case P_SMTP:
		if (smtp_step(c))
			conn_end(s, c, 0);
		else if (c->have == s->keep) {
			c->reply = "552 Too much\r\n";
			conn_end(s, c, FAKENET_TRUNCATED);
		}
		return;
	default:
		return;
	}
}

/* Bytes for the protocol (plaintext, when decrypting): keep what fits,
 * count the rest, and let the protocol act. */
static void
plain_bytes(struct sink *s, struct conn *c, const unsigned char *p, size_t n)
{
	size_t old = c->have, room = s->keep - c->have, i;

	memcpy(c->buf + c->have, p, n < room ? n : room);
	c->have += n < room ? n : room;
	c->ptotal += n;
	for (i = n > 5 ? n - 5 : 0; i < n; i++) {
		memmove(c->tail, c->tail + 1, 4);
		c->tail[4] = p[i];
	}
	conn_step(s, c, old);
}

/* ---- TLS, decrypted with the worlds' CA ---- */

/*
 * The sink holds a copy (by fork) of the CA fakenet_ca_new() made in the
 * process that builds worlds (ECDSA P-256, 30 days), whose certificate
 * the world trusts, and signs a leaf for each ClientHello: the server
 * name asked for (when it is a plain host name) and the address dialled,
 * both as subjectAltNames, built with OpenSSL's object API (no hostile
 * name reaches a config-string parser).  OpenSSL
 * works on memory BIOs: the sink still does every read and send itself,
 * so the seccomp filter needs nothing more.  A client that does not
 * trust the CA (pinning, its own bundle) ends the handshake: the capture
 * then has the server name and byte count only, flagged tls_failed.
 */

struct fakenet_ca {
	EVP_PKEY	*key, *leaf_key;
	X509		*cert;
	char		*pem;
};

static bool
is_host_name(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || len > 253)
		return false;
	for (i = 0; i < len; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' ||
		    ch == '_' || ch == '*'))
			return false;
	}
	return true;
}

static int
add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX v3;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx(&v3, issuer, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);	/* constants only */
	if (!ext)
		return -1;
	ok = X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	return ok ? 0 : -1;
}

/* A certificate for key, named cn, valid a day back and 30 ahead; the
 * caller sets the issuer and signs. */
static X509 *
cert_new(uint64_t serial, EVP_PKEY *key, const char *cn)
{
	X509 *x = X509_new();

	if (!x || !X509_set_version(x, 2) ||
	    !ASN1_INTEGER_set_int64(X509_get_serialNumber(x),
	    (int64_t)(((uint64_t)time(NULL) << 20) + serial)) ||
	    !X509_gmtime_adj(X509_getm_notBefore(x), -86400) ||
	    !X509_gmtime_adj(X509_getm_notAfter(x), 30L * 86400) ||
	    !X509_set_pubkey(x, key) ||
	    !X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN",
	    MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0)) {
		X509_free(x);
		return NULL;
	}
	return x;
}

static X509 *
leaf_new(struct sink *s, const char *name, const struct conn *c)
{
	size_t len = name ? strlen(name) : 0;
	GENERAL_NAMES *sans = sk_GENERAL_NAME_new_null();
	GENERAL_NAME *g;
	ASN1_OCTET_STRING *ip;
	X509 *x;
	bool ok;

	x = cert_new(++s->serial, s->ca->leaf_key,
	    is_host_name(name, len) && len <= 64 ? name : "fakenet");
	ok = x && sans &&
	    X509_set_issuer_name(x, X509_get_subject_name(s->ca->cert));
	if (ok && is_host_name(name, len)) {
		ASN1_IA5STRING *dns = ASN1_IA5STRING_new();

		g = GENERAL_NAME_new();
		ok = dns && g && ASN1_STRING_set(dns, name, (int)len);
		if (ok) {
			GENERAL_NAME_set0_value(g, GEN_DNS, dns);
			ok = sk_GENERAL_NAME_push(sans, g) > 0;
			if (!ok)
				GENERAL_NAME_free(g);
		} else {
			ASN1_IA5STRING_free(dns);
			GENERAL_NAME_free(g);
		}
	}
	if (ok && c->family) {
		ip = ASN1_OCTET_STRING_new();
		g = GENERAL_NAME_new();
		ok = ip && g && ASN1_OCTET_STRING_set(ip, c->addr,
		    c->family == 4 ? 4 : 16);
		if (ok) {
			GENERAL_NAME_set0_value(g, GEN_IPADD, ip);
			ok = sk_GENERAL_NAME_push(sans, g) > 0;
			if (!ok)
				GENERAL_NAME_free(g);
		} else {
			ASN1_OCTET_STRING_free(ip);
			GENERAL_NAME_free(g);
		}
	}
	ok = ok && X509_add1_ext_i2d(x, NID_subject_alt_name, sans, 0,
	    X509V3_ADD_DEFAULT) == 1 &&
	    add_ext(x, s->ca->cert, NID_basic_constraints,
	    "critical,CA:FALSE") == 0 &&
	    add_ext(x, s->ca->cert, NID_ext_key_usage, "serverAuth") == 0 &&
	    add_ext(x, s->ca->cert, NID_authority_key_identifier, "keyid") == 0 &&
	    X509_sign(x, s->ca->key, EVP_sha256()) > 0;
	GENERAL_NAMES_free(sans);
	if (!ok) {
		X509_free(x);
		return NULL;
	}
	return x;
}

/* OpenSSL calls this with the ClientHello read, SNI or not. */
static int
on_server_name(SSL *ssl, int *alert, void *arg)
{
	struct sink *s = arg;
	struct conn *c = SSL_get_app_data(ssl);
	const char *name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
	X509 *leaf;

	(void)alert;
	if (name && !c->snilen) {
		c->snilen = strnlen(name, sizeof c->sni);
		memcpy(c->sni, name, c->snilen);
	}
	leaf = leaf_new(s, name, c);
	if (!leaf)
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	if (SSL_use_certificate(ssl, leaf) != 1 ||
	    SSL_use_PrivateKey(ssl, s->ca->leaf_key) != 1) {
		X509_free(leaf);
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	}
	X509_free(leaf);
	return SSL_TLSEXT_ERR_OK;
}

struct fakenet_ca *
fakenet_ca_new(char *why, size_t n)
{
	struct fakenet_ca *ca = xcalloc(1, sizeof *ca);
	BIO *m = NULL;
	char *p;
	long len;

	if (!OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL))
		goto fail;
	ca->key = EVP_EC_gen("P-256");
	ca->leaf_key = EVP_EC_gen("P-256");
	if (!ca->key || !ca->leaf_key)
		goto fail;
	ca->cert = cert_new(0, ca->key, "sandboxrepl world CA (fake internet)");
	if (!ca->cert ||
	    !X509_set_issuer_name(ca->cert, X509_get_subject_name(ca->cert)) ||
	    add_ext(ca->cert, ca->cert, NID_basic_constraints, "critical,CA:TRUE") ||
	    add_ext(ca->cert, ca->cert, NID_key_usage,
	    "critical,keyCertSign,cRLSign") ||
	    add_ext(ca->cert, ca->cert, NID_subject_key_identifier, "hash") ||
	    X509_sign(ca->cert, ca->key, EVP_sha256()) <= 0)
		goto fail;
	m = BIO_new(BIO_s_mem());
	if (!m || !PEM_write_bio_X509(m, ca->cert) ||
	    (len = BIO_get_mem_data(m, &p)) <= 0)
		goto fail;
	ca->pem = xstrndup(p, (size_t)len);
	BIO_free(m);
	return ca;
fail: {
		const char *e = ERR_reason_error_string(ERR_get_error());

		snprintf(why, n, "fakenet: the CA: %s", e ? e : "OpenSSL failed");
	}
	ERR_clear_error();
	BIO_free(m);
	fakenet_ca_free(ca);
	return NULL;
}

const char *
fakenet_ca_pem(const struct fakenet_ca *ca)
{
	return ca->pem;
}

void
fakenet_ca_free(struct fakenet_ca *ca)
{
	if (!ca)
		return;
	EVP_PKEY_free(ca->key);
	EVP_PKEY_free(ca->leaf_key);
	X509_free(ca->cert);
	free(ca->pem);
	free(ca);
}

/* The server context, at the first ClientHello (OpenSSL's first use of
 * its algorithms costs milliseconds: only worlds that speak TLS pay). */
static SSL_CTX *
tls_ctx(struct sink *s)
{
	if (s->tls)
		return s->tls;
	s->tls = SSL_CTX_new(TLS_server_method());
	if (!s->tls)
		return NULL;
	SSL_CTX_set_num_tickets(s->tls, 0);
	SSL_CTX_set_tlsext_servername_callback(s->tls, on_server_name);
	SSL_CTX_set_tlsext_servername_arg(s->tls, s);
	return s->tls;
}

/* The ClientHello is in buf: keep its server name, then hand every byte
 * so far to OpenSSL; buf starts over as plaintext.  -1: cannot decrypt. */
static int
tls_start(struct sink *s, struct conn *c)
{
	struct fakenet_str sni = tls_sni(c->buf, c->have);
	BIO *rb, *wb;

	c->tls = true;
	if (sni.n && sni.n <= sizeof c->sni) {
		memcpy(c->sni, sni.p, sni.n);
		c->snilen = sni.n;
	}
	if (!tls_ctx(s))
		return -1;
	c->ssl = SSL_new(s->tls);
	rb = BIO_new(BIO_s_mem());
	wb = BIO_new(BIO_s_mem());
	if (!c->ssl || !rb || !wb) {
		SSL_free(c->ssl);
		c->ssl = NULL;
		BIO_free(rb);
		BIO_free(wb);
		return -1;
	}
	SSL_set_bio(c->ssl, rb, wb);
	SSL_set_accept_state(c->ssl);
	SSL_set_app_data(c->ssl, c);
	(void)BIO_write(rb, c->buf, (int)c->have);
	c->have = 0;
	c->ptotal = 0;
	c->proto = P_UNKNOWN;
	memset(c->tail, 0, sizeof c->tail);
	tls_pump(s, c);
	return 0;
}

/* Move the handshake on, then decrypt what there is.  May end c. */
static void
tls_pump(struct sink *s, struct conn *c)
{
	int r, e;

	if (!c->tls_done) {
		r = SSL_do_handshake(c->ssl);
		tls_flush(c);
		if (r != 1) {
			e = SSL_get_error(c->ssl, r);
			ERR_clear_error();
			if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
				conn_end(s, c, FAKENET_TLS_FAILED);
			return;
		}
		c->tls_done = true;
	}
	while (c->fd >= 0 && c->ssl) {
		r = SSL_read(c->ssl, s->plain, sizeof s->plain);
		if (r <= 0) {
			e = SSL_get_error(c->ssl, r);
			ERR_clear_error();
			tls_flush(c);
			if (e != SSL_ERROR_WANT_READ)
				conn_end(s, c, 0);	/* close_notify or broken */
			return;
		}
		plain_bytes(s, c, s->plain, (size_t)r);
	}
}

static void
conn_read(struct sink *s, struct conn *c, int64_t now)
{
	int round;

	for (round = 0; round < 8 && c->fd >= 0; round++) {
		ssize_t got = recv(c->fd, s->scratch, sizeof s->scratch,
		    MSG_DONTWAIT);

		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (got <= 0) {
			conn_end(s, c, 0);	/* EOF or reset */
			return;
		}
		c->last = now;
		c->total += (uint64_t)got;
		if (c->ssl) {
			/* What OpenSSL has not taken yet is bounded too. */
			if (BIO_ctrl_pending(SSL_get_rbio(c->ssl)) > TLS_PENDING_MAX) {
				conn_end(s, c, FAKENET_TRUNCATED);
				return;
			}
			(void)BIO_write(SSL_get_rbio(c->ssl), s->scratch, (int)got);
			tls_pump(s, c);
		} else {
			plain_bytes(s, c, s->scratch, (size_t)got);
		}
		if (c->fd >= 0 && c->total >= READ_LIMIT) {
			if (c->proto == P_HTTP)
				c->reply = http_ok;
			conn_end(s, c, FAKENET_TRUNCATED);
			return;
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
			conn_end(s, c, 0);
			continue;
		}
		if (is_smtp_port(c->port)) {
			c->proto = P_SMTP;
			say(c, "220 fakenet ESMTP\r\n");
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
			conn_end(s, &s->conns[i], FAKENET_OPEN);
}

static void
expire(struct sink *s, int64_t now)
{
	size_t i;

	for (i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &s->conns[i];

		if (c->fd >= 0 && (now - c->last >= s->idle ||
		    now - c->start >= s->life))
			conn_end(s, c, FAKENET_TIMEOUT);
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
			read_raw(s, i);
	if (pfd[1].revents & POLLOUT)
		out_flush(s);
	if (pfd[1].revents & (POLLERR | POLLHUP))
		return -1;
	for (i = 0; i < s->nl; i++)
		if (pfd[2 + NRAW + i].revents)
			accept_on(s, s->lfd[i], s->lport[i], now);
	for (i = 0; i < nc; i++) {
		struct conn *c = &s->conns[who[i]];
		struct pollfd *p = &pfd[2 + NRAW + s->nl + i];

		if (p->revents && c->fd == p->fd)
			conn_read(s, c, now);
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
	emit(s, &fr);
	out_flush(s);
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

/* Nothing but the loop's own calls; write() only to the capture pipe
 * (and the ready pipe, whose reader has gone by then),
 * send() only on accepted connections (their descriptors are above every
 * set-up one: nothing set up is ever closed), without an address, so
 * never on a raw socket; no mapping made executable. */
static int
sink_seccomp(const struct sink *s)
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
	scmp_filter_ctx ctx;
	size_t i;
	int rc = 0;

	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx)
		return -ENOMEM;
	for (i = 0; i < sizeof plain / sizeof plain[0] && rc == 0; i++)
		if (plain[i] >= 0)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, plain[i], 0);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
		    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)s->cap));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
		    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)s->rdy));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sendto), 2,
		    SCMP_A0(SCMP_CMP_GT, (scmp_datum_t)s->last_fd),
		    SCMP_A4(SCMP_CMP_EQ, 0));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc;
}

static void __attribute__((noreturn))
sink_child(pid_t parent, const struct fakenet_config *cfg,
    const struct fakenet_ca *ca, const uint8_t answer[4], int devnull,
    int cap, int ctl, int rdy)
{
	int keep[3] = { cap, ctl, rdy };
	struct sink *s;
	size_t i;
	int rc;

	if (child_common(parent, devnull, devnull, keep, 3) == -1)
		_exit(1);
	cap = keep[0];
	ctl = keep[1];
	rdy = keep[2];
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
	for (i = 0; i < MAX_CONNS; i++) {
		s->conns[i].fd = -1;
		s->conns[i].buf = malloc(s->keep);
		if (!s->conns[i].buf)
			sink_fail(rdy, "sink memory", ENOMEM);
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
		s->raw[i] = raw_socket(&raw_kinds[i]);
		if (s->raw[i] < 0 && (raw_kinds[i].family == AF_INET ||
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
	if (caps_keep(0) == -1)
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

int
fakenet_start(const struct fakenet_config *cfg_in, struct fakenet *out,
    char *why, size_t n)
{
	struct fakenet_config cfg = { 0 };
	int cap[2] = { -1, -1 }, ctl[2] = { -1, -1 }, err[2] = { -1, -1 };
	int rdy[2] = { -1, -1 };
	int devnull = -1, rc = -1;
	struct in_addr answer;
	pid_t self = getpid();

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
	if (net_setup(&out->has_ipv6, why, n) == -1)
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
	out->dnsmasq = fork();
	if (out->dnsmasq == -1) {
		out->dnsmasq = 0;
		snprintf(why, n, "fakenet: fork: %s", strerror(errno));
		goto done;
	}
	if (out->dnsmasq == 0)
		dnsmasq_child(self, cfg.dnsmasq,
		    strcmp(cfg.dnsmasq, DNSMASQ_PATH) == 0 ? dnsmasq_image : -1,
		    cfg.answer, devnull, err[1]);
	close(err[1]);
	err[1] = -1;
	out->sink = fork();
	if (out->sink == -1) {
		out->sink = 0;
		snprintf(why, n, "fakenet: fork: %s", strerror(errno));
		goto done;
	}
	if (out->sink == 0)
		sink_child(self, &cfg, cfg.ca ? cfg.ca : out->own_ca,
		    (const uint8_t *)&answer, devnull, cap[1], ctl[0], rdy[1]);
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
