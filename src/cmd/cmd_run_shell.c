/*
 * cmd_run_shell.c -- run_shell({'cmd': C}), run_shell('ls'), and the line
 * a student types as IPython's shell escape, !ls (session.c turns it into
 * this call): the agent's shell tool, a command line for /bin/sh.
 *
 * In a CPython world the command is the world's own (world, below): the
 * real /bin/sh through os.system, its output the world's output, which
 * the audit hook sees as os.system's; it returns None, as IPython's !ls
 * does, its exit status in the message; the jail's seccomp refuses its
 * execve.  run() is the model's: the unsafe
 * path's mock shell (model/mock.c), its output written as the input's
 * stdout, or on the model's jail path a real execve that the kernel
 * refuses (fsops_exec).  Not on any preset's command allowlist: behind
 * the sandbox's boundary it never gets this far.
 */
#include "config.h"

#include <string.h>

#include "base/arena.h"
#include "cmd.h"
#include "record/effect.h"
#include "interp/eval.h"
#include "fs/fsops.h"
#include "model/mock.h"
#include "base/sbuf.h"
#include "fs/workspace.h"

static bool
run(struct cmd_run *r)
{
	struct workspace *ws = r->ws;
	struct arena *a = ws->rt->arena;
	const char *line = cmd_arg(r, "cmd");
	struct sbuf out = SBUF_INIT;
	int status;

	if (line[strspn(line, " \t\r\n\f\v")] == '\0')
		return rt_raise(ws->rt, PYEXC_ValueError, "run_shell() needs a "
		    "command line, e.g. run_shell('ls') or !ls");
	if (ws->jailed || ws->rt->ev == NULL)
		return fsops_exec(ws, line);	/* (no world but the jail's
						   makes a real call) */
	status = mock_shell(ws->rt->ev, line, &out);
	if (out.len > 0 && out.data[out.len - 1] == '\n')
		out.len--;	/* (each print is a line: session.c) */
	if (out.len > 0)
		effect_add(ws->effects, "print", "stdout", EFFECT_HARMLESS,
		    arena_strndup(a, out.data, out.len), false);
	sbuf_free(&out);
	r->message = arena_printf(a, "exit status %d", status);
	r->result = value_none();
	return true;
}

static const char *const keys[] = { "cmd", NULL };

static const char *const docs[] = {
	"The command line for /bin/sh, e.g. ls -l.",
	NULL
};

/* The function a CPython world runs (cmd.h): CPython's own calls. */
static const char world[] =
	"if not d['cmd'].strip():\n"
	"    raise ValueError('run_shell() needs a command line, e.g. '\n"
	"                     \"run_shell('ls') or !ls\")\n"
	"os = __import__('os')\n"
	"for f in (__import__('sys').stdout, __import__('sys').stderr):\n"
	"    try:\n"
	"        f.flush()\n"
	"    except Exception:\n"
	"        pass\n"
	"status = os.system(d['cmd'])\n"
	"if status == -1:\n"
	"    said[0] = 'the shell could not be started'\n"
	"else:\n"
	"    said[0] = f'exit status {os.waitstatus_to_exitcode(status)}'\n";

const struct cmd_entry cmd_run_shell_entry = {
	.name = "run_shell",
	.op = "exec",
	.example = "run_shell('ls')",
	.keys = keys,
	.required = keys,
	.run = run,
	.title = "Run a shell command",
	.description = "Run a command line with /bin/sh, as the agent's "
	    "shell tool (a typed !ls is the same call). What it wrote is in "
	    "the result.",
	.docs = docs,
	.hints = { .destructive = true, .open_world = true },
	.world = world,
};
