// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * All-namespace watches (MNTKIT_WATCH_ALL_NS): one watch of one mount
 * namespace (watch.c, reached through struct mntkit__watch_ns_ops) per
 * namespace a process is in, behind one epoll fd.
 *
 * One fanotify group. fanotify groups are few (fs.fanotify.max_user_groups,
 * 128 per user, shared with every other fanotify user of the host: a
 * group per namespace would use up root's at ~128 containers, and make
 * security agents' or systemd's fanotify_init() fail with EMFILE). So the
 * watch opens one group (fanotify mount events, 6.15+, native backend)
 * and marks each namespace in it, FAN_MARK_MNTNS: marks are counted per
 * user against fs.fanotify.max_user_marks (8192 to 1048576 by memory),
 * one per namespace. The mark comes before the namespace's watch takes
 * its first snapshot (nothing falls between); the namespace's watch is
 * "fed": it keeps its own mountinfo signals, timers, view and diffs, and
 * takes the events this file reads from the group. A namespace whose
 * mark cannot be had (EPERM: no CAP_SYS_ADMIN over it; ENOSPC: the marks'
 * limit) is polled, and skipped if fanotify was asked for; where the
 * group cannot be had (fanotify_init: EMFILE at the groups' limit, EPERM;
 * an old kernel, the emulation) all are. No namespace ever opens a group
 * of its own. The mark is removed when the namespace is let go of (its
 * events still queued are then routed to no one: the last rescan sees
 * what they tell). The group's queue (fs.fanotify.max_queued_events,
 * 16384) is now shared by all namespaces: at its overflow every fed
 * watch resynchronizes (a RESYNC, then the diff of its view).
 *
 * Routing. A fanotify mount event names a unique mount ID only, not its
 * namespace, and statmount(2) finds a mount only in the namespace it is
 * asked about (ENOENT elsewhere). It also names the process that caused
 * it (in our PID namespace; 0 if it is not there). A process attaches
 * mounts in its own namespace only (mount(2) and move_mount(2) refuse a
 * target in another, but a detached tree's anonymous one, never watched);
 * a shared mount may propagate copies of them to
 * other namespaces, with the same process named. So an event goes to,
 * each asked in turn:
 *  1. the namespace of the process that caused it (the one its last
 *     event went to, for up to a second, else its /proc/PID/ns/mnt),
 *     then the one last routed to (a burst is mostly of one namespace),
 *     if its view holds the mount or (an ATTACH) its namespace has it:
 *     one statmount, the one its watch needs anyway;
 *  2. else the namespace whose view holds the mount (no system call): a
 *     DETACH, and a move (ATTACH|DETACH) or ATTACH of a known mount; a
 *     DETACH of a mount no view holds is of a mount no namespace's events
 *     told of, and is dropped, as the watch of one namespace drops it;
 *  3. else, an ATTACH: if the process's namespace has no shared mount
 *     (nothing attached there propagates elsewhere), the mount is that
 *     namespace's, and gone (rule 1 did not find it there); else the
 *     namespace that has the mount now: each watch asks statmount in its
 *     namespace, last routed to first (not when the mount's DETACH is in
 *     the same read: gone, no namespace has it).
 * A mount unmounted before its ATTACH could be routed is in no view and,
 * unique IDs being never reused, in no namespace ever again. It is
 * reported in its process's namespace (where the process is when the
 * event is read, if it is alive, else where its last event went), if
 * that namespace has no shared mount: ATTACH with MNTKIT_EVENT_F_GONE and
 * a record of its ID only, then its DETACH (routed by rule 2), as the
 * watch of one namespace reports such a mount. Else (the process is
 * unknown: it exited before its first event was read, or is outside our
 * PID namespace; or the mount may have been a copy that propagated to
 * another namespace) where it was cannot be known, and the mount is not
 * reported: a mount that came and went, in no table before or after, so
 * every namespace's view stays exact and its events still give its
 * table; nothing is invented in a namespace it was not in (a debug line
 * counts them). The shared mounts are those of the views: a mount made
 * shared by mount(2) MS_SHARED, which signals nothing, counts from the
 * rescan that sees it. A watch that cannot tell whether a mount is its
 * namespace's (a statmount that fails other than with ENOENT)
 * resynchronizes, no mount is placed by its process then, and the others
 * are asked on: whichever namespace it was, a diff or an event has it.
 *
 * Finding the namespaces. The kernel tells no one of a new mount
 * namespace: checked on 6.18, unshare(CLONE_NEWNS) in a child gives no
 * fanotify event on a FAN_MARK_MNTNS mark of the parent's namespace
 * (the mark covers the mounts of that namespace only), and nothing polls
 * for it. So /proc is scanned (stat of every /proc/PID/ns/mnt: the nsfs
 * inode names the namespace) every rescan_ms (1000 ms by default), but no
 * more often than SCAN_COST_FACTOR times the scan's CPU cost: the latency
 * of NS_ADD and NS_GONE, at most 1% of a CPU.
 *
 * The end of a namespace. Also checked on 6.18: an open
 * /proc/PID/mountinfo keeps its namespace, mounts and all, after the
 * last process in it exits, and its poll says nothing of that exit. Each
 * namespace's watch holds two such files, so a namespace would never end
 * while watched: the watch lets a namespace go (NS_GONE, its watch
 * freed) at the first scan that finds no process in it. The exit of the
 * lowest process of a namespace (a pidfd, 5.3+) brings that scan forward,
 * to no sooner than EXIT_GAP_FACTOR times a scan's cost after the last:
 * a namespace whose last process exits ends at once, and its mounts are
 * not kept for long (one that a process leaves by setns(2) ends at the
 * next timed scan). For the same
 * reason namespaces no process is in (kept by an fd or a bind mount,
 * which listns(2) or NS_MNT_GET_NEXT would find) are not watched: the
 * watch would keep them for ever.
 *
 * Order. Events are handed out from one FIFO of items: NS_ADD of a
 * namespace, "drain" a namespace's watch (read it until it has nothing),
 * NS_GONE. A namespace's NS_ADD comes before its events (the items are
 * queued in that order when it is found) and its NS_GONE after its last
 * ones (a drain is queued before it, once its fd is out of the epoll
 * set). Sequence numbers are the all-namespace watch's own (1, 2, 3, ...
 * without gap); a RESYNC's resync_end is moved with them (its events are
 * drained together: they are queued at once by the namespace's watch).
 *
 * Rescans. The namespaces' watches do no timed rescans of their own
 * (200 namespaces rescanning each second would cost 200 times one); the
 * all-namespace watch rescans them in turn, one every rescan_ms / N, and
 * no sooner than RESCAN_COST_FACTOR times the last one's cost after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "syscall.h"

#define MS_NS 1000000LL
#define SCAN_DEFAULT_MS 1000
#define SCAN_COST_FACTOR 100
#define RESCAN_COST_FACTOR 100
#define EPOLL_BATCH 64
#define EXIT_GAP_FACTOR 10 /* a scan for an exit: 10x its cost apart */
#define RETRY_NS (100 * MS_NS) /* a read failed for want of a resource */
#define TAG_EXIT 1ULL	   /* epoll data: a namespace's pidfd */
#define TAG_FAN 2ULL	   /* epoll data: the fanotify group */
#define FAN_BUFSIZE (64 * 1024)
#define FAN_READS_PER_CALL 64 /* bounded work per read */
#define FAN_EVENTS (MNTKIT_FAN_MNT_ATTACH | MNTKIT_FAN_MNT_DETACH)
#define PID_HINTS 256 /* a power of two */

struct ns {
	uint64_t id;
	dev_t dev;
	ino_t ino;
	pid_t pid;		 /* the lowest process in it at the last scan */
	struct mntkit_watch *w;	 /* NULL: skipped (err) or not yet opened */
	int err;		 /* why it is skipped */
	int seen;		 /* in the scan under way */
	int queued;		 /* a drain of it is in the FIFO */
	int64_t found_rt, found_mono; /* when it was found: its NS_ADD's */
	int pidfd;		 /* of @pid, or -1 */
	pid_t pidfd_pid;
	int dying;		 /* let go of: its NS_GONE is queued */
	int broken;		 /* its watch lost its process: let go */
	int lost;		 /* dying, and its last changes are lost */
	int retry;		 /* its read failed for want of a resource */
	int ns_fd;		 /* marked in the group (fed): its nsfs fd */
	struct ns *prev, *next;	 /* the fed ones, last routed to first */
};

enum item_kind { ITEM_ADD, ITEM_DRAIN, ITEM_GONE };

struct item {
	enum item_kind kind;
	struct ns *ns;
};

struct mntkit__watch_all {
	const struct mntkit__watch_ns_ops *ops;
	struct mntkit_watch_opts wo; /* for each namespace's watch */
	uint32_t rescan_ms;	     /* the caller's */
	int initial;		     /* MNTKIT_WATCH_INITIAL asked for */
	int scanned;		     /* the first scan is done */
	int epfd, timer_fd;
	int sig_ep; /* the namespaces' private mountinfo files (sweep()) */
	struct ns **ns; /* the namespaces watched or skipped */
	size_t n, cap;
	struct item *items;
	size_t head, nitems, icap;
	uint64_t seq; /* of the last event handed out */
	size_t skipped;
	size_t rr_next;
	int64_t scan_due, scan_cost, rr_due;
	int64_t retry_due; /* the namespaces' failed reads, again (0: none) */
	int64_t scan_end; /* when the last scan ended */
	int use_pidfd;	  /* the library's /proc is of our PID namespace */
	int64_t armed;
	enum mntkit_watch_source source;
	int fan_fd;	 /* the one fanotify group of all, or -1 */
	int fan_err;	 /* why there is none (0: poll asked for) */
	char *fanbuf;
	struct ns *mru;	 /* the fed namespaces, last routed to first */
	uint64_t unrouted; /* ATTACHes of mounts gone before routing */
	struct {
		int32_t pid;	/* that caused an event (fanotify's) */
		uint64_t ns_id; /* the namespace the event was routed to */
	} hints[PID_HINTS];
	uint64_t *gone;	/* the IDs detached in the read (a hash set) */
	size_t gone_cap;
	int unsure;	/* a watch could not tell (routing an event) */
};

static int64_t every_ns(const struct mntkit__watch_all *a)
{
	uint32_t ms = a->rescan_ms;

	if (!ms || ms == MNTKIT_WATCH_NO_RESCAN)
		ms = SCAN_DEFAULT_MS;
	return (int64_t)ms * MS_NS;
}

/* ---- the FIFO ---- */

static int push(struct mntkit__watch_all *a, enum item_kind kind,
		struct ns *ns)
{
	if (a->head && a->head == a->nitems)
		a->head = a->nitems = 0;
	if (a->nitems == a->icap) {
		size_t cap = a->icap ? a->icap * 2 : 64;
		struct item *v = realloc(a->items, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->items = v;
		a->icap = cap;
	}
	a->items[a->nitems++] = (struct item){ kind, ns };
	if (kind == ITEM_DRAIN)
		ns->queued = 1;
	return 0;
}

static int push_drain(struct mntkit__watch_all *a, struct ns *ns)
{
	return ns->queued ? 0 : push(a, ITEM_DRAIN, ns);
}

/* ---- the namespaces ---- */

static struct ns *ns_find(const struct mntkit__watch_all *a, dev_t dev,
			  ino_t ino)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->ns[i]->ino == ino && a->ns[i]->dev == dev)
			return a->ns[i];
	return NULL;
}

static void ns_remove(struct mntkit__watch_all *a, size_t i)
{
	a->ns[i] = a->ns[--a->n];
	if (a->rr_next >= a->n)
		a->rr_next = 0;
}

static int ns_stat(pid_t pid, struct stat *st)
{
	char path[64];
	int at = mntkit__proc_path(path, sizeof(path), pid, "ns/mnt");

	return fstatat(at, path, st, 0) ? -errno : 0;
}

static int scan_each(void *ctx, pid_t pid)
{
	struct mntkit__watch_all *a = ctx;
	struct stat st;
	struct ns *ns;

	if (ns_stat(pid, &st))
		return 0; /* gone, or not ours to look at */
	ns = ns_find(a, st.st_dev, st.st_ino);
	if (ns) {
		if (!ns->seen || pid < ns->pid)
			ns->pid = pid;
		ns->seen = 1;
		return 0;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		struct ns **v = realloc(a->ns, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->ns = v;
		a->cap = cap;
	}
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	*ns = (struct ns){ .dev = st.st_dev, .ino = st.st_ino, .pid = pid,
			   .seen = 1, .pidfd = -1, .ns_fd = -1 };
	a->ns[a->n++] = ns;
	return 0;
}

/*
 * The namespace's ID: NS_GET_MNTNS_ID (6.10+), else its nsfs inode; and
 * an fd of it into *@fd (the caller closes it).
 */
static int ns_id(struct ns *ns, int *fd)
{
	struct stat st;
	int ret;

	*fd = mntkit__proc_open(ns->pid, "ns/mnt", O_RDONLY);
	if (*fd < 0)
		return *fd;
	if (fstat(*fd, &st) || st.st_ino != ns->ino || st.st_dev != ns->dev)
		ret = -ESRCH; /* the process moved on */
	else
		ret = mntkit_ns_id_from_fd(*fd, &ns->id);
	if (ret == -EOPNOTSUPP || ret == -ENOTTY) {
		ns->id = (uint64_t)ns->ino;
		ret = 0;
	}
	if (ret) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

/* ---- the fanotify group: one mark per namespace ---- */

static void mru_del(struct mntkit__watch_all *a, struct ns *ns)
{
	if (ns->prev)
		ns->prev->next = ns->next;
	else if (a->mru == ns)
		a->mru = ns->next;
	if (ns->next)
		ns->next->prev = ns->prev;
	ns->prev = ns->next = NULL;
}

static void mru_front(struct mntkit__watch_all *a, struct ns *ns)
{
	if (a->mru == ns)
		return;
	mru_del(a, ns);
	ns->next = a->mru;
	if (a->mru)
		a->mru->prev = ns;
	a->mru = ns;
}

/*
 * Mark the namespace of @fd in the group, for a fed watch of it (the
 * mark before the watch's first snapshot: nothing falls between). Where
 * it cannot be had, the namespace is polled (*@source, if the caller left
 * the choice to the library), else skipped (-errno). The fd is kept with
 * the mark (ns->ns_fd): removing the mark needs it, once no process is in
 * the namespace any more.
 */
static int ns_mark(struct mntkit__watch_all *a, struct ns *ns, int *fd,
		   enum mntkit_watch_source *source)
{
	int err = a->fan_err;

	if (*source == MNTKIT_WATCH_POLL)
		return 0;
	if (a->fan_fd >= 0) {
		if (!fanotify_mark(a->fan_fd,
				   FAN_MARK_ADD | MNTKIT_FAN_MARK_MNTNS,
				   FAN_EVENTS, *fd, NULL)) {
			ns->ns_fd = *fd;
			*fd = -1;
			return 0;
		}
		/* EPERM: no CAP_SYS_ADMIN over it; ENOSPC: max_user_marks */
		err = errno;
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: mount namespace %llu: no fanotify mark "
			      "(%s)%s", (unsigned long long)ns->id,
			      strerror(err),
			      *source == MNTKIT_WATCH_FANOTIFY ?
				      "" : ": poll source instead");
	}
	if (*source == MNTKIT_WATCH_FANOTIFY)
		return -err;
	*source = MNTKIT_WATCH_POLL; /* never a group of its own */
	return 0;
}

/* remove the namespace's mark: it is not routed to any more */
static void ns_unmark(struct mntkit__watch_all *a, struct ns *ns)
{
	if (ns->ns_fd < 0)
		return;
	mru_del(a, ns);
	/* ENOENT: the mark went with the namespace */
	if (fanotify_mark(a->fan_fd, FAN_MARK_REMOVE | MNTKIT_FAN_MARK_MNTNS,
			  FAN_EVENTS, ns->ns_fd, NULL) && errno != ENOENT)
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: mount namespace %llu: its fanotify mark "
			      "stays: %s", (unsigned long long)ns->id,
			      strerror(errno));
	close(ns->ns_fd);
	ns->ns_fd = -1;
}

/*
 * Watch a namespace found by the scan. 0: watched or skipped (ns->err);
 * -ESRCH: its process left it meanwhile (dropped; the next scan finds
 * it again if it is still there); -ENOMEM.
 */
/*
 * The change signals. Each namespace's watch is in the epoll set by its
 * fd, an epoll set of one of its mountinfo files (and its timer): the
 * caller's poll of our fd polls that file, nested, which consumes its
 * POLLPRI, and our epoll_wait then finds nothing there. So the private
 * mountinfo file of every watch (which only it polls) is also in @sig_ep:
 * sweep() takes what it reports (an epoll_wait looks at the files that
 * were woken only: no cost per namespace) and tells each watch it was
 * signalled, since that poll consumed its signal too.
 */
static int sig_add(struct mntkit__watch_all *a, struct ns *ns)
{
	struct epoll_event ev = { .events = EPOLLPRI, .data.ptr = ns };
	int fd = a->ops->signal_fd(ns->w);

	return fd < 0 ? 0 : epoll_ctl(a->sig_ep, EPOLL_CTL_ADD, fd, &ev);
}

static void sig_del(struct mntkit__watch_all *a, struct ns *ns)
{
	int fd = a->ops->signal_fd(ns->w);

	if (fd >= 0)
		epoll_ctl(a->sig_ep, EPOLL_CTL_DEL, fd, NULL);
}

static int sweep(struct mntkit__watch_all *a)
{
	struct epoll_event evs[EPOLL_BATCH];
	int n, ret = 0;

	do {
		n = epoll_wait(a->sig_ep, evs, EPOLL_BATCH, 0);
		if (n < 0)
			return -errno;
		for (int i = 0; i < n && !ret; i++) {
			struct ns *ns = evs[i].data.ptr;

			a->ops->signalled(ns->w);
			ret = push_drain(a, ns);
		}
	} while (!ret && n == EPOLL_BATCH);
	return ret;
}

static int ns_open(struct mntkit__watch_all *a, struct ns *ns)
{
	struct mntkit_watch_opts wo = a->wo;
	MNTKIT_OPTS(o, .pid = ns->pid);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ns };
	struct stat st;
	int ret, fd;

	ns->found_rt = mntkit__clock_ns(CLOCK_REALTIME);
	ns->found_mono = mntkit__clock_ns(CLOCK_MONOTONIC);
	ret = ns_id(ns, &fd);
	if (ret == -ENOENT)
		ret = -ESRCH;
	if (!ret)
		ret = ns_mark(a, ns, &fd, &wo.source);
	if (fd >= 0)
		close(fd);
	if (!ret) {
		/* a namespace found later: the caller knows nothing of it */
		if (a->initial || a->scanned)
			wo.flags |= MNTKIT_WATCH_INITIAL;
		ret = (ns->ns_fd >= 0 ? a->ops->open_fed :
					a->ops->open)(&wo, &o, &ns->w);
		if (ret == -ENOENT)
			ret = -ESRCH;
	}
	/* the watch opened the namespace the process was in at the scan */
	if (!ret && (ns_stat(ns->pid, &st) || st.st_ino != ns->ino ||
		     st.st_dev != ns->dev))
		ret = -ESRCH;
	if (!ret && epoll_ctl(a->epfd, EPOLL_CTL_ADD, a->ops->fd(ns->w), &ev))
		ret = -errno;
	if (!ret && sig_add(a, ns)) {
		ret = -errno;
		epoll_ctl(a->epfd, EPOLL_CTL_DEL, a->ops->fd(ns->w), NULL);
	}
	if (!ret) {
		ret = push(a, ITEM_ADD, ns);
		if (!ret)
			ret = push(a, ITEM_DRAIN, ns);
		if (!ret && !a->source)
			a->source = a->ops->source(ns->w);
		if (ret) {
			epoll_ctl(a->epfd, EPOLL_CTL_DEL, a->ops->fd(ns->w),
				  NULL);
			sig_del(a, ns);
		}
	}
	if (ret && ns->w) {
		a->ops->free(ns->w);
		ns->w = NULL;
	}
	if (ret)
		ns_unmark(a, ns);
	else if (ns->ns_fd >= 0)
		mru_front(a, ns);
	if (ret == -ESRCH || ret == -ENOMEM)
		return ret;
	if (ret) {
		ns->err = -ret;
		a->skipped++;
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: mount namespace %llu (pid %d) skipped: %s",
			      (unsigned long long)ns->id, (int)ns->pid,
			      strerror(ns->err));
	}
	return 0;
}

/*
 * The exit of a namespace's lowest process brings the next scan forward
 * (poll_all()): NS_GONE comes at once, not at the next timed scan, and
 * the namespace's mounts are let go of as soon. The pidfd is dropped when
 * it fires (an exited process's pidfd stays readable); the next scan
 * takes one of the namespace's lowest process again.
 */
static void pidfd_drop(struct mntkit__watch_all *a, struct ns *ns)
{
	if (ns->pidfd < 0)
		return;
	epoll_ctl(a->epfd, EPOLL_CTL_DEL, ns->pidfd, NULL);
	close(ns->pidfd);
	ns->pidfd = -1;
}

static void pidfd_take(struct mntkit__watch_all *a, struct ns *ns)
{
	struct epoll_event ev = {
		.events = EPOLLIN,
		.data.u64 = (uint64_t)(uintptr_t)ns | TAG_EXIT,
	};

	if (!a->use_pidfd || (ns->pidfd >= 0 && ns->pidfd_pid == ns->pid))
		return;
	pidfd_drop(a, ns);
	ns->pidfd = (int)syscall(SYS_pidfd_open, ns->pid, 0);
	if (ns->pidfd < 0)
		return; /* 5.3+; the timed scans find the end */
	ns->pidfd_pid = ns->pid;
	if (epoll_ctl(a->epfd, EPOLL_CTL_ADD, ns->pidfd, &ev))
		pidfd_drop(a, ns);
}

/*
 * Let go of the watched namespace a->ns[@i]: its last events, then
 * NS_GONE; the item owns it. A change signalled but not yet diffed (a
 * diff that waits to serve several) would be lost with the watch: a
 * rescan now brings the view to the table as the last process left it
 * (nothing changes it since: no process is in it, and the watch keeps
 * it); where it cannot be read any more, a RESYNC before NS_GONE says so.
 */
static int ns_let_go(struct mntkit__watch_all *a, size_t i)
{
	struct ns *ns = a->ns[i];
	int ret;

	pidfd_drop(a, ns);
	/*
	 * No more of its events: those still in the group's queue are
	 * routed to no one (the rescan below sees all they tell).
	 */
	ns_unmark(a, ns);
	epoll_ctl(a->epfd, EPOLL_CTL_DEL, a->ops->fd(ns->w), NULL);
	sig_del(a, ns);
	if (a->ops->rescan(ns->w))
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: mount namespace %llu: "
			      "last rescan failed: %s",
			      (unsigned long long)ns->id, strerror(errno));
	ns->queued = 0;
	ns->dying = 1;
	ret = push(a, ITEM_DRAIN, ns);
	if (!ret)
		ret = push(a, ITEM_GONE, ns);
	if (!ret)
		ns_remove(a, i);
	return ret;
}

/*
 * One scan of /proc: watch the namespaces new to it, let go of those no
 * process is in any more. A namespace whose watch lost the process it
 * reads the table through (broken) is let go first: found again in
 * another process, it is a new one (NS_ADD, its mounts).
 */
static int scan(struct mntkit__watch_all *a)
{
	int64_t t0 = mntkit__clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int ret;

	for (size_t i = 0; i < a->n;) {
		if (a->ns[i]->broken && a->ns[i]->w) {
			ret = ns_let_go(a, i);
			if (ret)
				return ret;
			continue;
		}
		i++;
	}
	for (size_t i = 0; i < a->n; i++)
		a->ns[i]->seen = 0;
	/* a hint a second old at most: PIDs are reused, processes move */
	memset(a->hints, 0, sizeof(a->hints));
	ret = mntkit__proc_each_pid(scan_each, a);
	a->scan_cost = mntkit__clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	if (ret)
		return ret; /* nothing is let go on a partial scan */
	for (size_t i = 0; i < a->n;) {
		struct ns *ns = a->ns[i];

		if (ns->seen && !ns->w && !ns->err) {
			ret = ns_open(a, ns);
			if (ret == -ENOMEM)
				return ret;
			if (ret == -ESRCH) {
				ns_remove(a, i);
				free(ns);
				continue;
			}
		} else if (!ns->seen && ns->w) {
			ret = ns_let_go(a, i);
			if (ret)
				return ret;
			continue;
		} else if (!ns->seen) {
			a->skipped -= !!ns->err;
			ns_remove(a, i);
			free(ns);
			continue;
		}
		if (ns->w)
			pidfd_take(a, ns);
		i++;
	}
	a->scanned = 1;
	a->scan_end = mntkit__clock_ns(CLOCK_MONOTONIC);
	mntkit__debug(MNTKIT_PRINT_DEBUG,
		      "watch: scan of /proc: %zu namespaces (%zu skipped), "
		      "%lld us CPU", a->n, a->skipped,
		      (long long)(a->scan_cost / 1000));
	return 0;
}

/* ---- the timer: scans and the rescans in turn ---- */

static void arm_timer(struct mntkit__watch_all *a)
{
	struct itimerspec its = { 0 };
	int64_t due = a->scan_due;

	if (a->rr_due && a->rr_due < due)
		due = a->rr_due;
	if (a->retry_due && a->retry_due < due)
		due = a->retry_due;
	if (due == a->armed)
		return;
	its.it_value.tv_sec = due / 1000000000LL;
	its.it_value.tv_nsec = due % 1000000000LL;
	a->armed = timerfd_settime(a->timer_fd, TFD_TIMER_ABSTIME, &its,
				   NULL) ? -1 : due;
}

static void schedule_scan(struct mntkit__watch_all *a, int64_t now)
{
	int64_t every = every_ns(a);

	if (every < SCAN_COST_FACTOR * a->scan_cost)
		every = SCAN_COST_FACTOR * a->scan_cost;
	a->scan_due = now + every;
}

/*
 * A read or rescan of a namespace's watch failed with @err. ENOENT and
 * ESRCH: the process it reads the table through (the mountinfo
 * emulation) has left, most often because the namespace is ending; that
 * is no error of the all-namespace watch: the namespace is let go at a
 * scan made at once (scan()). 1 if so, else 0 (an error).
 */
/*
 * A read of a namespace's watch that failed for want of a resource (file
 * descriptors, memory): the other namespaces go on, and this one's watch,
 * which still owes its diff (or resync), is read again RETRY_NS later,
 * until it succeeds. 1 if @err is such a failure, else 0.
 */
static int ns_retry(struct mntkit__watch_all *a, struct ns *ns, int err)
{
	if (err != -EMFILE && err != -ENFILE && err != -ENOMEM &&
	    err != -EAGAIN)
		return 0;
	mntkit__debug(MNTKIT_PRINT_INFO,
		      "watch: mount namespace %llu: %s: read again in %d ms",
		      (unsigned long long)ns->id, strerror(-err),
		      (int)(RETRY_NS / MS_NS));
	ns->retry = 1;
	if (!a->retry_due)
		a->retry_due = mntkit__clock_ns(CLOCK_MONOTONIC) + RETRY_NS;
	arm_timer(a);
	return 1;
}

static int retry_due(struct mntkit__watch_all *a)
{
	int ret = 0;

	a->retry_due = 0;
	for (size_t i = 0; i < a->n && !ret; i++)
		if (a->ns[i]->retry && a->ns[i]->w) {
			a->ns[i]->retry = 0;
			ret = push_drain(a, a->ns[i]);
		}
	return ret;
}

static int ns_broken(struct mntkit__watch_all *a, struct ns *ns, int err)
{
	if ((err != -ENOENT && err != -ESRCH) || ns->dying)
		return 0;
	mntkit__debug(MNTKIT_PRINT_INFO,
		      "watch: mount namespace %llu (pid %d): %s: let go",
		      (unsigned long long)ns->id, (int)ns->pid, strerror(-err));
	ns->broken = 1;
	a->scan_due = mntkit__clock_ns(CLOCK_MONOTONIC);
	arm_timer(a);
	return 1;
}

static int rescan_next(struct mntkit__watch_all *a, int64_t now)
{
	int64_t t0, cost, gap;
	struct ns *ns;
	int ret = 0;

	a->rr_due = 0;
	if (a->rescan_ms == MNTKIT_WATCH_NO_RESCAN)
		return 0;
	gap = every_ns(a);
	if (a->n) {
		ns = a->ns[a->rr_next];
		a->rr_next = (a->rr_next + 1) % a->n;
		gap /= (int64_t)a->n;
		if (ns->w) {
			t0 = mntkit__clock_ns(CLOCK_THREAD_CPUTIME_ID);
			ret = a->ops->rescan(ns->w);
			if (ret && (ns_broken(a, ns, ret) ||
				    ns_retry(a, ns, ret)))
				ret = 0;
			cost = mntkit__clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
			if (gap < RESCAN_COST_FACTOR * cost)
				gap = RESCAN_COST_FACTOR * cost;
			if (push_drain(a, ns))
				ret = -ENOMEM;
		}
	}
	a->rr_due = now + gap;
	return ret;
}

/* ---- the group's events, routed to the namespaces' watches ---- */

/*
 * Events were lost (a queue overflow, a failed read): every fed watch
 * resynchronizes (RESYNC, then the diff of its view against its table).
 */
static int fan_lost(struct mntkit__watch_all *a, const char *why)
{
	mntkit__debug(MNTKIT_PRINT_INFO,
		      "watch: fanotify: %s: every namespace resynchronizes",
		      why);
	for (struct ns *ns = a->mru; ns; ns = ns->next) {
		a->ops->feed(ns->w, 0, MNTKIT_FAN_Q_OVERFLOW);
		if (push_drain(a, ns))
			return -ENOMEM;
	}
	return 0;
}

/* hand the event to @ns's watch: 1 taken, 0 not (see route()) */
static int feed(struct mntkit__watch_all *a, struct ns *ns, uint64_t id,
		uint64_t mask, int *err)
{
	int ret = a->ops->feed(ns->w, id, mask);

	if (ret && push_drain(a, ns)) /* -1: its resync is to be read */
		*err = -ENOMEM;
	a->unsure |= ret < 0;
	if (ret > 0)
		mru_front(a, ns);
	return ret > 0;
}

/*
 * The fed namespace the process @pid that caused an event is in, if any:
 * the one its last event was routed to (@fresh: only if it is gone), else
 * the one /proc says (where the library's /proc is of our PID namespace,
 * as fanotify's @pid). A hint: a process may change namespaces, a PID be
 * reused, and a mount propagate to other namespaces.
 */
static struct ns *pid_hint(struct mntkit__watch_all *a, int32_t pid,
			   int fresh)
{
	uint32_t slot = (uint32_t)pid & (PID_HINTS - 1);
	struct stat st;
	struct ns *ns;

	if (pid <= 0)
		return NULL;
	if (a->use_pidfd && (fresh || a->hints[slot].pid != pid) &&
	    !ns_stat(pid, &st)) {
		ns = ns_find(a, st.st_dev, st.st_ino);
		return ns && ns->ns_fd >= 0 ? ns : NULL;
	}
	if (a->hints[slot].pid != pid)
		return NULL;
	for (ns = a->mru; ns; ns = ns->next)
		if (ns->id == a->hints[slot].ns_id)
			return ns;
	return NULL;
}

/* 1 if @ns's view holds the mount, or @ns takes the event (feed()) */
static int try_ns(struct mntkit__watch_all *a, struct ns *ns, uint64_t id,
		  uint64_t mask, int gone, int *err)
{
	if (!ns || (gone && !a->ops->holds(ns->w, id)))
		return 0;
	return feed(a, ns, id, mask, err);
}

/*
 * The namespace of an event (see the header). @gone: its DETACH is in the
 * same read (the mount is in no namespace now: only a view can hold it).
 */
static int route(struct mntkit__watch_all *a, uint64_t id, uint64_t mask,
		 int32_t pid, int gone)
{
	struct ns *hint = pid_hint(a, pid, 0), *first = a->mru, *to = NULL;
	struct ns *fresh;
	int err = 0;

	a->unsure = 0;
	if (first == hint)
		first = NULL;
	if (try_ns(a, hint, id, mask, gone, &err))
		to = hint;
	else if (!err && try_ns(a, first, id, mask, gone, &err))
		to = first;
	for (struct ns *ns = a->mru; !to && !err && ns; ns = ns->next)
		if (ns != hint && ns != first && a->ops->holds(ns->w, id) &&
		    feed(a, ns, id, mask, &err))
			to = ns;
	/* in no view, and not attached: no namespace was told of it */
	if (to || err || !(mask & MNTKIT_FAN_MNT_ATTACH))
		goto out;
	/*
	 * The process that attached it did so in its own namespace, where
	 * the mount is unless it is a copy that a shared mount propagated to
	 * another namespace. No shared mount there, no copy: the mount is
	 * that namespace's, and since it does not have it, gone. Reported
	 * there, ATTACH F_GONE (its DETACH follows: the view holds it now),
	 * without asking every namespace. Where the process is now (if it is
	 * alive: it may have changed namespaces since its last event).
	 */
	fresh = a->unsure ? NULL : pid_hint(a, pid, 1);
	if (fresh && fresh == hint && !a->ops->shares(fresh->w) &&
	    feed(a, fresh, id, mask | MNTKIT__FEED_GONE, &err)) {
		to = fresh;
		goto out;
	}
	for (struct ns *ns = a->mru; !gone && !to && !err && ns; ns = ns->next)
		if (ns != hint && ns != first && feed(a, ns, id, mask, &err))
			to = ns;
	if (to || err)
		goto out;
	/* gone, and its process's namespace was not asked yet */
	if (fresh && !a->unsure && fresh != hint &&
	    !a->ops->shares(fresh->w) &&
	    feed(a, fresh, id, mask | MNTKIT__FEED_GONE, &err)) {
		to = fresh;
		goto out;
	}
	a->unrouted++;
	mntkit__debug(MNTKIT_PRINT_DEBUG,
		      "watch: mount %#llx, gone, of no namespace known: not "
		      "reported (%llu so far)",
		      (unsigned long long)id, (unsigned long long)a->unrouted);
out:
	if (to && pid > 0) {
		a->hints[(uint32_t)pid & (PID_HINTS - 1)].pid = pid;
		a->hints[(uint32_t)pid & (PID_HINTS - 1)].ns_id = to->id;
	}
	return err;
}

static size_t gone_slot(const struct mntkit__watch_all *a, uint64_t id)
{
	size_t i = (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 29) &
		   (a->gone_cap - 1);

	while (a->gone[i] && a->gone[i] != id)
		i = (i + 1) & (a->gone_cap - 1);
	return i;
}

/*
 * The mounts of a read's DETACH events (not moves): an ATTACH before
 * one of them is of a mount gone since, which statmount finds in no
 * namespace (no need to ask every one). Without memory, none is known.
 */
static void gone_index(struct mntkit__watch_all *a, size_t len)
{
	struct mntkit__fan_event ev;
	size_t off = 0, n = 0, cap = 64;

	while (mntkit__fan_next(a->fanbuf, len, &off, &ev) > 0)
		n++;
	while (cap < 2 * n)
		cap *= 2;
	if (cap > a->gone_cap) {
		free(a->gone);
		a->gone = malloc(cap * sizeof(*a->gone));
		a->gone_cap = a->gone ? cap : 0;
	}
	if (!a->gone)
		return;
	memset(a->gone, 0, a->gone_cap * sizeof(*a->gone));
	for (off = 0; mntkit__fan_next(a->fanbuf, len, &off, &ev) > 0;)
		if (ev.mnt_id && (ev.mask & FAN_EVENTS) == MNTKIT_FAN_MNT_DETACH)
			a->gone[gone_slot(a, ev.mnt_id)] = ev.mnt_id;
}

static int gone_later(const struct mntkit__watch_all *a, uint64_t id)
{
	return a->gone_cap && a->gone[gone_slot(a, id)] == id;
}

static int fan_parse(struct mntkit__watch_all *a, size_t len)
{
	struct mntkit__fan_event ev;
	size_t off = 0;
	int ret;

	gone_index(a, len);
	while ((ret = mntkit__fan_next(a->fanbuf, len, &off, &ev)) > 0) {
		if (ev.mask & MNTKIT_FAN_Q_OVERFLOW)
			ret = fan_lost(a, "queue overflow");
		else if (ev.mnt_id && (ev.mask & FAN_EVENTS))
			ret = route(a, ev.mnt_id, ev.mask, ev.pid,
				    (ev.mask & FAN_EVENTS) ==
						    MNTKIT_FAN_MNT_ATTACH &&
					    gone_later(a, ev.mnt_id));
		if (ret < 0)
			return ret;
	}
	return ret < 0 ? fan_lost(a, "malformed event") : 0;
}

/* read what the group has (a bounded amount) */
static int fan_drain(struct mntkit__watch_all *a)
{
	for (int i = 0; i < FAN_READS_PER_CALL; i++) {
		ssize_t len = read(a->fan_fd, a->fanbuf, FAN_BUFSIZE);
		int ret;

		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && errno == EAGAIN)
			return 0;
		if (len <= 0)
			return len ? fan_lost(a, strerror(errno)) : 0;
		ret = fan_parse(a, (size_t)len);
		/* a read far from full had all there was (epoll tells more) */
		if (ret || (size_t)len <= FAN_BUFSIZE / 2)
			return ret;
	}
	return 0;
}

/*
 * The one group of every namespace (fanotify mount events, 6.15+, on the
 * native backend), unless the poll source was asked for. Where it cannot
 * be had, every namespace is polled (or skipped, if fanotify was asked
 * for), as a namespace is whose mark cannot be had: no namespace ever
 * opens a group of its own.
 */
static int group_open(struct mntkit__watch_all *a,
		      const struct mntkit_watch_opts *wo)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_FAN };

	if (wo->source == MNTKIT_WATCH_POLL)
		return 0;
	if (!mntkit__kernel_fanotify() ||
	    mntkit_get_backend() != MNTKIT_BACKEND_NATIVE) {
		a->fan_err = EOPNOTSUPP;
		mntkit__debug(MNTKIT_PRINT_INFO, "watch: poll source (%s)",
			      mntkit_get_backend() != MNTKIT_BACKEND_NATIVE ?
				      "the mountinfo backend" :
				      "no fanotify mount events, 6.15+");
		return 0;
	}
	a->fan_fd = fanotify_init(FAN_CLASS_NOTIF | MNTKIT_FAN_REPORT_MNT |
					  FAN_NONBLOCK | FAN_CLOEXEC,
				  O_RDONLY);
	if (a->fan_fd < 0) {
		/* EMFILE: fs.fanotify.max_user_groups; EPERM */
		a->fan_err = errno;
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: fanotify failed (%s)%s",
			      strerror(a->fan_err),
			      wo->source == MNTKIT_WATCH_FANOTIFY ?
				      "" : ": poll source instead");
		return 0;
	}
	a->fanbuf = malloc(FAN_BUFSIZE);
	if (!a->fanbuf)
		return -ENOMEM;
	if (epoll_ctl(a->epfd, EPOLL_CTL_ADD, a->fan_fd, &ev))
		return -errno;
	mntkit__debug(MNTKIT_PRINT_INFO,
		      "watch: fanotify source, one group for all namespaces");
	return 0;
}

/* what the epoll set says: namespaces to drain, scans and rescans due */
static int poll_all(struct mntkit__watch_all *a)
{
	struct epoll_event evs[EPOLL_BATCH];
	int n, ret = 0, timer = 0, exited = 0, fan = 0;
	uint64_t ticks;
	int64_t now;

	n = epoll_wait(a->epfd, evs, EPOLL_BATCH, 0);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n && !ret; i++) {
		uint64_t tag = evs[i].data.u64;

		if (!tag) {
			timer = 1;
		} else if (tag == TAG_FAN) {
			fan = 1;
		} else if (tag & TAG_EXIT) {
			pidfd_drop(a, (struct ns *)(uintptr_t)(tag & ~TAG_EXIT));
			exited = 1;
		} else {
			ret = push_drain(a, evs[i].data.ptr);
		}
	}
	if (!ret)
		ret = sweep(a);
	/* the group before a scan: a watch let go of is routed nothing */
	if (!ret && fan)
		ret = fan_drain(a);
	if (ret)
		return ret;
	if (exited) { /* scan soon, not sooner than 10x its cost after one */
		int64_t at = a->scan_end + EXIT_GAP_FACTOR * a->scan_cost;

		if (at < a->scan_due)
			a->scan_due = at;
	}
	if (timer) {
		a->armed = -1;
		if (read(a->timer_fd, &ticks, sizeof(ticks)) < 0 &&
		    errno != EAGAIN)
			return -errno;
	}
	now = mntkit__clock_ns(CLOCK_MONOTONIC);
	if (now >= a->scan_due) {
		ret = scan(a);
		schedule_scan(a, mntkit__clock_ns(CLOCK_MONOTONIC));
	}
	if (!ret && a->rr_due && now >= a->rr_due)
		ret = rescan_next(a, now);
	if (!ret && a->retry_due && now >= a->retry_due)
		ret = retry_due(a);
	arm_timer(a);
	return ret;
}

/* ---- reading ---- */

/* hand @src (of @ns) to the caller: what fits in its @ev->size */
static void emit(struct mntkit__watch_all *a, struct mntkit_event *ev,
		 const struct mntkit_event *src, const struct ns *ns)
{
	struct mntkit_event e = *src;
	size_t size = ev->size;

	e.size = sizeof(e);
	e.seq = ++a->seq;
	if (e.kind == MNTKIT_EVENT_RESYNC)
		e.resync_end = e.seq + (src->resync_end - src->seq);
	e.mnt_ns_id = ns->id;
	e.ns_pid = ns->pid;
	memcpy(ev, &e, size < sizeof(e) ? size : sizeof(e));
	ev->size = size;
}

/* NS_ADD: when the namespace was found (before its first snapshot) */
static void emit_ns(struct mntkit__watch_all *a, struct mntkit_event *ev,
		    enum mntkit_event_kind kind, const struct ns *ns)
{
	int add = kind == MNTKIT_EVENT_NS_ADD;
	MNTKIT_EVENT(e);

	e.kind = kind;
	e.realtime_ns = (uint64_t)(add ? ns->found_rt :
					 mntkit__clock_ns(CLOCK_REALTIME));
	e.monotonic_ns = (uint64_t)(add ? ns->found_mono :
					  mntkit__clock_ns(CLOCK_MONOTONIC));
	emit(a, ev, &e, ns);
}

int mntkit__watch_all_read(struct mntkit__watch_all *a,
			   struct mntkit_event *ev)
{
	int polled = 0, ret;

	for (;;) {
		struct item *it;
		MNTKIT_EVENT(e);

		if (a->head == a->nitems) {
			if (polled)
				return 0;
			ret = poll_all(a);
			if (ret)
				return ret;
			polled = 1;
			continue;
		}
		it = &a->items[a->head];
		switch (it->kind) {
		case ITEM_ADD:
			a->head++;
			emit_ns(a, ev, MNTKIT_EVENT_NS_ADD, it->ns);
			return 1;
		case ITEM_GONE:
			if (it->ns->lost == 1) { /* say so, then NS_GONE */
				it->ns->lost = 2;
				emit_ns(a, ev, MNTKIT_EVENT_RESYNC, it->ns);
				return 1;
			}
			a->head++;
			emit_ns(a, ev, MNTKIT_EVENT_NS_GONE, it->ns);
			a->ops->free(it->ns->w);
			free(it->ns);
			return 1;
		case ITEM_DRAIN:
			ret = a->ops->read(it->ns->w, &e);
			if (ret == 1) {
				emit(a, ev, &e, it->ns);
				return 1;
			}
			a->head++;
			it->ns->queued = 0;
			if (ret < 0 && it->ns->dying) {
				/* the table cannot be read without a process
				 * (the emulation): what was not yet diffed is
				 * lost, a RESYNC before its NS_GONE says so */
				it->ns->lost = 1;
				mntkit__debug(MNTKIT_PRINT_INFO,
					      "watch: mount namespace %llu: "
					      "its last changes are lost: %s",
					      (unsigned long long)it->ns->id,
					      strerror(-ret));
				ret = 0;
			}
			if (ret < 0 && (ns_broken(a, it->ns, ret) ||
					ns_retry(a, it->ns, ret)))
				ret = 0;
			if (ret < 0) {
				mntkit__debug(MNTKIT_PRINT_INFO,
					      "watch: mount namespace %llu: "
					      "%s",
					      (unsigned long long)it->ns->id,
					      strerror(-ret));
				return ret;
			}
			break;
		}
	}
}

int mntkit__watch_all_rescan(struct mntkit__watch_all *a)
{
	int ret = scan(a);

	schedule_scan(a, mntkit__clock_ns(CLOCK_MONOTONIC));
	for (size_t i = 0; !ret && i < a->n; i++) {
		if (!a->ns[i]->w)
			continue;
		ret = a->ops->rescan(a->ns[i]->w);
		if (ret && (ns_broken(a, a->ns[i], ret) ||
			    ns_retry(a, a->ns[i], ret))) {
			ret = 0;
			continue;
		}
		if (!ret)
			ret = push_drain(a, a->ns[i]);
	}
	arm_timer(a);
	return ret;
}

int mntkit__watch_all_fd(const struct mntkit__watch_all *a)
{
	return a->epfd;
}

enum mntkit_watch_source
mntkit__watch_all_source(const struct mntkit__watch_all *a)
{
	return a->source;
}

size_t mntkit__watch_all_skipped(const struct mntkit__watch_all *a)
{
	return a->skipped;
}

/* ---- opening and closing ---- */

void mntkit__watch_all_free(struct mntkit__watch_all *a)
{
	if (!a)
		return;
	/* the namespaces let go of: only their NS_GONE items hold them */
	for (size_t i = a->head; i < a->nitems; i++)
		if (a->items[i].kind == ITEM_GONE) {
			pidfd_drop(a, a->items[i].ns);
			a->ops->free(a->items[i].ns->w);
			free(a->items[i].ns);
		}
	for (size_t i = 0; i < a->n; i++) {
		pidfd_drop(a, a->ns[i]);
		if (a->ns[i]->ns_fd >= 0) /* its mark goes with the group */
			close(a->ns[i]->ns_fd);
		a->ops->free(a->ns[i]->w);
		free(a->ns[i]);
	}
	free(a->ns);
	free(a->items);
	free(a->fanbuf);
	free(a->gone);
	if (a->fan_fd >= 0)
		close(a->fan_fd);
	if (a->epfd >= 0)
		close(a->epfd);
	if (a->sig_ep >= 0)
		close(a->sig_ep);
	if (a->timer_fd >= 0)
		close(a->timer_fd);
	free(a);
}

/* are the PIDs of the library's /proc those pidfd_open(2) takes? */
static int proc_is_ours(void)
{
	char path[64], buf[32];
	int at = mntkit__proc_path(path, sizeof(path), 0, "");
	ssize_t n;

	n = readlinkat(at, at == AT_FDCWD ? "/proc/self" : "self", buf,
		       sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return atol(buf) == (long)getpid();
}

int mntkit__watch_all_new(const struct mntkit_watch_opts *wopts,
			  const struct mntkit__watch_ns_ops *ops,
			  struct mntkit__watch_all **out)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct mntkit__watch_all *a = calloc(1, sizeof(*a));
	int64_t now;
	int ret;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	a->ops = ops;
	a->wo = *wopts;
	a->wo.size = sizeof(a->wo);
	a->wo.flags &= ~(MNTKIT_WATCH_ALL_NS | MNTKIT_WATCH_INITIAL);
	a->wo.rescan_ms = MNTKIT_WATCH_NO_RESCAN; /* rescans: ours, in turn */
	a->rescan_ms = wopts->rescan_ms;
	a->initial = !!(wopts->flags & MNTKIT_WATCH_INITIAL);
	a->armed = -1;
	a->fan_fd = -1;
	a->epfd = epoll_create1(EPOLL_CLOEXEC);
	a->sig_ep = epoll_create1(EPOLL_CLOEXEC);
	a->timer_fd = timerfd_create(CLOCK_MONOTONIC,
				     TFD_NONBLOCK | TFD_CLOEXEC);
	if (a->epfd < 0 || a->sig_ep < 0 || a->timer_fd < 0 ||
	    epoll_ctl(a->epfd, EPOLL_CTL_ADD, a->timer_fd, &ev)) {
		ret = -errno;
		goto fail;
	}
	a->use_pidfd = proc_is_ours();
	ret = group_open(a, wopts);
	if (!ret)
		ret = scan(a);
	if (ret)
		goto fail;
	now = mntkit__clock_ns(CLOCK_MONOTONIC);
	schedule_scan(a, now);
	if (a->rescan_ms != MNTKIT_WATCH_NO_RESCAN)
		a->rr_due = now + every_ns(a) / (int64_t)(a->n ? a->n : 1);
	arm_timer(a);
	if (!a->source)
		a->source = wopts->source == MNTKIT_WATCH_FANOTIFY ?
				    MNTKIT_WATCH_FANOTIFY :
				    MNTKIT_WATCH_POLL;
	*out = a;
	return 0;
fail:
	mntkit__watch_all_free(a);
	return ret;
}
