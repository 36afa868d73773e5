/*
 * lesson.h -- what the class ran this session: the log :summary draws and
 * :export writes (src/app/export.h).
 *
 * Unlike the transcripts (model.h), it survives :reset, a play's resets
 * and its moves back and forth: every input typed, and every scenario
 * step played, once each time it ran.  ":summary clear" empties it.  One
 * UI per process: the log is this file's.
 */
#ifndef SANDBOXREPL_UI_LESSON_H
#define SANDBOXREPL_UI_LESSON_H

#include <stddef.h>

#include "app/export.h"

struct record;

/* An input typed (or an agent's line). */
void lesson_typed(const char *input, size_t len, const struct record *r,
    size_t n);
/* A scenario's visible step as a play ran it: its records, or the text
 * of an echo or a listing (records NULL). */
void lesson_played(const char *scenario, const char *caption,
    const char *title, const char *input, size_t len,
    const struct record *r, size_t n, const char *text);
const struct export_log *lesson_log(void);
/* The inputs it holds (its notes left out). */
size_t lesson_inputs(void);
void lesson_clear(void);
/* The handout's title: "sandboxrepl: lesson.scn, highlights.scn" for the
 * scenarios played, or "sandboxrepl: a session" (heap). */
char *lesson_title(void);

#endif
