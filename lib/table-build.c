// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * table-build.c - a snapshot built: the listing, a statmount per mount
 * (fetch.c) appended as records, the tree linked, then settled
 * (table-settle.c); mntkit_table_new(). Also a table of records given
 * (tab.c's).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "table.h"

/* ---- the listing and the replies ---- */

static bool ascending(const uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] > v[i])
			return false;
	return true;
}

/*
 * The listing, sorted (the start of a subtree, which the kernel does not
 * list, joins it). The kernel's comes sorted (listmount(2) walks the
 * namespace's mounts by ID), so it is checked before it is sorted: a
 * merge sort of 50,000 sorted IDs took 3 % of lsmnt's own time.
 */
int mntkit__table_list(const struct build *b, struct mntkit_idvec *iv)
{
	int ret = mntkit__list_flat(b->req, b->start, 0, iv);

	if (!ret && b->start != MNTKIT_LSMT_ROOT) {
		ret = mntkit__idvec_reserve(iv, 1);
		if (!ret)
			iv->v[iv->n++] = b->start;
	}
	if (!ret && !ascending(iv->v, iv->n))
		qsort(iv->v, iv->n, sizeof(*iv->v), cmp_id);
	return ret;
}

struct id_off {
	uint64_t id;
	size_t off;
};

static int cmp_id_off(const void *a, const void *b)
{
	return cmp_id(&((const struct id_off *)a)->id,
		      &((const struct id_off *)b)->id);
}

/*
 * They come in the order of the IDs asked, and so sorted, but for the
 * emulation's snapshot batch, which answers a mount listed under its
 * other name with its reply under the name it has now (see emul-ids.c,
 * mntkit__emul_renamed_entry()): such a record may be out of order, or
 * there twice.
 */
int mntkit__table_by_id(struct mntkit_table *t, size_t *off, size_t *n)
{
	struct id_off *v;
	size_t k = 0;

	for (size_t i = 1; i < *n; i++)
		if (id_at_off(t, off[i - 1]) >= id_at_off(t, off[i]))
			goto sort;
	return 0;
sort:
	v = malloc((*n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < *n; i++)
		v[i] = (struct id_off){ id_at_off(t, off[i]), off[i] };
	qsort(v, *n, sizeof(*v), cmp_id_off);
	for (size_t i = 0; i < *n; i++)
		if (!k || v[i].id != v[k - 1].id)
			v[k++] = v[i];
	for (size_t i = 0; i < k; i++)
		off[i] = v[i].off;
	*n = k;
	free(v);
	return 0;
}

/* statmount'ing a sorted run of IDs into a list of arena offsets */
struct fill_ctx {
	struct mntkit_table *t;
	size_t *off; /* room for every ID asked */
	size_t n;
	uint64_t last; /* the last ID added (IDs come sorted, maybe twice) */
	int unsorted;  /* a record's mnt_id not above the one before it */
};

static int fill_one(void *ctx, uint64_t id, const struct mntkit_statmount *sm)
{
	struct fill_ctx *c = ctx;
	int ret;

	if (c->n && id == c->last)
		return 0;
	ret = mntkit__table_put(c->t, id, sm, &c->off[c->n]);
	if (ret)
		return ret;
	if (c->n && id_at_off(c->t, c->off[c->n]) <=
			    id_at_off(c->t, c->off[c->n - 1]))
		c->unsorted = 1;
	c->n++;
	c->last = id;
	return 0;
}

int mntkit__table_fill(struct build *b, const uint64_t *ids, size_t n,
		       size_t *off, size_t *got)
{
	struct fill_ctx c = { .t = b->t, .off = off };
	size_t distinct = 0;
	int ret;

	ret = mntkit__stat_each(b->req, ids, n, b->mask, fill_one, &c);
	for (size_t i = 0; i < n; i++)
		distinct += !i || ids[i] != ids[i - 1];
	if (c.n < distinct && ids_may_change())
		b->relist = 1;
	if (!ret && c.unsorted)
		ret = mntkit__table_by_id(b->t, off, &c.n);
	*got = c.n;
	return ret;
}

/* ---- the tree ---- */

/*
 * The five links and the depths of @n mounts, in one block (t->parent
 * holds it): the links -1, the depths UNREACHED. From half a huge page
 * (about 44,000 mounts) on, in whole huge pages.
 */
static int alloc_links(struct mntkit_table *t, size_t n)
{
	int32_t **links[] = { &t->parent, &t->first_child, &t->last_child,
			      &t->next, &t->prev };
	size_t each = n + 1, len, nlinks = MNTKIT_ARRAY_SIZE(links);
	void *block;

	if (n >= INT32_MAX)
		return -ENOMEM; /* more than the links can name */
	len = (nlinks + 1) * each * sizeof(int32_t);
	free(t->parent);
	t->parent = NULL;
	block = mntkit__big_alloc(len, MNTKIT__HUGE / 2, MNTKIT__BIG_WHOLE);
	if (!block)
		return -ENOMEM;
	for (size_t i = 0; i < nlinks; i++)
		*links[i] = (int32_t *)block + i * each;
	memset(block, 0xff, nlinks * each * sizeof(int32_t)); /* -1 */
	t->depth = (uint32_t *)block + nlinks * each;
	for (size_t k = 0; k < each; k++)
		t->depth[k] = UNREACHED;
	return 0;
}

/* append @i to a sibling list whose ends are *@first, *@last */
static void append(struct mntkit_table *t, int32_t *first, int32_t *last,
		   size_t i)
{
	t->prev[i] = *last;
	if (*last >= 0)
		t->next[*last] = (int32_t)i;
	else
		*first = (int32_t)i;
	*last = (int32_t)i;
}

/*
 * The depth of every mount, walking each root's subtree in pre-order.
 * A mount no root leads to (on a cycle of parent links, or below one)
 * keeps UNREACHED.
 */
static void set_depths(struct mntkit_table *t)
{
	t->reached = 0;
	for (ssize_t r = t->first_root; r >= 0; r = t->next[r]) {
		size_t i = (size_t)r;
		uint32_t d = 0;

		for (;;) {
			t->depth[i] = d;
			t->reached++;
			if (t->first_child[i] >= 0) {
				i = (size_t)t->first_child[i];
				d++;
				continue;
			}
			while (i != (size_t)r && t->next[i] < 0) {
				i = (size_t)t->parent[i];
				d--;
			}
			if (i == (size_t)r)
				break;
			i = (size_t)t->next[i];
		}
	}
}

/* by ascending ID, so that every sibling list comes out sorted */
int mntkit__table_link(struct mntkit_table *t)
{
	int ret = alloc_links(t, t->n);
	uint64_t last_parent = 0;
	ssize_t last_p = -1;
	int have_last = 0;

	if (ret)
		return ret;
	t->first_root = t->last_root = -1;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t id = id_at(t, i), parent = parent_at(t, i);
		ssize_t p = -1;

		if (t->placed && t->placed[i])
			continue;
		if (parent != id && have_last && parent == last_parent) {
			p = last_p; /* a sibling of the mount before */
		} else if (parent != id) {
			int saved = errno;

			p = mntkit_table_find(t, parent);
			errno = saved;
			last_parent = parent;
			last_p = p;
			have_last = 1;
		}
		t->parent[i] = p < 0 ? -1 : (int32_t)p;
		if (p < 0)
			append(t, &t->first_root, &t->last_root, i);
		else
			append(t, &t->first_child[p], &t->last_child[p], i);
	}
	for (size_t i = 0; t->placed && i < t->n; i++)
		if (t->placed[i])
			append(t, &t->first_root, &t->last_root, i);
	set_depths(t);
	return 0;
}

/* ---- the snapshot ---- */

static int table_build(const struct mntkit_mnt_id_req *req, uint64_t start,
		       uint64_t mask, unsigned int flags,
		       struct mntkit_table **out)
{
	struct build b = {
		.req = req,
		.start = start,
		.mask = mask | MNTKIT_STATMOUNT_MNT_BASIC,
	};
	struct mntkit_table *t;
	int ret;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	b.t = t;
	t->compact = !!(flags & MNTKIT_TABLE_F_COMPACT);
	ret = mntkit__table_list(&b, &b.listed);
	if (ret)
		goto fail;
	ret = -ENOMEM;
	t->off = malloc((b.listed.n + 1) * sizeof(*t->off));
	if (!t->off)
		goto fail;
	mntkit__table_reserve(t, b.listed.n);
	ret = mntkit__table_fill(&b, b.listed.v, b.listed.n, t->off,
				 &t->n);
	if (!ret)
		ret = mntkit__table_settle(&b);
	if (!ret && (flags & MNTKIT_TABLE_F_OLD_ORDER))
		ret = mntkit__table_order_old(t);
	if (ret)
		goto fail;
	free(b.listed.v);
	*out = t;
	return 0;
fail:
	free(b.listed.v);
	mntkit_table_free(t);
	return ret;
}

int mntkit__table_build(const struct mntkit_mnt_id_req *req, uint64_t start,
			uint64_t mask, struct mntkit_table **out)
{
	return table_build(req, start, mask, 0, out);
}

/* the caller's root, in its own namespace or in the one of @req */
int mntkit__reachable_root(const struct mntkit_mnt_id_req *req, uint64_t *id)
{
	struct mntkit_table *t;
	ssize_t root;
	int ret;

	if (!mntkit__req_foreign(req))
		return mntkit__ops()->path_id(AT_FDCWD, "/", 0, id);
	/* another namespace: the top of its LSMT_ROOT listing */
	ret = mntkit__table_build(req, MNTKIT_LSMT_ROOT,
				  MNTKIT_STATMOUNT_MNT_BASIC, &t);
	if (ret)
		return ret;
	root = mntkit_table_first_root(t);
	if (root >= 0)
		*id = id_at(t, (size_t)root);
	mntkit_table_free(t);
	return root >= 0 ? 0 : -ENOENT;
}

int mntkit_table_new(uint64_t mask, unsigned int flags,
		     const struct mntkit_opts *opts, struct mntkit_table **out)
{
	MNTKIT__PIN();
	struct mntkit_mnt_id_req req;
	uint64_t start = MNTKIT_LSMT_ROOT;
	int fd, ret;

	const unsigned int known = MNTKIT_TABLE_F_UNREACHABLE |
				   MNTKIT_TABLE_F_COMPACT | MNTKIT_TABLE_F_OLD_ORDER;

	if (!out)
		return MNTKIT__MISUSE(EINVAL, "a NULL out pointer");
	*out = NULL;
	if (flags & ~known)
		return MNTKIT__MISUSE(EINVAL, "unknown flags %#x", flags & ~known);
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	if (flags & MNTKIT_TABLE_F_UNREACHABLE) {
		ret = mntkit__reachable_root(&req, &start);
		if (!ret)
			ret = mntkit__true_root(&req, &start);
	}
	if (!ret)
		ret = table_build(&req, start, mask,
				  flags & ~MNTKIT_TABLE_F_UNREACHABLE, out);
	if (fd >= 0)
		close(fd);
	return ret ? mntkit__fail(-ret) : 0;
}

/* ---- a table of records given (tab.c) ---- */

int mntkit__table_from_records(struct mntkit_statmount *const *recs, size_t n,
			       ssize_t first_root, struct mntkit__tab *x,
			       struct mntkit_table **out)
{
	struct mntkit_table *t = calloc(1, sizeof(*t));
	int ret = -ENOMEM;

	*out = NULL;
	if (!t) {
		mntkit__tab_free(x);
		return ret;
	}
	t->tab = x;
	t->off = malloc((n + 1) * sizeof(*t->off));
	if (!t->off)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		ret = mntkit__table_put(t, recs[i]->mnt_id, recs[i],
					&t->off[i]);
		if (ret)
			goto fail;
		t->n++;
	}
	ret = mntkit__table_link(t);
	if (ret)
		goto fail;
	/* the root of the tree first, the other roots after it */
	if (first_root >= 0 && (size_t)first_root < n &&
	    t->parent[first_root] < 0 && t->first_root != first_root) {
		ssize_t r = first_root;

		t->next[t->prev[r]] = t->next[r];
		if (t->next[r] >= 0)
			t->prev[t->next[r]] = t->prev[r];
		else
			t->last_root = t->prev[r];
		t->prev[r] = -1;
		t->next[r] = t->first_root;
		t->prev[t->first_root] = r;
		t->first_root = r;
	}
	*out = t;
	return 0;
fail:
	mntkit_table_free(t);
	return ret;
}
