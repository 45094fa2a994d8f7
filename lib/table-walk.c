// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * table-walk.c - walks and orders of a snapshot's tree: mntkit_list()'s
 * CHILDREN and TREE listings, and the siblings by old ID
 * (MNTKIT_TABLE_F_OLD_ORDER).
 */
#include <stdlib.h>

#include "table.h"

/* ---- walks for mntkit_list() ---- */

/* next sibling, or previous one with @reverse (-ENOENT: none) */
static ssize_t sibling(const struct mntkit_table *t, size_t idx, int reverse)
{
	int32_t s = reverse ? t->prev[idx] : t->next[idx];

	return s >= 0 ? s : mntkit__fail(ENOENT);
}

/* write the IDs of @idx's children; returns how many */
static size_t children(const struct mntkit_table *t, size_t idx, int reverse,
		       uint64_t *out)
{
	ssize_t c = reverse ? t->last_child[idx] : t->first_child[idx];
	size_t n = 0;

	for (; c >= 0; c = reverse ? t->prev[c] : t->next[c])
		out[n++] = id_at(t, (size_t)c);
	return n;
}

/* write the IDs of @idx's subtree depth-first (@idx itself if @self) */
static size_t walk(const struct mntkit_table *t, size_t idx, int reverse,
		   int self, uint64_t *out)
{
	const int32_t *down = reverse ? t->last_child : t->first_child;
	const int32_t *side = reverse ? t->prev : t->next;
	size_t i = idx, n = 0;

	for (;;) {
		if (i != idx || self)
			out[n++] = id_at(t, i);
		if (down[i] >= 0) {
			i = (size_t)down[i];
			continue;
		}
		while (i != idx && side[i] < 0)
			i = (size_t)t->parent[i];
		if (i == idx)
			return n;
		i = (size_t)side[i];
	}
}

/* how a listing takes a root of its snapshot */
enum shaped_root {
	SHAPED_START,  /* the start of a subtree: not listed itself */
	SHAPED_ROOT,   /* stands for LSMT_ROOT: listed itself by TREE */
	SHAPED_PLACED, /* placed by the snapshot: somewhere below the start */
};

/* the IDs root @r gives a shaped listing */
static size_t list_root(const struct mntkit_table *t, size_t r,
			unsigned int flags, enum shaped_root kind,
			uint64_t *out)
{
	int reverse = !!(flags & MNTKIT_LIST_F_REVERSE);

	if (!(flags & MNTKIT_LIST_F_CHILDREN))
		return walk(t, r, reverse, kind != SHAPED_START, out);
	if (kind == SHAPED_PLACED) {
		*out = id_at(t, r);
		return 1;
	}
	return children(t, r, reverse, out);
}

/*
 * The seed's listings over a snapshot of the subtree: the direct children
 * of the start, or the subtree depth-first. With LSMT_ROOT the roots of the
 * snapshot stand for the start, and are listed themselves by a TREE walk.
 * Then the mounts the snapshot placed as roots (it could not tell their
 * parents: mntkit_table_state()), which are below the start: each with its
 * subtree (TREE), or as a child of the start (CHILDREN). In a subtree's
 * snapshot every root but the start is one of those.
 */
int mntkit__table_list_shaped(const struct mntkit_mnt_id_req *req,
			       uint64_t mnt_id, unsigned int flags,
			       struct mntkit_idvec *iv)
{
	int reverse = !!(flags & MNTKIT_LIST_F_REVERSE);
	int from_root = mnt_id == MNTKIT_LSMT_ROOT;
	struct mntkit_table *t;
	ssize_t top, first;
	int ret;

	ret = mntkit__table_build(req, mnt_id, MNTKIT_STATMOUNT_MNT_BASIC, &t);
	if (ret)
		return ret;
	iv->n = 0;
	ret = mntkit__idvec_reserve(iv, mntkit_table_count(t) + 1);
	if (ret)
		goto out;
	top = from_root ? -1 : mntkit_table_find(t, mnt_id);
	if (!from_root && top < 0) { /* the start vanished */
		ret = -ENOENT;
		goto out;
	}
	if (top >= 0)
		iv->n += list_root(t, (size_t)top, flags, SHAPED_START,
				   iv->v + iv->n);
	first = reverse ? t->last_root : t->first_root;
	/* the roots that stand for LSMT_ROOT, then the placed ones */
	for (int pass = SHAPED_ROOT; pass <= SHAPED_PLACED; pass++) {
		for (ssize_t r = first; r >= 0;
		     r = sibling(t, (size_t)r, reverse)) {
			enum shaped_root kind = SHAPED_PLACED;

			if (r == top)
				continue;
			if (from_root && !mntkit_table_placed(t, (size_t)r))
				kind = SHAPED_ROOT;
			if ((int)kind == pass)
				iv->n += list_root(t, (size_t)r, flags, kind,
						   iv->v + iv->n);
		}
	}
out:
	mntkit_table_free(t);
	return ret;
}

/* ---- sibling orders ---- */

/* a sibling's place with MNTKIT_TABLE_F_OLD_ORDER */
struct old_key {
	uint32_t old;
	int32_t idx;
	uint64_t id;
};

static int cmp_old_key(const void *a, const void *b)
{
	const struct old_key *x = a, *y = b;

	if (x->old != y->old)
		return x->old < y->old ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static struct old_key old_key_of(const struct mntkit_table *t, int32_t i)
{
	return (struct old_key){ mntkit__table_fixed(t, (size_t)i).mnt_id_old,
				 i, id_at(t, (size_t)i) };
}

static bool placed_root(const struct mntkit_table *t, int32_t i)
{
	return t->placed && t->placed[i];
}

/*
 * Sort the sibling list from *@first by old ID (then ID), but for the
 * placed roots at its end, which stay there. Read first, and sorted only
 * when it is not in order, in *@key (room for every mount, made by the
 * first list out of order). 0 or -ENOMEM.
 */
static int sort_siblings(struct mntkit_table *t, int32_t *first,
			 int32_t *last, struct old_key **key)
{
	int32_t i, tail = -1, prev = -1;
	struct old_key k, before = { 0, -1, 0 };
	size_t m = 0;

	for (i = *first; i >= 0 && !placed_root(t, i); i = t->next[i]) {
		k = old_key_of(t, i);
		if (before.idx >= 0 && cmp_old_key(&before, &k) > 0)
			break;
		before = k;
	}
	if (i < 0 || placed_root(t, i))
		return 0; /* in order */
	if (!*key && !(*key = malloc(t->n * sizeof(**key))))
		return -ENOMEM;
	for (i = *first; i >= 0 && !placed_root(t, i); i = t->next[i])
		(*key)[m++] = old_key_of(t, i);
	tail = i;
	qsort(*key, m, sizeof(**key), cmp_old_key);
	for (size_t j = 0; j < m; j++) {
		i = (*key)[j].idx;
		t->prev[i] = prev;
		if (prev >= 0)
			t->next[prev] = i;
		else
			*first = i;
		prev = i;
	}
	t->next[prev] = tail;
	if (tail >= 0)
		t->prev[tail] = prev;
	else
		*last = prev;
	return 0;
}

/*
 * MNTKIT_TABLE_F_OLD_ORDER: every sibling list, the roots' too, by
 * ascending old ID. The lists come by ID, which is also the old IDs'
 * order but where the kernel gave a mount an old ID freed before (old IDs
 * are reused, the unique ones never): only such a list is sorted. O(n),
 * and no memory unless a list is out of order.
 */
int mntkit__table_order_old(struct mntkit_table *t)
{
	struct old_key *key = NULL;
	int ret = sort_siblings(t, &t->first_root, &t->last_root, &key);

	for (size_t p = 0; !ret && p < t->n; p++)
		if (t->first_child[p] != t->last_child[p])
			ret = sort_siblings(t, &t->first_child[p],
					    &t->last_child[p], &key);
	free(key);
	return ret;
}
