/*
 * doctor.h -- what this machine allows, and what sandboxrepl will do with
 * it (`sandboxrepl --doctor`).
 *
 * doctor_run() checks, one result each, what every path depends on: user
 * namespaces (the sysctls that switch them off, AppArmor's restriction of
 * unprivileged ones, and a real unshare in a child), Landlock's ABI,
 * seccomp, the memory cgroup jails get (as jail.c finds it), the embedded
 * CPython and whether its worlds build, runsc and whether it starts, and
 * /dev/kvm.  Then it says, per path, which engine will run it and why
 * not the one asked for.  A failed check carries the fix a user can
 * apply.  The checks build one world of each kind and run one kernel
 * jail: they are the program's own mechanisms, not a model of them.
 *
 * Errors are values: every check fills its result; nothing here prints
 * or exits.  The report owns its strings (doctor_free).
 */
#ifndef SANDBOXREPL_DOCTOR_H
#define SANDBOXREPL_DOCTOR_H

#include <stdbool.h>
#include <stdio.h>

#include "record/record.h"
#include "world/world.h"

/* X(enum suffix, name) -- in the order they are checked and printed. */
#define DOCTOR_CHECKS(X)			\
	X(USERNS,   "user namespaces")		\
	X(LANDLOCK, "landlock")			\
	X(SECCOMP,  "seccomp")			\
	X(CGROUP,   "memory cgroup")		\
	X(CPYTHON,  "cpython")			\
	X(GVISOR,   "gvisor")			\
	X(QEMU,     "qemu")			\
	X(KVM,      "kvm")

#define X_ENUM(e, name) DOCTOR_##e,
enum doctor_check_id { DOCTOR_CHECKS(X_ENUM) DOCTOR__COUNT };
#undef X_ENUM

/* X(enum suffix, word printed) */
#define DOCTOR_STATES(X)			\
	X(OK,      "ok")	/* there and working */		\
	X(MISSING, "missing")	/* a path needs it, and it is not */ \
	X(NOTE,    "note")	/* not there, and nothing asked needs it */

#define X_ENUM(e, word) DOCTOR_STATE_##e,
enum doctor_state { DOCTOR_STATES(X_ENUM) DOCTOR_STATE__COUNT };
#undef X_ENUM

struct doctor_check {
	enum doctor_state state;
	char	*text;		/* what was found, one line */
	char	*reason;	/* MISSING/NOTE: why, short, for a path's line
				   ("user namespaces are off"), or NULL */
	char	*fix;		/* what a user can do, or NULL */
};

struct doctor_path {
	bool	 asked;		/* counted for the exit status */
	bool	 runs;		/* it runs at all */
	bool	 as_asked;	/* with the engine asked for */
	enum world_engine engine;
	char	*text;		/* "cpython in a replica world", ... */
	char	*bounds;	/* what bounds its memory and CPU here
				   ("memory by cgroup v1 ..."), or NULL
				   when it cannot run */
};

struct doctor_opts {
	enum world_engine engine;	/* asked for (--engine; cpython) */
	unsigned	 paths;		/* PATH_BIT()s counted; 0: all */
};

struct doctor_report {
	struct doctor_check checks[DOCTOR__COUNT];
	struct doctor_path paths[PATH__COUNT];
	bool	 ok;		/* every asked path runs as asked */
};

/* Run every check (forks, builds worlds, runs a jail; about a second). */
void doctor_run(const struct doctor_opts *o, struct doctor_report *r);
void doctor_free(struct doctor_report *r);

/* The report as lines (text) or one JSON object and a newline.  0, or
 * -1 on a write error. */
int doctor_print(const struct doctor_report *r, FILE *f);
int doctor_print_json(const struct doctor_report *r, FILE *f);

#endif
