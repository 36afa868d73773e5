/*
 * gvisor.c -- worlds of the gVisor kind: the jail path's CPython under
 * gVisor's runsc, a second kernel between the code and the host's.
 *
 * The session's side (gvisor_spawn) makes an OCI bundle in TMPDIR for
 * each world: a read-only root of its own holding the replica's minimal
 * /etc (replica.c's table, an empty trust store: there is no network)
 * and mount points; the host's
 * /usr bound read-only, nosuid, nodev, as every world has it; this
 * program bound read-only at /worker; tmpfs for the workspace, HOME and
 * /tmp; new pid, network, ipc, uts and mount namespaces; the agent user
 * (1000), no capabilities, no_new_privs.  The janitor (janitor.c) is
 * told of the bundle, so it goes however the session ends.  It then runs
 *
 *     runsc --rootless --ignore-cgroups --network=none --root=BUNDLE/state
 *           run --bundle=BUNDLE ID
 *
 * never as root.  As root, the world takes an id of its own (jail_ids.h,
 * held until runsc is reaped), the bundle is chowned to it, and the
 * child that execs runsc enters the world's memory cgroup where the
 * machine gives one (jail_cgroup.c, GVISOR_MEM_BYTES for the whole
 * sandbox) and becomes that id: runsc's sandbox, gofer and gVisor's
 * kernel run as no one else on the host (as root, runsc would run its
 * sandbox as nobody, 65534, whom any process of nobody's can signal).
 * --rootless makes runsc's own user namespace; it needs user namespaces,
 * as the other worlds do.  --ignore-cgroups: runsc would make a cgroup
 * per container in every controller, and a world's end -- runsc killed
 * -- leaves them all behind.  Inside, every world's rlimits, which
 * gVisor's kernel enforces, bound the code's processes, cgroup or not
 * (WORLD_NPROC of them, WORLD_AS_BYTES each over the interpreter's:
 * WORLD_MEM_BYTES in all).  runsc has the world's end of the session's
 * socket as the container's stdout, the program's CPython module as its
 * stdin (pymod.c: a memfd copy of the module the session checked and
 * loaded, sealed against any change, since no owner the worker could
 * check holds under runsc's remapped ids), its own stderr in the
 * bundle (what it says when it cannot start), a death signal tied to
 * the session, and a session of its own.
 * Killing runsc ends the sandbox (its boot is --attached).
 *
 * Inside, gvisor_worker() is the sandbox's PID 1, and does what a
 * replica world's PID 1 does after its kernel set-up: descriptors 0 on
 * /dev/null, 1 and 2 on the output file, 3 the socket and nothing else;
 * CPython initialised from the module its stdin held (pyrun_module_take,
 * pyrun_init: the worker is its own zygote); the
 * worlds' rlimits; the interpreter forked as its child, which says
 * ready and serves the wire protocol (wire.h) as in any world; and PID 1
 * becomes the same small init (world_init_main).  Every step checked;
 * a failure is refused on the socket, as replica.c refuses, and nothing
 * runs.  The calls the code makes -- execve of /bin/sh, unlink, socket
 * -- are answered by gVisor's Sentry, a kernel written in Go running in
 * user space; the host kernel sees only the Sentry's own few calls,
 * which runsc's seccomp filter confines.
 *
 * Never a weaker fallback: where runsc is not found, cannot make its
 * sandbox, or the worker cannot start, the world is not built and the
 * jail path refuses with the reason.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail/jail_ids.h"
#include "jail/jail_int.h"
#include "wire.h"
#include "world.h"
#include "world_int.h"
#include "base/xalloc.h"
#include "jail/jail_sys.h"

/* The worker's mount point, inside. */
#define WORKER_PATH	"/worker"

/*
 * All a gVisor world holds, where the machine gives it a memory cgroup
 * (jail_cgroup.c): what the code holds, as in every world
 * (WORLD_MEM_BYTES), and gVisor's own kernel and gofer beside it.
 */
#define GVISOR_MEM_BYTES	(world_memory() + (256ull << 20))

/* A read-only file's bind mount. */
static const char *const ro_file_opts[] = { "bind", "ro", "nosuid", "nodev",
    NULL };

/* ---------------------------------------------------------------- */
/* the session's side                                                 */
/* ---------------------------------------------------------------- */

static void gvisor_reap(struct gvisor_proc *g);

/* runsc: SANDBOXREPL_RUNSC when set (a test or an unusual install names
 * it), else the first "runsc" on PATH; false with why when there is none:
 * the caller refuses. */
static bool
find_runsc(char *out, size_t n, char *why, size_t wn)
{
	return bundle_find("SANDBOXREPL_RUNSC", "runsc", "gVisor's runsc",
	    "runsc", out, n, why, wn);
}

static int
make_dir(const char *dir, const char *rel)
{
	char path[PATH_MAX];

	if (!bundle_join(path, sizeof path, dir, rel))
		return -1;
	return mkdir(path, 0755) == -1 && errno != EEXIST ? -1 : 0;
}

static int
make_file(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];

	if (!bundle_join(path, sizeof path, dir, rel))
		return -1;
	return jail_write_text(path, text, O_CREAT | O_EXCL);
}

/* A mount of the OCI spec. */
static json_t *
mount_of(const char *dst, const char *type, const char *src,
    const char *const *opts)
{
	json_t *m = json_pack("{s:s, s:s, s:s}", "destination", dst, "type",
	    type, "source", src), *o = json_array();
	size_t i;

	for (i = 0; opts != NULL && opts[i] != NULL; i++)
		json_array_append_new(o, json_string(opts[i]));
	json_object_set_new(m, "options", o);
	return m;
}

/*
 * The root: mount points and the replica's /etc, under dir/rootfs; the
 * host's files an interpreter needs, bound read-only where they exist.
 */
static int
make_rootfs(const char *root, json_t *mounts, char *why, size_t n)
{
	static const char *const dirs[] = {
		"etc", "etc/ssl", "etc/ssl/certs", "home", "home/agent", "root",
		"dev", "proc", "usr", "var", "var/tmp", "run", "tmp",
		"workspace",
	};
	static const char *const links[][2] = {
		{ "usr/bin", "bin" }, { "usr/lib", "lib" },
		{ "usr/lib64", "lib64" }, { "usr/sbin", "sbin" },
	};
	static const char *const ro[] = { "rbind", "ro", "nosuid", "nodev",
	    NULL };
	static const struct { const char *path; bool dir; } host[] = {
		{ "/etc/ssl/openssl.cnf", false },
		{ "/etc/alternatives", true },
		{ "/etc/python3.11", true },
	};
	char path[PATH_MAX];
	struct stat sb;
	size_t i;

	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (make_dir(root, dirs[i]) == -1) {
			snprintf(why, n, "bundle: mkdir %s: %s", dirs[i],
			    strerror(errno));
			return -1;
		}
	for (i = 0; i < sizeof links / sizeof links[0]; i++) {
		if (!bundle_join(path, sizeof path, root, links[i][1]) ||
		    symlink(links[i][0], path) == -1) {
			snprintf(why, n, "bundle: link %s: %s", links[i][1],
			    strerror(errno));
			return -1;
		}
	}
	for (i = 0; world_etc_files[i].path != NULL; i++)
		if (make_file(root, world_etc_files[i].path + 1,
		    world_etc_files[i].text) == -1) {
			snprintf(why, n, "bundle: %s: %s",
			    world_etc_files[i].path, strerror(errno));
			return -1;
		}
	/* no network: an empty trust store, as in a jail world */
	if (make_file(root, "etc/ssl/certs/ca-certificates.crt", "") == -1 ||
	    make_file(root, &WORKER_PATH[1], "") == -1) {
		snprintf(why, n, "bundle: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof host / sizeof host[0]; i++) {
		if (stat(host[i].path, &sb) == -1)
			continue;
		if ((host[i].dir ? make_dir(root, host[i].path + 1) :
		    make_file(root, host[i].path + 1, "")) == -1) {
			snprintf(why, n, "bundle: %s: %s", host[i].path,
			    strerror(errno));
			return -1;
		}
		json_array_append_new(mounts, mount_of(host[i].path, "bind",
		    host[i].path, ro));
	}
	return 0;
}

/* The OCI spec of a world (config.json), or NULL. */
static json_t *
make_spec(const char *exe, int fail_at, json_t *mounts)
{
	static const char *const ro[] = { "rbind", "ro", "nosuid", "nodev",
	    NULL };
	static const char *const proc[] = { "nosuid", "nodev", "noexec",
	    NULL };
	char ws[32], tmp[32], uid[16], gid[16], fail[16], mem[32];
	const char *ws_opts[] = { ws, uid, gid, "mode=0755", "nosuid",
	    "nodev", NULL };
	const char *tmp_opts[] = { tmp, "mode=1777", "nosuid", "nodev",
	    NULL };
	const char *home_opts[] = { "size=1048576", uid, gid, "mode=0755",
	    "nosuid", "nodev", NULL };
	json_t *spec;

	snprintf(ws, sizeof ws, "size=%u", WORLD_WS_BYTES);
	snprintf(uid, sizeof uid, "uid=%d", WORLD_INNER_ID);
	snprintf(gid, sizeof gid, "gid=%d", WORLD_INNER_ID);
	snprintf(tmp, sizeof tmp, "size=%u", WORLD_TMP_BYTES);
	snprintf(fail, sizeof fail, "%d", fail_at);
	snprintf(mem, sizeof mem, "%llu", (unsigned long long)world_memory());
	json_array_append_new(mounts, mount_of("/proc", "proc", "proc", proc));
	json_array_append_new(mounts, mount_of("/dev", "tmpfs", "tmpfs",
	    NULL));
	json_array_append_new(mounts, mount_of("/usr", "bind", "/usr", ro));
	json_array_append_new(mounts, mount_of(WORKER_PATH, "bind", exe,
	    ro_file_opts));
	json_array_append_new(mounts, mount_of(WORLD_WORKSPACE, "tmpfs",
	    "tmpfs", ws_opts));
	json_array_append_new(mounts, mount_of(WORLD_HOME, "tmpfs", "tmpfs",
	    home_opts));
	json_array_append_new(mounts, mount_of("/tmp", "tmpfs", "tmpfs",
	    tmp_opts));
	spec = json_pack("{s:s, s:{s:{s:i, s:i}, s:[s, s, s, s], "
	    "s:[s, s, s], s:s, s:{}, s:b, s:[{s:s, s:i, s:i}, "
	    "{s:s, s:i, s:i}]}, s:{s:s, s:b}, s:s, s:o, "
	    "s:{s:[{s:s}, {s:s}, {s:s}, {s:s}, {s:s}]}}",
	    "ociVersion", "1.0.0",
	    "process",
	      "user", "uid", WORLD_INNER_ID, "gid", WORLD_INNER_ID,
	      "args", WORKER_PATH, GVISOR_WORKER_FLAG, fail, mem,
	      "env", "PATH=/usr/bin:/bin", "HOME=" WORLD_HOME, "LANG=C.UTF-8",
	      "cwd", WORLD_WORKSPACE,
	      "capabilities",
	      "noNewPrivileges", 1,
	      "rlimits",
	        "type", "RLIMIT_NOFILE", "hard", WORLD_NOFILE,
	        "soft", WORLD_NOFILE,
	        "type", "RLIMIT_CORE", "hard", 0, "soft", 0,
	    "root", "path", "rootfs", "readonly", 1,
	    "hostname", "world",
	    "mounts", mounts,
	    "linux", "namespaces", "type", "pid", "type", "network",
	      "type", "ipc", "type", "uts", "type", "mount");
	return spec;
}

/*
 * runsc's sandbox process, which serves the bundle's root, runs as an
 * unprivileged user of its own: every directory down to the bundle must
 * be searchable by others, or it fails with nothing clearer than "cannot
 * read client sync file".  false with why when one is not.
 */
static bool
searchable(const char *dir, char *why, size_t n)
{
	char path[PATH_MAX], *p;
	struct stat sb;

	snprintf(path, sizeof path, "%s", dir);
	for (;;) {
		const char *at = path[0] ? path : "/";

		if (stat(at, &sb) == -1 || !(sb.st_mode & S_IXOTH)) {
			snprintf(why, n, "%.200s is not searchable by other "
			    "users, which runsc's sandbox needs (set TMPDIR "
			    "elsewhere)", at);
			return false;
		}
		if (path[0] == '\0' || (p = strrchr(path, '/')) == NULL)
			return true;
		*p = '\0';
	}
}

/*
 * As root, the child becomes the world's own id before runsc starts: in
 * the world's memory cgroup first where the machine has one (every
 * process runsc starts is then in it: this step, jail_fork's prepare),
 * then no groups, the id as every uid and gid (jail_fork's ids).  runsc
 * runs --rootless as that id: its sandbox, gofer and Sentry run as an id
 * no one else on the host holds, not as nobody.  0, or -1 with what
 * failed on descriptor 2 (runsc.err by then).
 */
static int
world_cgroup(void *ctx)
{
	const uid_t *id = ctx;
	char dir[PATH_MAX], why[256] = "";

	if (jail_cgroup_prepare(dir, sizeof dir, why, sizeof why) == -1) {
		dprintf(2, "memory cgroup: %s\n", why);
		return -1;
	}
	if (dir[0] != '\0' && jail_cgroup_enter(dir, (unsigned)*id,
	    GVISOR_MEM_BYTES, why, sizeof why) == -1) {
		dprintf(2, "memory cgroup: %s: %s\n", why, strerror(errno));
		return -1;
	}
	return 0;
}

/* The child: runsc, with the module's sealed copy as its stdin (-1:
 * /dev/null), the socket as its stdout and runsc.err as its stderr, dying with the session, signals unblocked, in
 * a session of its own (the terminal's ^C is not runsc's); as root, in
 * the world's cgroup and as its id first (world_cgroup). */
static pid_t
fork_runsc(int module, int sock, int errfd, uid_t id, char *const *argv)
{
	const int fds[3] = { module, sock, errfd };
	struct jail_child_spec spec = {
		.flags = JAIL_FORK_DEATHSIG | JAIL_FORK_SIGNALS |
		    JAIL_FORK_SESSION | JAIL_FORK_FLUSH,
		.fds = fds,
		.nfds = 3,
	};
	const char *failed;
	pid_t pid;

	if (id != 0) {
		spec.flags |= JAIL_FORK_IDS;
		spec.prepare = world_cgroup;
		spec.ctx = &id;
		spec.uid = id;
		spec.gid = id;
	}
	pid = jail_fork(&spec, &failed);
	if (pid != 0)
		return pid;
	if (failed != NULL) {
		if (strcmp(failed, "ids") == 0)
			dprintf(2, "cannot become the world's id %u: %s\n",
			    (unsigned)id, strerror(errno));
		_exit(127);
	}
	execv(argv[0], argv);
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int
gvisor_spawn(int sock, int fail_at, struct gvisor_proc *g, int *pidfd,
    char *why, size_t n)
{
	char runsc[PATH_MAX], exe[PATH_MAX], root[PATH_MAX], state[PATH_MAX],
	    bundle[PATH_MAX + 16], id[64];
	const char *tmpdir = bundle_tmpdir();
	static unsigned serial;
	struct jail_ids ids = { .uid = 0, .gid = 0, .lock_fd = -1 };
	json_t *mounts, *spec;
	char *argv[12];
	size_t k = 0;
	ssize_t len;
	int errfd, module = -1;
	pid_t pid;

	memset(g, 0, sizeof *g);
	g->id_lock = -1;
	*pidfd = -1;
	if (!find_runsc(runsc, sizeof runsc, why, n))
		return -1;
	/* The program's CPython module (pymod.c), as the container's stdin:
	 * a sealed copy of the module this session checked and loaded.  The
	 * worker loads what that descriptor holds; it trusts no path, since
	 * inside runsc --rootless the ids it would check are remapped and
	 * the bundle's files are the host user's. */
	if (pyrun_module_sealed(&module, why, n) == -1)
		return -1;
	if (geteuid() == 0) {
		/* an id of the world's own, held until it is reaped */
		char idwhy[200] = "";

		if (jail_ids_acquire(&ids, idwhy, sizeof idwhy) == -1) {
			snprintf(why, n, "the world's own id: %s%s%s", idwhy,
			    idwhy[0] ? ": " : "", strerror(errno));
			return -1;
		}
		g->id_lock = ids.lock_fd;
	}
	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len <= 0 || (size_t)len >= sizeof exe - 1) {
		snprintf(why, n, "cannot find this program for the worker");
		goto fail;
	}
	exe[len] = '\0';
	if (!searchable(tmpdir, why, n) ||
	    (g->dir = bundle_make(tmpdir, "gvisor", why, n)) == NULL)
		goto fail;
	snprintf(root, sizeof root, "%s/rootfs", g->dir);
	snprintf(state, sizeof state, "--root=%s/state", g->dir);
	mounts = json_array();
	if (mkdir(root, 0755) == -1 || make_rootfs(root, mounts, why, n)
	    == -1) {
		if (why[0] == '\0')
			snprintf(why, n, "bundle: %s", strerror(errno));
		json_decref(mounts);
		goto fail;
	}
	spec = make_spec(exe, fail_at, mounts);	/* (takes mounts) */
	snprintf(bundle, sizeof bundle, "%s/config.json", g->dir);
	if (spec == NULL || json_dump_file(spec, bundle, JSON_COMPACT) == -1) {
		snprintf(why, n, "bundle: cannot write config.json");
		json_decref(spec);
		goto fail;
	}
	json_decref(spec);
	if (ids.uid != 0 && bundle_chown(g->dir, ids.uid) == -1) {
		snprintf(why, n, "bundle: chown to the world's id: %s",
		    strerror(errno));
		goto fail;
	}
	snprintf(bundle, sizeof bundle, "%s/runsc.err", g->dir);
	errfd = open(bundle, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (errfd < 0) {
		snprintf(why, n, "bundle: %s", strerror(errno));
		goto fail;
	}
	snprintf(bundle, sizeof bundle, "--bundle=%s", g->dir);
	snprintf(id, sizeof id, "sandboxrepl-%ld-%u", (long)getpid(),
	    ++serial);
	g->uid = ids.uid;
	g->runsc = xstrdup(runsc);
	g->state = xstrdup(state);
	g->id = xstrdup(id);
	argv[k++] = runsc;
	/* (never as root: as the caller, or as the world's own id) */
	argv[k++] = (char *)"--rootless";
	argv[k++] = (char *)"--ignore-cgroups";
	argv[k++] = (char *)"--network=none";
	argv[k++] = state;
	argv[k++] = (char *)"run";
	argv[k++] = bundle;
	argv[k++] = id;
	argv[k] = NULL;
	pid = fork_runsc(module, sock, errfd, ids.uid, argv);
	close(errfd);
	if (module != -1)
		close(module);
	module = -1;
	if (pid < 0) {
		snprintf(why, n, "fork: %s", strerror(errno));
		goto fail;
	}
	g->pid = pid;
	*pidfd = (int)syscall(__NR_pidfd_open, pid, 0);
	if (*pidfd < 0) {
		snprintf(why, n, "pidfd_open: %s", strerror(errno));
		kill(pid, SIGKILL);
		gvisor_reap(g);
		return -1;
	}
	return 0;
fail:
	if (module != -1)
		close(module);
	gvisor_reap(g);
	return -1;
}

static void
gvisor_failure(const struct gvisor_proc *g, char *why, size_t n)
{
	char buf[2048], *line, *end;
	size_t got;

	why[0] = '\0';
	if ((got = bundle_tail(g->dir, "runsc.err", buf, sizeof buf)) == 0)
		return;
	/* its last line that says something */
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		buf[--got] = '\0';
	line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	for (end = line; *end; end++)
		if ((unsigned char)*end < ' ')
			*end = ' ';
	snprintf(why, n, "%s", line);
}

static void
gvisor_interrupt(struct gvisor_proc *g)
{
	static const int fds[3] = { -1, -1, -1 };	/* /dev/null */
	struct jail_child_spec spec = {
		.flags = JAIL_FORK_DEATHSIG | JAIL_FORK_SESSION |
		    JAIL_FORK_FLUSH,
		.fds = fds,
		.nfds = 3,
	};
	const char *failed;
	char sig[16];
	pid_t pid;

	if (g->killer > 0 && waitpid(g->killer, NULL, WNOHANG) != 0)
		g->killer = 0;		/* (the last one is done) */
	if (g->pid <= 0 || g->runsc == NULL || g->killer > 0)
		return;
	snprintf(sig, sizeof sig, "%d", WORLD_INTERRUPT_SIGNAL);
	/* as the id its runsc runs as, whose state it is */
	if (g->uid != 0) {
		spec.flags |= JAIL_FORK_IDS;
		spec.uid = spec.gid = g->uid;
	}
	pid = jail_fork(&spec, &failed);
	if (pid == 0) {
		char *argv[] = { g->runsc, (char *)"--rootless", g->state,
		    (char *)"kill", g->id, sig, NULL };

		if (failed == NULL)
			execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		g->killer = pid;
}

static void
gvisor_reap(struct gvisor_proc *g)
{
	if (g->killer > 0)
		while (waitpid(g->killer, NULL, 0) == -1 && errno == EINTR)
			;
	g->killer = 0;
	free(g->runsc);
	free(g->state);
	free(g->id);
	g->runsc = g->state = g->id = NULL;
	if (g->pid > 0)
		while (waitpid(g->pid, NULL, 0) == -1 && errno == EINTR)
			;
	g->pid = 0;
	bundle_remove(&g->dir);
	if (g->id_lock > 2)	/* (its processes are gone with runsc's) */
		close(g->id_lock);
	g->id_lock = -1;
}

/* The launcher's calls (world_int.h) on a gvisor_proc of the heap. */
static void *
launch_spawn(int sock, int fail_at, uint64_t mem, int *pidfd, char *why,
    size_t n)
{
	struct gvisor_proc *g = xcalloc(1, sizeof *g);

	(void)mem;	/* (make_spec gives the worker world_memory()) */
	if (gvisor_spawn(sock, fail_at, g, pidfd, why, n) == -1) {
		free(g);
		return NULL;
	}
	return g;
}

static void
launch_failure(void *st, char *why, size_t n)
{
	gvisor_failure(st, why, n);
}

static void
launch_interrupt(void *st)
{
	gvisor_interrupt(st);		/* (runsc passes no signal) */
}

static void
launch_reap(void *st)
{
	gvisor_reap(st);
	free(st);
}

const struct world_launcher world_gvisor_launcher = {
	.name = "gVisor", .sandbox = "gVisor's sandbox", .says = "runsc",
	.layer = "gvisor", .no_network = "the sandbox has no network "
	    "(runsc --network=none)", .inside = "inside gVisor's sandbox",
	.spawn = launch_spawn, .failure = launch_failure,
	.interrupt = launch_interrupt, .reap = launch_reap,
};

/* ---------------------------------------------------------------- */
/* the worker, PID 1 inside the sandbox                               */
/* ---------------------------------------------------------------- */

/* The one refusal of a set-up (jail_int.h). */
#define refuse(sock, step, err, detail) \
	jail_refuse((sock), (step), (err), (detail))

/*
 * 0 /dev/null, 1 and 2 the output file, 3 the socket, 4 the output, 5
 * the workspace, 6 the container's stdout, 7 the container's stdin (the
 * CPython module's sealed copy, until step_python takes it), nothing
 * else.  Its stdout is the session's socket, imported from the host;
 * PID 1 keeps a copy of stdout's descriptor (6) and only the interpreter
 * closes it.
 */
#define KEPT_STDOUT	6
#define KEPT_MODULE	7

static int
worker_fds(int *sock)
{
	struct rlimit rl;
	int devnull, capfd, wsdir, out, module, fd;

	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	capfd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (capfd < 0) {
		capfd = open("/tmp/.output", O_RDWR | O_CREAT | O_EXCL |
		    O_CLOEXEC, 0600);
		if (capfd >= 0)
			(void)unlink("/tmp/.output");
	}
	wsdir = open(WORLD_WORKSPACE, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (devnull < 0 || capfd < 0 || wsdir < 0 ||
	    fcntl(capfd, F_SETFL, O_APPEND) == -1 ||
	    chdir(WORLD_WORKSPACE) == -1)
		return -1;
	if ((out = fcntl(1, F_DUPFD_CLOEXEC, 10)) < 0 ||
	    (module = fcntl(0, F_DUPFD_CLOEXEC, 10)) < 0 ||
	    (devnull = fcntl(devnull, F_DUPFD_CLOEXEC, 10)) < 0 ||
	    (capfd = fcntl(capfd, F_DUPFD_CLOEXEC, 10)) < 0 ||
	    (wsdir = fcntl(wsdir, F_DUPFD_CLOEXEC, 10)) < 0)
		return -1;
	if (dup2(devnull, 0) == -1 || dup2(capfd, 1) == -1 ||
	    dup2(capfd, 2) == -1 || dup3(*sock, 3, O_CLOEXEC) == -1 ||
	    dup3(capfd, 4, O_CLOEXEC) == -1 ||
	    dup3(wsdir, 5, O_CLOEXEC) == -1 ||
	    dup3(out, KEPT_STDOUT, O_CLOEXEC) == -1 ||
	    dup3(module, KEPT_MODULE, O_CLOEXEC) == -1)
		return -1;
	*sock = 3;
	/* (this gVisor's close_range refuses ~0U as the last) */
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return -1;
	for (fd = KEPT_MODULE + 1; fd < (int)rl.rlim_cur && fd < 65536; fd++)
		(void)close(fd);
	(void)setsid();		/* (PID 1 may lead one already) */
	return 0;
}

/* The worker's set-up as steps (jail_walk): its stage. */
struct worker {
	int		 sock;
	uint64_t	 mem;
};

static int
step_fds(void *ctx, char *detail, size_t n)
{
	return worker_fds(&((struct worker *)ctx)->sock);
}

/* CPython, from the module the session handed over (KEPT_MODULE): what
 * it checked and loaded, never a file of the bundle's. */
static int
step_python(void *ctx, char *detail, size_t n)
{
	int rc = pyrun_module_take(KEPT_MODULE, detail, n);

	(void)close(KEPT_MODULE);
	return rc == -1 ? -1 : pyrun_init(detail, n);
}

static int
step_rlimits(void *ctx, char *detail, size_t n)
{
	/* The worlds' rlimits, each no higher than what the sandbox already
	 * allows (its container's limits, WITHIN): runsc starts its PID 1
	 * with hard limits of its own, and raising one is EPERM. */
	return world_set_rlimits(jail_container(JAIL_CONTAINER_GVISOR),
	    ((struct worker *)ctx)->mem, jail_mapped_bytes());
}

/* The worker's set-up, walked once: runsc made the namespaces, the
 * root, the ids and the filters (gVisor's), so what is left is its
 * descriptors, CPython, and the world's limits. */
static const struct jail_stepdef worker_steps[] = {
	{ JAIL_STEP_FDS,	step_fds,	"the worker's descriptors" },
	{ JAIL_STEP_PYTHON,	step_python,	NULL },
	{ JAIL_STEP_RLIMITS,	step_rlimits,	NULL },
};

static void gvisor_worker(int fail_at, uint64_t mem)
    __attribute__((noreturn));

static void
gvisor_worker(int fail_at, uint64_t mem)
{
	char why[WW_MAX_DETAIL] = "";
	struct worker wk = { fcntl(1, F_DUPFD_CLOEXEC, 10), mem };
	const struct jail_walk walk = { fail_at, &wk.sock, why, sizeof why };
	const char *failed;
	int sock;
	pid_t interp;

	if (wk.sock < 0)
		_exit(JAIL_EXIT_SETUP);
	jail_walk(&walk, worker_steps, sizeof worker_steps /
	    sizeof worker_steps[0], &wk);
	sock = wk.sock;
	if ((interp = jail_fork(NULL, &failed)) == -1)
		refuse(sock, JAIL_STEP_PYTHON, errno, "fork");
	if (interp == 0) {
		world_interp_group();
		close(KEPT_STDOUT);
		pyrun_after_fork();
		if (jail_wire_send(sock, WW_READY, NULL, 0,
		    NULL, 0) == -1)
			_exit(0);
		pyrun_serve(sock, 4, 5);
	}
	world_init_main(sock, 4, 5, interp);
}

void
gvisor_worker_main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], GVISOR_WORKER_FLAG) == 0 &&
	    getpid() == 1) {
		uint64_t mem = strtoull(argv[3], NULL, 10);
		gvisor_worker(atoi(argv[2]), mem >= WORLD_MEM_MIN ? mem :
		    WORLD_MEM_BYTES);
	}
}

/* ---------------------------------------------------------------- */
/* what bounds a world                                                */
/* ---------------------------------------------------------------- */

#define MIB(b)	((unsigned)((b) >> 20))

const char *
gvisor_memory_bound(void)
{
	static char text[512];
	int len;

	/* every world's rlimits, which gVisor's kernel enforces */
	len = snprintf(text, sizeof text, "enforced by gVisor: at most %u "
	    "processes of %u MiB of address space over the interpreter's "
	    "(%u MiB in all), %u s of CPU each, and the wall clock per input",
	    (unsigned)WORLD_NPROC, MIB(world_as_over(world_memory())),
	    MIB(world_memory()), (unsigned)WORLD_CPU_SECONDS);
	if (geteuid() == 0 && len > 0 && (size_t)len < sizeof text)
		snprintf(text + len, sizeof text - (size_t)len, "; as root, "
		    "under an id of its own, and the whole sandbox (gVisor's "
		    "kernel and gofer included) in a memory cgroup of %u MiB "
		    "where the machine gives one", MIB(GVISOR_MEM_BYTES));
	return text;
}
