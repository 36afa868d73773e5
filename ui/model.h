/*
 * model.h -- what the terminal UI shows, kept apart from how it is drawn.
 *
 * The model turns step records (which die with the input's arena) into
 * heap copies the panes can draw at any later time: a transcript per path,
 * the last record per path (for the layer strip), the last input's syntax
 * tree with the offending node, the files each path has now compared with
 * a baseline (so deletions stay visible), and the trace lines for :save.
 * All of it comes from records and from the session's files in the
 * records' shape (session_files): the UI parses nothing and reads no
 * filesystem.  Nothing here includes curses, so a test can drive it
 * without a terminal.
 */
#ifndef SANDBOXREPL_UI_MODEL_H
#define SANDBOXREPL_UI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sandbox/layers.h"
#include "record/record.h"

struct session;

/* One transcript line: an input's outcome on one path, or a note. */
struct model_entry {
	unsigned	 step;
	unsigned	 seq;		/* the input or note it belongs to:
					   entries with one seq share a row
					   of the columns' grid */
	bool		 is_note;	/* echo/listing text, no verdict */
	enum verdict	 verdict;
	char		*label;
	char		*shown;		/* the input as typed */
	char		*outcome;	/* or the note's text */
	char		*output;	/* what the code and its programs
					   wrote, as a terminal shows it: lines
					   (escaped, tabs expanded) joined by
					   newlines, or NULL */
	size_t		 output_dropped;	/* lines past the ones kept,
					   counted on output's last line */
	bool		 inside;	/* INSIDE: harm done inside a jail's
					   copy, in its own colour, never as
					   a plain ok */
};

/* The last record of a path, as much as the layer strip needs. */
struct model_last {
	bool		 valid;
	enum verdict	 verdict;
	enum layer	 layer;
	enum input_kind	 kind;
	bool		 fs_partial;	/* its files are not all there are */
	bool		 bypassed;	/* its filter let an escape through */
};

/* A file as a record gives it (record.h), kept. */
struct model_file {
	char		*name;
	unsigned	 mode;
	bool		 unreadable;
	size_t		 size;
	unsigned char	 digest[32];	/* zeros: none was given */
};

enum fs_mark { FS_SAME, FS_CREATED, FS_CHANGED, FS_DELETED };

struct model_fsrow {
	const char	*name;		/* valid until the next model change */
	enum fs_mark	 mark;
	char		 note[32];	/* its kind or mode when not a
					   plain file ("mode 000,
					   unreadable"), or "" */
};

struct model_path {
	struct model_entry	*entries;
	size_t			 n;
	struct model_last	 last;
	struct model_file	*base;	/* the baseline: start or :reset */
	size_t			 nbase;
	struct model_file	*now;	/* its files after its last record
					   (or the baseline's time) */
	size_t			 nnow;
	struct model_fsrow	*rows;	/* scratch for model_fs_rows */
	size_t			 nrows;
};

/* One line of the dumped tree. */
struct model_astline {
	char		*text;		/* indented, without a span */
	uint32_t	 start, end;
};

struct model {
	struct session		*s;
	struct model_path	 paths[PATH__COUNT];
	char			**log;	/* trace lines, for :save */
	size_t			 nlog;
	size_t			 unsaved;	/* inputs in the log since the
						   last :save (or the start,
						   or :reset) */
	unsigned		 seq;	/* the last input's or note's */
	/* The last input and its tree. */
	char			*input;
	struct model_astline	*ast;
	size_t			 nast;
	long			 ast_hl;	/* highlighted line, or -1 */
	bool			 has_span;	/* the offending node's span */
	uint32_t		 span_start, span_end;
	char			*span_note;	/* "Call: disallowed ..." */
	enum path_id		 span_path;
	char			*parse_error;	/* when the input did not parse */
};

/* A stop in a path's layer strip. */
enum strip_mark {
	STRIP_PASSED,		/* '+' the input went through */
	STRIP_STOPPED,		/* '!' this layer said no (or failed) */
	STRIP_DONE,		/* '*' the input ended here, allowed */
	STRIP_UNREACHED,	/* '.' not reached */
	STRIP_BYPASSED		/* '?' let through what it should have
				   stopped (a weak filter's bypass) */
};

struct strip_item {
	const char	*name;
	enum strip_mark	 mark;
};

/* (a layer the path does not usually have may be added: the sandbox's
 * filter in front of the jail) */
#define STRIP_MAX (LAYERS_PATH_MAX + 1)

void model_init(struct model *m, struct session *s);
void model_free(struct model *m);
/* Forget transcripts, the log and the last input; the baseline becomes
 * now. */
void model_clear(struct model *m);
/* The baseline, and the files now, become the session's files now
 * (after a set-up step). */
void model_rebase(struct model *m);
/* Take in one input's records (copies what it keeps). */
void model_apply(struct model *m, const char *input, size_t len,
    const struct record *r, size_t n);
/* A note in the transcripts of the paths in mask (0: all) and the log,
 * escaped (textesc.h) as a trace line is. */
void model_note(struct model *m, unsigned mask, const char *text);
/* The path's files now (its last record's), merged with deleted
 * baseline files, sorted. */
size_t model_fs_rows(struct model *m, enum path_id p,
    const struct model_fsrow **rows);
/* The strip for the path's last record; returns the number of items. */
size_t model_strip(const struct model *m, enum path_id p,
    struct strip_item out[STRIP_MAX]);
/* A deep copy of src into dst (which holds nothing), to go back to
 * later: model_free(m) then model_copy(m, saved). */
void model_copy(struct model *dst, const struct model *src);
/* About what a copy holds, in bytes (for a cap on copies kept). */
size_t model_bytes(const struct model *m);
/* Write the log as trace lines (then nothing is unsaved); false with
 * errno set on failure. */
bool model_save(struct model *m, const char *path);

#endif
