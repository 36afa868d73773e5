/*
 * trace.h -- the words of a record's outcome and its trace line (trace.c).
 */
#ifndef SANDBOXREPL_TRACE_H
#define SANDBOXREPL_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "paths.h"
#include "record.h"

/* A decided step, as its trace line tells it.  Borrowed. */
struct trace_step {
	struct record		*r;	/* decided: verdict, layer, rule,
					   reason, result, effects, label */
	struct arena		*a;	/* the records' arena */
	enum path_id		 path;
	const char		*input;	/* the input as typed */
	size_t			 len;
	bool			 is_command;
	/* what the step did, as its evaluator or world reported it */
	const struct effect	*effects;
	size_t			 neffects;
	const char		*filter;	/* policy_filter_name() */
	const struct boundary_row *kind;	/* the path's boundary now
						   (paths.h): its words */
	bool			 world;		/* ran in a CPython world */
	bool			 restarted;	/* its world had died */
	bool			 resumed;	/* --state: names not restored */
	const char		*raised_after;	/* an exception after harm */
	const char		*essay;		/* the rule in the essay's
						   words, or NULL */
};

/*
 * Does the step land: an ok on the unsafe path whose effects did harm
 * (more than running a program)?  The session makes its verdict LANDED
 * before it renders it; trace_render decides no verdict.
 */
bool trace_lands(const struct trace_step *st);

/*
 * Say the record's outcome: set r->outcome, r->shown, r->essay_outcome
 * and its trace line (record_set_line), in st->a, and the reason of
 * harm done or let through (LANDED, INSIDE, BYPASSED): its words.  The
 * verdict it does not change.
 */
void trace_render(const struct trace_step *st);

#endif
