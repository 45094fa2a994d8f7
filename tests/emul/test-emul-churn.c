// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-emul-churn - on the mountinfo backend, a live mount that nobody
 * touches keeps its unique ID while other mounts come and go.
 *
 * 2,000 bind mounts stay; a child binds 500 more and unmounts them again,
 * over and over, while this process takes snapshots (mntkit_table_new())
 * and lists + statmounts (mntkit_list(), mntkit_stat()). Every snapshot
 * must name each untouched mount by the unique ID the kernel gives for it
 * (statx STATX_MNT_ID_UNIQUE of its mount point, read before the churn),
 * never by its old ID. Before the fix, a few of them per run came out
 * under their provisional old ID for one snapshot (a watch then reports a
 * detach and an attach of a mount nobody touched).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "mntkit.h"

#define KEEP_MAX 2000
#define CHURN 500
#define RUN_MS 4000

/* 2,000 untouched mounts; 200 on a slow (emulated) machine: t_slow_machine */
static size_t nkeep(void)
{
	return t_slow_machine() ? 200 : KEEP_MAX;
}

struct keep {
	uint64_t old, unique;
};

static struct keep keep[KEEP_MAX];

static int cmp_keep(const void *a, const void *b)
{
	const struct keep *x = a, *y = b;

	return x->old < y->old ? -1 : x->old > y->old;
}

static const struct keep *find_keep(uint64_t old)
{
	struct keep k = { .old = old };

	return bsearch(&k, keep, nkeep(), sizeof(*keep), cmp_keep);
}

static uint64_t statx_id(const char *path, unsigned int what)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, what, &stx) ||
	    !(stx.stx_mask & what))
		t_fail("statx %s: %s", path, strerror(errno));
	return stx.stx_mnt_id;
}

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* bind @src on @dir/0..CHURN-1 and unmount them, until killed */
static void churn(const char *src, const char *dir)
{
	char p[PATH_MAX];

	for (;;) {
		for (int i = 0; i < CHURN; i++) {
			snprintf(p, sizeof(p), "%s/%d", dir, i);
			if (mount(src, p, NULL, MS_BIND, NULL))
				_exit(1);
		}
		for (int i = 0; i < CHURN; i++) {
			snprintf(p, sizeof(p), "%s/%d", dir, i);
			if (umount2(p, MNT_DETACH))
				_exit(1);
		}
	}
}

/* how many untouched mounts a snapshot names wrongly (0: all right) */
static size_t check_table(const struct mntkit_table *t, size_t *seen,
			  uint64_t *bad_old, uint64_t *bad_id)
{
	size_t wrong = 0, n = mntkit_table_count(t);

	*seen = 0;
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);
		const struct keep *k = find_keep(sm->mnt_id_old);

		if (!k)
			continue;
		(*seen)++;
		if (sm->mnt_id != k->unique) {
			*bad_old = k->old;
			*bad_id = sm->mnt_id;
			wrong++;
		}
	}
	return wrong;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * How many untouched mounts a listing names wrongly: under an old ID (a
 * listed ID <= 2^31 that is an untouched mount's old ID), or not at all.
 */
static size_t check_list(const uint64_t *ids, size_t n, uint64_t *bad_old,
			 uint64_t *bad_id)
{
	size_t wrong = 0;

	for (size_t k = 0; k < n; k++) {
		const struct keep *kp;

		if (ids[k] > 0x80000000ULL)
			break; /* listings are sorted: the old IDs come first */
		kp = find_keep(ids[k]);
		if (kp) {
			*bad_old = kp->old;
			*bad_id = ids[k];
			wrong++;
		}
	}
	for (size_t i = 0; i < nkeep(); i++)
		if (!bsearch(&keep[i].unique, ids, n, sizeof(*ids), cmp_u64)) {
			*bad_old = keep[i].old;
			*bad_id = 0;
			wrong++;
		}
	return wrong;
}

/* the mounts that stay, their IDs in keep[], and the churn directory */
static void populate(const char **srcp, const char **dirp)
{
	char *base, *src, *dir, p[PATH_MAX];

	base = t_tmpdir();
	src = t_path("%s/src", base);
	dir = t_path("%s/b", base);
	t_mkdir(src);
	t_mkdir(dir);
	t_mkdir(t_path("%s/p", base));
	if (mount("churn-src", src, "tmpfs", 0, "size=4k"))
		t_fail("mount tmpfs: %s", strerror(errno));
	for (int i = 0; i < (int)nkeep(); i++) {
		snprintf(p, sizeof(p), "%s/p/%d", base, i);
		t_mkdir(p);
		if (mount(src, p, NULL, MS_BIND, NULL))
			t_fail("bind %s: %s", p, strerror(errno));
		keep[i].old = statx_id(p, T_STATX_MNT_ID);
		keep[i].unique = statx_id(p, T_STATX_MNT_ID_UNIQUE);
	}
	for (int i = 0; i < CHURN; i++)
		t_mkdir(t_path("%s/%d", dir, i));
	qsort(keep, nkeep(), sizeof(*keep), cmp_keep);
	*srcp = src;
	*dirp = dir;
}

/*
 * Snapshots and listings of the namespace (@opts) for RUN_MS while @pid
 * churns; every untouched mount must keep its unique ID.
 */
static void watch_ids(const struct mntkit_opts *opts, pid_t pid)
{
	size_t snaps = 0, wrong = 0, seen, lists = 0;
	uint64_t bad_old = 0, bad_id = 0;
	long long end = ms_now() + RUN_MS;

	T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
	while (ms_now() < end) {
		struct mntkit_table *t;
		uint64_t *ids = NULL;
		ssize_t n;

		T_OK(mntkit_table_new(MNTKIT_STATMOUNT_MNT_BASIC, 0, opts, &t));
		wrong += check_table(t, &seen, &bad_old, &bad_id);
		T_EQ_U(seen, nkeep()); /* a snapshot never loses a live mount */
		mntkit_table_free(t);
		snaps++;
		/* listings: each one re-reads the changed table */
		for (int r = 0; r < 20; r++) {
			n = mntkit_list(MNTKIT_LSMT_ROOT, 0, opts, &ids);
			T_ASSERTF(n > 0, "mntkit_list: %zd", n);
			wrong += check_list(ids, (size_t)n, &bad_old, &bad_id);
			free(ids);
			ids = NULL;
			lists++;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	t_log("%zu snapshots, %zu listings, %zu wrong IDs\n", snaps, lists,
	      wrong);
	T_ASSERTF(!wrong,
		  "%zu times an untouched mount had the wrong ID (e.g. old ID "
		  "%llu named %llu) in %zu snapshots + %zu listings",
		  wrong, (unsigned long long)bad_old,
		  (unsigned long long)bad_id, snaps, lists);
}

T_CASE(untouched_ids_stable)
{
	const char *src, *dir;
	pid_t pid;

	t_private_ns();
	t_require_unique_ids();
	populate(&src, &dir);
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0)
		churn(src, dir);
	watch_ids(NULL, pid);
}

/* the same, of another namespace (read through /proc/PID/root) */
T_CASE(untouched_ids_stable_other_ns)
{
	const char *src, *dir;
	int ready[2];
	pid_t pid;

	t_private_ns();
	t_require_unique_ids();
	if (pipe(ready))
		t_fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) || t_make_rprivate())
			_exit(1);
		populate(&src, &dir);
		if (write(ready[1], keep, sizeof(keep)) != sizeof(keep))
			_exit(1);
		churn(src, dir);
	}
	close(ready[1]);
	for (size_t got = 0; got < sizeof(keep);) {
		ssize_t r = read(ready[0], (char *)keep + got,
				 sizeof(keep) - got);

		if (r <= 0) {
			waitpid(pid, NULL, 0);
			t_fail("the namespace child failed");
		}
		got += (size_t)r;
	}
	MNTKIT_OPTS(o, .pid = pid);
	watch_ids(&o, pid);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
