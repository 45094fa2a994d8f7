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

/* an LSD radix sort, a pass per byte in which the keys differ */
struct mntkit_mi_pair *mntkit__pairs_sort(struct mntkit_mi_pair *p,
					  struct mntkit_mi_pair *tmp, size_t n)
{
	uint64_t diff = 0;

	for (size_t i = 1; i < n; i++)
		diff |= p[i].key ^ p[0].key;
	for (unsigned int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, sum = 0;
		struct mntkit_mi_pair *swap;

		if (!((diff >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			count[(p[i].key >> shift) & 0xff]++;
		for (size_t d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(p[i].key >> shift) & 0xff]++] = p[i];
		swap = p;
		p = tmp;
		tmp = swap;
	}
	return p;
}

/*
 * The entries by ascending @key (n keys, one per entry) into @out. Keys in
 * entry order already (mountinfo mostly is) cost one pass, others a radix
 * sort. -EBADMSG on a repeated key, -ENOMEM. (@key is not const because
 * gcc's -Wmaybe-uninitialized would take it for unwritten at n = 0.)
 */
static int sort_keys(uint64_t *key, size_t n, uint32_t *out)
{
	struct mntkit_mi_pair *p, *sorted;
	size_t i;

	for (i = 0; i + 1 < n && key[i] < key[i + 1]; i++)
		;
	if (i + 1 >= n) {
		for (i = 0; i < n; i++)
			out[i] = (uint32_t)i;
		return 0;
	}
	p = malloc(2 * n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		p[i] = (struct mntkit_mi_pair){ key[i], (uint32_t)i };
	sorted = mntkit__pairs_sort(p, p + n, n);
	for (i = 0; i < n; i++) {
		if (i && sorted[i].key == sorted[i - 1].key)
			break;
		out[i] = sorted[i].idx;
	}
	free(p);
	return i < n ? -EBADMSG : 0;
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
	size_t n = ix->n, num = 0;
	uint32_t *cursor = ix->last; /* until last[] is written */
	ssize_t p = -1;

	/* parents by old ID (siblings are often listed one after another:
	 * one lookup for the run) */
	for (size_t i = 0; i < n; i++) {
		if (!i || v[i].parent != v[i - 1].parent)
			p = i && v[i].parent == v[i - 1].id ?
				    (ssize_t)i - 1 :
				    mntkit__mindex_find_old(ix, v[i].parent);
		ix->parent[i] = (p < 0 || (size_t)p == i) ? -1 : (int32_t)p;
	}
	/* children, by ascending key: walk the entries in key order */
	memset(ix->first, 0, (n + 1) * sizeof(*ix->first));
	for (size_t i = 0; i < n; i++)
		if (ix->parent[i] >= 0)
			ix->first[ix->parent[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		ix->first[i + 1] += ix->first[i];
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
	/*
	 * Iterative DFS, up through the parent links: cursor[i] (last[i])
	 * walks i's children, then takes i's last number when they are done.
	 */
	memcpy(cursor, ix->first, n * sizeof(*cursor));
	for (size_t k = 0; k < n; k++) {
		uint32_t r = ix->by_key[k], i = r;

		if (ix->parent[r] >= 0)
			continue;
		ix->pre[r] = (uint32_t)num++;
		for (;;) {
			if (cursor[i] < ix->first[i + 1]) {
				i = ix->kids[cursor[i]++];
				ix->pre[i] = (uint32_t)num++;
				continue;
			}
			ix->last[i] = (uint32_t)num - 1;
			if (i == r)
				break;
			i = (uint32_t)ix->parent[i];
		}
	}
	return num == n ? 0 : -EBADMSG;
}

int mntkit__mindex_build(struct mntkit_mindex *ix, const struct mntkit_mi *v,
			 size_t n, const uint64_t *key)
{
	int ret = -ENOMEM;

	memset(ix, 0, sizeof(*ix));
	if (n >= UINT32_MAX / 2)
		return -EFBIG;
	ix->n = n;
	ix->old = malloc((n + 1) * sizeof(*ix->old));
	ix->by_old = malloc((n + 1) * sizeof(*ix->by_old));
	if (key) {
		ix->key = malloc((n + 1) * sizeof(*ix->key));
		ix->by_key = malloc((n + 1) * sizeof(*ix->by_key));
	} else {
		ix->key = ix->old;
		ix->by_key = ix->by_old;
	}
	ix->parent = malloc((n + 1) * sizeof(*ix->parent));
	ix->first = malloc((n + 2) * sizeof(*ix->first));
	ix->kids = malloc((n + 1) * sizeof(*ix->kids));
	ix->pre = malloc((n + 1) * sizeof(*ix->pre));
	ix->last = malloc((n + 1) * sizeof(*ix->last));
	if (!ix->key || !ix->by_key || !ix->by_old || !ix->parent ||
	    !ix->first || !ix->kids || !ix->pre || !ix->last || !ix->old)
		goto out;
	for (size_t i = 0; i < n; i++)
		ix->old[i] = v[i].id;
	ret = sort_keys(ix->old, n, ix->by_old);
	if (ret)
		goto out;
	if (key) {
		if (n)
			memcpy(ix->key, key, n * sizeof(*key));
		ret = sort_keys(ix->key, n, ix->by_key);
		if (ret)
			goto out;
	}
	ret = build_tree(ix, v);
out:
	if (ret)
		mntkit__mindex_free(ix);
	return ret;
}

void mntkit__mindex_free(struct mntkit_mindex *ix)
{
	if (ix->key != ix->old)
		free(ix->key);
	if (ix->by_key != ix->by_old)
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
