// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * table.c - a snapshot, the object: its records by ID, its tree, and the
 * public calls that read them (mntkit_table_get(), mntkit_table_find(),
 * the links). table.h tells the module's files.
 */
#include <stdlib.h>
#include <string.h>

#include "table.h"

void mntkit_table_free(struct mntkit_table *t)
{
	if (!t)
		return;
	if (t->shared && !mntkit__table_let_go(t))
		return;
	for (size_t i = 0; t->full && i < t->n; i++)
		free(t->full[i]);
	free(t->full);
	mntkit__arena_free(&t->arena);
	free(t->off);
	free(t->parent); /* the block of the links and depths */
	free(t->placed);
	mntkit__tab_free(t->tab);
	free(t);
}

size_t mntkit_table_count(const struct mntkit_table *t)
{
	return t ? t->n : 0;
}

const struct mntkit_statmount *mntkit_table_get(const struct mntkit_table *t,
						size_t idx)
{
	struct mntkit_statmount *sm, *none = NULL, **full;

	if (!t || idx >= t->n) {
		errno = EINVAL;
		return NULL;
	}
	if (!t->compact)
		return rec_of(t, idx);
	full = __atomic_load_n(&t->full, __ATOMIC_ACQUIRE);
	if (!full) {
		/* the first mntkit_table_get() of the table: the slots */
		struct mntkit_statmount **nf = calloc(t->n, sizeof(*nf)), **no =
									  NULL;

		if (!nf) {
			errno = ENOMEM;
			return NULL;
		}
		full = nf;
		if (!__atomic_compare_exchange_n(&((struct mntkit_table *)t)->full,
						 &no, nf, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			free(nf);
			full = no;
		}
	}
	sm = __atomic_load_n(&full[idx], __ATOMIC_ACQUIRE);
	if (sm)
		return sm;
	sm = malloc(crec_size(t, idx));
	if (!sm) {
		errno = ENOMEM;
		return NULL;
	}
	mntkit__table_crec_expand(t, idx, sm);
	/* another thread may have made it meanwhile: keep the first */
	if (__atomic_compare_exchange_n(&full[idx], &none, sm, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return sm;
	free(sm);
	return none;
}

int mntkit_table_get_buf(const struct mntkit_table *t, size_t idx,
			 struct mntkit_statmount **buf, size_t *bufsize)
{
	size_t need;

	if (!t || idx >= t->n || !buf || !bufsize)
		return mntkit__fail(EINVAL);
	if (t->compact)
		need = crec_size(t, idx);
	else
		need = mntkit__sm_size(rec_of(t, idx));
	if (!*buf || *bufsize < need) {
		void *nb = realloc(*buf, need);

		if (!nb)
			return mntkit__fail(ENOMEM);
		*buf = nb;
		*bufsize = need;
	}
	if (t->compact)
		mntkit__table_crec_expand(t, idx, *buf);
	else
		mntkit__sm_copy(*buf, rec_of(t, idx));
	return 0;
}

ssize_t mntkit_table_find(const struct mntkit_table *t, uint64_t mnt_id)
{
	size_t lo = 0, hi = t ? t->n : 0;

	if (!t)
		return mntkit__fail(EINVAL);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t id = id_at(t, mid);

		if (id == mnt_id)
			return (ssize_t)mid;
		if (id < mnt_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return mntkit__fail(ENOENT);
}

/* a link of the tree (-1 inside: none): the index, -ENOENT or -EINVAL */
static ssize_t link_at(const struct mntkit_table *t, const int32_t *links,
		       size_t idx)
{
	if (idx >= t->n)
		return mntkit__fail(EINVAL);
	return links[idx] >= 0 ? links[idx] : mntkit__fail(ENOENT);
}

ssize_t mntkit_table_parent(const struct mntkit_table *t, size_t idx)
{
	return t ? link_at(t, t->parent, idx) : mntkit__fail(EINVAL);
}

ssize_t mntkit_table_first_child(const struct mntkit_table *t, size_t idx)
{
	return t ? link_at(t, t->first_child, idx) : mntkit__fail(EINVAL);
}

ssize_t mntkit_table_next_sibling(const struct mntkit_table *t, size_t idx)
{
	return t ? link_at(t, t->next, idx) : mntkit__fail(EINVAL);
}

ssize_t mntkit_table_first_root(const struct mntkit_table *t)
{
	if (!t)
		return mntkit__fail(EINVAL);
	return t->first_root >= 0 ? t->first_root : mntkit__fail(ENOENT);
}

ssize_t mntkit_table_depth(const struct mntkit_table *t, size_t idx)
{
	if (!t || idx >= t->n)
		return mntkit__fail(EINVAL);
	return (ssize_t)t->depth[idx];
}

/*
 * Pre-order below @root: the first child, else the next sibling of @idx
 * or of the nearest mount on the way up that has one, climbing no higher
 * than @root's depth (a mount at that depth is @root: its siblings are
 * outside the subtree).
 */
ssize_t mntkit_table_next_preorder(const struct mntkit_table *t, size_t idx,
				   size_t root)
{
	size_t i;

	if (!t || idx >= t->n || root >= t->n)
		return mntkit__fail(EINVAL);
	if (t->first_child[idx] >= 0)
		return t->first_child[idx];
	for (i = idx; t->depth[i] > t->depth[root]; i = (size_t)t->parent[i])
		if (t->next[i] >= 0)
			return t->next[i];
	return mntkit__fail(ENOENT);
}

unsigned int mntkit_table_state(const struct mntkit_table *t)
{
	return t ? t->state : 0;
}

int mntkit_table_placed(const struct mntkit_table *t, size_t idx)
{
	if (!t || idx >= t->n)
		return mntkit__fail(EINVAL);
	return t->placed ? t->placed[idx] : 0;
}
