/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * watch.h - the watch module's private header: the watch of one mount
 * namespace (watch*.c) and the all-namespace watch (watch-all*.c), whose
 * files call each other through it. doc/watches-internals.md tells how
 * watches work.
 */
#ifndef MNTKIT_WATCH_H
#define MNTKIT_WATCH_H

#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "internal.h"
#include "syscall.h"
#include "util.h"

/* ---- the watch of one namespace ---- */

/* an event queued, owning its records */
struct mntkit__qev {
	struct mntkit_event ev;
	struct mntkit_statmount *own[2];
};

/* the events not yet read (a vector: @v, @n, @cap), from @head on */
struct mntkit__watch_queue {
	struct mntkit__qev *v;
	size_t head, n, cap;
	uint64_t seq;		 /* of the last event queued */
	struct mntkit__qev cur; /* the event last returned */
};

/* a record of the view (watch-view.c) */
struct mntkit__view_rec {
	struct mntkit_statmount *sm;
	uint32_t gen; /* the last diff that found the mount */
};

/*
 * The view: exactly what the watch has told the caller so far, one record
 * per mount ID; and the number of children each mount has in it (a child
 * may be known before its parent).
 */
struct mntkit__watch_view {
	struct mntkit__map recs; /* mount ID -> struct mntkit__view_rec */
	struct mntkit__map kids; /* parent ID -> uint32_t children */
	uint32_t gen;
	size_t shared; /* records in a peer group (shared mounts) */
};

/* the hash of each mountinfo line, by old mount ID (watch-poll.c) */
struct mntkit__watch_lines {
	struct mntkit__map hash; /* old ID -> uint64_t, never 0 */
	bool valid;
};

/* the change signals of /proc/PID/mountinfo (watch-poll.c) */
struct mntkit__watch_mi {
	int wake_fd; /* in the epoll set while signals wake the caller */
	bool wake_on;
	int fd;	     /* the private file: only the watch consumes its POLLPRI */
	bool noted;  /* its signal, consumed by an all-namespace watch */
	struct mntkit__watch_lines lines; /* as of the view (native backend) */
	char *buf;
	size_t cap;
};

/* the fanotify source (watch-fanotify.c) */
struct mntkit__watch_fan {
	int fd;	   /* the watch's own group, or -1 */
	char *buf; /* its reads */
	bool fed;  /* marked in an all-namespace watch's group instead */
	uint64_t events;   /* mount events handled so far */
	uint64_t at_first; /* @events before the first signal not diffed */
	uint64_t fed_new;  /* events fed since the last read */
	struct mntkit_statmount *pbuf; /* MNT_POINT alone (reach checks) */
	size_t pbufsize;
};

/* when the watch diffs (watch-timing.c); times in CLOCK_MONOTONIC ns */
struct mntkit__watch_timing {
	uint32_t rescan_ms; /* the caller's */
	int timer_fd;
	int64_t armed;	       /* what the timer is set to (-1: unknown) */
	int64_t verify_first;  /* the first signal not yet diffed (0: none) */
	int64_t verify_due;    /* the diff it owes (0: none) */
	int64_t rescan_due;    /* the next rescan (0: none) */
	int64_t sync_after;    /* a signalled diff waits until then */
	int64_t check_after;   /* a check of fanotify's signals, until then */
	int64_t last_activity; /* the last signal or fanotify event */
	int64_t diff_cost;     /* CPU time of the last diff */
	int64_t rescan_cost;   /* of the last whole diff */
};

struct mntkit_watch {
	enum mntkit_watch_source source;
	const struct mntkit_backend_ops *ops; /* the backend it was made on */
	uint64_t mask;
	struct mntkit_mnt_id_req req;
	int req_fd; /* an fd @req uses, or -1 */
	bool held;  /* its namespace is held for the emulation (ns_dev, _ino) */
	pid_t pid_only; /* its namespace is that of this process, read from
			 * its mountinfo alone (the nsfs file refused) */
	dev_t ns_dev;
	ino_t ns_ino;
	int epfd;
	bool need_resync;
	struct mntkit_statmount *buf; /* statmount replies */
	size_t bufsize;
	struct mntkit__watch_view view;
	struct mntkit__watch_queue q;
	struct mntkit__watch_mi mi;
	struct mntkit__watch_fan fan;
	struct mntkit__watch_timing tm;
	struct mntkit__watch_all *all; /* MNTKIT_WATCH_F_ALL_NS: it does all */
};

/* the clock of the watches' times, and of a diff's cost (CPU time) */
static inline int64_t mntkit__watch_now(void)
{
	return mntkit__clock_ns(CLOCK_MONOTONIC);
}

static inline int64_t mntkit__watch_cpu(void)
{
	return mntkit__clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* add @fd to epoll set @epfd for @events, by its fd: 0 or -errno */
static inline int mntkit__epoll_add(int epfd, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/*
 * mntkit__watch_event_out - an event into the caller's @ev: the fields
 * its size holds (ev->size is never written); a tail beyond ours zeroed.
 */
static inline void mntkit__watch_event_out(struct mntkit_event *ev,
					   const struct mntkit_event *src)
{
	mntkit__sized_out(ev, ev->size, src, sizeof(*src), sizeof(ev->size));
}

/*
 * A fed watch (made in watch.c, fed in watch-fanotify.c): the fanotify
 * source without a group of its own.
 * The caller has marked its namespace (FAN_MARK_MNTNS) in the one group of
 * all namespaces, before the call (nothing falls between the mark and the
 * first snapshot), reads the group, and hands each event to
 * mntkit__watch_feed(): 1 if it was the namespace's (its view holds the
 * mount, or its namespace has it: the events are queued,
 * mntkit_watch_read() gives them), 0 if not (nothing done), -1 if it cannot
 * tell (statmount failed: it owes a resync, which the read does);
 * FAN_Q_OVERFLOW makes its next read resynchronize.
 * MNTKIT__FEED_GONE in @mask: mount @mnt_id is the namespace's and gone
 * (the caller found it so): it is reported as ATTACH with
 * MNTKIT_EVENT_F_GONE, its DETACH follows (as the watch of one namespace
 * reports a mount gone before it could be stat'ed).
 */
#define MNTKIT__FEED_GONE (1ULL << 63)
int mntkit__watch_new_fed(const struct mntkit_watch_opts *wopts,
			  const struct mntkit_opts *opts,
			  struct mntkit_watch **out);
int mntkit__watch_feed(struct mntkit_watch *w, uint64_t mnt_id,
		       uint64_t mask);

/*
 * The events queued and not yet read, of a watch of one namespace (after
 * mntkit_watch_new() with MNTKIT_WATCH_F_INITIAL: the ATTACH events of
 * its first snapshot, which a live table applies silently, live.c)
 */
static inline size_t mntkit__watch_queued(const struct mntkit_watch *w)
{
	return w->q.n - w->q.head;
}

/* ---- the view and the event queue (watch-view.c) ---- */

/* the view holds mount @id (no system call) */
static inline bool mntkit__view_holds(const struct mntkit_watch *w,
				      uint64_t id)
{
	return mntkit__map_has(&w->view.recs, id);
}

/*
 * A mount of the view is shared (in a peer group: a mount under it may
 * propagate to other namespaces). No system call.
 */
static inline bool mntkit__view_shares(const struct mntkit_watch *w)
{
	return w->view.shared > 0;
}

void mntkit__watch_qev_free(struct mntkit__qev *e);
void mntkit__watch_q_free(struct mntkit__watch_queue *q);
void mntkit__view_init(struct mntkit__watch_view *v);
void mntkit__view_free(struct mntkit__watch_view *v);
int mntkit__view_refresh(struct mntkit_watch *w,
			 const struct mntkit_statmount *sm);
int mntkit__view_detach(struct mntkit_watch *w, uint64_t id);
int mntkit__view_detach_unseen(struct mntkit_watch *w);
void mntkit__view_gone(struct mntkit_watch *w, uint64_t id, uint64_t mask);
uint32_t mntkit__view_kids(const struct mntkit_watch *w, uint64_t id);
int mntkit__watch_first_view(struct mntkit_watch *w, unsigned int flags);
int mntkit__watch_sync_table(struct mntkit_watch *w, bool resync);

/* ---- the mountinfo poll source and the line hashes (watch-poll.c) ---- */

bool mntkit__watch_mi_signalled(struct mntkit_watch *w);
void mntkit__watch_lines_read(struct mntkit_watch *w,
			      struct mntkit__watch_lines *l);
void mntkit__watch_lines_keep(struct mntkit_watch *w,
			      struct mntkit__watch_lines *l, bool ok);
void mntkit__watch_lines_free(struct mntkit__watch_lines *l);
int mntkit__watch_sync_signalled(struct mntkit_watch *w);

/* ---- the fanotify source (watch-fanotify.c) ---- */

/*
 * One event of a fanotify read buffer: its mask, the process that caused
 * it (in the reader's PID namespace; 0 if none there) and the unique mount
 * ID of its FAN_EVENT_INFO_TYPE_MNT record (0: none).
 * mntkit__fan_next() takes the event at *@off of @buf (@len bytes) and
 * moves *@off past it: 1, 0 at the end, -EBADMSG for a malformed one.
 */
struct mntkit__fan_event {
	uint64_t mask;
	int32_t pid;
	uint64_t mnt_id;
};
int mntkit__fan_next(const char *buf, size_t len, size_t *off,
		     struct mntkit__fan_event *ev);

/* the mount events a group is marked for */
#define MNTKIT__FAN_EVENTS (MNTKIT_FAN_MNT_ATTACH | MNTKIT_FAN_MNT_DETACH)
#define MNTKIT__FAN_BUFSIZE (64 * 1024) /* the buffer of a group's reads */

int mntkit__fan_group(int ns_fd, enum mntkit_watch_source want);
int mntkit__fan_mark(int fd, int ns_fd, bool add);
int mntkit__fan_drain(int fd, char *buf, int (*take)(void *ctx, ssize_t len),
		      void *ctx);
int mntkit__watch_fan_open(struct mntkit_watch *w,
			   enum mntkit_watch_source want, int ns_fd);
bool mntkit__watch_fan_read(struct mntkit_watch *w);

/* ---- when a watch diffs (watch-timing.c) ---- */

void mntkit__watch_schedule_rescan(struct mntkit_watch *w, int64_t now);
void mntkit__watch_arm(struct mntkit_watch *w);
void mntkit__watch_synced(struct mntkit_watch *w, int ret, int64_t t0,
			  const char *what);
int mntkit__watch_due(struct mntkit_watch *w, bool signalled, bool fanned,
		      uint64_t fan_before);

/* ---- opening a namespace's files (watch-ns.c) ---- */

/* what to watch, resolved: an fd of the namespace and two mountinfo fds */
struct mntkit__nsfiles {
	int ns_fd;
	int mi[2];
};

int mntkit__watch_ns_open(const struct mntkit_opts *o,
			  struct mntkit__nsfiles *f);
void mntkit__watch_ns_pin(struct mntkit_watch *w, const struct mntkit_opts *o,
			  int ns_fd);

/* ---- the all-namespace watch (watch-all*.c) ---- */

/* a namespace of an all-namespace watch (watch-all-ns.c) */
struct mntkit__ns {
	uint64_t id;
	dev_t dev;
	ino_t ino;
	pid_t pid;		/* the lowest process in it at the last scan */
	struct mntkit_watch *w; /* NULL: skipped (err) or not yet opened */
	int err;		/* why it is skipped */
	bool seen;		/* in the scan under way */
	bool queued;		/* a drain of it is in the FIFO */
	int64_t found_rt, found_mono; /* when it was found: its NS_ADD's */
	int pidfd;		/* of @pid, or -1 */
	pid_t pidfd_pid;
	bool dying;  /* let go of: its NS_GONE is queued */
	bool broken; /* its watch lost its process: let go */
	int lost;    /* dying, and its last changes are lost (2: said) */
	bool retry;  /* its read failed for want of a resource */
	int ns_fd;   /* marked in the group (fed): its nsfs fd */
	struct mntkit__ns *prev, *next; /* the fed ones, last routed to first */
};

enum mntkit__item_kind { MNTKIT__ITEM_ADD, MNTKIT__ITEM_DRAIN,
			 MNTKIT__ITEM_GONE };

struct mntkit__item {
	enum mntkit__item_kind kind;
	struct mntkit__ns *ns;
};

/*
 * The epoll data of an all-namespace watch's fds: a namespace's watch
 * (its struct mntkit__ns), a namespace's pidfd (its struct mntkit__ns |
 * MNTKIT__TAG_EXIT), the group (MNTKIT__TAG_FAN), the timer (0).
 */
#define MNTKIT__TAG_EXIT 1ULL
#define MNTKIT__TAG_FAN 2ULL
#define MNTKIT__EPOLL_BATCH 64 /* events an epoll_wait takes */

/* a fanotify event's process -> the namespace it was routed to */
#define MNTKIT__PID_HINTS 256 /* a power of two */

/* the one fanotify group of all namespaces (watch-all-fanotify.c) */
struct mntkit__all_group {
	int fd;		/* or -1 */
	int err;	/* why there is none (0: poll asked for) */
	char *buf;
	struct mntkit__ns *mru; /* the fed namespaces, last routed to first */
	uint64_t unrouted;	/* ATTACHes of mounts gone before routing */
	struct {
		int32_t pid;	/* that caused an event (fanotify's) */
		uint64_t ns_id; /* the namespace the event was routed to */
	} hints[MNTKIT__PID_HINTS];
	struct mntkit__map gone; /* the IDs detached in the read (a set) */
	bool unsure; /* a watch could not tell (routing an event) */
};

/* the timer of an all-namespace watch (watch-timing.c) */
struct mntkit__all_timing {
	int timer_fd;
	int64_t armed;
	int64_t scan_due, scan_cost;
	int64_t scan_end;  /* when the last scan ended */
	int64_t rr_due;	   /* the next rescan in turn (0: none) */
	int64_t retry_due; /* the namespaces' failed reads, again (0: none) */
	size_t rr_next;	   /* the namespace it rescans */
};

struct mntkit__watch_all {
	struct mntkit_watch_opts wo; /* for each namespace's watch */
	uint32_t rescan_ms;	     /* the caller's */
	bool initial;		     /* MNTKIT_WATCH_F_INITIAL asked for */
	bool scanned;		     /* the first scan is done */
	bool use_pidfd; /* the library's /proc is of our PID namespace */
	int epfd;
	int sig_ep; /* the namespaces' private mountinfo files (sweep) */
	MNTKIT__VEC(struct mntkit__ns *) ns; /* watched or skipped */
	size_t skipped;
	struct {
		struct mntkit__item *v;
		size_t head, n, cap;
	} fifo;
	uint64_t seq; /* of the last event handed out */
	enum mntkit_watch_source source;
	struct mntkit__all_group group;
	struct mntkit__all_timing tm;
};

/* watch-all.c: the FIFO */
int mntkit__all_push(struct mntkit__watch_all *a, enum mntkit__item_kind kind,
		     struct mntkit__ns *ns);
int mntkit__all_push_drain(struct mntkit__watch_all *a, struct mntkit__ns *ns);

/* watch-all-ns.c: the namespaces */
struct mntkit__ns *mntkit__all_ns_find(const struct mntkit__watch_all *a,
				       dev_t dev, ino_t ino);
int mntkit__all_ns_stat(pid_t pid, struct stat *st);
int mntkit__all_scan(struct mntkit__watch_all *a);
int mntkit__all_sweep(struct mntkit__watch_all *a);
void mntkit__all_pidfd_drop(struct mntkit__watch_all *a,
			    struct mntkit__ns *ns);
bool mntkit__all_ns_broken(struct mntkit__watch_all *a, struct mntkit__ns *ns,
			   int err);
bool mntkit__all_ns_retry(struct mntkit__watch_all *a, struct mntkit__ns *ns,
			  int err);
bool mntkit__all_proc_is_ours(void);

/* watch-all-fanotify.c: the group, its marks, its events routed */
int mntkit__all_group_open(struct mntkit__watch_all *a,
			   const struct mntkit_watch_opts *wo);
int mntkit__all_mark(struct mntkit__watch_all *a, struct mntkit__ns *ns,
		     int *fd, enum mntkit_watch_source *source);
void mntkit__all_unmark(struct mntkit__watch_all *a, struct mntkit__ns *ns);
void mntkit__all_mru_front(struct mntkit__watch_all *a, struct mntkit__ns *ns);
int mntkit__all_group_read(struct mntkit__watch_all *a);

/* watch-timing.c: scans, rescans in turn, retries */
void mntkit__all_arm(struct mntkit__watch_all *a);
void mntkit__all_timing_init(struct mntkit__watch_all *a);
void mntkit__all_schedule_scan(struct mntkit__watch_all *a, int64_t now);
int mntkit__all_retry_later(struct mntkit__watch_all *a);
int mntkit__all_timers(struct mntkit__watch_all *a, bool fired, bool exited);

/* watch-all.c: what watch.c's public calls hand an all-namespace watch */
int mntkit__watch_all_new(const struct mntkit_watch_opts *wopts,
			  struct mntkit__watch_all **out);
int mntkit__watch_all_read(struct mntkit__watch_all *a,
			   struct mntkit_event *ev);
int mntkit__watch_all_rescan(struct mntkit__watch_all *a);
void mntkit__watch_all_free(struct mntkit__watch_all *a);

#endif /* MNTKIT_WATCH_H */
