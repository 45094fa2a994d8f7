// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch-all-fanotify.c - the one fanotify group of an all-namespace
 * watch: a mark per namespace, and each event routed to the namespace
 * whose it is (an event names a mount, not its namespace): the rules are
 * in doc/watches-internals.md.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watch.h"

/* ---- the fed namespaces, last routed to first ---- */

static void mru_del(struct mntkit__watch_all *a, struct mntkit__ns *ns)
{
	struct mntkit__all_group *g = &a->group;

	if (ns->prev)
		ns->prev->next = ns->next;
	else if (g->mru == ns)
		g->mru = ns->next;
	if (ns->next)
		ns->next->prev = ns->prev;
	ns->prev = ns->next = NULL;
}

void mntkit__all_mru_front(struct mntkit__watch_all *a, struct mntkit__ns *ns)
{
	struct mntkit__all_group *g = &a->group;

	if (g->mru == ns)
		return;
	mru_del(a, ns);
	ns->next = g->mru;
	if (g->mru)
		g->mru->prev = ns;
	g->mru = ns;
}

/* ---- the group: one mark per namespace ---- */

/*
 * The one group of every namespace (fanotify mount events, 6.15+, on the
 * native backend), unless the poll source was asked for. Where it cannot
 * be had, every namespace is polled (or skipped, if fanotify was asked
 * for), as a namespace is whose mark cannot be had: no namespace ever
 * opens a group of its own.
 */
int mntkit__all_group_open(struct mntkit__watch_all *a,
			   const struct mntkit_watch_opts *wo)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = MNTKIT__TAG_FAN };
	struct mntkit__all_group *g = &a->group;

	if (wo->source == MNTKIT_WATCH_POLL)
		return 0;
	g->fd = mntkit__fan_group(-1, wo->source);
	if (g->fd < 0) {
		g->err = -g->fd;
		g->fd = -1;
		return 0;
	}
	g->buf = malloc(MNTKIT__FAN_BUFSIZE);
	if (!g->buf)
		return -ENOMEM;
	if (epoll_ctl(a->epfd, EPOLL_CTL_ADD, g->fd, &ev))
		return -errno;
	mntkit__debug(MNTKIT_PRINT_INFO,
		      "watch: fanotify source, one group for all namespaces");
	return 0;
}

/*
 * Mark the namespace of @fd in the group, for a fed watch of it (the
 * mark before the watch's first snapshot: nothing falls between). Where
 * it cannot be had, the namespace is polled (*@source, if the caller left
 * the choice to the library), else skipped (-errno). The fd is kept with
 * the mark (ns->ns_fd): removing the mark needs it, once no process is in
 * the namespace any more.
 */
int mntkit__all_mark(struct mntkit__watch_all *a, struct mntkit__ns *ns,
		     int *fd, enum mntkit_watch_source *source)
{
	int err = a->group.err;

	if (*source == MNTKIT_WATCH_POLL)
		return 0;
	if (a->group.fd >= 0) {
		err = -mntkit__fan_mark(a->group.fd, *fd, true);
		if (!err) {
			ns->ns_fd = *fd;
			*fd = -1;
			return 0;
		}
		/* EPERM: no CAP_SYS_ADMIN over it; ENOSPC: max_user_marks */
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
void mntkit__all_unmark(struct mntkit__watch_all *a, struct mntkit__ns *ns)
{
	int ret;

	if (ns->ns_fd < 0)
		return;
	mru_del(a, ns);
	ret = mntkit__fan_mark(a->group.fd, ns->ns_fd, false);
	/* ENOENT: the mark went with the namespace */
	if (ret && ret != -ENOENT)
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: mount namespace %llu: its fanotify mark "
			      "stays: %s", (unsigned long long)ns->id,
			      strerror(-ret));
	close(ns->ns_fd);
	ns->ns_fd = -1;
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
	for (struct mntkit__ns *ns = a->group.mru; ns; ns = ns->next) {
		mntkit__watch_feed(ns->w, 0, MNTKIT_FAN_Q_OVERFLOW);
		if (mntkit__all_push_drain(a, ns))
			return -ENOMEM;
	}
	return 0;
}

/* hand the event to @ns's watch: 1 taken, 0 not (see route()) */
static int feed(struct mntkit__watch_all *a, struct mntkit__ns *ns,
		uint64_t id, uint64_t mask, int *err)
{
	int ret = mntkit__watch_feed(ns->w, id, mask);

	if (ret && mntkit__all_push_drain(a, ns)) /* -1: a resync to read */
		*err = -ENOMEM;
	a->group.unsure |= ret < 0;
	if (ret > 0)
		mntkit__all_mru_front(a, ns);
	return ret > 0;
}

/*
 * The fed namespace the process @pid that caused an event is in, if any:
 * the one its last event was routed to (@fresh: only if it is gone), else
 * the one /proc says (where the library's /proc is of our PID namespace,
 * as fanotify's @pid). A hint: a process may change namespaces, a PID be
 * reused, and a mount propagate to other namespaces.
 */
static struct mntkit__ns *pid_hint(struct mntkit__watch_all *a, int32_t pid,
				   bool fresh)
{
	uint32_t slot = (uint32_t)pid & (MNTKIT__PID_HINTS - 1);
	struct mntkit__all_group *g = &a->group;
	struct mntkit__ns *ns;
	struct stat st;

	if (pid <= 0)
		return NULL;
	if (a->use_pidfd && (fresh || g->hints[slot].pid != pid) &&
	    !mntkit__all_ns_stat(pid, &st)) {
		ns = mntkit__all_ns_find(a, st.st_dev, st.st_ino);
		return ns && ns->ns_fd >= 0 ? ns : NULL;
	}
	if (g->hints[slot].pid != pid)
		return NULL;
	for (ns = g->mru; ns; ns = ns->next)
		if (ns->id == g->hints[slot].ns_id)
			return ns;
	return NULL;
}

/* 1 if @ns's view holds the mount, or @ns takes the event (feed()) */
static int try_ns(struct mntkit__watch_all *a, struct mntkit__ns *ns,
		  uint64_t id, uint64_t mask, bool gone, int *err)
{
	if (!ns || (gone && !mntkit__view_holds(ns->w, id)))
		return 0;
	return feed(a, ns, id, mask, err);
}

/*
 * The namespace of an event (doc/watches-internals.md, "Routing"). @gone:
 * its DETACH is in the same read (the mount is in no namespace now: only
 * a view can hold it).
 */
static int route(struct mntkit__watch_all *a, uint64_t id, uint64_t mask,
		 int32_t pid, bool gone)
{
	struct mntkit__ns *hint = pid_hint(a, pid, false), *to = NULL;
	struct mntkit__ns *first = a->group.mru, *fresh;
	int err = 0;

	a->group.unsure = false;
	if (first == hint)
		first = NULL;
	if (try_ns(a, hint, id, mask, gone, &err))
		to = hint;
	else if (!err && try_ns(a, first, id, mask, gone, &err))
		to = first;
	for (struct mntkit__ns *ns = a->group.mru; !to && !err && ns;
	     ns = ns->next)
		if (ns != hint && ns != first &&
		    mntkit__view_holds(ns->w, id) &&
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
	fresh = a->group.unsure ? NULL : pid_hint(a, pid, true);
	if (fresh && fresh == hint && !mntkit__view_shares(fresh->w) &&
	    feed(a, fresh, id, mask | MNTKIT__FEED_GONE, &err)) {
		to = fresh;
		goto out;
	}
	for (struct mntkit__ns *ns = a->group.mru; !gone && !to && !err && ns;
	     ns = ns->next)
		if (ns != hint && ns != first && feed(a, ns, id, mask, &err))
			to = ns;
	if (to || err)
		goto out;
	/* gone, and its process's namespace was not asked yet */
	if (fresh && !a->group.unsure && fresh != hint &&
	    !mntkit__view_shares(fresh->w) &&
	    feed(a, fresh, id, mask | MNTKIT__FEED_GONE, &err)) {
		to = fresh;
		goto out;
	}
	a->group.unrouted++;
	mntkit__debug(MNTKIT_PRINT_DEBUG,
		      "watch: mount %#llx, gone, of no namespace known: not "
		      "reported (%llu so far)",
		      (unsigned long long)id,
		      (unsigned long long)a->group.unrouted);
out:
	if (to && pid > 0) {
		uint32_t slot = (uint32_t)pid & (MNTKIT__PID_HINTS - 1);

		a->group.hints[slot].pid = pid;
		a->group.hints[slot].ns_id = to->id;
	}
	return err;
}

/*
 * The mounts of a read's DETACH events (not moves): an ATTACH before
 * one of them is of a mount gone since, which statmount finds in no
 * namespace (no need to ask every one). Without memory, none is known.
 */
static void gone_index(struct mntkit__watch_all *a, size_t len)
{
	struct mntkit__all_group *g = &a->group;
	struct mntkit__fan_event ev;
	size_t off = 0, n = 0;

	mntkit__map_clear(&g->gone);
	while (mntkit__fan_next(g->buf, len, &off, &ev) > 0)
		n++;
	if (mntkit__map_reserve(&g->gone, n))
		return;
	for (off = 0; mntkit__fan_next(g->buf, len, &off, &ev) > 0;)
		if (ev.mnt_id &&
		    (ev.mask & MNTKIT__FAN_EVENTS) == MNTKIT_FAN_MNT_DETACH)
			mntkit__map_put(&g->gone, ev.mnt_id, NULL);
}

/* one read of the group, its events routed */
static int group_take(void *ctx, ssize_t len)
{
	struct mntkit__watch_all *a = ctx;
	struct mntkit__fan_event ev;
	size_t off = 0;
	int ret;

	if (len < 0)
		return fan_lost(a, strerror((int)-len));
	gone_index(a, (size_t)len);
	while ((ret = mntkit__fan_next(a->group.buf, (size_t)len, &off,
				       &ev)) > 0) {
		if (ev.mask & MNTKIT_FAN_Q_OVERFLOW)
			ret = fan_lost(a, "queue overflow");
		else if (ev.mnt_id && (ev.mask & MNTKIT__FAN_EVENTS))
			ret = route(a, ev.mnt_id, ev.mask, ev.pid,
				    (ev.mask & MNTKIT__FAN_EVENTS) ==
						    MNTKIT_FAN_MNT_ATTACH &&
					    mntkit__map_has(&a->group.gone,
							    ev.mnt_id));
		if (ret < 0)
			return ret;
	}
	return ret < 0 ? fan_lost(a, "malformed event") : 0;
}

/* read what the group has (a bounded amount), routing its events */
int mntkit__all_group_read(struct mntkit__watch_all *a)
{
	return mntkit__fan_drain(a->group.fd, a->group.buf, group_take, a);
}
