/*
 * fsops.c -- file access for an evaluation, through its workspace's ops.
 *
 * Each operation is a one-line call through ws->ops (workspace.h), as
 * SQLite's os.c calls through pMethods: the mock filesystem (ws_mock.c)
 * or the real one inside a jail (ws_real.c) answers, and no caller learns
 * which.  What both implementations share lives here: how an errno
 * becomes CPython's OSError.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "fsops.h"
#include "base/sbuf.h"
#include "base/textesc.h"
#include "workspace.h"

/* CPython's OSError subclass and message for an errno. */
bool
fsops_raise_os(struct workspace *ws, int err, const char *path)
{
	enum pyexc_class cls = PYEXC_OSError;
	switch (err) {
	case ENOENT: cls = PYEXC_FileNotFoundError; break;
	case EACCES: case EPERM: cls = PYEXC_PermissionError; break;
	case EEXIST: cls = PYEXC_FileExistsError; break;
	case EISDIR: cls = PYEXC_IsADirectoryError; break;
	case ENOTDIR: cls = PYEXC_NotADirectoryError; break;
	default: break;
	}
	struct sbuf name = SBUF_INIT;
	bool r;

	textesc_repr(&name, path, strlen(path));	/* Python shows the repr */
	r = rt_raise(ws->rt, cls, "[Errno %d] %s: %s", err, strerror(err),
	    sbuf_cstr(&name));
	sbuf_free(&name);
	return r;
}

bool
fsops_read(struct workspace *ws, const char *path, const char **data,
    size_t *len)
{
	return ws->ops->read(ws, path, data, len);
}

bool
fsops_write(struct workspace *ws, const char *path, const char *data,
    size_t len, bool append, bool *existed)
{
	return ws->ops->write(ws, path, data, len, append, existed);
}

bool
fsops_delete(struct workspace *ws, const char *path)
{
	return ws->ops->remove(ws, path);
}

bool
fsops_exists(struct workspace *ws, const char *path)
{
	return ws->ops->exists(ws, path);
}

bool
fsops_list(struct workspace *ws, value *out)
{
	return fsops_listdir(ws, ".", out);
}

bool
fsops_listdir(struct workspace *ws, const char *dir, value *out)
{
	return ws->ops->listdir(ws, dir, out);
}

bool
fsops_exec(struct workspace *ws, const char *cmdline)
{
	return ws->ops->exec(ws, cmdline);
}

bool
fsops_connect(struct workspace *ws, const char *url)
{
	return ws->ops->connect(ws, url);
}
