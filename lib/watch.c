// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch.c - watches, the public calls: a watch made (its namespace, its
 * source, its fds, its first view), read (what a wakeup brought, then the
 * events queued), rescanned and freed; an all-namespace watch handed to
 * watch-all.c. doc/watches-internals.md tells how watches work.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "watch.h"

#define DEFAULT_MASK (MNTKIT_STATMOUNT_ALL & ~MNTKIT_STATMOUNT_SUPPORTED_MASK)

/* ---- reading ---- */

/* what a wakeup brought: fanotify events, change signals, the timer */
static int process(struct mntkit_watch *w)
{
	struct epoll_event evs[4];
	/* events fed since the last call came with this wakeup's signals */
	uint64_t ticks, fan_before = w->fan.events - w->fan.fed_new;
	bool got = w->fan.fed_new > 0, pri, timer = false, fan = false;
	int n;

	w->fan.fed_new = 0;

	/*
	 * Clears the wakeup file's POLLPRI (the private file says what was
	 * signalled); and tells which of the timer and fanotify have
	 * something to read (level-triggered: what is left is told again).
	 */
	n = epoll_wait(w->epfd, evs, MNTKIT_ARRAY_SIZE(evs), 0);
	for (int i = 0; i < n; i++) {
		timer |= evs[i].data.fd == w->tm.timer_fd;
		fan |= evs[i].data.fd == w->fan.fd;
	}
	if (n < 0) /* cannot tell: read both */
		timer = fan = true;
	if (timer) {
		w->tm.armed = -1; /* it went off, or may have */
		if (read(w->tm.timer_fd, &ticks, sizeof(ticks)) < 0 &&
		    errno != EAGAIN)
			w->need_resync = true;
	}
	if (fan && w->fan.fd >= 0)
		got |= mntkit__watch_fan_read(w);
	pri = mntkit__watch_mi_signalled(w);
	if (w->need_resync)
		return mntkit__watch_sync_table(w, true);
	return mntkit__watch_due(w, pri, got, fan_before);
}

/* the next event queued into the caller's @ev */
static bool pop(struct mntkit_watch *w, struct mntkit_event *ev)
{
	struct mntkit__watch_queue *q = &w->q;

	if (q->head == q->n)
		return false;
	q->cur = q->v[q->head++];
	mntkit__watch_event_out(ev, &q->cur.ev);
	return true;
}

int mntkit_watch_read(struct mntkit_watch *w, struct mntkit_event *ev)
{
	int ret;

	if (!w || !ev)
		return MNTKIT__MISUSE(EINVAL, "a NULL %s", w ? "event" : "watch");
	if (ev->size < MNTKIT_EVENT_SIZE_VER0)
		return mntkit__short_size("struct mntkit_event", ev->size,
					  MNTKIT_EVENT_SIZE_VER0, "MNTKIT_EVENT");
	if (w->all) {
		ret = mntkit__watch_all_read(w->all, ev);
		return ret < 0 ? mntkit__fail(-ret) : ret;
	}
	MNTKIT__PIN_OPS_PID(w->ops, w->pid_only);
	mntkit__watch_qev_free(&w->q.cur);
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
	MNTKIT__PIN_OPS_PID(w->ops, w->pid_only);
	ret = mntkit__watch_sync_table(w, w->need_resync);
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

ssize_t mntkit_watch_ns_skipped(const struct mntkit_watch *w)
{
	if (!w)
		return mntkit__fail(EINVAL);
	return w->all ? (ssize_t)w->all->skipped : 0;
}

/* ---- opening and freeing ---- */

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
	close_fd(&w->fan.fd);
	close_fd(&w->mi.wake_fd);
	close_fd(&w->mi.fd);
	close_fd(&w->tm.timer_fd);
	close_fd(&w->req_fd);
	if (w->held)
		mntkit__emul_ns_release(w->ns_dev, w->ns_ino);
	mntkit__watch_q_free(&w->q);
	mntkit__view_free(&w->view);
	mntkit__watch_lines_free(&w->mi.lines);
	free(w->mi.buf);
	free(w->buf);
	free(w->fan.pbuf);
	free(w->fan.buf);
	free(w);
}

/* a watch with no fd open, its view empty */
static struct mntkit_watch *watch_alloc(void)
{
	struct mntkit_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->epfd = w->req_fd = w->fan.fd = w->mi.wake_fd = w->mi.fd = -1;
	w->tm.timer_fd = -1;
	w->tm.armed = -1;
	mntkit__view_init(&w->view);
	return w;
}

/* the epoll set: the wakeup mountinfo file, the timer, the group */
static int setup_fds(struct mntkit_watch *w)
{
	int ret;

	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->tm.timer_fd = timerfd_create(CLOCK_MONOTONIC,
					TFD_NONBLOCK | TFD_CLOEXEC);
	if (w->epfd < 0 || w->tm.timer_fd < 0)
		return -errno;
	ret = w->mi.wake_fd < 0 ? 0 :
				  mntkit__epoll_add(w->epfd, w->mi.wake_fd,
						    EPOLLPRI);
	w->mi.wake_on = w->mi.wake_fd >= 0 && !ret;
	if (!ret)
		ret = mntkit__epoll_add(w->epfd, w->tm.timer_fd, EPOLLIN);
	if (!ret && w->fan.fd >= 0)
		ret = mntkit__epoll_add(w->epfd, w->fan.fd, EPOLLIN);
	return ret;
}

static int watch_opts_copy(const struct mntkit_watch_opts *in,
			   struct mntkit_watch_opts *out)
{
	const unsigned int known = MNTKIT_WATCH_F_INITIAL | MNTKIT_WATCH_F_ALL_NS;
	int ret = mntkit__sized_arg(out, sizeof(*out), in, in ? in->size : 0,
				    MNTKIT_WATCH_OPTS_SIZE_VER0,
				    "struct mntkit_watch_opts",
				    "MNTKIT_WATCH_OPTS");

	if (ret)
		return ret;
	if (out->source > MNTKIT_WATCH_POLL)
		return mntkit__misuse("mntkit_watch_new", EINVAL,
				      "unknown source %d", (int)out->source);
	if (out->flags & ~known)
		return mntkit__misuse("mntkit_watch_new", EINVAL,
				      "unknown flags %#x", out->flags & ~known);
	return 0;
}

/*
 * An all-namespace watch: its @all does the work; its @epfd is @all's,
 * its @source the first namespace's.
 */
static int watch_all_new(const struct mntkit_watch_opts *wo,
			 struct mntkit_watch **out)
{
	struct mntkit_watch *w = watch_alloc();
	int ret;

	if (!w)
		return mntkit__fail(ENOMEM);
	ret = mntkit__watch_all_new(wo, &w->all);
	if (ret) {
		free(w);
		return mntkit__fail(-ret);
	}
	w->epfd = w->all->epfd;
	w->source = w->all->source;
	*out = w;
	return 0;
}

/* a watch of one namespace: its files, its source, its first view */
static int watch_open(struct mntkit_watch *w,
		      const struct mntkit_watch_opts *wo,
		      const struct mntkit_opts *o)
{
	struct mntkit__nsfiles f = { .ns_fd = -1, .mi = { -1, -1 } };
	int ret = mntkit__watch_ns_open(o, &f);

	if (ret)
		goto out;
	w->mi.wake_fd = f.mi[0];
	w->mi.fd = f.mi[1];
	f.mi[0] = f.mi[1] = -1;
	mntkit__watch_ns_pin(w, o, f.ns_fd);
	/* its mounts stay readable once no process is left in it: the
	 * emulation (or a hybrid reply) reads it through this hold */
	if (f.ns_fd >= 0 &&
	    !mntkit__emul_ns_hold(f.ns_fd, &w->ns_dev, &w->ns_ino))
		w->held = true;
	/* the mark before the snapshot: nothing falls between the two */
	ret = mntkit__watch_fan_open(w, wo->source, f.ns_fd);
	if (!ret && w->mi.wake_fd < 0 && w->source != MNTKIT_WATCH_FANOTIFY)
		ret = -ENOENT; /* no /proc, and the poll source needs it */
	if (!ret)
		ret = setup_fds(w);
	if (!ret)
		ret = mntkit__watch_first_view(w, wo->flags);
out:
	close_fd(&f.ns_fd);
	close_fd(&f.mi[0]);
	close_fd(&f.mi[1]);
	return ret;
}

static int watch_new(const struct mntkit_watch_opts *wopts,
		     const struct mntkit_opts *opts, bool fed,
		     struct mntkit_watch **out)
{
	MNTKIT__PIN();
	struct mntkit_watch_opts wo;
	struct mntkit_opts o;
	struct mntkit_watch *w;
	int ret;

	if (!out)
		return mntkit__misuse("mntkit_watch_new", EINVAL,
				      "a NULL out pointer");
	*out = NULL;
	ret = watch_opts_copy(wopts, &wo);
	if (ret)
		return mntkit__fail(-ret);
	if ((wo.flags & MNTKIT_WATCH_F_ALL_NS) && (opts || fed))
		return mntkit__misuse("mntkit_watch_new", EINVAL,
				      "MNTKIT_WATCH_F_ALL_NS watches every "
				      "namespace: no opts");
	if (wo.flags & MNTKIT_WATCH_F_ALL_NS)
		return watch_all_new(&wo, out);
	w = watch_alloc();
	if (!w)
		return mntkit__fail(ENOMEM);
	w->fan.fed = fed;
	w->mask = (wo.mask ? wo.mask : DEFAULT_MASK) |
		  MNTKIT_STATMOUNT_MNT_BASIC;
	w->tm.rescan_ms = wo.rescan_ms;
	ret = mntkit__req_init(&w->req, opts, &w->req_fd);
	if (!ret && mntkit__pinned_cheap_ids())
		ret = mntkit__misuse("mntkit_watch_new", EINVAL,
				     "MNTKIT_OPTS_F_CHEAP_IDS is not for a "
				     "watch: it compares the IDs of many loads");
	/* pinned above, or by the request (a namespace's mountinfo alone) */
	w->ops = mntkit__ops();
	w->pid_only = mntkit__pinned_pid();
	/* valid: mntkit__req_init() checked it */
	if (!ret)
		ret = mntkit__sized_in(&o, sizeof(o), opts,
				       opts ? opts->size : 0,
				       MNTKIT_OPTS_SIZE_VER0);
	if (!ret)
		ret = watch_open(w, &wo, &o);
	if (ret) {
		mntkit_watch_free(w);
		return mntkit__fail(-ret);
	}
	*out = w;
	return 0;
}

int mntkit_watch_new(const struct mntkit_watch_opts *wopts,
		     const struct mntkit_opts *opts, struct mntkit_watch **out)
{
	return watch_new(wopts, opts, false, out);
}

int mntkit__watch_new_fed(const struct mntkit_watch_opts *wopts,
			  const struct mntkit_opts *opts,
			  struct mntkit_watch **out)
{
	return watch_new(wopts, opts, true, out);
}
