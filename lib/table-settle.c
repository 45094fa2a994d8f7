// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * table-settle.c - a snapshot read while mounts moved, made a tree whose
 * roots all belong there: the mounts that do not fit read again (the
 * listing too), a few rounds, and what still does not fit placed as
 * roots (doc/tables-internals.md).
 */
#include <pthread.h>
#include <stdlib.h>

#include "table.h"

/* read again at most this often: once the mounts involved, then also the
 * listing (each round costs a listing and a statmount per change seen) */
#define SETTLE_ROUNDS 4

static pthread_once_t rounds_once = PTHREAD_ONCE_INIT;
static int rounds = SETTLE_ROUNDS;

/*
 * MNTKIT_TEST_SETTLE_ROUNDS=N (a testing knob, 0 .. SETTLE_ROUNDS): read
 * the mounts that do not fit again at most N times (0: place them at
 * once), so that a test meets tables with placed roots without a churn
 * that outruns every re-read. The emulation's new listing after a mount
 * it did not find (ids_may_change()) is not limited by it.
 */
static void rounds_init(void)
{
	const char *s = mntkit__env(MNTKIT__ENV_TEST_SETTLE_ROUNDS);

	if (s && s[0] >= '0' && s[0] <= '0' + SETTLE_ROUNDS && !s[1])
		rounds = s[0] - '0';
}

static int settle_rounds(void)
{
	pthread_once(&rounds_once, rounds_init);
	return rounds;
}

static int is_outside(const struct build *b, uint64_t id)
{
	for (size_t i = 0; i < b->outside.n; i++)
		if (b->outside.v[i] == id)
			return 1;
	return 0;
}

static int was_listed(const struct build *b, uint64_t id)
{
	return bsearch(&id, b->listed.v, b->listed.n, sizeof(id), cmp_id) !=
	       NULL;
}

/*
 * Is @p (<= 2^31) the old ID of a record of the table that has another
 * ID? The emulation names a mount by its old ID while its mount point
 * does not lead to it (a mount moved or overmounted at that moment), by
 * its unique ID otherwise: a child read in a view where its parent was
 * hidden names the parent by an ID that the table, which has the parent
 * from another view, does not hold, and that the emulation answers with
 * ENOENT now. Such a parent is a live mount of the table, not one above
 * our root (the root is read again). The kernel's mnt_id is never an old
 * ID: none of its records is named by another ID. 1, 0 or -errno.
 */
static int renamed(struct build *b, uint64_t p)
{
	const struct mntkit_table *t = b->t;

	if (p > MNTKIT_MNT_UNIQUE_ID_OFFSET)
		return 0;
	if (!b->olds_valid) {
		int ret = mntkit__idvec_reserve(&b->olds, t->n + 1);

		if (ret)
			return ret;
		b->olds.n = 0;
		for (size_t i = 0; i < t->n; i++) {
			struct fixed sm = mntkit__table_fixed(t, i);

			if ((sm.mask & MNTKIT_STATMOUNT_MNT_BASIC) &&
			    sm.mnt_id_old != sm.mnt_id)
				b->olds.v[b->olds.n++] = sm.mnt_id_old;
		}
		qsort(b->olds.v, b->olds.n, sizeof(*b->olds.v), cmp_id);
		b->olds_valid = 1;
	}
	return bsearch(&p, b->olds.v, b->olds.n, sizeof(p), cmp_id) != NULL;
}

/*
 * Is the parent @p of a root, not in the table, above the caller's root
 * (so it is not listed: the root's place is right), or was the root read
 * while the table changed? A parent that was listed is below our root (it
 * vanished since). A mount the caller's root does not reach has no
 * MNT_POINT (EPERM without CAP_SYS_ADMIN). The emulation names a parent
 * outside mountinfo by an old ID it does not find, and so it names a
 * hidden mount once gone (a mount made and gone since the listing, with
 * a child moved under it and back), or a hidden mount it names by its
 * unique ID now (renamed()): it tells which (mntkit__emul_parent_outside(),
 * of its table now: the parent of a mount there, without a line). Were
 * every such ID taken for one outside, its child, read in between, would
 * stay a root of its own with the table not flagged (test-churn-tree).
 * 1 above, 0 not, or -errno.
 */
static int parent_outside(struct build *b, uint64_t p)
{
	int ret;

	ret = renamed(b, p);
	if (ret)
		return ret < 0 ? ret : 0; /* a live mount of the table */
	if (is_outside(b, p))
		return 1;
	if (was_listed(b, p))
		return 0; /* listed, so below our root, but gone since */
	ret = mntkit__stat_into(b->req, p,
				MNTKIT_STATMOUNT_MNT_BASIC |
					MNTKIT_STATMOUNT_MNT_POINT,
				&b->buf, &b->bufsize);
	if (ret == -ENOMEM)
		return ret;
	if (!ret) {
		/*
		 * no mount point: above our root. 6.12 (and likely 6.9 to
		 * 6.11) answer such a mount with an empty MNT_POINT where
		 * 6.18 leaves the group out; a reachable one is never ""
		 */
		const char *pt = "";

		ret = !(b->buf->mask & MNTKIT_STATMOUNT_MNT_POINT) ||
		      (mntkit_sm_str(b->buf, b->buf->size,
				     MNTKIT_FIELD_MNT_POINT, &pt) == 0 &&
		       !pt[0]);
	}
	else if ((ret == -ENOENT || ret == -EINVAL) &&
		 p <= MNTKIT_MNT_UNIQUE_ID_OFFSET && ids_may_change()) {
		ret = mntkit__emul_parent_outside(b->req, p);
		if (ret < 0 && ret != -ENOMEM)
			ret = 1; /* nothing to learn: outside */
	}
	else if (ret == -ENOENT || ret == -EINVAL)
		ret = p <= MNTKIT_MNT_UNIQUE_ID_OFFSET; /* else: gone */
	else
		ret = 1; /* EPERM: above our root; else: nothing to learn */
	if (ret == 1) {
		int err = mntkit__idvec_reserve(&b->outside, 1);

		if (err)
			return err;
		b->outside.v[b->outside.n++] = p;
	}
	return ret;
}

/*
 * Does root @r belong there? The start of a subtree; the mount that is its
 * own parent (the namespace's root) or that the backend could not read
 * (no MNT_BASIC); and in a listing from the caller's root, a mount whose
 * parent is above that root (the root mount itself, whose parent is the
 * namespace's rootfs, or a mount of a chroot). 1 yes, 0 no, or -errno.
 */
static int root_ok(struct build *b, size_t r)
{
	struct fixed sm = mntkit__table_fixed(b->t, r);

	if (!(sm.mask & MNTKIT_STATMOUNT_MNT_BASIC))
		return 1;
	if (b->start != MNTKIT_LSMT_ROOT)
		return sm.mnt_id == b->start;
	if (sm.mnt_parent_id == sm.mnt_id)
		return 1;
	return parent_outside(b, sm.mnt_parent_id);
}

static int add_sus(struct build *b, size_t i)
{
	int ret = mntkit__idvec_reserve(&b->sus, 1);

	if (!ret)
		b->sus.v[b->sus.n++] = id_at(b->t, i);
	return ret;
}

/*
 * The mounts on cycles of parent links: a mount no root reaches hangs from
 * a cycle (its parents are unreached too, up to one that repeats). Each
 * mount is walked once: O(n). With @cut, the lowest of each cycle is
 * placed as a root; else every member goes to b->sus.
 */
static int cycle_members(struct build *b, int cut)
{
	struct mntkit_table *t = b->t;
	size_t walks = 0;

	for (size_t i = 0; i < t->n; i++)
		b->walk[i] = 0;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = i, k, low;
		int ret;

		if (t->depth[i] != UNREACHED || b->walk[i])
			continue;
		walks++;
		while (t->depth[j] == UNREACHED && !b->walk[j]) {
			b->walk[j] = walks;
			j = (size_t)t->parent[j];
		}
		if (b->walk[j] != walks)
			continue; /* led to a cycle found before */
		/* j is on a new cycle */
		low = j;
		k = j;
		do {
			if (!cut && (ret = add_sus(b, k)))
				return ret;
			low = k < low ? k : low;
			k = (size_t)t->parent[k];
		} while (k != j);
		if (cut)
			t->placed[low] = 1;
	}
	return 0;
}

/*
 * Link the table and collect in b->sus the mounts that do not fit: those
 * on cycles and the roots that do not belong there. O(n), plus one
 * statmount per parent of a root that is not in the table (one: the
 * namespace's rootfs, or none when the table has the namespace's root).
 */
static int check(struct build *b)
{
	struct mntkit_table *t = b->t;
	int ret = mntkit__table_link(t);

	b->sus.n = 0;
	b->olds_valid = 0;
	for (ssize_t r = t->first_root; !ret && r >= 0; r = t->next[r]) {
		ret = root_ok(b, (size_t)r);
		if (ret >= 0)
			ret = ret ? 0 : add_sus(b, (size_t)r);
	}
	if (!ret && t->reached < t->n) /* some on cycles */
		ret = cycle_members(b, 0);
	return ret;
}

static int cmp_off_id(struct mntkit_table *t, size_t a, size_t b)
{
	uint64_t x = id_at_off(t, a), y = id_at_off(t, b);

	return x < y ? -1 : x > y;
}

/*
 * The table becomes the records of @keep (offsets, in the old order) and
 * of @add (offsets of new records, sorted by ID): merged by ID in O(n).
 * A mount of @add that @keep has already (the emulation's snapshot batch
 * may answer a new name with one the table holds: see
 * mntkit__table_by_id()) stays as kept.
 */
static int merge(struct mntkit_table *t, const size_t *keep, size_t nkeep,
		 const size_t *add, size_t nadd)
{
	size_t *off = malloc((nkeep + nadd + 1) * sizeof(*off));
	size_t i = 0, j = 0, n = 0;

	if (!off)
		return -ENOMEM;
	while (i < nkeep || j < nadd) {
		int c = j == nadd ? -1 :
			i == nkeep ? 1 : cmp_off_id(t, keep[i], add[j]);

		if (c <= 0)
			off[n++] = keep[i++];
		else
			off[n++] = add[j++];
		if (!c)
			j++;
	}
	free(t->off);
	t->off = off;
	t->n = n;
	return 0;
}

/*
 * Read the suspects again: each gets its new reply, or leaves the table
 * when it is gone.
 */
static int restat(struct build *b)
{
	struct mntkit_table *t = b->t;
	size_t *keep = NULL, nkeep = 0;
	int ret = 0;

	qsort(b->sus.v, b->sus.n, sizeof(*b->sus.v), cmp_id);
	keep = malloc((t->n + 1) * sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	for (size_t i = 0, k = 0; i < t->n && !ret; i++) {
		uint64_t id = id_at(t, i);

		while (k < b->sus.n && b->sus.v[k] < id)
			k++;
		keep[nkeep] = t->off[i];
		if (k == b->sus.n || b->sus.v[k] != id) {
			nkeep++;
			continue;
		}
		ret = mntkit__stat_into(b->req, id, b->mask, &b->buf,
					&b->bufsize);
		if (ret == -ENOENT) {
			ret = 0;
			b->relist |= ids_may_change();
			continue;
		}
		if (!ret)
			ret = mntkit__table_put(t, id, b->buf, &keep[nkeep++]);
	}
	if (!ret) /* a reply may name the mount otherwise now */
		ret = mntkit__table_by_id(t, keep, &nkeep);
	if (!ret)
		ret = merge(t, keep, nkeep, NULL, 0);
	free(keep);
	return ret;
}

/*
 * List again: the mounts no longer listed leave the table (gone, or moved
 * out of the subtree), those listed now for the first time join it.
 */
static int relist(struct build *b)
{
	struct mntkit_table *t = b->t;
	struct mntkit_idvec iv = { 0 }, fresh = { 0 };
	size_t *keep = NULL, *add = NULL, nkeep = 0, nadd = 0;
	int ret;

	b->relist = 0;
	ret = mntkit__table_list(b, &iv);
	if (!ret)
		ret = mntkit__idvec_reserve(&fresh, iv.n + 1);
	keep = malloc((t->n + 1) * sizeof(*keep));
	add = malloc((iv.n + 1) * sizeof(*add));
	if (!ret && (!keep || !add))
		ret = -ENOMEM;
	for (size_t i = 0, k = 0; !ret && k < iv.n; k++) {
		uint64_t id = iv.v[k];

		if (k && id == iv.v[k - 1])
			continue;
		while (i < t->n && id_at(t, i) < id)
			i++;
		if (i < t->n && id_at(t, i) == id)
			keep[nkeep++] = t->off[i];
		else
			fresh.v[fresh.n++] = id;
	}
	if (!ret && fresh.n)
		ret = mntkit__table_fill(b, fresh.v, fresh.n, add, &nadd);
	if (!ret)
		ret = merge(t, keep, nkeep, add, nadd);
	free(keep);
	free(add);
	free(b->listed.v);
	b->listed = iv;
	free(fresh.v);
	return ret;
}

/* what still does not fit after the last round: placed as roots */
static int place(struct build *b)
{
	struct mntkit_table *t = b->t;
	int ret;

	t->placed = calloc(t->n + 1, 1);
	if (!t->placed)
		return -ENOMEM;
	for (ssize_t r = t->first_root; r >= 0; r = t->next[r]) {
		ret = root_ok(b, (size_t)r);
		if (ret < 0)
			return ret;
		if (!ret)
			t->placed[r] = 1;
	}
	ret = cycle_members(b, 1);
	if (!ret)
		ret = mntkit__table_link(t);
	t->state |= MNTKIT_TABLE_STATE_PLACED;
	return ret;
}

/*
 * Check the table (O(n)); while mounts do not fit, read them again (round
 * 0: the mounts involved; then the listing too, which brings the parents
 * made after it and drops the mounts gone), at most SETTLE_ROUNDS times;
 * then place the rest. A listed mount the emulation did not find is
 * listed again as well (ids_may_change()), also when everything fits.
 */
int mntkit__table_settle(struct build *b)
{
	int ret = 0, last = settle_rounds();

	b->walk = malloc((b->t->n + 1) * sizeof(*b->walk));
	if (!b->walk)
		return -ENOMEM;
	for (int round = 0; !ret; round++) {
		int final = round == SETTLE_ROUNDS;

		ret = check(b);
		if (ret || (!b->sus.n && (!b->relist || final)))
			break;
		if (b->sus.n && round >= last && (!b->relist || final)) {
			mntkit__debug(MNTKIT_PRINT_DEBUG,
				      "snapshot: %zu mounts still do not fit "
				      "after %d re-reads: placed as roots",
				      b->sus.n, round);
			ret = place(b);
			break;
		}
		mntkit__debug(MNTKIT_PRINT_DEBUG,
			      "snapshot: round %d: %zu mounts moved while read%s",
			      round, b->sus.n,
			      round || b->relist ? ", listing again" : "");
		if (b->sus.n && round < last)
			ret = restat(b);
		if (!ret && (round || b->relist))
			ret = relist(b);
		if (!ret) {
			size_t *w = realloc(b->walk,
					    (b->t->n + 1) * sizeof(*w));

			if (!w)
				ret = -ENOMEM;
			else
				b->walk = w;
		}
	}
	free(b->walk);
	free(b->sus.v);
	free(b->outside.v);
	free(b->olds.v);
	free(b->buf);
	return ret;
}
