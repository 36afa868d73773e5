/*
 * state.c -- saving and loading a session (see state.h for the files and
 * the order they are written in).
 *
 * The snapshot and the journal are JSON written with jansson.  File names,
 * name bindings' names, strings, bytes and ledger messages are stored as
 * hex, so any byte survives (a str may hold lone surrogates, a file any
 * bytes) and every encode is ASCII; contents live in blobs/, raw.  Values
 * are typed:
 *   {"t":"int","v":"123"} {"t":"float","v":"0.1"} {"t":"str","v":HEX}
 *   {"t":"list","v":[...]} {"t":"dict","v":[[k,v],...]} ...
 * Loading rebuilds them with the value constructors; nothing is evaluated
 * (sjson.c makes and reads these forms).
 *
 * In memory, struct state keeps an index of what is on disk: per path the
 * files (name, digest, length) in the mfs's sorted order and the stores'
 * generations when they were saved, and the blobs with their reference
 * counts.  A save compares the session with the index: only files whose
 * mfs stamp is newer than the saved generation are hashed, and a blob is
 * written only for a digest no file holds yet.  A blob no file refers to
 * any more is unlinked once the line that dropped it is durable; loading
 * removes any other blob or temporary file of its own in blobs/ (the
 * remains of a killed save), and never a file of another name: a user's
 * file in a blobs/ that was there before is left alone.
 *
 * Loading replays the snapshot and the journal into the index first and
 * reads the blobs of the final files only: a blob an old journal line
 * named may already be gone.  A reset of the session between inputs (the step
 * counter goes back) is saved as a whole new snapshot.  Version 1 states
 * (one state.json with contents in hex) are read and rewritten.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/arena.h"
#include "sandbox/ledger.h"
#include "fs/mockfs.h"
#include "interp/ns.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "base/sha256.h"
#include "sjson.h"
#include "state.h"
#include "base/strlist.h"
#include "value/value.h"
#include "base/xalloc.h"

#define STATE_VERSION	2
/* A snapshot or journal larger than this is not read: a state within its
 * cap never needs one (names are hex: twice their bytes). */
#define MAX_META_BYTES	(3 * (size_t)STATE_MAX_BYTES)
/* The journal is folded into a new snapshot once it outgrows the snapshot
 * by this much: each snapshot is paid for by as many journal bytes. */
#define COMPACT_SLACK	(8u << 10)
/* How long a held lock is waited for: 100 tries 20 ms apart. */
#define LOCK_TRIES	100

/* ---- the index of what is on disk ---- */

struct sfile {
	char	*name;
	char	 digest[SHA256_HEX];
	size_t	 len;
	unsigned mode;		/* st_mode (mockfs.h) */
	bool	 unreadable;
};

/* The mode an entry has unless it says otherwise (mockfs.h). */
static unsigned
default_mode(const char *name)
{
	return mfs_is_dir_name(name) ? S_IFDIR | 0755 : S_IFREG | 0644;
}

struct spath {
	struct sfile	*files;		/* sorted by name, as the mfs is */
	size_t		 n, cap;
	const void	*fs, *ns, *ledger;	/* the stores it was taken from */
	unsigned long	 fs_gen, ns_gen;
	size_t		 ledger_n;	/* entries saved */
	size_t		 names_bytes;	/* their encoded size, for the cap */
	unsigned	 budget_used;
	json_t		*wnames;	/* a world's names as last saved */
	char		**lost;		/* ...and as loaded: what a
					   resumed session's world lacks */
	size_t		 nlost;
	json_t		*wvalues;	/* its plain names' reprs as saved */
	char		**values;	/* ...as loaded: name, repr, ... */
	size_t		 nvalues;	/* pairs */
};

struct blob {
	char		 digest[SHA256_HEX];
	unsigned	 refs;
};

struct state {
	char		*dir;
	int		 dirfd, blobfd, journalfd;
	struct spath	 paths[PATH__COUNT];
	struct blob	*blobs;
	size_t		 nblobs, capblobs;
	unsigned long	 seq;		/* of the last committed step */
	unsigned	 steps;		/* the session's step counter then */
	size_t		 snapshot_bytes, journal_bytes;
	bool		 resumed;	/* DIR held a state when opened */
};

static void
files_free(struct sfile *f, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(f[i].name);
	free(f);
}

static size_t
spath_find(const struct spath *sp, const char *name, bool *found)
{
	return sorted_find(sp->files, sp->n, sizeof *sp->files,
	    offsetof(struct sfile, name), name, found);
}

static void
spath_put(struct spath *sp, const char *name, const char *digest, size_t len,
    unsigned mode, bool unreadable)
{
	bool found;
	size_t i = spath_find(sp, name, &found);
	if (!found) {
		if (sp->n == sp->cap) {
			sp->cap = sp->cap ? sp->cap * 2 : 8;
			sp->files = xreallocarray(sp->files, sp->cap,
			    sizeof *sp->files);
		}
		memmove(&sp->files[i + 1], &sp->files[i],
		    (sp->n - i) * sizeof *sp->files);
		sp->n++;
		sp->files[i].name = xstrdup(name);
	}
	memcpy(sp->files[i].digest, digest, SHA256_HEX);
	sp->files[i].len = len;
	sp->files[i].mode = mode;
	sp->files[i].unreadable = unreadable;
}

static void
spath_delete(struct spath *sp, const char *name)
{
	bool found;
	size_t i = spath_find(sp, name, &found);
	if (!found)
		return;
	free(sp->files[i].name);
	memmove(&sp->files[i], &sp->files[i + 1],
	    (sp->n - i - 1) * sizeof *sp->files);
	sp->n--;
}

static struct blob *
blob_find(const struct state *st, const char *digest)
{
	size_t i;
	for (i = 0; i < st->nblobs; i++)
		if (strcmp(st->blobs[i].digest, digest) == 0)
			return &st->blobs[i];
	return NULL;
}

static void
blob_ref(struct state *st, const char *digest)
{
	struct blob *b = blob_find(st, digest);
	if (b == NULL) {
		if (st->nblobs == st->capblobs) {
			st->capblobs = st->capblobs ? st->capblobs * 2 : 16;
			st->blobs = xreallocarray(st->blobs, st->capblobs,
			    sizeof *st->blobs);
		}
		b = &st->blobs[st->nblobs++];
		memcpy(b->digest, digest, SHA256_HEX);
		b->refs = 0;
	}
	b->refs++;
}

/* Drop a reference; the last one unlinks the blob (its line is durable). */
static void
blob_unref(struct state *st, const char *digest)
{
	struct blob *b = blob_find(st, digest);
	if (b == NULL || --b->refs > 0)
		return;
	(void)unlinkat(st->blobfd, b->digest, 0);
	*b = st->blobs[--st->nblobs];
}

static void
index_clear(struct state *st)
{
	int p;
	for (p = 0; p < PATH__COUNT; p++) {
		size_t i;
		files_free(st->paths[p].files, st->paths[p].n);
		json_decref(st->paths[p].wnames);
		for (i = 0; i < st->paths[p].nlost; i++)
			free(st->paths[p].lost[i]);
		free(st->paths[p].lost);
		json_decref(st->paths[p].wvalues);
		for (i = 0; i < 2 * st->paths[p].nvalues; i++)
			free(st->paths[p].values[i]);
		free(st->paths[p].values);
		memset(&st->paths[p], 0, sizeof st->paths[p]);
	}
	st->nblobs = 0;
}

static json_t *
file_entry(struct enc *e, const struct sfile *f)
{
	json_t *arr = sjson_pair(e, sjson_hex(f->name, strlen(f->name)),
	    json_string(f->digest));
	sjson_push(e, arr, json_integer((json_int_t)f->len));
	/* [name, digest, len] or, for an entry of a CPython world whose
	 * mode is not the usual one, [name, digest, len, mode, unreadable] */
	if (f->mode != default_mode(f->name) || f->unreadable) {
		sjson_push(e, arr, json_integer((json_int_t)f->mode));
		sjson_push(e, arr, json_boolean(f->unreadable));
	}
	return arr;
}

/* ---- what a path holds, as JSON ---- */

/* n strings (in groups of per: one, or a pair) as [hex, ...] or
 * [[hex, hex], ...]; NULL when strs is. */
static json_t *
hex_list(struct enc *e, const char *const *strs, size_t n, size_t per)
{
	json_t *arr;
	size_t i;

	if (strs == NULL)
		return NULL;
	arr = json_array();
	for (i = 0; i < n; i++, strs += per)
		sjson_push(e, arr, per == 1 ? sjson_hex(strs[0],
		    strlen(strs[0])) : sjson_pair(e, sjson_hex(strs[0],
		    strlen(strs[0])), sjson_hex(strs[1], strlen(strs[1]))));
	return arr;
}

/*
 * The names a path's CPython world holds (hex, sorted), or NULL when the
 * path keeps its names in its namespace.  They are not values: a world's
 * objects cannot be saved.  They are kept so that a resumed session can
 * say which names its new world lacks.
 */
static json_t *
world_names_json(struct enc *e, const struct state_session *s,
    enum path_id p)
{
	return hex_list(e, s->paths[p].world_names, s->paths[p].nworld_names,
	    1);
}

/*
 * Of those, the ones bound to plain data, [[name hex, repr hex], ...]
 * (NULL when the world reported none: it was not asked, or is the
 * model's).  Text, not values: the session checks each repr is a literal
 * before a new world binds it again.
 */
static json_t *
world_values_json(struct enc *e, const struct state_session *s,
    enum path_id p)
{
	return hex_list(e, s->paths[p].world_literals,
	    s->paths[p].nworld_literals, 2);
}

/* ---- files in DIR ---- */

static bool
fail_errno(char **err, const char *what, const char *dir, const char *name)
{
	*err = xasprintf("%s %s/%s: %s", what, dir, name, strerror(errno));
	return false;
}

static bool
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/*
 * Write name in dirfd atomically: unlink whatever name.tmp is (a planted
 * symlink included: it is never followed), create it exclusively, write,
 * fsync, rename over name.  The caller fsyncs the directory.
 */
static bool
write_file_at(int dirfd, const char *name, const char *p, size_t n)
{
	char tmp[SHA256_HEX + 16];
	int fd, saved;

	snprintf(tmp, sizeof tmp, "%s.tmp", name);
	if (unlinkat(dirfd, tmp, 0) != 0 && errno != ENOENT)
		return false;
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	if (!write_all(fd, p, n) || fsync(fd) != 0) {
		saved = errno;
		close(fd);
		(void)unlinkat(dirfd, tmp, 0);
		errno = saved;
		return false;
	}
	close(fd);
	return renameat(dirfd, tmp, dirfd, name) == 0;
}

/* Open an existing regular file of dirfd for reading, never following a
 * symlink nor blocking on a fifo; -1 with errno (ENOENT when absent). */
static int
open_regular(int dirfd, const char *name, struct stat *sb)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* The whole of fd (at most max bytes) into a heap buffer. */
static char *
read_fd(int fd, size_t size, size_t max, size_t *len)
{
	char *buf;
	size_t got = 0;

	if (size > max) {
		errno = EFBIG;
		return NULL;
	}
	buf = xmalloc(size + 1);
	while (got < size) {
		ssize_t r = pread(fd, buf + got, size - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;	/* shorter than it said */
			free(buf);
			return NULL;
		}
		got += (size_t)r;
	}
	buf[size] = '\0';
	*len = size;
	return buf;
}

/* ---- the snapshot ---- */

/*
 * Write state.json from the files files[p] and the rest of s, as step seq;
 * then empty the journal (the lines it held are in the snapshot now, and
 * loading would skip them anyway: their seq is not above the snapshot's).
 */
static bool
write_snapshot(struct state *st, struct state_session *s,
    struct sfile *const files[], const size_t nfiles[], unsigned long seq,
    char **err)
{
	struct enc e = { true };
	json_t *root = json_object(), *paths = json_object();
	struct stat sb;
	char *text = NULL;
	size_t len = 0, bytes, i;
	int p;

	sjson_set(&e, root, "version", json_integer(STATE_VERSION));
	sjson_set(&e, root, "seq", json_integer((json_int_t)seq));
	sjson_set(&e, root, "steps", json_integer(s->steps));
	for (p = 0; p < PATH__COUNT; p++) {
		json_t *path = json_object(), *fl = json_array();
		for (i = 0; i < nfiles[p]; i++)
			sjson_push(&e, fl, file_entry(&e, &files[p][i]));
		sjson_set(&e, path, "files", fl);
		sjson_set(&e, path, "names", sjson_names(&e,
		    s->paths[p].ns, &bytes));
		{
			json_t *wn = world_names_json(&e, s, (enum path_id)p);
			json_t *wv = world_values_json(&e, s, (enum path_id)p);
			if (wn != NULL)
				sjson_set(&e, path, "world_names", wn);
			if (wv != NULL)
				sjson_set(&e, path, "world_values", wv);
		}
		sjson_set(&e, path, "ledger", sjson_ledger(&e,
		    s->paths[p].ledger, 0));
		sjson_set(&e, path, "budget_used", json_integer(
		    s->paths[p].used));
		sjson_set(&e, paths, record_path_name((enum path_id)p), path);
	}
	sjson_set(&e, root, "paths", paths);
	if (e.ok)
		text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (text == NULL) {
		*err = xstrdup("cannot encode the state");
		return false;
	}
	len = strlen(text);
	if (!write_file_at(st->dirfd, "state.json", text, len) ||
	    fsync(st->dirfd) != 0) {
		free(text);
		return fail_errno(err, "writing", st->dir, "state.json");
	}
	free(text);
	st->snapshot_bytes = len;
	/* The rename was the commit: a journal that cannot be emptied now
	 * only holds lines loading skips, and the next compaction tries
	 * again. */
	(void)(ftruncate(st->journalfd, 0) == 0 && fsync(st->journalfd) == 0);
	st->journal_bytes = fstat(st->journalfd, &sb) == 0 ?
	    (size_t)sb.st_size : 0;
	return true;
}

static bool
compact(struct state *st, struct state_session *s, char **err)
{
	struct sfile *files[PATH__COUNT];
	size_t nfiles[PATH__COUNT];
	int p;
	for (p = 0; p < PATH__COUNT; p++) {
		files[p] = st->paths[p].files;
		nfiles[p] = st->paths[p].n;
	}
	return write_snapshot(st, s, files, nfiles, st->seq, err);
}

/* ---- saving a step ---- */

/* What one path looks like after the step, before it is committed. */
struct pending {
	bool		 files_changed;
	struct sfile	*files;
	size_t		 n;
	json_t		*names;		/* NULL: unchanged */
	size_t		 names_bytes;
	json_t		*wnames;	/* a world's names; NULL: unchanged */
	json_t		*wvalues;	/* ...their plain values; likewise */
};

/*
 * The path's files now, with their digests: a file the mfs has not
 * written since the saved generation keeps its saved digest; the others
 * are hashed.
 */
static void
pending_files(const struct spath *sp, const struct mfs *fs, bool full,
    struct pending *pd)
{
	size_t i, j = 0;

	pd->n = mfs_count(fs);
	pd->files = xcalloc(pd->n ? pd->n : 1, sizeof *pd->files);
	for (i = 0; i < pd->n; i++) {
		const char *name = mfs_name(fs, i);
		struct sfile *f = &pd->files[i];
		size_t len;
		const char *data = mfs_get(fs, name, &len);

		/* both lists are sorted: walk the saved one alongside */
		while (j < sp->n && strcmp(sp->files[j].name, name) < 0)
			j++;
		f->name = xstrdup(name);
		f->len = len;
		f->mode = mfs_mode(fs, i);
		f->unreadable = mfs_unreadable(fs, i);
		if (!full && j < sp->n && strcmp(sp->files[j].name, name) == 0 &&
		    mfs_stamp(fs, i) <= sp->fs_gen && sp->files[j].len == len)
			memcpy(f->digest, sp->files[j].digest, SHA256_HEX);
		else
			sha256_hex(data, len, f->digest);
	}
}

static void
pending_free(struct pending *pd)
{
	int p;
	for (p = 0; p < PATH__COUNT; p++) {
		files_free(pd[p].files, pd[p].n);
		json_decref(pd[p].names);
		json_decref(pd[p].wnames);
		json_decref(pd[p].wvalues);
	}
}

static bool
blob_written(const struct pending *pd, int upto_p, size_t upto_i,
    const char *digest)
{
	int p;
	size_t i;
	for (p = 0; p <= upto_p; p++)
		for (i = 0; i < (p == upto_p ? upto_i : pd[p].n); i++)
			if (strcmp(pd[p].files[i].digest, digest) == 0)
				return true;
	return false;
}

/* Write a blob for every digest no saved file holds yet, then make the
 * new names durable with one fsync of blobs/. */
static bool
write_blobs(struct state *st, struct state_session *s, const struct pending *pd,
    char **err)
{
	bool any = false;
	size_t i;
	int p;

	for (p = 0; p < PATH__COUNT; p++) {
		const struct mfs *fs = s->paths[p].fs;
		if (!pd[p].files_changed)
			continue;
		for (i = 0; i < pd[p].n; i++) {
			const struct sfile *f = &pd[p].files[i];
			size_t len;
			const char *data;
			if (blob_find(st, f->digest) != NULL ||
			    blob_written(pd, p, i, f->digest))
				continue;
			data = mfs_get(fs, f->name, &len);
			if (!write_file_at(st->blobfd, f->digest, data, len))
				return fail_errno(err, "writing", st->dir,
				    "blobs");
			any = true;
		}
	}
	if (any && fsync(st->blobfd) != 0)
		return fail_errno(err, "syncing", st->dir, "blobs");
	return true;
}

/* The step's line: its verdicts and, per path, what changed. */
static char *
journal_line(struct state *st, struct state_session *s, const struct pending *pd,
    const struct record *r, size_t n)
{
	struct enc e = { true };
	json_t *line = json_object(), *verdicts = json_array(),
	    *paths = json_object();
	char *text = NULL;
	size_t i, j;
	int p;

	sjson_set(&e, line, "seq", json_integer((json_int_t)st->seq + 1));
	sjson_set(&e, line, "step", json_integer(s->steps));
	for (i = 0; i < n; i++) {
		json_t *v = json_object();
		sjson_set(&e, v, "path",
		    json_string(record_path_name(r[i].path)));
		sjson_set(&e, v, "verdict", json_string(
		    record_verdict_name(r[i].verdict)));
		sjson_push(&e, verdicts, v);
	}
	sjson_set(&e, line, "verdicts", verdicts);
	for (p = 0; p < PATH__COUNT; p++) {
		const struct spath *sp = &st->paths[p];
		const struct ledger *l = s->paths[p].ledger;
		unsigned used = s->paths[p].used;
		json_t *path = json_object();

		if (pd[p].files_changed) {
			json_t *put = json_array(), *del = json_array();
			bool found;
			for (i = 0; i < pd[p].n; i++) {
				const struct sfile *f = &pd[p].files[i];
				j = spath_find(sp, f->name, &found);
				if (!found || strcmp(sp->files[j].digest,
				    f->digest) != 0 || sp->files[j].mode !=
				    f->mode || sp->files[j].unreadable !=
				    f->unreadable)
					sjson_push(&e, put, file_entry(&e, f));
			}
			for (j = 0; j < sp->n; j++) {
				const char *name = sp->files[j].name;
				bool still = false;
				size_t lo = 0, hi = pd[p].n;
				while (lo < hi && !still) {
					size_t mid = lo + (hi - lo) / 2;
					int c = strcmp(pd[p].files[mid].name,
					    name);
					if (c == 0)
						still = true;
					else if (c < 0)
						lo = mid + 1;
					else
						hi = mid;
				}
				if (!still)
					sjson_push(&e, del,
					    sjson_hex(name, strlen(name)));
			}
			if (json_array_size(put) > 0)
				sjson_set(&e, path, "put", put);
			else
				json_decref(put);
			if (json_array_size(del) > 0)
				sjson_set(&e, path, "delete", del);
			else
				json_decref(del);
		}
		if (pd[p].names != NULL)
			sjson_set(&e, path, "names", json_incref(pd[p].names));
		if (pd[p].wnames != NULL)
			sjson_set(&e, path, "world_names",
			    json_incref(pd[p].wnames));
		if (pd[p].wvalues != NULL)
			sjson_set(&e, path, "world_values",
			    json_incref(pd[p].wvalues));
		if (ledger_count(l) > sp->ledger_n)
			sjson_set(&e, path, "ledger", sjson_ledger(&e, l,
			    sp->ledger_n));
		if (used != sp->budget_used)
			sjson_set(&e, path, "budget_used", json_integer(used));
		if (json_object_size(path) > 0)
			sjson_set(&e, paths, record_path_name((enum path_id)p),
			    path);
		else
			json_decref(path);
	}
	sjson_set(&e, line, "paths", paths);
	if (e.ok)
		text = json_dumps(line, JSON_COMPACT);
	json_decref(line);
	return text;
}

/* Append the line and fsync: the commit.  A failed append is cut off
 * again, so that the next line does not follow a torn one. */
static bool
append_line(struct state *st, const char *text, char **err)
{
	size_t len = strlen(text);
	char *line = xmalloc(len + 2);
	bool ok;

	memcpy(line, text, len);
	line[len] = '\n';
	line[len + 1] = '\0';
	ok = write_all(st->journalfd, line, len + 1) &&
	    fsync(st->journalfd) == 0;
	free(line);
	if (!ok) {
		fail_errno(err, "appending to", st->dir, "journal.jsonl");
		if (ftruncate(st->journalfd, (off_t)st->journal_bytes) == -1) {
			/* a torn line stays at the journal's end: say so,
			 * not only why the append failed */
			free(*err);
			return fail_errno(err, "appending to (and then "
			    "cutting back)", st->dir, "journal.jsonl");
		}
		return false;
	}
	st->journal_bytes += len + 1;
	return true;
}

/* The step is durable: the index becomes what the disk now holds. */
static void
commit(struct state *st, struct state_session *s, struct pending *pd)
{
	size_t i;
	int p;

	for (p = 0; p < PATH__COUNT; p++) {
		struct spath *sp = &st->paths[p];
		if (pd[p].files_changed) {
			for (i = 0; i < pd[p].n; i++)
				blob_ref(st, pd[p].files[i].digest);
			for (i = 0; i < sp->n; i++)
				blob_unref(st, sp->files[i].digest);
			files_free(sp->files, sp->n);
			sp->files = pd[p].files;
			sp->n = sp->cap = pd[p].n;
			pd[p].files = NULL;
			pd[p].n = 0;
		}
		if (pd[p].names != NULL)
			sp->names_bytes = pd[p].names_bytes;
		if (pd[p].wnames != NULL) {
			json_decref(sp->wnames);
			sp->wnames = pd[p].wnames;
			pd[p].wnames = NULL;
		}
		if (pd[p].wvalues != NULL) {
			json_decref(sp->wvalues);
			sp->wvalues = pd[p].wvalues;
			pd[p].wvalues = NULL;
		}
		sp->fs = s->paths[p].fs;
		sp->ns = s->paths[p].ns;
		sp->ledger = s->paths[p].ledger;
		sp->fs_gen = mfs_generation(sp->fs);
		sp->ns_gen = ns_generation(s->paths[p].ns);
		sp->ledger_n = ledger_count(sp->ledger);
		sp->budget_used = s->paths[p].used;
	}
	st->seq++;
	st->steps = s->steps;
}

static bool load(struct state *st, struct state_session *s, char **err);

/*
 * Save the step: as a journal line, or as a whole snapshot when full (the
 * first save, a state converted from version 1, a session reset since).
 */
static bool
save(struct state *st, struct state_session *s, const struct record *r, size_t n,
    bool full, char **err)
{
	struct pending pd[PATH__COUNT];
	struct enc e = { true };
	size_t held = 0;
	char *text;
	bool ok = false;
	int p;

	memset(pd, 0, sizeof pd);
	if (s->steps <= st->steps)
		full = true;		/* the step counter went back: reset */
	for (p = 0; p < PATH__COUNT; p++) {
		const struct spath *sp = &st->paths[p];
		const struct mfs *fs = s->paths[p].fs;
		struct ns *ns = s->paths[p].ns;
		if (sp->fs != fs || sp->ns != ns ||
		    sp->ledger != s->paths[p].ledger ||
		    ledger_count(s->paths[p].ledger) <
		    sp->ledger_n)
			full = true;
	}
	for (p = 0; p < PATH__COUNT; p++) {
		const struct spath *sp = &st->paths[p];
		const struct mfs *fs = s->paths[p].fs;
		struct ns *ns = s->paths[p].ns;
		pd[p].files_changed = full || mfs_generation(fs) != sp->fs_gen;
		if (pd[p].files_changed)
			pending_files(sp, fs, full, &pd[p]);
		if (full || ns_generation(ns) != sp->ns_gen) {
			pd[p].names = sjson_names(&e, ns, &pd[p].names_bytes);
			held += pd[p].names_bytes;
		} else
			held += sp->names_bytes;
		pd[p].wnames = world_names_json(&e, s, (enum path_id)p);
		if (pd[p].wnames != NULL && !full && sp->wnames != NULL &&
		    json_equal(pd[p].wnames, sp->wnames)) {
			json_decref(pd[p].wnames);	/* unchanged */
			pd[p].wnames = NULL;
		}
		pd[p].wvalues = world_values_json(&e, s, (enum path_id)p);
		if (pd[p].wvalues != NULL && !full && sp->wvalues != NULL &&
		    json_equal(pd[p].wvalues, sp->wvalues)) {
			json_decref(pd[p].wvalues);
			pd[p].wvalues = NULL;
		}
		if (pd[p].wvalues != NULL)
			held += json_dumpb(pd[p].wvalues, NULL, 0,
			    JSON_COMPACT);
		held += mfs_bytes(fs) + ledger_bytes(s->paths[p].ledger);
	}
	if (!e.ok) {
		*err = xstrdup("cannot encode the names");
		goto out;
	}
	if (held > STATE_MAX_BYTES) {
		*err = xasprintf("with it the state would hold %zu MiB, more "
		    "than the %u MiB a state may hold", (held + (1u << 20) - 1) >> 20,
		    STATE_MAX_BYTES >> 20);
		goto out;
	}
	if (!write_blobs(st, s, pd, err))
		goto out;
	if (full) {
		struct sfile *files[PATH__COUNT];
		size_t nfiles[PATH__COUNT];
		for (p = 0; p < PATH__COUNT; p++) {
			files[p] = pd[p].files_changed ? pd[p].files :
			    st->paths[p].files;
			nfiles[p] = pd[p].files_changed ? pd[p].n :
			    st->paths[p].n;
		}
		if (!write_snapshot(st, s, files, nfiles, st->seq + 1, err))
			goto out;
	} else {
		if ((text = journal_line(st, s, pd, r, n)) == NULL) {
			*err = xstrdup("cannot encode the step");
			goto out;
		}
		ok = append_line(st, text, err);
		free(text);
		if (!ok)
			goto out;
	}
	ok = true;
	commit(st, s, pd);
	if (!full && st->journal_bytes > st->snapshot_bytes + COMPACT_SLACK) {
		/* the step is kept already; a failed compaction is retried
		 * after the next one */
		char *cerr = NULL;
		(void)compact(st, s, &cerr);
		free(cerr);
	}
out:
	pending_free(pd);
	return ok;
}

bool
state_save(struct state *st, struct state_session *s, const struct record *r,
    size_t n, char **err)
{
	char *lerr = NULL;

	*err = NULL;
	if (save(st, s, r, n, false, err))
		return true;
	/* Not kept: the session goes back to what the disk holds. */
	if (!load(st, s, &lerr)) {
		char *both = xasprintf("%s (and reloading the saved state "
		    "failed: %s)", *err, lerr);
		free(*err);
		free(lerr);
		*err = both;
	}
	return false;
}

/* ---- loading ---- */

static bool
corrupt(char **err, const char *dir, const char *file, const char *what)
{
	*err = xasprintf("%s/%s: not a sandboxrepl state (%s)", dir, file,
	    what);
	return false;
}

/* What loading gathers per path before the session is rebuilt. */
struct gathered {
	json_t		*names;		/* the last names seen */
	json_t		*wnames;	/* the last world names seen */
	json_t		*wvalues;	/* and their plain values */
	json_t		*ledger;	/* every entry, in order */
	unsigned	 budget_used;
};

static bool
gather_files(struct spath *sp, json_t *files, bool is_delete)
{
	json_t *e;
	size_t i;

	json_array_foreach(files, i, e) {
		char *name = sjson_unhex_name(is_delete ? e :
		    json_array_get(e, 0));
		const char *digest = json_string_value(json_array_get(e, 1));
		json_t *len = json_array_get(e, 2);
		json_t *mode = json_array_get(e, 3), *unread =
		    json_array_get(e, 4);
		if (name == NULL || (!is_delete && (digest == NULL ||
		    strlen(digest) != SHA256_HEX - 1 ||
		    strspn(digest, "0123456789abcdef") != SHA256_HEX - 1 ||
		    !json_is_integer(len) || json_integer_value(len) < 0 ||
		    json_integer_value(len) > STATE_MAX_BYTES ||
		    (mode != NULL && (!json_is_integer(mode) ||
		    json_integer_value(mode) < 0 ||
		    json_integer_value(mode) > 0177777 ||
		    !json_is_boolean(unread)))))) {
			free(name);
			return false;
		}
		if (is_delete)
			spath_delete(sp, name);
		else
			spath_put(sp, name, digest,
			    (size_t)json_integer_value(len), mode != NULL ?
			    (unsigned)json_integer_value(mode) :
			    default_mode(name), json_is_true(unread));
		free(name);
	}
	return true;
}

/* Fold one path's object (snapshot or journal line) into the gathering. */
static bool
gather_path(struct spath *sp, struct gathered *g, json_t *path, bool snapshot)
{
	json_t *v;

	if (!json_is_object(path))
		return false;
	if (snapshot || (v = json_object_get(path, "put")) != NULL)
		if (!gather_files(sp, json_object_get(path, snapshot ?
		    "files" : "put"), false))
			return false;
	if ((v = json_object_get(path, "delete")) != NULL &&
	    !gather_files(sp, v, true))
		return false;
	if ((v = json_object_get(path, "names")) != NULL) {
		if (!json_is_array(v))
			return false;
		json_decref(g->names);
		g->names = json_incref(v);
	}
	if ((v = json_object_get(path, "world_names")) != NULL) {
		if (!json_is_array(v))
			return false;
		json_decref(g->wnames);
		g->wnames = json_incref(v);
	}
	if ((v = json_object_get(path, "world_values")) != NULL) {
		if (!json_is_array(v))
			return false;
		json_decref(g->wvalues);
		g->wvalues = json_incref(v);
	}
	if ((v = json_object_get(path, "ledger")) != NULL &&
	    json_array_extend(g->ledger, v) != 0)
		return false;
	if ((v = json_object_get(path, "budget_used")) != NULL)
		g->budget_used = (unsigned)json_integer_value(v);
	return true;
}

static int
path_lookup(const char *name)
{
	int p;
	for (p = 0; p < PATH__COUNT; p++)
		if (strcmp(record_path_name((enum path_id)p), name) == 0)
			return p;
	return -1;
}

/* Replay the journal's lines past the snapshot; a torn last line (a kill
 * during its append: never acknowledged) is cut off. */
static bool
replay(struct state *st, struct gathered *g, char **err)
{
	struct stat sb;
	char *buf, *p, *nl;
	size_t len;
	bool ok = false;

	if (fstat(st->journalfd, &sb) != 0 ||
	    (buf = read_fd(st->journalfd, (size_t)sb.st_size, MAX_META_BYTES,
	    &len)) == NULL)
		return fail_errno(err, "reading", st->dir, "journal.jsonl");
	for (p = buf; (nl = memchr(p, '\n', len - (size_t)(p - buf))) != NULL;
	    p = nl + 1) {
		json_error_t je;
		json_t *line = json_loadb(p, (size_t)(nl - p),
		    JSON_REJECT_DUPLICATES, &je), *paths, *path;
		json_int_t seq = json_integer_value(json_object_get(line,
		    "seq"));
		const char *name;
		if (line == NULL || !json_is_object(paths = json_object_get(line,
		    "paths"))) {
			json_decref(line);
			corrupt(err, st->dir, "journal.jsonl", "a bad line");
			goto out;
		}
		if (seq <= (json_int_t)st->seq) {	/* in the snapshot */
			json_decref(line);
			continue;
		}
		if (seq != (json_int_t)st->seq + 1) {
			json_decref(line);
			corrupt(err, st->dir, "journal.jsonl", "a line missing");
			goto out;
		}
		json_object_foreach(paths, name, path) {
			int id = path_lookup(name);
			if (id < 0 ||
			    !gather_path(&st->paths[id], &g[id], path, false)) {
				json_decref(line);
				corrupt(err, st->dir, "journal.jsonl",
				    "a bad change");
				goto out;
			}
		}
		st->seq = (unsigned long)seq;
		st->steps = (unsigned)json_integer_value(json_object_get(line,
		    "step"));
		json_decref(line);
	}
	st->journal_bytes = (size_t)(p - buf);
	if (st->journal_bytes != len &&
	    (ftruncate(st->journalfd, (off_t)st->journal_bytes) != 0 ||
	    fsync(st->journalfd) != 0)) {
		fail_errno(err, "truncating", st->dir, "journal.jsonl");
		goto out;
	}
	ok = true;
out:
	free(buf);
	return ok;
}

/* Read the blob of f (it must hold f->len bytes). */
static char *
read_blob(struct state *st, const struct sfile *f, char **err)
{
	struct stat sb;
	size_t len;
	char *data;
	int fd = open_regular(st->blobfd, f->digest, &sb);

	if (fd < 0) {
		fail_errno(err, "reading", st->dir, "blobs");
		return NULL;
	}
	if ((size_t)sb.st_size != f->len) {
		close(fd);
		corrupt(err, st->dir, "blobs", "a blob of the wrong size");
		return NULL;
	}
	data = read_fd(fd, f->len, STATE_MAX_BYTES, &len);
	if (data == NULL)
		fail_errno(err, "reading", st->dir, "blobs");
	close(fd);
	return data;
}

/* Rebuild s from the index and what was gathered. */
static bool
materialize(struct state *st, struct state_session *s, struct gathered *g,
    struct rt *rt, char **err)
{
	size_t i;
	int p;

	s->reset(s);
	s->steps = st->steps;
	for (p = 0; p < PATH__COUNT; p++) {
		struct spath *sp = &st->paths[p];
		json_t *e;
		for (i = 0; i < sp->n; i++) {
			char *data = read_blob(st, &sp->files[i], err);
			if (data == NULL)
				return false;
			mfs_put(s->paths[p].fs,
			    sp->files[i].name, data, sp->files[i].len);
			mfs_set_mode(s->paths[p].fs,
			    sp->files[i].name, sp->files[i].mode,
			    sp->files[i].unreadable);
			free(data);
			blob_ref(st, sp->files[i].digest);
		}
		json_array_foreach(g[p].names, i, e) {
			char *name = sjson_unhex_name(json_array_get(e, 0));
			value v;
			if (name == NULL || !sjson_to_value(rt,
			    json_array_get(e, 1), 0, &v)) {
				free(name);
				return corrupt(err, st->dir, "state.json",
				    "a name");
			}
			ns_set(s->paths[p].ns, name, v);
			free(name);
		}
		json_array_foreach(g[p].ledger, i, e) {
			const char *k = json_string_value(json_array_get(e, 0));
			const char *a = json_string_value(json_array_get(e, 1));
			char *m = sjson_unhex_name(json_array_get(e, 2));
			bool ok = k != NULL && a != NULL && m != NULL &&
			    ledger_add_digests(s->paths[p].ledger, k, a, m);
			free(m);
			if (!ok)
				return corrupt(err, st->dir, "state.json",
				    "a ledger entry");
		}
		s->paths[p].used = g[p].budget_used;
		sp->budget_used = g[p].budget_used;
		json_array_foreach(g[p].wnames, i, e) {
			char *name = sjson_unhex_name(e);
			if (name == NULL)
				return corrupt(err, st->dir, "state.json",
				    "a world's name");
			sp->lost = xreallocarray(sp->lost, sp->nlost + 1,
			    sizeof *sp->lost);
			sp->lost[sp->nlost++] = name;
		}
		sp->wnames = json_incref(g[p].wnames);
		json_array_foreach(g[p].wvalues, i, e) {
			char *name = sjson_unhex_name(json_array_get(e, 0));
			char *repr = sjson_unhex_name(json_array_get(e, 1));
			if (name == NULL || repr == NULL) {
				free(name);
				free(repr);
				return corrupt(err, st->dir, "state.json",
				    "a world's value");
			}
			sp->values = xreallocarray(sp->values,
			    2 * sp->nvalues + 2, sizeof *sp->values);
			sp->values[2 * sp->nvalues] = name;
			sp->values[2 * sp->nvalues++ + 1] = repr;
		}
		sp->wvalues = json_incref(g[p].wvalues);
		sp->names_bytes = g[p].names != NULL ? json_dumpb(g[p].names,
		    NULL, 0, JSON_COMPACT) : 0;
		sp->fs = s->paths[p].fs;
		sp->ns = s->paths[p].ns;
		sp->ledger = s->paths[p].ledger;
		sp->fs_gen = mfs_generation(sp->fs);
		sp->ns_gen = ns_generation(s->paths[p].ns);
		sp->ledger_n = ledger_count(sp->ledger);
	}
	return true;
}

/*
 * A version 1 state: contents in hex, ledger entries as text.  Rebuilt in
 * s directly; the caller saves it as a version 2 snapshot.
 */
static bool
load_v1(struct state *st, struct state_session *s, json_t *paths, struct rt *rt,
    char **err)
{
	int p;

	s->reset(s);
	for (p = 0; p < PATH__COUNT; p++) {
		json_t *path = json_object_get(paths,
		    record_path_name((enum path_id)p)), *e, *v;
		const char *name;
		size_t i;
		if (!json_is_object(path))
			continue;
		json_array_foreach(json_object_get(path, "files"), i, e) {
			size_t dl;
			char *n = sjson_unhex_name(json_array_get(e, 0));
			char *d = sjson_unhex(json_array_get(e, 1), &dl);
			if (n == NULL || d == NULL) {
				free(n);
				free(d);
				return corrupt(err, st->dir, "state.json",
				    "a file entry");
			}
			mfs_put(s->paths[p].fs, n, d, dl);
			free(n);
			free(d);
		}
		json_object_foreach(json_object_get(path, "names"), name, v) {
			value val;
			if (!sjson_to_value(rt, v, 0, &val))
				return corrupt(err, st->dir, "state.json",
				    "a name");
			ns_set(s->paths[p].ns, name, val);
		}
		json_array_foreach(json_object_get(path, "ledger"), i, e) {
			const char *k = json_string_value(json_array_get(e, 0));
			const char *a = json_string_value(json_array_get(e, 1));
			const char *m = json_string_value(json_array_get(e, 2));
			if (k == NULL || a == NULL || m == NULL)
				return corrupt(err, st->dir, "state.json",
				    "a ledger entry");
			ledger_add(s->paths[p].ledger, k, a, m);
		}
		s->paths[p].used = (unsigned)json_integer_value(
		    json_object_get(path, "budget_used"));
	}
	return true;
}

/*
 * Is name one the state makes in blobs/: a digest (64 lowercase hex
 * digits) or its temporary file (write_file_at)?  Nothing else there is
 * the state's to remove: DIR may be a directory the user already had.
 */
static bool
is_own_blob_name(const char *name)
{
	size_t i;

	for (i = 0; i < SHA256_HEX - 1; i++)
		if (sjson_nibble(name[i]) < 0)
			return false;
	return name[i] == '\0' || strcmp(name + i, ".tmp") == 0;
}

/* Remove from blobs/ every file of the state's own that no saved file
 * refers to (the remains of a killed save); leave anything else. */
static void
sweep_blobs(struct state *st)
{
	int fd = dup(st->blobfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (is_own_blob_name(de->d_name) &&
		    blob_find(st, de->d_name) == NULL)
			(void)unlinkat(st->blobfd, de->d_name, 0);
	closedir(d);
}

/* Load DIR into s: the snapshot, then the journal past it. */
static bool
load(struct state *st, struct state_session *s, char **err)
{
	struct gathered g[PATH__COUNT];
	struct stat sb;
	json_error_t je;
	json_t *root = NULL, *paths;
	struct arena *a = arena_new();
	struct rt rt;
	char *text;
	size_t len;
	bool ok = false, v1 = false;
	int fd, p;

	memset(g, 0, sizeof g);
	memset(&rt, 0, sizeof rt);
	rt.arena = a;
	index_clear(st);
	st->seq = 0;
	st->steps = 0;
	if ((fd = open_regular(st->dirfd, "state.json", &sb)) < 0) {
		if (errno != ENOENT) {
			fail_errno(err, "opening", st->dir, "state.json");
			goto out;
		}
		if (fstat(st->journalfd, &sb) != 0 || sb.st_size != 0) {
			corrupt(err, st->dir, "journal.jsonl",
			    "a journal without its state.json");
			goto out;
		}
		/* a fresh start: s as it is becomes the first snapshot */
		ok = save(st, s, NULL, 0, true, err);
		goto out;
	}
	text = read_fd(fd, (size_t)sb.st_size, MAX_META_BYTES, &len);
	close(fd);
	if (text == NULL) {
		fail_errno(err, "reading", st->dir, "state.json");
		goto out;
	}
	st->snapshot_bytes = len;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (root == NULL) {
		*err = xasprintf("%s/state.json: %s", st->dir, je.text);
		goto out;
	}
	paths = json_object_get(root, "paths");
	v1 = json_integer_value(json_object_get(root, "version")) == 1;
	if ((!v1 && json_integer_value(json_object_get(root, "version")) !=
	    STATE_VERSION) || !json_is_object(paths)) {
		corrupt(err, st->dir, "state.json", "version or paths");
		goto out;
	}
	if (v1) {
		if (!load_v1(st, s, paths, &rt, err))
			goto out;
		s->steps = (unsigned)json_integer_value(
		    json_object_get(root, "steps"));
		st->steps = 0;
		ok = save(st, s, NULL, 0, true, err);
		st->resumed = ok;
		goto out;
	}
	st->seq = (unsigned long)json_integer_value(json_object_get(root,
	    "seq"));
	st->steps = (unsigned)json_integer_value(json_object_get(root,
	    "steps"));
	for (p = 0; p < PATH__COUNT; p++) {
		json_t *path = json_object_get(paths,
		    record_path_name((enum path_id)p));
		g[p].ledger = json_array();
		if (path != NULL && !gather_path(&st->paths[p], &g[p], path,
		    true)) {
			corrupt(err, st->dir, "state.json", "a path");
			goto out;
		}
	}
	if (!replay(st, g, err) || !materialize(st, s, g, &rt, err))
		goto out;
	sweep_blobs(st);
	st->resumed = true;
	ok = true;
out:
	for (p = 0; p < PATH__COUNT; p++) {
		json_decref(g[p].names);
		json_decref(g[p].wnames);
		json_decref(g[p].wvalues);
		json_decref(g[p].ledger);
	}
	json_decref(root);
	arena_free(a);
	return ok;
}

/* ---- opening DIR ---- */

/* DIR (or blobs/ in it) must be the caller's and not writable by group or
 * others: anyone else could plant files in it, or replace them. */
static bool
check_owner(int fd, const char *path, char **err)
{
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return false;
	}
	if (sb.st_uid != geteuid()) {
		*err = xasprintf("%s: owned by uid %u, not by you (uid %u); a "
		    "state directory must be yours", path,
		    (unsigned)sb.st_uid, (unsigned)geteuid());
		return false;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		*err = xasprintf("%s: writable by %s (mode %04o); a state "
		    "directory must be writable by you alone (chmod go-w)",
		    path, sb.st_mode & S_IWOTH ? "others" : "its group",
		    (unsigned)(sb.st_mode & 07777));
		return false;
	}
	return true;
}

/*
 * The session's exclusive lock on DIR.  A holder that was just killed may
 * still be finishing an fsync (a killed process lets go of its files only
 * when it is gone), so a held lock is tried again for a little while
 * before the session is refused.
 */
static bool
lock(int fd)
{
	const struct timespec pause = { 0, 20 * 1000 * 1000 };
	int tries;
	for (tries = 0; tries < LOCK_TRIES; tries++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return true;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return false;
		nanosleep(&pause, NULL);
	}
	errno = EWOULDBLOCK;
	return false;
}

struct state *
state_open(struct state_session *s, const char *dir, char **err)
{
	struct state *st = xcalloc(1, sizeof *st);
	char *blobs = xasprintf("%s/blobs", dir);

	*err = NULL;
	st->dir = xstrdup(dir);
	st->dirfd = st->blobfd = st->journalfd = -1;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		*err = xasprintf("creating %s: %s", dir, strerror(errno));
		goto fail;
	}
	/* DIR itself is not followed either: a link planted where a new
	 * DIR would be made could send the state into a directory of root's */
	st->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (st->dirfd < 0) {
		struct stat sb;
		int saved = errno;
		*err = lstat(dir, &sb) == 0 && S_ISLNK(sb.st_mode) ?
		    xasprintf("%s: a symbolic link; give the state directory "
		    "itself", dir) : xasprintf("%s: %s", dir, strerror(saved));
		goto fail;
	}
	if (!check_owner(st->dirfd, dir, err))
		goto fail;
	if (!lock(st->dirfd)) {
		*err = errno == EWOULDBLOCK ? xasprintf("%s: in use by another "
		    "sandboxrepl (it holds the directory's lock)", dir) :
		    xasprintf("locking %s: %s", dir, strerror(errno));
		goto fail;
	}
	if (mkdirat(st->dirfd, "blobs", 0700) != 0 && errno != EEXIST) {
		*err = xasprintf("creating %s: %s", blobs, strerror(errno));
		goto fail;
	}
	st->blobfd = openat(st->dirfd, "blobs", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (st->blobfd < 0) {
		*err = xasprintf("%s: %s", blobs, strerror(errno));
		goto fail;
	}
	if (!check_owner(st->blobfd, blobs, err))
		goto fail;
	st->journalfd = openat(st->dirfd, "journal.jsonl", O_RDWR | O_CREAT |
	    O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (st->journalfd < 0) {
		fail_errno(err, "opening", dir, "journal.jsonl");
		goto fail;
	}
	{
		struct stat sb;
		if (fstat(st->journalfd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
			*err = xasprintf("%s/journal.jsonl: not a regular file",
			    dir);
			goto fail;
		}
	}
	if (!load(st, s, err))
		goto fail;
	free(blobs);
	return st;
fail:
	free(blobs);
	state_close(st);
	return NULL;
}

void
state_close(struct state *st)
{
	if (st == NULL)
		return;
	index_clear(st);
	free(st->blobs);
	if (st->journalfd >= 0)
		close(st->journalfd);
	if (st->blobfd >= 0)
		close(st->blobfd);
	if (st->dirfd >= 0)
		close(st->dirfd);	/* and the lock with it */
	free(st->dir);
	free(st);
}

bool
state_resumed(const struct state *st)
{
	return st->resumed;
}

const char *const *
state_world_names(const struct state *st, int path, size_t *n)
{
	static const char *const none[1] = { NULL };

	*n = st->paths[path].nlost;
	if (st->paths[path].wnames == NULL)
		return NULL;
	return st->paths[path].lost != NULL ?
	    (const char *const *)st->paths[path].lost : none;
}

const char *const *
state_world_values(const struct state *st, int path, size_t *n)
{
	*n = st->paths[path].nvalues;
	return (const char *const *)st->paths[path].values;
}
