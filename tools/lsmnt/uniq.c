// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt -U: which mounts libmount's mnt_table_uniq_fs(MNT_UNIQ_KEEPTREE)
 * drops (all but the last of each mount point) and where their children
 * move (struct uniq, lsmnt.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lsmnt.h"

void uniq_free(struct uniq *u)
{
	free(u->gone);
	free(u->parent);
	free(u->moved_from);
	free(u->up);
	free(u->top);
	memset(u, 0, sizeof(*u));
}

static const struct mntkit_table *uniq_table; /* for the comparison */

static const char *point_of(const struct mntkit_table *t, size_t i)
{
	const struct mntkit_statmount *sm = mntkit_table_get(t, i);
	const char *point;

	if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &point) < 0)
		return NULL;
	return point;
}

static int cmp_target(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(point_of(uniq_table, x), point_of(uniq_table, y));

	return c ? c : x < y ? -1 : x > y;
}

/* which mounts go: sort by target, all but the last of each run */
static int uniq_mark(const struct mntkit_table *t, struct uniq *u, size_t n)
{
	size_t *v = malloc((n ? n : 1) * sizeof(*v)), k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (point_of(t, i))
			v[k++] = i; /* no target (unreachable): no duplicate */
	uniq_table = t;
	qsort(v, k, sizeof(*v), cmp_target);
	for (size_t j = 0; j + 1 < k; j++)
		if (!strcmp(point_of(t, v[j]), point_of(t, v[j + 1])))
			u->gone[v[j]] = 1;
	free(v);
	return 0;
}

/*
 * Where the chains of dropped mounts end: for a dropped @g, the nearest
 * mount above it that stays (up) and the topmost dropped one on the way
 * (top), each chain walked once: O(n) however deep the stacks are.
 */
static int uniq_chains(const struct mntkit_table *t, struct uniq *u, size_t n)
{
	ssize_t *stack = malloc((n ? n : 1) * sizeof(*stack));

	if (!stack)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		u->top[i] = -1;
	for (size_t g = 0; g < n; g++) {
		ssize_t p = (ssize_t)g, end, top = -1;
		size_t len = 0;

		if (!u->gone[g] || u->top[g] >= 0)
			continue;
		while (p >= 0 && u->gone[p] && u->top[p] == -1) {
			u->top[p] = -2; /* on this walk (guards a cycle) */
			stack[len++] = p;
			p = mntkit_table_parent(t, (size_t)p);
		}
		if (p >= 0 && u->gone[p] && u->top[p] >= 0) {
			end = u->up[p];
			top = u->top[p];
		} else {
			/* a root (-ENOENT), or a cycle's start: -1 */
			end = p >= 0 && !u->gone[p] ? p : -1;
		}
		while (len--) {
			if (top < 0)
				top = stack[len];
			u->up[stack[len]] = end;
			u->top[stack[len]] = top;
		}
	}
	free(stack);
	return 0;
}

int uniq_build(const struct mntkit_table *t, struct uniq *u)
{
	size_t n = mntkit_table_count(t), sz = n ? n : 1;
	int r;

	u->gone = calloc(sz, 1);
	u->parent = malloc(sz * sizeof(*u->parent));
	u->moved_from = malloc(sz * sizeof(*u->moved_from));
	u->up = malloc(sz * sizeof(*u->up));
	u->top = malloc(sz * sizeof(*u->top));
	if (!u->gone || !u->parent || !u->moved_from || !u->up || !u->top)
		r = -ENOMEM;
	else
		r = uniq_mark(t, u, n);
	if (!r)
		r = uniq_chains(t, u, n);
	for (size_t i = 0; !r && i < n; i++) {
		ssize_t p = mntkit_table_parent(t, i);

		if (p < 0) /* -ENOENT: a root */
			p = -1;
		u->moved_from[i] = -1;
		u->parent[i] = p;
		if (p >= 0 && u->gone[p]) {
			u->parent[i] = u->up[p];
			u->moved_from[i] = u->top[p];
		}
	}
	if (r)
		uniq_free(u);
	return r;
}
