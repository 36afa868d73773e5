/*
 * fakenet_frame.c -- the frames a sink sends its caller (format in
 * fakenet.c's overview): the kinds' and flags' names, the ports the sink
 * listens on, the encoder and the sink's output queue on one side, and
 * on the caller's the decoder (the only reader of hostile frames) and the
 * URL a capture is recorded as.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "world/fakenet_int.h"

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

bool
fnet_is_smtp_port(uint16_t port)
{
	return port == 25 || port == 587;
}

bool
fnet_is_sink_port(uint16_t port)
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


/* Encode fr into dst (at least FAKENET_FRAME_MAX bytes), each field cut
 * to its cap.  Returns the frame's length. */
size_t
fnet_frame_encode(unsigned char *dst, const struct frame *fr)
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

/* ---- the sink's output queue ---- */

/* As much of the queue as the capture pipe takes now. */
void
fnet_out_flush(struct sink *s)
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

void
fnet_emit(struct sink *s, const struct frame *fr)
{
	size_t len = fnet_frame_encode(s->frame, fr);

	/* A SYNC fits in OUT_CAP's headroom (unless someone else writes
	 * syncs to ctl and never reads: then they are lost too). */
	if (s->out_len + len > OUT_CAP + (fr->kind == FAKENET_SYNC ? 256 : 0)) {
		s->dropped++;
		return;
	}
	memcpy(s->out + s->out_len, s->frame, len);
	s->out_len += len;
}

void
fnet_set_name(const struct sink *s, struct frame *fr)
{
	if (fr->family == 4 && memcmp(fr->addr, s->answer, 4) == 0) {
		fr->f[F_NAME].p = s->last_name;
		fr->f[F_NAME].n = s->last_namelen;
	}
}
