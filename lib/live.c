// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * live.c - a live table (struct mntkit_live): a watch's events applied
 * to a table of shared records, one namespace's or one per namespace of
 * an all-namespace watch; its snapshots (tables of the same records,
 * table-shared.c) and its lookups. The state is the watch's view: the
 * watch's RESYNC diffs the view, so the events after it bring the state
 * to the kernel's table.
 */
#include <stdlib.h>
#include <string.h>

#include "watch.h"

/* the children of a mount: IDs, in no order */
struct kids {
	uint64_t *v;
	size_t n, cap;
};

/* a mount of the state: its record, its place among its parent's children */
struct lrec {
	const struct mntkit_statmount *sm;
	size_t at;
};

/* the state of one namespace */
struct live_ns {
	struct mntkit__map recs; /* mount ID -> struct lrec */
	struct mntkit__map kids; /* parent ID -> struct kids */
	struct mntkit_table *snap; /* the last snapshot, while unchanged */
};

struct mntkit_live {
	struct mntkit_watch *w;
	bool all;		/* an all-namespace watch: @nss */
	struct live_ns one;	/* else its one namespace */
	struct mntkit__map nss; /* namespace ID -> struct live_ns * */
	/* an event read but not applied (-ENOMEM), its records held: the
	 * next mntkit_live_process() applies it first */
	struct mntkit_event retry;
	bool has_retry;
	/* the records the events last returned point to */
	MNTKIT__VEC(const struct mntkit_statmount *) held;
	/* a snapshot's records, sorted (scratch) */
	MNTKIT__VEC(const struct mntkit_statmount *) sorted;
};

/* ---- one namespace's state ---- */

static void ns_init(struct live_ns *ns)
{
	*ns = (struct live_ns){
		.recs = MNTKIT__MAP_INIT(struct lrec),
		.kids = MNTKIT__MAP_INIT(struct kids),
	};
}

static void ns_clear(struct live_ns *ns)
{
	struct lrec *r;
	struct kids *k;
	size_t pos = 0;
	uint64_t id;

	while ((r = mntkit__map_next(&ns->recs, &pos, &id)))
		mntkit__srec_put(r->sm);
	pos = 0;
	while ((k = mntkit__map_next(&ns->kids, &pos, &id)))
		free(k->v);
	mntkit__map_free(&ns->recs);
	mntkit__map_free(&ns->kids);
	mntkit_table_free(ns->snap);
	ns->snap = NULL;
}

/* the parent a record links to (0: none) */
static uint64_t parent_of(const struct mntkit_statmount *sm)
{
	if (!(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) ||
	    sm->mnt_parent_id == sm->mnt_id)
		return 0;
	return sm->mnt_parent_id;
}

/* room to link one more child under @parent: 0 or -ENOMEM */
static int kids_room(struct live_ns *ns, uint64_t parent)
{
	struct kids *k;

	if (!parent)
		return 0;
	if (mntkit__map_reserve(&ns->kids, 1))
		return -ENOMEM;
	k = mntkit__map_put(&ns->kids, parent, NULL);
	return mntkit__vec_room(k, 1, 4);
}

/* link @id (its record @r) under @parent (room made by kids_room()) */
static void kids_add(struct live_ns *ns, uint64_t parent, uint64_t id,
		     struct lrec *r)
{
	struct kids *k;

	if (!parent)
		return;
	k = mntkit__map_get(&ns->kids, parent);
	r->at = k->n;
	k->v[k->n++] = id;
}

/* unlink the child at @at of @parent: the last one takes its place */
static void kids_del(struct live_ns *ns, uint64_t parent, size_t at)
{
	struct kids *k = parent ? mntkit__map_get(&ns->kids, parent) : NULL;
	struct lrec *moved;

	if (!k || at >= k->n)
		return;
	k->v[at] = k->v[--k->n];
	if (at < k->n) {
		moved = mntkit__map_get(&ns->recs, k->v[at]);
		if (moved)
			moved->at = at;
	}
	if (!k->n) {
		free(k->v);
		mntkit__map_del(&ns->kids, parent);
	}
}

/*
 * Mount @id's record becomes @sm (a new shared record; NULL: gone).
 * The record it replaces goes to *@old (the caller's reference). Room
 * for @sm's parent was made (kids_room()).
 */
static void ns_set(struct live_ns *ns, uint64_t id,
		   const struct mntkit_statmount *sm,
		   const struct mntkit_statmount **old)
{
	struct lrec *r = mntkit__map_get(&ns->recs, id);
	uint64_t old_parent = 0;
	size_t old_at = 0;

	*old = r ? r->sm : NULL;
	if (*old) {
		old_parent = parent_of(*old);
		old_at = r->at;
	}
	/* linked first: the unlink may free the parent's children */
	if (sm) {
		r = mntkit__map_put(&ns->recs, id, NULL);
		r->sm = sm;
		kids_add(ns, parent_of(sm), id, r);
	} else if (*old) {
		mntkit__map_del(&ns->recs, id);
	}
	if (*old)
		kids_del(ns, old_parent, old_at);
	if (*old || sm) {
		mntkit_table_free(ns->snap);
		ns->snap = NULL;
	}
}

/* ---- the events applied ---- */

static struct live_ns *ns_of(struct mntkit_live *l, uint64_t ns_id)
{
	struct live_ns **p;

	if (!l->all)
		return ns_id ? NULL : &l->one;
	p = mntkit__map_get(&l->nss, ns_id);
	return p ? *p : NULL;
}

static int ns_add(struct mntkit_live *l, uint64_t ns_id)
{
	struct live_ns *ns;

	if (ns_of(l, ns_id))
		return 0;
	if (mntkit__map_reserve(&l->nss, 1))
		return -ENOMEM;
	ns = malloc(sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	ns_init(ns);
	*(struct live_ns **)mntkit__map_put(&l->nss, ns_id, NULL) = ns;
	return 0;
}

static void ns_gone(struct mntkit_live *l, uint64_t ns_id)
{
	struct live_ns *ns = ns_of(l, ns_id);

	if (!ns)
		return;
	ns_clear(ns);
	free(ns);
	mntkit__map_del(&l->nss, ns_id);
}

/* keep a reference to @sm for the events returned (room made) */
static void hold(struct mntkit_live *l, const struct mntkit_statmount *sm,
		 bool ref)
{
	if (!sm)
		return;
	if (ref)
		mntkit__srec_get(sm);
	l->held.v[l->held.n++] = sm;
}

static void let_go_held(struct mntkit_live *l)
{
	for (size_t i = 0; i < l->held.n; i++)
		mntkit__srec_put(l->held.v[i]);
	l->held.n = 0;
}

/*
 * The event of a mount that is not in the table (reported gone before it
 * could be stat'ed): its records (the watch's), held for the caller.
 */
static void gone_only(struct mntkit_live *l, const struct mntkit_event *ev,
		      struct mntkit_event *ev_out)
{
	if (!ev_out)
		return;
	hold(l, ev->before, true);
	hold(l, ev->after, true);
	ev_out->before = ev->before;
	ev_out->after = ev->after;
}

/*
 * A mount's event applied: its record after (ATTACH, MOVE, CHANGE), or
 * none (DETACH). A mount reported gone before it could be stat'ed
 * (MNTKIT_EVENT_F_GONE) is not in the table: its DETACH follows. With
 * @ev_out, @ev_out's records become the live table's (held).
 */
static int apply_mount(struct mntkit_live *l, struct live_ns *ns,
		       const struct mntkit_event *ev,
		       struct mntkit_event *ev_out)
{
	const struct mntkit_statmount *sm = NULL, *old;
	bool put = ev->kind != MNTKIT_EVENT_DETACH &&
		   !(ev->flags & MNTKIT_EVENT_F_GONE) && ev->after;

	if (!put && !mntkit__map_has(&ns->recs, ev->mnt_id)) {
		gone_only(l, ev, ev_out);
		return 0;
	}
	if (put) {
		if (mntkit__map_reserve(&ns->recs, 1) ||
		    kids_room(ns, parent_of(ev->after)))
			return -ENOMEM;
		/* the watch's record (watch-view.c): one more owner */
		sm = ev->after;
		mntkit__srec_get(sm);
	}
	ns_set(ns, ev->mnt_id, sm, &old);
	if (!ev_out) {
		mntkit__srec_put(old);
		return 0;
	}
	hold(l, old, false);
	hold(l, sm, true);
	ev_out->before = ev->before ? old : NULL;
	ev_out->after = sm;
	return 0;
}

static int apply(struct mntkit_live *l, const struct mntkit_event *ev,
		 struct mntkit_event *ev_out)
{
	struct live_ns *ns;

	switch (ev->kind) {
	case MNTKIT_EVENT_NS_ADD:
		return l->all ? ns_add(l, ev->mnt_ns_id) : 0;
	case MNTKIT_EVENT_NS_GONE:
		if (l->all)
			ns_gone(l, ev->mnt_ns_id);
		return 0;
	case MNTKIT_EVENT_ATTACH:
	case MNTKIT_EVENT_DETACH:
	case MNTKIT_EVENT_MOVE:
	case MNTKIT_EVENT_CHANGE:
		ns = ns_of(l, l->all ? ev->mnt_ns_id : 0);
		if (!ns) /* a namespace's events come after its NS_ADD */
			return 0;
		return apply_mount(l, ns, ev, ev_out);
	default: /* RESYNC: the watch's diff follows */
		return 0;
	}
}

/* @ev (not applied: nothing of it changed the state) kept for a retry */
static void keep_retry(struct mntkit_live *l, const struct mntkit_event *ev)
{
	l->retry = *ev;
	mntkit__srec_get(ev->before);
	mntkit__srec_get(ev->after);
	l->has_retry = true;
}

static void drop_retry(struct mntkit_live *l)
{
	if (!l->has_retry)
		return;
	mntkit__srec_put(l->retry.before);
	mntkit__srec_put(l->retry.after);
	l->has_retry = false;
}

/*
 * The next event (the one kept for a retry, else read) applied, into
 * the caller's @slot (@size bytes) when there is one: 1, 0 when none is
 * pending, or a negative errno. An event that cannot be applied (out of
 * memory) changed nothing; it is kept and tried first the next time, so
 * that none is lost.
 */
static int step(struct mntkit_live *l, struct mntkit_event *slot, size_t size)
{
	MNTKIT_EVENT(ev);
	bool retried = l->has_retry;
	int ret;

	if (mntkit__vec_room(&l->held, 2, 64))
		return -ENOMEM;
	if (retried) {
		ev = l->retry;
	} else {
		ret = mntkit_watch_read(l->w, &ev);
		if (ret <= 0)
			return ret;
	}
	ret = apply(l, &ev, slot ? &ev : NULL);
	if (ret) {
		if (!retried)
			keep_retry(l, &ev);
		return ret;
	}
	drop_retry(l);
	if (slot) {
		ev.size = size;
		mntkit__sized_out(slot, size, &ev, sizeof(ev), 0);
	}
	return 1;
}

ssize_t mntkit_live_process(struct mntkit_live *l, struct mntkit_event *events,
			    size_t max)
{
	size_t size = events ? events[0].size : 0, n = 0;
	int ret = 0;

	if (!l || (!events && max) ||
	    (events && size < MNTKIT_EVENT_SIZE_VER0))
		return mntkit__fail(EINVAL);
	let_go_held(l);
	while (!events || n < max) {
		ret = step(l, events ? (struct mntkit_event *)((char *)events +
							       n * size) :
				       NULL,
			   size);
		if (ret <= 0)
			break;
		n++;
	}
	if (ret < 0 && !n)
		return mntkit__fail(-ret);
	return (ssize_t)n;
}

/* ---- made, freed ---- */

/* a watch of one namespace's first snapshot, applied without events */
static int first_state(struct mntkit_live *l)
{
	for (size_t n = mntkit__watch_queued(l->w); n; n--) {
		int ret = step(l, NULL, 0);

		if (ret < 0)
			return ret;
	}
	return 0;
}

int mntkit_live_new(const struct mntkit_watch_opts *wopts,
		    const struct mntkit_opts *opts, struct mntkit_live **out)
{
	MNTKIT_WATCH_OPTS(wo);
	struct mntkit_live *l;
	bool initial;
	int ret;

	if (!out)
		return mntkit__fail(EINVAL);
	*out = NULL;
	ret = mntkit__sized_in(&wo, sizeof(wo), wopts, wopts ? wopts->size : 0,
			       MNTKIT_WATCH_OPTS_SIZE_VER0);
	if (ret)
		return mntkit__fail(-ret);
	wo.size = sizeof(wo);
	initial = wo.flags & MNTKIT_WATCH_F_INITIAL;
	wo.flags |= MNTKIT_WATCH_F_INITIAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return mntkit__fail(ENOMEM);
	ns_init(&l->one);
	l->nss = (struct mntkit__map)MNTKIT__MAP_INIT(struct live_ns *);
	l->all = wo.flags & MNTKIT_WATCH_F_ALL_NS;
	ret = mntkit_watch_new(&wo, opts, &l->w);
	if (!ret && !l->all && !initial)
		ret = first_state(l);
	if (ret) {
		mntkit_live_free(l);
		return mntkit__fail(-ret);
	}
	*out = l;
	return 0;
}

void mntkit_live_free(struct mntkit_live *l)
{
	struct live_ns **p;
	size_t pos = 0;
	uint64_t id;

	if (!l)
		return;
	mntkit_watch_free(l->w);
	drop_retry(l);
	let_go_held(l);
	free(l->held.v);
	free(l->sorted.v);
	ns_clear(&l->one);
	while ((p = mntkit__map_next(&l->nss, &pos, &id))) {
		ns_clear(*p);
		free(*p);
	}
	mntkit__map_free(&l->nss);
	free(l);
}

int mntkit_live_fd(const struct mntkit_live *l)
{
	return l ? mntkit_watch_fd(l->w) : mntkit__fail(EINVAL);
}

int mntkit_live_rescan(struct mntkit_live *l)
{
	return l ? mntkit_watch_rescan(l->w) : mntkit__fail(EINVAL);
}

/* ---- snapshots ---- */

static int cmp_rec(const void *a, const void *b)
{
	uint64_t x = (*(const struct mntkit_statmount *const *)a)->mnt_id;
	uint64_t y = (*(const struct mntkit_statmount *const *)b)->mnt_id;

	return x < y ? -1 : x > y;
}

/* the namespace's snapshot, made if it changed (the live table keeps it) */
static int ns_snapshot(struct mntkit_live *l, struct live_ns *ns)
{
	const struct lrec *r;
	size_t pos = 0;
	uint64_t id;

	if (ns->snap)
		return 0;
	l->sorted.n = 0;
	if (mntkit__vec_room(&l->sorted, ns->recs.n, 64))
		return -ENOMEM;
	while ((r = mntkit__map_next(&ns->recs, &pos, &id)))
		l->sorted.v[l->sorted.n++] = r->sm;
	if (l->sorted.n) /* an empty state (MNTKIT_WATCH_F_INITIAL) has none */
		qsort(l->sorted.v, l->sorted.n, sizeof(*l->sorted.v), cmp_rec);
	return mntkit__table_shared(l->sorted.v, l->sorted.n, &ns->snap);
}

int mntkit_live_snapshot_ns(struct mntkit_live *l, uint64_t mnt_ns_id,
			    struct mntkit_table **out)
{
	struct live_ns *ns;
	int ret;

	if (!out)
		return mntkit__fail(EINVAL);
	*out = NULL;
	if (!l)
		return mntkit__fail(EINVAL);
	ns = ns_of(l, mnt_ns_id);
	if (!ns)
		return mntkit__fail(ENOENT);
	ret = ns_snapshot(l, ns);
	if (ret)
		return mntkit__fail(-ret);
	mntkit__table_hold(ns->snap);
	*out = ns->snap;
	return 0;
}

int mntkit_live_snapshot(struct mntkit_live *l, struct mntkit_table **out)
{
	if (l && l->all) {
		if (out)
			*out = NULL;
		return mntkit__fail(EINVAL);
	}
	return mntkit_live_snapshot_ns(l, 0, out);
}

/* ---- lookups ---- */

/* the one namespace of @l, or NULL (errno EINVAL) */
static const struct live_ns *one_ns(const struct mntkit_live *l)
{
	if (!l || l->all) {
		errno = EINVAL;
		return NULL;
	}
	return &l->one;
}

const struct mntkit_statmount *mntkit_live_get(const struct mntkit_live *l,
					       uint64_t mnt_id)
{
	const struct live_ns *ns = one_ns(l);
	const struct lrec *r;

	if (!ns)
		return NULL;
	r = mntkit__map_get(&ns->recs, mnt_id);
	if (!r) {
		errno = ENOENT;
		return NULL;
	}
	return r->sm;
}

int mntkit_live_parent(const struct mntkit_live *l, uint64_t mnt_id,
		       uint64_t *parent_id)
{
	const struct mntkit_statmount *sm;
	uint64_t p;

	if (!parent_id || !one_ns(l))
		return mntkit__fail(EINVAL);
	sm = mntkit_live_get(l, mnt_id);
	if (!sm)
		return mntkit__fail(ENOENT);
	p = parent_of(sm);
	if (!p || !mntkit__map_has(&l->one.recs, p))
		return mntkit__fail(ENOENT);
	*parent_id = p;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

ssize_t mntkit_live_children(const struct mntkit_live *l, uint64_t mnt_id,
			     uint64_t **ids)
{
	const struct kids *k;

	if (!ids || !one_ns(l))
		return mntkit__fail(EINVAL);
	*ids = NULL;
	if (!mntkit__map_has(&l->one.recs, mnt_id))
		return mntkit__fail(ENOENT);
	k = mntkit__map_get(&l->one.kids, mnt_id);
	if (!k || !k->n)
		return 0;
	*ids = malloc(k->n * sizeof(**ids));
	if (!*ids)
		return mntkit__fail(ENOMEM);
	memcpy(*ids, k->v, k->n * sizeof(**ids));
	qsort(*ids, k->n, sizeof(**ids), cmp_u64);
	return (ssize_t)k->n;
}

typedef ssize_t (*find_fn)(const struct mntkit_table *t, const char *what,
			   unsigned int flags);

static const struct mntkit_statmount *find(struct mntkit_live *l,
					   find_fn fn, const char *what,
					   unsigned int flags)
{
	ssize_t i;
	int ret;

	if (!one_ns(l) || !what) {
		errno = EINVAL;
		return NULL;
	}
	ret = ns_snapshot(l, &l->one);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	i = fn(l->one.snap, what, flags);
	return i < 0 ? NULL : mntkit_table_get(l->one.snap, (size_t)i);
}

const struct mntkit_statmount *
mntkit_live_find_target(struct mntkit_live *l, const char *path,
			unsigned int flags)
{
	return find(l, mntkit_table_find_target, path, flags);
}

const struct mntkit_statmount *
mntkit_live_find_source(struct mntkit_live *l, const char *source,
			unsigned int flags)
{
	return find(l, mntkit_table_find_source, source, flags);
}
