/*
 * effect.h -- what an evaluation did, written down as it does it.
 *
 * Every command, file operation and function of the object model that
 * acts on the world (reads, writes, deletes, runs a program, sends, ...)
 * adds an effect to its input's log (struct effect_log, in the input's
 * arena) at the moment it acts; the session turns that list into the
 * record's effects and the trace.  This is the only writer of the list,
 * so a command or a file operation needs the log, not the evaluator.
 *
 * An effect's category says what kind of harm it is, from one X-macro
 * with its names; harmless effects (HARMLESS, name NULL) are only listed.
 * DISCLOSURE: code read one of the session's secret files (the essay's
 * secrets.txt): no file changed, but the secret is in the code's hands.
 * The session sets it (session.c) where it gathers a step's effects, on
 * every path and engine alike.
 */
#ifndef SANDBOXREPL_EFFECT_H
#define SANDBOXREPL_EFFECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct effect;

/* Where an input's effects are written (the evaluator holds one). */
struct effect_log {
	struct arena	*arena;		/* the input's: the list, its texts */
	struct effect	*items;
	size_t		 n, cap;
	bool		 simulated;	/* its effects happen on a mock
					   (every path but the jail) */
	/* Jail path: called for every effect as it happens, so that what
	 * was done before the kernel killed the process is still known. */
	void		(*sink)(const struct effect *e);
};

/* X(enum suffix, name in records and traces; NULL: harmless) */
#define EFFECT_CATEGORIES(X)				\
	X(HARMLESS,	NULL)				\
	X(DAMAGE,	"damage")			\
	X(EXFILTRATION,	"exfiltration")			\
	X(DISCLOSURE,	"disclosure")			\
	X(PROCESS,	"process")			\
	X(EXHAUSTION,	"resource exhaustion")

#define X_ENUM(e, name) EFFECT_##e,
enum effect_category { EFFECT_CATEGORIES(X_ENUM) EFFECT__COUNT };
#undef X_ENUM

/* The category's name (static), NULL for EFFECT_HARMLESS. */
const char *effect_category_name(enum effect_category c);
/* The category of a name (NULL: harmless); false when none has it. */
bool effect_category_parse(const char *name, enum effect_category *out);

/*
 * What an effect's text of len bytes holds until its record is printed:
 * itself, its copy in the record, the str that shows it, and four copies
 * of that str's repr: in the outcome, the trace line, what prints them,
 * and the buffer they are made in.
 */
uint64_t effect_text_held(const char *text, size_t len);

/* Write down an effect (op, target and text are copied into the log's
 * arena; text may be NULL).  The text is counted against the input's
 * memory (effect_text_held()): a caller with a text of the user's size
 * asks rt_check_bytes() first.  Also hands the effect to log->sink when
 * there is one. */
void effect_add(struct effect_log *log, const char *op, const char *target,
    enum effect_category category, const char *text, bool denied);

/* The same, with the category by name, for a category that comes as
 * text (from a world's report); an unknown name is kept as it is. */
void effect_add_named(struct effect_log *log, const char *op,
    const char *target, const char *category, const char *text,
    bool denied);

#endif
