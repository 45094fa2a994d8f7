// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's rows to print: the printed forest, list and tree order, the
 * submounts of -R (-U's drops: uniq.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <unistd.h>

#include "cli.h"
#include "lsmnt.h"

/* ---- the rows to print ---- */

static ssize_t forest_add(struct forest *fo, const struct mntkit_table *t,
			  size_t idx, ssize_t parent)
{
	struct row *node;
	int32_t *first, *last;

	if (fo->n >= INT32_MAX)
		return -ENOMEM;
	if (mntkit__vec_room(fo, 1, 256))
		return -ENOMEM;
	node = &fo->v[fo->n];
	memset(node, 0, sizeof(*node));
	node->t = t;
	node->idx = idx;
	node->first_child = node->last_child = node->next = -1;
	first = parent < 0 ? &fo->first_root : &fo->v[parent].first_child;
	last = parent < 0 ? &fo->last_root : &fo->v[parent].last_child;
	if (*last >= 0)
		fo->v[*last].next = (int32_t)fo->n;
	else
		*first = (int32_t)fo->n;
	*last = (int32_t)fo->n;
	return (ssize_t)fo->n++;
}

/*
 * The rows: the forest's nodes in pre-order, with their depth and whether
 * they are the last of their siblings, walked iteratively (a chain may be
 * deep). The nodes were added in pre-order (every walk that adds them
 * goes depth first), so the rows are the nodes themselves, taken over
 * from @fo; a walk that finds another order copies them in its order.
 */
int forest_rows(struct forest *fo, struct row **rows, size_t *n)
{
	ssize_t *up = NULL, cur = fo->first_root;
	size_t upcap = 0, depth = 0, k = 0;
	struct row *r = NULL;

	*rows = NULL;
	*n = 0;
	if (!fo->n)
		return 0;
	while (cur >= 0) {
		struct row *node = &fo->v[cur];

		node->depth = (unsigned int)depth;
		node->last = node->next < 0;
		if (!fo->lean && !node->sm)
			node->sm = mntkit_table_get(node->t, node->idx);
		if (!r && (size_t)cur != k) {
			/* not in pre-order: the rows become copies */
			r = malloc(fo->n * sizeof(*r));
			if (!r) {
				free(up);
				return -ENOMEM;
			}
			memcpy(r, fo->v, k * sizeof(*r));
		}
		if (r)
			r[k] = *node;
		k++;
		if (node->first_child >= 0) {
			if (mntkit__reserve(&up, &upcap, depth + 1,
					    sizeof(*up), 64)) {
				free(up);
				free(r);
				return -ENOMEM;
			}
			up[depth++] = cur;
			cur = node->first_child;
			continue;
		}
		while (fo->v[cur].next < 0 && depth)
			cur = up[--depth];
		cur = fo->v[cur].next;
	}
	free(up);
	if (!r) {
		r = fo->v; /* taken over */
		fo->v = NULL;
		fo->n = fo->cap = 0;
	}
	*rows = r;
	*n = k;
	return 0;
}

static const struct mount_key *kids_keys; /* for the comparison */

static int cmp_old_id(const void *a, const void *b)
{
	const struct mount_key *x = &kids_keys[*(const uint32_t *)a];
	const struct mount_key *y = &kids_keys[*(const uint32_t *)b];

	if (x->old != y->old)
		return x->old < y->old ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The keys of every mount of @t (of -U or a file's table, never compact:
 * each record is the table's own); NULL: no memory
 */
static struct mount_key *kid_keys(const struct mntkit_table *t, size_t n)
{
	struct mount_key *keys = malloc((n ? n : 1) * sizeof(*keys));

	for (size_t i = 0; keys && i < n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);

		if (!sm) {
			free(keys);
			return NULL;
		}
		keys[i].id = sm->mnt_id;
		keys[i].parent = sm->mnt_parent_id;
		keys[i].old = sm->mnt_id_old;
	}
	return keys;
}

static void kids_free(struct kids *k)
{
	free(k->start);
	free(k->v);
	k->start = NULL;
	k->v = NULL;
}

/* the parent of @i in the tree findmnt walks (-1: a root, -2: dropped) */
static ssize_t tree_parent(const struct mntkit_table *t, const struct uniq *u,
			   size_t i)
{
	ssize_t p;

	if (!u) {
		p = mntkit_table_parent(t, i);
		return p < 0 ? -1 : p;
	}
	return u->gone[i] ? -2 : u->parent[i];
}

/*
 * The children of each of @n mounts whose parents are @par (an index, or
 * below 0 for none) in @k, in index order, into its arrays: n + 2 starts
 * and n children
 */
static void kids_link(struct kids *k, const int32_t *par, size_t n)
{
	memset(k->start, 0, (n + 2) * sizeof(*k->start));
	/* counted two ahead, summed, then each placed one ahead */
	for (size_t i = 0; i < n; i++)
		if (par[i] >= 0)
			k->start[par[i] + 2]++;
	for (size_t i = 2; i < n + 2; i++)
		k->start[i] += k->start[i - 1];
	for (size_t i = 0; i < n; i++)
		if (par[i] >= 0)
			k->v[k->start[par[i] + 1]++] = (uint32_t)i;
}

/* each mount's children by (old ID, ID), sorted where out of order */
static void kids_order(struct kids *k, size_t n, const struct mount_key *keys)
{
	kids_keys = keys;
	for (size_t i = 0; i < n; i++) {
		uint32_t *v = k->v + k->start[i];
		size_t m = k->start[i + 1] - k->start[i];

		for (size_t j = 1; j < m; j++) {
			if (cmp_old_id(&v[j - 1], &v[j]) > 0) {
				qsort(v, m, sizeof(*v), cmp_old_id);
				break;
			}
		}
	}
}

static int kids_build(const struct mntkit_table *t, const struct uniq *u,
		      struct kids *k)
{
	size_t n = mntkit_table_count(t);
	int32_t *par = malloc((n ? n : 1) * sizeof(*par));
	struct mount_key *keys = kid_keys(t, n);
	int r = -ENOMEM;

	if (n < INT32_MAX) {
		k->start = malloc((n + 2) * sizeof(*k->start));
		k->v = malloc((n ? n : 1) * sizeof(*k->v));
	}
	if (par && keys && k->start && k->v) {
		for (size_t i = 0; i < n; i++)
			par[i] = (int32_t)tree_parent(t, u, i);
		kids_link(k, par, n);
		kids_order(k, n, keys);
		r = 0;
	} else {
		kids_free(k);
	}
	free(par);
	free(keys);
	return r;
}

/*
 * the children in findmnt's order: the table's links or the kids (-U or
 * a file's table, whose snapshots are never compact: see cl->lean)
 */
static bool own_kids(const struct build *b)
{
	return b->u || !b->linked;
}

static int walk_kids(struct build *b, const struct mntkit_table *t)
{
	return own_kids(b) ? kids_build(t, b->u, &b->k) : 0;
}

/* the next child of frame @f's mount, -1 after the last */
static ssize_t next_kid(struct build *b, const struct mntkit_table *t,
			size_t f)
{
	ssize_t c = b->cur[f];

	if (!own_kids(b)) {
		if (c >= 0) {
			ssize_t s = mntkit_table_next_sibling(t, (size_t)c);

			b->cur[f] = s < 0 ? -1 : s;
		}
		return c;
	}
	if ((size_t)c == b->k.start[b->node[f] + 1])
		return -1;
	b->cur[f]++;
	return (ssize_t)b->k.v[c];
}

static int frame(struct build *b, const struct mntkit_table *t, size_t sp,
		 size_t node, ssize_t anc)
{
	if (sp >= b->cap) {
		/* three arrays side by side, sized by the first */
		size_t cap = b->cap;

		if (mntkit__grow(&b->node, &cap, sp + 1, sizeof(*b->node), 64) ||
		    mntkit__resize(&b->cur, cap, sizeof(*b->cur)) ||
		    mntkit__resize(&b->anc, cap, sizeof(*b->anc)))
			return -ENOMEM;
		b->cap = cap;
	}
	b->node[sp] = node;
	if (own_kids(b)) {
		b->cur[sp] = (ssize_t)b->k.start[node];
	} else {
		ssize_t c = mntkit_table_first_child(t, node);

		b->cur[sp] = c < 0 ? -1 : c;
	}
	b->anc[sp] = anc;
	return 0;
}

/* what a row of mount @i of @t has besides its record: TID, -U's moves */
static int row_extra(const struct build *b, const struct mntkit_table *t,
		     size_t i, struct row *r)
{
	r->tid = b->tid;
	if (b->u && b->u->moved_from[i] >= 0) {
		/* libmount gives it the topmost dropped mount's parent */
		const struct mntkit_statmount *from =
			mntkit_table_get(t, (size_t)b->u->moved_from[i]);

		if (!from)
			return -ENOMEM;
		r->moved = true;
		r->parent_old = from->mnt_parent_id_old;
		r->parent_uniq = from->mnt_parent_id;
	}
	return 0;
}

/* add mount @i of @t under the node @parent, with what -U changed */
static ssize_t add_node(struct build *b, const struct mntkit_table *t, size_t i,
			ssize_t parent)
{
	ssize_t me = forest_add(b->fo, t, i, parent);

	if (me >= 0 && row_extra(b, t, i, &b->fo->v[me]) < 0)
		return -ENOMEM;
	return me;
}

/*
 * -Q on mount @i of @t, whose record is @sm: 1 it is printed, 0 not,
 * QUERY_FAILED (told) or -ENOMEM
 */
static int query_pass(struct build *b, const struct mntkit_table *t, size_t i,
		      const struct mntkit_statmount *sm)
{
	struct row r = {.sm = sm, .t = t, .idx = i};

	if (!b->m->q)
		return 1;
	if (row_extra(b, t, i, &r) < 0)
		return -ENOMEM;
	return query_match(b->m->q, &r);
}

/*
 * The record of mount @i for a filter: the table's, or of a compact
 * snapshot a copy in b->smbuf (until the next call); NULL: no memory
 */
static const struct mntkit_statmount *
filter_rec(struct build *b, const struct mntkit_table *t, size_t i)
{
	if (!b->lean)
		return mntkit_table_get(t, i);
	if (mntkit_table_get_buf(t, i, &b->smbuf, &b->smsize) < 0)
		return NULL;
	return b->smbuf;
}

/* visit @i under the printed node @above: its printed node (or @above) */
/*
 * The row of mount @i, which the filters keep (its record @sm, NULL with
 * b->every), under row @above: its new row, @above when -Q drops it
 * (findmnt: its children go to the row above), or an error
 */
static ssize_t place_row(struct build *b, const struct mntkit_table *t,
			 size_t i, const struct mntkit_statmount *sm,
			 ssize_t above)
{
	int r;

	if (b->every)
		return add_node(b, t, i, above);
	r = query_pass(b, t, i, sm);
	if (r <= 0)
		return r < 0 ? r : above;
	return add_node(b, t, i, above);
}

static ssize_t visit_filtered(struct build *b, const struct mntkit_table *t,
			      size_t i, ssize_t above)
{
	const struct mntkit_statmount *sm = NULL;

	if (!b->every) {
		sm = filter_rec(b, t, i);
		if (!sm)
			return -ENOMEM;
		if (!matches(b->m, sm))
			return above;
	}
	return place_row(b, t, i, sm, above);
}

/*
 * The roots of the tree, in table order; with -U the mounts left without
 * a parent by the drops (libmount prints them as further trees).
 */
static ssize_t next_root(const struct build *b, const struct mntkit_table *t,
			 ssize_t prev)
{
	size_t n = mntkit_table_count(t);

	if (!b->u)
		return prev < 0 ? mntkit_table_first_root(t)
				: mntkit_table_next_sibling(t, (size_t)prev);
	for (size_t i = (size_t)(prev + 1); i < n; i++)
		if (tree_parent(t, b->u, i) == -1)
			return (ssize_t)i;
	return -1;
}

/* the list order of the list and of -R, -d backward reversed */
static size_t nth(const struct build *b, size_t n, size_t k)
{
	size_t j = b->backward ? n - 1 - k : k;

	return b->order ? b->order[j] : j;
}

/*
 * The list order of @t (-l, -f, -D, -R): findmnt's is mountinfo's, the
 * kernel's listing order. A snapshot is in ID order, which is that order
 * but on the mountinfo backend, whose hidden mounts are named by their old
 * IDs (mntkit_list_order()). Table indices, or NULL for the table's order.
 */
size_t *list_order(const struct cmdline *cl,
		   const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t), *order = NULL;
	const struct mntkit_opts *opts = cl->ns;
	MNTKIT_OPTS(o);
	struct mntkit_opts cheap;
	struct mntkit_statmount *buf = NULL;
	size_t size = 0;
	uint64_t *ids;

	if (mntkit_get_backend() != MNTKIT_BACKEND_MOUNTINFO || !n ||
	    cl->ntabfiles)
		return NULL; /* a file's table is in file order */
	if (cl->all_ns) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, 0);

		if (!(sm->mask & MNTKIT_STATMOUNT_MNT_NS_ID))
			return NULL;
		o.mnt_ns_id = sm->mnt_ns_id;
		opts = &o;
	}
	ids = malloc(n * sizeof(*ids));
	if (ids)
		order = malloc(n * sizeof(*order));
	/* copies: no reply kept of a compact snapshot */
	for (size_t i = 0; order && i < n; i++) {
		if (mntkit_table_get_buf(t, i, &buf, &size) < 0) {
			free(order);
			order = NULL;
			break;
		}
		ids[i] = buf->mnt_id;
	}
	free(buf);
	if (order && mntkit_list_order(ids, n, query_opts(cl, opts, &cheap)) < 0) {
		free(order);
		order = NULL;
	}
	for (size_t k = 0; order && k < n; k++) {
		ssize_t i = mntkit_table_find(t, ids[k]);

		if (i < 0) { /* cannot be: the IDs are the table's */
			free(order);
			order = NULL;
			break;
		}
		order[k] = (size_t)i;
	}
	free(ids);
	return order;
}

/*
 * The root libmount's mnt_table_get_root_fs() picks: the first mount in
 * list order (@pos: each mount's place in it) whose parent ID is the
 * lowest of the whole table, then up by the parent relation to a root.
 * With -U, of the table mnt_table_uniq_fs() left: the mounts that stay,
 * each with the parent ID it was moved to (the one of the topmost
 * dropped mount it was under), and their parent relation. Its index,
 * -ENOENT without a mount, or -ENOMEM.
 */
static ssize_t libmount_root(struct build *b, const struct mntkit_table *t,
			     const size_t *pos)
{
	size_t total = mntkit_table_count(t), best = 0, bestpos = SIZE_MAX;
	uint32_t low = UINT32_MAX;
	ssize_t up;

	for (size_t i = 0; i < total; i++) {
		const struct mntkit_statmount *sm;
		size_t from = i; /* whose parent ID is @i's */

		if (b->u && b->u->gone[i])
			continue;
		if (b->u && b->u->moved_from[i] >= 0)
			from = (size_t)b->u->moved_from[i];
		sm = filter_rec(b, t, from);
		if (!sm)
			return -ENOMEM;
		if (sm->mnt_parent_id_old < low ||
		    (sm->mnt_parent_id_old == low && pos[i] < bestpos)) {
			low = sm->mnt_parent_id_old;
			best = i;
			bestpos = pos[i];
		}
	}
	if (bestpos == SIZE_MAX)
		return -ENOENT;
	/* a table's parent relation has no cycles: at most @total steps */
	for (size_t steps = 0; steps < total; steps++) {
		up = tree_parent(t, b->u, best);
		if (up < 0)
			break;
		best = (size_t)up;
	}
	return (ssize_t)best;
}

/*
 * Where findmnt's tree starts: the one root, or of several libmount's
 * (libmount_root()). *@order is the list order when it was needed to tell
 * (list_order(), NULL for the table's). Its index, -ENOENT without a
 * root, or -ENOMEM.
 */
static ssize_t tree_start(struct build *b, const struct mntkit_table *t,
			  size_t **order)
{
	size_t total = mntkit_table_count(t), *pos;
	ssize_t first = next_root(b, t, -1), top;

	*order = NULL;
	if (first < 0 || next_root(b, t, first) < 0)
		return first < 0 ? -ENOENT : first;
	pos = malloc(total * sizeof(*pos));
	if (!pos)
		return -ENOMEM;
	*order = list_order(b->cl, t);
	for (size_t j = 0; j < total; j++)
		pos[*order ? (*order)[j] : j] = j;
	top = libmount_root(b, t, pos);
	free(pos);
	return top;
}

/* b->done in the tree: how far a mount is in it */
enum {
	WALK_NOT = 0, /* not walked yet */
	WALK_BARE,    /* walked, no row in its subtree (itself included) */
	WALK_ROWS,    /* walked, a row in its subtree */
};

/*
 * The tree below mount @top, whose row is @me (-1: none, its children
 * hang at the top), pre-order, without recursion (a stack of mounts can
 * be deep): a matching mount hangs under its nearest matching ancestor
 * (findmnt's tree with -t, -O, ...). As findmnt 2.42 walks it: a child
 * with a row already, or with one below it, ends the whole walk (what it
 * did not reach is left to build_tree()'s list walk); a child walked
 * before with no row below it is passed over (findmnt walks it again, to
 * the same effect).
 */
static int tree_walk(struct build *b, const struct mntkit_table *t,
		     size_t top, ssize_t me)
{
	size_t sp = 1;
	int r = 0;

	b->done[top] = me >= 0 ? WALK_ROWS : WALK_BARE;
	if (frame(b, t, 0, top, me) < 0)
		return -ENOMEM;
	while (sp && !r) {
		size_t f = sp - 1;
		ssize_t c = next_kid(b, t, f);

		if (c < 0) {
			if (f && b->done[b->node[f]] == WALK_ROWS)
				b->done[b->node[f - 1]] = WALK_ROWS;
			sp--;
			continue;
		}
		if (b->done[c] == WALK_BARE)
			continue;
		if (b->done[c] == WALK_ROWS) {
			while (sp)
				b->done[b->node[--sp]] = WALK_ROWS;
			break;
		}
		me = visit_filtered(b, t, (size_t)c, b->anc[f]);
		if (me < -1)
			r = (int)me;
		else if (frame(b, t, sp++, (size_t)c, me) < 0)
			r = -ENOMEM;
		else
			b->done[c] = me != b->anc[f] ? WALK_ROWS : WALK_BARE;
	}
	return r;
}

/*
 * findmnt's tree: libmount's root with everything below it, then, in list
 * order (forward, whatever -d says), each matching mount not walked yet,
 * with what is below it (tree_walk()): a further root, or a child listed
 * before its parent when that parent is outside the first tree (a
 * chroot's table, moved mounts, -U's drops). A mount walked before with no
 * row adds nothing when findmnt starts a tree at it again.
 */
int build_tree(struct build *b, const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t), *order = NULL, left = n;
	ssize_t top;
	int r;

	b->done = calloc(n ? n : 1, 1);
	r = b->done ? walk_kids(b, t) : -ENOMEM;
	top = r ? -ENOENT : tree_start(b, t, &order);
	if (top >= 0) {
		ssize_t me = visit_filtered(b, t, (size_t)top, -1);

		r = me < -1 ? (int)me : tree_walk(b, t, (size_t)top, me);
	} else if (top != -ENOENT) {
		r = (int)top;
	}
	if (!r && !order) {
		left = 0; /* the list order is needed only for a mount left */
		for (size_t i = 0; i < n; i++)
			left += b->done[i] == WALK_NOT && !(b->u && b->u->gone[i]);
		if (left)
			order = list_order(b->cl, t);
	}
	for (size_t k = 0; !r && left && k < n; k++) {
		size_t i = order ? order[k] : k;
		const struct mntkit_statmount *sm = NULL;
		ssize_t me;

		if (b->done[i] != WALK_NOT || (b->u && b->u->gone[i]))
			continue;
		if (!b->every) {
			sm = filter_rec(b, t, i);
			if (!sm) {
				r = -ENOMEM;
				break;
			}
			if (!matches(b->m, sm))
				continue;
		}
		/* one -Q drops starts a tree too, of its children (findmnt) */
		me = place_row(b, t, i, sm, -1);
		r = me < -1 ? (int)me : tree_walk(b, t, i, me);
	}
	free(order);
	kids_free(&b->k);
	free(b->done);
	b->done = NULL;
	return r;
}

/*
 * The matching mounts in table (ID) order, flat. -f stops at the first
 * that -Q keeps but with a source only (findmnt's mount(8)-like lookup),
 * where the first match is the one (findmnt 2.42 looks it up again and
 * again when -Q drops it, forever).
 */
int build_list(struct build *b, const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t);

	for (size_t k = 0; k < n; k++) {
		size_t i = nth(b, n, k);
		const struct mntkit_statmount *sm = NULL;
		int r;

		if (b->u && b->u->gone[i])
			continue;
		if (!b->all || b->m->q) {
			sm = filter_rec(b, t, i);
			if (!sm)
				return -ENOMEM;
		}
		if (!b->all && !matches(b->m, sm))
			continue;
		b->fo->matched++;
		r = query_pass(b, t, i, sm);
		if (r < 0)
			return r;
		if (!r && b->m->f->source_only)
			break;
		if (!r)
			continue;
		if (add_node(b, t, i, -1) < 0)
			return -ENOMEM;
		if (b->first)
			break;
	}
	return 0;
}

/*
 * -R: each matching mount not printed yet, in table order, with all the
 * mounts below it (those printed already are left out with their
 * subtrees, as findmnt does).
 */
static int add_one(struct build *b, const struct mntkit_table *t, size_t i,
		   ssize_t parent)
{
	const struct mntkit_statmount *sm = NULL;
	ssize_t me;
	int r = 1;

	if (b->m->q) {
		sm = filter_rec(b, t, i);
		r = sm ? query_pass(b, t, i, sm) : -ENOMEM;
	}
	if (r < 0)
		return r;
	b->done[i] = 1;
	if (!r) {
		/* -Q drops it: its children hang under its parent's row */
		b->node_of[i] = parent;
		return 0;
	}
	me = add_node(b, t, i, b->tree ? parent : -1);
	if (me < 0)
		return (int)me;
	b->node_of[i] = me;
	return 0;
}

static int add_subtree(struct build *b, const struct mntkit_table *t,
		       size_t top)
{
	size_t sp = 1;
	int r = add_one(b, t, top, -1);

	if (!r)
		r = frame(b, t, 0, top, b->node_of[top]);
	while (sp && !r) {
		size_t f = sp - 1;
		ssize_t c = next_kid(b, t, f);

		if (c < 0) {
			sp--;
			continue;
		}
		if (b->done[c])
			continue; /* printed already, with its subtree */
		r = add_one(b, t, (size_t)c, b->node_of[b->node[f]]);
		if (!r)
			r = frame(b, t, sp++, (size_t)c, b->node_of[c]);
	}
	return r;
}

int build_submounts(struct build *b, const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t);
	int r = 0;

	b->done = calloc(n ? n : 1, 1);
	b->node_of = malloc((n ? n : 1) * sizeof(*b->node_of));
	if (!b->done || !b->node_of)
		r = -ENOMEM;
	if (!r)
		r = walk_kids(b, t);
	for (size_t k = 0; k < n && !r; k++) {
		size_t i = nth(b, n, k);

		const struct mntkit_statmount *sm;

		if (b->done[i] || (b->u && b->u->gone[i]))
			continue;
		sm = filter_rec(b, t, i);
		if (!sm) {
			r = -ENOMEM;
			break;
		}
		if (!matches(b->m, sm))
			continue;
		b->fo->matched++;
		r = add_subtree(b, t, i);
		if (b->first)
			break;
	}
	kids_free(&b->k);
	free(b->done);
	free(b->node_of);
	b->done = NULL;
	b->node_of = NULL;
	return r;
}

/* the index of mount @id among @n keys in ID order, -1 when none */
static ssize_t key_find(const struct mount_key *keys, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (keys[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && keys[lo].id == id ? (ssize_t)lo : -1;
}

/* the walk of tree_shape(): per depth a mount, where its next child is */
struct walk {
	uint32_t *node, *at;
	size_t cap;
};

static int walk_push(struct walk *w, size_t sp, uint32_t node, uint32_t at)
{
	if (sp >= w->cap) {
		/* two arrays side by side, sized by the first */
		size_t cap = w->cap;

		if (mntkit__grow(&w->node, &cap, sp + 1, sizeof(*w->node), 64) ||
		    mntkit__resize(&w->at, cap, sizeof(*w->at)))
			return -ENOMEM;
		w->cap = cap;
	}
	w->node[sp] = node;
	w->at[sp] = at;
	return 0;
}

int tree_shape(const struct mount_key *keys, size_t n, uint32_t *work,
	       struct tree_pos *order)
{
	int32_t *par = (int32_t *)work, root = -1;
	struct kids k = {.start = work + n, .v = work + 2 * n + 2};
	struct walk w = {0};
	size_t sp = 0, done = 0;
	ssize_t p = -1;

	if (n >= 1U << 30)
		return -EAGAIN; /* deeper than a tree_pos says */
	for (size_t i = 0; i < n; i++) {
		if (i && keys[i - 1].id >= keys[i].id)
			return -EAGAIN; /* not in ID order, or twice */
		/* siblings mostly come together */
		if (!i || keys[i].parent != keys[i - 1].parent)
			p = key_find(keys, n, keys[i].parent);
		par[i] = p == (ssize_t)i ? -1 : (int32_t)p;
		if (par[i] >= 0)
			continue;
		if (root >= 0)
			return -EAGAIN; /* a second root */
		root = (int32_t)i;
	}
	if (root < 0)
		return -EAGAIN;
	kids_link(&k, par, n);
	kids_order(&k, n, keys);
	if (walk_push(&w, sp++, (uint32_t)root, k.start[root]) < 0)
		return -ENOMEM;
	order[done++] = (struct tree_pos){
		.row = (uint32_t)root,
		.last = true,
		.kids = k.start[root + 1] != k.start[root],
	};
	while (sp) {
		uint32_t m = w.node[sp - 1], c;

		if (w.at[sp - 1] == k.start[m + 1]) {
			sp--;
			continue;
		}
		c = k.v[w.at[sp - 1]++];
		order[done++] = (struct tree_pos){
			.row = c,
			.depth = (uint32_t)sp,
			.last = w.at[sp - 1] == k.start[m + 1],
			.kids = k.start[c + 1] != k.start[c],
		};
		if (walk_push(&w, sp++, c, k.start[c]) < 0)
			break;
	}
	free(w.node);
	free(w.at);
	if (sp)
		return -ENOMEM;
	return done == n ? 0 : -EAGAIN; /* else a cycle no walk reaches */
}

/* ---- a row's record ---- */

const struct row *row_get(const struct row *r, struct row_rec *rr)
{
	if (r->sm)
		return r;
	if (mntkit_table_get_buf(r->t, r->idx, &rr->buf, &rr->size) < 0)
		return NULL;
	rr->row = *r;
	rr->row.sm = rr->buf;
	return &rr->row;
}

void row_rec_free(struct row_rec *rr)
{
	free(rr->buf);
	rr->buf = NULL;
	rr->size = 0;
}
