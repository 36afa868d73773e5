/*
 * export.h -- the lesson's log and its handout.
 *
 * A log of the steps a class ran, kept as heap copies of what their
 * records said (the records die with their input's arena): for each
 * step its caption (a scenario's '#' lines above it), its title (a
 * scenario step's label), the input, and a row per record -- the path
 * (and the sandbox's policy when a scenario runs several), the verdict,
 * the layer that decided, what happened (record_happened) and the
 * output.  An echo or a listing is a step with a note and no rows.
 *
 * The UI's :summary draws it, and :export and batch mode's --export
 * write it as one self-contained HTML page: inline CSS, no external
 * resource, every text escaped, the verdicts said in words (the
 * screen's words, record_verdict_word), so that it reads the same
 * printed in black and white.
 */
#ifndef SANDBOXREPL_EXPORT_H
#define SANDBOXREPL_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "record/record.h"

struct sbuf;

/* One path's outcome of a step. */
struct export_row {
	enum path_id	 path;
	char		*policy;	/* the sandbox's policy when the step
					   ran under several ("dunder"), or
					   NULL */
	enum verdict	 verdict;
	enum layer	 layer;
	char		*happened;	/* record_happened(), as it is */
	char		*output;	/* what the code wrote (capped), or
					   NULL */
};

struct export_step {
	char		*caption;	/* or NULL */
	char		*title;		/* a scenario step's label, or NULL */
	char		*scenario;	/* the scenario it came from, or NULL:
					   typed */
	char		*input;		/* or NULL for a note */
	char		*note;		/* an echo's or a listing's text, or
					   NULL */
	struct export_row *rows;
	size_t		 nrows;
};

struct export_log {
	struct export_step *steps;
	size_t		 n;
	size_t		 dropped;	/* oldest steps let go (EXPORT_MAX) */
};

/* Steps a log keeps; the oldest go first. */
#define EXPORT_MAX_STEPS 2000

void export_init(struct export_log *l);
void export_free(struct export_log *l);
/* Forget every step (:summary clear). */
void export_clear(struct export_log *l);

/* One input's records: a step (nothing when n is 0).  caption, title
 * and scenario may be NULL. */
void export_add(struct export_log *l, const char *caption, const char *title,
    const char *scenario, const char *input, size_t len,
    const struct record *r, size_t n);
/* An echo's or a listing's line: a step with no rows. */
void export_note(struct export_log *l, const char *caption,
    const char *scenario, const char *text);

/* The name a row goes by: "unsafe", "sandbox [dunder]", "jail:gvisor". */
void export_row_name(const struct export_row *row, struct sbuf *out);

/* The counts: one line per row name, in the order paths are listed
 * (unsafe, sandbox and its policies, jail, jail:gvisor). */
struct export_count {
	char		*name;
	enum path_id	 path;
	size_t		 n[VERDICT__COUNT];
};
/* Fills *out (heap; export_counts_free) and returns how many. */
size_t export_counts(const struct export_log *l, struct export_count **out);
void export_counts_free(struct export_count *c, size_t n);
/* The verdicts in the order a class reads them: LANDED, BYPASSED,
 * BLOCKED, CONTAINED, INSIDE, ok, error. */
extern const enum verdict export_verdict_order[VERDICT__COUNT];

/* Write the page to file (replaced atomically: a temporary file in its
 * folder, then renamed).  False with *err (heap) naming the file and why
 * when it cannot be written. */
bool export_write(const struct export_log *l, const char *title,
    const char *file, char **err);

#endif
