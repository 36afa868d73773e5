/*
 * scenario.h -- scenario files (.scn): a scripted session.
 *
 * A scenario is read whole into a list of steps, so that batch mode can run
 * it straight through and the UI's presenter mode can run it one step per
 * key press.  The format, one directive per line:
 *
 *   # a comment                 (blank lines are ignored too; the
 *                               comment lines directly above a step
 *                               are its caption, for the presenter)
 *   title TEXT                  the scenario's title, and
 *   question TEXT               the question it opens with: the
 *                               presenter's step 0 (the welcome) shows
 *                               them; several question lines are joined
 *                               by spaces; batch mode prints neither
 *   file NAME: TEXT             seed a file on every path (\n, \t, \\ escapes)
 *   let NAME = EXPR             seed a name on every path
 *   reset [essay]               back to an empty state (no files, no names),
 *                               or to the essay's first state
 *   policies NAME...            from here on, run each sandbox step once per
 *                               listed policy (labels get " [NAME]");
 *                               "policies" alone ends that
 *   policy NAME                 switch the sandbox policy
 *   wording essay|full          from here on, trace lines of refusals say
 *                               the essay's words ("BLOCKED: disallowed
 *                               function call"), or the full sentence
 *                               (the default: "BLOCKED by the allowlist:
 *                               __import__ is not one of sum, len, ...");
 *                               records keep the full sentence in reason
 *   budget N                    set the sandbox budget
 *   echo TEXT                   print TEXT as it is
 *   ls PATH LABEL [| NOTE]      print "LABEL: [files]" (+ "  NOTE")
 *   PATHS LABEL: INPUT          run INPUT on PATHS, print "LABEL: ... -> ..."
 *   PATHS: INPUT                the same with the automatic label
 *
 * PATHS is a path name (unsafe, sandbox, jail), several joined by commas,
 * or "all" (the session's paths).  The label ends at the first ": ".
 */
#ifndef SANDBOXREPL_SCENARIO_H
#define SANDBOXREPL_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct session;
struct sbuf;

#define SCENARIO_STEPS(X)	\
	X(FILE,   "file")	\
	X(LET,    "let")	\
	X(RESET,  "reset")	\
	X(POLICIES, "policies")	\
	X(POLICY, "policy")	\
	X(WORDING, "wording")	\
	X(BUDGET, "budget")	\
	X(ECHO,   "echo")	\
	X(LS,     "ls")		\
	X(RUN,    "run")

#define X_ENUM(e, name) SCN_##e,
enum scn_kind { SCENARIO_STEPS(X_ENUM) SCN__COUNT };
#undef X_ENUM

struct scn_step {
	enum scn_kind	 kind;
	unsigned	 lineno;
	unsigned	 paths;		/* RUN, LS: PATH_BIT()s; 0 = all */
	char		*label;		/* RUN (NULL: automatic), LS */
	char		*arg;		/* input, text, expression, name */
	size_t		 arglen;
	char		*name;		/* FILE, LET */
	char		*note;		/* LS */
	char		*policies;	/* RUN: space-separated, or NULL */
	char		*caption;	/* the '#' comment lines directly
					   above the step, without their
					   '#', joined by spaces (at most
					   SCN_MAX_CAPTION bytes), or NULL */
	bool		 essay_wording;	/* RUN: under "wording essay" */
};

#define SCN_MAX_CAPTION 2000

struct scenario {
	struct scn_step	*steps;
	size_t		 n;
	char		*name;		/* for messages */
	char		*title;		/* "title" line, or NULL */
	char		*question;	/* "question" lines, or NULL */
};

/*
 * Parse text into *out (heap; scenario_free).  On a bad line returns false
 * and *err (heap) reads "NAME:LINE: what is wrong".
 */
bool scenario_parse(const char *name, const char *text, size_t len,
    struct scenario *out, char **err);
/* Read and parse a file ("-" is stdin).  A bare name ("essay", no '/')
 * that is no file here is an installed scenario, NAME.scn or NAME, from
 * $(datadir)/sandboxrepl/scenarios. */
bool scenario_load(const char *path, struct scenario *out, char **err);
void scenario_free(struct scenario *sc);

/* How one executed step is reported. */
struct scn_output {
	/* RUN: the records (in the arena); ECHO, LS: a text line */
	struct record	*records;
	size_t		 nrecords;
	const char	*text;		/* ECHO, LS, or an error; NULL otherwise */
	const char	**fs;		/* LS: the listing */
	size_t		 nfs;
	bool		 failed;	/* a set-up step failed (text says why) */
};

/* Execute one step against the session; output lives in a. */
void scenario_exec(struct session *s, const struct scn_step *st,
    struct arena *a, struct scn_output *out);

#endif
