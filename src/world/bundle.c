/*
 * bundle.c -- what the launchers of worlds another program runs share
 * (world_int.h's struct world_launcher: gvisor.c's runsc, microvm.c's
 * QEMU): the program found, a directory of the world's own in TMPDIR
 * (the janitor told of it, so it goes however the session ends), files
 * copied into it and handed to the world's id, the program's last words
 * read back from it, and the directory removed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail/jail_int.h"
#include "world_int.h"
#include "base/xalloc.h"

bool
bundle_join(char *path, size_t n, const char *dir, const char *rel)
{
	int len = snprintf(path, n, "%s/%s", dir, rel);

	if (len < 0 || (size_t)len >= n) {
		errno = ENAMETOOLONG;
		return false;
	}
	return true;
}

bool
bundle_find(const char *env_name, const char *name, const char *who,
    const char *package, char *out, size_t n, char *why, size_t wn)
{
	const char *env = getenv(env_name), *path, *p;

	if (env != NULL && env[0] != '\0') {
		if (access(env, X_OK) == -1) {
			snprintf(why, wn, "%s is not at %.*s (%s): %s", who,
			    200, env, env_name, strerror(errno));
			return false;
		}
		snprintf(out, n, "%s", env);
		return true;
	}
	path = getenv("PATH");
	for (p = path; p != NULL && *p != '\0';) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > 0 && len + strlen(name) + 2 < n) {
			snprintf(out, n, "%.*s/%s", (int)len, p, name);
			if (access(out, X_OK) == 0)
				return true;
		}
		p = end ? end + 1 : NULL;
	}
	snprintf(why, wn, "%s was not found on PATH (install Debian's %s "
	    "package)", who, package);
	return false;
}

const char *
bundle_tmpdir(void)
{
	const char *tmpdir = getenv("TMPDIR");

	return tmpdir == NULL || tmpdir[0] != '/' || strlen(tmpdir) > 256 ?
	    "/tmp" : tmpdir;
}

char *
bundle_make(const char *tmpdir, const char *what, char *why, size_t n)
{
	char tmpl[PATH_MAX];
	char *dir;

	snprintf(tmpl, sizeof tmpl, "%s/sandboxrepl-%s.XXXXXX", tmpdir, what);
	if (mkdtemp(tmpl) == NULL) {
		snprintf(why, n, "bundle: mkdtemp in %s: %s", tmpdir,
		    strerror(errno));
		return NULL;
	}
	dir = xstrdup(tmpl);
	janitor_bundle(dir);	/* (removed after a kill too) */
	return dir;
}

int
bundle_copy(const char *src, const char *dir, const char *rel)
{
	char path[PATH_MAX], buf[65536];
	int in, out, saved;
	ssize_t got;

	if (!bundle_join(path, sizeof path, dir, rel))
		return -1;
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0555);
	if (out < 0) {
		saved = errno;
		close(in);
		errno = saved;
		return -1;
	}
	while ((got = read(in, buf, sizeof buf)) > 0)
		if (jail_write_all(out, buf, (size_t)got) == -1) {
			got = -1;
			break;
		}
	saved = errno;
	close(in);
	if (close(out) == -1 && got == 0)
		return -1;
	errno = saved;
	return got == 0 ? 0 : -1;
}

/* (nftw's callbacks take no context) */
static uid_t chown_to;

static int
chown_one(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return lchown(path, chown_to, chown_to) == -1 ? -1 : 0;
}

int
bundle_chown(const char *dir, uid_t id)
{
	chown_to = id;
	return nftw(dir, chown_one, 16, FTW_PHYS) != 0 ? -1 : 0;
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	(void)remove(path);
	return 0;
}

void
bundle_remove(char **dir)
{
	if (*dir != NULL) {
		(void)nftw(*dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		janitor_bundle_gone(*dir);
	}
	free(*dir);
	*dir = NULL;
}

size_t
bundle_tail(const char *dir, const char *rel, char *buf, size_t n)
{
	char path[PATH_MAX];
	ssize_t got;
	off_t size;
	int fd;

	buf[0] = '\0';
	if (dir == NULL || n < 2 || !bundle_join(path, sizeof path, dir, rel)
	    || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	size = lseek(fd, 0, SEEK_END);
	(void)lseek(fd, size > (off_t)n - 1 ? size - (off_t)n + 1 : 0,
	    SEEK_SET);
	got = read(fd, buf, n - 1);
	close(fd);
	if (got <= 0)
		return 0;
	buf[got] = '\0';
	return (size_t)got;
}
