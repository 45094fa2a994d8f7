// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-watch-allns - one watch over every mount namespace
 * (MNTKIT_WATCH_F_ALL_NS), on both backends.
 *
 * Each case runs as PID 1 of a PID namespace of its own, with its own
 * /proc, inside a private mount namespace: the watch sees the case's
 * namespaces only (not those of whatever else runs on the machine).
 * Children ("kids"), each in a private mount namespace of its own, mount
 * and unmount tmpfs on command; kids are started and stopped during the
 * run. The oracle is a model per namespace, built from the events alone:
 * NS_ADD starts a namespace empty (the watch is made with
 * MNTKIT_WATCH_F_INITIAL, and a namespace found later always brings the
 * ATTACH events of its mounts), each event is checked against it (an
 * ATTACH of an unknown ID, a DETACH/MOVE/CHANGE whose `before` is the
 * record held) and applied. Checked: every event names the namespace it
 * belongs to (its ID and the PID of the one process in it; a tmpfs a kid
 * mounted is reported in that kid's namespace, its record's mnt_ns_id
 * agrees), sequence numbers have no gap, no event of a namespace comes
 * before its NS_ADD or after its NS_GONE, a stopped kid's namespace ends
 * with NS_GONE, and the model of each namespace equals its table: for a
 * live one at the end, for a gone one as it was before its kid exited.
 * Nothing lost, nothing invented. The watch does no timed rescans of
 * mounts (MNTKIT_WATCH_NO_RESCAN), which could repair a lost event.
 */
#include <dirent.h>
#include <poll.h>
#include <sys/fanotify.h>
#include <sys/resource.h>
#include <time.h>

#include "harness.h"
#include "mntkit.h"

#define MASK (MNTKIT_STATMOUNT_ALL & ~MNTKIT_STATMOUNT_SUPPORTED_MASK)
#define MAX_KIDS 48
#define GROUP_KIDS 40 /* namespaces of one_fanotify_group */
#define SLOTS 8

/* ---- the model: per namespace, mount ID -> record copy ---- */

struct nsm {
	uint64_t id;
	uint64_t mono_ns; /* of its last event */
	pid_t pid;
	int gone;
	size_t n, cap;
	uint64_t *mid;
	struct mntkit_statmount **sm;
};

struct model {
	struct nsm *v;
	size_t n, cap;
	uint64_t seq;
	size_t events, adds, gones, resyncs;
	uint64_t resync_ns; /* a RESYNC's namespace: its NS_GONE is next */
	size_t gone_attach; /* ATTACH F_GONE: mounts gone before a look */
	uint64_t gone_ns;   /* the namespace of the last one */
};

static struct mntkit_statmount *sm_copy(const struct mntkit_statmount *sm)
{
	struct mntkit_statmount *c = malloc(sm->size);

	if (!c)
		t_fail("out of memory");
	memcpy(c, sm, sm->size);
	return c;
}

static int sm_equal(const struct mntkit_statmount *a,
		    const struct mntkit_statmount *b)
{
	return a->size == b->size && !memcmp(a, b, a->size);
}

/* the offset of the first byte where @a and @b differ */
static size_t sm_first_diff(const struct mntkit_statmount *a,
			    const struct mntkit_statmount *b)
{
	const unsigned char *x = (const void *)a, *y = (const void *)b;
	size_t n = a->size < b->size ? a->size : b->size, i = 0;

	while (i < n && x[i] == y[i])
		i++;
	return i;
}

static const char *sm_point(const struct mntkit_statmount *sm)
{
	const char *s;

	if (!sm || mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &s) < 0)
		return "?";
	return s;
}

static const char *sm_source(const struct mntkit_statmount *sm)
{
	const char *s;

	if (!sm || mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_SB_SOURCE, &s) < 0)
		return "";
	return s;
}

static struct nsm *nsm_find(struct model *m, uint64_t id)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].id == id)
			return &m->v[i];
	return NULL;
}

static ssize_t nsm_mount(const struct nsm *ns, uint64_t id)
{
	for (size_t i = 0; i < ns->n; i++)
		if (ns->mid[i] == id)
			return (ssize_t)i;
	return -1;
}

static void nsm_add(struct nsm *ns, const struct mntkit_statmount *sm)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 32;
		ns->mid = realloc(ns->mid, ns->cap * sizeof(*ns->mid));
		ns->sm = realloc(ns->sm, ns->cap * sizeof(*ns->sm));
		if (!ns->mid || !ns->sm)
			t_fail("out of memory");
	}
	ns->mid[ns->n] = sm->mnt_id;
	ns->sm[ns->n++] = sm_copy(sm);
}

/* the model of @ns equals @t, record for record */
static void nsm_check(const struct nsm *ns, const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t);

	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);
		ssize_t k = nsm_mount(ns, sm->mnt_id);

		T_ASSERTF(k >= 0,
			  "namespace %" PRIu64 ": mount %#" PRIx64
			  " (%s) never attached",
			  ns->id, sm->mnt_id, sm_point(sm));
		T_ASSERTF(sm_equal(sm, ns->sm[k]),
			  "namespace %" PRIu64 ": mount %#" PRIx64
			  " (%s): record differs from the events' (size %u"
			  " mask %#" PRIx64 " there, %u mask %#" PRIx64
			  " here, first at byte %zu)",
			  ns->id, sm->mnt_id, sm_point(sm), ns->sm[k]->size,
			  ns->sm[k]->mask, sm->size, sm->mask,
			  sm_first_diff(sm, ns->sm[k]));
	}
	for (size_t i = 0; i < ns->n; i++)
		T_ASSERTF(mntkit_table_find(t, ns->mid[i]) >= 0,
			  "namespace %" PRIu64 ": mount %#" PRIx64
			  " (%s) never detached",
			  ns->id, ns->mid[i], sm_point(ns->sm[i]));
	T_EQ_U(ns->n, n);
}

/* does the model of @ns equal @t? */
static int nsm_same(const struct nsm *ns, const struct mntkit_table *t)
{
	if (!ns || ns->n != mntkit_table_count(t))
		return 0;
	for (size_t i = 0; i < ns->n; i++) {
		ssize_t k = mntkit_table_find(t, ns->mid[i]);

		if (k < 0 || !sm_equal(mntkit_table_get(t, (size_t)k),
				       ns->sm[i]))
			return 0;
	}
	return 1;
}

/* ---- the world: the case's namespace and its kids ---- */

struct kid {
	pid_t pid;
	int go, ready;
	uint64_t nsid;
	int live, stopped; /* stopped: told to exit, NS_GONE owed */
	int slot[SLOTS];   /* mounted */
	struct mntkit_table *last; /* its table before it exited */
};

struct world {
	const char *base;
	uint64_t own_id;
	struct kid k[MAX_KIDS];
	int nkids;
	int own_slot[SLOTS];
	struct model m;
	unsigned int seed;
	int mountinfo;
	int read_failed; /* a namespace's read failed: it resynchronizes */
};

static int kid_of_ns(const struct world *wd, uint64_t id)
{
	for (int i = 0; i < wd->nkids; i++)
		if (wd->k[i].nsid == id)
			return i;
	return -1;
}

/* the kid's index from a tmpfs it mounted ("allns-kI"), else -1 */
static int kid_of_source(const char *src)
{
	int i;
	char end;

	if (sscanf(src, "allns-k%d%c", &i, &end) == 1)
		return i;
	return -2; /* the case's own ("allns-own") or not ours */
}

static void kid_loop(const char *dir, int idx, int go, int ready)
{
	unsigned char cmd[2];
	char path[PATH_MAX], src[32];

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		_exit(1);
	snprintf(src, sizeof(src), "allns-k%d", idx);
	t_write_full(ready, "r", 1);
	for (;;) {
		ssize_t got;
		int r;

		/* EOF: the case ended (a skip, a failure) without stopping
		 * it; its reason is the case's, not ours to overwrite */
		do
			got = read(go, cmd, 2);
		while (got < 0 && errno == EINTR);
		if (got != 2 || cmd[0] == 'x')
			_exit(0);
		snprintf(path, sizeof(path), "%s/%d", dir, cmd[1]);
		r = cmd[0] == 'm' ? mount(src, path, "tmpfs", 0, NULL) :
				    umount(path);
		t_write_full(ready, r ? "e" : "o", 1);
	}
}

/*
 * The ID the watch gives a namespace: NS_GET_MNTNS_ID (6.10+), else the
 * inode number of its nsfs file (mntkit_watch(3)), for process @pid (0:
 * this one).
 */
static int ns_id_of(pid_t pid, uint64_t *id)
{
	char path[64];
	struct stat st;
	int ret = mntkit_ns_id_from_pid(pid, id);

	if (ret != -EOPNOTSUPP && ret != -ENOTTY)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt",
		 pid ? (int)pid : (int)getpid());
	if (stat(path, &st))
		return -errno;
	*id = (uint64_t)st.st_ino;
	return 0;
}

static void kid_start(struct world *wd)
{
	struct kid *k = &wd->k[wd->nkids];
	int go[2], ready[2], idx = wd->nkids;
	char *dir = t_path("%s/k%d", wd->base, idx);
	char c;

	T_ASSERT(wd->nkids < MAX_KIDS);
	t_mkdir(dir);
	for (int j = 0; j < SLOTS; j++)
		t_mkdir(t_path("%s/%d", dir, j));
	T_OK(pipe(go));
	T_OK(pipe(ready));
	k->pid = fork();
	T_OK(k->pid);
	if (k->pid == 0) {
		close(go[1]);
		close(ready[0]);
		kid_loop(dir, idx, go[0], ready[1]);
	}
	close(go[0]);
	close(ready[1]);
	k->go = go[1];
	k->ready = ready[0];
	t_read_full(k->ready, &c, 1);
	T_OK(ns_id_of(k->pid, &k->nsid));
	T_ASSERT(k->nsid != wd->own_id);
	k->live = 1;
	wd->nkids++;
}

static void kid_op(struct kid *k, int slot)
{
	unsigned char cmd[2] = { k->slot[slot] ? 'u' : 'm',
				 (unsigned char)slot };
	char c;

	t_write_full(k->go, cmd, 2);
	t_read_full(k->ready, &c, 1);
	T_ASSERTF(c == 'o', "kid %d: %s of slot %d failed", (int)k->pid,
		  cmd[0] == 'm' ? "mount" : "umount", slot);
	k->slot[slot] = !k->slot[slot];
}

static void drain(struct world *wd, struct mntkit_watch *w);

/*
 * Read events until the model of kid @k's namespace is its table. The
 * emulation reads a namespace through a process in it: a change the
 * watch has not diffed when the last process leaves is lost (a RESYNC
 * before NS_GONE says so); the cases that check every event wait so.
 */
static void kid_caught_up(struct world *wd, struct mntkit_watch *w,
			  struct kid *k)
{
	MNTKIT_OPTS(o, .pid = k->pid);
	double end = t_now() + 10;

	for (;;) {
		struct mntkit_table *t;
		int same;

		drain(wd, w);
		T_OK(mntkit_table_new(MASK, 0, &o, &t));
		same = nsm_same(nsm_find(&wd->m, k->nsid), t);
		mntkit_table_free(t);
		if (same)
			return;
		if (t_now() > end)
			t_fail("kid %d: the events never gave its table",
			       (int)k->pid);
		usleep(10000);
	}
}

/*
 * Read events until kid @k's namespace is added: one that lives less than
 * the watch's scan interval may never be seen (the kernel signals no new
 * namespace), and would owe no NS_GONE.
 */
static void kid_added(struct world *wd, struct mntkit_watch *w,
		      struct kid *k)
{
	struct pollfd p = { .fd = mntkit_watch_fd(w), .events = POLLIN };
	double end = t_now() + 10;

	for (drain(wd, w); !nsm_find(&wd->m, k->nsid); drain(wd, w)) {
		if (t_now() > end)
			t_fail("kid %d: no NS_ADD of its namespace",
			       (int)k->pid);
		poll(&p, 1, 50);
	}
}

static void kid_stop(struct kid *k)
{
	MNTKIT_OPTS(o, .pid = k->pid);

	/* its table now is its last: it changes nothing more */
	T_OK(mntkit_table_new(MASK, 0, &o, &k->last));
	t_write_full(k->go, "x\0", 2);
	t_wait_child(k->pid, "kid");
	close(k->go);
	close(k->ready);
	k->live = 0;
	k->stopped = 1;
}

static void own_op(struct world *wd, int slot)
{
	char *p = t_path("%s/own/%d", wd->base, slot);

	if (wd->own_slot[slot])
		t_umount(p);
	else
		t_mount("allns-own", p, "tmpfs", 0, NULL);
	wd->own_slot[slot] = !wd->own_slot[slot];
	free(p);
}

/* ---- the events ---- */

static void apply(struct world *wd, const struct mntkit_event *ev)
{
	struct model *m = &wd->m;
	struct nsm *ns = nsm_find(m, ev->mnt_ns_id);
	const struct mntkit_statmount *sm = ev->after ? ev->after : ev->before;
	int kid = kid_of_ns(wd, ev->mnt_ns_id);
	ssize_t i;

	T_EQ_U(ev->size, sizeof(*ev));
	if (m->seq)
		T_EQ_U(ev->seq, m->seq + 1);
	m->seq = ev->seq;
	/* a namespace's events: learned after its NS_ADD, in order */
	if (ns)
		T_ASSERTF(ev->monotonic_ns >= ns->mono_ns,
			  "event %" PRIu64 ": monotonic time went back",
			  ev->seq);
	m->events++;
	if (m->resync_ns) {
		T_EQ_U(ev->kind, MNTKIT_EVENT_NS_GONE);
		T_EQ_U(ev->mnt_ns_id, m->resync_ns);
		m->resync_ns = 0;
	}
	/* the namespace: the case's own or a kid's, with its one process */
	T_ASSERTF(kid >= 0 || ev->mnt_ns_id == wd->own_id,
		  "event %s of unknown namespace %" PRIu64,
		  mntkit_event_kind_name(ev->kind), ev->mnt_ns_id);
	T_EQ_I(ev->ns_pid, kid >= 0 ? wd->k[kid].pid : 1);
	if (ev->kind == MNTKIT_EVENT_NS_ADD) {
		T_ASSERTF(!ns, "second NS_ADD of %" PRIu64, ev->mnt_ns_id);
		T_ASSERT(!ev->before && !ev->after && !ev->mnt_id);
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 16;
			m->v = realloc(m->v, m->cap * sizeof(*m->v));
			if (!m->v)
				t_fail("out of memory");
		}
		m->v[m->n++] = (struct nsm){ .id = ev->mnt_ns_id,
					     .pid = ev->ns_pid,
					     .mono_ns = ev->monotonic_ns };
		m->adds++;
		return;
	}
	T_ASSERTF(ns && !ns->gone, "%s in namespace %" PRIu64 " %s",
		  mntkit_event_kind_name(ev->kind), ev->mnt_ns_id,
		  ns ? "after its NS_GONE" : "before its NS_ADD");
	ns->mono_ns = ev->monotonic_ns;
	switch (ev->kind) {
	case MNTKIT_EVENT_NS_GONE:
		T_ASSERTF(kid >= 0 && wd->k[kid].stopped,
			  "NS_GONE of namespace %" PRIu64 " whose process "
			  "still runs", ev->mnt_ns_id);
		T_ASSERT(!ev->before && !ev->after && !ev->mnt_id);
		nsm_check(ns, wd->k[kid].last);
		ns->gone = 1;
		m->gones++;
		return;
	case MNTKIT_EVENT_RESYNC:
		if (wd->read_failed) {
			/* the events up to resync_end replace what the
			 * failed read may have lost: applied as any */
			T_ASSERT(ev->resync_end >= ev->seq);
			m->resyncs++;
			return;
		}
		/*
		 * Only where a namespace's last process left before its
		 * last diff could be made, on the emulation (which reads a
		 * namespace through a process in it): nothing follows.
		 */
		T_ASSERTF(wd->mountinfo ||
				  mntkit_get_backend() == MNTKIT_BACKEND_MOUNTINFO,
			  "RESYNC in namespace %" PRIu64, ev->mnt_ns_id);
		T_EQ_U(ev->resync_end, ev->seq);
		T_ASSERT(!ev->before && !ev->after && !ev->mnt_id);
		m->resync_ns = ev->mnt_ns_id;
		m->resyncs++;
		return;
	case MNTKIT_EVENT_ATTACH:
	case MNTKIT_EVENT_DETACH:
	case MNTKIT_EVENT_MOVE:
	case MNTKIT_EVENT_CHANGE:
		break;
	default:
		t_fail("unknown event kind %d", (int)ev->kind);
	}
	/*
	 * A kid's tmpfs is in the kid's namespace only (the case's own
	 * are copied into the kids started after them); the record agrees.
	 */
	if (kid_of_source(sm_source(sm)) != -2)
		T_ASSERTF(kid_of_source(sm_source(sm)) == kid,
			  "%s of %s reported in namespace %" PRIu64,
			  mntkit_event_kind_name(ev->kind), sm_source(sm),
			  ev->mnt_ns_id);
	if (sm->mask & MNTKIT_STATMOUNT_MNT_NS_ID)
		T_EQ_U(sm->mnt_ns_id, ev->mnt_ns_id);
	i = nsm_mount(ns, ev->mnt_id);
	if (ev->kind == MNTKIT_EVENT_ATTACH) {
		T_ASSERTF(i < 0, "ATTACH of known mount %#" PRIx64, ev->mnt_id);
		if (ev->flags & MNTKIT_EVENT_F_GONE) {
			m->gone_attach++;
			m->gone_ns = ev->mnt_ns_id;
		}
		T_ASSERT(ev->after && !ev->before);
		nsm_add(ns, ev->after);
		return;
	}
	T_ASSERTF(i >= 0, "%s of unknown mount %#" PRIx64,
		  mntkit_event_kind_name(ev->kind), ev->mnt_id);
	T_ASSERTF(sm_equal(ev->before, ns->sm[i]),
		  "%s %#" PRIx64 ": before != the record seen",
		  mntkit_event_kind_name(ev->kind), ev->mnt_id);
	free(ns->sm[i]);
	if (ev->kind == MNTKIT_EVENT_DETACH) {
		ns->mid[i] = ns->mid[ns->n - 1];
		ns->sm[i] = ns->sm[--ns->n];
	} else {
		ns->sm[i] = sm_copy(ev->after);
	}
}

static void drain(struct world *wd, struct mntkit_watch *w)
{
	MNTKIT_EVENT(ev);
	int r;

	while ((r = mntkit_watch_read(w, &ev)) == 1)
		apply(wd, &ev);
	T_OK(r);
}

/* every namespace there is added, every stopped kid's gone */
static int settled(const struct world *wd)
{
	struct model *m = (struct model *)&wd->m;
	struct nsm *own = nsm_find(m, wd->own_id);

	if (!own)
		return 0;
	for (int i = 0; i < wd->nkids; i++) {
		struct nsm *ns = nsm_find(m, wd->k[i].nsid);

		if (wd->k[i].live && !ns)
			return 0;
		if (wd->k[i].stopped && (!ns || !ns->gone))
			return 0;
	}
	return 1;
}

/*
 * Read events until settled() and then quiet for @quiet_ms (the changes
 * made are all signalled by then), at most @max_ms.
 */
static void wait_settled(struct world *wd, struct mntkit_watch *w,
			 int quiet_ms, int max_ms)
{
	struct pollfd p = { .fd = mntkit_watch_fd(w), .events = POLLIN };
	double end = t_now() + max_ms / 1000.0, quiet_from = -1;

	for (;;) {
		size_t before = wd->m.events;

		drain(wd, w);
		if (wd->m.events != before || !settled(wd))
			quiet_from = -1;
		else if (quiet_from < 0)
			quiet_from = t_now();
		if (quiet_from >= 0 && t_now() - quiet_from >= quiet_ms / 1000.0)
			return;
		if (t_now() > end)
			t_fail("not settled after %d ms (%zu events, %zu "
			       "namespaces added, %zu gone)",
			       max_ms, wd->m.events, wd->m.adds, wd->m.gones);
		poll(&p, 1, 20);
	}
}

/* ---- the cases ---- */

static void use_backend(int mountinfo)
{
	if (mountinfo) {
		T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
		return;
	}
	if (mntkit_set_backend(MNTKIT_BACKEND_NATIVE) < 0)
		t_skip("no native backend (statmount/listmount)");
}

/* @how: 0 native, 1 mountinfo, 2 native with the poll source */
static void replay_body(int how)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_ALL_NS |
				       MNTKIT_WATCH_F_INITIAL,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN,
			  .source = how == 2 ? MNTKIT_WATCH_POLL :
					       MNTKIT_WATCH_AUTO);
	int mountinfo = how == 1;
	struct world wd = { 0 };
	struct mntkit_watch *w;
	int rounds = t_slow_machine() ? 100 : 300, live;

	use_backend(mountinfo);
	wd.mountinfo = mountinfo;
	T_OK(ns_id_of(0, &wd.own_id));
	wd.base = t_tmpdir();
	wd.seed = 12;
	t_mkdir(t_path("%s/own", wd.base));
	for (int j = 0; j < SLOTS; j++)
		t_mkdir(t_path("%s/own/%d", wd.base, j));
	for (int i = 0; i < 3; i++)
		kid_start(&wd);
	kid_op(&wd.k[0], 0); /* a mount before the watch: INITIAL */
	T_OK(mntkit_watch_new(&wo, NULL, &w));
	T_EQ_I(mntkit_watch_ns_skipped(w), 0);
	for (int r = 0; r < rounds; r++) {
		int pick = (int)(rand_r(&wd.seed) % 100);
		int slot = (int)(rand_r(&wd.seed) % SLOTS);
		int k = (int)(rand_r(&wd.seed) % (unsigned)wd.nkids);

		live = 0;
		for (int i = 0; i < wd.nkids; i++)
			live += wd.k[i].live;
		if (pick < 5 && wd.nkids < MAX_KIDS) {
			kid_start(&wd);
			if (rand_r(&wd.seed) % 2) /* mounts at once, too */
				kid_op(&wd.k[wd.nkids - 1], slot);
		} else if (pick < 9 && live > 1 && wd.k[k].live) {
			if (mountinfo)
				kid_caught_up(&wd, w, &wd.k[k]);
			else
				kid_added(&wd, w, &wd.k[k]);
			kid_stop(&wd.k[k]);
		} else if (pick < 25) {
			own_op(&wd, slot);
		} else if (wd.k[k].live) {
			kid_op(&wd.k[k], slot);
		}
		if (rand_r(&wd.seed) % 4 == 0)
			drain(&wd, w);
	}
	/* stop one more: a namespace that ends with mounts in it */
	for (int i = 0; i < wd.nkids; i++)
		if (wd.k[i].live) {
			kid_op(&wd.k[i], SLOTS - 1);
			if (mountinfo)
				kid_caught_up(&wd, w, &wd.k[i]);
			else
				kid_added(&wd, w, &wd.k[i]);
			kid_stop(&wd.k[i]);
			break;
		}
	wait_settled(&wd, w, 500, 30000);
	/* the live namespaces: the events give their tables */
	for (int i = 0; i < wd.nkids; i++) {
		MNTKIT_OPTS(o, .pid = wd.k[i].pid);
		struct mntkit_table *t;

		if (!wd.k[i].live)
			continue;
		T_OK(mntkit_table_new(MASK, 0, &o, &t));
		nsm_check(nsm_find(&wd.m, wd.k[i].nsid), t);
		mntkit_table_free(t);
	}
	{
		struct mntkit_table *t;

		T_OK(mntkit_table_new(MASK, 0, NULL, &t));
		nsm_check(nsm_find(&wd.m, wd.own_id), t);
		mntkit_table_free(t);
	}
	T_ASSERT(wd.m.resyncs <= wd.m.gones);
	T_ASSERT(!wd.m.resync_ns);
	T_ASSERT(wd.m.gones >= 1);
	T_EQ_U(wd.m.adds, (size_t)wd.nkids + 1);
	t_log("%s: %zu events, %d namespaces, %zu gone\n",
	      how == 1 ? "mountinfo" : how == 2 ? "native, poll" : "native",
	      wd.m.events, wd.nkids + 1, wd.m.gones);
	mntkit_watch_free(w);
	for (int i = 0; i < wd.nkids; i++)
		if (wd.k[i].live)
			kid_stop(&wd.k[i]);
}

T_CASE(replay_native)
{
	t_in_own_pidns(replay_body, 0);
}

T_CASE(replay_mountinfo)
{
	t_in_own_pidns(replay_body, 1);
}

T_CASE(replay_native_poll)
{
	t_in_own_pidns(replay_body, 2);
}

/*
 * Namespaces that cannot be watched are skipped, not an error: fanotify
 * forced on the emulation (which never has it) skips every one.
 */
static void skip_body(int unused)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_ALL_NS,
			  .source = MNTKIT_WATCH_FANOTIFY);
	struct world wd = { 0 };
	struct mntkit_watch *w;
	MNTKIT_EVENT(ev);

	(void)unused;
	T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
	wd.base = t_tmpdir();
	kid_start(&wd);
	T_OK(mntkit_watch_new(&wo, NULL, &w));
	T_EQ_I(mntkit_watch_ns_skipped(w), 2);
	T_EQ_I(mntkit_watch_read(w, &ev), 0);
	mntkit_watch_free(w);
	kid_stop(&wd.k[0]);
	mntkit_table_free(wd.k[0].last);
}

T_CASE(unwatchable_skipped)
{
	t_in_own_pidns(skip_body, 0);
}

/*
 * With rescan_ms at a minute: mntkit_watch_rescan() scans /proc at once
 * (a kid's namespace is added by it), and the exit of the kid, the one
 * process in its namespace, brings NS_GONE at once (its pidfd).
 */
static void rescan_body(int unused)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_ALL_NS,
			  .rescan_ms = 60000);
	struct world wd = { 0 };
	struct mntkit_watch *w;
	struct nsm *ns;

	(void)unused;
	T_OK(ns_id_of(0, &wd.own_id));
	wd.base = t_tmpdir();
	T_OK(mntkit_watch_new(&wo, NULL, &w));
	drain(&wd, w);
	T_EQ_U(wd.m.adds, 1); /* the case's own */
	kid_start(&wd);
	kid_op(&wd.k[0], 0);
	drain(&wd, w);
	T_ASSERT(!nsm_find(&wd.m, wd.k[0].nsid)); /* no scan yet */
	T_OK(mntkit_watch_rescan(w));
	drain(&wd, w);
	ns = nsm_find(&wd.m, wd.k[0].nsid);
	T_ASSERT(ns);
	/* found later: all its mounts come as ATTACH, its tmpfs too */
	{
		MNTKIT_OPTS(o, .pid = wd.k[0].pid);
		struct mntkit_table *t;

		T_OK(mntkit_table_new(MASK, 0, &o, &t));
		nsm_check(ns, t);
		mntkit_table_free(t);
	}
	kid_stop(&wd.k[0]);
	if (syscall(SYS_pidfd_open, getpid(), 0) < 0) {
		/* no pidfd_open (5.3+): the next scan finds the end */
		T_OK(mntkit_watch_rescan(w));
		drain(&wd, w);
		T_EQ_U(wd.m.gones, 1);
	} else {
		/* the exit of the namespace's process brings a scan */
		struct pollfd p = { .fd = mntkit_watch_fd(w),
				    .events = POLLIN };
		double end = t_now() + 5;

		for (drain(&wd, w); !wd.m.gones; drain(&wd, w)) {
			if (t_now() > end)
				t_fail("no NS_GONE within 5 s of the exit "
				       "(timed scans: every 60 s)");
			poll(&p, 1, 100);
		}
	}
	mntkit_watch_free(w);
}

T_CASE(rescan_and_exit_at_once)
{
	t_in_own_pidns(rescan_body, 0);
}

/*
 * Poll the watch's fd and read, as a caller does, until kid @k's namespace
 * has other than @n mounts; at most 10 s (@why: what brings the event)
 */
static void wait_change(struct world *wd, struct mntkit_watch *w,
			const struct kid *k, size_t n, const char *why)
{
	struct pollfd p = { .fd = mntkit_watch_fd(w), .events = POLLIN };
	double end = t_now() + 10;

	while (nsm_find(&wd->m, k->nsid)->n == n) {
		if (t_now() > end)
			t_fail("no event of kid %d's change within 10 s (%s)",
			       (int)k->pid, why);
		poll(&p, 1, 100);
		drain(wd, w);
	}
}

/*
 * With no timed rescans, a change in another namespace comes from its
 * signal alone, as a caller sees it: poll the watch's fd, then read. That
 * poll polls the namespace's mountinfo, nested, and consumes its POLLPRI:
 * the watch must still find which namespace changed (before, the read
 * found nothing and the fd never woke again: no event at all). @how: 1
 * mountinfo, 2 native with the poll source.
 */
static void signal_body(int how)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_ALL_NS,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN,
			  .source = MNTKIT_WATCH_POLL);
	struct world wd = { 0 };
	struct mntkit_watch *w;
	size_t n0;

	use_backend(how == 1);
	T_OK(ns_id_of(0, &wd.own_id));
	wd.base = t_tmpdir();
	kid_start(&wd);
	T_OK(mntkit_watch_new(&wo, NULL, &w));
	drain(&wd, w);
	T_ASSERT(nsm_find(&wd.m, wd.k[0].nsid));
	n0 = nsm_find(&wd.m, wd.k[0].nsid)->n;
	for (int round = 0; round < 3; round++) {
		kid_op(&wd.k[0], 0); /* mount, umount, mount */
		wait_change(&wd, w, &wd.k[0], n0 + (size_t)(round % 2),
			    "no timed rescans: its signal alone");
	}
	kid_stop(&wd.k[0]);
	mntkit_watch_free(w);
}

T_CASE(signal_wakes_mountinfo)
{
	t_in_own_pidns(signal_body, 1);
}

T_CASE(signal_wakes_native_poll)
{
	t_in_own_pidns(signal_body, 2);
}

/*
 * A namespace whose read fails for want of file descriptors (EMFILE) is
 * read again later; the watch goes on for the others (before, the error
 * ended every read of the watch). The emulation reads the namespace of
 * kid 0 through a new open of its mountinfo (its cache holds kid 1's), so
 * with no fd left the read of kid 0's change fails.
 */
static void retry_body(int unused)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_ALL_NS,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN,
			  .source = MNTKIT_WATCH_POLL);
	struct world wd = { 0 };
	struct mntkit_watch *w;
	struct pollfd p = { .events = POLLIN };
	struct rlimit rl, tight;
	double end;
	size_t n0;
	int lowest;

	(void)unused;
	use_backend(1);
	wd.read_failed = 1;
	T_OK(ns_id_of(0, &wd.own_id));
	wd.base = t_tmpdir();
	kid_start(&wd);
	kid_start(&wd);
	T_OK(mntkit_watch_new(&wo, NULL, &w));
	drain(&wd, w);
	T_ASSERT(nsm_find(&wd.m, wd.k[0].nsid));
	n0 = nsm_find(&wd.m, wd.k[0].nsid)->n;
	p.fd = mntkit_watch_fd(w);
	{
		MNTKIT_OPTS(o, .pid = wd.k[1].pid);
		struct mntkit_table *t;

		T_OK(mntkit_table_new(MASK, 0, &o, &t)); /* the cache: kid 1 */
		mntkit_table_free(t);
	}
	T_OK(getrlimit(RLIMIT_NOFILE, &rl));
	lowest = dup(0);
	T_ASSERT(lowest >= 0);
	close(lowest);
	tight = rl;
	tight.rlim_cur = (rlim_t)lowest;
	T_OK(setrlimit(RLIMIT_NOFILE, &tight));
	kid_op(&wd.k[0], 0);
	end = t_now() + 0.5;
	while (t_now() < end) {
		poll(&p, 1, 100);
		drain(&wd, w); /* T_OK of every read: no EMFILE comes out */
	}
	T_OK(setrlimit(RLIMIT_NOFILE, &rl));
	wait_change(&wd, w, &wd.k[0], n0, "the fds back");
	T_ASSERT(wd.m.resyncs >= 1); /* the failed read was said */
	kid_stop(&wd.k[0]);
	kid_stop(&wd.k[1]);
	mntkit_watch_free(w);
}

T_CASE(emfile_read_again)
{
	t_in_own_pidns(retry_body, 0);
}

/*
 * The fanotify groups of this process (their fds: anon_inode:[fanotify])
 * and the marks of those on mount namespaces (their fdinfo's "fanotify
 * mnt_ns:" lines, one per mark).
 */
static void count_fanotify(int *groups, int *ns_marks)
{
	DIR *d = opendir("/proc/self/fd");
	int info = open("/proc/self/fdinfo", O_RDONLY | O_DIRECTORY |
						     O_CLOEXEC);
	struct dirent *de;

	T_ASSERT(d && info >= 0);
	*groups = *ns_marks = 0;
	while ((de = readdir(d))) {
		char link[64], line[256];
		ssize_t n = readlinkat(dirfd(d), de->d_name, link,
				       sizeof(link) - 1);
		FILE *f;
		int fd;

		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, "anon_inode:[fanotify]"))
			continue;
		(*groups)++;
		fd = openat(info, de->d_name, O_RDONLY | O_CLOEXEC);
		f = fd < 0 ? NULL : fdopen(fd, "r");
		if (!f) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		while (fgets(line, sizeof(line), f))
			*ns_marks += !strncmp(line, "fanotify mnt_ns:", 16);
		fclose(f);
	}
	closedir(d);
	close(info);
}

/*
 * One fanotify group for every namespace: GROUP_KIDS private namespaces
 * and the case's own cost one group (fs.fanotify.max_user_groups is 128
 * per user, shared with every other fanotify user of the host) with one
 * mark per namespace, and a mount in each is reported in its namespace
 * (the model of each then equals its table); a namespace let go of takes
 * its mark with it.
 */
static void group_body(int unused)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_ALL_NS |
				       MNTKIT_WATCH_F_INITIAL,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN);
	struct world wd = { 0 };
	struct mntkit_watch *w;
	int groups0, marks0, groups, marks;

	(void)unused;
	use_backend(0);
	T_OK(ns_id_of(0, &wd.own_id));
	wd.base = t_tmpdir();
	t_mkdir(t_path("%s/own", wd.base));
	t_mkdir(t_path("%s/own/0", wd.base));
	for (int i = 0; i < GROUP_KIDS; i++)
		kid_start(&wd);
	count_fanotify(&groups0, &marks0);
	T_OK(mntkit_watch_new(&wo, NULL, &w));
	if (mntkit_watch_get_source(w) != MNTKIT_WATCH_FANOTIFY)
		t_skip("no fanotify source here (6.15+, CAP_SYS_ADMIN, a "
		       "group under fs.fanotify.max_user_groups)");
	T_EQ_I(mntkit_watch_ns_skipped(w), 0);
	count_fanotify(&groups, &marks);
	T_EQ_I(groups - groups0, 1);
	/* every namespace fed by the group, none polled */
	T_EQ_I(marks - marks0, GROUP_KIDS + 1);
	drain(&wd, w);
	T_EQ_U(wd.m.adds, GROUP_KIDS + 1);
	for (int i = 0; i < GROUP_KIDS; i++)
		kid_op(&wd.k[i], 0);
	own_op(&wd, 0);
	for (int i = 0; i < GROUP_KIDS; i++)
		kid_caught_up(&wd, w, &wd.k[i]);
	for (int i = 0; i < GROUP_KIDS; i++) {
		struct nsm *ns = nsm_find(&wd.m, wd.k[i].nsid);
		int found = 0;

		for (size_t j = 0; j < ns->n; j++)
			found |= kid_of_source(sm_source(ns->sm[j])) == i;
		T_ASSERTF(found, "kid %d: its tmpfs never reported", i);
	}
	count_fanotify(&groups, &marks);
	T_EQ_I(groups - groups0, 1);
	/* the namespaces let go of: their marks go */
	for (int i = 0; i < GROUP_KIDS / 2; i++)
		kid_stop(&wd.k[i]);
	wait_settled(&wd, w, 100, 30000);
	count_fanotify(&groups, &marks);
	T_EQ_I(groups - groups0, 1);
	T_EQ_I(marks - marks0, GROUP_KIDS - GROUP_KIDS / 2 + 1);
	t_log("%d namespaces: one fanotify group, %zu events\n",
	      GROUP_KIDS + 1, wd.m.events);
	mntkit_watch_free(w);
	count_fanotify(&groups, &marks);
	T_EQ_I(groups, groups0);
	for (int i = 0; i < wd.nkids; i++) {
		if (wd.k[i].live)
			kid_stop(&wd.k[i]);
		mntkit_table_free(wd.k[i].last);
	}
}

T_CASE(one_fanotify_group)
{
	t_in_own_pidns(group_body, 0);
}

/*
 * The fanotify limits, in a user namespace of the case's own (root mapped
 * to root), whose limits it sets for itself (/proc/sys/user/
 * max_fanotify_{groups,marks}, counted in every user namespace up to the
 * host's): the host's stay as they are.
 */
static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		t_skip("write %s: %s", path, strerror(errno));
	close(fd);
}

static void own_userns(int max_groups, int max_marks)
{
	char buf[16];

	t_require_root();
	if (unshare(CLONE_NEWUSER))
		t_skip("unshare(CLONE_NEWUSER): %s", strerror(errno));
	write_file("/proc/self/uid_map", "0 0 1");
	write_file("/proc/self/setgroups", "deny"); /* before a gid_map */
	write_file("/proc/self/gid_map", "0 0 1");
	snprintf(buf, sizeof(buf), "%d", max_groups);
	write_file("/proc/sys/user/max_fanotify_groups", buf);
	snprintf(buf, sizeof(buf), "%d", max_marks);
	write_file("/proc/sys/user/max_fanotify_marks", buf);
}

#define LIMIT_KIDS 6

/*
 * @marks: at most 3 marks and 2 groups: the watch takes one group (another
 * fanotify user still gets the other), 3 namespaces have fanotify and the
 * others poll; else no group at all: every namespace polls (skipped if
 * fanotify is asked for). Each way a mount in each namespace is reported.
 */
static void limit_body(int marks)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_ALL_NS |
				       MNTKIT_WATCH_F_INITIAL,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN);
	MNTKIT_WATCH_OPTS(fan, .flags = MNTKIT_WATCH_F_ALL_NS,
			  .source = MNTKIT_WATCH_FANOTIFY);
	struct world wd = { 0 };
	struct mntkit_watch *w, *w2;
	int groups, ns_marks, other;

	use_backend(0);
	T_OK(ns_id_of(0, &wd.own_id));
	wd.base = t_tmpdir();
	t_mkdir(t_path("%s/own", wd.base));
	for (int i = 0; i < LIMIT_KIDS; i++)
		kid_start(&wd);
	T_OK(mntkit_watch_new(&wo, NULL, &w));
	T_EQ_I(mntkit_watch_ns_skipped(w), 0);
	count_fanotify(&groups, &ns_marks);
	if (marks) {
		if (mntkit_watch_get_source(w) != MNTKIT_WATCH_FANOTIFY)
			t_skip("no fanotify source here (6.15+)");
		T_EQ_I(groups, 1);
		T_EQ_I(ns_marks, 3);
		/* one group of the two is left for the others */
		other = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID,
				      O_RDONLY | O_CLOEXEC);
		T_ASSERTF(other >= 0, "a second fanotify group: %s",
			  strerror(errno));
		close(other);
	} else {
		T_EQ_I(mntkit_watch_get_source(w), MNTKIT_WATCH_POLL);
		T_EQ_I(groups, 0);
		T_OK(mntkit_watch_new(&fan, NULL, &w2));
		T_EQ_I(mntkit_watch_ns_skipped(w2), LIMIT_KIDS + 1);
		mntkit_watch_free(w2);
	}
	drain(&wd, w);
	T_EQ_U(wd.m.adds, LIMIT_KIDS + 1);
	for (int i = 0; i < LIMIT_KIDS; i++) {
		kid_op(&wd.k[i], 0);
		kid_caught_up(&wd, w, &wd.k[i]);
	}
	mntkit_watch_free(w);
	for (int i = 0; i < wd.nkids; i++) {
		kid_stop(&wd.k[i]);
		mntkit_table_free(wd.k[i].last);
	}
}

T_CASE(fanotify_marks_limit)
{
	own_userns(2, 3);
	t_in_own_pidns(limit_body, 1);
}

T_CASE(fanotify_groups_limit)
{
	own_userns(0, 100);
	t_in_own_pidns(limit_body, 0);
}

/*
 * A mount unmounted before the watch read its ATTACH: reported as ATTACH
 * F_GONE and DETACH in the namespace of the process that attached it
 * (alive, its namespace without shared mounts); not reported when that
 * namespace has a shared mount (the mount could have been a copy that
 * propagated to another namespace: none is told of a mount it may not
 * have had).
 */
static void gone_body(int unused)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_ALL_NS |
				       MNTKIT_WATCH_F_INITIAL,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN);
	struct world wd = { 0 };
	struct mntkit_watch *w;
	char *shared;

	(void)unused;
	use_backend(0);
	T_OK(ns_id_of(0, &wd.own_id));
	wd.base = t_tmpdir();
	t_mkdir(t_path("%s/own", wd.base));
	t_mkdir(t_path("%s/own/0", wd.base));
	for (int i = 0; i < 3; i++)
		kid_start(&wd);
	T_OK(mntkit_watch_new(&wo, NULL, &w));
	if (mntkit_watch_get_source(w) != MNTKIT_WATCH_FANOTIFY)
		t_skip("no fanotify source here (6.15+)");
	drain(&wd, w);
	kid_op(&wd.k[1], 0);
	kid_op(&wd.k[1], 0); /* unmounted before the watch reads */
	kid_caught_up(&wd, w, &wd.k[1]);
	T_EQ_U(wd.m.gone_attach, 1);
	T_EQ_U(wd.m.gone_ns, wd.k[1].nsid);
	own_op(&wd, 0);
	own_op(&wd, 0);
	wait_settled(&wd, w, 100, 10000);
	T_EQ_U(wd.m.gone_attach, 2);
	T_EQ_U(wd.m.gone_ns, wd.own_id);
	/* a shared mount in the case's namespace: not its mounts' place */
	shared = t_path("%s/own/0", wd.base);
	t_mount("allns-shared", shared, "tmpfs", 0, NULL);
	T_OK(mount(NULL, shared, NULL, MS_SHARED, NULL));
	T_OK(mntkit_watch_rescan(w)); /* MS_SHARED signals nothing */
	wait_settled(&wd, w, 100, 10000);
	t_mount("allns-own", shared, "tmpfs", 0, NULL);
	t_umount(shared);
	wait_settled(&wd, w, 100, 10000);
	T_EQ_U(wd.m.gone_attach, 2);
	mntkit_watch_free(w);
	for (int i = 0; i < wd.nkids; i++) {
		kid_stop(&wd.k[i]);
		mntkit_table_free(wd.k[i].last);
	}
}

T_CASE(gone_before_routing)
{
	t_in_own_pidns(gone_body, 0);
}

/* the flag with a namespace named is refused; one namespace: 0 skipped */
T_CASE(api_rules)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_ALL_NS);
	MNTKIT_WATCH_OPTS(one);
	MNTKIT_OPTS(o, .pid = getpid());
	struct mntkit_watch *w = (struct mntkit_watch *)1;

	T_EQ_I(mntkit_watch_new(&wo, &o, &w), -EINVAL);
	T_NULL(w);
	T_EQ_I(mntkit_watch_ns_skipped(NULL), -EINVAL);
	if (mntkit_watch_new(&one, NULL, &w) < 0)
		t_skip("no watch here: %s", strerror(errno));
	T_EQ_I(mntkit_watch_ns_skipped(w), 0);
	mntkit_watch_free(w);
	T_EQ_STR(mntkit_event_kind_name(MNTKIT_EVENT_NS_ADD), "ns-add");
	T_EQ_STR(mntkit_event_kind_name(MNTKIT_EVENT_NS_GONE), "ns-gone");
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
