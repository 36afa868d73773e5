/*
 * ui.h -- the terminal UI: the essay's interactive figure.
 *
 * ui_run() takes over the terminal (ncurses, with GNU readline for the
 * input line) until the user quits, driving the session it is given.
 */
#ifndef SANDBOXREPL_UI_H
#define SANDBOXREPL_UI_H

#include <stdbool.h>

struct session;

struct agent_opts;

/* Colours for the terminal's background: --theme, else the environment's
 * SANDBOXREPL_THEME, else dark.  NO_COLOR turns colour off in any. */
enum ui_theme { UI_THEME_UNSET, UI_THEME_DARK, UI_THEME_LIGHT };

struct ui_opts {
	bool			 no_history;	/* neither read nor write the
						   history file */
	const struct agent_opts	*agent;		/* --agent, or NULL */
	const char		*play;		/* --play: a scenario to start
						   the presenter view with, or
						   NULL */
	const char		*missing;	/* why a world cannot be built
						   here (the welcome points to
						   --doctor), or NULL */
	enum ui_theme		 theme;		/* --theme, or UNSET */
};

/* "dark" or "light"; false for anything else. */
bool ui_theme_parse(const char *s, enum ui_theme *out);

/* Can the UI run here?  False (with *why set) for an empty or dumb TERM. */
bool ui_usable(const char **why);
/* Run the UI; returns the exit status (0 on :quit, F10 or end of input). */
int ui_run(struct session *s, const struct ui_opts *o);

#endif
