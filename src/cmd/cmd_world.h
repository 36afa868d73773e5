/*
 * cmd_world.h -- the worlds' commands as Python (cmd_world.c), apart
 * from cmd.h so that world/pyrun.c, beside Python.h, needs no value.h.
 */
#ifndef SANDBOXREPL_CMD_WORLD_H
#define SANDBOXREPL_CMD_WORLD_H

/*
 * The Python source of the worlds' commands, from the command table: a
 * factory, _sandboxrepl_commands(), returning (said, then each command's
 * function, in the table's order), said a list whose said[0] is the last
 * command's message.  Malloc'd; the caller frees it.  The program exports
 * it to sandboxrepl-python.so (Makefile.am, PYMOD_EXPORTS).
 */
char *cmd_world_source(void);

#endif
