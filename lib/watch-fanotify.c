// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch-fanotify.c - the fanotify source (mount events, 6.15+): a group
 * and its marks, its reads and the parser of a read buffer (also the
 * all-namespace watch's), and what one namespace's watch does with an
 * event: the mount it names, stat'ed and brought up to date in the view.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "watch.h"

#define FAN_READS_PER_CALL 64 /* bounded work per read of a watch */

/* ---- the events of a read buffer ---- */

/*
 * An event is a struct fanotify_event_metadata (fd -1: a mount event has
 * no object to open) followed by info records; a mount event's record is
 * FAN_EVENT_INFO_TYPE_MNT (type 7, 16 bytes: a header, then the unique
 * mount ID as a u64 at offset 8). It names the mount only, not its
 * namespace.
 */

/* the unique mount ID of one event's info records, 0 if none */
static uint64_t mnt_id_of(const char *ev, size_t len, size_t meta_len)
{
	for (size_t off = meta_len; off + 4 <= len;) {
		const unsigned char *rec = (const unsigned char *)ev + off;
		uint16_t rlen;
		uint64_t id;

		memcpy(&rlen, rec + 2, sizeof(rlen));
		if (rlen < 4 || off + rlen > len)
			return 0;
		if (rec[0] == MNTKIT_FAN_EVENT_INFO_TYPE_MNT && rlen >= 16) {
			memcpy(&id, rec + 8, sizeof(id));
			return id;
		}
		off += rlen;
	}
	return 0;
}

int mntkit__fan_next(const char *buf, size_t len, size_t *off,
		     struct mntkit__fan_event *ev)
{
	struct fanotify_event_metadata m;

	if (*off + sizeof(m) > len)
		return 0;
	memcpy(&m, buf + *off, sizeof(m));
	if (m.event_len < sizeof(m) || m.event_len > len - *off ||
	    m.metadata_len < sizeof(m) || m.metadata_len > m.event_len ||
	    m.vers != FANOTIFY_METADATA_VERSION)
		return -EBADMSG;
	if (m.fd >= 0) /* not of a mount event; never leak it */
		close(m.fd);
	ev->mask = m.mask;
	ev->pid = m.pid;
	ev->mnt_id = mnt_id_of(buf + *off, m.event_len, m.metadata_len);
	*off += m.event_len;
	return 1;
}

/* ---- a group: opened, marked, read ---- */

/* fanotify mount events can be had: 6.15+, on the native backend */
static bool fan_possible(void)
{
	return mntkit__kernel_fanotify() &&
	       mntkit_get_backend() == MNTKIT_BACKEND_NATIVE;
}

/* mark (@add) or unmark the namespace of @ns_fd in group @fd: 0, -errno */
int mntkit__fan_mark(int fd, int ns_fd, bool add)
{
	unsigned int how = add ? FAN_MARK_ADD : FAN_MARK_REMOVE;

	if (fanotify_mark(fd, how | MNTKIT_FAN_MARK_MNTNS, MNTKIT__FAN_EVENTS,
			  ns_fd, NULL))
		return -errno;
	return 0;
}

/*
 * mntkit__fan_group - a group of mount events (its fd), with the namespace
 * of @ns_fd marked in it (-1: none), for a watch that asked for source
 * @want; where it cannot be had, -errno, and the debug trace says why
 * (and that the poll source follows, unless @want is fanotify).
 */
int mntkit__fan_group(int ns_fd, enum mntkit_watch_source want)
{
	int fd, err = 0;

	if (!fan_possible()) {
		mntkit__debug(MNTKIT_PRINT_INFO, "watch: poll source (%s)",
			      mntkit_get_backend() != MNTKIT_BACKEND_NATIVE ?
				      "the mountinfo backend" :
				      "no fanotify mount events, 6.15+");
		return -EOPNOTSUPP;
	}
	fd = fanotify_init(FAN_CLASS_NOTIF | MNTKIT_FAN_REPORT_MNT |
				   FAN_NONBLOCK | FAN_CLOEXEC,
			   O_RDONLY);
	if (fd < 0) /* EMFILE: fs.fanotify.max_user_groups; EPERM */
		err = errno;
	else if (ns_fd >= 0)
		err = -mntkit__fan_mark(fd, ns_fd, true);
	if (!err)
		return fd;
	if (fd >= 0)
		close(fd);
	mntkit__debug(MNTKIT_PRINT_INFO, "watch: fanotify failed (%s)%s",
		      strerror(err),
		      want == MNTKIT_WATCH_FANOTIFY ? "" :
						      ": poll source instead");
	return -err;
}

/*
 * mntkit__fan_drain - read what group @fd has (a bounded amount) into @buf
 * (MNTKIT__FAN_BUFSIZE), each read handed to @take with its length, or
 * with -errno for a failed one (the last): the first error @take returns,
 * or 0.
 */
int mntkit__fan_drain(int fd, char *buf, int (*take)(void *ctx, ssize_t len),
		      void *ctx)
{
	for (int i = 0; i < FAN_READS_PER_CALL; i++) {
		ssize_t len = read(fd, buf, MNTKIT__FAN_BUFSIZE);
		int ret;

		if (len < 0 && errno == EINTR)
			continue;
		if ((len < 0 && errno == EAGAIN) || len == 0)
			return 0;
		ret = take(ctx, len < 0 ? -errno : len);
		/* a read far from full had all there was (epoll tells more) */
		if (ret || len < 0 || (size_t)len <= MNTKIT__FAN_BUFSIZE / 2)
			return ret;
	}
	return 0;
}

/* ---- the source of one namespace's watch ---- */

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
					MNTKIT_STATMOUNT_MNT_POINT,
					&w->fan.pbuf, &w->fan.pbufsize);
		pt = w->fan.pbuf;
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
		ret = mntkit__view_detach(w, id);
		return ret > 0 ? MNTKIT_EVENT_DETACH : ret;
	}
	return ret ? ret : mntkit__view_refresh(w, w->buf);
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
		w->need_resync = true;
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
 * A fed watch is asked about events of every namespace (see
 * mntkit__watch_feed()): an event is its namespace's when its view holds
 * the mount or when its namespace has it (statmount looks a mount up
 * within the namespace asked, ENOENT elsewhere). Returns 1 if the event
 * was this namespace's (handled), 0 if not (nothing done: only a fed
 * watch says so), -1 if a fed watch cannot tell (statmount failed
 * otherwise: it resynchronizes at its next read, which covers the mount
 * if it was its namespace's).
 */
static int fan_event(struct mntkit_watch *w, uint64_t id, uint64_t mask)
{
	bool known = mntkit__view_holds(w, id);
	uint32_t kids = mntkit__view_kids(w, id);
	bool moved = (mask & MNTKIT_FAN_MNT_ATTACH) &&
		     (mask & MNTKIT_FAN_MNT_DETACH);
	int ret;

	/* not in the view, not attached: no namespace's to look up */
	if (w->fan.fed && !known && !(mask & MNTKIT_FAN_MNT_ATTACH))
		return 0;
	ret = fan_update(w, id);
	if (ret == -ENOENT && w->fan.fed && !known)
		return 0; /* not of this namespace, or gone: watch-all */
	if (ret < 0 && w->fan.fed && !known) {
		/* whose it is cannot be told: if ours, the resync has it */
		w->need_resync = true;
		return -1;
	}
	if (ret == -ENOENT) {
		mntkit__view_gone(w, id, mask);
		return 1;
	}
	if (ret < 0) {
		w->need_resync = true;
		return 1;
	}
	if (ret == MNTKIT_EVENT_DETACH ? kids > 0 :
					 moved && (kids > 0 || !known))
		refresh_below(w, id);
	return 1;
}

struct fan_read {
	struct mntkit_watch *w;
	bool got; /* any event */
};

/* one read of the watch's group */
static int fan_take(void *ctx, ssize_t len)
{
	struct fan_read *r = ctx;
	struct mntkit_watch *w = r->w;
	struct mntkit__fan_event ev;
	size_t off = 0;
	int ret;

	if (len < 0) {
		w->need_resync = true;
		return 0;
	}
	r->got = true;
	while ((ret = mntkit__fan_next(w->fan.buf, (size_t)len, &off, &ev)) >
	       0) {
		if (ev.mask & MNTKIT_FAN_Q_OVERFLOW)
			w->need_resync = true;
		if (!w->need_resync && ev.mnt_id &&
		    (ev.mask & MNTKIT__FAN_EVENTS)) {
			w->fan.events++;
			fan_event(w, ev.mnt_id, ev.mask);
		}
	}
	if (ret < 0)
		w->need_resync = true;
	return 0;
}

/* read what the watch's group has (a bounded amount): 1 if any event */
bool mntkit__watch_fan_read(struct mntkit_watch *w)
{
	struct fan_read r = { .w = w };

	mntkit__fan_drain(w->fan.fd, w->fan.buf, fan_take, &r);
	return r.got;
}

/*
 * The watch's source: fanotify where it can (or must) be had, else poll.
 * A fed watch's namespace is marked in its caller's group already.
 */
int mntkit__watch_fan_open(struct mntkit_watch *w,
			   enum mntkit_watch_source want, int ns_fd)
{
	w->source = MNTKIT_WATCH_POLL;
	if (want == MNTKIT_WATCH_POLL)
		return 0;
	if (ns_fd < 0) /* the namespace file refused: nothing to mark */
		return want == MNTKIT_WATCH_FANOTIFY ? -EPERM : 0;
	if (w->fan.fed) {
		w->source = MNTKIT_WATCH_FANOTIFY;
		return fan_possible() ? 0 : -EOPNOTSUPP;
	}
	w->fan.fd = mntkit__fan_group(ns_fd, want);
	if (w->fan.fd < 0) {
		int err = w->fan.fd;

		w->fan.fd = -1;
		return want == MNTKIT_WATCH_FANOTIFY ? err : 0;
	}
	mntkit__debug(MNTKIT_PRINT_INFO, "watch: fanotify source");
	w->source = MNTKIT_WATCH_FANOTIFY;
	w->fan.buf = malloc(MNTKIT__FAN_BUFSIZE);
	return w->fan.buf ? 0 : -ENOMEM;
}

/*
 * An event of the all-namespace watch's group: FAN_Q_OVERFLOW (a resync
 * at the next read), or an ATTACH/DETACH of mount @id that is this
 * namespace's if its view holds it or its namespace has it (fan_event()).
 * 1: it was (the events are queued: the caller reads them), 0: not, -1:
 * cannot tell (a resync is owed: the caller reads it, and asks on).
 */
int mntkit__watch_feed(struct mntkit_watch *w, uint64_t id, uint64_t mask)
{
	MNTKIT__PIN_OPS_PID(w->ops, w->pid_only);
	int ret;

	if (mask & MNTKIT_FAN_Q_OVERFLOW) {
		w->need_resync = true;
		return 1;
	}
	if (mask & MNTKIT__FEED_GONE) { /* ours, gone: ATTACH F_GONE */
		mntkit__view_gone(w, id, MNTKIT_FAN_MNT_ATTACH);
		w->fan.events++;
		w->fan.fed_new++;
		return 1;
	}
	if (!id || !(mask & MNTKIT__FAN_EVENTS))
		return 0;
	ret = fan_event(w, id, mask);
	if (ret > 0) {
		w->fan.events++;
		w->fan.fed_new++;
	}
	return ret;
}
