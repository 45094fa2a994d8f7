// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch-view.c - a watch's view (what it has told the caller: one record
 * per mount ID) and the queue of the events that changed it, each queued
 * in the step that changes the view; the diff of the view against a
 * snapshot. The records are shared (mntkit__srec_new(), counted owners):
 * the view's record of a mount is its last event's, and a live table's
 * (live.c) without a copy.
 */
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "watch.h"

/* ---- the queue of events, each owning its records ---- */

static int q_reserve(struct mntkit__watch_queue *q, size_t more)
{
	if (q->head && q->head == q->n)
		q->head = q->n = 0;
	return mntkit__vec_room(q, more, 64);
}

/* room was reserved; the event takes @before and @after */
static void q_push(struct mntkit__watch_queue *q, enum mntkit_event_kind kind,
		   uint32_t changed, uint32_t flags, uint64_t id,
		   struct mntkit_statmount *before,
		   struct mntkit_statmount *after)
{
	struct mntkit__qev *e = &q->v[q->n++];

	e->ev = (struct mntkit_event){
		.size = sizeof(struct mntkit_event),
		.kind = kind,
		.changed = changed,
		.flags = flags,
		.mnt_id = id,
		.before = before,
		.after = after,
		.seq = ++q->seq,
		.realtime_ns = (uint64_t)mntkit__clock_ns(CLOCK_REALTIME),
		.monotonic_ns = (uint64_t)mntkit__clock_ns(CLOCK_MONOTONIC),
	};
	e->own[0] = before;
	e->own[1] = after;
}

void mntkit__watch_qev_free(struct mntkit__qev *e)
{
	mntkit__srec_put(e->own[0]);
	mntkit__srec_put(e->own[1]);
	memset(e, 0, sizeof(*e));
}

void mntkit__watch_q_free(struct mntkit__watch_queue *q)
{
	for (size_t i = q->head; i < q->n; i++)
		mntkit__watch_qev_free(&q->v[i]);
	mntkit__watch_qev_free(&q->cur);
	free(q->v);
	memset(q, 0, sizeof(*q));
}

/* ---- the view ---- */

void mntkit__view_init(struct mntkit__watch_view *v)
{
	*v = (struct mntkit__watch_view){
		.recs = MNTKIT__MAP_INIT(struct mntkit__view_rec),
		.kids = MNTKIT__MAP_INIT(uint32_t),
	};
}

void mntkit__view_free(struct mntkit__watch_view *v)
{
	struct mntkit__view_rec *r;
	size_t pos = 0;
	uint64_t id;

	while ((r = mntkit__map_next(&v->recs, &pos, &id)))
		mntkit__srec_put(r->sm);
	mntkit__map_free(&v->recs);
	mntkit__map_free(&v->kids);
}

/* take mount @id (present) out of the view: its record */
static struct mntkit_statmount *view_take(struct mntkit__watch_view *v,
					  uint64_t id)
{
	struct mntkit__view_rec *r = mntkit__map_get(&v->recs, id);
	struct mntkit_statmount *sm = r->sm;

	mntkit__map_del(&v->recs, id);
	return sm;
}

/*
 * The children each mount has in the view: a move of a mount without
 * children hides nothing below it, and needs no listmount (which walks
 * the namespace's whole mount tree in the kernel). Increments need room
 * reserved (mntkit__map_reserve(kids, 1)); decrements never fail.
 */
static void kids_note(struct mntkit__map *kids,
		      const struct mntkit_statmount *sm, bool add)
{
	uint32_t *n;
	uint64_t p;

	if (!sm || !(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC))
		return;
	p = sm->mnt_parent_id;
	if (!p || p == sm->mnt_id)
		return;
	n = mntkit__map_get(kids, p);
	if (add && n)
		(*n)++;
	else if (add)
		*(uint32_t *)mntkit__map_put(kids, p, NULL) = 1;
	else if (n && !--*n)
		mntkit__map_del(kids, p);
}

uint32_t mntkit__view_kids(const struct mntkit_watch *w, uint64_t id)
{
	const uint32_t *n = mntkit__map_get(&w->view.kids, id);

	return n ? *n : 0;
}

/*
 * A record enters (@add) or leaves the view: the children and the shared
 * mounts it counts for.
 */
static void view_note(struct mntkit_watch *w,
		      const struct mntkit_statmount *sm, bool add)
{
	kids_note(&w->view.kids, sm, add);
	if (sm && (sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) &&
	    sm->mnt_peer_group)
		w->view.shared += add ? 1 : (size_t)-1;
}

/* the record of a mount gone before it could be stat'ed: its ID only */
static struct mntkit_statmount *sm_stub(uint64_t id)
{
	union {
		struct mntkit_statmount sm;
		char fixed[MNTKIT_STATMOUNT_FIXED_SIZE];
	} stub;

	memset(&stub, 0, sizeof(stub));
	stub.sm.size = MNTKIT_STATMOUNT_FIXED_SIZE;
	stub.sm.mnt_id = id;
	return mntkit__srec_new(&stub.sm);
}

/*
 * Bring the view of one mount up to @sm (a fresh record): ATTACH if new,
 * DETACH + ATTACH if another mount now has its ID, MOVE or CHANGE, or
 * nothing. Returns the kind queued last (0: none) or -ENOMEM (nothing
 * changed then).
 */
int mntkit__view_refresh(struct mntkit_watch *w,
			 const struct mntkit_statmount *sm)
{
	struct mntkit_statmount *c1, *c2, *old;
	enum mntkit_event_kind kind = MNTKIT_EVENT_ATTACH;
	enum mntkit__same same = MNTKIT__SAME_MOUNT;
	struct mntkit__view_rec *r;
	uint32_t changed = 0;

	/* first: a rehash moves the slots */
	if (q_reserve(&w->q, 2) || mntkit__map_reserve(&w->view.recs, 1) ||
	    mntkit__map_reserve(&w->view.kids, 1))
		return -ENOMEM;
	r = mntkit__map_get(&w->view.recs, sm->mnt_id);
	/* the common case of a diff: an untouched mount, the same bytes */
	if (r && r->sm->size == sm->size && !memcmp(r->sm, sm, sm->size))
		return 0;
	if (r) {
		same = mntkit__sm_compare(r->sm, sm, &changed);
		kind = same == MNTKIT__OTHER_MOUNT ?
			       MNTKIT_EVENT_ATTACH :
			       mntkit__changed_kind(changed);
		if (!kind)
			return 0;
	}
	/* one record, the view's and the event's (a live table's too) */
	c1 = mntkit__srec_new(sm);
	if (!c1)
		return -ENOMEM;
	mntkit__srec_get(c1);
	c2 = c1;
	if (!r) {
		r = mntkit__map_put(&w->view.recs, sm->mnt_id, NULL);
		r->sm = c1;
		view_note(w, c1, true);
		q_push(&w->q, kind, 0, 0, sm->mnt_id, NULL, c2);
		return kind;
	}
	old = r->sm;
	r->sm = c1;
	view_note(w, old, false);
	view_note(w, c1, true);
	if (same == MNTKIT__OTHER_MOUNT) {
		q_push(&w->q, MNTKIT_EVENT_DETACH, 0, 0, sm->mnt_id, old, NULL);
		q_push(&w->q, MNTKIT_EVENT_ATTACH, 0, 0, sm->mnt_id, NULL, c2);
	} else {
		q_push(&w->q, kind, changed, 0, sm->mnt_id, old, c2);
	}
	return kind;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* queue DETACH for every mount of the view not marked with view.gen */
int mntkit__view_detach_unseen(struct mntkit_watch *w)
{
	uint64_t *gone = malloc((w->view.recs.n + 1) * sizeof(*gone));
	struct mntkit__view_rec *r;
	size_t n = 0, pos = 0;
	uint64_t id;

	if (!gone || q_reserve(&w->q, w->view.recs.n)) {
		free(gone);
		return -ENOMEM;
	}
	while ((r = mntkit__map_next(&w->view.recs, &pos, &id)))
		if (r->gen != w->view.gen)
			gone[n++] = id;
	qsort(gone, n, sizeof(*gone), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		struct mntkit_statmount *old = view_take(&w->view, gone[i]);

		view_note(w, old, false);
		q_push(&w->q, MNTKIT_EVENT_DETACH, 0, 0, gone[i], old, NULL);
	}
	free(gone);
	return 0;
}

/* queue DETACH for @id if the view has it; 1 if it did, -ENOMEM */
int mntkit__view_detach(struct mntkit_watch *w, uint64_t id)
{
	struct mntkit_statmount *old;

	if (!mntkit__view_holds(w, id))
		return 0;
	if (q_reserve(&w->q, 1))
		return -ENOMEM;
	old = view_take(&w->view, id);
	view_note(w, old, false);
	q_push(&w->q, MNTKIT_EVENT_DETACH, 0, 0, id, old, NULL);
	return 1;
}

/*
 * A mount fanotify named is gone: DETACH it, or ATTACH it as F_GONE (a
 * record of its ID only; its DETACH follows) if @mask says it was
 * attached. A resync is owed when memory fails.
 */
void mntkit__view_gone(struct mntkit_watch *w, uint64_t id, uint64_t mask)
{
	struct mntkit_statmount *c1, *c2;
	struct mntkit__view_rec *r;

	if (q_reserve(&w->q, 1) || mntkit__map_reserve(&w->view.recs, 1)) {
		w->need_resync = true;
		return;
	}
	if (mntkit__view_holds(w, id)) {
		c1 = view_take(&w->view, id);
		view_note(w, c1, false);
		q_push(&w->q, MNTKIT_EVENT_DETACH, 0, 0, id, c1, NULL);
		return;
	}
	if (!(mask & MNTKIT_FAN_MNT_ATTACH))
		return; /* never seen: detached before our first snapshot */
	c1 = sm_stub(id);
	if (!c1) {
		w->need_resync = true;
		return;
	}
	mntkit__srec_get(c1);
	c2 = c1;
	r = mntkit__map_put(&w->view.recs, id, NULL);
	r->sm = c1;
	q_push(&w->q, MNTKIT_EVENT_ATTACH, 0, MNTKIT_EVENT_F_GONE, id, NULL,
	       c2);
}

/* ---- the diff of the view against a snapshot ---- */

/*
 * Provisional IDs. With unique IDs, the emulation names a mount whose
 * mount point does not resolve to it by its old ID (emul-ids.c): one
 * unmounted while the table was read, or overmounted meanwhile. A table
 * record under old ID X, while the view has a mount of unique ID U and
 * old ID X that this table does not name, is that mount when nothing a
 * mount cannot change differs and it did not move (as in diff.c: under
 * an old ID, a move cannot be told from another mount in the old one's
 * place); its record is taken under U: it keeps its name, and the watch
 * reports no DETACH U + ATTACH X (+ DETACH X once it is really gone) for
 * a mount that did not change. @alias[i] gets U for such a record i; 0 if
 * none was found, -ENOMEM.
 */
static int find_aliases(struct mntkit_watch *w, const struct mntkit_table *t,
			uint64_t **alias)
{
	struct mntkit__map byold = MNTKIT__MAP_INIT(struct mntkit_statmount *);
	size_t n = mntkit_table_count(t), pos = 0;
	struct mntkit__view_rec *r;
	uint64_t id;
	int ret = 0;

	*alias = NULL;
	while ((r = mntkit__map_next(&w->view.recs, &pos, &id))) {
		if (r->gen == w->view.gen || id <= MNTKIT_MNT_UNIQUE_ID_OFFSET ||
		    !(r->sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) ||
		    !r->sm->mnt_id_old ||
		    mntkit__map_has(&byold, r->sm->mnt_id_old))
			continue;
		if (mntkit__map_reserve(&byold, 1)) {
			ret = -ENOMEM;
			goto out;
		}
		*(struct mntkit_statmount **)mntkit__map_put(
			&byold, r->sm->mnt_id_old, NULL) = r->sm;
	}
	if (!byold.n)
		goto out;
	*alias = calloc(n + 1, sizeof(**alias));
	if (!*alias) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);
		struct mntkit_statmount *c, **o;
		uint32_t changed;

		if (sm->mnt_id > MNTKIT_MNT_UNIQUE_ID_OFFSET ||
		    mntkit__view_holds(w, sm->mnt_id) ||
		    !(o = mntkit__map_get(&byold, sm->mnt_id)) || !*o)
			continue;
		c = mntkit__sm_dup(sm);
		if (!c) {
			ret = -ENOMEM;
			goto out;
		}
		c->mnt_id = (*o)->mnt_id;
		/* as under old IDs: a moved one may be another mount */
		if (mntkit__sm_compare(*o, c, &changed) == MNTKIT__SAME_MOUNT &&
		    !(changed &
		      (MNTKIT_CHANGED_PARENT | MNTKIT_CHANGED_MNT_POINT))) {
			(*alias)[i] = c->mnt_id;
			r = mntkit__map_get(&w->view.recs, c->mnt_id);
			r->gen = w->view.gen;
			*o = NULL; /* one table record per mount */
		}
		free(c);
	}
out:
	mntkit__map_free(&byold); /* the records are the view's */
	return ret;
}

/*
 * mntkit__view_refresh() with record @sm taken under ID @id, and naming
 * its parent @parent (each 0: as the record has it)
 */
static int refresh_as(struct mntkit_watch *w, const struct mntkit_statmount *sm,
		      uint64_t id, uint64_t parent)
{
	struct mntkit_statmount *c = mntkit__sm_dup(sm);
	int ret;

	if (!c)
		return -ENOMEM;
	if (id)
		c->mnt_id = id;
	if (parent)
		c->mnt_parent_id = parent;
	ret = mntkit__view_refresh(w, c);
	free(c);
	return ret;
}

/*
 * The alias of the parent of record @i of @t (0: none): a mount taken
 * under its view's name is its children's parent under that name too,
 * or they would name a mount the view does not hold.
 */
static uint64_t parent_alias(const struct mntkit_table *t,
			     const uint64_t *alias, size_t i)
{
	const struct mntkit_statmount *sm = mntkit_table_get(t, i);
	int saved = errno;
	ssize_t j;

	if (!(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) ||
	    sm->mnt_parent_id == sm->mnt_id)
		return 0;
	j = mntkit_table_find(t, sm->mnt_parent_id);
	errno = saved;
	return j >= 0 ? alias[j] : 0;
}

/* the diff of the view against snapshot @t */
static int apply_table(struct mntkit_watch *w, const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t), provisional = 0;
	uint64_t *alias = NULL;
	int ret = 0;

	w->view.gen++;
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);
		struct mntkit__view_rec *r =
			mntkit__map_get(&w->view.recs, sm->mnt_id);

		if (r)
			r->gen = w->view.gen;
		else if (sm->mnt_id <= MNTKIT_MNT_UNIQUE_ID_OFFSET)
			provisional++;
	}
	if (provisional)
		ret = find_aliases(w, t, &alias);
	if (!ret)
		ret = mntkit__view_detach_unseen(w);
	for (size_t i = 0; i < n && ret >= 0; i++) {
		uint64_t me = alias ? alias[i] : 0;
		uint64_t up = alias ? parent_alias(t, alias, i) : 0;

		ret = me || up ? refresh_as(w, mntkit_table_get(t, i), me, up) :
				 mntkit__view_refresh(w, mntkit_table_get(t, i));
	}
	free(alias);
	return ret < 0 ? ret : 0;
}

/* a snapshot for the view: on the emulation, of one read of mountinfo */
static int build_table(struct mntkit_watch *w, struct mntkit_table **t)
{
	int ret;

	mntkit__emul_snapshot(1);
	ret = mntkit__table_build(&w->req, MNTKIT_LSMT_ROOT, w->mask, t);
	mntkit__emul_snapshot(0);
	return ret;
}

/* diff a fresh snapshot against the view (with a RESYNC event first) */
int mntkit__watch_sync_table(struct mntkit_watch *w, bool resync)
{
	struct mntkit_table *t = NULL;
	int64_t t0 = mntkit__watch_cpu();
	struct mntkit__watch_lines l;
	size_t resync_at = SIZE_MAX;
	int ret;

	mntkit__watch_lines_read(w, &l);
	ret = build_table(w, &t);
	if (!ret && resync) {
		ret = q_reserve(&w->q, 1);
		if (!ret) {
			resync_at = w->q.n;
			q_push(&w->q, MNTKIT_EVENT_RESYNC, 0, 0, 0, NULL, NULL);
		}
	}
	if (!ret)
		ret = apply_table(w, t);
	/* the RESYNC names the events that replace what was lost */
	if (resync_at != SIZE_MAX)
		w->q.v[resync_at].ev.resync_end = w->q.seq;
	mntkit_table_free(t);
	mntkit__watch_lines_keep(w, &l, !ret);
	w->tm.rescan_cost = mntkit__watch_cpu() - t0;
	mntkit__watch_synced(w, ret, t0, resync ? "resync" : "whole");
	return ret;
}

/* the first snapshot becomes the view (and ATTACH events if asked) */
int mntkit__watch_first_view(struct mntkit_watch *w, unsigned int flags)
{
	struct mntkit_table *t;
	int64_t t0 = mntkit__watch_cpu();
	struct mntkit__watch_lines l;
	int ret;

	mntkit__watch_lines_read(w, &l);
	ret = build_table(w, &t);
	if (ret) {
		mntkit__watch_lines_free(&l);
		return ret;
	}
	w->tm.diff_cost = w->tm.rescan_cost = mntkit__watch_cpu() - t0;
	ret = apply_table(w, t);
	mntkit_table_free(t);
	mntkit__watch_lines_keep(w, &l, !ret);
	if (ret)
		return ret;
	if (!(flags & MNTKIT_WATCH_F_INITIAL)) {
		for (size_t i = w->q.head; i < w->q.n; i++)
			mntkit__watch_qev_free(&w->q.v[i]);
		w->q.head = w->q.n = 0;
		w->q.seq = 0; /* the first event read is 1 */
	}
	mntkit__watch_schedule_rescan(w, mntkit__watch_now());
	mntkit__watch_arm(w);
	return 0;
}
