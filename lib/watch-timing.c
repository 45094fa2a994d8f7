// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch-timing.c - when watches diff, rescan and scan: the timing
 * constants and their policy, for the watch of one namespace (its timer,
 * the diffs a change signal owes, the rescans) and the all-namespace
 * watch (the scans of /proc, the rescans in turn, the retries).
 * doc/watches-internals.md gives the reasons for each constant.
 */
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "watch.h"

#define MS_NS 1000000LL
#define RESCAN_DEFAULT_MS 1000 /* a rescan (and scan of /proc) this often */
#define RESCAN_COST_FACTOR 100 /* a rescan costs at most 1% of the time */
#define RETRY_NS (100 * MS_NS) /* after a failed diff, or a failed read */
/* the check of a change signal of the fanotify source (verify_when()) */
#define VERIFY_PURE_NS (5 * MS_NS)   /* after a signal no event followed */
#define VERIFY_QUIET_NS (50 * MS_NS) /* once the namespace is this quiet */
#define VERIFY_MAX_NS (1000 * MS_NS) /* at the latest after the first... */
#define VERIFY_COST_FACTOR 50	     /* ... or this many diffs' time */
/* the next diff for a signal waits this many times the last one's cost */
#define SYNC_GAP_FACTOR 10
#define SYNC_GAP_MAX_NS (1000 * MS_NS) /* ... at most this long */
#define POLL_QUIET_NS (5 * MS_NS) /* poll source: quiet this long, a diff */
#define SCAN_COST_FACTOR 100 /* a scan of /proc: at most 1% of a CPU */
#define EXIT_GAP_FACTOR 10   /* a scan for an exit: 10x its cost apart */

/* ---- the watch of one namespace ---- */

/*
 * While a diff is owed (verify_due), further change signals add nothing:
 * the diff will see them. The wakeup file leaves the epoll set then, so
 * the caller is woken by the timer, not once per mount of a burst; the
 * watch still reads the private file's signal at every wakeup (quiet
 * detection). Putting the file back polls it, and mountinfo's poll takes
 * a signal that came meanwhile: the epoll set then reports nothing for it
 * (its level-triggered check polls the file again). The private file
 * still has that signal: when it does, the watch notes it and wakes at
 * once (@wake_now), where it would have waited for a signal to come.
 * Returns whether it must.
 */
static bool follow_signals(struct mntkit_watch *w)
{
	bool on = !w->tm.verify_due;

	if (w->mi.wake_fd < 0 || on == w->mi.wake_on)
		return false;
	if (!on) {
		if (!epoll_ctl(w->epfd, EPOLL_CTL_DEL, w->mi.wake_fd, NULL))
			w->mi.wake_on = false;
		return false;
	}
	if (!mntkit__epoll_add(w->epfd, w->mi.wake_fd, EPOLLPRI)) {
		w->mi.wake_on = true;
		if (!mntkit__watch_mi_signalled(w))
			return false;
		w->mi.noted = true;
		return true;
	}
	/* not woken by signals: check for them by the timer */
	mntkit__debug(MNTKIT_PRINT_WARN,
		      "watch: cannot follow change signals (%s): polling",
		      strerror(errno));
	w->tm.verify_first = mntkit__watch_now();
	w->tm.verify_due = w->tm.verify_first + RETRY_NS;
	return false;
}

/* set the timer to the diff or the rescan due first */
void mntkit__watch_arm(struct mntkit_watch *w)
{
	struct mntkit__watch_timing *tm = &w->tm;
	struct itimerspec its = { 0 };
	int64_t due;

	if (follow_signals(w)) {
		due = mntkit__watch_now(); /* a signal noted: wake now */
	} else {
		due = tm->verify_due;
		if (tm->rescan_due && (!due || tm->rescan_due < due))
			due = tm->rescan_due;
	}
	if (due == tm->armed) /* a system call less per wakeup */
		return;
	if (due) {
		its.it_value.tv_sec = due / 1000000000LL;
		its.it_value.tv_nsec = due % 1000000000LL;
	}
	tm->armed = timerfd_settime(tm->timer_fd, TFD_TIMER_ABSTIME, &its,
				    NULL) ? -1 : due;
}

/* the next rescan: in rescan_ms, or RESCAN_COST_FACTOR x its cost if more */
void mntkit__watch_schedule_rescan(struct mntkit_watch *w, int64_t now)
{
	struct mntkit__watch_timing *tm = &w->tm;
	int64_t every;

	tm->rescan_due = 0;
	if (tm->rescan_ms == MNTKIT_WATCH_NO_RESCAN)
		return;
	every = (int64_t)(tm->rescan_ms ? tm->rescan_ms : RESCAN_DEFAULT_MS) *
		MS_NS;
	if (every < RESCAN_COST_FACTOR * tm->rescan_cost)
		every = RESCAN_COST_FACTOR * tm->rescan_cost;
	tm->rescan_due = now + every;
}

/*
 * A diff (@what) that began at CPU time @t0 is over (@ret: it failed):
 * the next one for a signal waits SYNC_GAP_FACTOR times its cost; a
 * failed one is finished RETRY_NS later, by a resync.
 */
void mntkit__watch_synced(struct mntkit_watch *w, int ret, int64_t t0,
			  const char *what)
{
	struct mntkit__watch_timing *tm = &w->tm;
	int64_t now, gap;

	tm->diff_cost = mntkit__watch_cpu() - t0;
	mntkit__debug(MNTKIT_PRINT_DEBUG, "watch: %s diff, %lld us CPU%s",
		      what, (long long)(tm->diff_cost / 1000),
		      ret ? ", failed" : "");
	now = mntkit__watch_now();
	gap = SYNC_GAP_FACTOR * tm->diff_cost;
	tm->sync_after = now + (gap < SYNC_GAP_MAX_NS ? gap : SYNC_GAP_MAX_NS);
	tm->check_after = now + gap;
	tm->verify_first = tm->verify_due = 0;
	if (ret) { /* part of the diff may be queued: finish it soon */
		w->need_resync = true;
		tm->verify_due = now + RETRY_NS;
	} else {
		w->need_resync = false;
	}
	mntkit__watch_schedule_rescan(w, now);
	mntkit__watch_arm(w);
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
static int64_t poll_when(const struct mntkit__watch_timing *tm)
{
	int64_t gap = SYNC_GAP_FACTOR * tm->diff_cost;
	int64_t wait = (tm->last_activity - tm->verify_first) / 2;
	int64_t due = tm->last_activity +
		      (wait > POLL_QUIET_NS ? wait : POLL_QUIET_NS);
	int64_t latest = tm->verify_first +
			 (gap < SYNC_GAP_MAX_NS ? gap : SYNC_GAP_MAX_NS);

	if (latest < tm->sync_after)
		latest = tm->sync_after;
	if (due < tm->sync_after)
		due = tm->sync_after;
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
	const struct mntkit__watch_timing *tm = &w->tm;
	int64_t due, most = VERIFY_COST_FACTOR * tm->diff_cost;

	if (w->source == MNTKIT_WATCH_POLL)
		return poll_when(tm);
	if (most < VERIFY_MAX_NS)
		most = VERIFY_MAX_NS;
	if (w->fan.events == w->fan.at_first)
		due = tm->verify_first + VERIFY_PURE_NS;
	else
		due = tm->last_activity + VERIFY_QUIET_NS;
	if (due < tm->check_after)
		due = tm->check_after;
	if (due > tm->verify_first + most)
		due = tm->verify_first + most;
	return due;
}

/*
 * mntkit__watch_due - a wakeup's news (@signalled: a change signal;
 * @fanned: fanotify events, @fan_before of them handled before this
 * wakeup), and the diff now due, made: its result, or 0 (the timer set to
 * the next one).
 */
int mntkit__watch_due(struct mntkit_watch *w, bool signalled, bool fanned,
		      uint64_t fan_before)
{
	struct mntkit__watch_timing *tm = &w->tm;
	int64_t now = mntkit__watch_now();

	/*
	 * A signal postpones the rescan: a diff follows it (below), which
	 * sees what a rescan would (a lines diff sees every line that
	 * changed, propagation included), and a rescan during a burst of
	 * mounts would pay for every mount the burst added.
	 */
	if (signalled)
		mntkit__watch_schedule_rescan(w, now);
	if (signalled && !tm->verify_first) {
		tm->verify_first = now;
		w->fan.at_first = fan_before;
	}
	if (signalled || fanned)
		tm->last_activity = now;
	if (tm->verify_first)
		tm->verify_due = verify_when(w);
	if (tm->rescan_due && now >= tm->rescan_due)
		return mntkit__watch_sync_table(w, false);
	if (tm->verify_due && now >= tm->verify_due)
		return mntkit__watch_sync_signalled(w);
	mntkit__watch_arm(w);
	return 0;
}

/* ---- the all-namespace watch ---- */

/* the caller's rescan_ms: the period of the scans and of the rescans */
static int64_t every_ns(const struct mntkit__watch_all *a)
{
	uint32_t ms = a->rescan_ms;

	if (!ms || ms == MNTKIT_WATCH_NO_RESCAN)
		ms = RESCAN_DEFAULT_MS;
	return (int64_t)ms * MS_NS;
}

void mntkit__all_arm(struct mntkit__watch_all *a)
{
	struct mntkit__all_timing *tm = &a->tm;
	struct itimerspec its = { 0 };
	int64_t due = tm->scan_due;

	if (tm->rr_due && tm->rr_due < due)
		due = tm->rr_due;
	if (tm->retry_due && tm->retry_due < due)
		due = tm->retry_due;
	if (due == tm->armed)
		return;
	its.it_value.tv_sec = due / 1000000000LL;
	its.it_value.tv_nsec = due % 1000000000LL;
	tm->armed = timerfd_settime(tm->timer_fd, TFD_TIMER_ABSTIME, &its,
				    NULL) ? -1 : due;
}

/* the next scan: in rescan_ms, or SCAN_COST_FACTOR x its cost if more */
void mntkit__all_schedule_scan(struct mntkit__watch_all *a, int64_t now)
{
	int64_t every = every_ns(a);

	if (every < SCAN_COST_FACTOR * a->tm.scan_cost)
		every = SCAN_COST_FACTOR * a->tm.scan_cost;
	a->tm.scan_due = now + every;
}

/* after the first scan: the next one, and the first rescan in turn */
void mntkit__all_timing_init(struct mntkit__watch_all *a)
{
	int64_t now = mntkit__watch_now();

	mntkit__all_schedule_scan(a, now);
	if (a->rescan_ms != MNTKIT_WATCH_NO_RESCAN)
		a->tm.rr_due = now + every_ns(a) /
					     (int64_t)(a->ns.n ? a->ns.n : 1);
	mntkit__all_arm(a);
}

/*
 * A read of a namespace's watch failed for want of a resource: it is read
 * again RETRY_NS from the first such failure. Returns RETRY_NS in ms.
 */
int mntkit__all_retry_later(struct mntkit__watch_all *a)
{
	if (!a->tm.retry_due)
		a->tm.retry_due = mntkit__watch_now() + RETRY_NS;
	mntkit__all_arm(a);
	return (int)(RETRY_NS / MS_NS);
}

/* the namespaces whose read failed, read again */
static int retry_due(struct mntkit__watch_all *a)
{
	int ret = 0;

	a->tm.retry_due = 0;
	for (size_t i = 0; i < a->ns.n && !ret; i++)
		if (a->ns.v[i]->retry && a->ns.v[i]->w) {
			a->ns.v[i]->retry = false;
			ret = mntkit__all_push_drain(a, a->ns.v[i]);
		}
	return ret;
}

/*
 * The rescans in turn: one namespace every rescan_ms / N, no sooner than
 * RESCAN_COST_FACTOR times the last one's cost after it.
 */
static int rescan_next(struct mntkit__watch_all *a, int64_t now)
{
	struct mntkit__all_timing *tm = &a->tm;
	int64_t t0, cost, gap;
	struct mntkit__ns *ns;
	int ret = 0;

	tm->rr_due = 0;
	if (a->rescan_ms == MNTKIT_WATCH_NO_RESCAN)
		return 0;
	gap = every_ns(a);
	if (a->ns.n) {
		ns = a->ns.v[tm->rr_next];
		tm->rr_next = (tm->rr_next + 1) % a->ns.n;
		gap /= (int64_t)a->ns.n;
		if (ns->w) {
			t0 = mntkit__watch_cpu();
			ret = mntkit_watch_rescan(ns->w);
			if (ret && (mntkit__all_ns_broken(a, ns, ret) ||
				    mntkit__all_ns_retry(a, ns, ret)))
				ret = 0;
			cost = mntkit__watch_cpu() - t0;
			if (gap < RESCAN_COST_FACTOR * cost)
				gap = RESCAN_COST_FACTOR * cost;
			if (mntkit__all_push_drain(a, ns))
				ret = -ENOMEM;
		}
	}
	tm->rr_due = now + gap;
	return ret;
}

/*
 * mntkit__all_timers - what is due of the scan, the rescans in turn and
 * the retries, done. @fired: the timer went off (or may have); @exited: a
 * namespace's lowest process exited, which brings the scan forward (no
 * sooner than EXIT_GAP_FACTOR times a scan's cost after the last).
 */
int mntkit__all_timers(struct mntkit__watch_all *a, bool fired, bool exited)
{
	struct mntkit__all_timing *tm = &a->tm;
	uint64_t ticks;
	int64_t now;
	int ret = 0;

	if (exited) {
		int64_t at = tm->scan_end + EXIT_GAP_FACTOR * tm->scan_cost;

		if (at < tm->scan_due)
			tm->scan_due = at;
	}
	if (fired) {
		tm->armed = -1;
		if (read(tm->timer_fd, &ticks, sizeof(ticks)) < 0 &&
		    errno != EAGAIN)
			return -errno;
	}
	now = mntkit__watch_now();
	if (now >= tm->scan_due) {
		ret = mntkit__all_scan(a);
		mntkit__all_schedule_scan(a, mntkit__watch_now());
	}
	if (!ret && tm->rr_due && now >= tm->rr_due)
		ret = rescan_next(a, now);
	if (!ret && tm->retry_due && now >= tm->retry_due)
		ret = retry_due(a);
	mntkit__all_arm(a);
	return ret;
}
