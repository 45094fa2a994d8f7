// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-live - the live table (mntkit_live_new(3)), against the kernel.
 *
 * The model-based cases churn mounts at random in private namespaces
 * (tmpfs attached, detached, moved, bind and rbind, remounted ro and rw,
 * propagation made shared, private, slave by mount(2), which the kernel
 * signals to no one, and by mount_setattr(2)), with a fixed seed that
 * the case prints. Every QUIET operations the churn stops, the live
 * table is rescanned (for the unsignalled changes) and its events are
 * applied; then the live state (its lookups) and its snapshot must equal
 * a fresh mntkit_table_new() of the namespace on every byte of every
 * record, in the same order, with the same tree. The cases run on the
 * native backend with fanotify and with the poll source, and on the
 * mountinfo backend; the all-namespace case churns in namespaces that
 * come and go (in a PID namespace of its own, whose /proc shows only
 * them: t_in_own_pidns()). About 100,000 operations in all (a tenth with
 * MNTKIT_TEST_SLOW=1).
 *
 * MNTKIT_TEST_LIVE_MOUNTS=N (or "max") runs the cases of one namespace
 * at N mounts instead: N bind mounts of a small tmpfs, private, beside
 * the churn, as many as fs.mount-max leaves room for ("max": all of
 * that room). The limit is global, not the namespace's: it is never
 * raised. Their checks compare N records each, so they churn 2,000
 * operations a case. The all-namespace cases skip (each namespace of
 * theirs would copy the N mounts).
 */
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>

#include <mntkit.h>

#include "harness.h"

#define MASK (MNTKIT_STATMOUNT_ALL & ~MNTKIT_STATMOUNT_SUPPORTED_MASK)
#define NDIRS 24
#define QUIET 200      /* operations between two checks */
#define MAX_MOUNTS 300 /* propagation multiplies mounts: pruned above */
#define MAX_KIDS 4     /* namespaces besides the case's own */

/* ---- comparing the live table with the kernel's ---- */

static void same_record(const struct mntkit_statmount *a,
			const struct mntkit_statmount *b, uint64_t id)
{
	T_ASSERTF(a && b, "mount %" PRIu64 ": a record missing", id);
	T_ASSERTF(a->size == b->size && !memcmp(a, b, a->size),
		  "mount %" PRIu64 ": the live record differs from the "
		  "kernel's (size %u, %u)", id, a->size, b->size);
}

/* @s (the live snapshot) equals @t (fresh), record by record, link by link */
static void same_table(const struct mntkit_table *s,
		       const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t);

	T_EQ_U(mntkit_table_count(s), n);
	T_EQ_I(mntkit_table_first_root(s), mntkit_table_first_root(t));
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *b = mntkit_table_get(t, i);

		same_record(mntkit_table_get(s, i), b, b->mnt_id);
		T_EQ_I(mntkit_table_parent(s, i), mntkit_table_parent(t, i));
		T_EQ_I(mntkit_table_first_child(s, i),
		       mntkit_table_first_child(t, i));
		T_EQ_I(mntkit_table_next_sibling(s, i),
		       mntkit_table_next_sibling(t, i));
		T_EQ_I(mntkit_table_depth(s, i), mntkit_table_depth(t, i));
	}
}

static size_t first_diff(const void *a, const void *b, size_t n)
{
	size_t i = 0;

	while (i < n && ((const char *)a)[i] == ((const char *)b)[i])
		i++;
	return i;
}

/* the old ID of the parent of mount @i of @t (0: a root) */
static uint32_t parent_old(const struct mntkit_table *t, size_t i)
{
	ssize_t p = mntkit_table_parent(t, i);

	return p < 0 ? 0 : mntkit_table_get(t, (size_t)p)->mnt_id_old;
}

/* a table's mounts by old ID: (old ID, index) pairs, sorted */
struct by_old {
	uint64_t *v; /* old ID << 32 | index */
	size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void by_old_init(struct by_old *bo, const struct mntkit_table *s)
{
	bo->n = mntkit_table_count(s);
	bo->v = t_xcalloc(bo->n + 1, sizeof(*bo->v));
	for (size_t j = 0; j < bo->n; j++)
		bo->v[j] = (uint64_t)mntkit_table_get(s, j)->mnt_id_old << 32 | j;
	qsort(bo->v, bo->n, sizeof(*bo->v), cmp_u64);
}

/* the index of the mount of old ID @old, or -1 */
static ssize_t find_old(const struct by_old *bo, uint32_t old)
{
	size_t lo = 0, hi = bo->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bo->v[mid] >> 32 < old)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < bo->n && bo->v[lo] >> 32 == old)
		return (ssize_t)(uint32_t)bo->v[lo];
	return -1;
}

/*
 * On the mountinfo backend a mount hidden under another (its unique ID
 * not readable without a risk of blocking) is named by its old ID, or by
 * the unique ID the emulation learned of it before (mntkit(3), MOUNT
 * IDS): two reads may name it differently. Mounts are matched by their
 * old IDs (unique in a namespace at any one time), and their records
 * compared on every byte but the two names (mnt_id, mnt_parent_id); the
 * tree by the old IDs of the parents.
 */
static void same_table_by_old(const struct mntkit_table *s,
			      const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t);
	struct by_old bo;

	T_EQ_U(mntkit_table_count(s), n);
	by_old_init(&bo, s);
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *b = mntkit_table_get(t, i), *a;
		struct mntkit_statmount *x, *y;
		ssize_t j = find_old(&bo, b->mnt_id_old);

		T_ASSERTF(j >= 0, "mount %" PRIu64 " (old ID %u) not in the "
			  "live table", b->mnt_id, b->mnt_id_old);
		a = mntkit_table_get(s, (size_t)j);
		T_EQ_U(a->size, b->size);
		x = t_xmalloc(a->size);
		y = t_xmalloc(b->size);
		memcpy(x, a, a->size);
		memcpy(y, b, b->size);
		x->mnt_id = y->mnt_id = x->mnt_parent_id = y->mnt_parent_id = 0;
		T_ASSERTF(!memcmp(x, y, a->size), "mount (old ID %u): the live "
			  "record differs from the kernel's (byte %zu)",
			  b->mnt_id_old, first_diff(x, y, a->size));
		free(x);
		free(y);
		T_ASSERTF(parent_old(s, (size_t)j) == parent_old(t, i),
			  "mount (old ID %u, named %#" PRIx64 " / %#" PRIx64
			  "): its parent's old ID is %u in the live table "
			  "(its record names parent %#" PRIx64 "), %u in the "
			  "kernel's", b->mnt_id_old, a->mnt_id, b->mnt_id,
			  parent_old(s, (size_t)j), a->mnt_parent_id,
			  parent_old(t, i));
		T_EQ_I(mntkit_table_depth(s, (size_t)j),
		       mntkit_table_depth(t, i));
	}
	free(bo.v);
}

/* the lookups of a live table of one namespace against table @t */
static void same_lookups(struct mntkit_live *live,
			 const struct mntkit_table *s,
			 const struct mntkit_table *t)
{
	for (size_t i = 0; i < mntkit_table_count(t); i++) {
		const struct mntkit_statmount *b = mntkit_table_get(t, i);
		uint64_t parent = 0, *kids = NULL;
		ssize_t p = mntkit_table_parent(t, i), c, nk = 0;

		/* the snapshot shares the live record: the same pointer */
		T_ASSERT(mntkit_live_get(live, b->mnt_id) ==
			 mntkit_table_get(s, i));
		if (p < 0)
			T_NEG(mntkit_live_parent(live, b->mnt_id, &parent),
			      ENOENT);
		else
			T_EQ_U(mntkit_live_parent(live, b->mnt_id, &parent) ?
				       0 :
				       parent,
			       mntkit_table_get(t, (size_t)p)->mnt_id);
		c = mntkit_live_children(live, b->mnt_id, &kids);
		for (ssize_t k = mntkit_table_first_child(t, i); k >= 0;
		     k = mntkit_table_next_sibling(t, (size_t)k), nk++)
			T_EQ_U(nk < c ? kids[nk] : 0,
			       mntkit_table_get(t, (size_t)k)->mnt_id);
		T_EQ_I(c, nk);
		free(kids);
	}
}

/* apply what is pending; the events' counts into @counts (by kind) */
static void process_all(struct mntkit_live *live, size_t *counts)
{
	struct mntkit_event ev[32];
	ssize_t n;

	ev[0].size = sizeof(ev[0]);
	while ((n = mntkit_live_process(live, ev, 32)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			T_EQ_U(ev[i].size, sizeof(ev[0]));
			if (ev[i].kind < 8)
				counts[ev[i].kind]++;
		}
	T_ASSERTF(n == 0, "mntkit_live_process: %s", strerror((int)-n));
}

/*
 * Each namespace of the live table checked against the kernel's
 * (@ns_ids/@pids: @n of them; a live table of one namespace: @n 1,
 * @ns_ids[0] 0, @pids[0] 0).
 */
static void check_state(struct mntkit_live *live, const uint64_t *ns_ids,
			const pid_t *pids, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		MNTKIT_OPTS(o, .pid = pids[k]);
		struct mntkit_table *s, *s2, *t;

		T_OK(mntkit_live_snapshot_ns(live, ns_ids[k], &s));
		T_OK(mntkit_table_new(MASK, 0, pids[k] ? &o : NULL, &t));
		if (mntkit_get_backend() == MNTKIT_BACKEND_MOUNTINFO)
			same_table_by_old(s, t);
		else
			same_table(s, t);
		if (!ns_ids[k] && mntkit_get_backend() == MNTKIT_BACKEND_NATIVE) {
			same_lookups(live, s, t);
			/* nothing changed: the same snapshot again */
			T_OK(mntkit_live_snapshot(live, &s2));
			T_ASSERT(s2 == s);
			mntkit_table_free(s2);
		}
		mntkit_table_free(t);
		mntkit_table_free(s);
	}
}

/* a quiet point: the live table rescanned and processed, then checked */
static void check_quiet(struct mntkit_live *live, const uint64_t *ns_ids,
			const pid_t *pids, size_t n, size_t *counts)
{
	T_OK(mntkit_live_rescan(live));
	process_all(live, counts);
	check_state(live, ns_ids, pids, n);
}

/* ---- the churn ---- */

struct world {
	char *dirs[NDIRS * 2]; /* base/dN and base/dN/s */
	uint64_t seed, seed0;
	size_t ok, tried;
	size_t max_mounts; /* pruned above */
};

static size_t count_mounts(void);

static void world_init(struct world *wd, uint64_t seed)
{
	char *base = t_tmpdir();

	wd->seed = wd->seed0 = seed;
	wd->max_mounts = count_mounts() + MAX_MOUNTS;
	t_mount("lbase", base, "tmpfs", 0, NULL);
	for (int i = 0; i < NDIRS; i++) {
		wd->dirs[2 * i] = t_path("%s/d%d", base, i);
		wd->dirs[2 * i + 1] = t_path("%s/d%d/s", base, i);
		t_mkdir(wd->dirs[2 * i]);
		t_mkdir(wd->dirs[2 * i + 1]);
	}
}

static const char *any_dir(struct world *wd)
{
	return wd->dirs[t_rand(&wd->seed) % (NDIRS * 2)];
}

/* one operation at random: 0 when it took effect (many fail: EINVAL) */
static int churn_op(struct world *wd)
{
	static const unsigned long props[] = { MS_SHARED, MS_PRIVATE, MS_SLAVE,
					       MS_SHARED };
	const char *a = any_dir(wd), *b = any_dir(wd);
	unsigned int op = (unsigned int)(t_rand(&wd->seed) % 100);
	unsigned long prop = props[t_rand(&wd->seed) % 4];
	char *sub;
	int r;

	switch (op / 10) {
	case 0:
	case 1: /* a tmpfs, with room for one more below */
		r = mount("live", a, "tmpfs", 0, "size=32k");
		if (!r) {
			sub = t_path("%s/s", a);
			mkdir(sub, 0755);
			free(sub);
		}
		return r;
	case 2: /* bind, rbind */
		return mount(a, b, NULL, MS_BIND | (op & 1 ? MS_REC : 0), NULL);
	case 3:
	case 4:
		return umount2(a, MNT_DETACH);
	case 5:
		return mount(a, b, NULL, MS_MOVE, NULL);
	case 6: /* ro, rw */
		return mount(NULL, a, NULL,
			     MS_REMOUNT | MS_BIND | (op & 1 ? MS_RDONLY : 0),
			     NULL);
	case 7: /* propagation by mount(2): signalled to no one */
		return mount(NULL, a, NULL, prop | (op & 1 ? MS_REC : 0), NULL);
	case 8: /* by mount_setattr(2), with a flag */
		return t_mount_setattr(AT_FDCWD, a, 0,
				       op & 1 ? MOUNT_ATTR_NODEV : 0,
				       op & 1 ? 0 : MOUNT_ATTR_NODEV, prop);
	default: /* the superblock's options */
		return mount(NULL, a, NULL, MS_REMOUNT,
			     op & 1 ? "size=48k" : "size=32k");
	}
}

/* the mounts of our namespace (its mountinfo: every kernel has it) */
static size_t count_mounts(void)
{
	struct t_mitab tab;
	size_t n;

	t_mi_read(0, &tab);
	n = tab.n;
	t_mi_free(&tab);
	return n;
}

static void prune(struct world *wd)
{
	if (count_mounts() < wd->max_mounts)
		return;
	for (int i = 0; i < NDIRS * 2; i++)
		while (umount2(wd->dirs[i], MNT_DETACH) == 0)
			;
}

static void churn(struct world *wd, int nops)
{
	for (int i = 0; i < nops; i++) {
		wd->ok += churn_op(wd) == 0;
		if (++wd->tried % 50 == 0)
			prune(wd);
	}
}

/* MNTKIT_TEST_LIVE_MOUNTS: the mounts to add (SIZE_MAX: "max"), or 0 */
static size_t big_mounts(void)
{
	const char *e = getenv("MNTKIT_TEST_LIVE_MOUNTS");

	if (!e || !*e)
		return 0;
	if (!strcmp(e, "max"))
		return SIZE_MAX;
	return (size_t)strtoull(e, NULL, 10);
}

/* the operations of a case (about 100,000 over the model cases) */
static int case_ops(int share)
{
	if (big_mounts())
		return 2000;
	return (t_slow_machine() ? 10000 : 100000) / 6 * share;
}

/* room left under fs.mount-max, less what the churn may take */
static size_t mount_room(void)
{
	char *s = t_read_file("/proc/sys/fs/mount-max", NULL);
	size_t max = (size_t)strtoull(s, NULL, 10), have = count_mounts();

	free(s);
	return max > have + 1000 ? max - have - 1000 : 0;
}

/*
 * @want bind mounts of a small tmpfs (private, each on a directory of
 * its own), as many as fs.mount-max leaves room for. The limit is global
 * (every namespace's): it is not raised.
 */
static void add_bulk(size_t want)
{
	size_t room = mount_room();
	char *base = t_tmpdir(), *src = t_path("%s/src", base);

	if (want > room) {
		if (want != SIZE_MAX)
			t_log("fs.mount-max (global, not raised) leaves room "
			      "for %zu mounts, not %zu\n", room, want);
		want = room;
	}
	t_mount("lbulk", base, "tmpfs", 0, NULL);
	t_mkdir(src);
	t_mount("lbulksrc", src, "tmpfs", 0, "size=16k");
	for (size_t i = 0; i < want; i++) {
		char *dir = t_path("%s/%zu", base, i);

		t_mkdir(dir);
		T_OK(mount(src, dir, NULL, MS_BIND, NULL));
		free(dir);
	}
	free(src);
	t_log("%zu mounts in the namespace\n", count_mounts());
}

static void log_counts(const char *what, const struct world *wd,
		       const size_t *counts)
{
	t_log("%s: seed %#" PRIx64 ", %zu/%zu ops took effect; events: %zu "
	      "attach %zu detach %zu move %zu change %zu resync %zu ns_add "
	      "%zu ns_gone\n",
	      what, wd->seed0, wd->ok, wd->tried, counts[MNTKIT_EVENT_ATTACH],
	      counts[MNTKIT_EVENT_DETACH], counts[MNTKIT_EVENT_MOVE],
	      counts[MNTKIT_EVENT_CHANGE], counts[MNTKIT_EVENT_RESYNC],
	      counts[MNTKIT_EVENT_NS_ADD], counts[MNTKIT_EVENT_NS_GONE]);
}

static struct mntkit_live *live_open(enum mntkit_watch_source src,
				     unsigned int flags)
{
	MNTKIT_WATCH_OPTS(wo, .source = src, .flags = flags,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN);
	struct mntkit_live *live = NULL;
	int r = mntkit_live_new(&wo, NULL, &live);

	if (r == -EOPNOTSUPP && src == MNTKIT_WATCH_FANOTIFY)
		t_skip("no fanotify mount events (6.15+, native backend)");
	T_ASSERTF(r == 0, "mntkit_live_new: %s", strerror(-r));
	return live;
}

static void use_backend(enum mntkit_backend b)
{
	if (mntkit_set_backend(b) < 0)
		t_skip("no %s backend", mntkit_backend_name(b));
}

/* the mounts have unique IDs (above 2^31, mntkit_diff(3)), not old ones */
static bool unique_ids(void)
{
	uint64_t id;

	T_OK(mntkit_root_id(0, NULL, &id));
	return id > (1ULL << 31);
}

static void model_case(enum mntkit_backend b, enum mntkit_watch_source src,
		       uint64_t seed, int share)
{
	static const uint64_t zero_id;
	static const pid_t zero_pid;
	size_t counts[8] = { 0 };
	struct world wd = { 0 };
	struct mntkit_live *live;
	char what[64];
	int nops = case_ops(share);

	t_private_ns();
	use_backend(b);
	if (big_mounts())
		add_bulk(big_mounts());
	world_init(&wd, seed);
	t_log("seed %#" PRIx64 ", %d ops\n", seed, nops);
	live = live_open(src, 0);
	check_quiet(live, &zero_id, &zero_pid, 1, counts);
	for (int done = 0; done < nops; done += QUIET) {
		churn(&wd, QUIET);
		check_quiet(live, &zero_id, &zero_pid, 1, counts);
	}
	snprintf(what, sizeof(what), "%s/%s", mntkit_backend_name(b),
		 mntkit_watch_source_name(src));
	log_counts(what, &wd, counts);
	/* every kind of event met, in proportion to the operations (a
	 * slow machine runs a tenth of them) */
	T_ASSERT(counts[MNTKIT_EVENT_ATTACH] > (size_t)nops / 20 &&
		 counts[MNTKIT_EVENT_DETACH] > (size_t)nops / 20 &&
		 counts[MNTKIT_EVENT_CHANGE] > (size_t)nops / 400);
	/* a mount named by an old, reusable ID that changed its mount
	 * point cannot be told from another: DETACH and ATTACH
	 * (mntkit_diff(3)); the kernels before 6.8 have no other IDs */
	if (unique_ids())
		T_ASSERT(counts[MNTKIT_EVENT_MOVE] > (size_t)nops / 400);
	else
		t_log("old mount IDs only (no unique IDs): no MOVE\n");
	mntkit_live_free(live);
}

T_CASE(model_native_fanotify)
{
	model_case(MNTKIT_BACKEND_NATIVE, MNTKIT_WATCH_FANOTIFY, 0x11fe1, 2);
}

T_CASE(model_native_poll)
{
	model_case(MNTKIT_BACKEND_NATIVE, MNTKIT_WATCH_POLL, 0x11fe2, 2);
}

T_CASE(model_mountinfo)
{
	model_case(MNTKIT_BACKEND_MOUNTINFO, MNTKIT_WATCH_AUTO, 0x11fe3, 1);
}

/* ---- namespaces that come and go (MNTKIT_WATCH_F_ALL_NS) ---- */

struct kid {
	pid_t pid;
	int go; /* closing it ends the kid */
	int ns_fd;
	uint64_t ns_id;
};

/*
 * The ID of process @pid's mount namespace (0: ours) as an all-namespace
 * watch names it (mntkit_event(3)): NS_GET_MNTNS_ID; a kernel without
 * the ioctl (before 6.10) has no namespace IDs, and the watch names a
 * namespace by the inode number of its nsfs file.
 */
static uint64_t ns_id_of(pid_t pid)
{
	char *path = pid ? t_path("/proc/%d/ns/mnt", (int)pid) :
			   t_path("/proc/self/ns/mnt");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint64_t id;

	T_OK(fd);
	free(path);
	if (ioctl(fd, T_NS_GET_MNTNS_ID, &id)) {
		T_ASSERTF(errno == ENOTTY, "NS_GET_MNTNS_ID: %s",
			  strerror(errno));
		T_OK(fstat(fd, &st));
		id = st.st_ino;
	}
	close(fd);
	return id;
}

/* a process in a namespace of its own (a copy of ours), until stopped */
static void kid_start(struct kid *kids, struct kid *k)
{
	int go[2], ready[2];
	char c;

	if (pipe(go) || pipe(ready))
		t_fail("pipe: %s", strerror(errno));
	k->pid = fork();
	T_OK(k->pid);
	if (k->pid == 0) {
		close(go[1]);
		close(ready[0]);
		/* the other kids end when their pipes close: none held here */
		for (int i = 0; i < MAX_KIDS; i++)
			if (kids[i].pid)
				close(kids[i].go);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(1);
		t_write_full(ready[1], "r", 1);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	t_read_full(ready[0], &c, 1);
	close(ready[0]);
	k->go = go[1];
	k->ns_fd = open(t_path("/proc/%d/ns/mnt", (int)k->pid),
			O_RDONLY | O_CLOEXEC);
	T_OK(k->ns_fd);
	k->ns_id = ns_id_of(k->pid);
}

static void kid_stop(struct kid *k)
{
	close(k->go);
	close(k->ns_fd);
	t_wait_child(k->pid, "a namespace's process");
	k->pid = 0;
}

static void allns_body(int mountinfo)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_ALL_NS,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN);
	struct kid kids[MAX_KIDS] = { { 0 } };
	uint64_t ids[MAX_KIDS + 1];
	pid_t pids[MAX_KIDS + 1];
	size_t counts[8] = { 0 }, n;
	struct world wd = { 0 };
	struct mntkit_live *live;
	struct mntkit_table *s;
	int own_fd, nops = case_ops(1);
	uint64_t seed = mountinfo ? 0x11fe6 : 0x11fe4;

	if (big_mounts())
		t_skip("MNTKIT_TEST_LIVE_MOUNTS: each namespace would copy "
		       "them (the cases of one namespace run)");
	use_backend(mountinfo ? MNTKIT_BACKEND_MOUNTINFO :
				MNTKIT_BACKEND_NATIVE);
	/*
	 * In a chroot: at the namespace's root, where setns(2) into a kid's
	 * namespace and back puts the case anyway, and where the kids then
	 * are too (as a container's processes), with this PID namespace's
	 * /proc there as well.
	 */
	if (!t_root_is_ns_root()) {
		t_ns_root_take();
		T_OK(mount("proc", "/proc", "proc",
			   MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL));
	}
	world_init(&wd, seed);
	t_log("seed %#" PRIx64 ", %d ops\n", seed, nops);
	own_fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	T_OK(own_fd);
	ids[0] = ns_id_of(0);
	pids[0] = getpid();
	T_OK(mntkit_live_new(&wo, NULL, &live));
	/* one namespace: the snapshot of an all-namespace table is by ID */
	T_ASSERT(mntkit_live_snapshot(live, &s) == -EINVAL && !s);
	T_ASSERT(!mntkit_live_get(live, 1) && errno == EINVAL);
	for (int done = 0; done < nops; done += QUIET) {
		struct kid *k = &kids[t_rand(&wd.seed) % MAX_KIDS];

		if (k->pid)
			kid_stop(k);
		else
			kid_start(kids, k);
		/* the churn in a namespace at random, ours or a kid's */
		k = &kids[t_rand(&wd.seed) % MAX_KIDS];
		if (k->pid)
			T_OK(setns(k->ns_fd, CLONE_NEWNS));
		churn(&wd, QUIET);
		T_OK(setns(own_fd, CLONE_NEWNS));
		n = 1;
		for (int i = 0; i < MAX_KIDS; i++) {
			if (!kids[i].pid)
				continue;
			ids[n] = kids[i].ns_id;
			pids[n++] = kids[i].pid;
		}
		check_quiet(live, ids, pids, n, counts);
		/* a gone namespace's state went with it */
		for (int i = 0; i < MAX_KIDS; i++)
			if (!kids[i].pid && kids[i].ns_id)
				T_NEG(mntkit_live_snapshot_ns(live, kids[i].ns_id,
							      &s),
				      ENOENT);
	}
	log_counts(mountinfo ? "all namespaces, mountinfo" :
			       "all namespaces, native",
		   &wd, counts);
	T_ASSERT(counts[MNTKIT_EVENT_NS_ADD] > 2 &&
		 counts[MNTKIT_EVENT_NS_GONE] > 2);
	for (int i = 0; i < MAX_KIDS; i++)
		if (kids[i].pid)
			kid_stop(&kids[i]);
	mntkit_live_free(live);
}

T_CASE(model_all_ns_native)
{
	t_in_own_pidns(allns_body, 0);
}

T_CASE(model_all_ns_mountinfo)
{
	t_in_own_pidns(allns_body, 1);
}

/* ---- snapshots: shared, cached, immutable, freed from any thread ---- */

T_CASE(snapshot_sharing)
{
	struct mntkit_table *s1, *s2, *s3;
	struct mntkit_live *live;
	struct mntkit_statmount *copy;
	const struct mntkit_statmount *sm;
	char *dir;
	uint64_t id;
	ssize_t i;
	size_t n;

	t_private_ns();
	dir = t_tmpdir();
	live = live_open(MNTKIT_WATCH_AUTO, 0);
	T_OK(mntkit_live_snapshot(live, &s1));
	T_OK(mntkit_live_snapshot(live, &s2));
	T_ASSERT(s1 == s2); /* nothing changed: the one table */
	mntkit_table_free(s2);
	n = mntkit_table_count(s1);
	id = t_tmpfs(dir, 0, NULL);
	T_OK(mntkit_live_rescan(live));
	T_ASSERT(mntkit_live_process(live, NULL, 0) >= 1);
	T_OK(mntkit_live_snapshot(live, &s2));
	T_ASSERT(s2 != s1);
	T_EQ_U(mntkit_table_count(s2), n + 1);
	T_NEG(mntkit_table_find(s1, id), ENOENT);
	i = mntkit_table_find(s2, id);
	T_OK(i);
	sm = mntkit_table_get(s2, (size_t)i);
	T_ASSERT(sm == mntkit_live_get(live, id));
	/* the records that did not change are shared, not copied */
	for (size_t k = 0; k < n; k++)
		T_ASSERT(mntkit_table_get(s1, k) ==
			 mntkit_table_get(s2, (size_t)mntkit_table_find(
						  s2, mntkit_table_get(s1, k)
							      ->mnt_id)));
	/* a record replaced stays as it was in the snapshot that has it */
	copy = t_xmalloc(sm->size);
	memcpy(copy, sm, sm->size);
	T_OK(mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	T_OK(mntkit_live_rescan(live));
	T_ASSERT(mntkit_live_process(live, NULL, 0) >= 1);
	T_ASSERT(mntkit_live_get(live, id) != sm);
	T_ASSERT(mntkit_live_get(live, id)->mnt_attr & MOUNT_ATTR_RDONLY);
	T_ASSERT(!memcmp(mntkit_table_get(s2, (size_t)i), copy, copy->size));
	T_OK(mntkit_live_snapshot(live, &s3));
	/* the live table freed first: its snapshots stay */
	mntkit_live_free(live);
	T_ASSERT(!memcmp(mntkit_table_get(s2, (size_t)i), copy, copy->size));
	T_EQ_U(mntkit_table_count(s3), n + 1);
	T_ASSERT(mntkit_table_get(s3, (size_t)mntkit_table_find(s3, id))
			 ->mnt_attr & MOUNT_ATTR_RDONLY);
	mntkit_table_free(s1);
	mntkit_table_free(s2);
	mntkit_table_free(s3);
	free(copy);
}

/* the lookups by target and source, and the events returned */
T_CASE(events_and_lookups)
{
	MNTKIT_WATCH_OPTS(wo, .rescan_ms = MNTKIT_WATCH_NO_RESCAN);
	struct mntkit_live *live;
	const struct mntkit_statmount *sm;
	struct mntkit_event ev[8];
	uint64_t id, parent, *kids;
	char *dir, *sub;
	ssize_t n;

	t_private_ns();
	dir = t_tmpdir();
	T_OK(mntkit_live_new(&wo, NULL, &live));
	id = t_tmpfs(dir, 0, "size=32k");
	sub = t_path("%s/x", dir);
	t_mkdir(sub);
	T_OK(mntkit_live_rescan(live));
	ev[0].size = MNTKIT_EVENT_SIZE_VER0; /* an older caller's events */
	n = mntkit_live_process(live, ev, 8);
	T_EQ_I(n, 1);
	T_EQ_U(ev[0].kind, MNTKIT_EVENT_ATTACH);
	T_EQ_U(ev[0].mnt_id, id);
	T_ASSERT(ev[0].after == mntkit_live_get(live, id) && !ev[0].before);
	sm = mntkit_live_find_target(live, dir, 0);
	T_ASSERT(sm && sm->mnt_id == id);
	T_OK(mount("livesrc", sub, "tmpfs", 0, NULL));
	T_OK(mntkit_live_rescan(live));
	ev[0].size = sizeof(ev[0]);
	T_EQ_I(mntkit_live_process(live, ev, 8), 1);
	T_ASSERT(mntkit_live_find_source(live, "livesrc", 0) == ev[0].after);
	T_OK(mntkit_live_parent(live, ev[0].mnt_id, &parent));
	T_EQ_U(parent, id);
	T_EQ_I(mntkit_live_children(live, id, &kids), 1);
	T_EQ_U(kids[0], ev[0].mnt_id);
	free(kids);
	T_OK(umount2(dir, MNT_DETACH));
	T_OK(mntkit_live_rescan(live));
	/* one at a time: the rest stay pending */
	T_EQ_I(mntkit_live_process(live, ev, 1), 1);
	T_EQ_U(ev[0].kind, MNTKIT_EVENT_DETACH);
	T_ASSERT(ev[0].before && !ev[0].after);
	T_EQ_I(mntkit_live_process(live, ev, 1), 1);
	T_EQ_U(ev[0].kind, MNTKIT_EVENT_DETACH);
	T_EQ_I(mntkit_live_process(live, ev, 1), 0);
	T_ASSERT(!mntkit_live_get(live, id) && errno == ENOENT);
	T_NEG(mntkit_live_children(live, id, &kids), ENOENT);
	T_ASSERT(!mntkit_live_find_target(live, dir, 0) ||
		 mntkit_live_find_target(live, dir, 0)->mnt_id != id);
	mntkit_live_free(live);
}

/* MNTKIT_WATCH_F_INITIAL: the state starts empty, the events bring it */
T_CASE(initial_events)
{
	struct mntkit_live *live = live_open(MNTKIT_WATCH_AUTO,
					     MNTKIT_WATCH_F_INITIAL);
	struct mntkit_table *s, *t;
	struct mntkit_event ev[4];
	size_t attach = 0;
	ssize_t n;

	T_OK(mntkit_live_snapshot(live, &s));
	T_EQ_U(mntkit_table_count(s), 0);
	mntkit_table_free(s);
	ev[0].size = sizeof(ev[0]);
	while ((n = mntkit_live_process(live, ev, 4)) > 0)
		for (ssize_t i = 0; i < n; i++)
			attach += ev[i].kind == MNTKIT_EVENT_ATTACH;
	T_EQ_I(n, 0);
	T_OK(mntkit_table_new(MASK, 0, NULL, &t));
	T_OK(mntkit_live_snapshot(live, &s));
	T_EQ_U(attach, mntkit_table_count(t));
	if (mntkit_get_backend() == MNTKIT_BACKEND_MOUNTINFO)
		same_table_by_old(s, t);
	else
		same_table(s, t);
	mntkit_table_free(s);
	mntkit_table_free(t);
	mntkit_live_free(live);
}

/* snapshots read and freed in other threads while the writer applies */
#define READERS 3
struct reader_arg {
	struct mntkit_table *volatile slot;
	volatile int stop;
	size_t reads;
};

static void *reader(void *p)
{
	struct reader_arg *r = p;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		struct mntkit_table *t =
			__atomic_exchange_n(&r->slot, NULL, __ATOMIC_ACQ_REL);

		if (!t) {
			sched_yield();
			continue;
		}
		for (size_t i = 0; i < mntkit_table_count(t); i++) {
			const struct mntkit_statmount *sm =
				mntkit_table_get(t, i);

			if (!sm || sm->mnt_id != mntkit_table_get(t, i)->mnt_id)
				abort();
			(void)mntkit_table_parent(t, i);
		}
		mntkit_table_free(t);
		r->reads++;
	}
	return NULL;
}

T_CASE(snapshot_threads)
{
	struct reader_arg args[READERS] = { { 0 } };
	pthread_t th[READERS];
	struct world wd = { 0 };
	struct mntkit_live *live;

	t_private_ns();
	world_init(&wd, 0x11fe5);
	live = live_open(MNTKIT_WATCH_AUTO, 0);
	for (int i = 0; i < READERS; i++)
		T_ASSERT(pthread_create(&th[i], NULL, reader, &args[i]) == 0);
	for (int round = 0; round < (t_slow_machine() ? 50 : 300); round++) {
		churn(&wd, 10);
		T_OK(mntkit_live_rescan(live));
		T_ASSERT(mntkit_live_process(live, NULL, 0) >= 0);
		for (int i = 0; i < READERS; i++) {
			struct mntkit_table *t, *old;

			T_OK(mntkit_live_snapshot(live, &t));
			old = __atomic_exchange_n(&args[i].slot, t,
						  __ATOMIC_ACQ_REL);
			mntkit_table_free(old);
		}
	}
	for (int i = 0; i < READERS; i++) {
		__atomic_store_n(&args[i].stop, 1, __ATOMIC_RELEASE);
		pthread_join(th[i], NULL);
		mntkit_table_free(args[i].slot);
	}
	mntkit_live_free(live);
	t_log("reads: %zu %zu %zu\n", args[0].reads, args[1].reads,
	      args[2].reads);
}

/* ---- out of memory ---- */

/*
 * Allocations fail on demand (linked with -Wl,--wrap for malloc, calloc
 * and realloc, tests/meson.build): fail_at N, the Nth allocation from
 * now fails, once (0: none).
 */
/* weak: a build without the flags (NULL) skips the case */
extern void *__real_malloc(size_t size) __attribute__((weak));
extern void *__real_calloc(size_t n, size_t size) __attribute__((weak));
extern void *__real_realloc(void *p, size_t size) __attribute__((weak));
static long fail_at;

static bool fail_now(void)
{
	if (!__atomic_load_n(&fail_at, __ATOMIC_RELAXED))
		return false;
	return __atomic_sub_fetch(&fail_at, 1, __ATOMIC_RELAXED) == 0;
}

void *__wrap_malloc(size_t size)
{
	return fail_now() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return fail_now() ? NULL : __real_realloc(p, size);
}

/* apply what is pending, the Nth allocation failing: the errors seen */
static size_t process_failing(struct mntkit_live *live, long nth,
			      uint64_t *seq)
{
	struct mntkit_event ev[32];
	size_t errors = 0;
	ssize_t n;

	ev[0].size = sizeof(ev[0]);
	__atomic_store_n(&fail_at, nth, __ATOMIC_RELAXED);
	for (int round = 0; round < 1000; round++) {
		/* one at a time: the failure is the call's (an error) */
		n = mntkit_live_process(live, ev, nth % 2 ? 1 : 32);
		if (n == 0)
			break;
		if (n < 0) {
			T_EQ_I(n, -ENOMEM);
			errors++;
			continue;
		}
		/* none lost, none twice: the watch numbers its events */
		for (ssize_t i = 0; i < n; i++) {
			T_ASSERTF(!*seq || ev[i].seq == *seq + 1,
				  "event %" PRIu64 " after %" PRIu64,
				  ev[i].seq, *seq);
			*seq = ev[i].seq;
		}
	}
	__atomic_store_n(&fail_at, 0, __ATOMIC_RELAXED);
	T_EQ_I(mntkit_live_process(live, NULL, 0), 0);
	return errors;
}

/* a tmpfs on one of the world's directories, and another in it */
static void nest(struct world *wd, long i)
{
	const char *dir = wd->dirs[2 * (i % NDIRS)];
	char *sub = t_path("%s/n", dir);

	t_mount("oom", dir, "tmpfs", 0, "size=32k");
	t_mkdir(sub);
	t_mount("oomsub", sub, "tmpfs", 0, "size=32k");
	free(sub);
}

/*
 * An event that cannot be applied (-ENOMEM) is applied by the next call:
 * the state ends right, no event lost. After each change the Nth
 * allocation fails, N from 1 to 120 (the live table's or the watch's);
 * every other round applies one event a call, so that the failure is
 * the call's error rather than the next call's retry.
 */
T_CASE(out_of_memory)
{
	static const uint64_t zero_id;
	static const pid_t zero_pid;
	struct world wd = { 0 };
	size_t errors = 0;
	struct mntkit_live *live;
	uint64_t seq = 0;

	if (!__real_malloc || !__real_calloc || !__real_realloc)
		t_skip("linked without -Wl,--wrap=malloc,calloc,realloc "
		       "(tests/meson.build)");
	t_private_ns();
	world_init(&wd, 0x11fe7);
	live = live_open(MNTKIT_WATCH_AUTO, 0);
	for (long nth = 1; nth <= 120; nth++) {
		churn(&wd, 20);
		/* a mount under a new one: the live table links a first
		 * child (an allocation of its own) */
		nest(&wd, nth);
		T_OK(mntkit_live_rescan(live));
		errors += process_failing(live, nth, &seq);
		check_state(live, &zero_id, &zero_pid, 1);
	}
	t_log("%zu calls failed (ENOMEM), then applied\n", errors);
	T_ASSERT(errors > 0);
	mntkit_live_free(live);
}

/* ---- bad input ---- */

T_CASE(bad_input)
{
	MNTKIT_WATCH_OPTS(wo);
	struct mntkit_watch_opts big[2];
	struct mntkit_live *live = (void *)1;
	struct mntkit_table *t = (void *)1;
	struct mntkit_event ev[2];
	uint64_t id, *ids;

	T_NEG(mntkit_live_new(&wo, NULL, NULL), EINVAL);
	/* unknown flags, an unknown source */
	wo.flags = 0x80;
	T_NEG(mntkit_live_new(&wo, NULL, &live), EINVAL);
	T_ASSERT(live == NULL);
	wo.flags = 0;
	wo.source = 7;
	T_NEG(mntkit_live_new(&wo, NULL, &live), EINVAL);
	/* size 0: declared without MNTKIT_WATCH_OPTS() */
	wo.source = 0;
	wo.size = 0;
	T_NEG(mntkit_live_new(&wo, NULL, &live), EINVAL);
	/* a newer caller's struct asking for what this library cannot do */
	memset(big, 0, sizeof(big));
	big[0].size = sizeof(big);
	((char *)big)[sizeof(big) - 1] = 1;
	T_NEG(mntkit_live_new(big, NULL, &live), E2BIG);
	/* all namespaces with a namespace named */
	{
		MNTKIT_WATCH_OPTS(wa, .flags = MNTKIT_WATCH_F_ALL_NS);
		MNTKIT_OPTS(o, .pid = 1);

		T_NEG(mntkit_live_new(&wa, &o, &live), EINVAL);
	}
	/* NULL live */
	T_NEG(mntkit_live_fd(NULL), EINVAL);
	T_NEG(mntkit_live_process(NULL, NULL, 0), EINVAL);
	T_NEG(mntkit_live_rescan(NULL), EINVAL);
	T_NEG(mntkit_live_snapshot(NULL, &t), EINVAL);
	T_ASSERT(t == NULL);
	T_NEG(mntkit_live_snapshot_ns(NULL, 0, &t), EINVAL);
	T_ASSERT(!mntkit_live_get(NULL, 1) && errno == EINVAL);
	T_NEG(mntkit_live_parent(NULL, 1, &id), EINVAL);
	T_NEG(mntkit_live_children(NULL, 1, &ids), EINVAL);
	T_ASSERT(!mntkit_live_find_target(NULL, "/", 0) && errno == EINVAL);
	T_ASSERT(!mntkit_live_find_source(NULL, "x", 0) && errno == EINVAL);
	mntkit_live_free(NULL);

	t_private_ns();
	T_OK(mntkit_live_new(NULL, NULL, &live));
	T_OK(mntkit_live_fd(live));
	T_NEG(mntkit_live_process(live, NULL, 1), EINVAL);
	ev[0].size = 0;
	T_NEG(mntkit_live_process(live, ev, 2), EINVAL);
	ev[0].size = MNTKIT_EVENT_SIZE_VER0 - 1;
	T_NEG(mntkit_live_process(live, ev, 2), EINVAL);
	T_NEG(mntkit_live_snapshot(live, NULL), EINVAL);
	T_NEG(mntkit_live_snapshot_ns(live, 12345, &t), ENOENT);
	T_NEG(mntkit_live_parent(live, 1, NULL), EINVAL);
	T_NEG(mntkit_live_parent(live, 1, &id), ENOENT);
	T_NEG(mntkit_live_children(live, 1, NULL), EINVAL);
	T_NEG(mntkit_live_children(live, 1, &ids), ENOENT);
	T_ASSERT(!mntkit_live_get(live, 1) && errno == ENOENT);
	T_ASSERT(!mntkit_live_find_target(live, NULL, 0) && errno == EINVAL);
	T_ASSERT(!mntkit_live_find_target(live, "/", 0x100) &&
		 errno == EINVAL);
	/* a root of mountinfo is there, and is a root: the caller's root
	 * mount, or in a chroot whose root is no mount point, a mount below
	 * (the mount that holds / is not in the table) */
	T_ASSERT(t_mi_roots(&ids) > 0);
	T_OK(mntkit_id_from_old(ids[0], NULL, &id));
	free(ids);
	T_ASSERT(mntkit_live_get(live, id) != NULL);
	T_NEG(mntkit_live_parent(live, id, &id), ENOENT);
	mntkit_live_free(live);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
