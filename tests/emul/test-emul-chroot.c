// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The emulation in a chroot without /proc (what the kernel's statmount
 * selftests do: a tmpfs on an empty directory, chroot into it, then
 * statmount): the /proc handle taken at the first use or by mntkit_init()
 * keeps the emulation's answers, equal to the kernel's in the chroot (where
 * the kernel has statmount) and to the chrooted process's own mountinfo as
 * a process outside the chroot reads it (every kernel, also 5.10 in the
 * qemu guests); a process that never saw /proc gets ENOENT (mntkit(3)).
 */
#include <pthread.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include "emul-diff.h"

/*
 * A private namespace, a tmpfs "jail" with mounts below it: a, a/b, an
 * overmounted o (the lower one hidden), a bind of a at c. No /proc in it.
 */
static char *make_jail(void)
{
	char *j;

	t_private_ns();
	j = t_path("%s/jail", t_base);
	t_tmpfs(j, 0, NULL);
	t_tmpfs(t_path("%s/a", j), 0, NULL);
	t_tmpfs(t_path("%s/a/b", j), MS_RDONLY, NULL);
	t_tmpfs(t_path("%s/o", j), 0, "size=1m");
	t_mount("over", t_path("%s/o", j), "tmpfs", 0, "size=2m");
	t_bind(t_path("%s/a", j), t_path("%s/c", j), 0);
	t_mkdir(t_path("%s/empty", j));
	return j;
}

static void enter(const char *dir)
{
	struct stat st;

	if (chroot(dir) || chdir("/"))
		t_fail("chroot %s: %s", dir, strerror(errno));
	if (stat("/proc", &st) == 0 || errno != ENOENT)
		t_fail("the chroot has a /proc");
}

/* the emulation's listing from LSMT_ROOT, or -errno */
static ssize_t emul_count(void)
{
	uint64_t ids[256];
	struct mntkit_mnt_id_req req = { .size = 24,
					 .mnt_id = MNTKIT_LSMT_ROOT };
	ssize_t n;

	n = mntkit_mountinfo_ops.listmount(&req, ids, 256, 0);
	return n < 0 ? -errno : n;
}

/* is the library's /proc handle an fd of this process, close-on-exec? */
static void check_handle_cloexec(void)
{
	int found = 0;

	for (int fd = 3; fd < 1024; fd++) {
		struct statfs sfs;
		int fl = fcntl(fd, F_GETFD);

		if (fl < 0 || fstatfs(fd, &sfs) || sfs.f_type != 0x9fa0)
			continue;
		found = 1;
		if (!(fl & FD_CLOEXEC))
			t_fail("procfs fd %d without FD_CLOEXEC", fd);
	}
	if (!found)
		t_fail("no procfs fd held");
}

static void *thread_count(void *arg)
{
	*(ssize_t *)arg = emul_count();
	return NULL;
}

/*
 * First use before the chroot; after it, every answer of the emulation
 * equals the kernel's (listing, each mount with every group, the snapshot),
 * in another thread and in a forked child too, and a namespace named by ID
 * is found through the handle.
 */
T_CASE(chroot_kernel_parity)
{
	uint64_t *nat = NULL;
	ssize_t n, tn = -1;
	pthread_t th;
	pid_t pid;
	char *j;

	ed_require();
	j = make_jail();
	T_ASSERT(emul_count() > 0); /* the first use, with /proc */
	enter(j);
	ed_compare("chroot");
	n = t_lm_raw_ns(T_LSMT_ROOT, 0, 0, 0, &nat);
	free(nat);
	T_EQ_I(n, 6); /* jail, a, a/b, o, o's top, c */
	T_EQ_I(emul_count(), n);
	T_OK(pthread_create(&th, NULL, thread_count, &tn));
	T_OK(pthread_join(th, NULL));
	T_EQ_I(tn, n);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		if (emul_count() != n)
			t_fail("forked child: %zd mounts, not %zd",
			       emul_count(), n);
		_exit(0);
	}
	t_wait_child(pid, "forked child");
	/* in a chroot into a directory that is no mount's root, the
	 * kernel lists what is below it (nothing), as mountinfo shows */
	enter("/empty");
	n = t_lm_raw_ns(T_LSMT_ROOT, 0, 0, 0, &nat);
	free(nat);
	T_EQ_I(emul_count(), n);
}

static void fill_nothing(void *rep)
{
	(void)rep;
}

/* a namespace by ID, from a chroot without /proc (find_pid() walks the
 * handle; the mount points are looked at below PID/root in it) */
T_CASE(chroot_foreign_ns)
{
	struct t_ns_child c;
	uint64_t ns_id;
	char rep[8], *j;

	ed_require();
	t_ns_child_start(&c, fill_nothing, rep, sizeof(rep));
	ns_id = t_ns_id(c.pid);
	j = make_jail();
	T_ASSERT(emul_count() > 0);
	enter(j);
	ed_compare_ns(ns_id, 0, "foreign from a chroot");
	t_ns_child_stop(&c);
}

/*
 * On every kernel: mntkit_init() before the chroot, then the chrooted
 * process's emulated listing and replies equal its own mountinfo, which
 * the parent (outside, with /proc) reads.
 */
#define LINE 512

static void child_report(int out)
{
	uint64_t ids[64];
	struct mntkit_mnt_id_req req = { .size = 24,
					 .mnt_id = MNTKIT_LSMT_ROOT };
	char line[LINE];
	ssize_t n;

	n = mntkit_mountinfo_ops.listmount(&req, ids, 64, 0);
	if (n < 0)
		t_fail("emulated listmount in the chroot: %s",
		       strerror(errno));
	for (ssize_t k = 0; k < n; k++) {
		const uint64_t mask = MNTKIT_STATMOUNT_MNT_BASIC |
				      MNTKIT_STATMOUNT_MNT_POINT |
				      MNTKIT_STATMOUNT_MNT_ROOT |
				      MNTKIT_STATMOUNT_FS_TYPE;
		struct mntkit_statmount *sm = ed_emul_sm_alloc(ids[k], mask, 0);

		if (!sm || (sm->mask & mask) != mask)
			t_fail("emulated statmount %#" PRIx64 ": %s", ids[k],
			       sm ? "groups missing" : strerror(errno));
		memset(line, 0, sizeof(line));
		snprintf(line, sizeof(line), "%u %u %s %s %s",
			 (unsigned int)sm->mnt_id_old,
			 (unsigned int)sm->mnt_parent_id_old,
			 sm->str + sm->mnt_point, sm->str + sm->mnt_root,
			 sm->str + sm->fs_type);
		t_write_full(out, line, sizeof(line));
		free(sm);
	}
}

T_CASE(chroot_init_equals_mountinfo)
{
	int pfd[2], done[2];
	struct t_mitab mi;
	char line[LINE], want[LINE], *j;
	size_t got = 0;
	pid_t pid;

	t_require_root();
	j = make_jail();
	if (pipe(pfd) || pipe(done))
		t_fail("pipe: %s", strerror(errno));
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		char ch;

		close(pfd[0]);
		close(done[1]);
		T_NEG(mntkit_init(1), EINVAL);
		T_OK(mntkit_init(0));
		check_handle_cloexec();
		enter(j);
		T_OK(mntkit_init(0)); /* again, in the chroot: harmless */
		child_report(pfd[1]);
		close(pfd[1]);
		/* stay in the chroot while the parent reads our mountinfo */
		while (read(done[0], &ch, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(pfd[1]);
	close(done[0]);
	/* the report is whole once the pipe ends; the child still lives */
	{
		char *all = NULL;
		size_t len = 0;
		ssize_t r;

		for (;;) {
			all = t_xrealloc(all, len + LINE);
			r = read(pfd[0], all + len, LINE);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			len += (size_t)r;
		}
		t_mi_read(pid, &mi);
		if (len % LINE)
			t_fail("torn report");
		got = len / LINE;
		if (got != mi.n)
			t_fail("the chroot's mountinfo has %zu mounts, the "
			       "emulation listed %zu", mi.n, got);
		for (size_t k = 0; k < got; k++) {
			struct t_mi *m;
			unsigned long long id;

			memcpy(line, all + k * LINE, LINE);
			line[LINE - 1] = '\0';
			id = strtoull(line, NULL, 10);
			m = t_mi_by_id(&mi, id);
			if (!m)
				t_fail("emulated mount %s not in mountinfo",
				       line);
			snprintf(want, sizeof(want), "%" PRIu64 " %" PRIu64
				 " %s %s %.*s", m->id, m->parent, m->point,
				 m->root, (int)strcspn(m->fstype, "."),
				 m->fstype);
			T_EQ_STR(line, want);
		}
		free(all);
	}
	close(pfd[0]);
	close(done[1]);
	t_wait_child(pid, "chrooted child");
	T_EQ_U(got, 6);
	t_mi_free(&mi);
}

/* what remains: a process that never saw /proc has no procfs to read */
T_CASE(chroot_never_saw_proc)
{
	char *j;

	t_require_root();
	j = make_jail();
	enter(j);
	T_EQ_I(emul_count(), -ENOENT);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
