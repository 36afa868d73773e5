/*
 * agent.c -- an outside agent proposes the input lines for a task.
 *
 * A task ("? compute the average order value") travels in three steps:
 *
 *   agent_context()      the task plus what the agent needs to write valid
 *                        input: names and types, file names and sizes (never
 *                        contents: the agent reads files through the tool),
 *                        what the policy allows, the answer format;
 *   agent_exec()         the agent command, run through /bin/sh -c in a
 *                        process group of its own: the context goes to its
 *                        stdin, its stdout is the answer;
 *   agent_parse_answer() the answer, cut into input lines.
 *
 * With --agent-turns the three steps repeat (agent_loop_*): every turn runs
 * the command afresh, and its stdin is the context block as of that turn
 * plus the turns so far as the JSON lines --json prints (each turn's
 * proposal object, then its records), so a refused model can try again.
 * Nothing of one turn's process is alive when the next starts.
 *
 * agent_exec() is the only part that touches processes.  It polls three
 * pipes (stdin out, stdout and stderr in) against one wall-clock deadline,
 * caps what it keeps, and ends every run the same way: SIGKILL to the
 * agent's process group while the leader is still unreaped (so the group id
 * cannot have been reused), then waitpid(), then the sweep: sandboxrepl is
 * the child subreaper while the agent runs (PR_SET_CHILD_SUBREAPER), so a
 * descendant that left the group (setsid) and lost its parent becomes our
 * child instead of init's, and every process descended from the agent is
 * killed and reaped before agent_exec() returns.  SIGPIPE is blocked while it
 * writes, and a SIGPIPE the agent caused by not reading is consumed, so an
 * agent that ignores its stdin costs nothing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "agent.h"
#include "base/arena.h"
#include "lang/ast.h"
#include "base/clock.h"
#include "cmd/cmd.h"
#include "jail/jail.h"
#include "fs/mockfs.h"
#include "interp/ns.h"
#include "lang/parse.h"
#include "sandbox/policy.h"
#include "base/sbuf.h"
#include "session/session.h"
#include "base/textesc.h"
#include "value/value.h"
#include "base/xalloc.h"

extern char **environ;

/* How long the pipes may stay open once the agent itself has exited (a
 * background child holding them): then the group is killed. */
#define EXIT_GRACE_MS	200
/* How often the loop looks whether the agent has exited, while it talks
 * and once it has closed its outputs. */
#define EXIT_POLL_MS	100
#define EXIT_WAIT_MS	10
#define READ_CHUNK	65536

static void
free_lines(struct agent_proposal *p)
{
	size_t i;
	for (i = 0; i < p->nlines; i++)
		free(p->lines[i]);
	free(p->lines);
	p->lines = NULL;
	p->nlines = 0;
}

void
agent_proposal_free(struct agent_proposal *p)
{
	free_lines(p);
	free(p->task);
	free(p->answer);
	memset(p, 0, sizeof *p);
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool
agent_is_task(const char *input, size_t len, const char **task,
    size_t *tasklen)
{
	const char *p = input, *end = input + len;
	while (p < end && is_blank(*p))
		p++;
	if (p == end || *p != '?')
		return false;
	p++;
	while (p < end && is_blank(*p))
		p++;
	while (end > p && is_blank(end[-1]))
		end--;
	*task = p;
	*tasklen = (size_t)(end - p);
	return true;
}

/* Valid UTF-8 without NUL bytes: what jansson accepts as a string. */
static bool
is_text(const char *s, size_t len)
{
	json_t *j;
	if (memchr(s, '\0', len) != NULL)
		return false;
	j = json_stringn(s, len);
	json_decref(j);
	return j != NULL;
}

/* ---- the context block ---- */

static const char *const binop_symbols[] = {
#define X_SYM(e, name, sym) sym,
	BINOPS(X_SYM)
};
static const char *const unaryop_symbols[] = { UNARYOPS(X_SYM) };
static const char *const cmpop_symbols[] = { CMPOPS(X_SYM) };
static const char *const boolop_symbols[] = { BOOLOPS(X_SYM) };
#undef X_SYM

/* " sym, sym, ..." for the bits set in mask, or " none" (commas, as
 * some symbols are two words: "is not"). */
static void
add_symbols(struct sbuf *b, uint64_t mask, const char *const *names,
    size_t n)
{
	size_t i;
	bool any = false;
	for (i = 0; i < n; i++)
		if (mask & (UINT64_C(1) << i)) {
			sbuf_addf(b, "%s %s", any ? "," : "", names[i]);
			any = true;
		}
	if (!any)
		sbuf_adds(b, " none");
}

static void
add_list(struct sbuf *b, const char *const *list)
{
	if (list == NULL || *list == NULL) {
		sbuf_adds(b, " none");
		return;
	}
	for (; *list != NULL; list++)
		sbuf_addf(b, " %s", *list);
}

/* read_file({'path': str}), optional keys marked. */
static void
add_command_form(struct sbuf *b, const struct cmd_entry *e)
{
	const char *const *k;
	sbuf_addf(b, "  %s({", e->name);
	for (k = e->keys; k != NULL && *k != NULL; k++) {
		const char *const *r;
		bool required = false;
		for (r = e->required; r != NULL && *r != NULL; r++)
			if (strcmp(*r, *k) == 0)
				required = true;
		sbuf_addf(b, "%s'%s': str%s", k == e->keys ? "" : ", ", *k,
		    required ? "" : " (optional)");
	}
	sbuf_adds(b, "})\n");
}

static enum path_id
context_path(struct session *s)
{
	unsigned paths = session_paths(s);
	int p;
	if (paths & PATH_BIT(path_policy()))
		return path_policy();
	for (p = 0; p < PATH__COUNT; p++)
		if (paths & PATH_BIT(p))
			return (enum path_id)p;
	return path_policy();
}

void
agent_context(struct session *s, const char *task, size_t tasklen,
    struct sbuf *out)
{
	enum path_id cp = context_path(s);
	const struct policy *pol = session_policy(s);
	const struct mfs *fs = session_fs(s, cp);
	struct ns *ns = session_ns(s, cp);
	size_t i, n;
	int p;
	const char *sep = "";

	sbuf_adds(out, "TASK: ");
	sbuf_add(out, task, tasklen);
	sbuf_adds(out, "\n\n"
	    "You are the agent behind sandboxrepl's code tool: write the input"
	    " that does\nthe task.  An input is a Python expression (or simple"
	    " statements joined by\n';') or a computer-use command.  It runs on"
	    " the paths");
	for (p = 0; p < PATH__COUNT; p++)
		if (session_paths(s) & PATH_BIT(p)) {
			sbuf_addf(out, "%s %s", sep,
			    record_path_name((enum path_id)p));
			sep = ",";
		}
	sbuf_adds(out, ";\nthe sandbox path lets through only what its policy"
	    " below allows.\n");

	sbuf_addf(out, "\nNAMES (%s path; name: type):\n",
	    record_path_name(cp));
	n = ns_count(ns);
	for (i = 0; i < n && i < AGENT_MAX_LISTED; i++) {
		value v;
		const char *name = ns_name(ns, i, &v);
		sbuf_addf(out, "  %s: %s\n", name, value_type_name(v));
	}
	if (n == 0)
		sbuf_adds(out, "  (none)\n");
	else if (n > AGENT_MAX_LISTED)
		sbuf_addf(out, "  ... and %zu more\n", n - AGENT_MAX_LISTED);

	sbuf_adds(out, "\nFILES (name: bytes):\n");
	n = mfs_count(fs);
	for (i = 0; i < n && i < AGENT_MAX_LISTED; i++) {
		size_t len = 0;
		const char *name = mfs_name(fs, i);
		(void)mfs_get(fs, name, &len);
		/* a name is data: one line, whatever it holds */
		sbuf_adds(out, "  ");
		textesc_add(out, name, strlen(name), 0);
		sbuf_addf(out, ": %zu\n", len);
	}
	if (n == 0)
		sbuf_adds(out, "  (none)\n");
	else if (n > AGENT_MAX_LISTED)
		sbuf_addf(out, "  ... and %zu more\n", n - AGENT_MAX_LISTED);

	sbuf_addf(out, "\nPOLICY %s: %s\n", pol->name, pol->summary);
	if (pol->call_rule == CALLS_NAMED) {
		sbuf_adds(out, "  calls:");
		add_list(out, pol->calls);
	} else if (pol->name_rule == NAMES_CALLS) {
		sbuf_adds(out, "  calls: any callee; builtins:");
		add_list(out, pol->calls);
	} else
		sbuf_adds(out, "  calls: any callee; builtins: all");
	sbuf_adds(out, "\n  attributes: ");
	sbuf_adds(out, !(pol->nodes & (UINT64_C(1) << NODE_ATTRIBUTE)) ?
	    "none" : pol->attr_rule == ATTRS_PUBLIC ?
	    "public only (no name that starts with '_')" : "any");
	if (pol->blocked_words != NULL && *pol->blocked_words != NULL) {
		sbuf_adds(out, "\n  refused when the source contains:");
		add_list(out, pol->blocked_words);
	}
	sbuf_adds(out, "\n  commands:");
	add_list(out, pol->commands);
	sbuf_adds(out, "\n  syntax:");
	{
		const char *names[NODE__COUNT];
		for (i = 0; i < NODE__COUNT; i++)
			names[i] = ast_kind_name((enum node_kind)i);
		add_symbols(out, pol->nodes, names, NODE__COUNT);
	}
	sbuf_adds(out, "\n  operators:");
	add_symbols(out, pol->binops, binop_symbols, BINOP__COUNT);
	sbuf_adds(out, "\n  unary operators:");
	add_symbols(out, pol->unaryops, unaryop_symbols, UNARYOP__COUNT);
	sbuf_adds(out, "\n  comparisons:");
	add_symbols(out, pol->cmpops, cmpop_symbols, CMPOP__COUNT);
	sbuf_adds(out, "\n  boolean operators:");
	add_symbols(out, pol->boolops, boolop_symbols, BOOLOP__COUNT);
	sbuf_adds(out, "\n  hosts:");
	add_list(out, pol->hosts);
	if (pol->hosts == NULL || *pol->hosts == NULL)
		sbuf_adds(out, " (no network)");
	sbuf_addf(out, "\n  budget: %u of %u inputs used\n",
	    session_budget_used(s, path_policy()),
	    session_budget_limit(s, path_policy()));
	if (pol->commands != NULL && *pol->commands != NULL) {
		const char *const *c;
		sbuf_adds(out, "\nCOMMANDS (a call with one dict argument):\n");
		for (c = pol->commands; *c != NULL; c++) {
			const struct cmd_entry *e = cmd_find(*c);
			if (e != NULL)
				add_command_form(out, e);
		}
	}

	sbuf_adds(out, "\nANSWER FORMAT: reply with exactly one input line,"
	    " or with one fenced code\nblock (``` on a line of its own before"
	    " and after) holding one input per line.\nOnly those lines run,"
	    " each as if typed; text outside the block is ignored.\n");
}

/* ---- the answer ---- */

static bool
starts_fence(const char *line, size_t len)
{
	while (len > 0 && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	return len >= 3 && memcmp(line, "```", 3) == 0;
}

/* One more input; false (with *err) past AGENT_MAX_LINES. */
static bool
push_line(struct agent_proposal *p, struct sbuf *acc, char **err)
{
	if (p->nlines >= AGENT_MAX_LINES) {
		*err = xasprintf("the agent proposed more than %u inputs",
		    AGENT_MAX_LINES);
		return false;
	}
	p->lines = xreallocarray(p->lines, p->nlines + 1, sizeof *p->lines);
	p->lines[p->nlines++] = xstrndup(acc->data ? acc->data : "", acc->len);
	sbuf_truncate(acc, 0);
	return true;
}

bool
agent_parse_answer(const char *answer, size_t len, struct agent_proposal *p,
    char **err)
{
	const char *s = answer, *end = answer + len, *fence = NULL;
	struct sbuf acc = SBUF_INIT;
	bool fenced = false;
	unsigned continued = 0;	/* lines in acc */

	if (!is_text(answer, len)) {
		*err = xstrdup("the agent's answer is not text (invalid UTF-8 "
		    "or a NUL byte)");
		return false;
	}
	/* The first fenced block, when there is one, is the answer. */
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *next = nl ? nl + 1 : end;
		if (starts_fence(s, (size_t)((nl ? nl : end) - s))) {
			fence = next;
			break;
		}
		s = next;
	}
	if (fence != NULL) {
		fenced = true;
		s = fence;
	} else
		s = answer;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end, *b = s;
		s = nl ? nl + 1 : end;
		if (fenced && starts_fence(b, (size_t)(le - b)))
			break;
		while (le > b && is_blank(le[-1]))
			le--;
		if (acc.len == 0) {
			/* A new input: indentation and blank lines and
			 * comments between inputs are not part of it. */
			while (b < le && (*b == ' ' || *b == '\t'))
				b++;
			if (b == le || *b == '#')
				continue;
			if (!fenced && le - b >= 2 && *b == '`' &&
			    le[-1] == '`') {
				b++;
				le--;
			}
		} else
			sbuf_addc(&acc, '\n');
		sbuf_add(&acc, b, (size_t)(le - b));
		/* Each look re-parses the whole input: the lines one input
		 * may span are capped, or a hostile answer costs O(n^2). */
		if (s < end && ++continued < AGENT_MAX_INPUT_LINES &&
		    parse_is_incomplete(acc.data, acc.len))
			continue;
		continued = 0;
		if (!push_line(p, &acc, err))
			goto fail;
	}
	if (acc.len > 0 && !push_line(p, &acc, err))
		goto fail;
	sbuf_free(&acc);
	if (p->nlines == 0) {
		*err = xstrdup(fenced ? "the agent's code block is empty" :
		    "the agent proposed nothing");
		return false;
	}
	if (!fenced && p->nlines > 1) {
		*err = xasprintf("the agent's answer is %zu lines of text "
		    "without a fenced code block (expected one input line, "
		    "or a ``` block of lines)", p->nlines);
		free_lines(p);
		return false;
	}
	return true;
fail:
	sbuf_free(&acc);
	free_lines(p);
	return false;
}

/* ---- running the agent ---- */

static void
close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/*
 * A close-on-exec pipe whose ends are both above 2: when sandboxrepl runs
 * with stdin or stderr closed, a new pipe would take fd 0 or 2, and the
 * child's dup2() onto 0 1 2 would keep close-on-exec or overwrite one end
 * with another.
 */
static int
make_pipe(int p[2])
{
	int i;
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	for (i = 0; i < 2; i++)
		if (p[i] <= 2) {
			int fd = fcntl(p[i], F_DUPFD_CLOEXEC, 3);
			if (fd < 0) {
				close(p[0]);
				close(p[1]);
				p[0] = p[1] = -1;
				return -1;
			}
			close(p[i]);
			p[i] = fd;
		}
	return 0;
}

/* Has the child exited?  Leaves it unreaped (WNOWAIT), so its pid and
 * process group id stay ours until waitpid(). */
static bool
has_exited(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
		return errno == ECHILD;
	return si.si_pid == pid;
}

/* The environment with SANDBOXREPL_TASK=task (heap array; the strings are
 * borrowed except the last one, which the caller frees). */
static char **
make_env(const char *task, char **owned)
{
	static const char key[] = "SANDBOXREPL_TASK=";
	size_t n = 0, i, k = 0;
	char **env;
	while (environ != NULL && environ[n] != NULL)
		n++;
	env = xcalloc(n + 2, sizeof *env);
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], key, sizeof key - 1) != 0)
			env[k++] = environ[i];
	*owned = NULL;
	if (task != NULL) {
		*owned = xasprintf("%s%s", key, task);
		env[k++] = *owned;
	}
	env[k] = NULL;
	return env;
}

/* The child: its own process group, the pipes on 0 1 2 (jail_fork put
 * them there and closed every other descriptor, or failed), default
 * signal handling, then the shell.  Only async-signal-safe calls. */
static void __attribute__((noreturn))
exec_child(const char *command, const char *failed, char **env)
{
	static const int reset[] = { SIGPIPE, SIGINT, SIGQUIT, SIGTERM,
	    SIGTSTP, SIGTTIN, SIGTTOU, SIGCHLD, SIGHUP, SIGALRM };
	struct sigaction sa;
	sigset_t none;
	size_t i;
	char *argv[4];

	setpgid(0, 0);
	if (failed != NULL)	/* the pipes at 0 1 2 (jail_fork) */
		_exit(127);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	for (i = 0; i < sizeof reset / sizeof reset[0]; i++)
		sigaction(reset[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	argv[0] = (char *)"sh";
	argv[1] = (char *)"-c";
	argv[2] = (char *)command;
	argv[3] = NULL;
	execve("/bin/sh", argv, env);
	{
		static const char msg[] = "cannot execute /bin/sh\n";
		ssize_t r = write(2, msg, sizeof msg - 1);
		(void)r;
	}
	_exit(127);
}

/* ---- the sweep: every descendant of the agent ---- */

/* Rounds of the sweep: each kills every descendant it sees at once, so
 * only a process forked between two looks needs another round. */
#define SWEEP_ROUNDS	100

struct proc {
	pid_t	pid, ppid;
};

/* Every process and its parent, from /proc (heap; *n of them). */
static struct proc *
proc_table(size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct proc *t = NULL;
	size_t cap = 0;

	*n = 0;
	if (d == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		char path[64], buf[512], *rp;
		long pid = strtol(de->d_name, &rp, 10), ppid;
		FILE *f;
		size_t len;
		if (*rp != '\0' || pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		len = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[len] = '\0';
		/* "pid (comm) state ppid ...": comm may hold ')' */
		if ((rp = strrchr(buf, ')')) == NULL ||
		    sscanf(rp + 1, " %*c %ld", &ppid) != 1)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			t = xreallocarray(t, cap, sizeof *t);
		}
		t[*n].pid = (pid_t)pid;
		t[(*n)++].ppid = (pid_t)ppid;
	}
	closedir(d);
	return t;
}

static bool
has_pid(const pid_t *set, size_t n, pid_t pid)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (set[i] == pid)
			return true;
	return false;
}

/* Our children now (heap; *n of them): the ones the sweep leaves alone. */
static pid_t *
children_now(size_t *n)
{
	size_t np, i;
	struct proc *t = proc_table(&np);
	pid_t *c = xcalloc(np + 1, sizeof *c), self = getpid();

	*n = 0;
	for (i = 0; i < np; i++)
		if (t[i].ppid == self)
			c[(*n)++] = t[i].pid;
	free(t);
	return c;
}

/*
 * Kill and reap every process descended from the agent: our children that
 * were not ours before it started (orphans the subreaper took in), and
 * everything below them, until none is left.
 */
static void
sweep(const pid_t *before, size_t nbefore)
{
	pid_t self = getpid();
	unsigned round;

	for (round = 0; round < SWEEP_ROUNDS; round++) {
		size_t n, i, found = 0;
		struct proc *t = proc_table(&n);
		bool *mark = xcalloc(n + 1, sizeof *mark), grew = true;

		for (i = 0; i < n; i++)
			if (t[i].ppid == self && !has_pid(before, nbefore,
			    t[i].pid))
				mark[i] = true;
		while (grew) {		/* and their descendants */
			grew = false;
			for (i = 0; i < n; i++) {
				size_t j;
				if (mark[i])
					continue;
				for (j = 0; j < n; j++)
					if (mark[j] && t[j].pid == t[i].ppid) {
						mark[i] = grew = true;
						break;
					}
			}
		}
		for (i = 0; i < n; i++)
			if (mark[i]) {
				kill(t[i].pid, SIGKILL);
				found++;
			}
		for (i = 0; i < n; i++)
			if (mark[i] && t[i].ppid == self)
				while (waitpid(t[i].pid, NULL, 0) < 0 &&
				    errno == EINTR)
					;
		free(mark);
		free(t);
		if (found == 0)
			break;
	}
}

/* The first line of the agent's stderr, for an error message. */
static void
add_stderr_line(struct sbuf *msg, struct sbuf *eb)
{
	const char *s = sbuf_cstr(eb), *e;
	while (*s != '\0' && is_blank(*s))
		s++;
	e = s + strcspn(s, "\n");
	while (e > s && is_blank(e[-1]))
		e--;
	if (e > s) {
		sbuf_adds(msg, ": ");
		textesc_add(msg, s, (size_t)(e - s > 200 ? 200 : e - s), 0);
	}
}

enum outcome { RAN, TIMED_OUT, TOO_LONG, IO_FAILED, CANCELLED };

/* Must the run stop now?  RAN: no, go on. */
static enum outcome
must_stop(const struct agent_opts *o, long long deadline, long long now)
{
	if (now >= deadline)
		return TIMED_OUT;
	if (o->is_cancelled != NULL && o->is_cancelled(o->cancel_arg))
		return CANCELLED;
	return RAN;
}

/* One run of the agent: its pipes (our ends; -1 once closed), what it
 * wrote, and how it ended. */
struct run {
	const struct agent_opts	*o;
	pid_t			 pid;
	int			 in, out, err;	/* our ends of its stdin,
						   stdout and stderr */
	const char		*input;
	size_t			 inlen, inoff;	/* stdin: fed so far */
	struct sbuf		 ob, eb;	/* its stdout, stderr */
	size_t			 cap;		/* stdout's */
	unsigned		 timeout;	/* ms */
	int			 io_errno;	/* IO_FAILED's */
};

/* Feed the agent's stdin one chunk (a full pipe is for later; an agent
 * that stopped reading is fine). */
static void
feed(struct run *rn)
{
	size_t want = rn->inlen - rn->inoff;
	ssize_t r = write(rn->in, rn->input + rn->inoff,
	    want > READ_CHUNK ? READ_CHUNK : want);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r < 0) {
		close_fd(&rn->in);
		return;
	}
	rn->inoff += (size_t)r;
	if (rn->inoff == rn->inlen)
		close_fd(&rn->in);
}

/* Read what is ready on *fd (stdout or stderr), closing it at its end;
 * TOO_LONG once stdout passes the cap. */
static enum outcome
drain_fd(struct run *rn, int *fd)
{
	char buf[READ_CHUNK];
	ssize_t r = read(*fd, buf, sizeof buf);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return RAN;
	if (r <= 0) {
		close_fd(fd);
		return RAN;
	}
	if (fd == &rn->out) {
		sbuf_add(&rn->ob, buf, (size_t)r);
		if (rn->ob.len > rn->cap)
			return TOO_LONG;
	} else if (rn->eb.len < AGENT_MAX_STDERR)
		sbuf_add(&rn->eb, buf, (size_t)r);
	return RAN;
}

/*
 * Feed stdin, drain stdout and stderr, until both outputs are closed and
 * the agent has exited; or the deadline, the cap or the caller stops it;
 * or the agent has exited but something it left behind still holds the
 * pipes.
 */
static enum outcome
exchange(struct run *rn)
{
	long long deadline = clock_ms_whole() + rn->timeout, exited_at = 0;
	bool exited = false;
	enum outcome oc;

	for (;;) {
		struct pollfd fds[3];
		int *which[3];
		nfds_t n = 0, i;
		long long now = clock_ms_whole(), wait;
		if (!exited && has_exited(rn->pid)) {
			exited = true;
			exited_at = now;
		}
		if (rn->out < 0 && rn->err < 0) {
			close_fd(&rn->in);	/* its answer is complete */
			if (exited)
				return RAN;
		}
		if ((oc = must_stop(rn->o, deadline, now)) != RAN)
			return oc;
		if (exited && now - exited_at >= EXIT_GRACE_MS)
			return RAN;
		wait = deadline - now;
		if (rn->in >= 0) {
			fds[n].fd = rn->in;
			fds[n].events = POLLOUT;
			which[n++] = &rn->in;
		}
		if (rn->out >= 0) {
			fds[n].fd = rn->out;
			fds[n].events = POLLIN;
			which[n++] = &rn->out;
		}
		if (rn->err >= 0) {
			fds[n].fd = rn->err;
			fds[n].events = POLLIN;
			which[n++] = &rn->err;
		}
		/* Look at the exit (and the caller) now and then; more
		 * often when there is nothing left but the exit. */
		if (wait > (n > 0 ? EXIT_POLL_MS : EXIT_WAIT_MS))
			wait = n > 0 ? EXIT_POLL_MS : EXIT_WAIT_MS;
		if (poll(fds, n, (int)wait) < 0) {
			if (errno == EINTR)
				continue;
			rn->io_errno = errno;
			return IO_FAILED;
		}
		for (i = 0; i < n; i++) {
			if (fds[i].revents == 0)
				continue;
			if (which[i] == &rn->in)
				feed(rn);
			else if ((oc = drain_fd(rn, which[i])) != RAN)
				return oc;
		}
	}
}

/* Why a run failed, in words; empty when it did not. */
static void
outcome_message(const struct run *rn, enum outcome oc, int status,
    struct sbuf *msg)
{
	unsigned timeout = rn->timeout;

	switch (oc) {
	case TIMED_OUT:
		if (timeout % 1000 == 0)
			sbuf_addf(msg, "the agent timed out after %u s "
			    "(killed)", timeout / 1000);
		else
			sbuf_addf(msg, "the agent timed out after %u.%03u "
			    "s (killed)", timeout / 1000, timeout % 1000);
		break;
	case TOO_LONG:
		sbuf_addf(msg, "the agent wrote more than %zu bytes "
		    "(killed)", rn->cap);
		break;
	case CANCELLED:
		sbuf_adds(msg, "the agent was cancelled (killed)");
		break;
	case IO_FAILED:
		sbuf_addf(msg, "reading from the agent failed: %s",
		    strerror(rn->io_errno));
		break;
	case RAN:
		if (WIFSIGNALED(status))
			sbuf_addf(msg, "the agent was killed by signal %d "
			    "(%s)", WTERMSIG(status),
			    strsignal(WTERMSIG(status)));
		else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
			sbuf_addf(msg, "the agent exited with status %d",
			    WEXITSTATUS(status));
		break;
	}
}

bool
agent_exec(const struct agent_opts *o, const char *task, const char *in,
    size_t inlen, char **out, size_t *outlen, char **err)
{
	struct run rn = { .o = o, .input = in, .inlen = inlen,
	    .ob = SBUF_INIT, .eb = SBUF_INIT, .timeout = o->timeout_ms ?
	    o->timeout_ms : AGENT_DEFAULT_TIMEOUT_MS, .cap = o->max_output ?
	    o->max_output : AGENT_DEFAULT_MAX_OUTPUT };
	int inp[2] = { -1, -1 }, outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	struct sbuf msg = SBUF_INIT;
	sigset_t pipe_set, old_mask, pending;
	bool had_sigpipe;
	enum outcome oc;
	char **env, *env_task;
	const char *failed;
	int status = 0, was_subreaper = 0;
	pid_t pid, *before;
	size_t nbefore;

	*out = NULL;
	*outlen = 0;
	*err = NULL;
	if (o->command == NULL || o->command[0] == '\0') {
		*err = xstrdup("no agent command (use --agent CMD)");
		return false;
	}
	if (make_pipe(inp) != 0 || make_pipe(outp) != 0 ||
	    make_pipe(errp) != 0) {
		*err = xasprintf("cannot start the agent: pipe: %s",
		    strerror(errno));
		close_fd(&inp[0]); close_fd(&inp[1]);
		close_fd(&outp[0]); close_fd(&outp[1]);
		close_fd(&errp[0]); close_fd(&errp[1]);
		return false;
	}
	env = make_env(task, &env_task);
	before = children_now(&nbefore);
	if (prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper) != 0)
		was_subreaper = 0;
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old_mask);
	sigpending(&pending);
	had_sigpipe = sigismember(&pending, SIGPIPE) == 1;

	pid = jail_fork(&(const struct jail_child_spec){ .fds = (const int[]){
	    inp[0], outp[1], errp[1] }, .nfds = 3 }, &failed);
	if (pid == 0)
		exec_child(o->command, failed, env);
	free(env);
	free(env_task);
	close_fd(&inp[0]);
	close_fd(&outp[1]);
	close_fd(&errp[1]);
	if (pid < 0) {
		*err = xasprintf("cannot start the agent: fork: %s",
		    strerror(errno));
		close_fd(&inp[1]); close_fd(&outp[0]); close_fd(&errp[0]);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		(void)prctl(PR_SET_CHILD_SUBREAPER, was_subreaper);
		free(before);
		return false;
	}
	setpgid(pid, pid);	/* also done by the child: whoever is first */
	fcntl(inp[1], F_SETFL, fcntl(inp[1], F_GETFL) | O_NONBLOCK);
	if (inlen == 0)
		close_fd(&inp[1]);
	rn.pid = pid;
	rn.in = inp[1];
	rn.out = outp[0];
	rn.err = errp[0];
	oc = exchange(&rn);
	close_fd(&rn.in);
	close_fd(&rn.out);
	close_fd(&rn.err);
	/* The leader is unreaped: the group id is still the agent's. */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* What it left behind outside its group (setsid), and below. */
	sweep(before, nbefore);
	(void)prctl(PR_SET_CHILD_SUBREAPER, was_subreaper);
	free(before);
	/* Consume a SIGPIPE the agent caused, then restore the mask. */
	sigpending(&pending);
	if (!had_sigpipe && sigismember(&pending, SIGPIPE) == 1) {
		struct timespec zero = { 0, 0 };
		sigtimedwait(&pipe_set, NULL, &zero);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);

	outcome_message(&rn, oc, status, &msg);
	if (msg.len > 0) {
		add_stderr_line(&msg, &rn.eb);
		*err = sbuf_take(&msg);
		sbuf_free(&rn.ob);
		sbuf_free(&rn.eb);
		return false;
	}
	sbuf_free(&rn.eb);
	*outlen = rn.ob.len;
	*out = rn.ob.len > 0 ? sbuf_take(&rn.ob) : xstrdup("");
	sbuf_free(&rn.ob);
	return true;
}

/* ---- the whole exchange ---- */

/* The task as the agent may take it; false with *err (heap) if not. */
static bool
check_task(const char *task, size_t tasklen, char **err)
{
	if (tasklen == 0) {
		*err = xstrdup("no task after '?' (type '? TASK')");
		return false;
	}
	if (tasklen > AGENT_MAX_TASK) {
		*err = xasprintf("the task is longer than %u bytes",
		    AGENT_MAX_TASK);
		return false;
	}
	if (!is_text(task, tasklen)) {
		*err = xstrdup("the task is not valid UTF-8");
		return false;
	}
	return true;
}

/*
 * What a loop of more than one turn adds to the context block: how the
 * loop works, how to end it, and the turns so far.
 */
static void
add_turns(const struct agent_loop *l, struct sbuf *out)
{
	sbuf_addf(out, "\nTURNS: this is turn %u of at most %u.  After each"
	    " turn, what its lines did\ncomes back to you below as JSON lines,"
	    " the ones `sandboxrepl --json` prints:\nthe turn's proposal"
	    " {\"agent\":{\"task\":...,\"turn\":K,\"turns\":%u,"
	    "\"proposal\":[...]}},\nthen the records of each proposed line in"
	    " order, one per path\n({\"step\":...,\"path\":...,\"verdict\":"
	    "\"ok\"|\"blocked\"|...,\"reason\":...,\"result\":...}).\nA turn"
	    " ends at the next {\"agent\":...} line or at the end of this"
	    " input.\nAn input that was refused (\"verdict\":\"blocked\") may"
	    " be tried again another\nway.  When the task is done, or cannot be"
	    " done, reply with the one line DONE.\n", l->turn, l->turns,
	    l->turns);
	if (l->history->len == 0)
		sbuf_adds(out, "\nTURNS SO FAR: none\n");
	else {
		sbuf_adds(out, "\nTURNS SO FAR (JSON lines, oldest first):\n");
		sbuf_add(out, l->history->data, l->history->len);
	}
}

/* Ask the agent once: the context (and, in a loop, the turns so far),
 * the run, the answer cut into lines. */
static bool
ask(const struct agent_opts *o, struct session *s, const char *task,
    size_t tasklen, const struct agent_loop *l, struct agent_proposal *out,
    char **err)
{
	struct sbuf ctx = SBUF_INIT;
	size_t anslen;
	char *answer, *why;
	bool ok;

	agent_context(s, task, tasklen, &ctx);
	if (l != NULL)
		add_turns(l, &ctx);
	ok = agent_exec(o, task, ctx.data, ctx.len, &answer, &anslen, &why);
	sbuf_free(&ctx);
	if (!ok) {
		*err = why;
		return false;
	}
	out->task = xstrndup(task, tasklen);
	out->answer = answer;
	if (!agent_parse_answer(answer, anslen, out, &why)) {
		agent_proposal_free(out);
		*err = why;
		return false;
	}
	return true;
}

bool
agent_propose(const struct agent_opts *o, struct session *s,
    const char *task, struct agent_proposal *out, char **err)
{
	size_t tasklen = strlen(task);

	memset(out, 0, sizeof *out);
	*err = NULL;
	if (!check_task(task, tasklen, err))
		return false;
	return ask(o, s, task, tasklen, NULL, out, err);
}

/* ---- the loop ---- */

void
agent_loop_init(struct agent_loop *l, const struct agent_opts *o,
    struct session *s, const char *task, size_t tasklen)
{
	memset(l, 0, sizeof *l);
	l->o = o;
	l->s = s;
	/* as agent_propose() takes it: up to a NUL, which input can hold */
	l->task = xstrndup(task, tasklen);
	l->tasklen = strlen(l->task);
	l->turns = o->turns ? o->turns : AGENT_DEFAULT_TURNS;
	if (l->turns > AGENT_MAX_TURNS)
		l->turns = AGENT_MAX_TURNS;
	l->end = AGENT_RUNNING;
	l->history = xcalloc(1, sizeof *l->history);
}

/* Is the proposal the agent's way of saying it is done? */
static bool
is_done(const struct agent_proposal *p)
{
	return p->nlines == 1 && strcmp(p->lines[0], "DONE") == 0;
}

bool
agent_loop_next(struct agent_loop *l, struct agent_proposal *p, char **err)
{
	struct sbuf shown = SBUF_INIT;

	memset(p, 0, sizeof *p);
	*err = NULL;
	if (l->end != AGENT_RUNNING)
		return false;
	if (l->turn >= l->turns) {
		l->end = AGENT_TURNS_USED;
		return false;
	}
	if (l->history->len > AGENT_MAX_HISTORY) {
		l->end = AGENT_HISTORY_FULL;
		return false;
	}
	if (!check_task(l->task, l->tasklen, err)) {
		l->end = AGENT_FAILED;
		return false;
	}
	l->turn++;
	if (!ask(l->o, l->s, l->task, l->tasklen, l->turns > 1 ? l : NULL, p,
	    err)) {
		l->end = AGENT_FAILED;
		return false;
	}
	if (l->turns > 1 && is_done(p)) {
		agent_proposal_free(p);
		l->end = AGENT_DONE;
		return false;
	}
	if (l->turns > 1) {
		p->turn = l->turn;
		p->turns = l->turns;
		/* the proposal object starts the turn in the history */
		agent_proposal_show(p, true, &shown);
		sbuf_add(l->history, shown.data, shown.len);
		sbuf_addc(l->history, '\n');
		sbuf_free(&shown);
	}
	return true;
}

void
agent_loop_records(struct agent_loop *l, const struct record *r, size_t n)
{
	size_t i;

	if (l->turns <= 1)
		return;		/* no turn after this one reads them */
	for (i = 0; i < n; i++) {
		record_json(&r[i], l->history);
		sbuf_addc(l->history, '\n');
	}
}

void
agent_loop_show_end(const struct agent_loop *l, bool json,
    struct sbuf *out)
{
	static const char *const end_names[] = {
		[AGENT_DONE] = "done", [AGENT_TURNS_USED] = "turns",
		[AGENT_HISTORY_FULL] = "history",
	};
	unsigned ran;

	if (l->turns <= 1 || l->end == AGENT_RUNNING ||
	    l->end == AGENT_FAILED)
		return;
	/* the turn that said DONE ran nothing */
	ran = l->end == AGENT_DONE ? l->turn - 1 : l->turn;
	if (json) {
		json_t *o = json_pack("{s:{s:s,s:s,s:I}}", "agent", "task",
		    l->task, "end", end_names[l->end], "turns",
		    (json_int_t)ran);
		char *text = o ? json_dumps(o, JSON_COMPACT |
		    JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) : NULL;
		if (text != NULL)
			sbuf_adds(out, text);
		free(text);
		json_decref(o);
		return;
	}
	sbuf_addf(out, "agent: %s after %u turn%s (--agent-turns=%u)",
	    l->end == AGENT_DONE ? "done" : "stopped", ran, ran == 1 ? "" :
	    "s", l->turns);
	if (l->end == AGENT_HISTORY_FULL)
		sbuf_addf(out, ": its records passed %u MiB",
		    AGENT_MAX_HISTORY >> 20);
}

void
agent_loop_free(struct agent_loop *l)
{
	free(l->task);
	if (l->history != NULL) {
		sbuf_free(l->history);
		free(l->history);
	}
	memset(l, 0, sizeof *l);
}

void
agent_loop_run(struct agent_loop *l, const struct agent_turn_ops *ops,
    struct agent_run *out)
{
	const struct agent_opts *o = l->o;
	struct agent_proposal prop;
	size_t i;

	memset(out, 0, sizeof *out);
	while (!out->stopped && agent_loop_next(l, &prop, &out->err)) {
		ops->proposed(ops->arg, &prop);
		for (i = 0; i < prop.nlines; i++) {
			struct arena *a = arena_new();
			struct record *r;
			size_t n = agent_run_line(l->s, prop.lines[i], 0, a,
			    &r);

			agent_loop_records(l, r, n);
			ops->ran(ops->arg, prop.lines[i], r, n);
			arena_free(a);
			/* (the next line's run would clear a Ctrl-C) */
			if (o->is_cancelled != NULL &&
			    o->is_cancelled(o->cancel_arg)) {
				out->stopped = true;
				break;
			}
		}
		out->proposed += prop.nlines;
		agent_proposal_free(&prop);
		if (!out->stopped && l->turn < l->turns &&
		    ops->between != NULL)
			ops->between(ops->arg, l);
	}
}

size_t
agent_run_line(struct session *s, const char *line, unsigned mask,
    struct arena *a, struct record **out)
{
	size_t n = session_run(s, line, strlen(line), NULL, mask, a, out), i;
	for (i = 0; i < n; i++)
		(*out)[i].source = "agent";
	return n;
}

void
agent_proposal_show(const struct agent_proposal *p, bool json,
    struct sbuf *out)
{
	size_t i;
	if (json) {
		json_t *lines = json_array(), *o;
		char *text;
		for (i = 0; i < p->nlines; i++)
			json_array_append_new(lines,
			    json_string(p->lines[i]));
		if (p->turns > 1)
			o = json_pack("{s:{s:s?,s:I,s:I,s:o}}", "agent", "task",
			    p->task, "turn", (json_int_t)p->turn, "turns",
			    (json_int_t)p->turns, "proposal", lines);
		else
			o = json_pack("{s:{s:s?,s:o}}", "agent", "task",
			    p->task, "proposal", lines);
		text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
		    JSON_ENSURE_ASCII) : NULL;
		if (text != NULL)
			sbuf_adds(out, text);
		free(text);
		json_decref(o);
		return;
	}
	for (i = 0; i < p->nlines; i++) {
		sbuf_addf(out, "%sagent proposes", i ? "\n" : "");
		if (p->turns > 1)
			sbuf_addf(out, " (turn %u of %u)", p->turn, p->turns);
		sbuf_adds(out, ": ");
		textesc_add(out, p->lines[i], strlen(p->lines[i]), 0);
	}
}
