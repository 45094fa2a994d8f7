// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch-poll.c - the mountinfo poll source: the change signals (POLLPRI)
 * of /proc/PID/mountinfo, and the diff that follows one. On the native
 * backend, a hash of each mountinfo line by old ID tells which mounts a
 * signal can concern: only those are stat'ed.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "mountinfo.h"
#include "watch.h"

/* ---- the change signals ---- */

/* a change was signalled since the last call (and the signal consumed) */
bool mntkit__watch_mi_signalled(struct mntkit_watch *w)
{
	struct pollfd p = { .fd = w->mi.fd, .events = POLLPRI };
	bool noted = w->mi.noted;

	w->mi.noted = false;
	return (poll(&p, 1, 0) > 0 && (p.revents & (POLLPRI | POLLERR))) ||
	       noted;
}

/* ---- mountinfo lines: which mounts a change signal can concern ---- */

/* line hashes are kept on the native backend */
static bool lines_kept(void)
{
	return mntkit_get_backend() == MNTKIT_BACKEND_NATIVE;
}

/* the hash of old ID @id's line, 0 if none (a hash is never 0) */
static uint64_t lines_hash(const struct mntkit__watch_lines *l, uint64_t id)
{
	const uint64_t *h = mntkit__map_get(&l->hash, id);

	return h ? *h : 0;
}

static uint64_t line_hash(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

/* index the text of @buf (@len bytes) into @l (empty) */
static int lines_index(struct mntkit__watch_lines *l, const char *buf,
		       size_t len)
{
	size_t nl = 0;

	for (size_t i = 0; i < len; i++)
		nl += buf[i] == '\n';
	if (mntkit__map_reserve(&l->hash, nl + 1))
		return -ENOMEM;
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		uint64_t id = 0, *h;
		bool found;

		if (!e)
			e = end;
		for (const char *q = p; q < e && *q >= '0' && *q <= '9'; q++)
			id = id * 10 + (uint64_t)(*q - '0');
		if (id) {
			h = mntkit__map_put(&l->hash, id, &found);
			/* one line per ID; a second one makes it "changed" */
			*h = found ? 1 : line_hash(p, (size_t)(e - p));
		}
		p = e + 1;
	}
	return 0;
}

void mntkit__watch_lines_free(struct mntkit__watch_lines *l)
{
	mntkit__map_free(&l->hash);
	l->valid = false;
}

/* read mountinfo now into @l; on failure @l is left invalid */
void mntkit__watch_lines_read(struct mntkit_watch *w,
			      struct mntkit__watch_lines *l)
{
	size_t len;

	*l = (struct mntkit__watch_lines){ .hash = MNTKIT__MAP_INIT(uint64_t) };
	if (!lines_kept() ||
	    mntkit__mi_read(w->mi.fd, &w->mi.buf, &w->mi.cap, &len) ||
	    lines_index(l, w->mi.buf, len))
		return;
	l->valid = true;
}

/* the lines read before a diff become the view's */
void mntkit__watch_lines_keep(struct mntkit_watch *w,
			      struct mntkit__watch_lines *l, bool ok)
{
	mntkit__watch_lines_free(&w->mi.lines);
	if (ok)
		w->mi.lines = *l;
	else
		mntkit__watch_lines_free(l);
}

/*
 * The mounts of listing @iv to statmount after a change signal: the new
 * ones and those whose mountinfo line changed since @old (into @todo).
 * Marks the listed ones of the view with view.gen.
 */
static int lines_todo(struct mntkit_watch *w, const struct mntkit_idvec *iv,
		      const struct mntkit__watch_lines *old,
		      const struct mntkit__watch_lines *now,
		      struct mntkit_idvec *todo)
{
	int ret = mntkit__idvec_reserve(todo, iv->n + 1);

	if (ret)
		return ret;
	w->view.gen++;
	for (size_t i = 0; i < iv->n; i++) {
		struct mntkit__view_rec *r =
			mntkit__map_get(&w->view.recs, iv->v[i]);
		uint64_t h;

		if (r) {
			r->gen = w->view.gen;
			h = (r->sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) ?
				    lines_hash(now, r->sm->mnt_id_old) :
				    0;
			if (h && h == lines_hash(old, r->sm->mnt_id_old))
				continue;
		}
		todo->v[todo->n++] = iv->v[i];
	}
	return 0;
}

/*
 * After a change signal, on the native backend: one read of mountinfo
 * and one listing; statmount only what is new or whose line changed.
 * Falls back to a whole diff when it cannot.
 */
static int sync_lines(struct mntkit_watch *w)
{
	struct mntkit_idvec iv = { 0 }, todo = { 0 };
	int64_t t0 = mntkit__watch_cpu();
	struct mntkit__watch_lines l;
	int ret;

	if (!w->mi.lines.valid)
		return mntkit__watch_sync_table(w, false);
	mntkit__watch_lines_read(w, &l);
	if (!l.valid)
		return mntkit__watch_sync_table(w, false);
	ret = mntkit__list_flat(&w->req, MNTKIT_LSMT_ROOT, 0, &iv);
	if (!ret)
		ret = lines_todo(w, &iv, &w->mi.lines, &l, &todo);
	if (!ret)
		ret = mntkit__view_detach_unseen(w);
	for (size_t i = 0; i < todo.n && !ret; i++) {
		ret = mntkit__stat_into(&w->req, todo.v[i], w->mask, &w->buf,
					&w->bufsize);
		if (ret == -ENOENT) { /* gone since the listing */
			ret = mntkit__view_detach(w, todo.v[i]);
			ret = ret > 0 ? 0 : ret;
			continue;
		}
		if (!ret)
			ret = mntkit__view_refresh(w, w->buf);
		ret = ret > 0 ? 0 : ret;
	}
	free(iv.v);
	free(todo.v);
	mntkit__watch_lines_keep(w, &l, !ret);
	if (ret) /* the whole diff, now */
		return mntkit__watch_sync_table(w, false);
	mntkit__watch_synced(w, 0, t0, "lines");
	return 0;
}

/* a signalled change: the cheaper diff where there is one */
int mntkit__watch_sync_signalled(struct mntkit_watch *w)
{
	return lines_kept() ? sync_lines(w) : mntkit__watch_sync_table(w, false);
}
