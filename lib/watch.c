// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Watches: a stream of attach / detach / move / change events of one mount
 * namespace.
 *
 * The watch keeps its view: one record per mount ID, exactly what it has
 * told the caller so far (the first snapshot plus every queued event).
 * Every step that changes the view queues its event in the same step
 * (memory is reserved first), so the view and the events never disagree.
 *
 * Sources.
 *  - fanotify (6.15+, native backend, CAP_SYS_ADMIN over the namespace):
 *    FAN_MNT_ATTACH / FAN_MNT_DETACH with FAN_MARK_MNTNS. Each event names
 *    a unique ID; the mount is statmount'ed and compared with the view.
 *    fanotify names every mount a change attaches or detaches, so an
 *    event costs one statmount (see fan_event()). A move is one
 *    ATTACH|DETACH event for the moved mount only: the mounts below it
 *    (whose mount points moved with it) are listed (listmount) and
 *    refreshed too, when the view has any (or the mount was out of
 *    reach: a tree moved into reach at once). Only the mounts a
 *    snapshot lists are watched: in a chroot, those reachable from the
 *    root. fanotify names every mount of the namespace, and statmount
 *    leaves MNT_POINT out for the others (or fails with EPERM without
 *    CAP_SYS_ADMIN): they give no event, and a mount moved out of reach
 *    is DETACHed with the mounts below it. A mount gone before it could
 *    be stat'ed is reported with MNTKIT_EVENT_F_GONE and a record of its
 *    ID only (its DETACH follows). Changes fanotify does not report
 *    (remount, mount_setattr) still make /proc/PID/mountinfo poll POLLPRI.
 *    The kernel bumps the namespace's event count (POLLPRI) before it
 *    sends a mount's fanotify event (at namespace_unlock), so a POLLPRI
 *    read alone is most often a mount whose event is on its way: it is
 *    diffed only if no fanotify event follows within VERIFY_PURE_NS. A
 *    POLLPRI that came with (or was followed by) fanotify events may hide
 *    a change fanotify does not report, and cannot be told from one that
 *    does not (POLLPRI is one bit, not a count): it is checked by a diff
 *    once the namespace has been quiet for VERIFY_QUIET_NS, no sooner
 *    than SYNC_GAP_FACTOR times the last diff's cost after it, at the
 *    latest VERIFY_MAX_NS or 50 diffs' time after the first signal (see
 *    verify_when()). A burst of mounts thus costs one diff (O(mounts))
 *    at its end, and one more per VERIFY_MAX_NS or 50 diffs' time that
 *    it lasts: at most 2% of a CPU, and no diff per event; the price is
 *    that a remount hidden among mounts is reported up to that late.
 *    Nothing is lost: a check that is owed always comes (the timer), and
 *    it diffs the whole of mountinfo.
 *    Fed (a namespace of an all-namespace watch, see lib/watch-all.c):
 *    the same source without a group of its own; the all-namespace watch
 *    marks the namespace in its one group before the first snapshot,
 *    reads the group and hands each event to watch_feed(), which asks
 *    whether it is this namespace's (fan_event()).
 *  - poll: POLLPRI on /proc/PID/mountinfo, then a diff of a fresh
 *    snapshot against the view once the namespace has been quiet for
 *    POLL_QUIET_NS (see poll_when()): one snapshot serves every change
 *    signalled before it, so a burst of mounts costs one diff at its end
 *    (one more per SYNC_GAP_FACTOR diffs' time, at most SYNC_GAP_MAX_NS,
 *    that it lasts); on the emulation it is one read of mountinfo
 *    (mntkit__emul_snapshot()), and a mount it names by a provisional
 *    old ID keeps the view's unique ID (find_aliases()).
 * Both: mount(2) MS_SHARED/MS_SLAVE/MS_PRIVATE/MS_UNBINDABLE changes
 * signal nothing at all (checked on 6.18: no POLLPRI, no fanotify event;
 * mount_setattr(2) propagation changes do signal POLLPRI). They are found
 * by a rescan every rescan_ms while nothing else happens (a change signal
 * postpones it: the diff that follows sees every changed mountinfo line,
 * propagation included), or at once with mntkit_watch_rescan().
 *
 * No silent loss: a fanotify queue overflow, a failed read, a statmount
 * that fails other than with ENOENT, or no memory for an event, make the
 * next read resynchronize: a RESYNC event, then the diff of the view
 * against a fresh snapshot.
 *
 * The pollable fd is an epoll set of the fanotify fd, a timerfd (the
 * deferred diffs) and one open mountinfo file. Polling the epoll fd polls
 * that file, which consumes its POLLPRI, so the watch checks a second,
 * private open mountinfo file of the same namespace whose POLLPRI only
 * the watch consumes. While a diff is owed the first file leaves the set
 * (follow_signals()): a burst wakes the caller per timer, not per mount.
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "diff.h"
#include "internal.h"
#include "mountinfo.h"
#include "syscall.h"

#define DEFAULT_MASK (MNTKIT_STATMOUNT_ALL & ~MNTKIT_STATMOUNT_SUPPORTED_MASK)

#define MS_NS 1000000LL
#define RESCAN_DEFAULT_MS 1000
#define RESCAN_COST_FACTOR 100 /* a rescan costs at most 1% of the time */
/*
 * The check of a change signal fanotify may not explain (fanotify source):
 * VERIFY_PURE_NS after a signal no fanotify event followed (a mount's
 * signal comes before its fanotify event), else once the namespace has
 * been quiet for VERIFY_QUIET_NS; never sooner than SYNC_GAP_FACTOR times
 * the last diff's CPU time after it, never later than VERIFY_MAX_NS or
 * VERIFY_COST_FACTOR diffs' time after the first signal.
 */
#define VERIFY_PURE_NS (5 * MS_NS)
#define VERIFY_QUIET_NS (50 * MS_NS)
#define VERIFY_MAX_NS (1000 * MS_NS)
#define VERIFY_COST_FACTOR 50
#define RETRY_NS (100 * MS_NS) /* after a failed diff */
/*
 * Coalescing: after a diff that cost C (CPU), the next one for a change
 * signal waits until SYNC_GAP_FACTOR * C after it (at most SYNC_GAP_MAX_NS),
 * so a table that keeps changing costs at most about 1/SYNC_GAP_FACTOR of
 * a CPU, and each diff serves every change signalled meanwhile.
 */
#define SYNC_GAP_FACTOR 10
#define SYNC_GAP_MAX_NS (1000 * MS_NS)
/* the poll source diffs once no signal came for this long (poll_when()) */
#define POLL_QUIET_NS (5 * MS_NS)

#define FAN_BUFSIZE (64 * 1024)
#define FAN_READS_PER_CALL 64 /* bounded work per mntkit_watch_read() */

/* ---- the view: mount ID -> record (open addressing) ---- */

struct slot {
	uint64_t id; /* 0: empty */
	uint32_t gen;
	struct mntkit_statmount *sm;
};

struct recmap {
	struct slot *s;
	size_t cap, n; /* cap: 0 or a power of two */
};

static size_t slot_of(uint64_t id, size_t cap)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 29) & (cap - 1);
}

static struct slot *map_find(const struct recmap *m, uint64_t id)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(id, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->s[i].id == id)
			return &m->s[i];
		if (!m->s[i].id)
			return NULL;
	}
}

static void map_insert(struct recmap *m, uint64_t id,
		       struct mntkit_statmount *sm)
{
	size_t i = slot_of(id, m->cap);

	while (m->s[i].id)
		i = (i + 1) & (m->cap - 1);
	m->s[i] = (struct slot){ .id = id, .sm = sm };
	m->n++;
}

/* room for @more insertions without a rehash (load <= 1/2) */
static int map_reserve(struct recmap *m, size_t more)
{
	struct recmap nm = { 0 };
	size_t cap = m->cap ? m->cap : 64;

	while ((m->n + more) * 2 > cap)
		cap *= 2;
	if (cap == m->cap)
		return 0;
	nm.s = calloc(cap, sizeof(*nm.s));
	if (!nm.s)
		return -ENOMEM;
	nm.cap = cap;
	for (size_t i = 0; i < m->cap; i++)
		if (m->s[i].id) {
			map_insert(&nm, m->s[i].id, m->s[i].sm);
			map_find(&nm, m->s[i].id)->gen = m->s[i].gen;
		}
	free(m->s);
	*m = nm;
	return 0;
}

/* remove @id (present); returns its record */
static struct mntkit_statmount *map_remove(struct recmap *m, uint64_t id)
{
	struct slot *s = map_find(m, id);
	size_t mask = m->cap - 1, i = (size_t)(s - m->s), j = i;
	struct mntkit_statmount *sm = s->sm;

	for (;;) { /* backward-shift deletion */
		size_t k;

		j = (j + 1) & mask;
		if (!m->s[j].id)
			break;
		k = slot_of(m->s[j].id, m->cap);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->s[i] = m->s[j];
		i = j;
	}
	m->s[i] = (struct slot){ 0 };
	m->n--;
	return sm;
}

static void map_free(struct recmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->s[i].sm);
	free(m->s);
	memset(m, 0, sizeof(*m));
}

/*
 * The number of children each mount has in the view, kept in a map of its
 * own (a child may be known before its parent): a move of a mount without
 * children hides nothing below it, and needs no listmount (which walks
 * the namespace's whole mount tree in the kernel). Increments need room
 * reserved (map_reserve(kids, 1)); decrements never fail.
 */
static void kids_note(struct recmap *kids, const struct mntkit_statmount *sm,
		      int add)
{
	uint64_t p;
	struct slot *s;

	if (!sm || !(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC))
		return;
	p = sm->mnt_parent_id;
	if (!p || p == sm->mnt_id)
		return;
	s = map_find(kids, p);
	if (add && s) {
		s->gen++;
	} else if (add) {
		map_insert(kids, p, NULL);
		map_find(kids, p)->gen = 1;
	} else if (s && !--s->gen) {
		map_remove(kids, p);
	}
}

static uint32_t kids_of(const struct recmap *kids, uint64_t id)
{
	const struct slot *s = map_find(kids, id);

	return s ? s->gen : 0;
}

/* ---- the queue of events, each owning its records ---- */

struct qev {
	struct mntkit_event ev;
	struct mntkit_statmount *own[2];
};

struct evq {
	struct qev *v;
	size_t head, n, cap;
	uint64_t seq; /* of the last event queued */
};

static int q_reserve(struct evq *q, size_t more)
{
	struct qev *nv;
	size_t cap;

	if (q->head && q->head == q->n)
		q->head = q->n = 0;
	if (q->cap - q->n >= more)
		return 0;
	cap = q->cap ? q->cap : 64;
	while (cap - q->n < more)
		cap *= 2;
	nv = realloc(q->v, cap * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	q->v = nv;
	q->cap = cap;
	return 0;
}

/* room was reserved; the event takes @before and @after */
static void q_push(struct evq *q, enum mntkit_event_kind kind,
		   uint32_t changed, uint32_t flags, uint64_t id,
		   struct mntkit_statmount *before,
		   struct mntkit_statmount *after)
{
	struct qev *e = &q->v[q->n++];
	struct timespec rt, mono;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	e->ev = (struct mntkit_event){
		.size = sizeof(struct mntkit_event),
		.kind = kind,
		.changed = changed,
		.flags = flags,
		.mnt_id = id,
		.before = before,
		.after = after,
		.seq = ++q->seq,
		.realtime_ns = (uint64_t)rt.tv_sec * 1000000000ULL +
			       (uint64_t)rt.tv_nsec,
		.monotonic_ns = (uint64_t)mono.tv_sec * 1000000000ULL +
				(uint64_t)mono.tv_nsec,
	};
	e->own[0] = before;
	e->own[1] = after;
}

static void qev_free(struct qev *e)
{
	free(e->own[0]);
	free(e->own[1]);
	memset(e, 0, sizeof(*e));
}

static void q_free(struct evq *q)
{
	for (size_t i = q->head; i < q->n; i++)
		qev_free(&q->v[i]);
	free(q->v);
	memset(q, 0, sizeof(*q));
}

/*
 * ---- mountinfo lines: which mounts a change signal can concern ----
 *
 * On the native backend a signalled change (remount, mount_setattr,
 * mount, unmount, move) shows in /proc/PID/mountinfo. The watch keeps a
 * hash of each line by old ID, read before the view was last brought up
 * to date; at a signal it reads mountinfo again and statmounts only the
 * mounts whose line changed, plus the new ones (listmount names them),
 * instead of every mount: the cost of a signal is one read and one
 * listing, not a system call per mount. Changes mountinfo does not show
 * are not signalled either, and are found by rescans (full diffs).
 */
struct lslot {
	uint64_t id; /* old ID; 0: empty */
	uint64_t hash;
};

struct lines {
	struct lslot *s;
	size_t cap, n;
	int valid;
};

static size_t lslot_of(const struct lines *l, uint64_t id)
{
	size_t i = slot_of(id, l->cap);

	while (l->s[i].id && l->s[i].id != id)
		i = (i + 1) & (l->cap - 1);
	return i;
}

/* the hash of old ID @id's line, 0 if none (a hash is never 0) */
static uint64_t lines_hash(const struct lines *l, uint64_t id)
{
	size_t i;

	if (!l->cap || !id)
		return 0;
	i = lslot_of(l, id);
	return l->s[i].id ? l->s[i].hash : 0;
}

static uint64_t line_hash(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

/* index the text of @buf (@len bytes) into @l (empty) */
static int lines_index(struct lines *l, const char *buf, size_t len)
{
	size_t nl = 0, cap = 64;

	for (size_t i = 0; i < len; i++)
		nl += buf[i] == '\n';
	while (cap < 2 * (nl + 1))
		cap *= 2;
	l->s = calloc(cap, sizeof(*l->s));
	if (!l->s)
		return -ENOMEM;
	l->cap = cap;
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		uint64_t id = 0;
		size_t i;

		if (!e)
			e = end;
		for (const char *q = p; q < e && *q >= '0' && *q <= '9'; q++)
			id = id * 10 + (uint64_t)(*q - '0');
		if (id) {
			i = lslot_of(l, id);
			/* one line per ID; a second one makes it "changed" */
			l->s[i].hash = l->s[i].id ? 1 : line_hash(p, (size_t)(e - p));
			l->n += !l->s[i].id;
			l->s[i].id = id;
		}
		p = e + 1;
	}
	return 0;
}

static void lines_free(struct lines *l)
{
	free(l->s);
	memset(l, 0, sizeof(*l));
}

/* ---- the watch ---- */

struct mntkit_watch {
	enum mntkit_watch_source source;
	const struct mntkit_backend_ops *ops; /* the backend it was made on */
	uint64_t mask;
	uint32_t rescan_ms;
	struct mntkit_mnt_id_req req;
	int req_fd; /* an fd @req uses, or -1 */
	int held;   /* its namespace is held for the emulation (ns_dev, _ino) */
	dev_t ns_dev;
	ino_t ns_ino;
	int epfd, fan_fd, wake_fd, mi_fd, timer_fd;
	int mi_noted; /* @mi_fd's signal, consumed by an all-namespace watch */
	int wake_on; /* @wake_fd is in the epoll set */
	struct recmap view;
	struct recmap kids; /* parent ID -> its children in the view (gen) */
	uint32_t gen;
	struct evq q;
	struct qev cur; /* the event last returned */
	int need_resync;
	int64_t verify_first, verify_due, rescan_due;
	int64_t sync_after; /* a signalled diff waits until then */
	int64_t check_after; /* a check of fanotify's signals, until then */
	int64_t last_activity; /* the last signal or fanotify event */
	int64_t armed; /* what the timer is set to (-1: unknown) */
	int64_t diff_cost; /* CPU time of the last diff */
	int64_t rescan_cost; /* of the last whole diff */
	uint64_t fan_events; /* fanotify mount events handled so far */
	uint64_t fan_at_first; /* fan_events before verify_first's signal */
	struct mntkit_statmount *buf; /* statmount replies */
	size_t bufsize;
	struct mntkit_statmount *pbuf; /* MNT_POINT alone (reach checks) */
	size_t pbufsize;
	char *fanbuf;
	struct lines lines; /* mountinfo as of the view (native backend) */
	char *mibuf;
	size_t micap;
	struct mntkit__watch_all *all; /* MNTKIT_WATCH_ALL_NS: it does all */
	/*
	 * Fed (a namespace of an all-namespace watch): the fanotify source
	 * without a group of its own; lib/watch-all.c reads the one group of
	 * all namespaces and hands each event to watch_feed().
	 */
	int fed;
	uint64_t fed_new; /* events fed since the last process() */
	size_t shared; /* records of the view in a peer group (shared) */
};

static int64_t now_ns(void)
{
	return mntkit__clock_ns(CLOCK_MONOTONIC);
}

/* the cost of a diff is the CPU time it took (not lock waits) */
static int64_t cpu_ns(void)
{
	return mntkit__clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * A record enters (@add) or leaves the view: the children and the shared
 * mounts it counts for.
 */
static void view_note(struct mntkit_watch *w,
		      const struct mntkit_statmount *sm, int add)
{
	kids_note(&w->kids, sm, add);
	if (sm && (sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) &&
	    sm->mnt_peer_group)
		w->shared += add ? 1 : (size_t)-1;
}

/* the record of a mount gone before it could be stat'ed: its ID only */
static struct mntkit_statmount *sm_stub(uint64_t id)
{
	struct mntkit_statmount *c = calloc(1, MNTKIT_STATMOUNT_FIXED_SIZE);

	if (c) {
		c->size = MNTKIT_STATMOUNT_FIXED_SIZE;
		c->mnt_id = id;
	}
	return c;
}

static int epoll_add(int epfd, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/*
 * While a diff is owed (verify_due), further change signals add nothing:
 * the diff will see them. The wakeup file leaves the epoll set then, so
 * the caller is woken by the timer, not once per mount of a burst; the
 * watch still reads the private file's signal at every wakeup (quiet
 * detection). Back in the set, the file tells of any signal meanwhile.
 */
static void follow_signals(struct mntkit_watch *w)
{
	int on = !w->verify_due;

	if (w->wake_fd < 0 || on == w->wake_on)
		return;
	if (!on) {
		if (!epoll_ctl(w->epfd, EPOLL_CTL_DEL, w->wake_fd, NULL))
			w->wake_on = 0;
		return;
	}
	if (!epoll_add(w->epfd, w->wake_fd, EPOLLPRI)) {
		w->wake_on = 1;
		return;
	}
	/* not woken by signals: check for them by the timer */
	mntkit__debug(MNTKIT_PRINT_WARN,
		      "watch: cannot follow change signals (%s): polling",
		      strerror(errno));
	w->verify_first = now_ns();
	w->verify_due = w->verify_first + RETRY_NS;
}

static void arm_timer(struct mntkit_watch *w)
{
	struct itimerspec its = { 0 };
	int64_t due;

	follow_signals(w);
	due = w->verify_due;

	if (w->rescan_due && (!due || w->rescan_due < due))
		due = w->rescan_due;
	if (due == w->armed) /* a system call less per wakeup */
		return;
	if (due) {
		its.it_value.tv_sec = due / 1000000000LL;
		its.it_value.tv_nsec = due % 1000000000LL;
	}
	w->armed = timerfd_settime(w->timer_fd, TFD_TIMER_ABSTIME, &its,
				   NULL) ? -1 : due;
}

static void schedule_rescan(struct mntkit_watch *w, int64_t now)
{
	int64_t every;

	w->rescan_due = 0;
	if (w->rescan_ms == MNTKIT_WATCH_NO_RESCAN)
		return;
	every = (int64_t)(w->rescan_ms ? w->rescan_ms : RESCAN_DEFAULT_MS) *
		MS_NS;
	if (every < RESCAN_COST_FACTOR * w->rescan_cost)
		every = RESCAN_COST_FACTOR * w->rescan_cost;
	w->rescan_due = now + every;
}

/*
 * Bring the view of one mount up to @sm (a fresh record): ATTACH if new,
 * DETACH + ATTACH if another mount now has its ID, MOVE or CHANGE, or
 * nothing. Returns the kind queued last (0: none) or -ENOMEM (nothing
 * changed then).
 */
static int refresh(struct mntkit_watch *w, const struct mntkit_statmount *sm)
{
	struct mntkit_statmount *c1, *c2, *old;
	enum mntkit_event_kind kind = MNTKIT_EVENT_ATTACH;
	enum mntkit__same same = MNTKIT__SAME_MOUNT;
	uint32_t changed = 0;
	struct slot *s;

	/* first: a rehash moves the slots */
	if (q_reserve(&w->q, 2) || map_reserve(&w->view, 1) ||
	    map_reserve(&w->kids, 1))
		return -ENOMEM;
	s = map_find(&w->view, sm->mnt_id);
	/* the common case of a diff: an untouched mount, the same bytes */
	if (s && s->sm->size == sm->size && !memcmp(s->sm, sm, sm->size))
		return 0;
	if (s) {
		same = mntkit__sm_compare(s->sm, sm, &changed);
		kind = same == MNTKIT__OTHER_MOUNT ?
			       MNTKIT_EVENT_ATTACH :
			       mntkit__changed_kind(changed);
		if (!kind)
			return 0;
	}
	c1 = mntkit__sm_dup(sm);
	c2 = mntkit__sm_dup(sm);
	if (!c1 || !c2) {
		free(c1);
		free(c2);
		return -ENOMEM;
	}
	if (!s) {
		map_insert(&w->view, sm->mnt_id, c1);
		view_note(w, c1, 1);
		q_push(&w->q, kind, 0, 0, sm->mnt_id, NULL, c2);
		return kind;
	}
	old = s->sm;
	s->sm = c1;
	view_note(w, old, 0);
	view_note(w, c1, 1);
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

/* queue DETACH for every mount of the view not marked with w->gen */
static int detach_unseen(struct mntkit_watch *w)
{
	uint64_t *gone = malloc((w->view.n + 1) * sizeof(*gone));
	size_t n = 0;

	if (!gone || q_reserve(&w->q, w->view.n)) {
		free(gone);
		return -ENOMEM;
	}
	for (size_t i = 0; i < w->view.cap; i++)
		if (w->view.s[i].id && w->view.s[i].gen != w->gen)
			gone[n++] = w->view.s[i].id;
	qsort(gone, n, sizeof(*gone), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		struct mntkit_statmount *old = map_remove(&w->view, gone[i]);

		view_note(w, old, 0);
		q_push(&w->q, MNTKIT_EVENT_DETACH, 0, 0, gone[i], old, NULL);
	}
	free(gone);
	return 0;
}

/* queue DETACH for @id if the view has it; 1 if it did, -ENOMEM */
static int detach_one(struct mntkit_watch *w, uint64_t id)
{
	struct mntkit_statmount *old;

	if (!map_find(&w->view, id))
		return 0;
	if (q_reserve(&w->q, 1))
		return -ENOMEM;
	old = map_remove(&w->view, id);
	view_note(w, old, 0);
	q_push(&w->q, MNTKIT_EVENT_DETACH, 0, 0, id, old, NULL);
	return 1;
}

/*
 * Provisional IDs. With unique IDs, the emulation names a mount whose
 * mount point does not resolve to it by its old ID (see emul.c): one
 * unmounted while the table was read, or overmounted meanwhile. A table
 * record under old ID X, while the view has a mount of unique ID U and
 * old ID X that this table does not name, is that mount when nothing a
 * mount cannot change differs and it did not move (as in diff.c: under
 * an old ID, a move cannot be told from another mount in the old one's
 * place); its record is taken under U: it keeps its
 * name, and the watch reports no DETACH U + ATTACH X (+ DETACH X once
 * it is really gone) for a mount that did not change. @alias[i] gets U
 * for such a record i; 0 if none was found, -ENOMEM.
 */
static int find_aliases(struct mntkit_watch *w, const struct mntkit_table *t,
			uint64_t **alias)
{
	size_t n = mntkit_table_count(t);
	struct recmap byold = { 0 };
	int ret = 0;

	*alias = NULL;
	for (size_t i = 0; i < w->view.cap; i++) {
		struct slot *s = &w->view.s[i];

		if (!s->id || s->gen == w->gen ||
		    s->id <= MNTKIT_MNT_UNIQUE_ID_OFFSET ||
		    !(s->sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) ||
		    !s->sm->mnt_id_old || map_find(&byold, s->sm->mnt_id_old))
			continue;
		if (map_reserve(&byold, 1)) {
			ret = -ENOMEM;
			goto out;
		}
		map_insert(&byold, s->sm->mnt_id_old, s->sm);
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
		struct mntkit_statmount *c;
		struct slot *o, *v;
		uint32_t changed;

		if (sm->mnt_id > MNTKIT_MNT_UNIQUE_ID_OFFSET ||
		    map_find(&w->view, sm->mnt_id) ||
		    !(o = map_find(&byold, sm->mnt_id)) || !o->sm)
			continue;
		c = mntkit__sm_dup(sm);
		if (!c) {
			ret = -ENOMEM;
			goto out;
		}
		c->mnt_id = o->sm->mnt_id;
		/* as under old IDs: a moved one may be another mount */
		if (mntkit__sm_compare(o->sm, c, &changed) ==
			    MNTKIT__SAME_MOUNT &&
		    !(changed &
		      (MNTKIT_CHANGED_PARENT | MNTKIT_CHANGED_MNT_POINT))) {
			(*alias)[i] = c->mnt_id;
			v = map_find(&w->view, c->mnt_id);
			v->gen = w->gen;
			o->sm = NULL; /* one table record per mount */
		}
		free(c);
	}
out:
	free(byold.s); /* the records are the view's */
	return ret;
}

/* refresh() with record @sm taken under ID @id */
static int refresh_as(struct mntkit_watch *w, const struct mntkit_statmount *sm,
		      uint64_t id)
{
	struct mntkit_statmount *c = mntkit__sm_dup(sm);
	int ret;

	if (!c)
		return -ENOMEM;
	c->mnt_id = id;
	ret = refresh(w, c);
	free(c);
	return ret;
}

/* the diff of the view against snapshot @t */
static int apply_table(struct mntkit_watch *w, const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t), provisional = 0;
	uint64_t *alias = NULL;
	int ret = 0;

	w->gen++;
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);
		struct slot *s = map_find(&w->view, sm->mnt_id);

		if (s)
			s->gen = w->gen;
		else if (sm->mnt_id <= MNTKIT_MNT_UNIQUE_ID_OFFSET)
			provisional++;
	}
	if (provisional)
		ret = find_aliases(w, t, &alias);
	if (!ret)
		ret = detach_unseen(w);
	for (size_t i = 0; i < n && ret >= 0; i++)
		ret = alias && alias[i] ?
			      refresh_as(w, mntkit_table_get(t, i), alias[i]) :
			      refresh(w, mntkit_table_get(t, i));
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

/* line sums are kept on the native backend (see struct lines) */
static int lines_kept(void)
{
	return mntkit_get_backend() == MNTKIT_BACKEND_NATIVE;
}

/* read mountinfo now into @l; on failure @l is left invalid */
static void lines_read(struct mntkit_watch *w, struct lines *l)
{
	size_t len;

	memset(l, 0, sizeof(*l));
	if (!lines_kept() ||
	    mntkit__mi_read(w->mi_fd, &w->mibuf, &w->micap, &len) ||
	    lines_index(l, w->mibuf, len))
		return;
	l->valid = 1;
}

/* the lines read before a diff become the view's */
static void lines_keep(struct mntkit_watch *w, struct lines *l, int ok)
{
	lines_free(&w->lines);
	if (ok)
		w->lines = *l;
	else
		lines_free(l);
}

static void synced(struct mntkit_watch *w, int ret, int64_t t0,
		   const char *what)
{
	int64_t now, gap;

	w->diff_cost = cpu_ns() - t0;
	mntkit__debug(MNTKIT_PRINT_DEBUG, "watch: %s diff, %lld us CPU%s",
		      what, (long long)(w->diff_cost / 1000),
		      ret ? ", failed" : "");
	now = now_ns();
	gap = SYNC_GAP_FACTOR * w->diff_cost;
	w->sync_after = now + (gap < SYNC_GAP_MAX_NS ? gap : SYNC_GAP_MAX_NS);
	w->check_after = now + gap;
	w->verify_first = w->verify_due = 0;
	if (ret) { /* part of the diff may be queued: finish it soon */
		w->need_resync = 1;
		w->verify_due = now + RETRY_NS;
	} else {
		w->need_resync = 0;
	}
	schedule_rescan(w, now);
	arm_timer(w);
}

/* diff a fresh snapshot against the view (with a RESYNC event first) */
static int sync_table(struct mntkit_watch *w, int resync)
{
	struct mntkit_table *t = NULL;
	int64_t t0 = cpu_ns();
	struct lines l;
	int ret;

	size_t resync_at = SIZE_MAX;

	lines_read(w, &l);
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
	lines_keep(w, &l, !ret);
	w->rescan_cost = cpu_ns() - t0;
	synced(w, ret, t0, resync ? "resync" : "whole");
	return ret;
}

/*
 * The mounts of listing @iv to statmount after a change signal: the new
 * ones and those whose mountinfo line changed since @old (into @todo).
 * Marks the listed ones of the view with w->gen.
 */
static int lines_todo(struct mntkit_watch *w, const struct mntkit_idvec *iv,
		      const struct lines *old, const struct lines *now,
		      struct mntkit_idvec *todo)
{
	int ret = mntkit__idvec_reserve(todo, iv->n + 1);

	if (ret)
		return ret;
	w->gen++;
	for (size_t i = 0; i < iv->n; i++) {
		struct slot *s = map_find(&w->view, iv->v[i]);
		uint64_t h;

		if (s) {
			s->gen = w->gen;
			h = (s->sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) ?
				    lines_hash(now, s->sm->mnt_id_old) :
				    0;
			if (h && h == lines_hash(old, s->sm->mnt_id_old))
				continue;
		}
		todo->v[todo->n++] = iv->v[i];
	}
	return 0;
}

/*
 * After a change signal, on the native backend: one read of mountinfo
 * and one listing; statmount only what is new or whose line changed (see
 * struct lines). Falls back to a whole diff when it cannot.
 */
static int sync_lines(struct mntkit_watch *w)
{
	struct mntkit_idvec iv = { 0 }, todo = { 0 };
	int64_t t0 = cpu_ns();
	struct lines l;
	int ret;

	if (!w->lines.valid)
		return sync_table(w, 0);
	lines_read(w, &l);
	if (!l.valid)
		return sync_table(w, 0);
	ret = mntkit__list_flat(&w->req, MNTKIT_LSMT_ROOT, 0, &iv);
	if (!ret)
		ret = lines_todo(w, &iv, &w->lines, &l, &todo);
	if (!ret)
		ret = detach_unseen(w);
	for (size_t i = 0; i < todo.n && !ret; i++) {
		ret = mntkit__stat_into(&w->req, todo.v[i], w->mask, &w->buf,
					&w->bufsize);
		if (ret == -ENOENT) { /* gone since the listing */
			ret = detach_one(w, todo.v[i]);
			ret = ret > 0 ? 0 : ret;
			continue;
		}
		if (!ret)
			ret = refresh(w, w->buf);
		ret = ret > 0 ? 0 : ret;
	}
	free(iv.v);
	free(todo.v);
	lines_keep(w, &l, !ret);
	if (ret) /* the whole diff, now */
		return sync_table(w, 0);
	synced(w, 0, t0, "lines");
	return 0;
}

/* a signalled change: the cheaper diff where there is one */
static int sync_signalled(struct mntkit_watch *w)
{
	return lines_kept() ? sync_lines(w) : sync_table(w, 0);
}

/* ---- fanotify ---- */

/* fan_stat(): the mount is not reachable from the watch's root */
#define FAN_OUT_OF_REACH 1

/*
 * statmount a mount fanotify named (or one below it) into w->buf: 0, or
 * FAN_OUT_OF_REACH when the watch's root does not reach it (statmount
 * gives no MNT_POINT for such a mount, or EPERM without CAP_SYS_ADMIN),
 * or -errno (-ENOENT: gone).
 */
static int fan_stat(struct mntkit_watch *w, uint64_t id)
{
	const struct mntkit_statmount *pt;
	int ret;

	ret = mntkit__stat_into(&w->req, id, w->mask, &w->buf, &w->bufsize);
	if (!ret && !(w->mask & MNTKIT_STATMOUNT_MNT_POINT)) {
		ret = mntkit__stat_into(&w->req, id,
					MNTKIT_STATMOUNT_MNT_POINT, &w->pbuf,
					&w->pbufsize);
		pt = w->pbuf;
	} else {
		pt = w->buf;
	}
	if (ret == -EPERM)
		return FAN_OUT_OF_REACH;
	if (ret)
		return ret;
	return (pt->mask & MNTKIT_STATMOUNT_MNT_POINT) ? 0 : FAN_OUT_OF_REACH;
}

/*
 * Bring the view of one mount fanotify named, or of one below it, up to
 * date: ATTACH / MOVE / CHANGE, DETACH when it left the watch's reach.
 * Returns the kind queued (0: none, MNTKIT_EVENT_DETACH for out of reach)
 * or -errno (-ENOENT: gone).
 */
static int fan_update(struct mntkit_watch *w, uint64_t id)
{
	int ret = fan_stat(w, id);

	if (ret == FAN_OUT_OF_REACH) {
		ret = detach_one(w, id);
		return ret > 0 ? MNTKIT_EVENT_DETACH : ret;
	}
	return ret ? ret : refresh(w, w->buf);
}

/*
 * Update every mount below @id, in listing order: after a move (their
 * mount points moved with it), an attach (a tree may come at once) or a
 * move out of reach (they left with it).
 */
static void refresh_below(struct mntkit_watch *w, uint64_t id)
{
	struct mntkit_idvec iv = { 0 };
	int ret = mntkit__list_flat(&w->req, id, 0, &iv);

	if (ret == -ENOENT) /* gone meanwhile: its DETACH follows */
		ret = 0;
	for (size_t i = 0; i < iv.n && !ret; i++) {
		ret = fan_update(w, iv.v[i]);
		ret = ret == -ENOENT || ret > 0 ? 0 : ret;
	}
	free(iv.v);
	if (ret)
		w->need_resync = 1;
}

/* a mount fanotify named is gone: DETACH it, or ATTACH it as F_GONE */
static void fan_gone(struct mntkit_watch *w, uint64_t id, uint64_t mask)
{
	struct mntkit_statmount *c1, *c2;

	if (q_reserve(&w->q, 1) || map_reserve(&w->view, 1)) {
		w->need_resync = 1;
		return;
	}
	if (map_find(&w->view, id)) {
		c1 = map_remove(&w->view, id);
		view_note(w, c1, 0);
		q_push(&w->q, MNTKIT_EVENT_DETACH, 0, 0, id, c1, NULL);
		return;
	}
	if (!(mask & MNTKIT_FAN_MNT_ATTACH))
		return; /* never seen: detached before our first snapshot */
	c1 = sm_stub(id);
	c2 = sm_stub(id);
	if (!c1 || !c2) {
		free(c1);
		free(c2);
		w->need_resync = 1;
		return;
	}
	map_insert(&w->view, id, c1);
	q_push(&w->q, MNTKIT_EVENT_ATTACH, 0, MNTKIT_EVENT_F_GONE, id, NULL,
	       c2);
}

/*
 * One fanotify event. fanotify names every mount a change attaches or
 * detaches (each mount of a recursive bind, of a propagation, of an
 * unmounted tree: checked on 6.18), but a move only by the moved mount
 * (ATTACH|DETACH in one event), whose descendants' mount points moved
 * with it. So only a move needs the mounts below: when the view has
 * children of the mount, or when the mount was out of the view (moved
 * into reach, maybe with a subtree); and a mount moved out of reach takes
 * its children in the view with it. Everything else costs one statmount.
 *
 * A fed watch is asked about events of every namespace (see watch_feed()):
 * an event is its namespace's when its view holds the mount or when its
 * namespace has it (statmount looks a mount up within the namespace
 * asked, ENOENT elsewhere). Returns 1 if the event was this namespace's
 * (handled), 0 if not (nothing done: only a fed watch says so), -1 if a
 * fed watch cannot tell (statmount failed otherwise: it resynchronizes
 * at its next read, which covers the mount if it was its namespace's).
 */
static int fan_event(struct mntkit_watch *w, uint64_t id, uint64_t mask)
{
	int known = map_find(&w->view, id) != NULL;
	uint32_t kids = kids_of(&w->kids, id);
	int moved = (mask & MNTKIT_FAN_MNT_ATTACH) &&
		    (mask & MNTKIT_FAN_MNT_DETACH);
	int ret;

	/* not in the view, not attached: no namespace's to look up */
	if (w->fed && !known && !(mask & MNTKIT_FAN_MNT_ATTACH))
		return 0;
	ret = fan_update(w, id);
	if (ret == -ENOENT && w->fed && !known)
		return 0; /* not of this namespace, or gone: watch-all.c */
	if (ret < 0 && w->fed && !known) {
		/* whose it is cannot be told: if ours, the resync has it */
		w->need_resync = 1;
		return -1;
	}
	if (ret == -ENOENT) {
		fan_gone(w, id, mask);
		return 1;
	}
	if (ret < 0) {
		w->need_resync = 1;
		return 1;
	}
	if (ret == MNTKIT_EVENT_DETACH ? kids > 0 :
					 moved && (kids > 0 || !known))
		refresh_below(w, id);
	return 1;
}

static void fan_parse(struct mntkit_watch *w, const char *buf, size_t len)
{
	struct mntkit__fan_event ev;
	size_t off = 0;
	int ret;

	while ((ret = mntkit__fan_next(buf, len, &off, &ev)) > 0) {
		if (ev.mask & MNTKIT_FAN_Q_OVERFLOW)
			w->need_resync = 1;
		if (!w->need_resync && ev.mnt_id &&
		    (ev.mask & (MNTKIT_FAN_MNT_ATTACH | MNTKIT_FAN_MNT_DETACH))) {
			w->fan_events++;
			fan_event(w, ev.mnt_id, ev.mask);
		}
	}
	if (ret < 0)
		w->need_resync = 1;
}

/* read what fanotify has (a bounded amount); *@got: any event */
static void fan_drain(struct mntkit_watch *w, int *got)
{
	for (int i = 0; i < FAN_READS_PER_CALL; i++) {
		ssize_t len = read(w->fan_fd, w->fanbuf, FAN_BUFSIZE);

		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0) {
			if (errno != EAGAIN)
				w->need_resync = 1;
			return;
		}
		if (len == 0)
			return;
		*got = 1;
		fan_parse(w, w->fanbuf, (size_t)len);
		/* a read far from full had all there was (epoll tells more) */
		if ((size_t)len <= FAN_BUFSIZE / 2)
			return;
	}
}

/* ---- reading ---- */

static int mi_signalled(struct mntkit_watch *w)
{
	struct pollfd p = { .fd = w->mi_fd, .events = POLLPRI };
	int noted = w->mi_noted;

	w->mi_noted = 0;
	return (poll(&p, 1, 0) > 0 && (p.revents & (POLLPRI | POLLERR))) ||
	       noted;
}

/*
 * When the poll source diffs after a signal: once the namespace has been
 * quiet (no signal since the last check), no sooner than sync_after
 * (SYNC_GAP_FACTOR times the last diff's cost after it), and while
 * signals keep coming, at the latest that gap (at most SYNC_GAP_MAX_NS)
 * after the first. A burst of mounts shorter than the gap costs one diff
 * at its end, a longer one a diff per gap: no diff per event. The checks
 * for quiet (wakeups by the timer: signals do not wake the caller then,
 * see follow_signals()) come POLL_QUIET_NS after the first signal, then
 * half the time since the first after the last: a few per burst.
 */
static int64_t poll_when(const struct mntkit_watch *w)
{
	int64_t gap = SYNC_GAP_FACTOR * w->diff_cost;
	int64_t wait = (w->last_activity - w->verify_first) / 2;
	int64_t due = w->last_activity +
		      (wait > POLL_QUIET_NS ? wait : POLL_QUIET_NS);
	int64_t latest = w->verify_first +
			 (gap < SYNC_GAP_MAX_NS ? gap : SYNC_GAP_MAX_NS);

	if (latest < w->sync_after)
		latest = w->sync_after;
	if (due < w->sync_after)
		due = w->sync_after;
	return due < latest ? due : latest;
}

/*
 * When to check the signals of the fanotify source (VERIFY_*). A signal
 * with no fanotify event after it is most likely a change fanotify does
 * not report (remount, mount_setattr); one that came with fanotify events
 * may hide such a change, and is checked once the namespace is quiet: a
 * burst of mounts costs one diff at its end (more only when it lasts
 * longer than the cap), never a diff per event.
 */
static int64_t verify_when(const struct mntkit_watch *w)
{
	int64_t due, most = VERIFY_COST_FACTOR * w->diff_cost;

	if (w->source == MNTKIT_WATCH_POLL)
		return poll_when(w);
	if (most < VERIFY_MAX_NS)
		most = VERIFY_MAX_NS;
	if (w->fan_events == w->fan_at_first)
		due = w->verify_first + VERIFY_PURE_NS;
	else
		due = w->last_activity + VERIFY_QUIET_NS;
	if (due < w->check_after)
		due = w->check_after;
	if (due > w->verify_first + most)
		due = w->verify_first + most;
	return due;
}

static int process(struct mntkit_watch *w)
{
	struct epoll_event evs[4];
	/* events fed since the last call came with this wakeup's signals */
	uint64_t ticks, fan_before = w->fan_events - w->fed_new;
	int got = w->fed_new > 0, pri, n, timer = 0, fan = 0;
	int64_t now;

	w->fed_new = 0;

	/*
	 * Clears the wakeup file's POLLPRI (the private file says what was
	 * signalled); and tells which of the timer and fanotify have
	 * something to read (level-triggered: what is left is told again).
	 */
	n = epoll_wait(w->epfd, evs, MNTKIT_ARRAY_SIZE(evs), 0);
	for (int i = 0; i < n; i++) {
		timer |= evs[i].data.fd == w->timer_fd;
		fan |= evs[i].data.fd == w->fan_fd;
	}
	if (n < 0) /* cannot tell: read both */
		timer = fan = 1;
	if (timer) {
		w->armed = -1; /* it went off, or may have */
		if (read(w->timer_fd, &ticks, sizeof(ticks)) < 0 &&
		    errno != EAGAIN)
			w->need_resync = 1;
	}
	if (fan && w->fan_fd >= 0)
		fan_drain(w, &got);
	pri = mi_signalled(w);
	if (w->need_resync)
		return sync_table(w, 1);
	now = now_ns();
	/*
	 * A signal postpones the rescan: a diff follows it (below), which
	 * sees what a rescan would (a lines diff sees every line that
	 * changed, propagation included), and a rescan during a burst of
	 * mounts would pay for every mount the burst added.
	 */
	if (pri)
		schedule_rescan(w, now);
	if (pri && !w->verify_first) {
		w->verify_first = now;
		w->fan_at_first = fan_before;
	}
	if (pri || got)
		w->last_activity = now;
	if (w->verify_first)
		w->verify_due = verify_when(w);
	if (w->rescan_due && now >= w->rescan_due)
		return sync_table(w, 0);
	if (w->verify_due && now >= w->verify_due)
		return sync_signalled(w);
	arm_timer(w);
	return 0;
}

/* the next event into the caller's @ev: what fits in its size */
static int pop(struct mntkit_watch *w, struct mntkit_event *ev)
{
	size_t size = ev->size, fit;

	if (w->q.head == w->q.n)
		return 0;
	w->cur = w->q.v[w->q.head++];
	fit = size < sizeof(w->cur.ev) ? size : sizeof(w->cur.ev);
	memcpy(ev, &w->cur.ev, fit);
	ev->size = size;
	return 1;
}

int mntkit_watch_read(struct mntkit_watch *w, struct mntkit_event *ev)
{
	int ret;

	if (!w || !ev || ev->size < MNTKIT_EVENT_SIZE_VER0)
		return mntkit__fail(EINVAL);
	if (w->all) {
		ret = mntkit__watch_all_read(w->all, ev);
		return ret < 0 ? mntkit__fail(-ret) : ret;
	}
	MNTKIT__PIN_OPS(w->ops);
	qev_free(&w->cur);
	if (pop(w, ev))
		return 1;
	ret = process(w);
	if (pop(w, ev))
		return 1;
	return ret < 0 ? mntkit__fail(-ret) : 0;
}

int mntkit_watch_rescan(struct mntkit_watch *w)
{
	int ret;

	if (!w)
		return mntkit__fail(EINVAL);
	if (w->all) {
		ret = mntkit__watch_all_rescan(w->all);
		return ret < 0 ? mntkit__fail(-ret) : 0;
	}
	MNTKIT__PIN_OPS(w->ops);
	ret = sync_table(w, w->need_resync);
	return ret < 0 ? mntkit__fail(-ret) : 0;
}

int mntkit_watch_fd(const struct mntkit_watch *w)
{
	return w ? w->epfd : mntkit__fail(EINVAL);
}

enum mntkit_watch_source
mntkit_watch_get_source(const struct mntkit_watch *w)
{
	return w ? w->source : MNTKIT_WATCH_AUTO;
}

const char *mntkit_watch_source_name(enum mntkit_watch_source source)
{
	switch (source) {
	case MNTKIT_WATCH_AUTO:
		return "auto";
	case MNTKIT_WATCH_FANOTIFY:
		return "fanotify";
	case MNTKIT_WATCH_POLL:
		return "poll";
	}
	return NULL;
}

/* ---- opening ---- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void mntkit_watch_free(struct mntkit_watch *w)
{
	if (!w)
		return;
	if (w->all) { /* its epfd is @all's */
		mntkit__watch_all_free(w->all);
		w->epfd = -1;
	}
	close_fd(&w->epfd);
	close_fd(&w->fan_fd);
	close_fd(&w->wake_fd);
	close_fd(&w->mi_fd);
	close_fd(&w->timer_fd);
	close_fd(&w->req_fd);
	if (w->held)
		mntkit__emul_ns_release(w->ns_dev, w->ns_ino);
	qev_free(&w->cur);
	q_free(&w->q);
	map_free(&w->view);
	map_free(&w->kids);
	lines_free(&w->lines);
	free(w->mibuf);
	free(w->buf);
	free(w->pbuf);
	free(w->fanbuf);
	free(w);
}

/* what to watch, resolved: an fd of the namespace and two mountinfo fds */
struct nsfiles {
	int ns_fd;
	int mi[2];
};

/* open /proc/PID/{ns/mnt,mountinfo} ("thread-self" for pid 0) */
static int open_pid_files(pid_t pid, struct nsfiles *f)
{
	char path[64];
	const char *dir = "thread-self";
	char pidbuf[16];

	if (pid) {
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)pid);
		dir = pidbuf;
	}
	snprintf(path, sizeof(path), "/proc/%s/ns/mnt", dir);
	f->ns_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->ns_fd < 0 && errno == ENOENT && !pid) {
		/* no /proc: fanotify alone can watch (mntkit_watch_new) */
		f->ns_fd = mntkit__own_ns_fd();
		return f->ns_fd < 0 ? f->ns_fd : 0;
	}
	if (f->ns_fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/%s/mountinfo", dir);
	for (int i = 0; i < 2; i++) {
		f->mi[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (f->mi[i] < 0)
			return -errno;
	}
	return 0;
}

static int open_fd_files(int ns_fd, struct nsfiles *f)
{
	f->ns_fd = fcntl(ns_fd, F_DUPFD_CLOEXEC, 3);
	if (f->ns_fd < 0)
		return -errno;
	return mntkit__ns_enter_open(ns_fd, f->mi, 2, NULL);
}

/* a process in mount namespace @id (6.10+ has namespace IDs) */
static int pid_of_ns(uint64_t id, pid_t *pid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int ret = -ENOENT;

	if (!d)
		return -errno;
	while (ret == -ENOENT && (de = readdir(d))) {
		char *end;
		long p = strtol(de->d_name, &end, 10);
		uint64_t nsid;
		int fd;

		if (*end || p <= 0)
			continue;
		fd = mntkit_ns_open_pid((pid_t)p);
		if (fd < 0)
			continue;
		if (ioctl(fd, MNTKIT_NS_GET_MNTNS_ID, &nsid) == 0 &&
		    nsid == id) {
			*pid = (pid_t)p;
			ret = 0;
		}
		close(fd);
	}
	closedir(d);
	return ret;
}

static int open_ns_files(const struct mntkit_opts *opts, struct nsfiles *f)
{
	struct mntkit_opts o = { 0 };
	pid_t pid = 0;
	int ret;

	if (opts)
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	if (o.mnt_ns_fd)
		return open_fd_files(o.mnt_ns_fd, f);
	if (o.mnt_ns_id) {
		int fd;

		ret = pid_of_ns(o.mnt_ns_id, &pid);
		if (ret != -ENOENT)
			return ret ? ret : open_pid_files(pid, f);
		/* no process in it: found by ID (6.12+), entered with setns */
		fd = mntkit_ns_open_id(o.mnt_ns_id);
		if (fd < 0)
			return fd;
		ret = open_fd_files(fd, f);
		close(fd);
		return ret;
	}
	return open_pid_files(o.pid, f);
}

static int fan_open(int ns_fd)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | MNTKIT_FAN_REPORT_MNT |
				       FAN_NONBLOCK | FAN_CLOEXEC,
			       O_RDONLY);

	if (fd < 0)
		return -errno;
	if (fanotify_mark(fd, FAN_MARK_ADD | MNTKIT_FAN_MARK_MNTNS,
			  MNTKIT_FAN_MNT_ATTACH | MNTKIT_FAN_MNT_DETACH, ns_fd,
			  NULL)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

/* the source: fanotify where it can (or must) be had, else poll */
static int pick_source(struct mntkit_watch *w, enum mntkit_watch_source want,
		       int ns_fd)
{
	int possible = mntkit__kernel_fanotify() &&
		       mntkit_get_backend() == MNTKIT_BACKEND_NATIVE;

	w->source = MNTKIT_WATCH_POLL;
	if (want == MNTKIT_WATCH_POLL)
		return 0;
	if (w->fed) { /* the caller marked the namespace in its group */
		w->source = MNTKIT_WATCH_FANOTIFY;
		return possible ? 0 : -EOPNOTSUPP;
	}
	if (!possible) {
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: poll source (%s)",
			      mntkit_get_backend() != MNTKIT_BACKEND_NATIVE ?
				      "the mountinfo backend" :
				      "no fanotify mount events, 6.15+");
		return want == MNTKIT_WATCH_FANOTIFY ? -EOPNOTSUPP : 0;
	}
	w->fan_fd = fan_open(ns_fd);
	if (w->fan_fd < 0) {
		int err = w->fan_fd;

		w->fan_fd = -1;
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: fanotify failed (%s)%s", strerror(-err),
			      want == MNTKIT_WATCH_FANOTIFY ?
				      "" : ": poll source instead");
		return want == MNTKIT_WATCH_FANOTIFY ? err : 0;
	}
	mntkit__debug(MNTKIT_PRINT_INFO, "watch: fanotify source");
	w->source = MNTKIT_WATCH_FANOTIFY;
	w->fanbuf = malloc(FAN_BUFSIZE);
	return w->fanbuf ? 0 : -ENOMEM;
}

static int setup_fds(struct mntkit_watch *w)
{
	int ret;

	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->timer_fd = timerfd_create(CLOCK_MONOTONIC,
				     TFD_NONBLOCK | TFD_CLOEXEC);
	if (w->epfd < 0 || w->timer_fd < 0)
		return -errno;
	ret = w->wake_fd < 0 ? 0 : epoll_add(w->epfd, w->wake_fd, EPOLLPRI);
	w->wake_on = w->wake_fd >= 0 && !ret;
	if (!ret)
		ret = epoll_add(w->epfd, w->timer_fd, EPOLLIN);
	if (!ret && w->fan_fd >= 0)
		ret = epoll_add(w->epfd, w->fan_fd, EPOLLIN);
	return ret;
}

/* the first snapshot becomes the view (and ATTACH events if asked) */
static int first_view(struct mntkit_watch *w, unsigned int flags)
{
	struct mntkit_table *t;
	int64_t t0 = cpu_ns();
	struct lines l;
	int ret;

	lines_read(w, &l);
	ret = build_table(w, &t);
	if (ret) {
		lines_free(&l);
		return ret;
	}
	w->diff_cost = w->rescan_cost = cpu_ns() - t0;
	ret = apply_table(w, t);
	mntkit_table_free(t);
	lines_keep(w, &l, !ret);
	if (ret)
		return ret;
	if (!(flags & MNTKIT_WATCH_INITIAL)) {
		for (size_t i = w->q.head; i < w->q.n; i++)
			qev_free(&w->q.v[i]);
		w->q.head = w->q.n = 0;
		w->q.seq = 0; /* the first event read is 1 */
	}
	schedule_rescan(w, now_ns());
	arm_timer(w);
	return 0;
}

/* pin "the caller's namespace" to the one of the calling thread now */
static void pin_own_ns(struct mntkit_watch *w, const struct mntkit_opts *o,
		       int ns_fd)
{
	uint64_t id;

	if (o && (o->mnt_ns_id || o->mnt_ns_fd || o->pid))
		return;
	if (mntkit_get_backend() != MNTKIT_BACKEND_NATIVE ||
	    !(mntkit__kernel_features() & MNTKIT_FEAT_REQ_NS_ID))
		return;
	if (ioctl(ns_fd, MNTKIT_NS_GET_MNTNS_ID, &id) == 0) {
		w->req.size = MNTKIT_MNT_ID_REQ_SIZE_VER1;
		w->req.mnt_ns_id = id;
	}
}

static int watch_opts_copy(const struct mntkit_watch_opts *in,
			   struct mntkit_watch_opts *out)
{
	int ret = mntkit__sized_in(out, sizeof(*out), in, in ? in->size : 0,
				   MNTKIT_WATCH_OPTS_SIZE_VER0);

	if (ret)
		return ret;
	if (out->source > MNTKIT_WATCH_POLL ||
	    (out->flags & ~(MNTKIT_WATCH_INITIAL | MNTKIT_WATCH_ALL_NS)))
		return -EINVAL;
	return 0;
}

/*
 * ---- all-namespace watches (lib/watch-all.c) ----
 * A watch whose @all does the work; its @epfd is @all's, its @source the
 * first namespace's. watch-all.c makes and reads the namespaces' watches
 * through these public calls, handed down (it calls nothing of this file).
 */

static int watch_new(const struct mntkit_watch_opts *wopts,
		     const struct mntkit_opts *opts, int fed,
		     struct mntkit_watch **out);

static int watch_new_fed(const struct mntkit_watch_opts *wopts,
			 const struct mntkit_opts *opts,
			 struct mntkit_watch **out)
{
	return watch_new(wopts, opts, 1, out);
}

/*
 * An event of the all-namespace watch's group: FAN_Q_OVERFLOW (a resync
 * at the next read), or an ATTACH/DETACH of mount @id that is this
 * namespace's if its view holds it or its namespace has it (fan_event()).
 * 1: it was (the events are queued: the caller reads them), 0: not, -1:
 * cannot tell (a resync is owed: the caller reads it, and asks on).
 */
static int watch_feed(struct mntkit_watch *w, uint64_t id, uint64_t mask)
{
	MNTKIT__PIN_OPS(w->ops);
	int ret;

	if (mask & MNTKIT_FAN_Q_OVERFLOW) {
		w->need_resync = 1;
		return 1;
	}
	if (mask & MNTKIT__FEED_GONE) { /* ours, gone: ATTACH F_GONE */
		fan_gone(w, id, MNTKIT_FAN_MNT_ATTACH);
		w->fan_events++;
		w->fed_new++;
		return 1;
	}
	if (!id || !(mask & (MNTKIT_FAN_MNT_ATTACH | MNTKIT_FAN_MNT_DETACH)))
		return 0;
	ret = fan_event(w, id, mask);
	if (ret > 0) {
		w->fan_events++;
		w->fed_new++;
	}
	return ret;
}

static int watch_holds(const struct mntkit_watch *w, uint64_t id)
{
	return map_find(&w->view, id) != NULL;
}

static int watch_shares(const struct mntkit_watch *w)
{
	return w->shared > 0;
}

static int watch_signal_fd(const struct mntkit_watch *w)
{
	return w->mi_fd;
}

static void watch_signalled(struct mntkit_watch *w)
{
	w->mi_noted = 1;
}

static const struct mntkit__watch_ns_ops ns_ops = {
	.open = mntkit_watch_new,
	.open_fed = watch_new_fed,
	.read = mntkit_watch_read,
	.rescan = mntkit_watch_rescan,
	.fd = mntkit_watch_fd,
	.source = mntkit_watch_get_source,
	.feed = watch_feed,
	.holds = watch_holds,
	.shares = watch_shares,
	.signal_fd = watch_signal_fd,
	.signalled = watch_signalled,
	.free = mntkit_watch_free,
};

static int watch_all_new(const struct mntkit_watch_opts *wo,
			 struct mntkit_watch **out)
{
	struct mntkit_watch *w = calloc(1, sizeof(*w));
	int ret;

	if (!w)
		return mntkit__fail(ENOMEM);
	w->fan_fd = w->wake_fd = w->mi_fd = w->timer_fd = w->req_fd = -1;
	ret = mntkit__watch_all_new(wo, &ns_ops, &w->all);
	if (ret) {
		free(w);
		return mntkit__fail(-ret);
	}
	w->epfd = mntkit__watch_all_fd(w->all);
	w->source = mntkit__watch_all_source(w->all);
	*out = w;
	return 0;
}

ssize_t mntkit_watch_ns_skipped(const struct mntkit_watch *w)
{
	if (!w)
		return mntkit__fail(EINVAL);
	return w->all ? (ssize_t)mntkit__watch_all_skipped(w->all) : 0;
}

static int watch_new(const struct mntkit_watch_opts *wopts,
		     const struct mntkit_opts *opts, int fed,
		     struct mntkit_watch **out)
{
	MNTKIT__PIN();
	struct nsfiles f = { .ns_fd = -1, .mi = { -1, -1 } };
	struct mntkit_watch_opts wo;
	struct mntkit_opts o = { 0 };
	struct mntkit_watch *w;
	int ret;

	if (!out)
		return mntkit__fail(EINVAL);
	*out = NULL;
	ret = watch_opts_copy(wopts, &wo);
	if (ret)
		return mntkit__fail(-ret);
	if (wo.flags & MNTKIT_WATCH_ALL_NS)
		return opts || fed ? mntkit__fail(EINVAL) :
				     watch_all_new(&wo, out);
	w = calloc(1, sizeof(*w));
	if (!w)
		return mntkit__fail(ENOMEM);
	w->epfd = w->fan_fd = w->wake_fd = w->mi_fd = w->timer_fd = -1;
	w->armed = -1;
	w->fed = fed;
	w->ops = mntkit__ops(); /* pinned above: this call's backend */
	w->mask = (wo.mask ? wo.mask : DEFAULT_MASK) |
		  MNTKIT_STATMOUNT_MNT_BASIC;
	w->rescan_ms = wo.rescan_ms;
	ret = mntkit__req_init(&w->req, opts, &w->req_fd);
	if (ret)
		goto fail;
	if (opts) /* valid: mntkit__req_init() checked it */
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	ret = open_ns_files(opts, &f);
	if (ret)
		goto fail;
	w->wake_fd = f.mi[0];
	w->mi_fd = f.mi[1];
	f.mi[0] = f.mi[1] = -1;
	pin_own_ns(w, &o, f.ns_fd);
	/* its mounts stay readable once no process is left in it: the
	 * emulation (or a hybrid reply) reads it through this hold */
	if (f.ns_fd >= 0 &&
	    !mntkit__emul_ns_hold(f.ns_fd, &w->ns_dev, &w->ns_ino))
		w->held = 1;
	/* the mark before the snapshot: nothing falls between the two */
	ret = pick_source(w, wo.source, f.ns_fd);
	if (!ret && w->wake_fd < 0 && w->source != MNTKIT_WATCH_FANOTIFY)
		ret = -ENOENT; /* no /proc, and the poll source needs it */
	if (!ret)
		ret = setup_fds(w);
	if (!ret)
		ret = first_view(w, wo.flags);
	if (ret)
		goto fail;
	close_fd(&f.ns_fd);
	*out = w;
	return 0;
fail:
	close_fd(&f.ns_fd);
	close_fd(&f.mi[0]);
	close_fd(&f.mi[1]);
	mntkit_watch_free(w);
	return mntkit__fail(-ret);
}

int mntkit_watch_new(const struct mntkit_watch_opts *wopts,
		     const struct mntkit_opts *opts, struct mntkit_watch **out)
{
	return watch_new(wopts, opts, 0, out);
}
