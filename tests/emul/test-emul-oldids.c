// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The emulation as on a kernel without unique mount IDs (< 6.8), on this
 * one: each check runs in a child that sets the testing knob
 * MNTKIT_TEST_OLD_IDS=1 (lib/features.c) before its first library call, so
 * that the emulation takes the kernel's path for old kernels (have_unique
 * 0). Its answers are checked against sources that do not go through it:
 *
 *  - /proc/self/mountinfo, parsed by the harness: the emulation lists every
 *    field 1 and nothing else, in ascending order (descending with
 *    LISTMOUNT_REVERSE), and each mount's parent is its field 2;
 *  - statx(2) STATX_MNT_ID: mntkit_path_id() gives that old ID;
 *  - the kernel's own statmount/listmount (raw system calls): every reply,
 *    matched to the kernel's mount by mnt_id_old, is the kernel's byte for
 *    byte except mnt_id and mnt_parent_id, which are the old IDs
 *    (emul-diff.h applies the documented differences), and sb_magic is
 *    0 only where the magic cannot be known;
 *  - the features: no MNTKIT_FEAT_UNIQUE_IDS with the emulation, while the
 *    native backend still reports the kernel's.
 *
 * On a kernel without unique IDs the knob changes nothing and the same
 * checks hold, but for the comparison with the kernel's statmount
 * (MNTKIT_QEMU_PROGS=test-emul-oldids bash tests/qemu/run.sh BUILD runs
 * them on 6.1).
 */
#include "emul-diff.h"

#define UNIQ_OFF MNTKIT_MNT_UNIQUE_ID_OFFSET
#define NOT_UNIQUE                                                             \
	(MNTKIT_FEAT_UNIQUE_IDS | MNTKIT_FEAT_STATX_UNIQUE |                   \
	 MNTKIT_FEAT_HANDLE_UNIQUE)

/* does this kernel have unique mount IDs? (raw statx) */
static int kernel_unique(void)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	return statx(AT_FDCWD, "/", 0, T_STATX_MNT_ID_UNIQUE, &stx) == 0 &&
	       (stx.stx_mask & T_STATX_MNT_ID_UNIQUE);
}

static int kernel_statmount(void)
{
	struct t_req req = { .size = 24 };

	return t_sys_statmount(&req, NULL, 0, 0) < 0 && errno != ENOSYS;
}

static uint64_t old_id_of(const char *path, int flags)
{
	uint64_t id;

	t_statx_ids(AT_FDCWD, path, flags, NULL, &id);
	return id;
}

/*
 * Run @fn in a child that sets the knob before its first library call (it
 * is read once per process: no case calls the library before this).
 */
static void with_old_ids(void (*fn)(const char *), const char *what)
{
	pid_t pid = fork();

	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		if (setenv("MNTKIT_TEST_OLD_IDS", "1", 1))
			t_fail("setenv: %s", strerror(errno));
		T_EQ_I(mntkit__emul_unique_ids(), 0);
		T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
		fn(what);
		_exit(0);
	}
	t_wait_child(pid, what);
}

/* ---- the checks (in the knob's child) ---- */

/* the listing, its order and every mount's IDs, against mountinfo */
static void check_mountinfo(const char *what)
{
	struct mntkit_statmount *sm = NULL;
	uint64_t *ids, *rev, *api;
	struct t_mitab tab;
	size_t n, nr, size = 0;
	ssize_t na;

	n = ed_emul_lm(T_LSMT_ROOT, 0, 0, &ids);
	nr = ed_emul_lm(T_LSMT_ROOT, MNTKIT_LISTMOUNT_REVERSE, 0, &rev);
	na = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &api);
	t_mi_read(0, &tab);
	if (n != tab.n)
		t_fail("%s: the emulation lists %zu mounts, mountinfo has %zu",
		       what, n, tab.n);
	T_EQ_U(nr, n);
	T_EQ_U((uint64_t)na, n);
	for (size_t i = 0; i < n; i++) {
		struct t_mi *m = t_mi_by_id(&tab, ids[i]);

		T_ASSERTF(ids[i] > 0 && ids[i] <= UNIQ_OFF,
			  "%s: %#" PRIx64 " is not an old ID", what, ids[i]);
		T_ASSERTF(m, "%s: ID %" PRIu64 " is not in mountinfo", what,
			  ids[i]);
		T_ASSERTF(!i || ids[i - 1] < ids[i],
			  "%s: listed out of order at %zu: %" PRIu64
			  " then %" PRIu64, what, i, ids[i - 1], ids[i]);
		T_EQ_U(rev[n - 1 - i], ids[i]);
		T_EQ_U(api[i], ids[i]);
		T_OK(mntkit_stat_buf(ids[i], MNTKIT_STATMOUNT_MNT_BASIC, NULL,
				     &sm, &size));
		T_EQ_U(sm->mnt_id, m->id);
		T_EQ_U(sm->mnt_id_old, m->id);
		T_EQ_U(sm->mnt_parent_id, m->parent);
		T_EQ_U(sm->mnt_parent_id_old, m->parent);
	}
	free(sm);
	free(ids);
	free(rev);
	free(api);
	t_mi_free(&tab);
}

/* mntkit_path_id() is statx's STATX_MNT_ID, at every mount point */
static void check_path_ids(const char *what)
{
	struct t_mitab tab;
	uint64_t id;
	int fd;

	t_mi_read(0, &tab);
	for (size_t i = 0; i < tab.n; i++) {
		const char *pt = tab.v[i].point;
		struct statx stx;

		memset(&stx, 0, sizeof(stx));
		if (statx(AT_FDCWD, pt, AT_SYMLINK_NOFOLLOW, T_STATX_MNT_ID,
			  &stx))
			continue; /* not reachable by path (deleted) */
		T_EQ_I(mntkit_path_id(AT_FDCWD, pt, AT_SYMLINK_NOFOLLOW, &id),
		       0);
		T_ASSERTF(id == stx.stx_mnt_id,
			  "%s: path_id(%s) = %" PRIu64 ", statx says %" PRIu64,
			  what, pt, id, (uint64_t)stx.stx_mnt_id);
		fd = open(pt, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		T_ASSERT(fd >= 0);
		T_EQ_I(mntkit_path_id(fd, "", AT_EMPTY_PATH, &id), 0);
		T_EQ_U(id, stx.stx_mnt_id);
		close(fd);
	}
	T_EQ_I(mntkit_path_id(AT_FDCWD, "/proc/self/status", 0, &id), 0);
	T_EQ_U(id, old_id_of("/proc/self/status", 0));
	T_NEG(mntkit_path_id(AT_FDCWD, "/no/such/path", 0, &id), ENOENT);
	t_mi_free(&tab);
}

/* the errno rules of a kernel without unique IDs (as tests/qemu's) */
static void check_errno(const char *what)
{
	struct mntkit_mnt_id_req r = { .size = 24 };
	static const uint64_t unknown[] = { 999999, UNIQ_OFF, UNIQ_OFF + 1,
					    (1ULL << 62) + 12345 };
	char buf[4096];
	uint64_t ids[8];

	(void)what;
	r.param = MNTKIT_STATMOUNT_MNT_BASIC;
	T_ERRNO(mntkit_statmount(&r, (void *)buf, sizeof(buf), 0), EINVAL);
	T_ERRNO(mntkit_listmount(&r, ids, 8, 0), EINVAL);
	/* any other value is an old ID that names a mount or not */
	for (size_t k = 0; k < MNTKIT_ARRAY_SIZE(unknown); k++) {
		r.mnt_id = unknown[k];
		r.param = MNTKIT_STATMOUNT_MNT_BASIC;
		T_ERRNO(mntkit_statmount(&r, (void *)buf, sizeof(buf), 0),
			ENOENT);
		r.param = 0;
		T_ERRNO(mntkit_listmount(&r, ids, 8, 0), ENOENT);
	}
}

static int magic_known(const char *type, int *statfs_ok)
{
	uint64_t magic;

	return mntkit__fs_magic(type, strlen(type), &magic, statfs_ok);
}

/*
 * Every reply against the kernel's (emul-diff.h), every mount named by its
 * old ID, SB_BASIC always there, and its sb_magic 0 only where the
 * emulation cannot know the magic: a type without a fixed one whose mount
 * point does not resolve to the mount (or whose statfs would ask a server).
 */
static void check_native(const char *what)
{
	struct ed_map m;
	size_t mounts;

	ed_compare_ns(0, 1, what);
	ed_build_map(&m, 0, what);
	mounts = m.n;
	for (size_t i = 0; i < m.n; i++) {
		struct mntkit_statmount *n, *e;
		int ok = 1;

		T_ASSERTF(m.emu[i] == m.old[i],
			  "%s: mount %#" PRIx64 " named %#" PRIx64
			  ", not by its old ID %u",
			  what, m.nat[i], m.emu[i], m.old[i]);
		n = t_sm_raw_ns(m.nat[i],
				MNTKIT_STATMOUNT_SB_BASIC |
					MNTKIT_STATMOUNT_MNT_POINT |
					MNTKIT_STATMOUNT_FS_TYPE,
				0, 0);
		e = ed_emul_sm_alloc(m.emu[i], MNTKIT_STATMOUNT_SB_BASIC, 0);
		T_ASSERT(n && e);
		/* SB_BASIC is always there (device and flags are
		 * mountinfo's); the magic is 0 only where it cannot be known */
		if ((n->mask & MNTKIT_STATMOUNT_SB_BASIC) &&
		    !(e->mask & MNTKIT_STATMOUNT_SB_BASIC))
			t_fail("%s: mount %u has no SB_BASIC", what, m.old[i]);
		if ((n->mask & MNTKIT_STATMOUNT_SB_BASIC) && !e->sb_magic &&
		    n->sb_magic) {
			const char *pt = t_sm_s(n, n->mnt_point);
			struct statx stx;
			int resolves;

			memset(&stx, 0, sizeof(stx));
			resolves = statx(AT_FDCWD, pt, AT_SYMLINK_NOFOLLOW,
					 T_STATX_MNT_ID, &stx) == 0 &&
				   stx.stx_mnt_id == m.old[i];
			T_ASSERTF(!magic_known(t_sm_s(n, n->fs_type), &ok) &&
					  (!ok || !resolves),
				  "%s: mount %u (%s on %s) has no sb_magic", what,
				  m.old[i], t_sm_s(n, n->fs_type), pt);
		}
		free(n);
		free(e);
	}
	ed_free_map(&m);
	t_log("%s: %zu mounts, %zu replies compared with the kernel's\n", what,
	      mounts, ed_stats.replies);
}

static void check_all(const char *what)
{
	check_mountinfo(what);
	check_path_ids(what);
	check_errno(what);
	if (kernel_statmount())
		check_native(what);
}

/* ---- the situations ---- */

static void features_old(const char *what)
{
	struct mntkit_features f = { .size = sizeof(f) };

	T_OK(mntkit_get_features(&f));
	T_EQ_I(f.backend, MNTKIT_BACKEND_MOUNTINFO);
	T_ASSERTF(!(f.flags & NOT_UNIQUE), "%s: flags %#x say unique IDs",
		  what, f.flags);
	T_EQ_U(f.supported_mask, mntkit__emul_supported_mask());
	if (!kernel_unique() || !kernel_statmount())
		return;
	/* the native backend does not pretend: the kernel's flags, IDs */
	T_OK(mntkit_set_backend(MNTKIT_BACKEND_NATIVE));
	T_OK(mntkit_get_features(&f));
	T_ASSERTF((f.flags & (MNTKIT_FEAT_UNIQUE_IDS |
			      MNTKIT_FEAT_STATX_UNIQUE)) ==
			  (MNTKIT_FEAT_UNIQUE_IDS | MNTKIT_FEAT_STATX_UNIQUE),
		  "%s: native flags %#x lack unique IDs", what, f.flags);
	{
		uint64_t id;

		T_EQ_I(mntkit_path_id(AT_FDCWD, "/", 0, &id), 0);
		T_EQ_U(id, t_uid("/"));
	}
	T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
	T_OK(mntkit_get_features(&f));
	T_ASSERT(!(f.flags & NOT_UNIQUE));
}

T_CASE(features)
{
	pid_t pid;

	with_old_ids(features_old, "old IDs");
	if (!kernel_unique())
		return;
	/* without the knob, the emulation of this kernel names by unique
	 * IDs and says so */
	pid = fork();
	if (pid == 0) {
		struct mntkit_features f = { .size = sizeof(f) };
		uint64_t id;

		unsetenv("MNTKIT_TEST_OLD_IDS");
		T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
		T_EQ_I(mntkit__emul_unique_ids(), 1);
		T_OK(mntkit_get_features(&f));
		T_ASSERT(f.flags & MNTKIT_FEAT_UNIQUE_IDS);
		T_EQ_I(mntkit_path_id(AT_FDCWD, "/", 0, &id), 0);
		T_EQ_U(id, t_uid("/"));
		_exit(0);
	}
	t_wait_child(pid, "unique IDs");
	/* values other than "1" leave it off */
	pid = fork();
	if (pid == 0) {
		setenv("MNTKIT_TEST_OLD_IDS", "yes", 1);
		T_EQ_I(mntkit__emul_unique_ids(), 1);
		_exit(0);
	}
	t_wait_child(pid, "MNTKIT_TEST_OLD_IDS=yes");
}

/* the host's table (a private copy of it) */
T_CASE(host_table)
{
	t_private_ns();
	with_old_ids(check_all, "host");
}

/* mkdir @path and mount there (without the harness's unique-ID helpers,
 * so that the case also runs on a kernel without unique IDs) */
static void mnt(const char *src, const char *path, const char *type,
		unsigned long flags, const char *data)
{
	t_mkdir(path);
	t_mount(src, path, type, flags, data);
}

/*
 * Stacked, bound (a subdirectory), shared/slave, read-only, escaped names,
 * pseudo filesystems, and a hidden mount of a type without a fixed magic.
 */
T_CASE(tree)
{
	char *d;

	t_private_ns();
	d = t_tmpdir();
	mnt("a", t_path("%s/a", d), "tmpfs", 0, "size=1m,mode=700");
	mnt("b", t_path("%s/a/b", d), "tmpfs", MS_NOSUID | MS_NODEV, NULL);
	mnt("my src", t_path("%s/sp ace", d), "tmpfs", MS_NOEXEC, NULL);
	mnt("st1", t_path("%s/a/st", d), "tmpfs", 0, NULL);
	t_mount("st2", t_path("%s/a/st", d), "tmpfs", MS_NOATIME, NULL);
	mnt("ro", t_path("%s/ro", d), "tmpfs",
	    MS_RDONLY | MS_SYNCHRONOUS | MS_DIRSYNC | MS_LAZYTIME, NULL);
	t_mkdir(t_path("%s/a/sub", d));
	mnt(t_path("%s/a/sub", d), t_path("%s/bind", d), NULL, MS_BIND, NULL);
	mnt("sh", t_path("%s/shared", d), "tmpfs", 0, NULL);
	t_mount(NULL, t_path("%s/shared", d), NULL, MS_SHARED, NULL);
	mnt(t_path("%s/shared", d), t_path("%s/slave", d), NULL, MS_BIND,
	    NULL);
	t_mount(NULL, t_path("%s/slave", d), NULL, MS_SLAVE, NULL);
	mnt("p", t_path("%s/p", d), "tmpfs", 0, NULL);
	mnt("proc", t_path("%s/p/proc", d), "proc", MS_NOSUID, NULL);
	mnt("devpts", t_path("%s/p/pts", d), "devpts", 0, "newinstance");
	mnt("mqueue", t_path("%s/p/mq", d), "mqueue", 0, NULL);
	/* devtmpfs has no fixed magic (fsmagic.c): hidden under a tmpfs,
	 * the emulation cannot tell it */
	t_mkdir(t_path("%s/p/dev", d));
	if (mount("devtmpfs", t_path("%s/p/dev", d), "devtmpfs", 0, NULL) == 0)
		t_mount("over", t_path("%s/p/dev", d), "tmpfs", 0, NULL);
	with_old_ids(check_all, "tree");
}

static char *reuse_dir; /* set before the fork */

/* old IDs are reused: the emulation follows the table and the IDs */
static void reuse_old(const char *what)
{
	char *a = t_path("%s/a", reuse_dir);
	struct mntkit_statmount *sm;
	uint64_t id, id2;

	T_EQ_I(mntkit_path_id(AT_FDCWD, a, 0, &id), 0);
	T_EQ_U(id, old_id_of(a, 0));
	T_OK(mntkit_stat(id, MNTKIT_STATMOUNT_MNT_POINT, NULL, &sm));
	T_EQ_STR(t_sm_s(sm, sm->mnt_point), a);
	free(sm);
	t_umount(a);
	T_NEG(mntkit_stat(id, MNTKIT_STATMOUNT_MNT_BASIC, NULL, &sm), ENOENT);
	t_mount("again", a, "tmpfs", 0, NULL);
	T_EQ_I(mntkit_path_id(AT_FDCWD, a, 0, &id2), 0);
	T_EQ_U(id2, old_id_of(a, 0));
	T_OK(mntkit_stat(id2, MNTKIT_STATMOUNT_SB_SOURCE, NULL, &sm));
	T_EQ_STR(t_sm_s(sm, sm->sb_source), "again");
	free(sm);
	check_all(what);
}

T_CASE(changes_and_reuse)
{
	t_private_ns();
	reuse_dir = t_tmpdir();
	mnt("a", t_path("%s/a", reuse_dir), "tmpfs", 0, NULL);
	mnt("b", t_path("%s/b", reuse_dir), "tmpfs", 0, NULL);
	with_old_ids(reuse_old, "reuse");
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
