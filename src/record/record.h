/*
 * record.h -- the step record: what one path did with one input.
 *
 * The record is the program's one output shape.  The trace printer, the
 * JSON printer, the UI and the tests all consume it; nothing renders
 * straight from the evaluator.  It carries what a screen shows of a step:
 * the path's files after it (names, kinds, sizes and, for a screen,
 * digests) and, for a screen, the input's syntax tree or its parse error,
 * so that the UI parses nothing and reads no filesystem.  A record and
 * everything it points to live in the arena the caller passed to
 * session_run().
 */
#ifndef SANDBOXREPL_RECORD_H
#define SANDBOXREPL_RECORD_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct record;
struct sbuf;

/* X(enum suffix, name in records).  Two jails can run side by side:
 * "jail", whose boundary --jail sets (the host kernel's namespaces by
 * default; "jail:ns" names it too), and "jail:gvisor", always gVisor.
 * The rest of a path's row, and its boundary's, is in paths.h. */
#define PATHS(X)				\
	X(UNSAFE,  "unsafe")			\
	X(SANDBOX, "sandbox")			\
	X(JAIL,    "jail")			\
	X(GVISOR,  "jail:gvisor")		\
	X(MICROVM, "jail:microvm")

/*
 * X(enum suffix, name in records, the word on screen, its colour, a
 * refusal).  One vocabulary: the screen, the records, :summary, the
 * handout and the docs use these words and no others.  LANDED: an attack
 * did its damage, in the unsafe path's throwaway copy.  BYPASSED: a weak
 * filter admitted code it should have refused, whatever happened next.
 * INSIDE: the code did damage inside the jail's own copy; the host is
 * untouched.  Its colour is the screen's class for it (enum
 * verdict_colour).  A refusal's word names the layer that refused, "by"
 * its refuser (LAYERS): "BLOCKED by the command allowlist: ...".
 */
#define VERDICTS(X)							\
	X(OK,        "ok",        "ok",        OK,        false)	\
	X(BLOCKED,   "blocked",   "BLOCKED",   BLOCKED,   true)	\
	X(ERROR,     "error",     "error",     ERROR,     false)	\
	X(LANDED,    "landed",    "LANDED",    DAMAGE,    false)	\
	X(CONTAINED, "contained", "CONTAINED", CONTAINED, true)	\
	X(BYPASSED,  "bypassed",  "BYPASSED",  DAMAGE,    false)	\
	X(INSIDE,    "inside",    "INSIDE",    INSIDE,    false)

/* The colours a screen shows verdicts in: harm done (LANDED, BYPASSED)
 * is one. */
#define VERDICT_COLOURS(X)			\
	X(OK) X(BLOCKED) X(ERROR) X(DAMAGE) X(CONTAINED) X(INSIDE)

/*
 * The layers an input passes, in the order it meets them: X(enum suffix,
 * name in records, its name as a refusal's word gives it, or NULL where
 * the reason names it itself: "budget exhausted ...", "host ... is not
 * reachable (no network)").  The allowlist layer is the policy's filter
 * ("the allowlist", "the dunder filter"), named by the policy.
 */
#define LAYERS(X)						\
	X(PARSE,       "parse",       NULL)			\
	X(ALLOWLIST,   "allowlist",   NULL)			\
	X(COMMANDS,    "commands",    "the command allowlist")	\
	X(BUDGET,      "budget",      NULL)			\
	X(SURFACE,     "surface",     NULL)			\
	X(NETWORK,     "network",     NULL)			\
	X(IDEMPOTENCY, "idempotency", NULL)			\
	X(LIMITS,      "limits",      NULL)			\
	X(EVAL,        "eval",        NULL)			\
	X(NAMESPACE,   "namespace",   "the namespaces")		\
	X(LANDLOCK,    "landlock",    "Landlock")		\
	X(SECCOMP,     "seccomp",     "seccomp")		\
	X(RLIMIT,      "rlimit",      "an rlimit")		\
	X(TIMEOUT,     "timeout",     "the timeout")		\
	X(GVISOR,      "gvisor",      "gVisor")			\
	X(MICROVM,     "microvm",     "the microVM")

#define KINDS(X)				\
	X(CODE,    "code")			\
	X(COMMAND, "command")

#define X_ENUM(e, name) PATH_##e,
enum path_id { PATHS(X_ENUM) PATH__COUNT };
#undef X_ENUM
#define X_ENUM(e, name, word, colour, refusal) VERDICT_##e,
enum verdict { VERDICTS(X_ENUM) VERDICT__COUNT };
#undef X_ENUM
#define X_ENUM(c) VERDICT_COLOUR_##c,
enum verdict_colour { VERDICT_COLOURS(X_ENUM) VERDICT_COLOUR__COUNT };
#undef X_ENUM
#define X_ENUM(e, name, refuser) LAYER_##e,
enum layer { LAYERS(X_ENUM) LAYER__COUNT };
#undef X_ENUM
#define X_ENUM(e, name) KIND_##e,
enum input_kind { KINDS(X_ENUM) KIND__COUNT };
#undef X_ENUM

const char *record_path_name(enum path_id p);
const char *record_verdict_name(enum verdict v);
/* The verdict's word on screen: "LANDED", "BLOCKED", "ok". */
const char *record_verdict_word(enum verdict v);
/* The colour a screen shows it in. */
enum verdict_colour record_verdict_colour(enum verdict v);
/* Is it a refusal, its word followed by who refused ("BLOCKED by ...")? */
bool record_verdict_is_refusal(enum verdict v);
/* The layer as a refusal names it ("seccomp", "the command allowlist"),
 * or NULL: the allowlist (the policy names its filter), or a layer whose
 * reason says it. */
const char *record_layer_refuser(enum layer l);
const char *record_layer_name(enum layer l);
/* The layer that decided r, as a screen names it: its name, except the
 * allowlist layer under a weak policy, named for its filter ("dunder
 * filter", "blocklist"). */
const char *record_layer_word(const struct record *r);
const char *record_kind_name(enum input_kind k);
/* Parse a path name or alias ("jail:ns" is "jail"); false when unknown
 * (paths.c, from the path table). */
bool record_path_parse(const char *name, size_t len, enum path_id *out);
/* A path whose code runs behind a kernel: its row's kind's guard. */
bool record_path_is_jail(enum path_id p);

/* One effect of a step: what the input did (or tried) to a surface. */
struct effect {
	const char	*op;		/* "read" "write" "delete" "exec" "send" ... */
	const char	*target;	/* file name, command line, URL */
	bool		 simulated;	/* happened on a mock, not for real */
	bool		 denied;	/* the boundary refused it */
	const char	*category;	/* "damage" "exfiltration"
					   "disclosure" "process" "resource
					   exhaustion", or NULL when the
					   effect is harmless (effect.h) */
	const char	*text;		/* how the trace tells it */
	const char	*source;	/* where a world's effect was seen:
					   "audit" (CPython's audit hook),
					   "workspace" (its difference),
					   "output", "world"; NULL: the model */
};

/* A file of the path after the step, as the files pane shows it. */
struct record_file {
	const char	*name;		/* "loot/" is a directory (mockfs.h) */
	unsigned	 mode;		/* st_mode: its type and permission
					   bits */
	bool		 unreadable;	/* a world could not read it */
	size_t		 size;		/* its contents' bytes */
	const unsigned char *digest;	/* their SHA-256 (32 bytes), so that a
					   consumer tells a changed file from
					   one it saw before without keeping
					   contents; NULL unless the session
					   reports panes (session.h) */
};

/* One line of the input's syntax tree, as the AST pane draws it. */
struct record_treeline {
	const char	*text;		/* indented, "value: Call" and the
					   node's scalar fields (ast.h's tree
					   dump, without spans) */
	const char	*kind;		/* its node's ast name, as node_type
					   names it, or NULL: a line of no
					   node (an absent item, a marker) */
	uint32_t	 start, end;	/* its node's byte span */
};

/* The input's syntax tree, or why it did not parse.  One per input: all
 * of its records point to the same one. */
struct record_tree {
	const struct record_treeline *rows;	/* when it parsed: its
						   lines, in order */
	size_t		 nrows;
	const char	*error_class;	/* when it did not ("SyntaxError"),
					   else NULL */
	const char	*error_message;
	uint32_t	 error_start;	/* the byte span the error points */
	uint32_t	 error_end;	/*   at (may be empty: at the end) */
};

/* What the code and the programs it ran wrote, as a terminal shows it:
 * in the order written, each piece with its stream. */
struct record_chunk {
	const char	*stream;	/* "stdout" or "stderr" */
	const char	*text;		/* len bytes */
	size_t		 len;
};

struct record {
	unsigned	 step;		/* 1-based input number */
	enum path_id	 path;
	const char	*input;		/* the input as typed */
	enum input_kind	 kind;
	enum verdict	 verdict;
	enum layer	 layer;		/* the layer that decided */
	const char	*rule;		/* the rule that decided, or NULL */
	const char	*reason;	/* why, or NULL when ok: the sentence a
					   student reads aloud, after
					   "BLOCKED by the allowlist: " */
	bool		 has_node;	/* the offending node: */
	const char	*node_type;	/*   its ast name */
	uint32_t	 node_start;	/*   its byte span */
	uint32_t	 node_end;
	const char	*result;	/* repr of the value, or NULL */
	const struct record_chunk *output;	/* what was written, in
					   order (the JSON "output": a list of
					   {"stream","text"}), capped: the
					   record's truncated says so */
	size_t		 noutput;
	struct effect	*effects;
	size_t		 neffects;
	const struct record_file *fs;	/* the path's files after the
					   step, sorted by name (the JSON
					   form lists their names) */
	size_t		 nfs;
	const char	*truncated;	/* what the record leaves out (files
					   the jail's read-back did not bring,
					   effects past a cap), or NULL */
	bool		 fs_partial;	/* fs is not all the path holds */
	unsigned	 budget_used;
	unsigned	 budget_limit;	/* 0 on paths without a budget */
	const char	*label;		/* "sandboxed code" */
	const char	*shown;		/* repr of the code, or the command */
	const char	*outcome;	/* what follows "->" */
	const char	*essay_outcome;	/* the outcome in the essay's words
					   ("BLOCKED: disallowed function
					   call"), for a scenario's "wording
					   essay", or NULL: the same */
	const char	*line;		/* LABEL: SHOWN -> OUTCOME */
	size_t		 line_len;	/* its strlen */
	const char	*source;	/* "user", "scenario", "agent" */
	const char	*engine;	/* what ran the code: "cpython" or
					   "model" (world.h) */
	const char	*boundary;	/* the boundary in force: its kind's
					   name, and how it runs where that
					   varies ("microvm (kvm)"); NULL on
					   a record of no path's */
	const char	*filter;	/* the code filter the allowlist layer
					   is on screen: "dunder filter",
					   "blocklist" under the weak policies
					   (policy.h); NULL: "allowlist".  Not
					   in the JSON form, whose "layer"
					   stays "allowlist" (its reason names
					   the filter) */
	const struct record_tree *tree;	/* the input's tree, or NULL unless
					   the session reports panes; not in
					   the JSON form */
};

/*
 * The trace line, "LABEL: SHOWN -> OUTCOME": label, shown and outcome are
 * replaced by their escaped forms (textesc.h: no control character, no
 * newline, whoever wrote the text), then joined into r->line.  Every
 * trace line is made here.  Strings in a.
 */
void record_set_line(struct record *r, struct arena *a);
/* The same when r->shown is already escaped text (textesc_repr_in's:
 * escaping it again would give the same bytes). */
void record_set_line_shown(struct record *r, struct arena *a);

/* What happened, in one sentence, after the verdict's word: the reason
 * for a refusal, the answer for work that passed, the harm done (its
 * effects) for damage ("in a throwaway copy: report.txt deleted", "the
 * jail's copy: deleted secrets.txt; the host is untouched").  The
 * presenter's rows, :summary and the handout say it.  A string in a (or
 * one of the record's). */
const char *record_happened(struct arena *a, const struct record *r);

/* Append the record as one JSON object (no newline). */
void record_json(const struct record *r, struct sbuf *out);
/* Write the record to f as one JSON object (no newline), streamed: the
 * text is never held whole.  0, or -1 when the object could not be
 * made or written. */
int record_json_write(const struct record *r, FILE *f);
/* The same object as a jansson value (new reference; caller decrefs),
 * for callers that put records inside a larger JSON document. */
struct json_t;
struct json_t *record_to_json(const struct record *r);

#endif
