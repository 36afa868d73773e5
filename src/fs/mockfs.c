/*
 * mockfs.c -- a sorted array of files.
 *
 * Workshops hold a handful of files, so a sorted array with binary search
 * is both the simplest and the fastest structure; listing in sorted order,
 * which every record needs, is free.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mockfs.h"
#include "base/sha256.h"
#include "base/strlist.h"
#include "base/xalloc.h"

struct mfile {
	char	*name;
	char	*data;
	size_t	 len;
	unsigned long stamp;	/* the generation that last wrote it */
	unsigned mode;		/* st_mode */
	bool	 unreadable;
	bool	 hashed;	/* digest holds data's SHA-256 */
	unsigned char digest[SHA256_BYTES];
};

struct mfs {
	struct mfile	*files;
	size_t		 n, cap;
	size_t		 bytes;
	unsigned long	 gen;		/* grows with every change */
};

struct mfs *
mfs_new(void)
{
	return xcalloc(1, sizeof(struct mfs));
}

void
mfs_free(struct mfs *fs)
{
	size_t i;
	if (fs == NULL)
		return;
	for (i = 0; i < fs->n; i++) {
		free(fs->files[i].name);
		free(fs->files[i].data);
	}
	free(fs->files);
	free(fs);
}

struct mfs *
mfs_clone(const struct mfs *fs)
{
	struct mfs *c = mfs_new();

	mfs_assign(c, fs);
	return c;
}

void
mfs_assign(struct mfs *fs, const struct mfs *from)
{
	size_t i;

	while (fs->n > 0)
		mfs_delete(fs, fs->files[fs->n - 1].name);
	/* in sorted order, each lands at the end: index i */
	for (i = 0; i < from->n; i++) {
		mfs_put(fs, from->files[i].name, from->files[i].data,
		    from->files[i].len);
		fs->files[i].mode = from->files[i].mode;
		fs->files[i].unreadable = from->files[i].unreadable;
		if (from->files[i].hashed) {
			fs->files[i].hashed = true;
			memcpy(fs->files[i].digest, from->files[i].digest,
			    sizeof fs->files[i].digest);
		}
	}
}

size_t
mfs_count(const struct mfs *fs)
{
	return fs->n;
}

const char *
mfs_name(const struct mfs *fs, size_t i)
{
	return i < fs->n ? fs->files[i].name : NULL;
}

/* Index of name, or where it would be inserted (with *found false). */
static size_t
find(const struct mfs *fs, const char *name, bool *found)
{
	return sorted_find(fs->files, fs->n, sizeof *fs->files,
	    offsetof(struct mfile, name), name, found);
}

const char *
mfs_get(const struct mfs *fs, const char *name, size_t *len)
{
	bool found;
	size_t i = find(fs, name, &found);
	if (!found)
		return NULL;
	if (len != NULL)
		*len = fs->files[i].len;
	return fs->files[i].data;
}

bool
mfs_exists(const struct mfs *fs, const char *name)
{
	bool found;
	find(fs, name, &found);
	return found;
}

static char *
copy_data(const char *data, size_t len)
{
	char *p = xmalloc(len + 1);
	if (len != 0)
		memcpy(p, data, len);
	p[len] = '\0';
	return p;
}

bool
mfs_put(struct mfs *fs, const char *name, const char *data, size_t len)
{
	bool found, same = false;
	size_t i = find(fs, name, &found);
	if (found) {
		/* the same bytes again keep their digest */
		same = fs->files[i].len == len && (len == 0 ||
		    memcmp(fs->files[i].data, data, len) == 0);
		fs->bytes -= fs->files[i].len;
		free(fs->files[i].data);
	} else {
		if (fs->n == fs->cap) {
			fs->cap = fs->cap ? fs->cap * 2 : 8;
			fs->files = xreallocarray(fs->files, fs->cap,
			    sizeof *fs->files);
		}
		memmove(&fs->files[i + 1], &fs->files[i],
		    (fs->n - i) * sizeof *fs->files);
		fs->n++;
		fs->files[i].name = xstrdup(name);
		fs->files[i].mode = mfs_is_dir_name(name) ? S_IFDIR | 0755 :
		    S_IFREG | 0644;
	}
	fs->files[i].unreadable = false;
	fs->files[i].hashed = same && fs->files[i].hashed;
	fs->files[i].data = copy_data(data, len);
	fs->files[i].len = len;
	fs->files[i].stamp = ++fs->gen;
	fs->bytes += len;
	return found;
}

void
mfs_append(struct mfs *fs, const char *name, const char *data, size_t len)
{
	size_t old;
	const char *cur = mfs_get(fs, name, &old);
	char *buf;
	if (cur == NULL) {
		mfs_put(fs, name, data, len);
		return;
	}
	buf = xmalloc(old + len + 1);
	memcpy(buf, cur, old);
	memcpy(buf + old, data, len);
	mfs_put(fs, name, buf, old + len);
	free(buf);
}

bool
mfs_delete(struct mfs *fs, const char *name)
{
	bool found;
	size_t i = find(fs, name, &found);
	if (!found)
		return false;
	fs->bytes -= fs->files[i].len;
	free(fs->files[i].name);
	free(fs->files[i].data);
	memmove(&fs->files[i], &fs->files[i + 1],
	    (fs->n - i - 1) * sizeof *fs->files);
	fs->n--;
	fs->gen++;
	return true;
}

bool
mfs_is_dir_name(const char *name)
{
	size_t n = strlen(name);
	return n > 0 && name[n - 1] == '/';
}

size_t
mfs_index(const struct mfs *fs, const char *name)
{
	bool found;
	size_t i = find(fs, name, &found);
	return found ? i : (size_t)-1;
}

size_t
mfs_size(const struct mfs *fs, size_t i)
{
	return fs->files[i].len;
}

unsigned
mfs_mode(const struct mfs *fs, size_t i)
{
	return fs->files[i].mode;
}

bool
mfs_unreadable(const struct mfs *fs, size_t i)
{
	return fs->files[i].unreadable;
}

bool
mfs_set_mode(struct mfs *fs, const char *name, unsigned mode,
    bool unreadable)
{
	bool found;
	size_t i = find(fs, name, &found);
	if (!found)
		return false;
	if (fs->files[i].mode != mode ||
	    fs->files[i].unreadable != unreadable) {
		fs->files[i].mode = mode;
		fs->files[i].unreadable = unreadable;
		fs->files[i].stamp = ++fs->gen;
	}
	return true;
}

const unsigned char *
mfs_digest(struct mfs *fs, size_t i)
{
	struct mfile *f = &fs->files[i];

	if (!f->hashed) {
		struct sha256 c;
		sha256_init(&c);
		sha256_update(&c, f->data, f->len);
		sha256_final(&c, f->digest);
		f->hashed = true;
	}
	return f->digest;
}

size_t
mfs_bytes(const struct mfs *fs)
{
	return fs->bytes;
}

unsigned long
mfs_generation(const struct mfs *fs)
{
	return fs->gen;
}

unsigned long
mfs_stamp(const struct mfs *fs, size_t i)
{
	return fs->files[i].stamp;
}
