/*
 * draw.c -- text in rectangles: clipped by display width (UTF-8 aware),
 * what is not printable shown escaped (textesc.h), colour or a plain
 * attribute.
 */
#include "config.h"

#include <string.h>
#include <wchar.h>

#include "base/textesc.h"
#include "uipriv.h"

int
draw_attr(const struct ui *u, enum ui_color c)
{
	if (u->has_color)
		return u->color_attr[c];	/* ui.c's palettes */
	/* Without colour, meaning is carried by words and markers; these
	 * attributes only add emphasis (and dim text washes out on a light
	 * background). */
	switch (c) {
	case UC_TITLE:
	case UC_HL:
		return A_REVERSE;
	case UC_BLOCKED:
	case UC_DAMAGE:
	case UC_INSIDE:
		return A_BOLD;
	case UC_DIM:
		return u->light ? A_NORMAL : A_DIM;
	default:
		return A_NORMAL;
	}
}

int
draw_verdict_attr(const struct ui *u, enum verdict v)
{
	/* the verdicts' table (record.h) says which colour; this says how a
	 * terminal draws it */
	static const enum ui_color colour[] = {
		[VERDICT_COLOUR_OK] = UC_OK,
		[VERDICT_COLOUR_BLOCKED] = UC_BLOCKED,
		[VERDICT_COLOUR_ERROR] = UC_ERROR,
		[VERDICT_COLOUR_DAMAGE] = UC_DAMAGE,
		[VERDICT_COLOUR_CONTAINED] = UC_CONTAINED,
		[VERDICT_COLOUR_INSIDE] = UC_INSIDE,
	};
	enum verdict_colour c = record_verdict_colour(v);

	return draw_attr(u, (unsigned)c < VERDICT_COLOUR__COUNT ? colour[c] :
	    UC_ERROR);
}

/*
 * Width of one character at s (n bytes there); sets *used.  A character
 * textesc.h escapes is shown as its escape (into esc, else esc is ""), so
 * that nothing a name or an outcome holds reaches the terminal raw.
 */
static int
char_width(const char *s, size_t n, size_t *used, char esc[TEXTESC_MAX])
{
	mbstate_t st;
	wchar_t wc;
	size_t k;
	int w;

	*used = textesc_next(s, n, 0, esc);
	if (esc[0] != '\0')
		return (int)strlen(esc);
	if ((unsigned char)*s < 0x80)
		return 1;
	memset(&st, 0, sizeof st);
	k = mbrtowc(&wc, s, *used, &st);
	if (k != *used) {
		/* valid UTF-8 the locale cannot show */
		strcpy(esc, "?");
		return 1;
	}
	w = wcwidth(wc);
	return w < 0 ? 1 : w;
}

int
draw_width(const char *s, size_t len)
{
	int w = 0;
	size_t i = 0, used;
	char esc[TEXTESC_MAX];
	while (i < len) {
		w += char_width(s + i, len - i, &used, esc);
		i += used;
	}
	return w;
}

size_t
draw_fit(const char *s, size_t len, int cols)
{
	int w = 0;
	size_t i = 0, used;
	char esc[TEXTESC_MAX];
	while (i < len) {
		int cw = char_width(s + i, len - i, &used, esc);
		if (w + cw > cols)
			break;
		w += cw;
		i += used;
	}
	return i;
}

/* Part of a name: a letter, digit, underscore or a UTF-8 byte. */
static bool
name_char(char c)
{
	unsigned char b = (unsigned char)c;

	return b >= 0x80 || b == '_' || (b >= '0' && b <= '9') ||
	    ((b | 0x20) >= 'a' && (b | 0x20) <= 'z');
}

size_t
draw_wrap(const char *s, size_t len, int cols)
{
	size_t take = draw_fit(s, len, cols > 1 ? cols : 1), k;

	if (take == 0 && len > 0)
		take = 1;
	if (take < len && s[take] != ' ') {
		for (k = take; k > 0 && s[k - 1] != ' '; k--)
			;
		if (k == 0)
			for (k = take; k > 0 && name_char(s[k - 1]) &&
			    name_char(s[k]); k--)
				;
		if (k > 0)
			take = k;
	}
	return take;
}

int
draw_textn(struct rect r, int row, int col, int attr, const char *s,
    size_t len)
{
	int x = col;
	size_t i = 0, used;
	char esc[TEXTESC_MAX];

	if (row < 0 || row >= r.h || col >= r.w)
		return 0;
	attrset(attr);
	move(r.y + row, r.x + col);
	while (i < len && x < r.w) {
		int cw = char_width(s + i, len - i, &used, esc);
		if (x + cw > r.w)
			break;
		addnstr(esc[0] != '\0' ? esc : s + i,
		    esc[0] != '\0' ? cw : (int)used);
		x += cw;
		i += used;
	}
	attrset(A_NORMAL);
	return x - col;
}

int
draw_text(struct rect r, int row, int col, int attr, const char *s)
{
	return draw_textn(r, row, col, attr, s, strlen(s));
}

void
draw_fill(struct rect r, int row, int attr)
{
	int x;
	if (row < 0 || row >= r.h)
		return;
	attrset(attr);
	move(r.y + row, r.x);
	for (x = 0; x < r.w; x++)
		addch(' ');
	attrset(A_NORMAL);
}

void
draw_box(struct rect r, int attr, const char *title)
{
	int i;
	if (r.h < 2 || r.w < 2)
		return;
	attrset(attr);
	mvhline(r.y, r.x + 1, ACS_HLINE, r.w - 2);
	mvhline(r.y + r.h - 1, r.x + 1, ACS_HLINE, r.w - 2);
	for (i = 1; i < r.h - 1; i++) {
		mvaddch(r.y + i, r.x, ACS_VLINE);
		mvaddch(r.y + i, r.x + r.w - 1, ACS_VLINE);
	}
	mvaddch(r.y, r.x, ACS_ULCORNER);
	mvaddch(r.y, r.x + r.w - 1, ACS_URCORNER);
	mvaddch(r.y + r.h - 1, r.x, ACS_LLCORNER);
	mvaddch(r.y + r.h - 1, r.x + r.w - 1, ACS_LRCORNER);
	attrset(A_NORMAL);
	if (title != NULL) {
		struct rect t = { r.y, r.x + 2, 1, r.w - 4 };
		draw_text(t, 0, 0, attr | A_BOLD, title);
	}
}
