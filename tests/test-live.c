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
 * them). About 100,000 operations in all (a tenth with
 * MNTKIT_TEST_SLOW=1).
 */
#include <poll.h>
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
 * A quiet point: the live table rescanned and processed, then each
 * namespace checked (@ns_ids/@pids: @n of them; a live table of one
 * namespace: @n 1, @ns_ids[0] 0, @pids[0] 0).
 */
static void check_quiet(struct mntkit_live *live, const uint64_t *ns_ids,
			const pid_t *pids, size_t n, size_t *counts)
{
	T_OK(mntkit_live_rescan(live));
	process_all(live, counts);
	for (size_t k = 0; k < n; k++) {
		MNTKIT_OPTS(o, .pid = pids[k]);
		struct mntkit_table *s, *s2, *t;

		T_OK(mntkit_live_snapshot_ns(live, ns_ids[k], &s));
		T_OK(mntkit_table_new(MASK, 0, pids[k] ? &o : NULL, &t));
		same_table(s, t);
		if (!ns_ids[k]) {
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

/* ---- the churn ---- */

struct world {
	char *dirs[NDIRS * 2]; /* base/dN and base/dN/s */
	uint64_t seed;
	size_t ok, tried;
};

static void world_init(struct world *wd, uint64_t seed)
{
	char *base = t_tmpdir();

	wd->seed = seed;
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

static size_t count_mounts(void)
{
	uint64_t *ids = NULL;
	size_t n = t_lm(T_LSMT_ROOT, 0, &ids);

	free(ids);
	return n;
}

static void prune(struct world *wd)
{
	if (count_mounts() < MAX_MOUNTS)
		return;
	for (int i = 0; i < NDIRS * 2; i++)
		while (umount2(wd->dirs[i], MNT_DETACH) == 0)
			;
}

static void churn(struct world *wd, int nops)
{
	for (int i = 0; i < nops; i++) {
		wd->tried++;
		wd->ok += churn_op(wd) == 0;
		if (i % 50 == 49)
			prune(wd);
	}
}

/* the operations of a case (about 100,000 over the model cases) */
static int case_ops(int share)
{
	return (t_slow_machine() ? 10000 : 100000) / 7 * share;
}

static void log_counts(const char *what, const struct world *wd,
		       const size_t *counts)
{
	t_log("%s: seed %#" PRIx64 ", %zu/%zu ops took effect; events: %zu "
	      "attach %zu detach %zu move %zu change %zu resync %zu ns_add "
	      "%zu ns_gone\n",
	      what, wd->seed, wd->ok, wd->tried, counts[MNTKIT_EVENT_ATTACH],
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
	wd.seed = seed;
	log_counts(what, &wd, counts);
	T_ASSERT(counts[MNTKIT_EVENT_ATTACH] > 100 &&
		 counts[MNTKIT_EVENT_DETACH] > 100 &&
		 counts[MNTKIT_EVENT_MOVE] > 10 &&
		 counts[MNTKIT_EVENT_CHANGE] > 10);
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

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
