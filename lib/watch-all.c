// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch-all.c - the all-namespace watch (MNTKIT_WATCH_F_ALL_NS): a watch of
 * one namespace per namespace a process is in, behind one epoll fd; the
 * FIFO its events are handed out from, in order, with sequence numbers of
 * its own. doc/watches-internals.md tells how it works.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "watch.h"


/* ---- the FIFO: NS_ADD, the drain of a namespace's watch, NS_GONE ---- */

int mntkit__all_push(struct mntkit__watch_all *a, enum mntkit__item_kind kind,
		     struct mntkit__ns *ns)
{
	if (a->fifo.head && a->fifo.head == a->fifo.n)
		a->fifo.head = a->fifo.n = 0;
	if (mntkit__vec_room(&a->fifo, 1, 64))
		return -ENOMEM;
	a->fifo.v[a->fifo.n++] = (struct mntkit__item){ kind, ns };
	if (kind == MNTKIT__ITEM_DRAIN)
		ns->queued = true;
	return 0;
}

int mntkit__all_push_drain(struct mntkit__watch_all *a, struct mntkit__ns *ns)
{
	return ns->queued ? 0 : mntkit__all_push(a, MNTKIT__ITEM_DRAIN, ns);
}

/* ---- what the epoll set says ---- */

/* namespaces to drain, the group's events, scans and rescans due */
static int poll_all(struct mntkit__watch_all *a)
{
	struct epoll_event evs[MNTKIT__EPOLL_BATCH];
	bool timer = false, exited = false, fan = false;
	int n, ret = 0;

	n = epoll_wait(a->epfd, evs, MNTKIT__EPOLL_BATCH, 0);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n && !ret; i++) {
		uint64_t tag = evs[i].data.u64;
		uintptr_t ns = (uintptr_t)(tag & ~MNTKIT__TAG_EXIT);

		if (!tag) {
			timer = true;
		} else if (tag == MNTKIT__TAG_FAN) {
			fan = true;
		} else if (tag & MNTKIT__TAG_EXIT) {
			mntkit__all_pidfd_drop(a, (struct mntkit__ns *)ns);
			exited = true;
		} else {
			ret = mntkit__all_push_drain(a, evs[i].data.ptr);
		}
	}
	if (!ret)
		ret = mntkit__all_sweep(a);
	/* the group before a scan: a watch let go of is routed nothing */
	if (!ret && fan)
		ret = mntkit__all_group_read(a);
	if (ret)
		return ret;
	return mntkit__all_timers(a, timer, exited);
}

/* ---- reading ---- */

/* hand @src (of @ns) to the caller, numbered in our sequence */
static void emit(struct mntkit__watch_all *a, struct mntkit_event *ev,
		 const struct mntkit_event *src, const struct mntkit__ns *ns)
{
	struct mntkit_event e = *src;

	e.seq = ++a->seq;
	if (e.kind == MNTKIT_EVENT_RESYNC)
		e.resync_end = e.seq + (src->resync_end - src->seq);
	e.mnt_ns_id = ns->id;
	e.ns_pid = ns->pid;
	mntkit__watch_event_out(ev, &e);
}

/* NS_ADD: when the namespace was found (before its first snapshot) */
static void emit_ns(struct mntkit__watch_all *a, struct mntkit_event *ev,
		    enum mntkit_event_kind kind, const struct mntkit__ns *ns)
{
	bool add = kind == MNTKIT_EVENT_NS_ADD;
	MNTKIT_EVENT(e);

	e.kind = kind;
	e.realtime_ns = (uint64_t)(add ? ns->found_rt :
					 mntkit__clock_ns(CLOCK_REALTIME));
	e.monotonic_ns = (uint64_t)(add ? ns->found_mono :
					  mntkit__clock_ns(CLOCK_MONOTONIC));
	emit(a, ev, &e, ns);
}

/*
 * The drain of a namespace's watch: its next event into @ev (1), or the
 * item done (0), or an error of the all-namespace watch (-errno).
 */
static int drain(struct mntkit__watch_all *a, struct mntkit__ns *ns,
		 struct mntkit_event *ev)
{
	MNTKIT_EVENT(e);
	int ret = mntkit_watch_read(ns->w, &e);

	if (ret == 1) {
		emit(a, ev, &e, ns);
		return 1;
	}
	a->fifo.head++;
	ns->queued = false;
	if (ret < 0 && ns->dying) {
		/* the table cannot be read without a process (the
		 * emulation): what was not yet diffed is lost, a RESYNC
		 * before its NS_GONE says so */
		ns->lost = 1;
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: mount namespace %llu: "
			      "its last changes are lost: %s",
			      (unsigned long long)ns->id, strerror(-ret));
		ret = 0;
	}
	if (ret < 0 && (mntkit__all_ns_broken(a, ns, ret) ||
			mntkit__all_ns_retry(a, ns, ret)))
		ret = 0;
	if (ret < 0)
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: mount namespace %llu: %s",
			      (unsigned long long)ns->id, strerror(-ret));
	return ret;
}

int mntkit__watch_all_read(struct mntkit__watch_all *a,
			   struct mntkit_event *ev)
{
	bool polled = false;
	int ret;

	for (;;) {
		struct mntkit__item *it;

		if (a->fifo.head == a->fifo.n) {
			if (polled)
				return 0;
			ret = poll_all(a);
			if (ret)
				return ret;
			polled = true;
			continue;
		}
		it = &a->fifo.v[a->fifo.head];
		switch (it->kind) {
		case MNTKIT__ITEM_ADD:
			a->fifo.head++;
			emit_ns(a, ev, MNTKIT_EVENT_NS_ADD, it->ns);
			return 1;
		case MNTKIT__ITEM_GONE:
			if (it->ns->lost == 1) { /* say so, then NS_GONE */
				it->ns->lost = 2;
				emit_ns(a, ev, MNTKIT_EVENT_RESYNC, it->ns);
				return 1;
			}
			a->fifo.head++;
			emit_ns(a, ev, MNTKIT_EVENT_NS_GONE, it->ns);
			mntkit_watch_free(it->ns->w);
			free(it->ns);
			return 1;
		case MNTKIT__ITEM_DRAIN:
			ret = drain(a, it->ns, ev);
			if (ret)
				return ret;
			break;
		}
	}
}

int mntkit__watch_all_rescan(struct mntkit__watch_all *a)
{
	int ret = mntkit__all_scan(a);

	mntkit__all_schedule_scan(a, mntkit__watch_now());
	for (size_t i = 0; !ret && i < a->ns.n; i++) {
		struct mntkit__ns *ns = a->ns.v[i];

		if (!ns->w)
			continue;
		ret = mntkit_watch_rescan(ns->w);
		if (ret && (mntkit__all_ns_broken(a, ns, ret) ||
			    mntkit__all_ns_retry(a, ns, ret))) {
			ret = 0;
			continue;
		}
		if (!ret)
			ret = mntkit__all_push_drain(a, ns);
	}
	mntkit__all_arm(a);
	return ret;
}

/* ---- opening and closing ---- */

void mntkit__watch_all_free(struct mntkit__watch_all *a)
{
	if (!a)
		return;
	/* the namespaces let go of: only their NS_GONE items hold them */
	for (size_t i = a->fifo.head; i < a->fifo.n; i++)
		if (a->fifo.v[i].kind == MNTKIT__ITEM_GONE) {
			mntkit__all_pidfd_drop(a, a->fifo.v[i].ns);
			mntkit_watch_free(a->fifo.v[i].ns->w);
			free(a->fifo.v[i].ns);
		}
	for (size_t i = 0; i < a->ns.n; i++) {
		struct mntkit__ns *ns = a->ns.v[i];

		mntkit__all_pidfd_drop(a, ns);
		if (ns->ns_fd >= 0) /* its mark goes with the group */
			close(ns->ns_fd);
		mntkit_watch_free(ns->w);
		free(ns);
	}
	free(a->ns.v);
	free(a->fifo.v);
	free(a->group.buf);
	mntkit__map_free(&a->group.gone);
	if (a->group.fd >= 0)
		close(a->group.fd);
	if (a->epfd >= 0)
		close(a->epfd);
	if (a->sig_ep >= 0)
		close(a->sig_ep);
	if (a->tm.timer_fd >= 0)
		close(a->tm.timer_fd);
	free(a);
}

int mntkit__watch_all_new(const struct mntkit_watch_opts *wopts,
			  struct mntkit__watch_all **out)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct mntkit__watch_all *a = calloc(1, sizeof(*a));
	int ret;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	a->wo = *wopts;
	a->wo.size = sizeof(a->wo);
	a->wo.flags &= ~(MNTKIT_WATCH_F_ALL_NS | MNTKIT_WATCH_F_INITIAL);
	a->wo.rescan_ms = MNTKIT_WATCH_NO_RESCAN; /* rescans: ours, in turn */
	a->rescan_ms = wopts->rescan_ms;
	a->initial = !!(wopts->flags & MNTKIT_WATCH_F_INITIAL);
	a->tm.armed = -1;
	a->group.fd = -1;
	a->group.gone = (struct mntkit__map)MNTKIT__SET_INIT;
	a->epfd = epoll_create1(EPOLL_CLOEXEC);
	a->sig_ep = epoll_create1(EPOLL_CLOEXEC);
	a->tm.timer_fd = timerfd_create(CLOCK_MONOTONIC,
					TFD_NONBLOCK | TFD_CLOEXEC);
	if (a->epfd < 0 || a->sig_ep < 0 || a->tm.timer_fd < 0 ||
	    epoll_ctl(a->epfd, EPOLL_CTL_ADD, a->tm.timer_fd, &ev)) {
		ret = -errno;
		goto fail;
	}
	a->use_pidfd = mntkit__all_proc_is_ours();
	ret = mntkit__all_group_open(a, wopts);
	if (!ret)
		ret = mntkit__all_scan(a);
	if (ret)
		goto fail;
	mntkit__all_timing_init(a);
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
