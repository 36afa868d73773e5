/*
 * keys.c -- every key the UI reads, one row each: its name, the terminfo
 * capability and the escape sequences that send it (xterm's CSI and SS3
 * forms, the Linux console's, rxvt's: terminals differ, and with a
 * custom redisplay readline binds nothing from terminfo), or the byte of
 * a control key.  What a key does is input.c's binding table; an
 * overlay with keys of its own (pane_ops.key) is handed the key a
 * sequence is (key_of_seq).
 */
#include "config.h"

#include <string.h>

#include "uipriv.h"

const struct key_def key_defs[UK__COUNT] = {
	[UK_F1] = { "F1", "kf1", { "\033OP", "\033[11~" }, 0 },
	[UK_F2] = { "F2", "kf2", { "\033OQ", "\033[12~" }, 0 },
	[UK_F3] = { "F3", "kf3", { "\033OR", "\033[13~" }, 0 },
	[UK_F10] = { "F10", "kf10", { "\033[21~" }, 0 },
	[UK_BTAB] = { "Shift-Tab", "kcbt", { "\033[Z" }, 0 },
	[UK_PGUP] = { "PgUp", "kpp", { "\033[5~" }, 0 },
	[UK_PGDN] = { "PgDn", "knp", { "\033[6~" }, 0 },
	[UK_HOME] = { "Home", "khome", { "\033[1~", "\033[H", "\033OH" }, 0 },
	[UK_END] = { "End", "kend", { "\033[4~", "\033[F", "\033OF" }, 0 },
	[UK_DELETE] = { "Delete", "kdch1", { "\033[3~" }, 0 },
	[UK_UP] = { "Up", NULL, { "\033[A", "\033OA" }, 0 },
	[UK_DOWN] = { "Down", NULL, { "\033[B", "\033OB" }, 0 },
	[UK_RIGHT] = { "Right", NULL, { "\033[C", "\033OC" }, 0 },
	[UK_LEFT] = { "Left", NULL, { "\033[D", "\033OD" }, 0 },
	[UK_PASTE] = { "paste", NULL, { "\033[200~" }, 0 },
	[UK_CTRL_C] = { "Ctrl-C", NULL, { NULL }, 3 },
	[UK_CTRL_L] = { "Ctrl-L", NULL, { NULL }, '\f' },
	[UK_SPACE] = { "Space", NULL, { NULL }, ' ' },
};

enum ui_key
key_of_seq(const char *seq, size_t n)
{
	int k;
	size_t i;

	for (k = UK_NONE + 1; k < UK__COUNT; k++)
		for (i = 0; i < KEY_MAX_SEQS && key_defs[k].seqs[i] != NULL;
		    i++)
			if (strlen(key_defs[k].seqs[i]) == n &&
			    memcmp(key_defs[k].seqs[i], seq, n) == 0)
				return (enum ui_key)k;
	return UK_NONE;
}
