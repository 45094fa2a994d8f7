// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-emul-fuse - no call blocks on a filesystem's server.
 *
 * A tiny FUSE daemon (this file, on /dev/fuse, no libfuse) serves a
 * directory with two subdirectories; mounts are made inside it (a tmpfs
 * on d, a devtmpfs on e: a type of no fixed magic) and under it (a tmpfs
 * on x, then covered by the FUSE mount, so its point is reached through
 * FUSE). Then the daemon stops answering: it still reads every request
 * (so a waiter sits in request_wait_answer()'s uninterruptible wait, which
 * SIGKILL does not end) but never replies. A control lookup proves it.
 *
 * Then every tool (lsmnt, also with the df columns, -c and the libblkid
 * columns, statmnt -r, statmnt /, statmnt ID, mntwatch --initial) and the
 * library calls (mntkit_list, mntkit_table_new, mntkit_stat of every mount,
 * mntkit_path_id of "/", mntkit_path_served) must return, each in a child
 * with a deadline: on the native backend, the mountinfo backend,
 * the automatic backend under a seccomp filter that hides statmount and
 * listmount (ENOSYS), and in old-ID mode (MNTKIT_TEST_OLD_IDS=1). The
 * watchdog is this process: when a child misses its deadline it kills the
 * daemon, which closes the last /dev/fuse fd and so aborts the connection
 * (every waiter returns), then fails the case. Tools run under
 * timeout(1) as well, and the daemon dies with the case (PDEATHSIG), so
 * nothing can hang the suite.
 *
 * The mountinfo backend's replies stay truthful: the mounts it did not look
 * at are named by their old (provisional) IDs, the tmpfs has its fixed
 * magic, the devtmpfs the magic of another mount of its superblock (/dev)
 * or 0, and its device and flags.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "seccomp.h"
#include "mntkit.h"

#define TMPFS_MAGIC 0x01021994
/* a correct call takes milliseconds; this is for a loaded CI machine */
#define DEADLINE_MS 15000

/* ---- the daemon ---- */

static volatile sig_atomic_t swallow;

static void on_usr1(int sig)
{
	(void)sig;
	swallow = 1;
}

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = S_IFDIR | 0755;
	a->nlink = 2;
	a->blksize = 4096;
}

static void reply(int fd, uint64_t unique, int error, const void *arg,
		  size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header *oh = (void *)buf;

	oh->len = (uint32_t)(sizeof(*oh) + len);
	oh->error = error;
	oh->unique = unique;
	if (len)
		memcpy(buf + sizeof(*oh), arg, len);
	if (write(fd, buf, oh->len) < 0)
		_exit(0);
}

/* answer until SIGUSR1, then read every request and answer none */
static void serve(int fd)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		struct fuse_in_header *ih = (void *)buf;
		const char *arg = buf + sizeof(*ih);

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*ih))
			_exit(0); /* ENODEV: unmounted or aborted */
		if (swallow || ih->opcode == FUSE_FORGET ||
		    ih->opcode == FUSE_BATCH_FORGET ||
		    ih->opcode == FUSE_INTERRUPT)
			continue;
		switch (ih->opcode) {
		case FUSE_INIT: {
			struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION,
						   .minor = 26,
						   .max_write = 65536,
						   .max_background = 16 };

			reply(fd, ih->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out e = { 0 };

			if (strcmp(arg, "d") && strcmp(arg, "e")) {
				reply(fd, ih->unique, -ENOENT, NULL, 0);
				break;
			}
			/* valid for 0 s: every lookup asks again */
			e.nodeid = arg[0] == 'd' ? 2 : 3;
			fill_attr(&e.attr, e.nodeid);
			reply(fd, ih->unique, 0, &e, sizeof(e));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out a = { 0 };

			fill_attr(&a.attr, ih->nodeid);
			reply(fd, ih->unique, 0, &a, sizeof(a));
			break;
		}
		default:
			reply(fd, ih->unique, -ENOSYS, NULL, 0);
		}
	}
}

/* ---- the mounts ---- */

struct fz {
	char *f;          /* the FUSE mount */
	pid_t daemon;
	uint64_t old_d;   /* old IDs: the tmpfs on f/d, devtmpfs on f/e, */
	uint64_t old_e;   /* the tmpfs under f on x */
	uint64_t old_x;
	char tools[PATH_MAX];
};

static struct fz z;

static void kill_daemon(void)
{
	if (z.daemon > 0) {
		kill(z.daemon, SIGKILL);
		waitpid(z.daemon, NULL, 0);
	}
	z.daemon = 0;
}

/* the old ID of the mount on @point, from mountinfo (no library) */
static uint64_t old_id_of(const char *point)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], pt[4096];
	unsigned long long id, found = 0;

	if (!f)
		t_fail("mountinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llu %*u %*u:%*u %*s %4095s", &id, pt) == 2 &&
		    !strcmp(pt, point))
			found = id; /* the last one: on top */
	fclose(f);
	if (!found)
		t_fail("%s is not in mountinfo", point);
	return found;
}

/* does a lookup through the FUSE mount block now? (the control) */
static int lookup_blocks(void)
{
	char *p = t_path("%s/d/.", z.f);
	pid_t pid = fork();
	int st;

	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		struct stat sb;

		_exit(stat(p, &sb) ? 1 : 0);
	}
	usleep(300000);
	return waitpid(pid, &st, WNOHANG) == 0;
}

static void setup(void)
{
	char opts[128], *x;
	int fd;

	t_private_ns();
	/* BUILD/tests/emul/test-emul-fuse -> BUILD */
	snprintf(z.tools, sizeof(z.tools), "%s", t_build_file(3, "."));
	z.f = t_path("%s/f", t_tmpdir());
	x = t_path("%s/x", z.f);
	t_mkdir(z.f);
	t_mkdir(x);
	if (mount("under", x, "tmpfs", 0, NULL))
		t_fail("mount tmpfs %s: %s", x, strerror(errno));
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_skip("/dev/fuse: %s", strerror(errno));
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("mntkit-fuse", z.f, "fuse.mntkit", MS_NODEV | MS_NOSUID,
		  opts))
		t_skip("mount fuse: %s", strerror(errno));
	z.daemon = fork();
	if (z.daemon < 0)
		t_fail("fork: %s", strerror(errno));
	if (z.daemon == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGUSR1, on_usr1);
		serve(fd);
	}
	close(fd); /* the daemon's is the last: killing it aborts */
	if (mount("inside", t_path("%s/d", z.f), "tmpfs", 0, NULL))
		t_fail("mount tmpfs on %s/d: %s", z.f, strerror(errno));
	if (mount("devtmpfs", t_path("%s/e", z.f), "devtmpfs", 0, NULL))
		t_fail("mount devtmpfs on %s/e: %s", z.f, strerror(errno));
	/* a source that names a path inside the FUSE mount (lsmnt -c and
	 * the libblkid columns canonicalize sources) */
	if (mount(t_path("%s/d/src", z.f), t_tmpdir(), "tmpfs", 0, NULL))
		t_fail("mount tmpfs: %s", strerror(errno));
	z.old_d = old_id_of(t_path("%s/d", z.f));
	z.old_e = old_id_of(t_path("%s/e", z.f));
	z.old_x = old_id_of(x);
	kill(z.daemon, SIGUSR1);
	if (!lookup_blocks()) {
		kill_daemon();
		t_fail("a lookup through the stopped daemon did not block");
	}
}

/*
 * Run @fn in a child; fail (after aborting the FUSE connection, so that
 * the child can end) when it has not returned by the deadline.
 */
static void bounded(const char *what, void (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st, waited = 0;

	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (waited >= DEADLINE_MS) {
			kill(pid, SIGKILL);
			kill_daemon(); /* aborts the connection */
			waitpid(pid, &st, 0);
			t_fail("%s: still running after %d ms (blocked on "
			       "the FUSE daemon)", what, DEADLINE_MS);
		}
		usleep(10000);
		waited += 10;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) == T_EXIT_SKIP)
		t_skip("%s: %s", what, t_reason);
	t_fail("%s: %s", what,
	       t_reason[0] ? t_reason :
	       WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit status");
}

/* ---- the modes ---- */

enum mode { NATIVE, MOUNTINFO, HIDDEN, OLD_IDS };

static void child_env(enum mode m)
{
	static const struct t_refusal r[] = { { "statmount", ENOSYS },
					      { "listmount", ENOSYS } };

	unsetenv("MNTKIT_TEST_OLD_IDS");
	setenv("MNTKIT_BACKEND", m == NATIVE ? "native" :
				 m == HIDDEN ? "auto" : "mountinfo", 1);
	if (m == OLD_IDS)
		setenv("MNTKIT_TEST_OLD_IDS", "1", 1);
	if (m == HIDDEN && t_seccomp_refuse(r, 2) < 0)
		t_fail("seccomp: %s", strerror(errno));
}

struct run {
	enum mode mode;
	const char *argv[8];
};

static void run_tool(void *arg)
{
	struct run *r = arg;
	const char *argv[8] = { NULL };
	char prog[PATH_MAX + 64];
	pid_t pid;
	int st, null;

	snprintf(prog, sizeof(prog), "%s/tools/%s", z.tools, r->argv[0]);
	argv[0] = prog;
	for (int k = 1; r->argv[k]; k++)
		argv[k] = r->argv[k];
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		child_env(r->mode);
		null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		/* a tool that loops instead of returning dies of SIGALRM
		 * (an alarm survives exec; no timeout(1), which the qemu
		 * guests lack); one asleep in the FUSE server's wait is what
		 * the watchdog's abort ends */
		alarm(30);
		execv(prog, (char **)argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		t_fail("waitpid: %s", strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		t_fail("%s: exit status %d", prog,
		       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/* the library: list, snapshot, stat each, path_id of "/" */
static void run_lib(void *arg)
{
	enum mode m = *(enum mode *)arg;
	struct mntkit_table *tab = NULL;
	struct mntkit_statmount *sm;
	uint64_t *ids = NULL, id;
	int found_d = 0, found_e = 0, unique;
	ssize_t n;

	child_env(m);
	T_OK(mntkit_path_id(AT_FDCWD, "/", 0, &id));
	/* what lsmnt asks before statvfs: the FUSE mount, what is in and
	 * under it, and not the rest */
	T_EQ_I(mntkit_path_served(z.f), 1);
	T_EQ_I(mntkit_path_served(t_path("%s/d", z.f)), 1);
	T_EQ_I(mntkit_path_served(t_path("%s/x", z.f)), 1);
	T_EQ_I(mntkit_path_served(t_path("%sx", z.f)), 0);
	T_EQ_I(mntkit_path_served(t_base), 0);
	T_EQ_I(mntkit_path_served("/"), 0);
	T_EQ_I(mntkit_path_served("d"), -EINVAL);
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	T_ASSERTF(n > 0, "mntkit_list: %zd", n);
	T_OK(mntkit_table_new(MNTKIT_STATMOUNT_MNT_POINT |
				    MNTKIT_STATMOUNT_SB_BASIC, 0, NULL, &tab));
	T_ASSERT(mntkit_table_count(tab) == (size_t)n);
	mntkit_table_free(tab);
	unique = m == NATIVE || m == MOUNTINFO || m == HIDDEN;
	for (ssize_t k = 0; k < n; k++) {
		uint64_t want = MNTKIT_STATMOUNT_MNT_BASIC |
				MNTKIT_STATMOUNT_SB_BASIC |
				MNTKIT_STATMOUNT_MNT_POINT;
		int d, e;

		T_OK(mntkit_stat(ids[k], want, NULL, &sm));
		d = sm->mnt_id_old == z.old_d;
		e = sm->mnt_id_old == z.old_e;
		found_d |= d;
		found_e |= e;
		if (m == NATIVE || (!d && !e && sm->mnt_id_old != z.old_x)) {
			free(sm);
			continue;
		}
		/* not looked at: provisional old IDs (with unique IDs) */
		if (unique)
			T_EQ_U(sm->mnt_id, sm->mnt_id_old);
		if (d) {
			T_ASSERT(sm->mask & MNTKIT_STATMOUNT_SB_BASIC);
			T_EQ_U(sm->sb_magic, TMPFS_MAGIC);
		}
		if (e) {
			/* no fixed magic and its statfs is not asked: the
			 * magic of the devtmpfs on /dev (same superblock),
			 * else 0; device and flags from mountinfo */
			struct statfs sf;
			struct stat st;
			uint64_t want_magic = 0;

			T_ASSERT(sm->mask & MNTKIT_STATMOUNT_SB_BASIC);
			if (stat("/dev", &st) == 0 &&
			    major(st.st_dev) == sm->sb_dev_major &&
			    minor(st.st_dev) == sm->sb_dev_minor &&
			    statfs("/dev", &sf) == 0)
				want_magic = (unsigned long)sf.f_type;
			T_EQ_U(sm->sb_magic, want_magic);
		}
		free(sm);
	}
	T_ASSERT(found_d && found_e);
	free(ids);
}

/* the ID statmnt is given: the tmpfs inside the FUSE mount */
static void id_of_d(void *arg)
{
	struct { enum mode m; uint64_t *out; } *a = arg;
	struct mntkit_statmount *sm;
	uint64_t *ids = NULL;
	ssize_t n;

	child_env(a->m);
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	T_ASSERTF(n > 0, "mntkit_list: %zd", n);
	for (ssize_t k = 0; k < n; k++) {
		T_OK(mntkit_stat(ids[k], MNTKIT_STATMOUNT_MNT_BASIC, NULL,
				 &sm));
		if (sm->mnt_id_old == z.old_d)
			*a->out = ids[k];
		free(sm);
	}
	free(ids);
}

/* are lsmnt, statmnt and mntwatch next to this program's build? */
static int tools_built(void)
{
	static const char *const names[] = { "lsmnt", "statmnt", "mntwatch" };
	char prog[PATH_MAX + 64];

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		snprintf(prog, sizeof(prog), "%s/tools/%s", z.tools, names[k]);
		if (access(prog, X_OK))
			return 0;
	}
	return 1;
}

static void check_mode(enum mode m)
{
	uint64_t *id = mmap(NULL, sizeof(*id), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct { enum mode m; uint64_t *out; } a = { m, id };
	char idbuf[32];
	/* in a chroot into a plain directory, mountinfo lacks the mount of
	 * /, which the emulation then cannot answer: /proc's instead */
	int shown = t_root_in_mountinfo();
	const char *top = shown ? "/" : "/proc", *below = shown ? NULL : top;
	struct run tools[] = {
		{ m, { "lsmnt", NULL } },
		{ m, { "lsmnt", "--json", "-o", "+FSTYPE,ID,FSROOT", NULL } },
		{ m, { "lsmnt", "-o", "TARGET,SIZE,USED,AVAIL,USE%", NULL } },
		{ m, { "lsmnt", "--df", NULL } },
		{ m, { "lsmnt", "-c", NULL } },
		{ m, { "lsmnt", "-o", "+UUID,LABEL,PARTUUID", NULL } },
		{ m, { "statmnt", "-r", below, NULL } },
		{ m, { "statmnt", top, NULL } },
		{ m, { "statmnt", idbuf, NULL } },
		{ m, { "mntwatch", "--initial", "--timeout", "0.3", NULL } },
	};

	if (id == MAP_FAILED)
		t_fail("mmap: %s", strerror(errno));
	setup();
	if (m == NATIVE && syscall(T_NR_statmount, NULL, NULL, 0, 0) < 0 &&
	    errno == ENOSYS) {
		kill_daemon();
		t_skip("kernel has no statmount(2)");
	}
	bounded("library calls", run_lib, &m);
	*id = 0;
	bounded("the ID of the tmpfs inside", id_of_d, &a);
	T_ASSERT(*id);
	snprintf(idbuf, sizeof(idbuf), "%llu", (unsigned long long)*id);
	if (!tools_built()) {
		/* a build without the tools (i386: -Dtools=false) */
		if (!lookup_blocks())
			t_fail("the daemon answered again: the test proved "
			       "nothing");
		kill_daemon();
		t_skip("the library calls returned; the tools are not built "
		       "here (meson -Dtools=false), so their part is not run");
	}
	for (size_t k = 0; k < sizeof(tools) / sizeof(tools[0]); k++) {
		char what[128];

		snprintf(what, sizeof(what), "%s %s", tools[k].argv[0],
			 tools[k].argv[1] ? tools[k].argv[1] : "");
		bounded(what, run_tool, &tools[k]);
	}
	if (!lookup_blocks())
		t_fail("the daemon answered again: the test proved nothing");
	kill_daemon();
}

T_CASE(native) { check_mode(NATIVE); }
T_CASE(mountinfo) { check_mode(MOUNTINFO); }
T_CASE(auto_statmount_hidden) { check_mode(HIDDEN); }
T_CASE(old_ids) { check_mode(OLD_IDS); }

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
