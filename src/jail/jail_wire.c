/*
 * jail_wire.c -- writing the frames the jail's processes exchange.
 *
 * A frame is a type byte, a u32 payload length and the payload (see
 * jail_int.h).  Writers live on the jailed side; the one reader of the
 * host pipe is jail.c, which parses frames from a bounded buffer.
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
jail_wire_send(int fd, enum wire_type type, const void *a, size_t alen,
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
jail_wire_refuse(int fd, enum jail_step step, int err, const char *detail)
{
	char head[8];
	uint32_t s = (uint32_t)step;
	int32_t e = err;
	size_t dlen = detail != NULL ? strnlen(detail, WIRE_DETAIL_MAX) : 0;

	memcpy(head, &s, 4);
	memcpy(head + 4, &e, 4);
	return jail_wire_send(fd, WIRE_REFUSE, head, sizeof head, detail, dlen);
}

bool
jail_is_flat_name(const char *name, size_t len)
{
	return len > 0 && len <= WIRE_NAME_MAX &&
	    memchr(name, '/', len) == NULL && memchr(name, '\0', len) == NULL &&
	    !(len == 1 && name[0] == '.') &&
	    !(len == 2 && name[0] == '.' && name[1] == '.');
}
