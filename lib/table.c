// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Snapshots: every mount of a (sub)tree as a statmount reply, ordered by ID,
 * with an index by ID and the tree as parent / first-child / next-sibling
 * links. One listing and one statmount per mount; the tree is linked in
 * O(n log n) (the ID lookups) and walked in O(n) without recursion.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct mntkit_table {
	size_t n;
	char *arena;     /* the replies, 8-byte aligned, back to back */
	size_t *off;     /* offset of reply i in the arena */
	ssize_t *parent; /* -1 for a root */
	ssize_t *first_child, *last_child;
	ssize_t *next, *prev; /* siblings; the roots are siblings too */
	size_t *depth;
	ssize_t first_root, last_root;
};

void mntkit_table_free(struct mntkit_table *t)
{
	if (!t)
		return;
	free(t->arena);
	free(t->off);
	free(t->parent);
	free(t->first_child);
	free(t->last_child);
	free(t->next);
	free(t->prev);
	free(t->depth);
	free(t);
}

size_t mntkit_table_count(const struct mntkit_table *t)
{
	return t ? t->n : 0;
}

const struct mntkit_statmount *mntkit_table_get(const struct mntkit_table *t,
						size_t idx)
{
	if (!t || idx >= t->n)
		return NULL;
	return (const struct mntkit_statmount *)(t->arena + t->off[idx]);
}

static uint64_t id_at(const struct mntkit_table *t, size_t idx)
{
	return mntkit_table_get(t, idx)->mnt_id;
}

ssize_t mntkit_table_find(const struct mntkit_table *t, uint64_t mnt_id)
{
	size_t lo = 0, hi = t ? t->n : 0;

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

static ssize_t link_at(const struct mntkit_table *t, const ssize_t *links,
		       size_t idx)
{
	return t && idx < t->n ? links[idx] : -1;
}

ssize_t mntkit_table_parent(const struct mntkit_table *t, size_t idx)
{
	return t ? link_at(t, t->parent, idx) : -1;
}

ssize_t mntkit_table_first_child(const struct mntkit_table *t, size_t idx)
{
	return t ? link_at(t, t->first_child, idx) : -1;
}

ssize_t mntkit_table_next_sibling(const struct mntkit_table *t, size_t idx)
{
	return t ? link_at(t, t->next, idx) : -1;
}

ssize_t mntkit_table_first_root(const struct mntkit_table *t)
{
	return t ? t->first_root : -1;
}

ssize_t mntkit__table_last_root(const struct mntkit_table *t)
{
	return t->last_root;
}

ssize_t mntkit__table_sibling(const struct mntkit_table *t, size_t idx,
			      int reverse)
{
	return link_at(t, reverse ? t->prev : t->next, idx);
}

size_t mntkit_table_depth(const struct mntkit_table *t, size_t idx)
{
	return t && idx < t->n ? t->depth[idx] : 0;
}

/* ---- building ---- */

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* append one reply to the arena (growing it by doubling) */
static int arena_add(struct mntkit_table *t, size_t *cap, size_t *used,
		     const struct mntkit_statmount *sm)
{
	size_t size = sm->size < MNTKIT_STATMOUNT_FIXED_SIZE ?
			      MNTKIT_STATMOUNT_FIXED_SIZE :
			      sm->size;
	size_t need = (size + 7) & ~(size_t)7;
	char *na;

	if (*cap - *used < need) {
		size_t ncap = *cap ? *cap : 64 * 1024;

		while (ncap - *used < need)
			ncap *= 2;
		na = realloc(t->arena, ncap);
		if (!na)
			return -ENOMEM;
		t->arena = na;
		*cap = ncap;
	}
	memcpy(t->arena + *used, sm, sm->size < size ? sm->size : size);
	if (sm->size < size) /* a truncated fixed part reads as zeros */
		memset(t->arena + *used + sm->size, 0, size - sm->size);
	t->off[t->n++] = *used;
	*used += need;
	return 0;
}

/*
 * A backend may leave MNT_BASIC out (the emulation does for a mountinfo
 * line it cannot read fully). The table still holds the mount under the
 * ID it was listed by, as a root of its own: its mask keeps saying that
 * the group's fields are not the backend's.
 */
static void keep_listed_id(struct mntkit_table *t, uint64_t id)
{
	struct mntkit_statmount *sm =
		(struct mntkit_statmount *)(t->arena + t->off[t->n - 1]);

	if (!(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC)) {
		sm->mnt_id = id;
		sm->mnt_parent_id = id;
	}
}

struct fill_ctx {
	struct mntkit_table *t;
	size_t cap, used;
	uint64_t last; /* the last ID added (IDs come sorted, maybe twice) */
};

static int fill_one(void *ctx, uint64_t id, const struct mntkit_statmount *sm)
{
	struct fill_ctx *c = ctx;
	int ret;

	if (c->t->n && id == c->last)
		return 0;
	ret = arena_add(c->t, &c->cap, &c->used, sm);
	if (!ret) {
		keep_listed_id(c->t, id);
		c->last = id;
	}
	return ret;
}

/*
 * statmount every listed ID (sorted); the ones gone since the listing are
 * skipped. A backend that can answer for all of them at once does.
 */
static int fill(struct mntkit_table *t, const struct mntkit_mnt_id_req *req,
		const uint64_t *ids, size_t n, uint64_t mask)
{
	const struct mntkit_backend_ops *ops = mntkit__ops();
	struct mntkit_statmount *buf = NULL;
	size_t bufsize = 0, cap = 0, used = 0;
	int ret = 0;

	if (ops->stat_many) {
		struct fill_ctx c = { .t = t };
		struct mntkit_mnt_id_req r = *req;

		r.param = mask;
		return ops->stat_many(&r, ids, n, mask, fill_one, &c);
	}
	for (size_t i = 0; i < n && !ret; i++) {
		if (i && ids[i] == ids[i - 1])
			continue;
		ret = mntkit__stat_into(req, ids[i], mask, &buf, &bufsize);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (!ret)
			ret = arena_add(t, &cap, &used, buf);
		if (!ret)
			keep_listed_id(t, ids[i]);
	}
	free(buf);
	return ret;
}

static int alloc_links(struct mntkit_table *t, size_t n)
{
	ssize_t **links[] = { &t->parent, &t->first_child, &t->last_child,
			      &t->next, &t->prev };

	for (size_t i = 0; i < MNTKIT_ARRAY_SIZE(links); i++) {
		*links[i] = malloc((n + 1) * sizeof(ssize_t));
		if (!*links[i])
			return -ENOMEM;
		for (size_t k = 0; k <= n; k++)
			(*links[i])[k] = -1;
	}
	t->depth = calloc(n + 1, sizeof(*t->depth));
	return t->depth ? 0 : -ENOMEM;
}

/* append @i to a sibling list whose ends are *@first, *@last */
static void append(struct mntkit_table *t, ssize_t *first, ssize_t *last,
		   size_t i)
{
	t->prev[i] = *last;
	if (*last >= 0)
		t->next[*last] = (ssize_t)i;
	else
		*first = (ssize_t)i;
	*last = (ssize_t)i;
}

/* the depth of every mount, walking each root's subtree in pre-order */
static void set_depths(struct mntkit_table *t)
{
	for (ssize_t r = t->first_root; r >= 0; r = t->next[r]) {
		size_t i = (size_t)r, d = 0;

		for (;;) {
			t->depth[i] = d;
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

static int link_tree(struct mntkit_table *t)
{
	int ret = alloc_links(t, t->n);

	if (ret)
		return ret;
	t->first_root = t->last_root = -1;
	/* in ascending ID order, so every sibling list comes out sorted */
	for (size_t i = 0; i < t->n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);
		ssize_t p = -1;

		if (sm->mnt_parent_id != sm->mnt_id) {
			int saved = errno;

			p = mntkit_table_find(t, sm->mnt_parent_id);
			errno = saved;
		}
		t->parent[i] = p < 0 ? -1 : p;
		if (p < 0)
			append(t, &t->first_root, &t->last_root, i);
		else
			append(t, &t->first_child[p], &t->last_child[p], i);
	}
	set_depths(t);
	return 0;
}

int mntkit__table_build(const struct mntkit_mnt_id_req *req, uint64_t start,
			uint64_t mask, struct mntkit_table **out)
{
	struct mntkit_idvec iv = { 0 };
	struct mntkit_table *t;
	int ret;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	ret = mntkit__list_flat(req, start, 0, &iv);
	/* a start ID is not listed by the kernel: it joins its subtree */
	if (!ret && start != MNTKIT_LSMT_ROOT) {
		ret = mntkit__idvec_reserve(&iv, 1);
		if (!ret)
			iv.v[iv.n++] = start;
	}
	if (ret)
		goto fail;
	qsort(iv.v, iv.n, sizeof(*iv.v), cmp_id);
	ret = -ENOMEM;
	t->off = malloc((iv.n + 1) * sizeof(*t->off));
	if (!t->off)
		goto fail;
	ret = fill(t, req, iv.v, iv.n, mask | MNTKIT_STATMOUNT_MNT_BASIC);
	if (!ret)
		ret = link_tree(t);
	if (ret)
		goto fail;
	free(iv.v);
	*out = t;
	return 0;
fail:
	free(iv.v);
	mntkit_table_free(t);
	return ret;
}

int mntkit_table_new(const struct mntkit_opts *opts, uint64_t mask,
		     unsigned int flags, struct mntkit_table **out)
{
	struct mntkit_mnt_id_req req;
	uint64_t start = MNTKIT_LSMT_ROOT;
	int fd, ret;

	if (!out)
		return mntkit__fail(EFAULT);
	*out = NULL;
	if (flags & ~MNTKIT_TABLE_UNREACHABLE)
		return mntkit__fail(EINVAL);
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	if (flags & MNTKIT_TABLE_UNREACHABLE) {
		ret = mntkit_root_id(opts, 1, &start);
		ret = ret < 0 ? -errno : 0;
	}
	if (!ret)
		ret = mntkit__table_build(&req, start, mask, out);
	if (fd >= 0)
		close(fd);
	return ret ? mntkit__fail(-ret) : 0;
}

/* ---- walks for mntkit_list() ---- */

size_t mntkit__table_children(const struct mntkit_table *t, size_t idx,
			      int reverse, uint64_t *out)
{
	ssize_t c = reverse ? t->last_child[idx] : t->first_child[idx];
	size_t n = 0;

	for (; c >= 0; c = reverse ? t->prev[c] : t->next[c])
		out[n++] = id_at(t, (size_t)c);
	return n;
}

size_t mntkit__table_walk(const struct mntkit_table *t, size_t idx,
			  int reverse, int self, uint64_t *out)
{
	const ssize_t *down = reverse ? t->last_child : t->first_child;
	const ssize_t *side = reverse ? t->prev : t->next;
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
