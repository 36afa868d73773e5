/*
 * pyrun_int.h -- between the files of a world's interpreter side,
 * sandboxrepl-python.so: pyrun.c (set-up, running an input), pyrun_audit.c
 * (the audit hook's events) and pyrun_reply.c (the reply's frames, the
 * workspace's tree).  Each needs only those after it.
 */
#ifndef SANDBOXREPL_PYRUN_INT_H
#define SANDBOXREPL_PYRUN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"


/* pyrun_audit.c */
/* Install the hook, before CPython initialises: 0, or -1. */
int pyrun_audit_install(void);
/* CPython is starting: the hook hides .pth start-up hooks. */
void pyrun_audit_starting(bool on);
/* The input's code is running: its events are recorded. */
void pyrun_audit_recording(bool on);
/* In the world's interpreter: find the pid namespace's last pid. */
void pyrun_audit_after_fork(void);
/* An input begins: no events yet. */
void pyrun_audit_start(void);
/* Say whether the pending spawn event made a process (NOSPAWN_EVENT). */
void pyrun_spawn_check(void);
/* n copies forks.c ended, as an event (FORKS_EVENT). */
void pyrun_forks_ended(unsigned n);
/* The kernel's refusals, then the input's events, within the cap. */
void pyrun_send_events(void);

/* pyrun_reply.c: the reply goes to sock.  A frame of it; a cap that cut
 * something, and what it held.  The session gone, the interpreter exits.
 * The workspace's tree, within the caps. */
void pyrun_reply_to(int sock);
void pyrun_send_frame(enum ww_type type, const void *a, size_t alen,
    const void *b, size_t blen);
void pyrun_send_cut(enum ww_cut what, uint64_t held);
void pyrun_send_workspace(int wsdir);

#endif
