/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-table - snapshots (struct mntkit_table) against independent
 * sources: the raw listmount(2)/statmount(2) system calls of the harness,
 * statx(2) and /proc/PID/mountinfo parsed by the harness.
 *
 * Every check runs twice: on the native backend, where a record must be
 * byte for byte the raw statmount reply, and on the mountinfo backend,
 * where a record must be byte for byte what the emulation's own
 * mntkit_statmount() answers, its old IDs and parents must be those of
 * mountinfo, and its unique IDs those the kernel gives the same mounts.
 *
 * The shape checks (order, index, parent/child/sibling links, depth,
 * walks) derive the expected tree from the records' mnt_parent_id alone,
 * never from the table's own links.
 */
#include <pthread.h>
#include <sys/prctl.h>
#include <time.h>

#include <mntkit.h>

#include "harness.h"
#include "tree.h"

#define NATIVE	  MNTKIT_BACKEND_NATIVE
#define MOUNTINFO MNTKIT_BACKEND_MOUNTINFO

static const uint64_t masks[] = {
	0,
	MNTKIT_STATMOUNT_SB_BASIC,
	MNTKIT_STATMOUNT_MNT_POINT | MNTKIT_STATMOUNT_FS_TYPE |
		MNTKIT_STATMOUNT_SB_SOURCE,
	MNTKIT_STATMOUNT_ALL,
	/* bits the ABI does not define are ignored, as by the kernel */
	MNTKIT_STATMOUNT_ALL | (1ULL << 40),
};

#define NMASKS (sizeof(masks) / sizeof(masks[0]))

static void use_backend(enum mntkit_backend b)
{
	if (mntkit_set_backend(b))
		t_fail("mntkit_set_backend(%s): %s", mntkit_backend_name(b),
		       strerror(errno));
}

/*
 * skip unless @b answers: the native backend needs the system calls; the
 * mountinfo one is checked against its own ABI entry points and mountinfo
 * (on an old kernel too, where it names mounts by their old IDs)
 */
static void require_backend(enum mntkit_backend b)
{
	uint64_t *ids = NULL;
	ssize_t n;

	if (b == NATIVE)
		t_require_statmount();
	use_backend(b);
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	T_ASSERTF(n > 0, "%s: mntkit_list: %s", mntkit_backend_name(b),
		  strerror(errno));
	free(ids);
}

static void setup(struct t_tree *t, enum mntkit_backend b)
{
	require_backend(b);
	t_private_ns();
	t_tree_build(t);
	use_backend(b);
}

static struct mntkit_table *table_new(const struct mntkit_opts *opts,
				      uint64_t mask, unsigned int flags)
{
	struct mntkit_table *t = (void *)1;
	int r = mntkit_table_new(mask, flags, opts, &t);

	T_ASSERTF(r == 0,
		  "mntkit_table_new(mask %#" PRIx64 ", flags %#x) on "
		  "%s: %s",
		  mask, flags, mntkit_backend_name(mntkit_get_backend()),
		  strerror(-r));
	T_ASSERT(t != NULL && t != (void *)1);
	return t;
}

/* ---- the reference: what the backend answers, asked without the table ---- */

/*
 * The namespace a table is about: 0/0 for the caller's, else a namespace
 * ID or fd, as in a request; @pid: a process in it, whose mountinfo is
 * the independent source (0: this process).
 */
struct where {
	uint64_t ns_id;
	uint32_t ns_fd;
	pid_t pid;
};

static const struct where here = {0, 0, 0};

/* every ID below @start, all pages, through the backend's ABI entry point */
static size_t emul_lm(const struct where *w, uint64_t start, uint64_t **out)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER1,
		.mnt_ns_fd = w->ns_fd,
		.mnt_id = start,
		.mnt_ns_id = w->ns_id,
	};
	size_t n = 0, cap = 256;
	uint64_t *v = t_xmalloc(cap * sizeof(*v));

	for (;;) {
		ssize_t r;

		if (cap - n < 64) {
			cap *= 2;
			v = t_xrealloc(v, cap * sizeof(*v));
		}
		r = mntkit_listmount(&req, v + n, cap - n, 0);
		if (r < 0)
			t_fail("emulated listmount(%#" PRIx64 "): %s", start,
			       strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
		req.param = v[n - 1];
	}
	*out = v;
	return n;
}

/* the backend's own reply of @id, through mntkit_statmount(), grown */
static void *emul_sm(const struct where *w, uint64_t id, uint64_t mask)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER1,
		.mnt_ns_fd = w->ns_fd,
		.mnt_id = id,
		.param = mask,
		.mnt_ns_id = w->ns_id,
	};

	for (size_t size = 4096;; size *= 2) {
		void *buf = t_xcalloc(1, size);

		if (mntkit_statmount(&req, buf, size, 0) == 0)
			return buf;
		free(buf);
		if (errno != EOVERFLOW || size > (64u << 20))
			t_fail("emulated statmount(%#" PRIx64 ", %#" PRIx64
			       "): %s",
			       id, mask, strerror(errno));
	}
}

static size_t ref_list(enum mntkit_backend b, const struct where *w,
		       uint64_t start, uint64_t **out)
{
	ssize_t n;

	if (b == MOUNTINFO)
		return emul_lm(w, start, out);
	n = t_lm_raw_ns(start, 0, w->ns_id, w->ns_fd, out);
	if (n < 0)
		t_fail("raw listmount(%#" PRIx64 "): %s", start,
		       strerror(errno));
	return (size_t)n;
}

static void *ref_sm(enum mntkit_backend b, const struct where *w, uint64_t id,
		    uint64_t mask)
{
	void *p;

	/* the emulation's; and where the kernel lacks groups of @mask, the
	 * library's statmount (the hybrid), whose agreement with a kernel
	 * that has them test-emul-hybrid checks */
	if (b == MOUNTINFO || t_kmask(mask) != mask)
		return emul_sm(w, id, mask);
	p = t_sm_raw_ns(id, mask, w->ns_id, w->ns_fd);
	if (!p)
		t_fail("raw statmount(%#" PRIx64 ", %#" PRIx64 "): %s", id,
		       mask, strerror(errno));
	return p;
}

/* ---- the shape of a table, from the records' parent IDs alone ---- */

static size_t n_of(const struct mntkit_table *t)
{
	return mntkit_table_count(t);
}

static const struct mntkit_statmount *rec(const struct mntkit_table *t,
					  size_t i)
{
	const struct mntkit_statmount *sm = mntkit_table_get(t, i);

	T_ASSERTF(sm, "mntkit_table_get(%zu) is NULL, count %zu", i, n_of(t));
	return sm;
}

/* the index of @id by a linear search, -1 when absent */
static ssize_t lin_find(const struct mntkit_table *t, uint64_t id)
{
	for (size_t i = 0; i < n_of(t); i++)
		if (rec(t, i)->mnt_id == id)
			return (ssize_t)i;
	return -ENOENT;
}

/* the expected parent index: the record of mnt_parent_id, not itself */
static ssize_t want_parent(const struct mntkit_table *t, size_t i)
{
	const struct mntkit_statmount *sm = rec(t, i);

	/* placed as a root: the table could not tell its parent */
	if (sm->mnt_parent_id == sm->mnt_id || mntkit_table_placed(t, i))
		return -ENOENT;
	return lin_find(t, sm->mnt_parent_id);
}

/* a depth-first walk with an explicit stack, children by ascending ID */
static size_t stack_walk(const struct mntkit_table *t, const ssize_t *par,
			 size_t *order)
{
	size_t n = n_of(t), sp = 0, k = 0;
	size_t *stack = t_xcalloc(n + 1, sizeof(*stack));

	/*
	 * roots pushed in descending order, the placed ones first: the
	 * lowest ID comes out first, the placed roots after the others
	 */
	for (int placed = 1; placed >= 0; placed--)
		for (size_t r = n; r-- > 0;)
			if (par[r] < 0 && mntkit_table_placed(t, r) == placed)
				stack[sp++] = r;
	while (sp) {
		size_t i = stack[--sp];

		order[k++] = i;
		for (size_t c = n; c-- > 0;)
			if (par[c] == (ssize_t)i)
				stack[sp++] = c;
	}
	free(stack);
	return k;
}

/*
 * Every structural promise of a table. Returns the number of roots.
 */
static size_t check_shape(const struct mntkit_table *t)
{
	size_t n = n_of(t), nroots = 0, k;
	ssize_t *par = t_xcalloc(n + 1, sizeof(*par));
	size_t *order = t_xcalloc(n + 1, sizeof(*order));
	unsigned char *seen = t_xcalloc(n + 1, 1);
	ssize_t i, prev;

	T_ASSERT(n > 0);
	for (size_t j = 0; j < n; j++) {
		const struct mntkit_statmount *sm = rec(t, j);

		T_ASSERTF(sm->size >= 512, "record %zu: size %u", j, sm->size);
		T_ASSERTF(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC,
			  "record %zu: mask %#" PRIx64 " without MNT_BASIC", j,
			  sm->mask);
		/* strictly ascending IDs */
		if (j)
			T_ASSERTF(sm->mnt_id > rec(t, j - 1)->mnt_id,
				  "record %zu: ID %#" PRIx64
				  " not above the previous %#" PRIx64,
				  j, sm->mnt_id, rec(t, j - 1)->mnt_id);
		/* the index finds every record */
		T_EQ_I(mntkit_table_find(t, sm->mnt_id), (ssize_t)j);
		/* and nothing between two records */
		if (j + 1 == n || rec(t, j + 1)->mnt_id != sm->mnt_id + 1)
			T_NEG(mntkit_table_find(t, sm->mnt_id + 1), ENOENT);
		if (!j && sm->mnt_id > 0)
			T_NEG(mntkit_table_find(t, sm->mnt_id - 1), ENOENT);
		par[j] = want_parent(t, j);
	}
	T_NEG(mntkit_table_find(t, 0), ENOENT);
	if (rec(t, n - 1)->mnt_id != ~0ULL)
		T_NEG(mntkit_table_find(t, ~0ULL), ENOENT);

	/* parents */
	for (size_t j = 0; j < n; j++) {
		T_ASSERTF(mntkit_table_parent(t, j) == par[j],
			  "record %zu (%#" PRIx64 "): parent %zd, expected %zd "
			  "(mnt_parent_id %#" PRIx64 ")",
			  j, rec(t, j)->mnt_id, mntkit_table_parent(t, j),
			  par[j], rec(t, j)->mnt_parent_id);
		if (par[j] >= 0)
			T_EQ_U(rec(t, (size_t)par[j])->mnt_id,
			       rec(t, j)->mnt_parent_id);
	}

	/* children: exactly the records with that parent, ascending */
	for (size_t j = 0; j < n; j++) {
		size_t want = 0, got = 0;

		for (size_t c = 0; c < n; c++)
			want += par[c] == (ssize_t)j;
		prev = -1;
		for (i = mntkit_table_first_child(t, j); i >= 0;
		     i = mntkit_table_next_sibling(t, (size_t)i)) {
			T_ASSERTF((size_t)i < n, "child index %zd of %zu", i,
				  n);
			T_ASSERTF(par[i] == (ssize_t)j,
				  "record %zd listed as a child of %zu, its "
				  "parent is %zd",
				  i, j, par[i]);
			T_ASSERTF(i > prev, "children of %zu not ascending", j);
			prev = i;
			T_ASSERTF(got++ < n, "children of %zu: a loop", j);
		}
		T_ASSERTF(got == want, "record %zu: %zu children, expected %zu",
			  j, got, want);
	}

	/*
	 * the roots: the records without a parent, ascending, as siblings;
	 * those placed as roots after the others, ascending too
	 */
	prev = -1;
	k = 0;
	for (i = mntkit_table_first_root(t); i >= 0;
	     i = mntkit_table_next_sibling(t, (size_t)i)) {
		int placed = mntkit_table_placed(t, (size_t)i);

		T_ASSERTF((size_t)i < n, "root index %zd of %zu", i, n);
		T_ASSERTF(par[i] < 0, "record %zd listed as a root", i);
		T_ASSERTF(placed == 0 || placed == 1, "placed %d", placed);
		T_ASSERTF((size_t)placed >= k, "placed root %zd before others", i);
		if ((size_t)placed > k)
			prev = -1;
		k = (size_t)placed;
		T_ASSERT(i > prev);
		prev = i;
		T_ASSERT(nroots++ < n);
	}
	T_ASSERTF(!k == !(mntkit_table_state(t) & MNTKIT_TABLE_STATE_PLACED),
		  "placed roots %zu, state %#x", k, mntkit_table_state(t));
	/* all of them: as many in the list as records without a parent */
	k = 0;
	for (size_t j = 0; j < n; j++)
		k += par[j] < 0;
	T_EQ_U(nroots, k);
	T_ASSERT(nroots >= 1);

	/* depth: 0 for a root, the parent's + 1, and the hops up */
	for (size_t j = 0; j < n; j++) {
		size_t hops = 0;

		for (ssize_t p = par[j]; p >= 0; p = par[p])
			T_ASSERTF(++hops <= n, "record %zu: a parent loop", j);
		T_EQ_U(mntkit_table_depth(t, j), hops);
		if (par[j] >= 0)
			T_EQ_U(mntkit_table_depth(t, j),
			       mntkit_table_depth(t, (size_t)par[j]) + 1);
	}

	/*
	 * The documented walk (mntkit(3)): pre-order, every mount once, in
	 * the order of a depth-first walk by ascending ID.
	 */
	T_EQ_U(stack_walk(t, par, order), n);
	k = 0;
	for (i = mntkit_table_first_root(t); i >= 0;) {
		ssize_t next;

		T_ASSERTF(k < n, "the walk visits more than %zu records", n);
		T_ASSERTF(!seen[i], "the walk visits record %zd twice", i);
		T_ASSERTF(par[i] < 0 || seen[par[i]],
			  "the walk visits record %zd before its parent", i);
		seen[i] = 1;
		T_ASSERTF((size_t)i == order[k],
			  "walk step %zu: record %zd, expected %zu", k, i,
			  order[k]);
		k++;
		next = mntkit_table_first_child(t, (size_t)i);
		while (next < 0 && i >= 0) {
			next = mntkit_table_next_sibling(t, (size_t)i);
			i = mntkit_table_parent(t, (size_t)i);
		}
		i = next;
	}
	T_EQ_U(k, n);
	/* the same order with mntkit_table_next_preorder(), root by root */
	k = 0;
	for (ssize_t r = mntkit_table_first_root(t); r >= 0;
	     r = mntkit_table_next_sibling(t, (size_t)r)) {
		for (i = r; i >= 0 && k < n;
		     i = mntkit_table_next_preorder(t, (size_t)i, (size_t)r))
			T_ASSERTF((size_t)i == order[k++],
				  "preorder step %zu: record %zd, expected %zu",
				  k - 1, i, order[k - 1]);
		T_EQ_I(i, -ENOENT);
	}
	T_EQ_U(k, n);
	free(seen);
	free(order);
	free(par);
	return nroots;
}

/*
 * The table holds exactly the mounts the backend lists from @start
 * (LSMT_ROOT, or a mount that joins its own subtree), and each record is
 * byte for byte the backend's reply with the same mask.
 */
static void check_records(const struct mntkit_table *t, enum mntkit_backend b,
			  const struct where *w, uint64_t start, uint64_t mask)
{
	uint64_t *ids;
	size_t n = ref_list(b, w, start, &ids);

	if (start != T_LSMT_ROOT) {
		ids = t_xrealloc(ids, (n + 1) * sizeof(*ids));
		ids[n++] = start;
		t_sort_u64(ids, n);
	}
	T_ASSERTF(
		n_of(t) == n,
		"%s: the table has %zu mounts, the listing %zu (mask %#" PRIx64
		")",
		mntkit_backend_name(b), n_of(t), n, mask);
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = rec(t, i);
		struct mntkit_statmount *ref;

		T_ASSERTF(sm->mnt_id == ids[i],
			  "%s: record %zu is %#" PRIx64 ", listed %#" PRIx64,
			  mntkit_backend_name(b), i, sm->mnt_id, ids[i]);
		ref = ref_sm(b, w, ids[i], mask | MNTKIT_STATMOUNT_MNT_BASIC);
		T_ASSERTF(sm->size == ref->size,
			  "%s: record %#" PRIx64 " mask %#" PRIx64
			  ": size %u, statmount says %u",
			  mntkit_backend_name(b), ids[i], mask, sm->size,
			  ref->size);
		T_ASSERTF(!memcmp(sm, ref, ref->size),
			  "%s: record %#" PRIx64 " mask %#" PRIx64
			  " differs from statmount's reply",
			  mntkit_backend_name(b), ids[i], mask);
		free(ref);
	}
	free(ids);
}

/*
 * Against /proc/PID/mountinfo: the same mounts (by old ID), the same
 * parent relation. Only where the reader sees the whole table (no chroot).
 */
static void check_mountinfo(const struct mntkit_table *t, pid_t pid)
{
	struct t_mitab tab;
	size_t n = n_of(t);

	t_mi_read(pid, &tab);
	T_ASSERTF(n == tab.n, "the table has %zu mounts, mountinfo %zu", n,
		  tab.n);
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = rec(t, i);
		struct t_mi *m = t_mi_by_id(&tab, sm->mnt_id_old);
		ssize_t p = mntkit_table_parent(t, i);

		T_ASSERTF(m, "mount %u not in mountinfo", sm->mnt_id_old);
		T_EQ_U(sm->mnt_parent_id_old, m->parent);
		if (p >= 0)
			T_EQ_U(rec(t, (size_t)p)->mnt_id_old, m->parent);
		else
			T_ASSERTF(m->parent == m->id ||
					  !t_mi_by_id(&tab, m->parent),
				  "root %u: its parent %" PRIu64
				  " is in mountinfo",
				  sm->mnt_id_old, m->parent);
	}
	t_mi_free(&tab);
}

/*
 * The emulation's IDs name the mounts the kernel's do: a unique ID is the
 * kernel's ID of the mount of that old ID; an old ID (a hidden mount, or a
 * parent outside the table) is the mount's old ID.
 */
static void check_emul_ids(const struct mntkit_table *t, const struct where *w)
{
	for (size_t i = 0; i < n_of(t); i++) {
		const struct mntkit_statmount *sm = rec(t, i);
		struct mntkit_statmount *k;

		if (sm->mnt_id <= MNTKIT_MNT_UNIQUE_ID_OFFSET) {
			T_EQ_U(sm->mnt_id, sm->mnt_id_old);
		} else {
			k = t_sm_raw_ns(sm->mnt_id, 0x2, w->ns_id, w->ns_fd);
			T_ASSERTF(k,
				  "emulated ID %#" PRIx64
				  " unknown to the kernel: %s",
				  sm->mnt_id, strerror(errno));
			T_EQ_U(k->mnt_id_old, sm->mnt_id_old);
			free(k);
		}
		if (sm->mnt_parent_id <= MNTKIT_MNT_UNIQUE_ID_OFFSET) {
			T_EQ_U(sm->mnt_parent_id, sm->mnt_parent_id_old);
		} else {
			k = t_sm_raw_ns(sm->mnt_parent_id, 0x2, w->ns_id,
					w->ns_fd);
			T_ASSERT(k);
			T_EQ_U(k->mnt_id_old, sm->mnt_parent_id_old);
			free(k);
		}
	}
}

/* everything, for one table of the caller's namespace (no chroot) */
static void check_all(const struct mntkit_table *t, enum mntkit_backend b,
		      const struct where *w, uint64_t mask)
{
	check_shape(t);
	check_records(t, b, w, T_LSMT_ROOT, mask);
	check_mountinfo(t, w->pid);
	if (b == MOUNTINFO)
		check_emul_ids(t, w);
}

/* the record of @id (which must be there) */
static const struct mntkit_statmount *by_id(const struct mntkit_table *t,
					    uint64_t id)
{
	ssize_t i = mntkit_table_find(t, id);

	T_ASSERTF(i >= 0, "mount %#" PRIx64 " not in the table", id);
	return rec(t, (size_t)i);
}

/* the index of the record of old ID @old */
static size_t by_old(const struct mntkit_table *t, uint32_t old)
{
	for (size_t i = 0; i < n_of(t); i++)
		if (rec(t, i)->mnt_id_old == old)
			return i;
	t_fail("old ID %u not in the table", old);
}

static uint32_t old_of(uint64_t id)
{
	struct mntkit_statmount *sm = t_sm(id, 0x2);
	uint32_t old = sm->mnt_id_old;

	free(sm);
	return old;
}

/* the children of record @i as old IDs, in table order */
static size_t kids_old(const struct mntkit_table *t, size_t i, uint32_t *out,
		       size_t max)
{
	size_t n = 0;

	for (ssize_t c = mntkit_table_first_child(t, i); c >= 0;
	     c = mntkit_table_next_sibling(t, (size_t)c))
		if (n < max)
			out[n++] = rec(t, (size_t)c)->mnt_id_old;
	return n;
}

/* ---- the tree of tests/tree.h ---- */

static void tree_suite(enum mntkit_backend b)
{
	struct t_tree tr;
	struct mntkit_table *t;
	uint32_t kids[8], a, ab, ad;
	size_t ia, iad, nroots, nmi;
	uint64_t *mi_roots;

	setup(&tr, b);
	for (size_t k = 0; k < NMASKS; k++) {
		t = table_new(NULL, masks[k], 0);
		check_all(t, b, &here, masks[k]);
		mntkit_table_free(t);
	}

	/* the tree's own shape, by old IDs (the same in both backends) */
	t = table_new(NULL, MNTKIT_STATMOUNT_ALL, 0);
	nroots = check_shape(t);
	/* the roots of mountinfo: the mount of /, but in a chroot whose
	 * root is no mount point */
	nmi = t_mi_roots(&mi_roots);
	T_EQ_U(nroots, nmi);
	for (ssize_t r = mntkit_table_first_root(t); r >= 0;
	     r = mntkit_table_next_sibling(t, (size_t)r))
		T_ASSERTF(t_contains_u64(mi_roots, nmi, rec(t, (size_t)r)->mnt_id_old),
			  "root %u is none of mountinfo's",
			  rec(t, (size_t)r)->mnt_id_old);
	if (nmi == 1)
		T_EQ_U(rec(t, (size_t)mntkit_table_first_root(t))->mnt_id_old,
		       t_old_id("/"));
	free(mi_roots);
	T_EQ_U(mntkit_table_depth(t, by_old(t, old_of(tr.id[T_A]))),
	       mntkit_table_depth(t, by_old(t, old_of(tr.scratch))) + 1);
	a = old_of(tr.id[T_A]);
	ab = old_of(tr.id[T_AB]);
	ad = old_of(tr.id[T_AD]);
	ia = by_old(t, a);
	T_EQ_U(kids_old(t, ia, kids, 8), 2);
	/* by ascending ID: on the native backend b before d; on mountinfo
	 * d (overmounted: named by its old ID) first */
	if (b == NATIVE) {
		T_EQ_U(kids[0], ab);
		T_EQ_U(kids[1], ad);
	} else {
		T_EQ_U(kids[0], ad);
		T_EQ_U(kids[1], ab);
	}
	iad = by_old(t, ad);
	T_EQ_U(kids_old(t, iad, kids, 8), 1);
	T_EQ_U(kids[0], old_of(tr.id[T_STACK]));
	T_EQ_U(kids_old(t, by_old(t, old_of(tr.scratch)), kids, 8), 6);
	T_EQ_U(mntkit_table_depth(t, by_old(t, old_of(tr.id[T_STACK]))),
	       mntkit_table_depth(t, ia) + 2);
	for (int i = 0; i < T_NMOUNTS; i++) {
		const struct mntkit_statmount *sm =
			rec(t, by_old(t, old_of(tr.id[i])));

		T_EQ_STR(t_sm_s(sm, sm->mnt_point), tr.path[i]);
		if (b == NATIVE || i != T_AD)
			T_EQ_U(sm->mnt_id, tr.id[i]);
		else /* hidden: named by its old ID */
			T_EQ_U(sm->mnt_id, ad);
	}
	mntkit_table_free(t);
}

T_CASE(table_tree_native)
{
	tree_suite(NATIVE);
}

T_CASE(table_tree_mountinfo)
{
	tree_suite(MOUNTINFO);
}

/* a mount gone before the snapshot is not in it; a new one is */
static void changes_suite(enum mntkit_backend b)
{
	struct t_tree tr;
	struct mntkit_table *t;
	char *x = NULL;
	uint64_t id;

	setup(&tr, b);
	x = t_path("%s/x", tr.dir);
	id = t_tmpfs(x, 0, NULL);
	t = table_new(NULL, 0, 0);
	T_ASSERT(mntkit_table_find(t, id) >= 0);
	T_EQ_U(by_id(t, id)->mnt_parent_id, tr.scratch);
	check_all(t, b, &here, 0);
	mntkit_table_free(t);
	t_umount(x);
	t = table_new(NULL, 0, 0);
	T_NEG(mntkit_table_find(t, id), ENOENT);
	check_all(t, b, &here, 0);
	mntkit_table_free(t);
	/* a mount stacked on it later, and its lower one unmounted */
	t_umount(tr.path[T_STACK]);
	t = table_new(NULL, MNTKIT_STATMOUNT_MNT_POINT, 0);
	T_NEG(mntkit_table_find(t, tr.id[T_STACK]), ENOENT);
	/* d is visible again: its unique ID on both backends, no child */
	T_ASSERT(mntkit_table_find(t, tr.id[T_AD]) >= 0);
	T_NEG(mntkit_table_first_child(
		      t, (size_t)mntkit_table_find(t, tr.id[T_AD])),
	      ENOENT);
	check_all(t, b, &here, MNTKIT_STATMOUNT_MNT_POINT);
	mntkit_table_free(t);
}

T_CASE(table_changes_native)
{
	changes_suite(NATIVE);
}

T_CASE(table_changes_mountinfo)
{
	changes_suite(MOUNTINFO);
}

/* ---- chroot: the reachable table, and the whole one above it ---- */

T_CASE(table_chroot_native)
{
	struct t_tree tr;
	uint64_t ns_root, *all;
	size_t nall;
	pid_t pid;

	setup(&tr, NATIVE);
	ns_root = t_true_root();
	/* the whole namespace, as the kernel lists it from its root */
	nall = t_lm(ns_root, 0, &all) + 1;
	free(all);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		struct mntkit_table *t;
		const struct mntkit_statmount *sm;
		ssize_t r;

		T_OK(chroot(tr.path[T_A]));
		T_OK(chdir("/"));
		T_EQ_U(t_uid("/"), tr.id[T_A]);
		for (size_t k = 0; k < NMASKS; k++) {
			/* from the chroot's root: a and what is below it */
			t = table_new(NULL, masks[k], 0);
			T_EQ_U(check_shape(t), 1);
			check_records(t, NATIVE, &here, T_LSMT_ROOT, masks[k]);
			T_EQ_U(n_of(t), 5); /* a, b, b/c, d, d's stacked */
			r = mntkit_table_first_root(t);
			T_EQ_U(rec(t, (size_t)r)->mnt_id, tr.id[T_A]);
			T_EQ_U(rec(t, (size_t)r)->mnt_parent_id, tr.scratch);
			T_NEG(mntkit_table_find(t, tr.scratch), ENOENT);
			mntkit_table_free(t);

			/* from the true root, above the chroot */
			t = table_new(NULL, masks[k], MNTKIT_TABLE_F_UNREACHABLE);
			T_EQ_U(check_shape(t), 1);
			check_records(t, NATIVE, &here, ns_root, masks[k]);
			T_EQ_U(n_of(t), nall);
			r = mntkit_table_first_root(t);
			sm = rec(t, (size_t)r);
			T_EQ_U(sm->mnt_id, ns_root);
			T_EQ_U(sm->mnt_parent_id, sm->mnt_id);
			T_EQ_U(mntkit_table_depth(t, (size_t)r), 0);
			/* the mounts above the chroot are there */
			T_EQ_U(by_id(t, tr.scratch)->mnt_id, tr.scratch);
			T_EQ_U(by_id(t, tr.id[T_RO])->mnt_parent_id,
			       tr.scratch);
			T_EQ_U(mntkit_table_parent(t, (size_t)mntkit_table_find(
							      t, tr.id[T_A])),
			       mntkit_table_find(t, tr.scratch));
			/* unreachable: no mount point (as statmount) */
			if (masks[k] & MNTKIT_STATMOUNT_MNT_POINT) {
				/* as 6.18 says it on every kernel (6.12
				 * writes "": lib/native.c cuts it) */
				T_EQ_U(by_id(t, tr.scratch)->mask &
					       MNTKIT_STATMOUNT_MNT_POINT,
				       0);
				sm = by_id(t, tr.id[T_AB]);
				T_EQ_STR(t_sm_s(sm, sm->mnt_point), "/b");
			}
			mntkit_table_free(t);
		}
		/* without CAP_SYS_ADMIN: the chroot's table only */
		t_drop_sys_admin();
		t = table_new(NULL, 0, 0);
		T_EQ_U(n_of(t), 5);
		mntkit_table_free(t);
		t = (void *)1;
		T_NEG(mntkit_table_new(0, MNTKIT_TABLE_F_UNREACHABLE, NULL, &t),
		      EPERM);
		T_NULL(t);
		_exit(0);
	}
	t_wait_child(pid, "chroot child");
}

/* no chroot: UNREACHABLE is the table of the true root (CAP_SYS_ADMIN
 * when that is above "/") */
T_CASE(table_unreachable_native)
{
	struct t_tree tr;
	struct mntkit_table *t;
	uint64_t ns_root = 0;
	pid_t pid;

	setup(&tr, NATIVE);
	ns_root = t_true_root();
	t = table_new(NULL, MNTKIT_STATMOUNT_MNT_POINT,
		      MNTKIT_TABLE_F_UNREACHABLE);
	T_EQ_U(check_shape(t), 1);
	check_records(t, NATIVE, &here, ns_root, MNTKIT_STATMOUNT_MNT_POINT);
	T_EQ_U(rec(t, (size_t)mntkit_table_first_root(t))->mnt_id, ns_root);
	T_ASSERT(mntkit_table_find(t, t_uid("/")) >= 0);
	mntkit_table_free(t);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		t_drop_sys_admin();
		t = (void *)1;
		if (ns_root == t_uid("/")) {
			T_EQ_I(mntkit_table_new(0, MNTKIT_TABLE_F_UNREACHABLE,
						NULL, &t),
			       0);
			mntkit_table_free(t);
		} else {
			T_NEG(mntkit_table_new(0, MNTKIT_TABLE_F_UNREACHABLE,
					       NULL, &t),
			      EPERM);
			T_NULL(t);
		}
		_exit(0);
	}
	t_wait_child(pid, "child without CAP_SYS_ADMIN");
}

/*
 * The emulation in a chroot (with a /proc inside): the reachable table is
 * served; the mounts above the chroot are not in any mountinfo it can
 * read, so UNREACHABLE fails with ENOENT (where the kernel, with
 * CAP_SYS_ADMIN, answers): mntkit(3), "What the emulation cannot know".
 */
T_CASE(table_chroot_mountinfo)
{
	struct t_tree tr;
	pid_t pid;

	setup(&tr, MOUNTINFO);
	t_mkdir(t_path("%s/proc", tr.path[T_A]));
	t_mount("proc", t_path("%s/proc", tr.path[T_A]), "proc", 0, NULL);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		struct mntkit_table *t;
		ssize_t r;

		T_OK(chroot(tr.path[T_A]));
		T_OK(chdir("/"));
		for (size_t k = 0; k < NMASKS; k++) {
			t = table_new(NULL, masks[k], 0);
			T_EQ_U(check_shape(t), 1);
			check_records(t, MOUNTINFO, &here, T_LSMT_ROOT,
				      masks[k]);
			/* mountinfo in the chroot shows the same mounts */
			check_mountinfo(t, 0);
			check_emul_ids(t, &here);
			/* a, b, b/c, d, d's stacked mount and proc */
			T_EQ_U(n_of(t), 6);
			r = mntkit_table_first_root(t);
			T_EQ_U(rec(t, (size_t)r)->mnt_id, tr.id[T_A]);
			mntkit_table_free(t);
		}
		/* without CAP_SYS_ADMIN the reachable table is the same */
		pid = fork();
		T_ASSERT(pid >= 0);
		if (pid == 0) {
			t_drop_sys_admin();
			t = table_new(NULL, 0, 0);
			T_EQ_U(check_shape(t), 1);
			check_records(t, MOUNTINFO, &here, T_LSMT_ROOT, 0);
			T_EQ_U(n_of(t), 6);
			mntkit_table_free(t);
			_exit(0);
		}
		t_wait_child(pid, "child without CAP_SYS_ADMIN");
		/* above the chroot: ENOENT, with or without the capability */
		t = (void *)1;
		T_NEG(mntkit_table_new(0, MNTKIT_TABLE_F_UNREACHABLE, NULL, &t),
		      ENOENT);
		T_NULL(t);
		t_drop_sys_admin();
		t = (void *)1;
		T_NEG(mntkit_table_new(0, MNTKIT_TABLE_F_UNREACHABLE, NULL, &t),
		      ENOENT);
		T_NULL(t);
		_exit(0);
	}
	t_wait_child(pid, "chroot child");
}

/*
 * A chroot without /proc, after the library's first use: the emulation
 * reads procfs through the /proc handle it took then (lib/proc.c), and the
 * snapshot is the chroot's view, as the kernel's (where it has statmount).
 * A process that never saw /proc: tests/emul/test-emul-chroot.c.
 */
T_CASE(table_chroot_without_proc_mountinfo)
{
	struct t_tree tr;
	pid_t pid;

	setup(&tr, MOUNTINFO);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		struct mntkit_table *t = (void *)1;
		size_t n;

		T_OK(chroot(tr.path[T_AB]));
		T_OK(chdir("/"));
		T_ASSERT(access("/proc", F_OK) != 0);
		T_OK(mntkit_table_new(0, 0, NULL, &t));
		n = mntkit_table_count(t);
		T_ASSERT(n >= 1);
		T_EQ_U(mntkit_table_get(t, (size_t)mntkit_table_first_root(t))
			       ->mnt_id_old,
		       t_old_id("/"));
		mntkit_table_free(t);
		if (mntkit_set_backend(MNTKIT_BACKEND_NATIVE) == 0) {
			T_OK(mntkit_table_new(0, 0, NULL, &t));
			T_EQ_U(mntkit_table_count(t), n);
			mntkit_table_free(t);
		}
		_exit(0);
	}
	t_wait_child(pid, "chroot child");
}

/* no chroot: the emulation cannot see above "/" either */
T_CASE(table_unreachable_mountinfo)
{
	struct t_tree tr;
	struct mntkit_table *t;

	setup(&tr, MOUNTINFO);
	if (t_true_root() == t_uid("/")) {
		/* "/" is the namespace's root: nothing is above it */
		t = table_new(NULL, 0, MNTKIT_TABLE_F_UNREACHABLE);
		check_all(t, MOUNTINFO, &here, 0);
		mntkit_table_free(t);
		return;
	}
	t = (void *)1;
	T_NEG(mntkit_table_new(0, MNTKIT_TABLE_F_UNREACHABLE, NULL, &t), ENOENT);
	T_NULL(t);
}

/* ---- a foreign namespace ---- */

static void foreign_suite(enum mntkit_backend b)
{
	struct t_ns_tree c;
	uint64_t own_root;

	require_backend(b);
	t_require_root();
	t_ns_tree_start(&c);
	use_backend(b);
	own_root = t_uid("/");
	for (int way = 0; way < 3; way++) {
		struct where w = {.ns_id = c.rep.ns_id, .pid = c.ch.pid};
		MNTKIT_OPTS(o);
		const char *what = way == 0   ? ".pid"
				   : way == 1 ? ".mnt_ns_id"
					      : ".mnt_ns_fd";

		if (way == 0)
			o.pid = c.ch.pid;
		else if (way == 1)
			o.mnt_ns_id = c.rep.ns_id;
		else
			o.mnt_ns_fd = c.ch.ns_fd;
		for (size_t k = 0; k < NMASKS; k++) {
			struct mntkit_table *t = table_new(&o, masks[k], 0);

			t_log("%s %s mask %#" PRIx64 ": %zu mounts\n",
			      mntkit_backend_name(b), what, masks[k], n_of(t));
			T_EQ_U(check_shape(t), 1);
			check_all(t, b, &w, masks[k]);
			if (way == 2) /* the same by the namespace's fd */
				check_records(
					t, b,
					&(struct where){
						.ns_fd = (uint32_t)c.ch.ns_fd},
					T_LSMT_ROOT, masks[k]);
			/* the child's own listing, mount for mount */
			T_EQ_U(n_of(t), c.rep.n);
			if (b == NATIVE)
				for (size_t i = 0; i < n_of(t); i++)
					T_EQ_U(rec(t, i)->mnt_id, c.rep.ids[i]);
			for (int i = 0; i < T_NMOUNTS; i++)
				if (b == NATIVE || i != T_AD)
					T_ASSERT(mntkit_table_find(
							 t, c.rep.tree[i]) >=
						 0);
			T_EQ_U(by_id(t, c.rep.tree[T_A])->mnt_parent_id,
			       c.rep.scratch);
			/* not our namespace */
			T_NEG(mntkit_table_find(t, own_root), ENOENT);
			T_EQ_U(rec(t, (size_t)mntkit_table_first_root(t))
				       ->mnt_id,
			       c.rep.root);
			mntkit_table_free(t);
		}
	}
	t_ns_tree_stop(&c);
}

T_CASE(table_foreign_ns_native)
{
	foreign_suite(NATIVE);
}

T_CASE(table_foreign_ns_mountinfo)
{
	foreign_suite(MOUNTINFO);
}

/*
 * UNREACHABLE in a foreign namespace: from that namespace's true root (the
 * parent of its "/" is above it). The kernel answers (CAP_SYS_ADMIN); the
 * emulation cannot see above the "/" of the process it reads through.
 */
static void foreign_unreachable_suite(enum mntkit_backend b)
{
	struct t_ns_tree c;
	struct where w;
	uint64_t top;

	require_backend(b);
	t_require_root();
	t_ns_tree_start(&c);
	use_backend(b);
	w = (struct where){.ns_id = c.rep.ns_id, .pid = c.ch.pid};
	/* the child's true root, by raw statmount in its namespace */
	top = c.rep.root;
	for (int i = 0;; i++) {
		struct mntkit_statmount *sm =
			t_sm_raw_ns(top, 0x2, c.rep.ns_id, 0);
		uint64_t parent;

		T_ASSERTF(sm && i < 1000, "climbing the child's tree: %s",
			  strerror(errno));
		parent = sm->mnt_parent_id;
		free(sm);
		if (parent == top)
			break;
		top = parent;
	}
	for (int way = 0; way < 3; way++) {
		struct mntkit_table *t = (void *)1;
		MNTKIT_OPTS(o);

		if (way == 0)
			o.pid = c.ch.pid;
		else if (way == 1)
			o.mnt_ns_id = c.rep.ns_id;
		else
			o.mnt_ns_fd = c.ch.ns_fd;
		if (b == MOUNTINFO && top != c.rep.root) {
			T_NEG(mntkit_table_new(0, MNTKIT_TABLE_F_UNREACHABLE, &o,
					       &t),
			      ENOENT);
			T_NULL(t);
			continue;
		}
		t = table_new(&o, MNTKIT_STATMOUNT_MNT_POINT,
			      MNTKIT_TABLE_F_UNREACHABLE);
		T_EQ_U(check_shape(t), 1);
		check_records(t, b, &w, top, MNTKIT_STATMOUNT_MNT_POINT);
		T_EQ_U(rec(t, (size_t)mntkit_table_first_root(t))->mnt_id, top);
		T_ASSERT(mntkit_table_find(t, c.rep.root) >= 0);
		mntkit_table_free(t);
	}
	t_ns_tree_stop(&c);
}

T_CASE(table_foreign_unreachable_native)
{
	foreign_unreachable_suite(NATIVE);
}

T_CASE(table_foreign_unreachable_mountinfo)
{
	foreign_unreachable_suite(MOUNTINFO);
}

/* ---- bad arguments and the accessors' edges ---- */

static void bad_args_suite(enum mntkit_backend b)
{
	struct mntkit_table *t;
	unsigned char big[sizeof(struct mntkit_opts) + 8];
	int fd;

	require_backend(b);
	t = (void *)1;
	T_NEG(mntkit_table_new(0, 0x8, NULL, &t), EINVAL);
	T_NULL(t);
	t = (void *)1;
	T_NEG(mntkit_table_new(0, 0x80000000U, NULL, &t), EINVAL);
	T_NULL(t);
	t = (void *)1;
	T_NEG(mntkit_table_new(0, ~0U, NULL, &t), EINVAL);
	T_NULL(t);
	T_NEG(mntkit_table_new(0, 0, NULL, NULL), EINVAL);
	T_NEG(mntkit_table_new(0, MNTKIT_TABLE_F_UNREACHABLE, NULL, NULL),
	      EINVAL);
	/* two namespaces at once */
	fd = mntkit_ns_open_pid(0);
	T_ASSERT(fd >= 0);
	{
		MNTKIT_OPTS(o, .mnt_ns_fd = fd, .pid = getpid());

		t = (void *)1;
		T_NEG(mntkit_table_new(0, 0, &o, &t), EINVAL);
		T_NULL(t);
	}
	{
		MNTKIT_OPTS(o, .pid = -1);

		t = (void *)1;
		T_NEG(mntkit_table_new(0, 0, &o, &t), EINVAL);
		T_NULL(t);
	}
	/* a larger options struct with a non-zero tail */
	memset(big, 0, sizeof(big));
	{
		struct mntkit_opts *o = (void *)big;

		o->size = sizeof(big);
		big[sizeof(big) - 1] = 1;
		t = (void *)1;
		T_NEG(mntkit_table_new(0, 0, o, &t), E2BIG);
		T_NULL(t);
		big[sizeof(big) - 1] = 0;
		T_EQ_I(mntkit_table_new(0, 0, o, &t), 0);
		T_ASSERT(n_of(t) > 0);
		mntkit_table_free(t);
	}
	/* no such process / namespace */
	{
		MNTKIT_OPTS(o, .pid = INT32_MAX);

		t = (void *)1;
		T_NEG(mntkit_table_new(0, 0, &o, &t), ENOENT);
		T_NULL(t);
	}
	{
		MNTKIT_OPTS(o, .mnt_ns_fd = fd);

		/* our own namespace by fd is fine */
		T_EQ_I(mntkit_table_new(0, 0, &o, &t), 0);
		mntkit_table_free(t);
	}
	close(fd);
	fd = open("/", O_RDONLY | O_CLOEXEC);
	{
		MNTKIT_OPTS(o, .mnt_ns_fd = fd); /* not a namespace */

		t = (void *)1;
		T_NEG(mntkit_table_new(0, 0, &o, &t), EINVAL);
		T_NULL(t);
	}
	close(fd);
}

T_CASE(table_bad_args_native)
{
	bad_args_suite(NATIVE);
}

T_CASE(table_bad_args_mountinfo)
{
	bad_args_suite(MOUNTINFO);
}

static void accessors_suite(enum mntkit_backend b)
{
	struct mntkit_table *t;
	size_t n;

	require_backend(b);
	/* a NULL table */
	T_EQ_U(mntkit_table_count(NULL), 0);
	T_NULL(mntkit_table_get(NULL, 0));
	T_NEG(mntkit_table_find(NULL, 0), EINVAL);
	T_NEG(mntkit_table_find(NULL, t_uid("/")), EINVAL);
	/* the error rule: a negative errno, errno set (T_NEG checks both) */
	T_NEG(mntkit_table_parent(NULL, 0), EINVAL);
	T_NEG(mntkit_table_first_child(NULL, 0), EINVAL);
	T_NEG(mntkit_table_next_sibling(NULL, 0), EINVAL);
	T_NEG(mntkit_table_first_root(NULL), EINVAL);
	T_NEG(mntkit_table_depth(NULL, 0), EINVAL);
	T_NEG(mntkit_table_next_preorder(NULL, 0, 0), EINVAL);
	T_EQ_U(mntkit_table_state(NULL), 0);
	T_NEG(mntkit_table_placed(NULL, 0), EINVAL);
	mntkit_table_free(NULL);
	/* indexes out of range */
	t = table_new(NULL, 0, 0);
	n = n_of(t);
	T_ASSERT(n > 0);
	T_ASSERT(mntkit_table_get(t, n - 1) != NULL);
	for (int k = 0; k < 3; k++) {
		size_t bad = k == 0 ? n : k == 1 ? n + 1 : SIZE_MAX;

		errno = 0;
		T_NULL(mntkit_table_get(t, bad));
		T_EQ_I(errno, EINVAL);
		T_NEG(mntkit_table_parent(t, bad), EINVAL);
		T_NEG(mntkit_table_first_child(t, bad), EINVAL);
		T_NEG(mntkit_table_next_sibling(t, bad), EINVAL);
		T_NEG(mntkit_table_depth(t, bad), EINVAL);
		T_NEG(mntkit_table_placed(t, bad), EINVAL);
		T_NEG(mntkit_table_next_preorder(t, bad, 0), EINVAL);
		T_NEG(mntkit_table_next_preorder(t, 0, bad), EINVAL);
	}
	/* "none" is -ENOENT with errno: the root has no parent, the last
	 * root no next sibling */
	{
		ssize_t r = mntkit_table_first_root(t), last = r;

		T_ASSERT(r >= 0);
		T_NEG(mntkit_table_parent(t, (size_t)r), ENOENT);
		while ((r = mntkit_table_next_sibling(t, (size_t)last)) >= 0)
			last = r;
		T_NEG(mntkit_table_next_sibling(t, (size_t)last), ENOENT);
		T_EQ_I(mntkit_table_depth(t, (size_t)last), 0);
	}
	/* a table read while nothing moved: nothing placed */
	T_EQ_U(mntkit_table_state(t), 0);
	for (size_t i = 0; i < n; i++)
		T_EQ_I(mntkit_table_placed(t, i), 0);
	/* the records are the table's, readable with the checked readers */
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = rec(t, i);
		const char *s;

		T_EQ_I(mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_FS_TYPE, &s),
		       -ENODATA);
	}
	mntkit_table_free(t);
	t = table_new(NULL, MNTKIT_STATMOUNT_FS_TYPE, 0);
	for (size_t i = 0; i < n_of(t); i++) {
		const struct mntkit_statmount *sm = rec(t, i);
		const char *s = NULL;

		T_EQ_I(mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_FS_TYPE, &s),
		       0);
		T_ASSERT(s && *s);
		/* 8-byte aligned, as a reply in its own buffer */
		T_EQ_U((uintptr_t)sm % 8, 0);
	}
	mntkit_table_free(t);
}

T_CASE(table_accessors_native)
{
	accessors_suite(NATIVE);
}

T_CASE(table_accessors_mountinfo)
{
	accessors_suite(MOUNTINFO);
}

/* ---- compact tables ---- */

/* @a and @b are the same reply, byte for byte (the fixed part padded) */
static void same_reply(const struct mntkit_statmount *a,
		       const struct mntkit_statmount *b, size_t i)
{
	size_t sz = a->size < 512 ? 512 : a->size;

	T_ASSERTF(a->size == b->size, "record %zu: size %u, %u", i, a->size,
		  b->size);
	T_ASSERTF(!memcmp(a, b, sz), "record %zu: the bytes differ", i);
}

struct getter {
	const struct mntkit_table *t;
	const struct mntkit_statmount **got;
	size_t n;
};

static void *get_all(void *arg)
{
	struct getter *g = arg;

	for (size_t i = 0; i < g->n; i++)
		g->got[i] = mntkit_table_get(g->t, i);
	return NULL;
}

/*
 * MNTKIT_TABLE_F_COMPACT: the same table as without it (records byte for
 * byte, index, links), mntkit_table_get() stable and the same from many
 * threads at once, mntkit_table_get_buf() the same bytes of both kinds
 */
static void compact_suite(enum mntkit_backend b)
{
	struct t_tree tr;

	setup(&tr, b);
	for (size_t m = 0; m < NMASKS; m++) {
		struct mntkit_table *full = table_new(NULL, masks[m], 0);
		struct mntkit_table *c =
			table_new(NULL, masks[m], MNTKIT_TABLE_F_COMPACT);
		struct mntkit_statmount *buf = NULL;
		size_t bufsize = 0, n = n_of(full);
		struct getter g[4];
		pthread_t th[4];

		T_EQ_U(n_of(c), n);
		T_ASSERT(n > 0);
		for (size_t i = 0; i < n; i++) {
			const struct mntkit_statmount *f = rec(full, i);

			/* the buffer first: the table keeps nothing for it */
			T_EQ_I(mntkit_table_get_buf(c, i, &buf, &bufsize), 0);
			same_reply(f, buf, i);
			T_ASSERT(bufsize >= buf->size);
			T_EQ_I(mntkit_table_get_buf(full, i, &buf, &bufsize),
			       0);
			same_reply(f, buf, i);
			T_EQ_I(mntkit_table_find(c, f->mnt_id), (ssize_t)i);
			T_EQ_I(mntkit_table_parent(c, i),
			       mntkit_table_parent(full, i));
			T_EQ_I(mntkit_table_first_child(c, i),
			       mntkit_table_first_child(full, i));
			T_EQ_I(mntkit_table_next_sibling(c, i),
			       mntkit_table_next_sibling(full, i));
			T_EQ_I(mntkit_table_depth(c, i),
			       mntkit_table_depth(full, i));
		}
		T_EQ_I(mntkit_table_first_root(c), mntkit_table_first_root(full));
		/* four threads make the replies at once: one each */
		for (int k = 0; k < 4; k++) {
			g[k].t = c;
			g[k].n = n;
			g[k].got = calloc(n, sizeof(*g[k].got));
			T_ASSERT(g[k].got != NULL);
			T_EQ_I(pthread_create(&th[k], NULL, get_all, &g[k]), 0);
		}
		for (int k = 0; k < 4; k++)
			T_EQ_I(pthread_join(th[k], NULL), 0);
		for (size_t i = 0; i < n; i++) {
			const struct mntkit_statmount *sm = rec(c, i);

			same_reply(rec(full, i), sm, i);
			T_EQ_U((uintptr_t)sm % 8, 0);
			for (int k = 0; k < 4; k++)
				T_ASSERTF(g[k].got[i] == sm,
					  "record %zu: thread %d got another "
					  "reply", i, k);
			T_ASSERT(mntkit_table_get(c, i) == sm);
		}
		for (int k = 0; k < 4; k++)
			free(g[k].got);
		check_all(c, b, &here, masks[m]);
		/* the error rule */
		T_NEG(mntkit_table_get_buf(NULL, 0, &buf, &bufsize), EINVAL);
		T_NEG(mntkit_table_get_buf(c, n, &buf, &bufsize), EINVAL);
		T_NEG(mntkit_table_get_buf(full, n, &buf, &bufsize), EINVAL);
		T_NEG(mntkit_table_get_buf(c, 0, NULL, &bufsize), EINVAL);
		T_NEG(mntkit_table_get_buf(c, 0, &buf, NULL), EINVAL);
		free(buf);
		mntkit_table_free(full);
		mntkit_table_free(c);
	}
	/* with UNREACHABLE too (the kernel's: see foreign_unreachable_suite
	 * for the emulation's) */
	if (b == NATIVE) {
		struct mntkit_table *full =
			table_new(NULL, MNTKIT_STATMOUNT_MNT_POINT,
				  MNTKIT_TABLE_F_UNREACHABLE);
		struct mntkit_table *c = table_new(
			NULL, MNTKIT_STATMOUNT_MNT_POINT,
			MNTKIT_TABLE_F_UNREACHABLE | MNTKIT_TABLE_F_COMPACT);

		T_EQ_U(n_of(c), n_of(full));
		for (size_t i = 0; i < n_of(c); i++)
			same_reply(rec(full, i), rec(c, i), i);
		mntkit_table_free(full);
		mntkit_table_free(c);
	}
}

T_CASE(table_compact_native)
{
	compact_suite(NATIVE);
}

T_CASE(table_compact_mountinfo)
{
	compact_suite(MOUNTINFO);
}

/* many mounts: one level of 1500 children, and a chain 200 deep */
static void many_suite(enum mntkit_backend b)
{
	struct t_tree tr;
	struct mntkit_table *t;
	char p[PATH_MAX];
	uint64_t many, deep = 0;
	size_t len;

	setup(&tr, b);
	snprintf(p, sizeof(p), "%s/many", tr.dir);
	many = t_tmpfs(p, 0, NULL);
	for (int i = 0; i < 1500; i++) {
		snprintf(p, sizeof(p), "%s/many/m%d", tr.dir, i);
		t_mkdir(p);
		t_mount("x", p, "tmpfs", 0, "size=4k");
	}
	snprintf(p, sizeof(p), "%s/deep", tr.dir);
	len = strlen(p);
	for (int i = 0; i < 200 && len + 3 < sizeof(p); i++) {
		t_tmpfs(p, 0, "size=4k");
		if (!i)
			deep = t_uid(p);
		memcpy(p + len, "/d", 3);
		len += 2;
	}
	t = table_new(NULL, MNTKIT_STATMOUNT_MNT_POINT, 0);
	check_all(t, b, &here, MNTKIT_STATMOUNT_MNT_POINT);
	{
		ssize_t i = mntkit_table_find(t, many);
		size_t k = 0;

		T_ASSERT(i >= 0);
		for (ssize_t c = mntkit_table_first_child(t, (size_t)i); c >= 0;
		     c = mntkit_table_next_sibling(t, (size_t)c))
			k++;
		T_EQ_U(k, 1500);
		i = mntkit_table_find(t, deep);
		T_ASSERT(i >= 0);
		k = mntkit_table_depth(t, (size_t)i);
		while (mntkit_table_first_child(t, (size_t)i) >= 0)
			i = mntkit_table_first_child(t, (size_t)i);
		T_EQ_U(mntkit_table_depth(t, (size_t)i), k + 199);
	}
	mntkit_table_free(t);
}

T_CASE(table_many_native)
{
	many_suite(NATIVE);
}

T_CASE(table_many_mountinfo)
{
	many_suite(MOUNTINFO);
}

/* ---- MNTKIT_TABLE_F_OLD_ORDER ---- */

struct sib {
	uint32_t old;
	uint64_t id;
};

static int cmp_sib_old(const void *a, const void *b)
{
	const struct sib *x = a, *y = b;

	if (x->old != y->old)
		return x->old < y->old ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_sib_id(const void *a, const void *b)
{
	const struct sib *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The sibling list of @t from @first as (old ID, ID), in *@v (malloc'd),
 * its placed roots after the others (their count in *@placed). The count.
 */
static size_t siblings(const struct mntkit_table *t, ssize_t first,
		       struct sib **v, size_t *placed)
{
	size_t n = 0;

	*v = NULL;
	*placed = 0;
	for (ssize_t i = first; i >= 0;
	     i = mntkit_table_next_sibling(t, (size_t)i)) {
		const struct mntkit_statmount *sm = rec(t, (size_t)i);

		*v = realloc(*v, (n + 1) * sizeof(**v));
		T_ASSERT(*v != NULL);
		(*v)[n++] = (struct sib){ sm->mnt_id_old, sm->mnt_id };
		if (mntkit_table_placed(t, (size_t)i))
			(*placed)++;
		else
			T_ASSERTF(!*placed, "%s", "a root after a placed one");
	}
	return n;
}

/*
 * The sibling list of @t from @first as (old ID, ID), in *@v (malloc'd),
 * checked against the same list of @ref (the table without the flag, of
 * the same mounts): the same members, in (old ID, ID) order in @t and in
 * ID order in @ref; the placed roots last in both. The count.
 */
static size_t check_siblings(const struct mntkit_table *t,
			     const struct mntkit_table *ref, ssize_t first,
			     ssize_t ref_first, struct sib **v)
{
	struct sib *got, *want;
	size_t placed, ref_placed;
	size_t n = siblings(t, first, &got, &placed);
	size_t m = siblings(ref, ref_first, &want, &ref_placed);

	T_EQ_U(n, m);
	/* the table without the flag: by ID */
	for (size_t k = 1; k < m; k++)
		T_ASSERT(cmp_sib_id(&want[k - 1], &want[k]) < 0);
	if (m - placed > 1)
		qsort(want, m - placed, sizeof(*want), cmp_sib_old);
	for (size_t k = 0; k < n; k++) {
		T_EQ_U(got[k].old, want[k].old);
		T_EQ_U(got[k].id, want[k].id);
	}
	free(want);
	*v = got;
	return n;
}

/*
 * Under @dir, mounts 1 and 2, then 3 with an old ID below 1's: 0 made
 * before 1 and unmounted before 3 is made, so 3 may get 0's old ID (the
 * kernel hands out the lowest free one, once the mount is freed after a
 * grace period, and another namespace may take it first: 3 is made again
 * until it has one below 1's, a few times). 1 when it has.
 */
static int reused_old_id(const char *dir, char *p[4])
{
	for (int i = 0; i < 4; i++)
		p[i] = t_path("%s/%d", dir, i);
	for (int i = 0; i < 3; i++)
		t_tmpfs(p[i], 0, NULL);
	t_umount(p[0]);
	for (int tries = 0; tries < 50; tries++) {
		t_tmpfs(p[3], 0, NULL);
		if (t_old_id(p[3]) < t_old_id(p[1]))
			return 1;
		t_umount(p[3]);
		usleep(20000);
	}
	t_tmpfs(p[3], 0, NULL);
	return 0;
}

/*
 * MNTKIT_TABLE_F_OLD_ORDER: the same records, parents and depths as
 * without it, every sibling list (and the roots) by (old ID, ID); so
 * the mount with a reused old ID, the last of its siblings by ID, is
 * the first with the flag.
 */
static void old_order_suite(enum mntkit_backend b)
{
	struct t_tree tr;
	struct mntkit_table *t, *ref;
	char *dir, *p[4];
	struct sib *v;
	int reused;

	setup(&tr, b);
	dir = t_path("%s/old", tr.dir);
	t_tmpfs(dir, 0, NULL);
	reused = reused_old_id(dir, p);
	if (!reused)
		fprintf(stderr, "# no old ID was reused: the orders agree\n");
	for (size_t m = 0; m < NMASKS; m++) {
		for (int c = 0; c < 2; c++) {
			unsigned int fl = c ? MNTKIT_TABLE_F_COMPACT : 0;
			ssize_t io;

			ref = table_new(NULL, masks[m], fl);
			t = table_new(NULL, masks[m],
				      fl | MNTKIT_TABLE_F_OLD_ORDER);
			T_EQ_U(n_of(t), n_of(ref));
			for (size_t i = 0; i < n_of(t); i++) {
				same_reply(rec(ref, i), rec(t, i), i);
				T_EQ_I(mntkit_table_parent(t, i),
				       mntkit_table_parent(ref, i));
				T_EQ_I(mntkit_table_depth(t, i),
				       mntkit_table_depth(ref, i));
				check_siblings(t, ref,
					       mntkit_table_first_child(t, i),
					       mntkit_table_first_child(ref, i),
					       &v);
				free(v);
			}
			check_siblings(t, ref, mntkit_table_first_root(t),
				       mntkit_table_first_root(ref), &v);
			free(v);
			/* old/'s children: 3 first (its old ID reused) */
			io = (ssize_t)by_old(t, (uint32_t)t_old_id(dir));
			T_EQ_U(check_siblings(
				       t, ref, mntkit_table_first_child(t, (size_t)io),
				       mntkit_table_first_child(ref, (size_t)io),
				       &v),
			       3);
			T_EQ_U(v[0].old,
			       t_old_id(reused ? p[3] : p[1]));
			T_EQ_U(v[1].old, t_old_id(reused ? p[1] : p[2]));
			T_EQ_U(v[2].old, t_old_id(reused ? p[2] : p[3]));
			free(v);
			mntkit_table_free(t);
			mntkit_table_free(ref);
		}
	}
}

T_CASE(table_old_order_native)
{
	old_order_suite(NATIVE);
}

T_CASE(table_old_order_mountinfo)
{
	old_order_suite(MOUNTINFO);
}

/* ---- under churn ---- */

/*
 * A child mounts and unmounts (nested) in the same namespace as fast as
 * it can while the case takes snapshots: none may fail, each must be
 * consistent in itself, and the mounts that stay (everything but the
 * churn) must be in each, with the same reply and the same place in the
 * tree as before the churn.
 */
static void churn_suite(enum mntkit_backend b)
{
	struct t_tree tr;
	struct mntkit_table *t0;
	uint64_t tables = 0, records = 0, multi = 0, *mi_roots;
	struct t_churn ch;
	size_t nroots;
	char *churn;
	double begun;

	setup(&tr, b);
	churn = t_path("%s/churn", tr.dir);
	t_mkdir(churn);
	t0 = table_new(NULL, MNTKIT_STATMOUNT_ALL, 0);
	/* the roots of mountinfo: one, but in a chroot whose root is no
	 * mount point */
	nroots = t_mi_roots(&mi_roots);
	free(mi_roots);
	T_EQ_U(check_shape(t0), nroots);
	t_churn_start(&ch, churn, t_churn_cap(2.0), 1);
	begun = t_now();
	while (t_churn_reading(begun, 1.8, tables)) {
		for (size_t k = 0; k < NMASKS; k++) {
			struct mntkit_table *t = (void *)1;
			int r = mntkit_table_new(masks[k], 0, NULL, &t);

			T_ASSERTF(r == 0,
				  "%s: mntkit_table_new under churn: %s",
				  mntkit_backend_name(b), strerror(-r));
			multi += check_shape(t) > nroots;
			tables++;
			records += n_of(t);
			/* the stable mounts: there, in the same place */
			for (size_t i = 0; i < n_of(t0); i++) {
				const struct mntkit_statmount *a = rec(t0, i);
				ssize_t j = mntkit_table_find(t, a->mnt_id);
				const struct mntkit_statmount *s;

				T_ASSERTF(j >= 0,
					  "%s: stable mount %#" PRIx64
					  " missing under churn",
					  mntkit_backend_name(b), a->mnt_id);
				s = rec(t, (size_t)j);
				T_EQ_U(s->mnt_parent_id, a->mnt_parent_id);
				T_EQ_U(mntkit_table_depth(t, (size_t)j),
				       mntkit_table_depth(t0, i));
				if (masks[k] == MNTKIT_STATMOUNT_ALL) {
					T_EQ_U(s->size, a->size);
					T_ASSERTF(!memcmp(s, a, a->size),
						  "%s: stable mount %#" PRIx64
						  " changed under churn",
						  mntkit_backend_name(b),
						  a->mnt_id);
				}
			}
			/*
			 * More roots only when the table changed while it
			 * was read: the roots of t0, and churn mounts whose
			 * parent vanished meanwhile.
			 */
			for (ssize_t r = mntkit_table_first_root(t); r >= 0;
			     r = mntkit_table_next_sibling(t, (size_t)r)) {
				uint64_t id = rec(t, (size_t)r)->mnt_id;
				ssize_t j0 = mntkit_table_find(t0, id);

				T_ASSERTF(j0 < 0 ||
						  mntkit_table_parent(
							  t0, (size_t)j0) < 0,
					  "%s: stable mount %#" PRIx64
					  " is a root under churn",
					  mntkit_backend_name(b), id);
			}
			for (ssize_t r = mntkit_table_first_root(t0); r >= 0;
			     r = mntkit_table_next_sibling(t0, (size_t)r))
				T_NEG(mntkit_table_parent(
					      t, (size_t)mntkit_table_find(
							 t, rec(t0, (size_t)r)->mnt_id)),
				      ENOENT);
			mntkit_table_free(t);
		}
	}
	t_churn_end(&ch, t_path("churn(%s)", mntkit_backend_name(b)));
	t_log("churn(%s): %" PRIu64 " tables, %" PRIu64 " records, %" PRIu64
	      " with several roots\n",
	      mntkit_backend_name(b), tables, records, multi);
	T_ASSERT(tables > 10);
	mntkit_table_free(t0);
}

T_CASE(table_churn_native)
{
	churn_suite(NATIVE);
}

T_CASE(table_churn_mountinfo)
{
	churn_suite(MOUNTINFO);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
