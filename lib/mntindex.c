// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The mount ID index: sorted arrays and binary search (O(log n) lookups,
 * O(n log n) to build), the mount tree as a children array, and pre-order
 * intervals for O(1) "is below" tests.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mountinfo.h"

/* qsort has no context argument: sort (key, index) pairs instead */
struct pair {
	uint64_t key;
	uint32_t idx;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* sort @n keys into @out (entry indices); -EBADMSG on a repeated key */
static int sort_keys(struct pair *p, size_t n, uint32_t *out)
{
	qsort(p, n, sizeof(*p), cmp_pair);
	for (size_t i = 0; i < n; i++) {
		if (i && p[i].key == p[i - 1].key)
			return -EBADMSG;
		out[i] = p[i].idx;
	}
	return 0;
}

static ssize_t bsearch_key(const uint32_t *order, size_t n,
			   uint64_t (*get)(const struct mntkit_mindex *,
					   uint32_t),
			   const struct mntkit_mindex *ix, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = get(ix, order[mid]);

		if (k == key)
			return order[mid];
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static uint64_t get_key(const struct mntkit_mindex *ix, uint32_t i)
{
	return ix->key[i];
}

static int build_tree(struct mntkit_mindex *ix, const struct mntkit_mi *v)
{
	size_t n = ix->n, sp = 0, num = 0;
	uint32_t *stack, *cursor;

	/* parents by old ID */
	for (size_t i = 0; i < n; i++) {
		ssize_t p = mntkit__mindex_find_old(ix, v[i].parent);

		ix->parent[i] = (p < 0 || (size_t)p == i) ? -1 : (int32_t)p;
	}
	/* children, by ascending key: walk the entries in key order */
	memset(ix->first, 0, (n + 1) * sizeof(*ix->first));
	for (size_t i = 0; i < n; i++)
		if (ix->parent[i] >= 0)
			ix->first[ix->parent[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		ix->first[i + 1] += ix->first[i];
	cursor = malloc((n + 1) * sizeof(*cursor));
	stack = malloc((n + 1) * sizeof(*stack));
	if (!cursor || !stack) {
		free(cursor);
		free(stack);
		return -ENOMEM;
	}
	memcpy(cursor, ix->first, n * sizeof(*cursor));
	for (size_t k = 0; k < n; k++) {
		uint32_t i = ix->by_key[k];

		if (ix->parent[i] >= 0)
			ix->kids[cursor[ix->parent[i]]++] = i;
	}
	/* pre-order numbers from every root; what stays unnumbered is in a
	 * cycle of parent links */
	for (size_t i = 0; i < n; i++)
		ix->pre[i] = UINT32_MAX;
	/* iterative DFS; cursor[i] walks i's children */
	memcpy(cursor, ix->first, n * sizeof(*cursor));
	for (size_t k = 0; k < n; k++) {
		uint32_t r = ix->by_key[k];

		if (ix->parent[r] >= 0)
			continue;
		stack[sp++] = r;
		ix->pre[r] = (uint32_t)num++;
		while (sp) {
			uint32_t i = stack[sp - 1];

			if (cursor[i] < ix->first[i + 1]) {
				uint32_t c = ix->kids[cursor[i]++];

				ix->pre[c] = (uint32_t)num++;
				stack[sp++] = c;
			} else {
				ix->last[i] = (uint32_t)num - 1;
				sp--;
			}
		}
	}
	free(cursor);
	free(stack);
	return num == n ? 0 : -EBADMSG;
}

int mntkit__mindex_build(struct mntkit_mindex *ix, const struct mntkit_mi *v,
			 size_t n, const uint64_t *key)
{
	struct pair *p = NULL;
	int ret = -ENOMEM;

	memset(ix, 0, sizeof(*ix));
	if (n >= UINT32_MAX / 2)
		return -EFBIG;
	ix->n = n;
	ix->key = malloc((n + 1) * sizeof(*ix->key));
	ix->by_key = malloc((n + 1) * sizeof(*ix->by_key));
	ix->by_old = malloc((n + 1) * sizeof(*ix->by_old));
	ix->parent = malloc((n + 1) * sizeof(*ix->parent));
	ix->first = malloc((n + 2) * sizeof(*ix->first));
	ix->kids = malloc((n + 1) * sizeof(*ix->kids));
	ix->pre = malloc((n + 1) * sizeof(*ix->pre));
	ix->last = malloc((n + 1) * sizeof(*ix->last));
	p = malloc((n + 1) * sizeof(*p));
	if (!ix->key || !ix->by_key || !ix->by_old || !ix->parent ||
	    !ix->first || !ix->kids || !ix->pre || !ix->last || !p)
		goto out;
	if (n)
		memcpy(ix->key, key, n * sizeof(*key));

	for (size_t i = 0; i < n; i++)
		p[i] = (struct pair){ v[i].id, (uint32_t)i };
	ret = sort_keys(p, n, ix->by_old);
	if (ret)
		goto out;
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pair){ key[i], (uint32_t)i };
	ret = sort_keys(p, n, ix->by_key);
	if (ret)
		goto out;
	free(p);
	p = NULL;
	ix->old = malloc((n + 1) * sizeof(*ix->old));
	if (!ix->old) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		ix->old[i] = v[i].id;
	ret = build_tree(ix, v);
out:
	free(p);
	if (ret)
		mntkit__mindex_free(ix);
	return ret;
}

void mntkit__mindex_free(struct mntkit_mindex *ix)
{
	free(ix->key);
	free(ix->by_key);
	free(ix->by_old);
	free(ix->old);
	free(ix->parent);
	free(ix->first);
	free(ix->kids);
	free(ix->pre);
	free(ix->last);
	memset(ix, 0, sizeof(*ix));
}

ssize_t mntkit__mindex_find(const struct mntkit_mindex *ix, uint64_t key)
{
	return bsearch_key(ix->by_key, ix->n, get_key, ix, key);
}

static uint64_t get_old(const struct mntkit_mindex *ix, uint32_t i)
{
	return ix->old[i];
}

ssize_t mntkit__mindex_find_old(const struct mntkit_mindex *ix, uint64_t old)
{
	return bsearch_key(ix->by_old, ix->n, get_old, ix, old);
}

size_t mntkit__mindex_after(const struct mntkit_mindex *ix, uint64_t key)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->key[ix->by_key[mid]] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t mntkit__mindex_before(const struct mntkit_mindex *ix, uint64_t key)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->key[ix->by_key[mid]] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
