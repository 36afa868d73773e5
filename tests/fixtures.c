/*
 * fixtures.c -- the session-level tests' shared fixtures (fixtures.h).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/mcp.h"
#include "base/arena.h"
#include "fixtures.h"

struct fx *
fx_new(const struct session_opts *o)
{
	struct fx *f = calloc(1, sizeof *f);

	assert_non_null(f);
	f->s = session_new(o);
	f->a = arena_new();
	return f;
}

void
fx_free(struct fx *f)
{
	session_free(f->s);
	arena_free(f->a);
	free(f);
}

int
fx_teardown(void **state)
{
	fx_free(*state);
	return 0;
}

struct record *
fx_run(struct session *s, struct arena *a, unsigned mask, enum path_id p,
    const char *input)
{
	struct record *r;
	size_t n = session_run(s, input, strlen(input), NULL, mask, a, &r);

	assert_int_equal(n, 1);
	assert_int_equal(r->path, p);
	return r;
}

bool
fx_has(const struct record *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nfs; i++)
		if (strcmp(r->fs[i].name, name) == 0)
			return true;
	return false;
}

static char canary_dir[64];
static char canary_file[128];

const char *
fx_canary_new(const char *tag)
{
	int fd;

	snprintf(canary_dir, sizeof canary_dir, "%s/%s-canary.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", tag);
	if (mkdtemp(canary_dir) == NULL)
		return NULL;
	chmod(canary_dir, 0755);
	snprintf(canary_file, sizeof canary_file, "%s/canary", canary_dir);
	fd = open(canary_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "canary", 6) != 6) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	return canary_file;
}

void
fx_canary_remove(void)
{
	unlink(canary_file);
	rmdir(canary_dir);
}

json_t *
fx_mcp_replies(struct session *s, const struct mcp_opts *mo,
    const char *lines)
{
	char *outbuf = NULL;
	size_t outlen = 0;
	FILE *in, *out;
	json_t *all = json_array();
	const char *p;

	in = fmemopen((void *)lines, strlen(lines), "r");
	out = open_memstream(&outbuf, &outlen);
	assert_non_null(in);
	assert_non_null(out);
	assert_int_equal(mcp_loop(s, mo, in, out), 0);
	fclose(in);
	fclose(out);
	session_free(s);
	for (p = outbuf; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		json_t *j = json_loadb(p, n, JSON_DECODE_ANY, NULL);
		assert_non_null(j);
		json_array_append_new(all, j);
		p = nl ? nl + 1 : NULL;
	}
	free(outbuf);
	return all;
}
