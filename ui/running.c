/*
 * running.c -- the terminal while an input runs.  At the prompt raw()
 * reads Ctrl-C as a key (readline's cancel); while an input runs the
 * terminal turns it into SIGINT, as it does for python3, and the handler
 * tells the session (session_interrupt: KeyboardInterrupt in the
 * input's worlds).  ui.c and the presenter (play.c) call ui_running()
 * around every input they run.
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "session/session.h"
#include "uipriv.h"

/* Ctrl-C while an input runs: KeyboardInterrupt in its worlds. */
static void
on_interrupt(int sig)
{
	(void)sig;
	session_interrupt();
}

void
ui_running(bool running)
{
	static struct sigaction before;	/* the prompt's SIGINT action */
	static bool saved;
	struct sigaction sa;

	if (running) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_interrupt;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGINT, &sa, &before) == 0)
			saved = true;
		/* raw() reads Ctrl-C as a key (readline's cancel at the
		 * prompt); while an input runs the terminal turns it into
		 * SIGINT, as it does for python3 */
		cbreak();
	} else {
		if (saved)
			sigaction(SIGINT, &before, NULL);
		saved = false;
		raw();
	}
}
