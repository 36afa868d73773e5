/*
 * fakenet.h -- the fake internet of a replica world.
 *
 * A replica world runs hostile code with a network namespace of its own.
 * fakenet_up() turns that empty namespace into an internet that answers
 * everything and keeps everything:
 *
 *   - lo is up, and the "AnyIP" routes `local 0.0.0.0/0 dev lo table
 *     local` (and `local ::/0` when the kernel has IPv6) deliver every
 *     address locally: a connection to 203.0.113.9:80 or 9.9.9.9:9999
 *     never leaves the namespace, because there is nowhere else to go;
 *   - dnsmasq (Debian's dnsmasq-base) answers every name with one IPv4
 *     address (A only; AAAA and the rest get an empty answer, so clients
 *     fall back to IPv4), on port 53 of every address, so code that asks
 *     8.8.8.8 directly is answered too.  It reads no host configuration;
 *   - a sink process listens on the common ports (fakenet_ports) and
 *     speaks just enough HTTP (200 OK, Connection: close), TLS and SMTP
 *     for clients to finish normally, and watches every TCP SYN to a
 *     port nobody listens on, every UDP datagram and every DNS question
 *     through raw sockets;
 *   - HTTPS is decrypted: the sink holds a CA (fakenet_ca_new(), one per
 *     process that builds worlds) and signs, for each ClientHello, a
 *     certificate for the name asked (and the address dialled).  A client that trusts
 *     the CA completes the handshake, and the capture holds the
 *     plaintext request (method, Host, path, body); one that does not
 *     (its own bundle, pinning) gets a failed handshake, and the capture
 *     holds the server name and the byte count only (flag tls_failed).
 *
 * The sink sends what it saw to the caller as frames over a pipe.  Those
 * frames cross from the world, where hostile code runs as the same user
 * as the sink and may hold the pipe, so they are hostile data:
 * fakenet_decode() validates every length and is the only reader.
 *
 * How a world uses it:
 *
 *   zygote   ca = fakenet_ca_new(why, n);            once, before forking
 *            fakenet_prepare(why, n);                 the same
 *            pipe(cap); pipe(ctl);                    per world
 *   world    unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | ...),
 *            id maps, private mounts;
 *            replica etc/: resolv.conf, hosts, nsswitch.conf (below) and
 *            ssl/certs/ca-certificates.crt = fakenet_ca_pem(ca);
 *            pivot_root;
 *            cfg.ca = ca; cfg.outside = 1;
 *            cfg.capture_wr = cap[1]; cfg.ctl_rd = ctl[0];
 *            if (fakenet_up(&cfg, &fn, why, n) == -1) refuse(why);
 *            caps, seccomp, ...; run inputs;
 *            fakenet_down(&fn) when the world ends (or let it die: the
 *            sink and dnsmasq die with the caller)
 *   parent   fakenet_attach(&rd, cap[0], ctl[1]);     closing its cap[1], ctl[0]
 *            after each input: fakenet_read_captures(&rd, ms, cb, ctx, ...)
 *            and, per capture, fakenet_url() for the record.
 *
 * Error contract: every function that can fail returns -1 and writes a
 * one-line reason into why[n]; nothing here prints or exits.  A world
 * whose fakenet_up() failed must refuse to run: it never runs without
 * its fake internet.
 *
 * Replica /etc for name resolution.  glibc's getaddrinfo (Python's
 * socket, urllib, curl, wget) resolves through dnsmasq when the world's
 * /etc holds:
 *   resolv.conf    "nameserver 127.0.0.1\n" (any address works: dnsmasq
 *                  answers on every address, but 127.0.0.1 is honest);
 *                  add "options attempts:1 timeout:1" so a hung lookup
 *                  cannot stall an input for glibc's default 5 s x 2;
 *   hosts          "127.0.0.1 localhost\n::1 localhost\n" (and the
 *                  world's own hostname), so localhost never asks DNS;
 *   nsswitch.conf  "hosts: files dns\n" -- without it glibc's built-in
 *                  default is "dns [!UNAVAIL=return] files", which works
 *                  but reads hosts after DNS;
 *   host.conf      optional ("multi on");
 *   gai.conf       not needed.
 * No /etc/resolv.conf at all makes glibc ask 127.0.0.1 anyway, but a
 * file that says so is clearer.  curl and wget need nothing else.
 *
 * Replica trust store for HTTPS.  Write out->ca_pem (the CA's PEM) as
 * the replica's
 *   ssl/certs/ca-certificates.crt   (Debian's bundle: curl, wget and
 *                  OpenSSL's default file, which /usr/lib/ssl/cert.pem
 *                  links to, and so Python's ssl and urllib)
 * with /etc/ssl/certs holding that file (the host's /usr/lib/ssl links
 * into /etc/ssl).  Only the world's CA: nothing real is reachable, and a
 * bundle with the real CAs in it would change nothing but its size.
 * test_https binds it over the host's path and verifies evil.com through
 * OpenSSL's default verify paths.
 *
 * Loss.  Every datagram and SYN that reaches the world's network stack
 * is a capture or counted in the next SYNC's drop count (the sink's
 * output buffer, or the raw sockets' queues, full).  What lo's own
 * backlog drops under load never reached any socket, as on a real
 * network.
 */
#ifndef SANDBOXREPL_FAKENET_H
#define SANDBOXREPL_FAKENET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The address dnsmasq gives every name (TEST-NET-3, never routed). */
#define FAKENET_ANSWER		"203.0.113.9"

/* Caps on what one frame can carry (the decoder refuses more). */
#define FAKENET_NAME_MAX	255	/* DNS name, SNI, Host */
#define FAKENET_METHOD_MAX	16
#define FAKENET_PATH_MAX	2048
#define FAKENET_KEEP_MAX	65535	/* bytes received kept per capture
					   (a field's length is 16 bits) */
#define FAKENET_HEADER		42	/* a frame without its fields */
#define FAKENET_FRAME_MAX	(64 + 4 * 260 + FAKENET_PATH_MAX + \
				 2 * FAKENET_KEEP_MAX)

/* The TCP ports the sink listens on (sorted); every other port is seen
 * through its SYNs only (kind SYN: the connection was refused). */
extern const uint16_t fakenet_ports[];
extern const size_t fakenet_nports;

/*
 * A CA for the fake internet's HTTPS: an ECDSA P-256 key, its
 * self-signed certificate (30 days) and the key every leaf certificate
 * shares.  Make one per process that builds worlds (the zygote, before it
 * forks them): OpenSSL's first use of its algorithms costs 5-15 ms here,
 * which a world should not pay again.  The worlds' sinks get a copy by
 * fork.  Every world of the process trusts the same CA; nothing real is
 * reachable from any of them, so that lends them nothing.  The key is in
 * the memory of every world, where code could read it: it is worth as
 * little.  NULL with why set on failure; free with fakenet_ca_free().
 */
struct fakenet_ca;
struct fakenet_ca *fakenet_ca_new(char *why, size_t n);
const char *fakenet_ca_pem(const struct fakenet_ca *ca);	/* owned by ca */
void fakenet_ca_free(struct fakenet_ca *ca);			/* NULL: no-op */

/*
 * What every world's fake internet shares, made once per process that
 * builds worlds (the zygote, with the CA): dnsmasq's seccomp filter, and
 * the sealed, unreadable copy of its binary it is executed from (not
 * made where the kernel refuses: dnsmasq is then executed from its path
 * and stays dumpable).
 * fakenet_start() makes it on its first call when nobody did.  0, or -1
 * with why set.
 */
int fakenet_prepare(char *why, size_t n);

struct fakenet_config {
	const char	*dnsmasq;	/* NULL: /usr/sbin/dnsmasq */
	const char	*answer;	/* IPv4 literal; NULL: FAKENET_ANSWER */
	unsigned	 keep_bytes;	/* kept per capture; 0: 16384 */
	unsigned	 body_bytes;	/* HTTP body kept; 0: 4096 */
	unsigned	 idle_ms;	/* a silent connection ends; 0: 2000 */
	unsigned	 life_ms;	/* any connection ends; 0: 10000 */
	unsigned	 start_ms;	/* bound on start-up; 0: 3000 */
	/*
	 * Where captures go.  outside == 0: fakenet_up() makes the pipes and
	 * out->fd / out->ctl are the caller's.  outside == 1: capture_wr
	 * (the write end of a pipe) and ctl_rd (the read end of another) are
	 * pipes whose other ends are held OUTSIDE the world, by its parent,
	 * which reads them through fakenet_attach(); the sink gets them and
	 * fakenet_up() closes them in the caller (always, even on failure),
	 * so code running in the world can neither read, drain nor forge
	 * captures.  A world should use this: its input runs in the process
	 * that called fakenet_up() and may use any descriptor it holds.
	 */
	int		 outside;
	int		 capture_wr, ctl_rd;
	/* The CA HTTPS is decrypted with (fakenet_ca_new()); NULL: make one,
	 * which costs milliseconds of OpenSSL start-up on every call. */
	const struct fakenet_ca *ca;
};

/*
 * A running fake internet (from fakenet_up()), or a reader of one
 * (from fakenet_attach()).  Owned by the caller until fakenet_down();
 * fd and ctl are O_CLOEXEC, and -1 in the world when cfg->outside.
 * Whoever forwards frames raw may read fd itself, but must then leave
 * fakenet_read_captures() alone (both consume the same pipe).
 */
struct fakenet {
	int		 fd;		/* frames from the sink */
	int		 ctl;		/* sync requests to the sink */
	pid_t		 sink, dnsmasq;
	uint32_t	 seq;		/* last sync asked for */
	int		 has_ipv6;	/* the ::/0 route is in */
	const char	*ca_pem;	/* the CA's certificate, PEM (the
					   CA's; NULL from fakenet_attach) */
	struct fakenet_ca *own_ca;	/* made by fakenet_up: cfg->ca NULL */
	unsigned char	*buf;		/* a partial frame (heap) */
	size_t		 have;
	/* between fakenet_start() and fakenet_wait() */
	int		 start_err, start_rdy;	/* dnsmasq's log, the sink's word */
	int64_t		 start_deadline;
	uint8_t		 answer[4];
};

/* What one frame is about, with its name in captures and records. */
#define FAKENET_KINDS(X) \
	X(FAKENET_TCP,  "tcp")	/* a connection to a sink port */ \
	X(FAKENET_SYN,  "syn")	/* a TCP SYN to a port without a sink */ \
	X(FAKENET_UDP,  "udp")	/* a datagram (not DNS) */ \
	X(FAKENET_DNS,  "dns")	/* a DNS question; aux is its qtype */ \
	X(FAKENET_SYNC, "sync")	/* end of a fakenet_read_captures() batch */

enum fakenet_kind {
#define X(e, s) e,
	FAKENET_KINDS(X)
#undef X
	FAKENET_KIND_COUNT
};

#define FAKENET_FLAGS(X) \
	X(FAKENET_TRUNCATED, 0x01, "truncated")	/* more came than was kept */ \
	X(FAKENET_OPEN,      0x02, "open")	/* still open: a snapshot */ \
	X(FAKENET_TIMEOUT,   0x04, "timeout")	/* the sink ended it */ \
	X(FAKENET_HTTP,      0x08, "http")	/* method, host, path, body */ \
	X(FAKENET_TLS,       0x10, "tls")	/* decrypted unless tls_failed */ \
	X(FAKENET_SMTP,      0x20, "smtp")	/* body: the DATA */ \
	X(FAKENET_BUSY,      0x40, "busy")	/* no slot left: closed at once */ \
	X(FAKENET_DROPPED,   0x80, "dropped")	/* SYNC: bytes counts lost frames */ \
	X(FAKENET_TLS_FAILED, 0x100, "tls_failed") /* no handshake: not decrypted */

enum {
#define X(e, v, s) e = v,
	FAKENET_FLAGS(X)
#undef X
#define X(e, v, s) | v
	FAKENET_FLAG_MASK = 0 FAKENET_FLAGS(X)
#undef X
};

/* A byte string inside a frame: not NUL-terminated, may hold any byte. */
struct fakenet_str {
	const char	*p;
	size_t		 n;
};

/*
 * One decoded frame.  The strings point into the frame given to
 * fakenet_decode() and live as long as it does.  name is the DNS name
 * the destination was looked up by: dnsmasq gives every name the same
 * address, so this is the most recent name asked before the connection
 * (empty when the address was not the answer, or nothing was asked).
 */
struct fakenet_capture {
	enum fakenet_kind kind;
	unsigned	 flags;
	char		 addr[46];	/* destination, printable */
	uint16_t	 port;		/* destination port */
	uint16_t	 aux;		/* DNS: qtype; else source port */
	uint32_t	 conn;		/* connection id; OPEN then again at end */
	uint64_t	 bytes;		/* bytes received (SYNC: frames dropped) */
	struct fakenet_str name, sni, method, host, path, body, data;
};

const char *fakenet_kind_name(enum fakenet_kind k);
/* The name of one flag bit ("truncated"), or "?". */
const char *fakenet_flag_name(unsigned bit);

/*
 * Build the fake internet.  Call in a single-threaded process that has
 * just unshare()d CLONE_NEWNET inside a user namespace it owns (with that
 * namespace's capabilities), AFTER pivot_root into the world's root
 * (which must hold cfg->dnsmasq, /dev/null and /etc/passwd): dnsmasq and
 * the sink start with the caller's root and / as working directory, in
 * a session of their own (no controlling terminal), with descriptors 0
 * to 2 on /dev/null or the set-up's pipes and nothing else of the
 * caller's but the capture pipes, neither dumpable, and each under a
 * seccomp filter (the sink's allowlist; dnsmasq's, fakenet_prepare()).  Forked before
 * pivot_root, they would keep the caller's working directory, a
 * directory of the host, through it.  Forks dnsmasq and the sink (both
 * die with the caller: PDEATHSIG) and returns when both answer, within
 * cfg->start_ms.
 * cfg may be NULL for the defaults.  On failure nothing is left running
 * and *out is closed.  Costs one fork + exec of dnsmasq and one fork;
 * see `make bench`.
 */
int fakenet_up(const struct fakenet_config *cfg, struct fakenet *out,
    char *why, size_t n);

/*
 * fakenet_up() in two halves, so that a world can build its root while
 * dnsmasq and the sink start: fakenet_start() sets up the network and
 * forks both (out->ca_pem is set when it returns); fakenet_wait() returns
 * 0 once both answer, within cfg->start_ms of fakenet_start().  Nothing
 * may use the fake internet, and no input may run, before fakenet_wait()
 * has returned 0.  The caller must keep every descriptor it holds
 * between the two (fakenet_wait() uses two of them).  On failure of
 * either, nothing is left running and *fn is closed (fakenet_down()).
 */
int fakenet_start(const struct fakenet_config *cfg, struct fakenet *out,
    char *why, size_t n);
int fakenet_wait(struct fakenet *fn, char *why, size_t n);

/*
 * The parent's side of cfg->outside: a reader over the other ends of
 * the two pipes (fd: captures, ctl: sync requests), for
 * fakenet_read_captures().  Takes ownership of both; fakenet_down()
 * closes them (there is nothing to kill: the sink dies with the world).
 */
void fakenet_attach(struct fakenet *fn, int fd, int ctl);

typedef void (*fakenet_cb)(void *ctx, const struct fakenet_capture *c,
    const void *frame, size_t len);

/*
 * Ask the sink to finish reading what the kernel already holds (the
 * world's input has returned, so everything it sent is queued), then
 * call cb for every capture since the last call, in order, with the
 * decoded capture and its raw frame (to forward as is).  Connections
 * still open come as OPEN snapshots.  When frames were lost since the
 * last call, cb gets the closing SYNC too (flag dropped, bytes = how
 * many); it is not counted.  Waits at most timeout_ms for the
 * sink's answer.  Returns the number of captures, or -1 (sink dead or
 * silent, a malformed frame) with why set; cb has then already had
 * every capture read before the failure (a sink that hostile code
 * killed leaves what it had written).
 */
int fakenet_read_captures(struct fakenet *fn, int timeout_ms, fakenet_cb cb,
    void *ctx, char *why, size_t n);

/* Kill dnsmasq and the sink, reap them, close and free.  Idempotent;
 * safe on a zeroed or half-built struct fakenet. */
void fakenet_down(struct fakenet *fn);

/*
 * Where a capture went, as a URL for a record: "https://evil.com/x",
 * "http://evil.com:8080/a", "smtp://mail.evil.com", "tcp://evil.com:4444",
 * "udp://9.9.9.9:9999", "dns://evil.com".  The host is the request's
 * Host header, else the TLS server name, else the name it was looked up
 * by, else the address; the port shows when it is not the scheme's own.
 * Hostile bytes come out as \xNN (so do spaces and backslashes).
 * Writes at most n bytes, NUL-terminated; returns the length the whole
 * URL needs, as snprintf does.
 */
size_t fakenet_url(const struct fakenet_capture *c, char *buf, size_t n);

/*
 * Decode one whole frame (its 4-byte length prefix included) of len
 * bytes.  Returns 0, or -1 when anything is out of bounds, unknown or
 * left over.  Never reads outside frame[0..len).
 */
int fakenet_decode(const void *frame, size_t len, struct fakenet_capture *c);

/* The length a frame announces in its first 4 bytes (0 when have < 4):
 * a reader takes this many bytes, after checking it is within
 * [FAKENET_HEADER, FAKENET_FRAME_MAX]. */
size_t fakenet_frame_len(const void *p, size_t have);

#endif
