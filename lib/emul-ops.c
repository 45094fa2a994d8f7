// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The emulation's operations: statmount, listmount, path -> ID, the
 * snapshot batch, the listing order (mntkit__emul_list_order()),
 * mntkit_path_served() and the backend's ops table (lib/emul.h says how
 * it works).
 */
#include <dirent.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "emul.h"
#include "syscall.h"

/*
 * Is @id acceptable before the table is known? 0 yes, -EINVAL no, 1 only if
 * the table has a mount of that ID.
 */
static int id_precheck(uint64_t id)
{
	if (!id)
		return -EINVAL;
	if (low_id(id) && mntkit__emul_have_unique)
		return 1;
	return 0;
}

static int emul_statmount_locked(const struct mntkit_mnt_id_req *ureq,
				 size_t bufsize, struct reply *r)
{
	struct mntkit_mnt_id_req req;
	struct table *t = NULL;
	uint64_t want;
	ssize_t i;
	int ret, pre, ids;

	ret = mntkit__req_copy(ureq, &req);
	if (ret)
		return ret;
	ids = mntkit__emul_ids_wanted(&req.mnt_id, 1);
	pre = ids == IDS_OLD && req.mnt_id ? 0 : id_precheck(req.mnt_id);
	if (pre < 0)
		return pre;
	ret = mntkit__emul_request_table(&req, &t, ids);
	if (ret)
		return pre ? -EINVAL : ret;
	if (mntkit__emul_foreign_denied(&req, t))
		return -EPERM;
	i = mntkit__emul_find_key(t, req.mnt_id);
	if (i < 0)
		i = mntkit__emul_renamed_entry(t, req.mnt_id);
	if (pre && i < 0)
		return mntkit__emul_issued_has(req.mnt_id) ? -ENOENT : -EINVAL;
	want = req.param;
	if ((want & MNTKIT__STRING_GROUPS) &&
	    bufsize == MNTKIT_STATMOUNT_FIXED_SIZE)
		return -EOVERFLOW;
	if (i < 0)
		return -ENOENT;

	r->bufsize = bufsize;
	ret = mntkit__emul_fill_reply(r, t, (size_t)i, want, NULL, 0,
			 mntkit__emul_supported_mask());
	/* found by a name it had (mntkit__emul_renamed_entry()): the reply is of the
	 * ID asked, as the kernel's always is */
	if (!ret && (r->sm->mask & MNTKIT_STATMOUNT_MNT_BASIC))
		r->sm->mnt_id = req.mnt_id;
	return ret;
}

static int emul_statmount(const struct mntkit_mnt_id_req *req,
			  struct mntkit_statmount *buf, size_t bufsize,
			  unsigned int flags)
{
	uint64_t fixed[MNTKIT_STATMOUNT_FIXED_SIZE / sizeof(uint64_t)];
	struct reply r = { .sm = (struct mntkit_statmount *)fixed };
	int ret;

	if (flags == MNTKIT_STATMOUNT_BY_FD) /* lib/by-fd.c */
		return mntkit__stat_by_fd(&mntkit_mountinfo_ops, req, buf,
					  bufsize, flags);
	if (flags) {
		errno = EINVAL;
		return -1;
	}
	mntkit__emul_caps();
	pthread_once(&mntkit__emul_atfork_once, mntkit__emul_setup_atfork);
	pthread_mutex_lock(&mntkit__emul_lock);
	r.str = mntkit__emul_scratch.str;
	r.cap = mntkit__emul_scratch.cap;
	ret = emul_statmount_locked(req, bufsize, &r);
	ret = mntkit__emul_reply_out(&r, ret, buf, bufsize);
	pthread_mutex_unlock(&mntkit__emul_lock);
	return ret;
}

/*
 * statmount of many IDs for a snapshot (mntkit_table_new()): the table is
 * checked and, when stale, reloaded once for the whole batch, not once per
 * ID, so the replies are of one moment and a listing of N mounts costs one
 * check instead of N. Each reply is built as emul_statmount() builds it
 * with a buffer of any size, then handed to @each whole.
 */
static int emul_stat_many(const struct mntkit_mnt_id_req *ureq,
			  const uint64_t *ids, size_t n, uint64_t mask,
			  int (*each)(void *ctx, uint64_t id,
				      const struct mntkit_statmount *sm),
			  void *ctx)
{
	uint64_t fixed[MNTKIT_STATMOUNT_FIXED_SIZE / sizeof(uint64_t)];
	struct reply r = { .sm = (struct mntkit_statmount *)fixed };
	struct mntkit_mnt_id_req req;
	struct mntkit_statmount *out = NULL;
	size_t outcap = 0;
	struct table *t;
	int ret;

	mntkit__emul_caps();
	pthread_once(&mntkit__emul_atfork_once, mntkit__emul_setup_atfork);
	pthread_mutex_lock(&mntkit__emul_lock);
	r.str = mntkit__emul_scratch.str;
	r.cap = mntkit__emul_scratch.cap;
	ret = mntkit__req_copy(ureq, &req);
	if (!ret)
		ret = mntkit__emul_request_table(&req, &t,
				mntkit__emul_ids_wanted(ids, n));
	if (!ret && mntkit__emul_foreign_denied(&req, t))
		ret = -EPERM;
	for (size_t k = 0; k < n && !ret; k++) {
		ssize_t i = mntkit__emul_find_key(t, ids[k]);
		size_t size;

		if (i < 0)
			i = mntkit__emul_renamed_entry(t, ids[k]);
		if (i < 0)
			continue; /* gone since it was listed, as ENOENT */
		r.len = 0;
		r.bufsize = SIZE_MAX;
		ret = mntkit__emul_fill_reply(&r, t, (size_t)i, mask, NULL, 0,
				 mntkit__emul_supported_mask());
		if (ret)
			break;
		size = MNTKIT_STATMOUNT_FIXED_SIZE + r.len;
		if (size > UINT32_MAX) {
			ret = -EOVERFLOW;
			break;
		}
		if (size > outcap) {
			void *p = realloc(out, size);

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			out = p;
			outcap = size;
		}
		r.sm->size = (uint32_t)size;
		memcpy(out, r.sm, MNTKIT_STATMOUNT_FIXED_SIZE);
		if (r.len) /* r.str is NULL until a string was put */
			memcpy(out->str, r.str, r.len);
		ret = each(ctx, ids[k], out);
	}
	if (r.cap > SCRATCH_KEEP) {
		free(r.str);
		r.str = NULL;
		r.cap = 0;
	}
	mntkit__emul_scratch.str = r.str;
	mntkit__emul_scratch.cap = r.cap;
	pthread_mutex_unlock(&mntkit__emul_lock);
	free(out);
	return ret;
}

/*
 * A parent outside the table is named by its old ID (parent_key()), as a
 * hidden mount is, and once gone both answer ENOENT: a snapshot that meets
 * a root whose parent it cannot find asks here which one it is. Outside:
 * the parent of an entry of the current table without a line of its own
 * (the mounts above the caller's root; a table that holds the ID is no
 * such parent). A parent made and gone since the listing (a mount moved
 * under a new mount and back) is the parent of no entry now. One view:
 * the question is about now, not about the view the child was read in.
 */
int mntkit__emul_parent_outside(const struct mntkit_mnt_id_req *ureq,
				uint64_t id)
{
	struct mntkit_mnt_id_req req;
	struct table *t = NULL;
	int ret;

	mntkit__emul_caps();
	pthread_once(&mntkit__emul_atfork_once, mntkit__emul_setup_atfork);
	pthread_mutex_lock(&mntkit__emul_lock);
	ret = mntkit__req_copy(ureq, &req);
	if (!ret)
		ret = mntkit__emul_request_table(&req, &t,
				mntkit__emul_ids_wanted(&id, 1));
	if (!ret && (mntkit__emul_find_key(t, id) >= 0 ||
		     mntkit__mindex_find_old(&t->ix, id) >= 0))
		goto unlock; /* 0: a mount of the table */
	for (size_t i = 0; !ret && i < t->mi.n; i++) {
		const struct mntkit_mi *m = &t->mi.v[i];

		if (t->ix.parent[i] < 0 && m->parent != m->id &&
		    m->parent == id)
			ret = 1;
	}
unlock:
	pthread_mutex_unlock(&mntkit__emul_lock);
	return ret;
}

/* ---- listmount ---- */

/*
 * listmount lists by ID, as the kernel does (snapshots rely on it), and so
 * the hidden mounts' old IDs come first. Their place in mountinfo (the
 * kernel's listing order, by unique ID, 6.8+; findmnt's list order) is
 * what mntkit_list_order() sorts by: the position in the file. For an ID
 * no longer in the table, the place where a listing would go on after it:
 * after the last unique ID at most it (a hidden mount's: at most the one
 * listed before it, mntkit__emul_issued_base()).
 */
static size_t file_place(const struct table *t, uint64_t id)
{
	uint64_t base = low_key(id) ? mntkit__emul_issued_base(id) : id;
	size_t pos = 0;

	for (size_t k = 0; k < t->mi.n; k++)
		if (!low_key(t->ix.key[k]) && t->ix.key[k] <= base)
			pos = k + 1;
	return pos;
}

static ssize_t emul_listmount_locked(const struct mntkit_mnt_id_req *ureq,
				     uint64_t *ids, size_t nr, int reverse)
{
	struct mntkit_mnt_id_req req;
	struct table *t = NULL;
	ssize_t start = -1;
	size_t pos, n = 0;
	uint64_t cursor, asked[2];
	int ret, pre = 0, want;

	ret = mntkit__req_copy(ureq, &req);
	if (ret)
		return ret;
	cursor = req.param;
	asked[0] = req.mnt_id;
	asked[1] = cursor;
	want = mntkit__emul_ids_wanted(asked, 2);
	if (req.mnt_id != MNTKIT_LSMT_ROOT) {
		pre = id_precheck(req.mnt_id);
		if (pre < 0)
			return pre;
	}
	if (cursor && low_id(cursor) && mntkit__emul_have_unique)
		pre = 1;
	if (want == IDS_OLD)
		pre = 0; /* as on a kernel before 6.8 */
	ret = mntkit__emul_request_table(&req, &t, want);
	if (ret)
		return pre ? -EINVAL : ret;
	if (mntkit__emul_foreign_denied(&req, t))
		return -ENOENT;
	/*
	 * The kernel refuses a cursor <= 2^31 (do_listmount(): no unique ID
	 * is that low). Here such a cursor can be the name of a hidden
	 * mount: accepted exactly when it was handed out as one (the
	 * table's hidden mounts and outside parents, and those gone since).
	 */
	if (cursor && low_id(cursor) && t->unique_mode && !mntkit__emul_issued_has(cursor))
		return -EINVAL;
	if (req.mnt_id != MNTKIT_LSMT_ROOT) {
		start = mntkit__mindex_find(&t->ix, req.mnt_id);
		if (start < 0)
			return low_id(req.mnt_id) && t->unique_mode &&
					       !mntkit__emul_issued_has(req.mnt_id) ?
				       -EINVAL :
				       -ENOENT;
	}
	if (!reverse) {
		/* the kernel looks for the first ID >= cursor + 1: ~0 wraps
		 * around to the start */
		pos = cursor && cursor != ~0ULL ?
			      mntkit__mindex_after(&t->ix, cursor) :
			      0;
		for (; pos < t->ix.n && n < nr; pos++) {
			uint32_t i = t->ix.by_key[pos];

			if (start < 0 || mntkit__mindex_below(&t->ix, i,
							      (size_t)start))
				ids[n++] = t->ix.key[i];
		}
	} else {
		pos = cursor ? mntkit__mindex_before(&t->ix, cursor) : t->ix.n;
		for (; pos > 0 && n < nr; pos--) {
			uint32_t i = t->ix.by_key[pos - 1];

			if (start < 0 || mntkit__mindex_below(&t->ix, i,
							      (size_t)start))
				ids[n++] = t->ix.key[i];
		}
	}
	return (ssize_t)n;
}

static ssize_t emul_listmount(const struct mntkit_mnt_id_req *req,
			      uint64_t *mnt_ids, size_t nr_mnt_ids,
			      unsigned int flags)
{
	uint64_t *tmp = NULL;
	ssize_t ret;

	if (flags & ~MNTKIT_LISTMOUNT_REVERSE) {
		errno = EINVAL;
		return -1;
	}
	if (nr_mnt_ids > MNTKIT_LISTMOUNT_MAX_NR) {
		errno = EOVERFLOW;
		return -1;
	}
	if (nr_mnt_ids) {
		tmp = malloc(nr_mnt_ids * sizeof(*tmp));
		if (!tmp) {
			errno = ENOMEM;
			return -1;
		}
	}
	mntkit__emul_caps();
	pthread_once(&mntkit__emul_atfork_once, mntkit__emul_setup_atfork);
	pthread_mutex_lock(&mntkit__emul_lock);
	ret = emul_listmount_locked(req, tmp, nr_mnt_ids,
				    !!(flags & MNTKIT_LISTMOUNT_REVERSE));
	pthread_mutex_unlock(&mntkit__emul_lock);
	if (ret > 0 && !mnt_ids)
		ret = -EFAULT;
	if (ret > 0)
		memcpy(mnt_ids, tmp, (size_t)ret * sizeof(*tmp));
	free(tmp);
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/* ---- the listing order ---- */

struct ranked {
	uint64_t rank;
	uint64_t id;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* the emulation's listing ranks of @ids in @req's table (under @mntkit__emul_lock) */
static int rank_ids(const struct mntkit_mnt_id_req *req, const uint64_t *ids,
		    size_t n, struct ranked *v)
{
	struct table *t;
	int cheap = mntkit__emul_ids_wanted(ids, n) == IDS_OLD;
	int ret = mntkit__emul_request_table(req, &t,
					     cheap ? IDS_OLD : IDS_BACKEND);

	if (ret)
		return ret;
	for (size_t k = 0; k < n; k++) {
		ssize_t i = mntkit__mindex_find(&t->ix, ids[k]);

		v[k].id = ids[k];
		if (cheap) /* mountinfo's order; one gone since: last */
			v[k].rank = i >= 0 ? (uint64_t)i : UINT64_MAX;
		else if (!t->unique_mode || !t->has_hidden)
			v[k].rank = ids[k]; /* key order */
		else if (i >= 0)
			v[k].rank = 2 * (uint64_t)i + 1;
		else /* where a listing would go on after it */
			v[k].rank = 2 * (uint64_t)file_place(t, ids[k]);
	}
	return 0;
}

/* mntkit_list_order() on this backend (lib/query.c): @ids in the
 * listing's order of @req's table; 0 or -errno */
int mntkit__emul_list_order(const struct mntkit_mnt_id_req *req,
			    uint64_t *ids, size_t n)
{
	struct ranked *v;
	int ret;

	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	mntkit__emul_caps();
	pthread_once(&mntkit__emul_atfork_once, mntkit__emul_setup_atfork);
	pthread_mutex_lock(&mntkit__emul_lock);
	ret = rank_ids(req, ids, n, v);
	pthread_mutex_unlock(&mntkit__emul_lock);
	if (!ret) {
		qsort(v, n, sizeof(*v), cmp_ranked);
		for (size_t k = 0; k < n; k++)
			ids[k] = v[k].id;
	}
	free(v);
	return ret;
}

/* ---- path -> ID ---- */

static int emul_path_id(int dirfd, const char *path, int at_flags,
			uint64_t *mnt_id)
{
	struct statx stx;
	uint64_t old, uniq = 0;
	struct table *t;
	ssize_t i;
	int fd, ret;

	if (!path || !mnt_id)
		return -EINVAL;
	ret = mntkit__path_flags_check(at_flags);
	if (ret)
		return ret;
	mntkit__emul_caps();
	fd = mntkit__open_at(dirfd, path, at_flags);
	if (fd < 0)
		return fd;
	ret = mntkit__emul_fd_old_id(fd, &old);
	if (!ret && mntkit__emul_have_unique) {
		memset(&stx, 0, sizeof(stx));
		if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
			  MNTKIT_STATX_MNT_ID_UNIQUE, &stx) == 0 &&
		    (stx.stx_mask & MNTKIT_STATX_MNT_ID_UNIQUE))
			uniq = stx.stx_mnt_id;
	}
	if (fd != dirfd)
		close(fd);
	if (ret)
		return ret;
	if (!mntkit__emul_have_unique || mntkit__emul_cheap_ids()) {
		*mnt_id = old;
		return 0;
	}
	/* the ID this backend names that mount by */
	pthread_once(&mntkit__emul_atfork_once, mntkit__emul_setup_atfork);
	pthread_mutex_lock(&mntkit__emul_lock);
	ret = mntkit__emul_self_table(&t, IDS_BACKEND);
	if (!ret) {
		i = mntkit__mindex_find_old(&t->ix, old);
		if (i >= 0 && (!uniq || t->ix.key[i] == uniq ||
			       t->ix.key[i] == old))
			uniq = t->ix.key[i];
	}
	pthread_mutex_unlock(&mntkit__emul_lock);
	if (!uniq)
		return ret ? ret : -EOPNOTSUPP;
	*mnt_id = uniq;
	return 0;
}

/*
 * Could a lookup of @path (absolute, as a mount point is written) walk
 * through a served filesystem of the caller's namespace? The rule of
 * mntkit__emul_mark_served_paths(), for the tools' own lookups of mount points (lsmnt's
 * statvfs); any backend, from the emulation's table (no unique IDs needed,
 * so loading it looks at no mount point).
 */
int mntkit_path_served(const char *path)
{
	struct table *t;
	int ret;

	if (!path)
		return mntkit__fail(EINVAL);
	if (path[0] != '/')
		return mntkit__fail(EINVAL);
	mntkit__emul_caps();
	pthread_once(&mntkit__emul_atfork_once, mntkit__emul_setup_atfork);
	pthread_mutex_lock(&mntkit__emul_lock);
	ret = mntkit__emul_self_table(&t, IDS_ANY);
	if (!ret)
		ret = mntkit__emul_crosses(t->served, t->nserved, path, strlen(path));
	pthread_mutex_unlock(&mntkit__emul_lock);
	return ret < 0 ? mntkit__fail(-ret) : ret;
}

const struct mntkit_backend_ops mntkit_mountinfo_ops = {
	.name = "mountinfo",
	.statmount = emul_statmount,
	.listmount = emul_listmount,
	.path_id = emul_path_id,
	.stat_many = emul_stat_many,
};
