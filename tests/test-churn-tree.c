/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-churn-tree - a snapshot is a tree, always: while mounts move, every
 * consumer that walks parent links shows every mount that was alive the
 * whole time, reachable from a root, at a consistent depth.
 *
 * The churn (a child of the case, in its namespace) does, round after
 * round as fast as it can:
 *
 *  - a swap: A over B, then B over A (three moves, mount(MS_MOVE)), so
 *    that each is the other's parent in turn. A listing read while it
 *    runs can see A's parent B and B's parent A: a cycle, which leaves
 *    both (and C, E below them) unreachable from the roots if nothing
 *    checks for it.
 *  - L (with M below it) moved under N, a tmpfs mounted after the listing
 *    began, and back; then N is unmounted. A listing can see L's parent
 *    N, which is not in it (new) or which vanished.
 *
 *	D/p        A (or B)       D/p/c    C below A    D/k   K (stays)
 *	D/p/q      B (or A)       D/p/q/c  E below B    D/l   L, D/l/m  M
 *	D/f/0 .. D/f/199  mounted after A and before B, so that a snapshot's
 *	statmounts of A and B are some time apart
 *
 * Every mount of the namespace before the churn is alive the whole time;
 * each case takes its snapshots or listings for about 1.5 s and checks
 * every one: every such mount there once, reachable from a root, depth 0
 * for a root and its parent's + 1 otherwise; a table that is not flagged
 * MNTKIT_TABLE_STATE_PLACED has the one root it had before the churn.
 * The consumers: mntkit_table_new(), mntkit_list() (TREE, TREE|REVERSE,
 * CHILDREN, from the root and from a mount), statmnt -r and -l, lsmnt
 * (tree, -J, -l, a filtered tree), each on both backends. The *_placed
 * cases run them with MNTKIT_TEST_SETTLE_ROUNDS=0 (no re-reads), so that
 * what does not fit is placed as a root at once, and the consumers must
 * show those mounts too.
 */
#include <poll.h>

#include <mntkit.h>

#include "harness.h"

#define NATIVE	  MNTKIT_BACKEND_NATIVE
#define MOUNTINFO MNTKIT_BACKEND_MOUNTINFO

/* how long a case reads while the churn runs */
#define CHURN_SECS 1.3
#define READ_SECS  1.2
/*
 * At least this many churn rounds and reads, however slow the machine (a
 * kernel under qemu's emulation reads a snapshot in 100 ms and more):
 * both go on past their time until they have them, at most MAX_SECS.
 */
#define MAX_SECS   40.0

/* 11 of each; 3 on a machine the harness knows is slow (qemu's TCG) */
static uint64_t min_rounds(void)
{
	return t_slow_machine() ? 3 : 11;
}
/* mounts made between A and B */
#define NFILL 200

/* a mount alive the whole case: its old ID, and its unique ID (or 0) */
struct live {
	uint64_t old, uniq;
	uint64_t parent_old;
	int below_s; /* strictly below the scratch mount S */
	int is_tmpfs;
};

struct fixture {
	char *dir;
	char *p, *tmp, *l, *n;
	uint64_t s_old, k_old, a_old, b_old;
	uint64_t s_id;	   /* S in the backend's ID space */
	/* the roots a snapshot has: the mounts of mountinfo whose parent it
	 * does not show (one, but in a chroot whose root is no mount point) */
	uint64_t *roots_old;
	size_t nroots_old;
	int root_hidden; /* the mount that holds / is not in mountinfo */
	struct live *live;
	size_t nlive;
	enum mntkit_backend b;
	int no_reread; /* MNTKIT_TEST_SETTLE_ROUNDS=0 */
};

static void use_backend(enum mntkit_backend b)
{
	if (mntkit_set_backend(b))
		t_fail("mntkit_set_backend(%s): %s", mntkit_backend_name(b),
		       strerror(errno));
}

/* ---- the churn ---- */

static int move(const char *from, const char *to)
{
	return mount(from, to, NULL, MS_MOVE, NULL);
}

struct mover {
	pid_t pid;
	int fd;	  /* the round count comes through it */
	int stop; /* closed when the reads are done */
};

/* has the reader closed its end of the stop pipe? */
static int stop_asked(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) > 0;
}

/* keep reading: not READ_SECS yet, or too few reads so far */
static int read_more(double start, uint64_t reads)
{
	double now = t_now();

	return now < start + READ_SECS ||
	       (reads < min_rounds() && now < start + MAX_SECS);
}

static void mover_start(struct mover *m, const struct fixture *f, double secs)
{
	char q[PATH_MAX], x[PATH_MAX], tq[PATH_MAX];
	int pfd[2], sfd[2];

	snprintf(q, sizeof(q), "%s/q", f->p);
	snprintf(tq, sizeof(tq), "%s/q", f->tmp);
	snprintf(x, sizeof(x), "%s/x", f->n);
	if (pipe(pfd) || pipe(sfd))
		t_fail("pipe: %s", strerror(errno));
	m->pid = fork();
	if (m->pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (m->pid == 0) {
		double start = t_now();
		uint64_t count = 0;

		close(pfd[0]);
		close(sfd[1]);
		/* CHURN_SECS, and on until the reads are done (with enough
		 * rounds), at most MAX_SECS */
		while (t_now() < start + MAX_SECS &&
		       (t_now() < start + secs || count < min_rounds() ||
			!stop_asked(sfd[0]))) {
			/* the swap: the inner one out, the outer one into
			 * it, both back: the inner one is the outer now */
			if (move(q, f->tmp) || move(f->p, tq) ||
			    move(f->tmp, f->p))
				_exit(3);
			/* L under a new mount and back */
			if (mount("n", f->n, "tmpfs", 0, NULL) ||
			    mkdir(x, 0755) || move(f->l, x) || move(x, f->l) ||
			    umount2(f->n, MNT_DETACH))
				_exit(4);
			count++;
		}
		t_write_full(pfd[1], &count, sizeof(count));
		_exit(0);
	}
	close(pfd[1]);
	close(sfd[0]);
	m->fd = pfd[0];
	m->stop = sfd[1];
}

static void mover_end(struct mover *m, const char *what)
{
	uint64_t count;

	close(m->stop);
	t_read_full(m->fd, &count, sizeof(count));
	close(m->fd);
	t_wait_child(m->pid, "churn child");
	t_log("%s: %" PRIu64 " churn rounds\n", what, count);
	T_ASSERTF(count >= min_rounds(), "%s: only %" PRIu64 " churn rounds", what,
		  count);
}

/* ---- the fixture ---- */

static uint64_t mkmount(const char *path, const char *sub1, const char *sub2)
{
	uint64_t old = (t_tmpfs(path, 0, NULL), t_old_id(path));

	if (sub1)
		t_mkdir(t_path("%s/%s", path, sub1));
	if (sub2)
		t_mkdir(t_path("%s/%s", path, sub2));
	return old;
}

/* the mounts before the churn, from mountinfo (and statmount) */
static void take_live(struct fixture *f)
{
	struct t_mitab tab;
	uint64_t *ids;
	size_t n;
	int have_sm = t_lm_raw_ns(T_LSMT_ROOT, 0, 0, 0, &ids) >= 0;

	if (have_sm)
		free(ids);

	t_mi_read(0, &tab);
	f->live = t_xcalloc(tab.n, sizeof(*f->live));
	f->nlive = tab.n;
	for (size_t i = 0; i < tab.n; i++) {
		struct live *lv = &f->live[i];

		lv->old = tab.v[i].id;
		lv->parent_old = tab.v[i].parent;
		lv->is_tmpfs = !strcmp(tab.v[i].fstype, "tmpfs");
	}
	/* below S: S is an ancestor (by mountinfo's parents) */
	for (size_t i = 0; i < f->nlive; i++) {
		uint64_t p = f->live[i].parent_old;

		for (size_t hops = 0; hops < f->nlive && p; hops++) {
			struct t_mi *m = t_mi_by_id(&tab, p);

			if (p == f->s_old) {
				f->live[i].below_s = 1;
				break;
			}
			if (!m || m->parent == m->id)
				break;
			p = m->parent;
		}
	}
	t_mi_free(&tab);
	if (!have_sm || !t_have_unique_ids())
		return;
	/* the unique IDs, through the raw system calls */
	n = t_lm(T_LSMT_ROOT, 0, &ids);
	for (size_t j = 0; j < n; j++) {
		struct t_sm_head *sm = t_sm(ids[j], T_STATMOUNT_MNT_BASIC);

		for (size_t i = 0; i < f->nlive; i++)
			if (f->live[i].old == sm->mnt_id_old)
				f->live[i].uniq = ids[j];
		free(sm);
	}
	free(ids);
	for (size_t i = 0; i < f->nlive; i++)
		T_ASSERTF(f->live[i].uniq, "old ID %" PRIu64 " not listed",
			  f->live[i].old);
}

/*
 * @no_reread: MNTKIT_TEST_SETTLE_ROUNDS=0, so that a mount that does not
 * fit is placed as a root at once (the tools inherit it)
 */
/*
 * The roots of the caller's mount tree as the kernel's mountinfo shows it
 * (no churn reaches them), and whether the mount that holds / is there.
 */
static void mi_roots(struct fixture *f)
{
	struct t_mitab mi;

	f->nroots_old = t_mi_roots(&f->roots_old);
	t_mi_read(0, &mi);
	f->root_hidden = !t_mi_by_id(&mi, t_old_id("/"));
	t_mi_free(&mi);
}

static void setup(struct fixture *f, enum mntkit_backend b, int no_reread)
{
	char *d;

	if (b == NATIVE)
		t_require_statmount();
	if (no_reread)
		setenv("MNTKIT_TEST_SETTLE_ROUNDS", "0", 1);
	t_private_ns();
	memset(f, 0, sizeof(*f));
	f->b = b;
	f->no_reread = no_reread;
	d = f->dir = t_tmpdir();
	f->s_old = t_old_id(d);
	f->p = t_path("%s/p", d);
	f->tmp = t_path("%s/tmp", d);
	f->l = t_path("%s/l", d);
	f->n = t_path("%s/n", d);
	t_mkdir(f->tmp);
	t_mkdir(f->n);
	f->a_old = mkmount(f->p, "q", "c");
	mkmount(t_path("%s/c", f->p), NULL, NULL);
	/* mounts between A and B in ID order: their statmounts apart */
	t_mkdir(t_path("%s/f", d));
	for (int i = 0; i < NFILL; i++)
		mkmount(t_path("%s/f/%d", d, i), NULL, NULL);
	f->b_old = mkmount(t_path("%s/q", f->p), "q", "c");
	mkmount(t_path("%s/q/c", f->p), NULL, NULL);
	f->k_old = mkmount(t_path("%s/k", d), NULL, NULL);
	mkmount(f->l, "m", NULL);
	mkmount(t_path("%s/m", f->l), NULL, NULL);
	take_live(f);
	mi_roots(f);
	use_backend(b);
	/* S as the backend names it */
	T_OK(mntkit_path_id(AT_FDCWD, d, 0, &f->s_id));
}

/* the case's backend, and whether it reads again */
static const char *label(const struct fixture *f)
{
	const char *old_ids = getenv("MNTKIT_TEST_OLD_IDS");

	return t_path("%s%s%s", mntkit_backend_name(f->b),
		      f->no_reread ? ", no re-read" : "",
		      old_ids && !strcmp(old_ids, "1") ? ", old IDs" : "");
}

static const struct live *live_of_id(const struct fixture *f, uint64_t id)
{
	for (size_t i = 0; i < f->nlive; i++)
		if (f->live[i].uniq == id || f->live[i].old == id)
			return &f->live[i];
	return NULL;
}

/*
 * Every live mount (of those @want picks) once among @n IDs: a unique ID,
 * or the old one (the emulation names a mount it cannot verify by it).
 */
static void expect_all(const struct fixture *f, const uint64_t *ids, size_t n,
		       int (*want)(const struct live *), const char *what)
{
	size_t *seen = t_xcalloc(f->nlive + 1, sizeof(*seen));

	for (size_t j = 0; j < n; j++) {
		const struct live *lv = live_of_id(f, ids[j]);

		if (lv)
			seen[lv - f->live]++;
	}
	for (size_t i = 0; i < f->nlive; i++) {
		if (want && !want(&f->live[i]))
			continue;
		T_ASSERTF(seen[i] == 1,
			  "%s (%s): live mount %" PRIu64 " (%#" PRIx64
			  ") shown %zu times",
			  what, mntkit_backend_name(f->b), f->live[i].old,
			  f->live[i].uniq, seen[i]);
	}
	free(seen);
}

static int below_s(const struct live *lv)
{
	return lv->below_s;
}

static int is_tmpfs(const struct live *lv)
{
	return lv->is_tmpfs;
}

/* ---- snapshots ---- */

/*
 * Every record reachable from the roots by the documented walk, each
 * once, at its parent's depth + 1 (0 for a root), each link naming the
 * record's own mnt_parent_id; every live mount there; the roots of
 * mountinfo (mi_roots(): one, but in a chroot whose root is no mount
 * point) unless the table says it placed mounts as roots. Returns whether
 * it did.
 */
static int check_table(const struct fixture *f, const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t), k = 0, nroots = 0, nplaced = 0;
	unsigned char *seen = t_xcalloc(n + 1, 1);
	uint64_t *olds = t_xcalloc(n + 1, sizeof(*olds));
	unsigned int state = mntkit_table_state(t);

	T_ASSERT(n > 0);
	for (ssize_t i = mntkit_table_first_root(t); i >= 0;) {
		const struct mntkit_statmount *sm =
			mntkit_table_get(t, (size_t)i);
		ssize_t p = mntkit_table_parent(t, (size_t)i), next;
		ssize_t d = mntkit_table_depth(t, (size_t)i);

		T_ASSERTF(k < n && !seen[i], "the walk visits %zd twice", i);
		seen[i] = 1;
		olds[k++] = sm->mnt_id_old;
		if (p < 0) {
			T_ASSERTF(d == 0, "root %#" PRIx64 " at depth %zd",
				  sm->mnt_id, d);
		} else {
			T_ASSERTF(seen[p], "%#" PRIx64 " before its parent",
				  sm->mnt_id);
			T_EQ_U(mntkit_table_get(t, (size_t)p)->mnt_id,
			       sm->mnt_parent_id);
			T_ASSERTF(d >= 1 &&
					  d == mntkit_table_depth(t, (size_t)p) + 1,
				  "%#" PRIx64 " at depth %zd under one at %zd",
				  sm->mnt_id, d,
				  mntkit_table_depth(t, (size_t)p));
		}
		next = mntkit_table_first_child(t, (size_t)i);
		while (next < 0 && i >= 0) {
			next = mntkit_table_next_sibling(t, (size_t)i);
			i = mntkit_table_parent(t, (size_t)i);
		}
		i = next;
	}
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);

		T_ASSERTF(seen[i],
			  "%s: mount %" PRIu64 " (%#" PRIx64 ", parent %#" PRIx64
			  ") not reachable from the roots, depth %zd",
			  mntkit_backend_name(f->b), (uint64_t)sm->mnt_id_old,
			  sm->mnt_id, sm->mnt_parent_id,
			  mntkit_table_depth(t, i));
		if (mntkit_table_parent(t, i) < 0) {
			nroots++;
			T_ASSERTF(state & MNTKIT_TABLE_STATE_PLACED ||
					  t_contains_u64(f->roots_old,
							 f->nroots_old,
							 sm->mnt_id_old),
				  "%s: root %" PRIu64 " is none of mountinfo",
				  mntkit_backend_name(f->b),
				  (uint64_t)sm->mnt_id_old);
		}
		if (mntkit_table_placed(t, i)) {
			nplaced++;
			T_NEG(mntkit_table_parent(t, i), ENOENT);
		}
	}
	T_EQ_U(k, n);
	T_ASSERTF(!nplaced == !(state & MNTKIT_TABLE_STATE_PLACED),
		  "%zu mounts placed, state %#x", nplaced, state);
	if (!(state & MNTKIT_TABLE_STATE_PLACED))
		T_ASSERTF(nroots == f->nroots_old,
			  "%s: %zu roots, none placed; mountinfo has %zu",
			  mntkit_backend_name(f->b), nroots, f->nroots_old);
	expect_all(f, olds, k, NULL, "snapshot");
	free(olds);
	free(seen);
	return !!(state & MNTKIT_TABLE_STATE_PLACED);
}

static struct mntkit_table *table_new(uint64_t mask)
{
	struct mntkit_table *t = NULL;
	int r = mntkit_table_new(mask, 0, NULL, &t);

	T_ASSERTF(r == 0, "mntkit_table_new: %s", strerror(-r));
	return t;
}

static void table_suite(enum mntkit_backend b, int no_reread)
{
	static const uint64_t masks[] = {
		0, MNTKIT_STATMOUNT_MNT_POINT, MNTKIT_STATMOUNT_ALL};
	struct fixture f;
	struct mntkit_table *t;
	uint64_t tables = 0, placed = 0;
	int want_placed;
	struct mover m;
	double end;

	setup(&f, b, no_reread);
	t = table_new(0);
	T_EQ_U(mntkit_table_state(t), 0);
	check_table(&f, t);
	mntkit_table_free(t);
	mover_start(&m, &f, CHURN_SECS);
	end = t_now(); /* the start of the reads */
	/*
	 * Without re-reads a swap seen half-way is placed: about one native
	 * snapshot in 15 here, so a slow machine's few rounds (qemu's TCG: 3
	 * in READ_SECS) can meet none; such a run reads on until it has met
	 * one (at most MAX_SECS), so that the placing is always exercised.
	 */
	want_placed = no_reread && b == NATIVE;
	while (read_more(end, tables) ||
	       (want_placed && !placed && t_now() < end + MAX_SECS)) {
		for (size_t k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
			t = table_new(masks[k]);
			placed += check_table(&f, t);
			tables++;
			mntkit_table_free(t);
		}
	}
	mover_end(&m, t_path("table(%s)", label(&f)));
	t_log("table(%s): %" PRIu64 " snapshots, %" PRIu64
	      " with mounts placed as roots\n",
	      label(&f), tables, placed);
	T_ASSERT(tables >= min_rounds());
	/* (the emulation reads one view at a time and meets fewer) */
	if (want_placed)
		T_ASSERTF(placed > 0, "no snapshot of %" PRIu64
			  " placed a mount as a root", tables);
}

T_CASE(churn_table_native)
{
	table_suite(NATIVE, 0);
}

T_CASE(churn_table_mountinfo)
{
	table_suite(MOUNTINFO, 0);
}

T_CASE(churn_table_placed_native)
{
	table_suite(NATIVE, 1);
}

T_CASE(churn_table_placed_mountinfo)
{
	table_suite(MOUNTINFO, 1);
}

/*
 * The emulation as on a kernel without unique IDs (MNTKIT_TEST_OLD_IDS=1,
 * which the tools inherit): every mount is named by its old ID, and so is
 * N, the mount made and gone while L moves under it and back. A snapshot
 * that read L under N, and N gone since, took N for a parent above the
 * root (an old ID the emulation does not find) and left L a root of its
 * own, the table not flagged.
 */
static void old_ids(void)
{
	setenv("MNTKIT_TEST_OLD_IDS", "1", 1);
}

T_CASE(churn_table_oldids_mountinfo)
{
	old_ids();
	table_suite(MOUNTINFO, 0);
}

/* ---- mntkit_list() ---- */

static size_t list(uint64_t start, unsigned int flags, uint64_t **ids)
{
	ssize_t n = mntkit_list(start, flags, NULL, ids);

	T_ASSERTF(n >= 0, "mntkit_list(%#" PRIx64 ", %#x): %s", start, flags,
		  strerror(errno));
	return (size_t)n;
}

/* the children of S: K, and A or B (one of them is there at any time) */
static void expect_children(const struct fixture *f, const uint64_t *ids,
			    size_t n, const char *what)
{
	int k = 0, ab = 0;

	for (size_t j = 0; j < n; j++) {
		const struct live *lv = live_of_id(f, ids[j]);

		k += lv && lv->old == f->k_old;
		ab += lv && (lv->old == f->a_old || lv->old == f->b_old);
	}
	T_ASSERTF(k == 1, "%s (%s): K listed %d times", what,
		  mntkit_backend_name(f->b), k);
	T_ASSERTF(ab >= 1, "%s (%s): neither A nor B listed", what,
		  mntkit_backend_name(f->b));
}

static void list_suite(enum mntkit_backend b, int no_reread)
{
	struct fixture f;
	uint64_t lists = 0, *ids;
	struct mover m;
	double end;
	size_t n;

	setup(&f, b, no_reread);
	mover_start(&m, &f, CHURN_SECS);
	end = t_now(); /* the start of the reads */
	while (read_more(end, lists)) {
		n = list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE, &ids);
		expect_all(&f, ids, n, NULL, "TREE from the root");
		free(ids);
		n = list(MNTKIT_LSMT_ROOT,
			 MNTKIT_LIST_F_TREE | MNTKIT_LIST_F_REVERSE, &ids);
		expect_all(&f, ids, n, NULL, "TREE|REVERSE from the root");
		free(ids);
		n = list(f.s_id, MNTKIT_LIST_F_TREE, &ids);
		expect_all(&f, ids, n, below_s, "TREE from S");
		free(ids);
		n = list(f.s_id, MNTKIT_LIST_F_CHILDREN, &ids);
		expect_children(&f, ids, n, "CHILDREN of S");
		free(ids);
		lists += 4;
	}
	mover_end(&m, t_path("list(%s)", label(&f)));
	t_log("list(%s): %" PRIu64 " listings\n", label(&f), lists);
	T_ASSERT(lists >= min_rounds());
}

T_CASE(churn_list_native)
{
	list_suite(NATIVE, 0);
}

T_CASE(churn_list_mountinfo)
{
	list_suite(MOUNTINFO, 0);
}

T_CASE(churn_list_placed_native)
{
	list_suite(NATIVE, 1);
}

T_CASE(churn_list_placed_mountinfo)
{
	list_suite(MOUNTINFO, 1);
}

T_CASE(churn_list_oldids_mountinfo)
{
	old_ids();
	list_suite(MOUNTINFO, 0);
}

/* ---- the tools ---- */

/* build/tools/NAME, next to this program's build/tests/ */
static char *tool_path(const char *name)
{
	char *path = t_build_file(2, t_path("tools/%s", name));

	/* the build makes both; a copy of this program alone has neither */
	if (access(path, X_OK))
		t_skip("no %s beside this test program (%s: %s)", name, path,
		       strerror(errno));
	return path;
}

/* run a tool with the case's backend; its stdout, NUL-terminated; it
 * must exit with @status */
static char *run_tool_status(const struct fixture *f, char *const argv[],
			     int status)
{
	size_t len = 0, cap = 65536;
	char *out = t_xmalloc(cap);
	int pfd[2], st;
	pid_t pid;

	if (pipe(pfd))
		t_fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		setenv("MNTKIT_BACKEND", mntkit_backend_name(f->b), 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t r;

		if (cap - len < 4096)
			out = t_xrealloc(out, cap *= 2);
		r = read(pfd[0], out + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0)
		T_ASSERT(errno == EINTR);
	T_ASSERTF(WIFEXITED(st) && WEXITSTATUS(st) == status,
		  "%s %s: exit status %#x, not %d", argv[0], argv[1], st,
		  status);
	out[len] = '\0';
	return out;
}

static char *run_tool(const struct fixture *f, char *const argv[])
{
	return run_tool_status(f, argv, 0);
}

/*
 * The IDs of the output: the number at the start of each line (lsmnt's
 * tree art follows it, in the TARGET column), or after @key in JSON.
 */
static size_t ids_of(const char *out, const char *key, uint64_t **ids)
{
	size_t n = 0, cap = 64;
	uint64_t *v = t_xmalloc(cap * sizeof(*v));
	const char *s = out;

	while (*s) {
		const char *eol = strchr(s, '\n');
		char *end;

		if (!eol)
			eol = s + strlen(s);
		if (key) {
			const char *k = strstr(s, key);

			s = k && k < eol ? k + strlen(key) : NULL;
		}
		if (s) {
			uint64_t id = strtoull(s, &end, 0);

			if (end != s) {
				if (n == cap)
					v = t_xrealloc(v,
						       (cap *= 2) * sizeof(*v));
				v[n++] = id;
			}
		}
		s = *eol ? eol + 1 : eol;
	}
	*ids = v;
	return n;
}

static void tool_check(const struct fixture *f, char *const argv[],
		       const char *key, int (*want)(const struct live *),
		       const char *what)
{
	char *out = run_tool(f, argv);
	uint64_t *ids;
	size_t n = ids_of(out, key, &ids);

	expect_all(f, ids, n, want, what);
	free(ids);
	free(out);
}

static void statmnt_suite(enum mntkit_backend b, int no_reread)
{
	struct fixture f;
	struct mover m;
	uint64_t runs = 0;
	char *statmnt, *s_arg;
	double end;

	setup(&f, b, no_reread);
	statmnt = tool_path("statmnt");
	s_arg = t_path("%" PRIu64, f.s_id);
	mover_start(&m, &f, CHURN_SECS);
	end = t_now(); /* the start of the reads */
	while (read_more(end, runs)) {
		char *all[] = {statmnt, "-r", NULL};
		char *below[] = {statmnt, "-r", s_arg, NULL};
		char *kids[] = {statmnt, "-l", s_arg, NULL};
		char *out;
		uint64_t *ids;
		size_t n;

		/* the root mount: in a chroot whose root is no mount point,
		 * mountinfo does not show it (ENOENT, mntkit_root_id(3)) */
		if (f.root_hidden && b == MOUNTINFO)
			free(run_tool_status(&f, all, 1));
		else
			tool_check(&f, all, NULL, NULL, "statmnt -r");
		tool_check(&f, below, NULL, below_s, "statmnt -r S");
		out = run_tool(&f, kids);
		n = ids_of(out, NULL, &ids);
		expect_children(&f, ids, n, "statmnt -l S");
		free(ids);
		free(out);
		runs += 3;
	}
	mover_end(&m, t_path("statmnt(%s)", label(&f)));
	t_log("statmnt(%s): %" PRIu64 " runs\n", label(&f), runs);
	T_ASSERT(runs >= min_rounds());
}

T_CASE(churn_statmnt_native)
{
	statmnt_suite(NATIVE, 0);
}

T_CASE(churn_statmnt_mountinfo)
{
	statmnt_suite(MOUNTINFO, 0);
}

T_CASE(churn_statmnt_placed_native)
{
	statmnt_suite(NATIVE, 1);
}

T_CASE(churn_statmnt_oldids_mountinfo)
{
	old_ids();
	statmnt_suite(MOUNTINFO, 0);
}

static void lsmnt_suite(enum mntkit_backend b, int no_reread)
{
	struct fixture f;
	struct mover m;
	uint64_t runs = 0;
	char *lsmnt;
	double end;

	setup(&f, b, no_reread);
	lsmnt = tool_path("lsmnt");
	mover_start(&m, &f, CHURN_SECS);
	end = t_now(); /* the start of the reads */
	while (read_more(end, runs)) {
		char *tree[] = {lsmnt, "-n", "-o", "ID,TARGET", NULL};
		char *json[] = {lsmnt, "-J", "-o", "ID,TARGET", NULL};
		char *flat[] = {lsmnt, "-l", "-n", "-o", "ID,TARGET", NULL};
		char *tmpfs[] = {lsmnt, "-n", "-t", "tmpfs",
				 "-o", "ID,TARGET", NULL};

		tool_check(&f, tree, NULL, NULL, "lsmnt");
		tool_check(&f, json, "\"id\": ", NULL, "lsmnt -J");
		tool_check(&f, flat, NULL, NULL, "lsmnt -l");
		tool_check(&f, tmpfs, NULL, is_tmpfs, "lsmnt -t tmpfs");
		runs += 4;
	}
	mover_end(&m, t_path("lsmnt(%s)", label(&f)));
	t_log("lsmnt(%s): %" PRIu64 " runs\n", label(&f), runs);
	T_ASSERT(runs >= min_rounds());
}

T_CASE(churn_lsmnt_native)
{
	lsmnt_suite(NATIVE, 0);
}

T_CASE(churn_lsmnt_mountinfo)
{
	lsmnt_suite(MOUNTINFO, 0);
}

T_CASE(churn_lsmnt_placed_native)
{
	lsmnt_suite(NATIVE, 1);
}

T_CASE(churn_lsmnt_oldids_mountinfo)
{
	old_ids();
	lsmnt_suite(MOUNTINFO, 0);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
