/*
 * cpython_int.h -- what the pieces of a CPython world's session side
 * share (world_cpython_ops), and nobody else needs:
 *
 *   cpython.c          the world's life: build, run an input, settle,
 *                      kill; the reply's outcome
 *   cpython_reply.c    the wire: requests written, the reply read (every
 *                      frame checked), live output pumped while another
 *                      world's reply is read
 *   cpython_effects.c  the reply as effects: audit events, the fake
 *                      internet's captures, the workspace's difference,
 *                      the output, what a boundary refused
 */
#ifndef SANDBOXREPL_WORLD_CPYTHON_INT_H
#define SANDBOXREPL_WORLD_CPYTHON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fakenet.h"
#include "wire.h"
#include "world.h"
#include "world_int.h"

struct arena;
struct mfs;
struct data_form;

#define BUILD_MS	10000	/* set-up, valgrind included */
#define INTERRUPT_GRACE_MS 1000	/* Ctrl-C to the world's kill */
#define SETUP_MS	10000

struct cpy {
	int		 sock;		/* -1: no world now */
	int		 pidfd;
	unsigned	 wall_ms;
	int		 fail_at;
	int		 kind;		/* enum world_kind */
	uint64_t	 mem;		/* its budget (world_memory) */
	struct mfs	*files;		/* the workspace as last seen */
	char		**env;
	size_t		 nenv;
	char		*setup;
	bool		 died;		/* the last world died: restart */
	char		**names;	/* __main__'s names after the last input */
	size_t		 nnames;
	char		**lits;		/* name, repr, name, repr...: those
					   bound to plain data (wire.h's L) */
	size_t		 nlits;		/* pairs */
	uint64_t	 nonce;		/* of the input in flight */
	/* An input started (cpy_start) and not read yet (cpy_run). */
	bool		 inflight;
	bool		 running;	/* cpy_run is reading its reply */
	bool		 interrupted;	/* Ctrl-C was passed on to it */
	bool		 restarted;	/* its world was rebuilt to run it */
	double		 started_ms;	/* its wall clock's start */
	enum world_status start_status;	/* OK, or what sending it met */
	const char	*start_error;	/* (in the input's arena) */
	/* Where its live output goes while it runs (world_input.live). */
	void		(*live)(void *ctx, const char *stream,
			    const char *text, size_t len);
	void		*live_ctx;
	size_t		 live_bytes;	/* told this input */
	/* Its live frames taken while another world's reply was read
	 * (pump_one): a frame begun, or the first header of its reply,
	 * held for read_reply. */
	struct pump {
		char	 head[WIRE_HEADER];
		size_t	 nhead;		/* of head read */
		size_t	 hoff;		/* of a held head, given back */
		bool	 held;		/* head is the reply's, not live */
		uint32_t len;		/* a live frame's payload */
		size_t	 got;
		char	 buf[WW_MAX_LIVE + 1];
	} pump;
	struct fakenet	 net;		/* the reader of its captures */
	/* The zygote's world: its warden (0: none); and the one to name as
	 * done in its request (world_renew: the world it replaces), or 0. */
	pid_t		 warden;
	pid_t		 done;
	/* The world this one replaced (world_renew), which the zygote kills
	 * a moment after: the session's ends of it, closed -- and it killed
	 * again, by its pidfd, in case the zygote did not -- when this one
	 * is killed or freed (none: pidfd -1). */
	struct {
		int		 pidfd, sock;
		struct fakenet	 net;
	} grave;
	/* An outside kind's launcher (gVisor's, the microVM's) and the
	 * state of its program, or NULL: the zygote's world. */
	const struct world_launcher *launch;
	void		*outside;
	/* Its boot started ahead (cpy_prestart): when, or 0; and why that
	 * start failed (heap), for the build to say, or NULL. */
	double		 booted_at;
	char		*boot_err;
	/* Connections already told, with the bytes they had then: one
	 * left open is sent again as a snapshot after every input. */
	struct { uint32_t conn; uint64_t bytes; } told[64];
	size_t		 ntold;
	/* Whether its world was spawned and seeded ahead of its build
	 * (cpython.c: world_renew). */
	bool		 ahead;
	/* Frames not sent yet: while corked (cpy_cork), gathered to go in
	 * one write. */
	struct {
		char	*p;
		size_t	 len, cap;
		bool	 corked;
	} out;
};

/* A reply as read, before it becomes effects. */
struct raw_event {
	const char	*name;
	const char	*args[6];
	size_t		 arglen[6];
	size_t		 nargs;
};

struct raw {
	bool		 has_status, has_end;
	uint32_t	 status;
	const char	*result, *message, *error, *output;
	const char	*names;		/* NUL-separated, names_len bytes */
	size_t		 names_len;
	bool		 has_names;
	const char	*lits;		/* the L frame, lits_len bytes */
	size_t		 lits_len;
	bool		 has_lits;
	size_t		 output_len;
	uint32_t	 tail_kind;	/* the output's last tail bytes of
					   text are what the prompt wrote
					   (wire.h's e) */
	uint32_t	 tail;
	struct raw_event events[WW_MAX_EVENTS];
	size_t		 nevents;
	uint32_t	 dropped;
	struct mfs	*files;
	bool		 truncated;	/* the caps left entries out: */
	uint32_t	 left;		/* how many */
	const char	*unsent;	/* the first of their paths, each
					   NUL-terminated */
	size_t		 unsent_len;
	uint64_t	 cut[WW_CUT__COUNT];	/* what a cap cut held */
	enum jail_step	 refused_step;
	int		 refused_err;
	const char	*refused_detail;
	bool		 ready;
	bool		 ended;		/* K: the interpreter is gone */
	int		 wstatus;	/* its wait status, then */
};

/* raw.status when the interpreter ended during the input (not sent). */
#define RAW_ENDED	100u

/* LOST: the stream ended; BAD: it broke the protocol. */
enum read_end { READ_OK, READ_TIMEOUT, READ_LOST, READ_BAD };

/* The effects of one reply, as they are gathered (cpython_effects.c). */
struct effects {
	struct arena		*a;
	struct world_effect	*v;
	size_t			 n, cap;
	const char		*source;	/* of the effects added now */
	bool			 captured;	/* the sink saw a connection */
	struct cpy		*c;		/* on_capture's world */
	struct data_form	*forms;		/* made at the first DNS question */
	size_t			 nforms;
	bool			 has_forms;
};

/* cpython.c */
/* Kill c's world (its warden, through the pidfd), if it has one. */
void cpy_kill_world(struct cpy *c);

/* cpython_reply.c */
/* Ctrl-C: tell c's world once, and bring *deadline to the grace's end. */
void cpy_interrupt_world(struct cpy *c, double *deadline);
/* c's live frames are taken while other worlds' replies are read (add,
 * once its input is sent), and no more (drop); finish reads a live frame
 * begun before c's own reply is read. */
void cpy_pump_add(struct cpy *c);
void cpy_pump_drop(struct cpy *c);
enum read_end cpy_pump_finish(struct cpy *c, double *deadline);
/* Read frames until the reply ends (E, or Y/R after a build); every
 * type and length is checked before the payload is read. */
enum read_end cpy_read_reply(struct cpy *c, double deadline, struct arena *a,
    struct raw *r);
void cpy_raw_free(struct raw *r);
/* One frame to the world, without SIGPIPE; an input frame with a fresh
 * nonce.  false when the world is gone. */
bool cpy_send_frame(struct cpy *c, enum ww_type type, const void *a,
    size_t alen, const void *b, size_t blen);
bool cpy_send_input(struct cpy *c, char flags, const char *src, size_t len);
/* Frames sent after cork go in one write at uncork (false when the
 * world is gone): the world is woken once for a request of several, not
 * once a frame; free_out frees what the gathering kept. */
void cpy_cork(struct cpy *c);
bool cpy_uncork(struct cpy *c);
void cpy_free_out(struct cpy *c);

/* cpython_effects.c */
/* Add an effect from e's current source. */
void cpy_effect(struct effects *e, const char *op, const char *target,
    const char *category, const char *text);
/* What the reply r of input in did, into e and out: the fake internet's
 * captures and the audit events, what a boundary refused, __main__'s
 * names, the workspace (c->files becomes r's) and the output. */
void cpy_reply_effects(struct cpy *c, const struct world_input *in,
    struct raw *r, struct effects *e, struct world_reply *out);
/* A limit that stopped the input, said in words (after its status). */
void cpy_reply_limits(const struct cpy *c, const struct raw *r,
    const struct effects *e, struct world_reply *out);
void cpy_free_names(struct cpy *c);

#endif
