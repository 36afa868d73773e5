/*
 * mockfs.h -- a path's filesystem: a sorted set of named entries.
 *
 * The unsafe and sandbox paths act on a mock filesystem, never on the
 * host.  Each path owns one; everything in it is heap memory owned by the
 * mfs (names and contents are copied in, so it outlives the input line).
 * Pointers returned by mfs_get() and mfs_name() stay valid until the next
 * change to the same mfs.
 *
 * The model's files are flat names.  A CPython world's workspace is a
 * tree, read back as relative paths: "loot/" is a directory (its name
 * ends in '/', it holds no data), "loot/secrets.txt" a file in it, and
 * sorted order puts a directory just before what it holds.  Each entry
 * also has a mode (st_mode: its type and permission bits; mfs_put makes
 * regular files 0644, a name ending in '/' a directory 0755; a symbolic
 * link's data is its target) and may be marked unreadable: the world
 * could not read it, and its data are its contents as last read (or
 * none).
 */
#ifndef SANDBOXREPL_MOCKFS_H
#define SANDBOXREPL_MOCKFS_H

#include <stdbool.h>
#include <stddef.h>

struct mfs;

struct mfs *mfs_new(void);
void mfs_free(struct mfs *fs);
/* A deep copy. */
struct mfs *mfs_clone(const struct mfs *fs);
/* Make fs hold what from holds (names, contents, modes, unreadable
 * marks), in place: what points to fs keeps pointing to it. */
void mfs_assign(struct mfs *fs, const struct mfs *from);
size_t mfs_count(const struct mfs *fs);
/* The i-th name in sorted (byte) order. */
const char *mfs_name(const struct mfs *fs, size_t i);
/* Contents of name, or NULL when absent; *len receives the length. */
const char *mfs_get(const struct mfs *fs, const char *name, size_t *len);
bool mfs_exists(const struct mfs *fs, const char *name);
/* Create or replace.  Returns true when the file existed before. */
bool mfs_put(struct mfs *fs, const char *name, const char *data, size_t len);
/* Append (create when absent). */
void mfs_append(struct mfs *fs, const char *name, const char *data,
    size_t len);
/* Remove; false when absent. */
bool mfs_delete(struct mfs *fs, const char *name);
/* The i-th entry's mode (st_mode bits) and whether its contents could
 * not be read (see above). */
unsigned mfs_mode(const struct mfs *fs, size_t i);
/* The i-th entry's length in bytes (mfs_get's *len, without the search). */
size_t mfs_size(const struct mfs *fs, size_t i);
bool mfs_unreadable(const struct mfs *fs, size_t i);
/* Set name's mode and unreadable mark; false when it is absent.  A later
 * mfs_put keeps the mode and clears the mark. */
bool mfs_set_mode(struct mfs *fs, const char *name, unsigned mode,
    bool unreadable);
/* The i-th entry's index by name, or (size_t)-1. */
size_t mfs_index(const struct mfs *fs, const char *name);
/* A name that stands for a directory ("loot/"). */
bool mfs_is_dir_name(const char *name);
/* The SHA-256 of the i-th entry's contents (SHA256_BYTES), valid until
 * the next change to fs.  It is kept with the entry until its contents
 * change (and copied by mfs_assign), so each contents are hashed once
 * however often they are asked for. */
const unsigned char *mfs_digest(struct mfs *fs, size_t i);
/* Total bytes held (for caps). */
size_t mfs_bytes(const struct mfs *fs);
/* Grows with every put, append and delete: a cheap "did it change". */
unsigned long mfs_generation(const struct mfs *fs);
/* The generation that last wrote the i-th file (in sorted order): the
 * files written since generation g are those whose stamp exceeds g. */
unsigned long mfs_stamp(const struct mfs *fs, size_t i);

#endif
