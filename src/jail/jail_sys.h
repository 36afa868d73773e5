/*
 * jail_sys.h -- the system-call numbers and prctl options the jail and
 * the worlds use that an older libc's headers may not name yet.  One
 * place for the fallbacks, so each number is written once.  (x86-64 and
 * the generic table agree on these: all are above 400 or are prctl
 * options, numbered alike on every architecture.)
 */
#ifndef SANDBOXREPL_JAIL_SYS_H
#define SANDBOXREPL_JAIL_SYS_H

#include <sys/prctl.h>
#include <sys/syscall.h>

#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal	424
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open		434
#endif
#ifndef __NR_close_range
#define __NR_close_range	436
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset	444
#define __NR_landlock_add_rule		445
#define __NR_landlock_restrict_self	446
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT		47
#define PR_CAP_AMBIENT_RAISE	2
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

#endif
