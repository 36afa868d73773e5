/*
 * jail_wire.c -- the one wire (jail_wire.h): writing a frame, and the
 * checked reading of one, for the jail's processes and the worlds alike.
 *
 * A frame is a type byte, a u32 payload length and the payload.  Writers
 * live on the jailed side; readers (jail.c from a bounded buffer, the
 * worlds' cpython.c from a socket) take each header through wire_head or
 * wire_next, which check it against the reader's rule before the payload
 * is used.
 *
 * Also here: the one write loop the jail's processes share, the one
 * whole-file write to /proc and cgroup files (jail_child.c, jail_cgroup.c
 * and the worlds all use it), and the one test of a workspace file name,
 * applied on both sides of the boundary.
 *
 * jail_wire_send() is async-signal-safe: it only calls write(2) and
 * copies small payloads into a stack buffer, so the seccomp SIGSYS
 * handler may use it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "jail_int.h"

int
jail_write_text(const char *path, const char *text, int flags)
{
	size_t len = strlen(text);
	int fd, saved;
	ssize_t w;

	fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return -1;
	w = write(fd, text, len);
	saved = errno;
	close(fd);
	if (w != (ssize_t)len) {
		errno = w < 0 ? saved : EIO;
		return -1;
	}
	return 0;
}

int
jail_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			/* (gVisor may hand a world a host socket that is
			 * non-blocking underneath: wait, as a blocking
			 * write would) */
			struct pollfd pfd = { fd, POLLOUT, 0 };
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && poll(&pfd, 1, -1) >= 0)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int
jail_wire_send(int fd, enum ww_type type, const void *a, size_t alen,
    const void *b, size_t blen)
{
	char head[WIRE_HEADER + 64];
	uint32_t len;

	if (alen > UINT32_MAX || blen > UINT32_MAX - alen) {
		errno = EMSGSIZE;
		return -1;
	}
	len = (uint32_t)(alen + blen);
	head[0] = (char)type;
	memcpy(head + 1, &len, sizeof len);
	/* Small frames go out in one write so a reader never sees half. */
	if (alen + blen <= sizeof head - WIRE_HEADER) {
		if (alen > 0)
			memcpy(head + WIRE_HEADER, a, alen);
		if (blen > 0)
			memcpy(head + WIRE_HEADER + alen, b, blen);
		return jail_write_all(fd, head, WIRE_HEADER + alen + blen);
	}
	if (jail_write_all(fd, head, WIRE_HEADER) == -1)
		return -1;
	if (alen > 0 && jail_write_all(fd, a, alen) == -1)
		return -1;
	if (blen > 0 && jail_write_all(fd, b, blen) == -1)
		return -1;
	return 0;
}

int
jail_wire_refuse(int fd, int step, int err, const char *detail)
{
	char head[8];
	uint32_t s = (uint32_t)step;
	int32_t e = err > 0 && err <= 4095 ? err : EIO;
	size_t dlen = detail != NULL ? strnlen(detail, WIRE_DETAIL_MAX) : 0;

	memcpy(head, &s, 4);
	memcpy(head + 4, &e, 4);
	return jail_wire_send(fd, WW_REFUSE, head, sizeof head, detail, dlen);
}

bool
jail_is_flat_name(const char *name, size_t len)
{
	return len > 0 && len <= WIRE_NAME_MAX &&
	    memchr(name, '/', len) == NULL && memchr(name, '\0', len) == NULL &&
	    !(len == 1 && name[0] == '.') &&
	    !(len == 2 && name[0] == '.' && name[1] == '.');
}

bool
wire_head(const char head[WIRE_HEADER], wire_rule rule, const void *ctx,
    struct wire_frame *f)
{
	struct wire_len lim;

	f->type = (enum ww_type)(unsigned char)head[0];
	memcpy(&f->len, head + 1, 4);
	f->pay = NULL;
	lim = rule(f->type, ctx);
	return lim.min <= lim.max && f->len >= lim.min && f->len <= lim.max;
}

int
wire_next(const char *buf, size_t buflen, size_t *off, wire_rule rule,
    const void *ctx, struct wire_frame *f)
{
	size_t at = *off;

	if (at >= buflen)
		return 0;
	if (buflen - at < WIRE_HEADER)
		return -1;
	if (!wire_head(buf + at, rule, ctx, f))
		return -2;
	if (f->len > buflen - at - WIRE_HEADER)
		return -1;
	f->pay = buf + at + WIRE_HEADER;
	*off = at + WIRE_HEADER + f->len;
	return 1;
}

struct wire_len
wire_any(enum ww_type type, const void *ctx)
{
	(void)type;
	(void)ctx;
	return (struct wire_len){ 0, UINT32_MAX };
}
