/*
 * ws_real.c -- the real workspace: system calls, inside a jail.
 *
 * This is the only code in sandboxrepl that acts on a real filesystem or
 * network on behalf of an input, and it runs only in the jailed process
 * (jail_run has set up every layer before fn runs; see jail.h): the jail
 * path builds its workspace with these ops and no other code does.  Paths
 * are relative to the jail's root.  Errors are reported the way CPython
 * reports OSError, and each refusal is written down as a denied effect
 * naming the call and the layer that refused it.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "base/arena.h"
#include "record/effect.h"
#include "base/sbuf.h"
#include "workspace.h"

#define MAX_REAL_READ (16u << 20)

/* Is path a name in the workspace (relative, never leaving it)? */
static bool
in_workspace(const char *path)
{
	const char *p;
	size_t n;

	if (path[0] == '/' || path[0] == '\0')
		return false;
	for (p = path; ; p += n + 1) {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		if (p[n] == '\0')
			return true;
	}
}

/* What an operation is, as a user says it: "opening". */
static const char *
doing(const char *op)
{
	static const char *const words[][2] = {
		{ "open", "opening" }, { "read", "reading" },
		{ "write", "writing" }, { "unlink", "removing" },
		{ "opendir", "listing" }, { "execve", "starting" },
		{ "socket", "opening a socket to" },
		{ "connect", "connecting to" },
	};
	size_t i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(op, words[i][0]) == 0)
			return words[i][1];
	return op;
}

/* The kernel refused a real operation: say so, and which layer did.  A
 * name in the workspace that is not there (or not a directory) is no
 * refusal: a typo ('reprot.txt') is the FileNotFoundError it is on
 * every path. */
static bool
denied(struct workspace *ws, const char *op, const char *target, int err)
{
	const char *layer = err == EACCES || err == EPERM ? "landlock" :
	    "namespace";

	if ((err == ENOENT || err == ENOTDIR) && in_workspace(target))
		return fsops_raise_os(ws, err, target);
	effect_add(ws->effects, op, target, EFFECT_HARMLESS,
	    arena_printf(ws->rt->arena, "%s %s: %s (%s)", op, target,
	    strerror(err), layer), true);
	ws->denied_layer = layer;
	/* the sentence after "CONTAINED by Landlock: " */
	ws->denied_reason = err == EACCES || err == EPERM ?
	    arena_printf(ws->rt->arena, "%s %s is forbidden: it is outside "
	    "what the jail grants (%s)", doing(op), target, op) :
	    arena_printf(ws->rt->arena, "%s %s finds nothing: the jail's "
	    "root does not hold it (%s: %s)", doing(op), target, op,
	    strerror(err));
	return fsops_raise_os(ws, err, target);
}

static bool
real_read(struct workspace *ws, const char *path, const char **data,
    size_t *len)
{
	struct sbuf b = SBUF_INIT;
	char buf[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return denied(ws, "open", path, errno);
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		sbuf_add(&b, buf, (size_t)n);
		if (b.len > MAX_REAL_READ)
			break;
	}
	close(fd);
	if (n < 0) {
		int err = errno;
		sbuf_free(&b);
		return denied(ws, "read", path, err);
	}
	*data = arena_strndup(ws->rt->arena, b.data ? b.data : "", b.len);
	*len = b.len;
	sbuf_free(&b);
	return true;
}

static bool
real_write(struct workspace *ws, const char *path, const char *data,
    size_t len, bool append, bool *existed)
{
	int fd;
	size_t off = 0;
	*existed = access(path, F_OK) == 0;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    (append ? O_APPEND : O_TRUNC), 0644);
	if (fd < 0)
		return denied(ws, "open", path, errno);
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0) {
			int err = errno;
			close(fd);
			return denied(ws, "write", path, err);
		}
		off += (size_t)n;
	}
	close(fd);
	return true;
}

static bool
real_remove(struct workspace *ws, const char *path)
{
	if (unlink(path) != 0)
		return denied(ws, "unlink", path, errno);
	return true;
}

static bool
real_exists(struct workspace *ws, const char *path)
{
	(void)ws;
	return access(path, F_OK) == 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
real_listdir(struct workspace *ws, const char *dir, value *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	if (d == NULL)
		return denied(ws, "opendir", dir, errno);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = arena_grow(ws->rt->arena, names, n, cap,
			    sizeof *names);
		}
		names[n++] = arena_strdup(ws->rt->arena, de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, cmp_str);
	*out = value_list(ws->rt->arena, n);
	for (i = 0; i < n; i++)
		value_list_append(ws->rt->arena, *out,
		    value_cstr(ws->rt->arena, names[i]));
	return true;
}

static bool
real_exec(struct workspace *ws, const char *cmdline)
{
	char *argv[4];
	char *envp[1] = { NULL };

	/* Written down first: if the kernel kills us, the record still
	 * says what was attempted. */
	effect_add(ws->effects, "exec", cmdline, EFFECT_PROCESS,
	    "tried to run a program", false);
	argv[0] = (char *)"sh";
	argv[1] = (char *)"-c";
	argv[2] = (char *)cmdline;
	argv[3] = NULL;
	execve("/bin/sh", argv, envp);
	return denied(ws, "execve", "/bin/sh", errno);
}

static bool
real_connect(struct workspace *ws, const char *url)
{
	struct sockaddr_in sa;
	int fd, err;

	effect_add(ws->effects, "send", url, EFFECT_EXFILTRATION,
	    "tried to connect", false);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return denied(ws, "socket", url, errno);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons(80);
	sa.sin_addr.s_addr = htonl(0x7f000001);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		err = errno;
		close(fd);
		return denied(ws, "connect", url, err);
	}
	close(fd);
	return true;
}

const struct workspace_ops workspace_real = {
	.read = real_read, .write = real_write, .remove = real_remove,
	.exists = real_exists, .listdir = real_listdir, .exec = real_exec,
	.connect = real_connect,
};
