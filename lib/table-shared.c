// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * table-shared.c - records shared between a live table (live.c) and the
 * snapshots made of it: a reply with a reference count before it; and a
 * snapshot whose records are such replies, by pointer, owned by as many
 * holders as took it. Nothing is copied for a snapshot but the pointers;
 * a record a snapshot holds outlives its replacement in the live table.
 * Counts are atomic: a snapshot may be freed in any thread while the
 * live table's writer replaces records.
 */
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* before each shared reply: 16 bytes, so that the reply stays aligned */
struct srec_head {
	uint32_t refs;
	uint32_t pad[3];
};

static struct srec_head *head_of(const struct mntkit_statmount *sm)
{
	return (struct srec_head *)((char *)(uintptr_t)sm -
				    sizeof(struct srec_head));
}

struct mntkit_statmount *mntkit__srec_new(const struct mntkit_statmount *sm)
{
	size_t len = mntkit__sm_size(sm);
	struct srec_head *h = malloc(sizeof(*h) + len);

	if (!h)
		return NULL;
	h->refs = 1;
	mntkit__sm_copy(h + 1, sm);
	return (struct mntkit_statmount *)(h + 1);
}

void mntkit__srec_get(const struct mntkit_statmount *sm)
{
	if (sm)
		__atomic_add_fetch(&head_of(sm)->refs, 1, __ATOMIC_RELAXED);
}

void mntkit__srec_put(const struct mntkit_statmount *sm)
{
	struct srec_head *h;

	if (!sm)
		return;
	h = head_of(sm);
	if (__atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(h);
}

int mntkit__table_shared(const struct mntkit_statmount *const *recs,
			 size_t n, struct mntkit_table **out)
{
	struct mntkit_table *t = calloc(1, sizeof(*t));
	int ret;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->shared = malloc((n + 1) * sizeof(*t->shared));
	if (!t->shared) {
		free(t);
		return -ENOMEM;
	}
	if (n)
		memcpy(t->shared, recs, n * sizeof(*recs));
	t->n = n;
	t->owners = 1;
	ret = mntkit__table_link(t);
	if (ret) {
		free(t->shared);
		free(t);
		return ret;
	}
	for (size_t i = 0; i < n; i++)
		mntkit__srec_get(recs[i]);
	*out = t;
	return 0;
}

void mntkit__table_hold(struct mntkit_table *t)
{
	__atomic_add_fetch(&t->owners, 1, __ATOMIC_RELAXED);
}

bool mntkit__table_let_go(struct mntkit_table *t)
{
	if (__atomic_sub_fetch(&t->owners, 1, __ATOMIC_ACQ_REL) > 0)
		return false;
	for (size_t i = 0; i < t->n; i++)
		mntkit__srec_put(t->shared[i]);
	free(t->shared);
	t->shared = NULL;
	t->n = 0;
	return true;
}
