// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's streamed listing: every mount, unfiltered, printed from its own
 * statmount reply as it comes, with no snapshot (run_stream()).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lsmnt.h"

/*
 * The stream: a flat listing of every mount in findmnt's order, each row
 * of one reply and nothing else (no filter, sort, tree, file, -m, -U, -N,
 * --ns, statvfs or libblkid column, TID), printed as raw, pairs or JSON
 * straight from the replies, STREAM_ROWS at a time: neither a snapshot
 * nor a row per mount is kept. A list (-l) needs every row for its
 * widths: it keeps their cells' text only (struct text_cells). On the
 * native backend only, whose listing order (by ID) is findmnt's; the
 * emulation's needs the whole table (list_order()).
 *
 * The whole tree, unfiltered (findmnt's default output and -J), streams
 * too: it keeps each row's cells and the IDs that place it, and prints
 * once they are all in, in the order of the tree they make
 * (tree_shape()). When they do not make one tree - a mount gone during
 * the listing, a second root, a cycle - nothing is printed yet, and the
 * snapshot's tree is printed instead.
 */
#define STREAM_ROWS 128

enum stream_kind streamable(const struct cmdline *cl,
			    const struct plan *p)
{
	const struct printer *pr = &cl->pr;

	if (pr->terminal || !cl->lean || cl->ntabfiles || cl->mtab ||
	    cl->uniq || cl->df || cl->all_ns || cl->ns || cl->unreachable ||
	    cl->backward || cl->f.first || has_col(cl, COL_TID) ||
	    query_needs_tid(cl->query) || !pr->ncols ||
	    mntkit_get_backend() != MNTKIT_BACKEND_NATIVE)
		return STREAM_NONE;
	for (size_t c = 0; c < pr->ncols; c++)
		if (lsmnt_cols[pr->cols[c]].flags & (CF_STATVFS | CF_WRAP))
			return STREAM_NONE;
	if (p->whole_tree && pr->tree && matches_every(&cl->f) &&
	    !cl->query && (pr->json || pr->mode == OUT_TREE))
		return STREAM_TREE;
	if (p->tree_mode || p->submounts || pr->tree || !list_all(&cl->f))
		return STREAM_NONE;
	if (pr->json || pr->mode == OUT_RAW || pr->mode == OUT_PAIRS ||
	    pr->mode == OUT_LIST)
		return STREAM_FLAT;
	return STREAM_NONE;
}

/* the replies of a part of the stream, one after another */
struct stream_part {
	struct row rows[STREAM_ROWS + 1];
	size_t off[STREAM_ROWS + 1];
	size_t n;
	char *arena;
	size_t len, cap;
};

#define STREAM_ALIGN 8U
/* room for a reply at the end of the arena: most fit in it */
#define STREAM_ROOM 4096U
/* no reply is larger (the kernel's strings are page-bounded) */
#define STREAM_ROOM_MAX (64U << 20)

/* the arena with at least @room bytes from @at */
static int stream_room(struct stream_part *sp, size_t at, size_t room)
{
	/* a part's replies: a 512-byte fixed part and their strings each */
	size_t first = (STREAM_ROWS + 1) * 1024U;

	if (sp->cap >= at + room)
		return 0;
	if (sp->arena)
		return mntkit__grow(&sp->arena, &sp->cap, at + room, 1, 0);
	/* the first: its pages present at once */
	if (first < at + room)
		first = at + room;
	sp->arena = big_alloc(first, true);
	if (!sp->arena)
		return -ENOMEM;
	sp->cap = first;
	return 0;
}

/*
 * The replies of as many of @ids[0..@n) as the part has rows left for,
 * written by the library where they stay: at the end of the arena
 * (mntkit_stat_many(): one system call a mount, nothing between them).
 * The number read, or the first ID's -errno (-ENOENT: gone since the
 * listing).
 */
static ssize_t stream_stat(struct stream_part *sp, const uint64_t *ids,
			   size_t n, uint64_t mask)
{
	size_t at = (sp->len + STREAM_ALIGN - 1) & ~(size_t)(STREAM_ALIGN - 1);
	size_t want = STREAM_ROWS + 1 - sp->n, room = STREAM_ROOM;
	ssize_t got;
	int r;

	if (want > n)
		want = n;
	for (;;) {
		r = stream_room(sp, at, room);
		if (r < 0)
			return r;
		got = mntkit_stat_many(ids, want, mask, 0, NULL,
				       sp->arena + at, sp->cap - at);
		if (got != -EOVERFLOW || room >= STREAM_ROOM_MAX)
			break;
		room = 2 * (sp->cap - at);
	}
	for (ssize_t k = 0; k < got; k++) {
		const struct mntkit_statmount *sm = (const void *)(sp->arena + at);

		sp->off[sp->n++] = at;
		at += mntkit_stat_span(sm);
	}
	if (got > 0)
		sp->len = at;
	return got;
}

/*
 * The streamed tree's memory, all in one block (struct tree_mem): per row
 * its key, where its cells begin and its tree cell's width, tree_shape()'s
 * work and the order; then, for the rest of the block, the cells' text
 * (lent to its outbuf: more of it moves out). Present at once, and from
 * TREE_HUGE on in 2 MiB huge pages: the block is a few of those, not
 * hundreds of 4 KiB pages at a fault each (big_alloc()). TREE_TEXT: what
 * a row's cells take, about, to begin with.
 */
#define TREE_HUGE (1U << 20)
#define TREE_TEXT 96U

struct tree_mem {
	char *block;
	size_t len, used;
	struct mount_key *keys;
	struct tree_pos *order;
	uint32_t *work;
};

/* @size bytes of @m, 16-aligned */
static void *tree_take(struct tree_mem *m, size_t size)
{
	size_t at = (m->used + 15) & ~(size_t)15;

	if (at > m->len || size > m->len - at)
		return NULL;
	m->used = at + size;
	return m->block + at;
}

static int tree_mem_new(struct tree_mem *m, struct text_cells *tc, size_t n,
			bool text)
{
	size_t per = sizeof(*m->keys) + sizeof(*tc->at) + sizeof(*tc->tw) +
		     sizeof(*m->order) + TREE_SHAPE_WORK(1) + TREE_TEXT;

	if (n > (SIZE_MAX - MNTKIT__HUGE) / 2 / per)
		return -ENOMEM;
	m->len = n * per + 256;
	if (m->len >= TREE_HUGE) /* whole huge runs */
		m->len = (m->len + MNTKIT__HUGE - 1) & ~(size_t)(MNTKIT__HUGE - 1);
	m->block = mntkit__big_alloc(m->len, TREE_HUGE, MNTKIT__BIG_PRESENT);
	if (!m->block)
		return -ENOMEM;
	m->keys = tree_take(m, n * sizeof(*m->keys));
	m->order = tree_take(m, n * sizeof(*m->order));
	m->work = tree_take(m, TREE_SHAPE_WORK(n));
	tc->at = tree_take(m, n * sizeof(*tc->at));
	if (text)
		tc->tw = tree_take(m, n * sizeof(*tc->tw));
	m->used = (m->used + 15) & ~(size_t)15;
	/* the rest: the cells' text */
	tc->text.data = m->block + m->used;
	tc->text.cap = m->len - m->used;
	tc->text.lent = true;
	return 0;
}

/*
 * -Q on the last @got replies of @sp: those it drops leave the part and
 * the arena (the others move down over them). 0 or QUERY_FAILED.
 */
static int stream_query(struct query *q, struct stream_part *sp, size_t got)
{
	size_t from = sp->n - got, keep = from, at = 0;

	if (from) { /* the end of the replies before */
		const struct mntkit_statmount *last =
			(const void *)(sp->arena + sp->off[from - 1]);

		at = sp->off[from - 1] + mntkit_stat_span(last);
	}
	for (size_t k = from; k < sp->n; k++) {
		const struct mntkit_statmount *sm =
			(const void *)(sp->arena + sp->off[k]);
		struct row r = {.sm = sm};
		size_t span = mntkit_stat_span(sm);
		int m = query_match(q, &r);

		if (m < 0)
			return m;
		if (!m)
			continue;
		at = (at + STREAM_ALIGN - 1) & ~(size_t)(STREAM_ALIGN - 1);
		if (at != sp->off[k])
			memmove(sp->arena + at, sp->arena + sp->off[k], span);
		sp->off[keep++] = at;
		at += span;
	}
	sp->n = keep;
	sp->len = at;
	return 0;
}

/* the row that waited goes first, alone */
static void stream_next(struct stream_part *sp)
{
	size_t at = sp->off[STREAM_ROWS];

	memmove(sp->arena, sp->arena + at, sp->len - at);
	sp->off[0] = 0;
	sp->len -= at;
	sp->n = 1;
}

/*
 * print the first @n rows of @sp, more to come when @more; or, for a
 * list or a tree, add them to @cells, and for a tree their IDs to @keys
 */
static int stream_print(struct printer *pr, struct stream_part *sp, size_t n,
			bool more, struct text_cells *cells,
			struct mount_key *keys, struct outbuf *ob)
{
	int r;

	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *rec =
			(const void *)(sp->arena + sp->off[i]);

		memset(&sp->rows[i], 0, sizeof(sp->rows[i]));
		sp->rows[i].sm = rec;
		if (keys)
			keys[cells->n + i] = (struct mount_key){
				.id = rec->mnt_id,
				.parent = rec->mnt_parent_id,
				.old = rec->mnt_id_old,
			};
	}
	if (cells)
		return text_cells_add(pr, cells, sp->rows, n);
	pr->more = more;
	r = print_rows(pr, sp->rows, n, ob);
	pr->cont = true;
	return r;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* @ids (sorted) each once; how many are left */
static ssize_t unique_ids(uint64_t *ids, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (!m || ids[i] != ids[m - 1])
			ids[m++] = ids[i];
	return (ssize_t)m;
}

/* what the output of @n rows needs at most at once: a chunk and a row */
static size_t stream_out_size(size_t n)
{
	return n < PRINT_CHUNK / 128 ? n * 256 + 4096 : 2 * PRINT_CHUNK;
}

/*
 * The last row of a full part waits for the next part, so that the last
 * row printed is known to be the last (JSON closes after it). 0, -1 (an
 * error, told), or 1: the tree was no tree, to be printed from a
 * snapshot.
 */
int run_stream(struct cmdline *cl, enum stream_kind kind)
{
	uint64_t mask = wanted_mask(cl) | MNTKIT_STATMOUNT_MNT_BASIC, *ids;
	struct stream_part *sp = calloc(1, sizeof(*sp));
	struct outbuf ob = OUTBUF_INIT;
	struct text_cells tcs = {.text = OUTBUF_INIT, .scratch = OUTBUF_INIT};
	bool tree = kind == STREAM_TREE;
	struct text_cells *cells =
		tree || (!cl->pr.json && cl->pr.mode == OUT_LIST) ? &tcs : NULL;
	struct tree_mem tm = {0};
	size_t shown = 0;
	ssize_t n;
	int r = 0;

	if (!sp) {
		cli_errmsg(NULL, "%s", cli_strerror(ENOMEM));
		return -1;
	}
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	if (n < 0) {
		query_failed(cl, (int)n);
		free(sp);
		return -1;
	}
	if (tree && tree_mem_new(&tm, &tcs, n ? (size_t)n : 1,
				 !cl->pr.json) < 0) {
		r = -ENOMEM;
		cli_errmsg(NULL, "%s", cli_strerror(ENOMEM));
		goto out;
	}
	/* the output's buffer: a chunk and a row, its pages present */
	ob.cap = stream_out_size((size_t)n);
	ob.data = big_alloc(ob.cap, true);
	if (!ob.data)
		ob.cap = 0;
	for (ssize_t i = 1; i < n; i++) {
		if (ids[i - 1] >= ids[i]) { /* the root may come first */
			qsort(ids, (size_t)n, sizeof(*ids), cmp_u64);
			n = unique_ids(ids, (size_t)n);
			break;
		}
	}
	for (size_t i = 0; i < (size_t)n && !r;) {
		ssize_t got = stream_stat(sp, ids + i, (size_t)n - i, mask);

		if (got == -ENOENT && tree) { /* its children may be left */
			r = 1;
			goto out;
		}
		if (got == -ENOENT) { /* gone since the listing */
			i++;
			continue;
		}
		if (got < 0) {
			r = (int)got;
			query_failed(cl, r);
			goto out;
		}
		i += (size_t)got;
		if (cl->query) {
			r = stream_query(cl->query, sp, (size_t)got);
			if (r < 0)
				goto out;
		}
		if (sp->n <= STREAM_ROWS)
			continue;
		r = stream_print(&cl->pr, sp, STREAM_ROWS, true, cells,
				 tm.keys, &ob);
		if (cells && !shown)
			text_reserve(&cells->text, STREAM_ROWS, (size_t)n);
		shown += STREAM_ROWS;
		stream_next(sp);
	}
	if (!r && sp->n) {
		r = stream_print(&cl->pr, sp, sp->n, false, cells, tm.keys,
				 &ob);
		shown += sp->n;
	}
	if (!r && !shown) {
		/* found nothing: exit 1, silently; or the empty tree */
		r = tree ? 1 : -ENOENT;
		goto out;
	}
	/* the replies' memory is done with */
	free(sp->arena);
	sp->arena = NULL;
	if (!r && tree) {
		r = tree_shape(tm.keys, shown, tm.work, tm.order);
		if (r == -EAGAIN) {
			r = 1;
			goto out;
		}
	}
	if (!r && cells)
		r = text_cells_print(&cl->pr, cells, NULL,
				     tree ? tm.order : NULL, &ob);
	if (!r)
		r = outbuf_flush(&ob, stdout);
	if (r < 0)
		cli_errmsg(r == -ENOMEM ? NULL : "write error", "%s",
			   cli_strerror(-r));
out:
	text_cells_free(&tcs);
	free(tm.block);
	free(ids);
	free(sp->arena);
	free(sp);
	outbuf_free(&ob);
	return r < 0 ? -1 : r;
}

