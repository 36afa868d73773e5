/*
 * ws_mock.c -- the mock workspaces: the path's mock filesystem (mockfs.h).
 *
 * workspace_mock is a flat directory of the path's files and nothing
 * else.  workspace_host, the unsafe path's, stands on a pretend host as
 * well: a read outside the workspace finds the files an escape reaches
 * for first, so the trace can show the leak.  Neither runs a program nor
 * opens a connection: the object model plays those out itself (mock.c),
 * and asking these for them is a RuntimeError.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "base/arena.h"
#include "mockfs.h"
#include "workspace.h"

/*
 * What the unsafe path's pretend host holds outside the workspace: the
 * files an escape reaches for first.  Reading one is a leak the trace
 * shows; nothing here is the real machine's.
 */
static const struct { const char *path, *text; } host_files[] = {
	{ "/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"
	  "agent:x:1000:1000:agent:/home/agent:/bin/sh\n" },
	{ "/etc/shadow", "root:$6$mock$notarealhash:19000:0:99999:7:::\n" },
	{ "/etc/hostname", "workshop\n" },
	{ "/home/agent/.ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n"
	  "(a mock key: nothing here is real)\n"
	  "-----END OPENSSH PRIVATE KEY-----\n" },
	{ "/proc/self/environ", "HOME=/home/agent\0PATH=/usr/bin:/bin\0"
	  "API_KEY=sk-live-9f3a2b\0" },
};

static bool
mock_read(struct workspace *ws, const char *path, const char **data,
    size_t *len)
{
	const char *d = mfs_get(ws->fs, path, len);

	if (d == NULL)
		return fsops_raise_os(ws, ENOENT, path);
	*data = d;
	return true;
}

static bool
host_read(struct workspace *ws, const char *path, const char **data,
    size_t *len)
{
	const char *d = mfs_get(ws->fs, path, len);
	size_t i;

	if (d == NULL)
		for (i = 0; i < sizeof host_files / sizeof host_files[0]; i++)
			if (strcmp(host_files[i].path, path) == 0) {
				*data = host_files[i].text;
				*len = strcmp(path, "/proc/self/environ") == 0 ?
				    59 : strlen(host_files[i].text);
				return true;
			}
	if (d == NULL)
		return fsops_raise_os(ws, ENOENT, path);
	*data = d;
	return true;
}

static bool
mock_write(struct workspace *ws, const char *path, const char *data,
    size_t len, bool append, bool *existed)
{
	/* The mock filesystem keeps what the input writes: it counts
	 * against the input's memory as its values do. */
	if (!rt_check_bytes(ws->rt, len))
		return false;
	arena_charge(ws->rt->arena, len);
	*existed = mfs_exists(ws->fs, path);
	if (append)
		mfs_append(ws->fs, path, data, len);
	else
		mfs_put(ws->fs, path, data, len);
	return true;
}

static bool
mock_remove(struct workspace *ws, const char *path)
{
	if (!mfs_delete(ws->fs, path))
		return fsops_raise_os(ws, ENOENT, path);
	return true;
}

static bool
mock_exists(struct workspace *ws, const char *path)
{
	return mfs_exists(ws->fs, path);
}

static bool
mock_listdir(struct workspace *ws, const char *dir, value *out)
{
	size_t i;

	if (strcmp(dir, ".") != 0 && strcmp(dir, "./") != 0) {
		/* (the mock workspace is flat: a name in it is a file) */
		const char *d;
		size_t len;
		if (ws->fs != NULL && (d = mfs_get(ws->fs, dir, &len)) != NULL)
			return fsops_raise_os(ws, ENOTDIR, dir);
		return fsops_raise_os(ws, ENOENT, dir);
	}
	*out = value_list(ws->rt->arena, mfs_count(ws->fs));
	for (i = 0; i < mfs_count(ws->fs); i++)
		value_list_append(ws->rt->arena, *out,
		    value_cstr(ws->rt->arena, mfs_name(ws->fs, i)));
	return true;
}

static bool
mock_exec(struct workspace *ws, const char *cmdline)
{
	(void)cmdline;
	return rt_raise(ws->rt, PYEXC_RuntimeError,
	    "no real execution outside the jail");
}

static bool
mock_connect(struct workspace *ws, const char *url)
{
	(void)url;
	return rt_raise(ws->rt, PYEXC_RuntimeError, "no real network "
	    "outside the jail");
}

const struct workspace_ops workspace_mock = {
	.read = mock_read, .write = mock_write, .remove = mock_remove,
	.exists = mock_exists, .listdir = mock_listdir, .exec = mock_exec,
	.connect = mock_connect,
};

const struct workspace_ops workspace_host = {
	.read = host_read, .write = mock_write, .remove = mock_remove,
	.exists = mock_exists, .listdir = mock_listdir, .exec = mock_exec,
	.connect = mock_connect,
};
