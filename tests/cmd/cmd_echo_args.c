/*
 * cmd_echo_args.c -- echo_args({'text': T}): T, unchanged.  A dummy
 * command, built only into tests/cmd/test_echo_args, which walks the
 * README's "How to add a command" through: this file is step 1, as
 * src/cmd/cmd_<name>.c would be; step 2, its X(echo_args) in COMMANDS,
 * is the test's -D'CMD_EXTRA_COMMANDS(X)=X(echo_args)' (Makefile.am).
 */
#include "config.h"

#include "base/arena.h"
#include "cmd/cmd.h"
#include "record/effect.h"
#include "fs/workspace.h"

static bool
run(struct cmd_run *r)
{
	struct workspace *ws = r->ws;
	const char *text = cmd_arg(r, "text");

	effect_add(ws->effects, "read", "echo", EFFECT_HARMLESS,
	    arena_printf(ws->rt->arena, "echoed %s", text), false);
	r->result = value_cstr(ws->rt->arena, text);
	r->message = arena_printf(ws->rt->arena, "echoed %s", text);
	return true;
}

static const char *const keys[] = { "text", NULL };

static const char *const docs[] = {
	"The text to echo back.",
	NULL
};

/* The function a CPython world runs (cmd.h). */
static const char world[] =
	"said[0] = 'echoed ' + d['text']\n"
	"return d['text']\n";

const struct cmd_entry cmd_echo_args_entry = {
	.name = "echo_args",
	.op = "read",
	.example = "echo_args('hi')",
	.keys = keys,
	.required = keys,
	.run = run,
	.title = "Echo the arguments",
	.description = "Return the text given, unchanged.",
	.docs = docs,
	.hints = { .read_only = true, .idempotent = true },
	.world = world,
};
