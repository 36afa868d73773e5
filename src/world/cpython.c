/*
 * cpython.c -- the session's side of a CPython world (world_cpython_ops).
 *
 * build asks the zygote for a world (zygote.c), waits for its "ready" or
 * its refusal, then sends the set-up: the path's files, the environment
 * and the teacher's names.  run_input sends one input and reads the reply
 * against a wall clock: past it, the world is killed (its warden, through
 * a pidfd: PID 1 and its pid namespace die with it) and the next input
 * gets a fresh one, as a notebook restarts its kernel.  A world that died
 * any other way is rebuilt the same way; the reply says restarted.
 *
 * Everything read from a world is hostile: frames are read one at a time,
 * each type and length checked against the caps of wire.h before its
 * payload is read, a workspace entry's path must be relative and flat in
 * each part, below its directory, after the reply's status, the total is
 * bounded, and a reply that breaks any rule ends the world.  The reply
 * becomes effects: audit events that matter (a program run, a request
 * sent, a connection, native code), then the workspace's difference from
 * before the input (entries deleted, moved, overwritten, made unreadable,
 * created), then what the code printed.  What a cap left out becomes the
 * reply's truncated, never silence.  The workspace as last seen (the
 * session's copy) is bounded by what the world's workspace can hold and
 * what the session's memory cap leaves, and keeps no entry the world
 * may no longer have (struct keep).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/clock.h"
#include "cpython_int.h"
#include "fakenet.h"
#include "jail/jail.h"
#include "jail/jail_int.h"
#include "fs/mockfs.h"
#include "base/sbuf.h"
#include "wire.h"
#include "world.h"
#include "world_int.h"
#include "base/xalloc.h"
#include "jail/jail_sys.h"

/* How long a launcher's program may take to end once it closed the wire. */
#define LAUNCH_END_MS	5000


/* How the interpreter ended, from its wait status: "exited with status
 * 2", "was killed by SIGSEGV". */
static const char *
ended_how(struct arena *a, int ws)
{
	const char *abbrev;

	if (WIFEXITED(ws))
		return arena_printf(a, "exited with status %d",
		    WEXITSTATUS(ws));
	if (WIFSIGNALED(ws)) {
		abbrev = sigabbrev_np(WTERMSIG(ws));
		return abbrev != NULL ? arena_printf(a, "was killed by SIG%s",
		    abbrev) : arena_printf(a, "was killed by signal %d",
		    WTERMSIG(ws));
	}
	return "ended";
}

/* A zygote's world's ends in the session, closed: its captures' reader,
 * and it killed by its pidfd, its socket closed. */
static void
ends_close(struct fakenet *net, int *pidfd, int *sock)
{
	fakenet_down(net);	/* closes the capture pipes */
	memset(net, 0, sizeof *net);
	net->fd = net->ctl = -1;
	if (*pidfd >= 0) {
		(void)syscall(__NR_pidfd_send_signal, *pidfd, SIGKILL, NULL,
		    0);
		close(*pidfd);
	}
	if (*sock >= 0)
		close(*sock);
	*pidfd = *sock = -1;
}

/* The world c replaced (cpy_renew), dead by now: its ends closed, and
 * it killed in case the zygote did not. */
static void
grave_flush(struct cpy *c)
{
	if (c->grave.pidfd < 0)
		return;		/* (none) */
	ends_close(&c->grave.net, &c->grave.pidfd, &c->grave.sock);
	janitor_world_ended();	/* (its cgroup, once it is empty) */
}

void
cpy_kill_world(struct cpy *c)
{
	bool had = c->pidfd >= 0 || c->sock >= 0 || c->outside != NULL;

	grave_flush(c);
	c->warden = 0;
	c->ntold = 0;
	ends_close(&c->net, &c->pidfd, &c->sock);
	if (c->outside != NULL)	/* (its program is not the zygote's child) */
		c->launch->reap(c->outside);
	c->outside = NULL;
	if (had)
		janitor_world_ended();	/* (its cgroup, once it is empty) */
}

/* Start an outside kind's world (its launcher's program) and return:
 * c->sock and c->outside, or c->boot_err saying why not. */
static void
launch(struct cpy *c)
{
	char why[512] = "";
	int sv[2];

	c->booted_at = clock_ms();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		c->boot_err = xasprintf("socketpair: %s", strerror(errno));
		return;
	}
	c->outside = c->launch->spawn(sv[1], c->fail_at, c->mem, &c->pidfd,
	    why, sizeof why);
	close(sv[1]);
	if (c->outside == NULL) {
		c->boot_err = xasprintf("%s could not start: %s",
		    c->launch->name, why);
		close(sv[0]);
		return;
	}
	c->sock = sv[0];
}

/*
 * Its program closed the wire: it is ending, and what it or its guest
 * last said is whole only once it has ended.  Wait for that on the pidfd
 * (without reaping: the launcher's reap does), a few seconds at most.
 */
static void
launch_wait_end(const struct cpy *c)
{
	struct pollfd p = { .fd = c->pidfd, .events = POLLIN };
	double until = clock_ms() + LAUNCH_END_MS;
	int left;

	if (c->pidfd < 0)
		return;
	while ((left = (int)(until - clock_ms())) > 0 &&
	    poll(&p, 1, left) == -1 && errno == EINTR)
		;
}

/* Ask the zygote for a world and wait until it is ready. */
static bool
spawn(struct cpy *c, struct arena *a, char **err)
{
	struct raw r;
	int sock, cap_rd, ctl_wr;
	pid_t pid;
	enum read_end end;

	/* what the world leaves on disk goes, however the session ends */
	(void)janitor_start();
	if (c->launch != NULL) {
		/* runsc or QEMU, not the zygote, starts it: now, or it was
		 * started ahead (cpy_prestart), its set-up's clock running
		 * since then */
		if (c->outside == NULL && c->boot_err == NULL)
			launch(c);
		if (c->boot_err != NULL) {
			*err = c->boot_err;
			c->boot_err = NULL;
			c->booted_at = 0;
			return false;
		}
		goto ready;
	}
	/* the world's socket, and the fake internet's capture and sync
	 * pipes, whose other ends only the world's sink holds: the zygote
	 * makes them with the world (which it may have built already) */
	if (zygote_spawn(c->fail_at, c->kind, c->mem, c->done, &sock, &cap_rd,
	    &ctl_wr, &c->pidfd, &pid) == -1) {
		const char *why = zygote_failure();
		*err = xasprintf("the zygote could not start a world: %s%s%s",
		    strerror(errno), *why ? ": " : "", why);
		return false;
	}
	fakenet_attach(&c->net, cap_rd, ctl_wr);
	c->sock = sock;
	c->warden = pid;
ready:
	end = cpy_read_reply(c, (c->booted_at > 0 ? c->booted_at :
	    clock_ms()) + (c->launch != NULL && c->launch->build_ms != NULL ?
	    c->launch->build_ms() : BUILD_MS), a, &r);
	c->booted_at = 0;
	cpy_raw_free(&r);
	if (end == READ_OK && r.ready)
		return true;
	if (end == READ_OK && r.refused_err != 0)
		*err = xasprintf("world set-up failed at %s%s%s: %s",
		    world_step_name(r.refused_step),
		    r.refused_detail[0] ? ": " : "", r.refused_detail,
		    strerror(r.refused_err));
	else if (c->launch != NULL) {
		/* what its program said, once it has said it all */
		char why[512];

		if (end == READ_LOST)
			launch_wait_end(c);
		c->launch->failure(c->outside, why, sizeof why);
		*err = xasprintf("%s %s during set-up%s%s%s%s",
		    c->launch->sandbox, end == READ_TIMEOUT ?
		    "did not answer" : "ended", why[0] ? ": " : "",
		    why[0] ? c->launch->says : "", why[0] ? ": " : "", why);
	} else
		*err = xasprintf("the world %s during set-up",
		    end == READ_TIMEOUT ? "did not answer" : "ended");
	cpy_kill_world(c);
	return false;
}

/* What every replica's processes see, before the scenario's own. */
static const char *const base_env[] = {
	"HOME=" WORLD_HOME, "USER=agent", "LOGNAME=agent", "SHELL=/bin/sh",
	"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
	"PWD=" WORLD_WORKSPACE,
};

/* Spawn, then send the seed: files, environment and names, in one
 * write; the world's answer is read by start_finish. */
static bool
start_send(struct cpy *c, char **err)
{
	struct arena *a = arena_new();
	size_t i, n;
	char flags = WW_SETUP;
	bool ok = false;

	*err = NULL;
	if (!spawn(c, a, err))
		goto out;
	/* The files, environment and names in one write: the world reads
	 * them all at once instead of waking for each frame. */
	cpy_cork(c);
	n = mfs_count(c->files);
	for (i = 0; i < n; i++) {
		/* (wire.h: a directory's path without its '/') */
		const char *name = mfs_name(c->files, i), *data;
		uint32_t namelen = (uint32_t)strlen(name);
		uint32_t mode = mfs_mode(c->files, i);
		char head[8 + WW_MAX_PATH];
		size_t len;

		if (mfs_is_dir_name(name))
			namelen--;
		if (!ww_path_ok(name, namelen))
			continue;
		data = mfs_get(c->files, name, &len);
		memcpy(head, &namelen, 4);
		memcpy(head + 4, &mode, 4);
		memcpy(head + 8, name, namelen);
		if (!cpy_send_frame(c, WW_PUT, head, 8 + namelen, data, len))
			goto lost;
	}
	if (!cpy_send_frame(c, WW_ENV, NULL, 0, NULL, 0))
		goto lost;
	for (i = 0; i < sizeof base_env / sizeof base_env[0]; i++)
		if (!cpy_send_frame(c, WW_ENV, base_env[i], strlen(base_env[i]),
		    NULL, 0))
			goto lost;
	for (i = 0; i < c->nenv; i++)
		if (!cpy_send_frame(c, WW_ENV, c->env[i], strlen(c->env[i]),
		    NULL, 0))
			goto lost;
	if (!cpy_send_input(c, flags, c->setup ? c->setup : "",
	    c->setup ? strlen(c->setup) : 0) || !cpy_uncork(c))
		goto lost;
	ok = true;
	goto out;
lost:
	c->out.len = 0;		/* (what is left of it goes nowhere) */
	c->out.corked = false;
	*err = xasprintf("the world ended during set-up");
	cpy_kill_world(c);
out:
	arena_free(a);
	return ok;
}

/* The seed's answer: the reply's files are the workspace as the first
 * input will see it. */
static bool
start_finish(struct cpy *c, char **err)
{
	struct arena *a = arena_new();
	struct raw r;
	bool ok = false;
	enum read_end end;

	*err = NULL;
	end = cpy_read_reply(c, clock_ms() + SETUP_MS, a, &r);
	if (end != READ_OK || !r.has_end) {
		cpy_raw_free(&r);
		*err = xasprintf("the world ended during set-up");
		cpy_kill_world(c);
		goto out;
	}
	if (r.status != WW_OK) {
		*err = xasprintf("the set-up names failed: %s",
		    r.error ? r.error : "an error");
		cpy_raw_free(&r);
		cpy_kill_world(c);
		goto out;
	}
	cpy_raw_free(&r);
	ok = true;
out:
	arena_free(a);
	return ok;
}

static bool
start(struct cpy *c, char **err)
{
	return start_send(c, err) && start_finish(c, err);
}

/*
 * Seeded ahead.  With --fresh-world the session replaces a world after
 * every input (world_renew: session_renew_world), and builds the next at
 * the next input with the session's tree, which the last world's reply
 * has just become (cpy_read_back), its environment and its set-up.  So
 * when it renews a built world of the zygote's, the next is spawned and
 * sent that seed at once, while the user reads the answer (the last is
 * killed just after, by world_renew, its processes' ends out of the way
 * of the next one's request): its set-up runs off the critical path.
 * Its build then takes the answer, if the seed it is given is the same,
 * byte for byte (files, their modes, environment, set-up); any other
 * seed (a file the session seeded meanwhile, a tree the reply's caps
 * cut) kills it and builds as before.  The world seeded ahead has run no
 * input: its seed is the session's, as the build's would be.  It lives
 * until that build or its own free (the session's end): a session with
 * --fresh-world keeps one world ready while idle, as a persistent one
 * keeps its own.
 */
static bool
same_seed(const struct cpy *c, const struct world_seed *seed)
{
	size_t i, n = mfs_count(c->files), nenv = 0;

	if (seed->fs == NULL || mfs_count(seed->fs) != n ||
	    strcmp(c->setup ? c->setup : "", seed->setup ? seed->setup : ""))
		return false;
	for (i = 0; seed->env != NULL && seed->env[i] != NULL &&
	    nenv < WW_MAX_ENV; i++, nenv++)
		if (nenv >= c->nenv || strcmp(c->env[nenv], seed->env[i]) != 0)
			return false;
	if (nenv != c->nenv)
		return false;
	for (i = 0; i < n; i++) {
		const char *name = mfs_name(c->files, i), *x, *y;
		size_t xl, yl;

		if (strcmp(name, mfs_name(seed->fs, i)) != 0 ||
		    mfs_mode(c->files, i) != mfs_mode(seed->fs, i) ||
		    mfs_unreadable(c->files, i) != mfs_unreadable(seed->fs, i))
			return false;
		x = mfs_get(c->files, name, &xl);
		y = mfs_get(seed->fs, name, &yl);
		if (xl != yl || (xl > 0 && (x == NULL || y == NULL ||
		    memcmp(x, y, xl) != 0)))
			return false;
	}
	return true;
}

/* world_renew: next, made to replace the built world w, seeded ahead
 * with w's seed as the session's tree now has it (see above), where both
 * are the zygote's. */
static void
cpy_renew(struct world *w, struct world *next)
{
	struct cpy *c = w->impl, *n = next->impl;
	char *err = NULL;
	size_t i;

	if (!w->built || next->built || c->launch != NULL || c->fail_at != 0 ||
	    c->files == NULL || n->ahead || n->sock >= 0 || n->launch != NULL ||
	    n->fail_at != 0 || n->kind != c->kind || n->mem != c->mem)
		return;
	mfs_free(n->files);
	n->files = mfs_clone(c->files);
	for (i = 0; i < c->nenv; i++) {
		n->env = xreallocarray(n->env, n->nenv + 1, sizeof *n->env);
		n->env[n->nenv++] = xstrdup(c->env[i]);
	}
	free(n->setup);
	n->setup = c->setup ? xstrdup(c->setup) : NULL;
	/* w's world is named as done: the zygote kills it a moment later
	 * (zygote.c: "Done worlds"), not now, as the answer goes out; n
	 * keeps the session's ends of it (its grave) and kills it again
	 * when n is killed or freed. */
	n->done = c->pidfd >= 0 ? c->warden : 0;
	n->ahead = start_send(n, &err);
	n->done = 0;
	free(err);	/* (its build will say, building again) */
	if (!n->ahead || c->pidfd < 0 || c->warden <= 0)
		return;	/* (w's is killed now, by world_renew's free) */
	n->grave.pidfd = c->pidfd;
	n->grave.sock = c->sock;
	n->grave.net = c->net;
	memset(&c->net, 0, sizeof c->net);
	c->net.fd = c->net.ctl = -1;
	c->ntold = 0;
	c->pidfd = c->sock = -1;
	c->warden = 0;
}

/* ---------------------------------------------------------------- */
/* world_ops                                                          */
/* ---------------------------------------------------------------- */

static bool
cpy_build(struct world *w, const struct world_seed *seed, char **err)
{
	struct cpy *c = w->impl;
	size_t i;

	if (c->ahead) {
		/* (seeded ahead: its answer, if the seed is this one) */
		c->ahead = false;
		if (same_seed(c, seed) && c->sock >= 0) {
			c->died = false;
			if (!start_finish(c, err))
				return false;
			w->built = true;
			return true;
		}
		cpy_kill_world(c);
	}
	mfs_free(c->files);
	c->files = mfs_clone(seed->fs);
	for (i = 0; i < c->nenv; i++)
		free(c->env[i]);
	free(c->env);
	c->env = NULL;
	c->nenv = 0;
	for (i = 0; seed->env != NULL && seed->env[i] != NULL &&
	    c->nenv < WW_MAX_ENV; i++) {
		c->env = xreallocarray(c->env, c->nenv + 1, sizeof *c->env);
		c->env[c->nenv++] = xstrdup(seed->env[i]);
	}
	free(c->setup);
	c->setup = seed->setup ? xstrdup(seed->setup) : NULL;
	/* (a world started ahead and not yet up is this build's: kept) */
	if (c->booted_at <= 0)
		cpy_kill_world(c);
	c->died = false;
	if (!start(c, err))
		return false;
	w->built = true;
	return true;
}

/*
 * Send one input (cpy_start) and read its reply (cpy_run) may be two
 * calls, so that the session can start an input on every path's world
 * before it reads the first reply: the worlds run side by side, and the
 * wall clock of each counts from its own start.  What went wrong while
 * sending is kept for cpy_run to say.
 */
static void
cpy_start(struct world *w, const struct world_input *in)
{
	struct cpy *c = w->impl;
	struct arena *a = in->a;
	char flags = (char)((in->setup ? WW_SETUP : 0) |
	    (in->literals ? WW_LITERALS : 0));
	char *err = NULL;
	bool sent;

	if (c->inflight)
		return;
	c->inflight = true;
	c->live = in->live;
	c->live_ctx = in->live_ctx;
	c->live_bytes = 0;
	c->start_status = WORLD_OK;
	c->start_error = NULL;
	c->restarted = false;
	c->interrupted = false;
	c->started_ms = clock_ms();
	if (c->sock < 0) {
		/* It died (or was killed): a fresh one, as a notebook
		 * restarts its kernel. */
		if (!start(c, &err)) {
			c->start_status = WORLD_LOST;
			c->start_error = arena_printf(a, "the world could not "
			    "be rebuilt: %s", err);
			free(err);
			return;
		}
		c->restarted = c->died;
		c->died = false;
		c->started_ms = clock_ms();
	}
	if (in->len > WW_MAX_SOURCE) {
		c->start_status = WORLD_RAISED;
		c->start_error = arena_printf(a, "SyntaxError: the input is "
		    "over %u bytes (column %u)", WW_MAX_SOURCE,
		    WW_MAX_SOURCE + 1);
		return;
	}
	cpy_cork(c);	/* (a command and its input: one write) */
	sent = (in->command == NULL || cpy_send_frame(c, WW_COMMAND,
	    in->command, strlen(in->command), NULL, 0)) &&
	    cpy_send_input(c, flags, in->src, in->len);
	if (!cpy_uncork(c) || !sent) {
		cpy_kill_world(c);
		c->died = true;
		c->start_status = WORLD_LOST;
		c->start_error = "the world had died; it restarts on the next "
		    "input";
		return;
	}
	cpy_pump_add(c);
}

/* An input started and never read: its world cannot be trusted to be
 * between inputs, so it goes (a fresh one starts on the next input). */
static void
cpy_settle(struct world *w)
{
	struct cpy *c = w->impl;

	if (!c->inflight)
		return;
	c->inflight = false;
	cpy_pump_drop(c);
	cpy_kill_world(c);
	c->died = true;
}

static void
cpy_run(struct world *w, const struct world_input *in,
    struct world_reply *out)
{
	struct cpy *c = w->impl;
	struct arena *a = in->a;
	struct effects e = { .a = a, .source = "world" };
	struct raw r;
	enum read_end end;

	memset(out, 0, sizeof *out);
	cpy_start(w, in);	/* (nothing when the session started it) */
	c->inflight = false;
	out->restarted = c->restarted;
	if (c->start_status != WORLD_OK) {
		out->status = c->start_status;
		out->error = c->start_error;
		return;
	}
	c->running = true;
	{
		double deadline = c->started_ms + c->wall_ms;
		end = cpy_pump_finish(c, &deadline);
		if (end == READ_OK)
			end = cpy_read_reply(c, deadline, a, &r);
		else
			memset(&r, 0, sizeof r);
	}
	c->running = false;
	if (end == READ_TIMEOUT) {
		/* The wall clock, or Ctrl-C and the code did not end
		 * within the grace period (an error the user asked for,
		 * not a limit): the world goes either way. */
		cpy_kill_world(c);
		c->died = true;
		if (c->interrupted) {
			out->status = WORLD_LOST;
			out->error = arena_printf(a, "KeyboardInterrupt: still "
			    "running %u ms after Ctrl-C: the world was killed "
			    "(a fresh one starts on the next input)",
			    INTERRUPT_GRACE_MS);
			cpy_effect(&e, "interrupt", "world", NULL, out->error);
		} else {
			out->status = WORLD_KILLED;
			out->layer = "timeout";
			out->error = arena_printf(a, "still running after %u "
			    "ms of wall-clock time: the world was killed (a "
			    "fresh one starts on the next input)", c->wall_ms);
			cpy_effect(&e, "exhaust", "wall clock", "resource "
			    "exhaustion", out->error);
		}
		cpy_raw_free(&r);
		goto effects;
	}
	/* (r.status is RAW_ENDED when the interpreter ended during the
	 * input -- os._exit, a signal, a crash -- and PID 1 sent what it
	 * left: the world is gone) */
	if (end != READ_OK || !r.has_end) {
		cpy_kill_world(c);
		c->died = true;
		out->status = WORLD_LOST;
		out->error = end == READ_BAD ? "the world's reply broke the "
		    "protocol (did the code write to its socket?): the world "
		    "was killed (a fresh one starts on the next input)" :
		    "the world died during the input (it restarts on the "
		    "next input)";
		cpy_effect(&e, "exit", "world", "process", out->error);
		cpy_raw_free(&r);
		goto effects;
	}
	cpy_reply_effects(c, in, &r, &e, out);
	e.source = "world";
	out->result = r.result;
	out->message = r.message;
	switch (r.status) {
	case WW_OK:
		out->status = WORLD_OK;
		break;
	case WW_RAISED:
		out->status = WORLD_RAISED;
		out->error = r.error ? r.error : "SystemError: no message";
		break;
	case WW_EXITED: {
		/* SystemExit: PID 1 says with which status (Z) */
		struct raw k;
		const char *how = "exited";
		if (cpy_read_reply(c, clock_ms() + 1000, a, &k) == READ_OK &&
		    k.ended)
			how = ended_how(a, k.wstatus);
		cpy_raw_free(&k);
		out->status = WORLD_OK;
		out->exited = arena_printf(a, "the interpreter %s (%s); a "
		    "fresh world starts on the next input", how, r.error ?
		    r.error : "SystemExit");
		cpy_effect(&e, "exit", "python", "process", out->exited);
		cpy_kill_world(c);
		c->died = true;
		break;
	}
	case RAW_ENDED:
		out->status = WORLD_LOST;
		out->error = arena_printf(a, "the interpreter %s during the "
		    "input; a fresh world starts on the next input",
		    ended_how(a, r.wstatus));
		cpy_effect(&e, "exit", "python", "process", out->error);
		cpy_kill_world(c);
		c->died = true;
		break;
	case WW_NOMEM:
		out->status = WORLD_KILLED;
		out->layer = "rlimit";
		out->error = arena_printf(a, "MemoryError: the world's "
		    "address space is capped at %llu MiB per process",
		    (unsigned long long)(world_as_over(c->mem) >> 20));
		cpy_effect(&e, "exhaust", "memory", "resource exhaustion",
		    out->error);
		break;
	}
	cpy_reply_limits(c, &r, &e, out);
	cpy_raw_free(&r);
effects:
	out->effects = e.v;
	out->neffects = e.n;
}

static void
cpy_read_back(struct world *w, struct mfs *fs)
{
	struct cpy *c = w->impl;

	if (c->files != NULL)
		mfs_assign(fs, c->files);
}

static void
cpy_destroy(struct world *w)
{
	struct cpy *c = w->impl;
	size_t i;

	cpy_pump_drop(c);
	cpy_kill_world(c);
	mfs_free(c->files);
	for (i = 0; i < c->nenv; i++)
		free(c->env[i]);
	free(c->env);
	free(c->setup);
	cpy_free_names(c);
	cpy_free_out(c);
	free(c->boot_err);
	free(c);
}

/* Boot an outside kind's world ahead of its build (world.h's
 * world_prestart): janitor first, as spawn() does. */
static void
cpy_prestart(struct world *w)
{
	struct cpy *c = w->impl;

	if (c->launch == NULL || c->outside != NULL || c->boot_err != NULL ||
	    c->sock >= 0)
		return;
	(void)janitor_start();
	launch(c);
}

static bool
cpy_booting(const struct world *w, double *secs, bool *ready)
{
	const struct cpy *c = w->impl;
	struct pollfd pfd = { c->sock, POLLIN, 0 };

	if (c->booted_at <= 0 || (c->outside == NULL && c->boot_err == NULL))
		return false;
	*secs = (clock_ms() - c->booted_at) / 1000.0;
	/* (up, or it failed: what it said waits on the wire, or it is
	 * gone; either way the build will say) */
	*ready = c->boot_err != NULL || poll(&pfd, 1, 0) > 0;
	return true;
}

static const char *const *
cpy_names(const struct world *w, size_t *n)
{
	static const char *const none[1] = { NULL };
	const struct cpy *c = w->impl;

	*n = c->nnames;
	/* (none is an answer too: NULL would mean "ask the namespace") */
	return c->names != NULL ? (const char *const *)c->names : none;
}

static const char *const *
cpy_literals(const struct world *w, size_t *n)
{
	const struct cpy *c = w->impl;

	*n = c->nlits;
	return (const char *const *)c->lits;
}

const struct world_ops world_cpython_ops = {
	.engine = WORLD_ENGINE_CPYTHON,
	.compiles = true,
	.build = cpy_build,
	.start_input = cpy_start,
	.run_input = cpy_run,
	.settle = cpy_settle,
	.read_back = cpy_read_back,
	.destroy = cpy_destroy,
	.renew = cpy_renew,
	.names = cpy_names,
	.literals = cpy_literals,
	.prestart = cpy_prestart,
	.booting = cpy_booting,
};

static const struct world_launcher *const launchers[] = {
#define X(e, name, container, launcher) launcher,
	WORLD_KINDS(X)
#undef X
};

const struct world_launcher *
world_kind_launcher(int k)
{
	return (unsigned)k < WORLD_KIND__COUNT ? launchers[k] : NULL;
}

void *
world_cpython_new(unsigned wall_ms, int fail_at, int kind)
{
	struct cpy *c = xcalloc(1, sizeof *c);

	c->kind = kind;
	c->launch = world_kind_launcher(kind);
	c->sock = c->pidfd = -1;
	c->net.fd = c->net.ctl = -1;
	c->grave.pidfd = c->grave.sock = -1;
	c->grave.net.fd = c->grave.net.ctl = -1;
	c->wall_ms = wall_ms ? wall_ms : WORLD_DEFAULT_WALL_MS;
	/* (a gVisor world's worker sets the default's rlimits itself:
	 * gvisor.c) */
	c->mem = world_memory();
	c->fail_at = fail_at;
	return c;
}
