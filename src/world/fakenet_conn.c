/*
 * fakenet_conn.c -- one accepted connection in the sink: its bytes read
 * (and decrypted, when it speaks TLS), the protocol told from its first
 * bytes, answered as little as lets the client finish (HTTP, SMTP), and
 * its capture emitted when it ends (fnet_conn_end).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>

#include "world/fakenet_int.h"

static int tls_start(struct sink *s, struct conn *c);
static void tls_pump(struct sink *s, struct conn *c);

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

void
fnet_say(struct conn *c, const char *text)
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

void
fnet_conn_end(struct sink *s, struct conn *c, unsigned flags)
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
	fnet_emit(s, &fr);
	if (flags & FAKENET_OPEN)
		return;
	/* The capture reaches the pipe before the client has the last
	 * word: a client that saw its answer has its capture written. */
	fnet_out_flush(s);
	if (c->reply)
		fnet_say(c, c->reply);
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
				fnet_say(c, "250 OK queued\r\n");
			}
			continue;
		}
		for (i = 0; i < 4; i++)
			verb[i] = (char)(i < len ? lower(line[i]) : 0);
		verb[4] = 0;
		if (strcmp(verb, "data") == 0) {
			c->in_data = true;
			c->body_off = c->line_off;
			fnet_say(c, "354 End data with <CR><LF>.<CR><LF>\r\n");
		} else if (strcmp(verb, "quit") == 0) {
			c->reply = "221 Bye\r\n";
			return true;
		} else if (strcmp(verb, "ehlo") == 0 || strcmp(verb, "helo") == 0) {
			fnet_say(c, "250 fakenet\r\n");
		} else {
			fnet_say(c, "250 OK\r\n");
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
			fnet_conn_end(s, c, 0);
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
					fnet_conn_end(s, c, FAKENET_TRUNCATED);
				}
				return;
			}
			http_headers(c);
		}
		if (c->chunked ? memcmp(c->tail, "0\r\n\r\n", 5) == 0 :
		    c->ptotal - c->hdr_end >= c->clen) {
			c->reply = http_ok;
			fnet_conn_end(s, c, 0);
		} else if (c->expect && !c->sent100) {
			c->sent100 = true;
			fnet_say(c, "HTTP/1.1 100 Continue\r\n\r\n");
		}
		return;
	}
	case P_SMTP:
		if (smtp_step(c))
			fnet_conn_end(s, c, 0);
		else if (c->have == s->keep) {
			c->reply = "552 Too much\r\n";
			fnet_conn_end(s, c, FAKENET_TRUNCATED);
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
	leaf = fnet_leaf_new(s, name, c);
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
				fnet_conn_end(s, c, FAKENET_TLS_FAILED);
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
				fnet_conn_end(s, c, 0);	/* close_notify or broken */
			return;
		}
		plain_bytes(s, c, s->plain, (size_t)r);
	}
}

void
fnet_conn_read(struct sink *s, struct conn *c, int64_t now)
{
	int round;

	for (round = 0; round < 8 && c->fd >= 0; round++) {
		ssize_t got = recv(c->fd, s->scratch, sizeof s->scratch,
		    MSG_DONTWAIT);

		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (got <= 0) {
			fnet_conn_end(s, c, 0);	/* EOF or reset */
			return;
		}
		c->last = now;
		c->total += (uint64_t)got;
		if (c->ssl) {
			/* What OpenSSL has not taken yet is bounded too. */
			if (BIO_ctrl_pending(SSL_get_rbio(c->ssl)) > TLS_PENDING_MAX) {
				fnet_conn_end(s, c, FAKENET_TRUNCATED);
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
			fnet_conn_end(s, c, FAKENET_TRUNCATED);
			return;
		}
	}
}
