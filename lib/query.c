// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The conveniences over the kernel-ABI entry points: replies that grow to
 * fit, listings with the pages fetched (the children-only and depth-first
 * ones over a snapshot: table-walk.c), path -> ID, the root mount.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/*
 * A failed call about mount @id: when it is an old ID where the backend
 * takes unique ones (the kernel's EINVAL), the trace says so.
 */
static int id_failed(const char *func, int ret, uint64_t id)
{
	if (ret == -EINVAL && id && id <= MNTKIT_MNT_UNIQUE_ID_OFFSET &&
	    mntkit__unique_ids())
		return mntkit__misuse(func, EINVAL,
			"mount ID %" PRIu64 " is an old ID (mountinfo's first "
			"field, findmnt's ID column), where this backend takes "
			"unique IDs (above 2^31): mntkit_id_from_old() gives "
			"the unique one", id);
	return mntkit__fail(-ret);
}

int mntkit_stat_buf(uint64_t mnt_id, uint64_t mask,
		    const struct mntkit_opts *opts,
		    struct mntkit_statmount **buf, size_t *bufsize)
{
	MNTKIT__PIN();
	struct mntkit_mnt_id_req req;
	int fd, ret;

	if (!buf || !bufsize)
		return MNTKIT__MISUSE(EINVAL, "a NULL %s",
				      buf ? "bufsize" : "buffer pointer");
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	ret = mntkit__stat_into(&req, mnt_id, mask, buf, bufsize);
	if (fd >= 0)
		close(fd);
	return ret ? id_failed(__func__, ret, mnt_id) : 0;
}

ssize_t mntkit_stat_many(const uint64_t *ids, size_t nr_ids, uint64_t mask,
			 unsigned int flags, const struct mntkit_opts *opts,
			 void *buf, size_t bufsize)
{
	MNTKIT__PIN();
	struct mntkit_mnt_id_req req;
	ssize_t got;
	int fd, ret;

	if (!ids && nr_ids)
		return MNTKIT__MISUSE(EINVAL, "NULL ids with nr_ids %zu", nr_ids);
	if (!buf || ((uintptr_t)buf & 7))
		return MNTKIT__MISUSE(EINVAL, "a %s buffer (8-byte alignment "
				      "needed)", buf ? "misaligned" : "NULL");
	if (flags)
		return MNTKIT__MISUSE(EINVAL, "unknown flags %#x", flags);
	if (!nr_ids)
		return 0;
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	got = mntkit__stat_fill(&req, ids, nr_ids, mask, buf, bufsize);
	if (fd >= 0)
		close(fd);
	return got < 0 ? id_failed(__func__, (int)got, ids[0]) : got;
}

int mntkit_stat(uint64_t mnt_id, uint64_t mask, const struct mntkit_opts *opts,
		struct mntkit_statmount **out)
{
	MNTKIT__PIN();
	struct mntkit_statmount *sm = NULL;
	size_t size = 0;
	int ret;

	if (!out)
		return mntkit__fail(EINVAL);
	*out = NULL;
	ret = mntkit_stat_buf(mnt_id, mask, opts, &sm, &size);
	if (ret) {
		free(sm);
		return mntkit__fail(-ret);
	}
	*out = mntkit__sm_fit(sm);
	return 0;
}

int mntkit_path_id(int dirfd, const char *path, int at_flags,
		   uint64_t *mnt_id)
{
	MNTKIT__PIN();
	int ret;

	if (!path || !mnt_id)
		return mntkit__fail(EINVAL);
	ret = mntkit__path_flags_check(at_flags);
	if (!ret)
		ret = mntkit__ops()->path_id(dirfd, path, at_flags, mnt_id);
	return ret ? mntkit__fail(-ret) : 0;
}

int mntkit_stat_path(int dirfd, const char *path, int at_flags,
		     uint64_t mask, struct mntkit_statmount **out)
{
	MNTKIT__PIN();
	uint64_t id;
	int ret;

	if (!out)
		return mntkit__fail(EINVAL);
	*out = NULL;
	ret = mntkit_path_id(dirfd, path, at_flags, &id);
	if (ret)
		return ret;
	return mntkit_stat(id, mask, NULL, out);
}

/* ---- listing ---- */

ssize_t mntkit_list(uint64_t mnt_id, unsigned int flags,
		    const struct mntkit_opts *opts, uint64_t **ids)
{
	MNTKIT__PIN();
	unsigned int known = MNTKIT_LIST_F_REVERSE | MNTKIT_LIST_F_CHILDREN |
			     MNTKIT_LIST_F_TREE | MNTKIT_LIST_F_CHILDREN_FIRST;
	unsigned int shape = flags & (MNTKIT_LIST_F_CHILDREN | MNTKIT_LIST_F_TREE |
				      MNTKIT_LIST_F_CHILDREN_FIRST);
	struct mntkit_mnt_id_req req;
	struct mntkit_idvec iv = { 0 };
	unsigned int lflags = 0;
	int fd, ret;

	if (!ids)
		return MNTKIT__MISUSE(EINVAL, "a NULL ids pointer");
	*ids = NULL;
	if (flags & ~known)
		return MNTKIT__MISUSE(EINVAL, "unknown flags %#x",
				      flags & ~known);
	if ((shape & MNTKIT_LIST_F_CHILDREN) && shape != MNTKIT_LIST_F_CHILDREN)
		return MNTKIT__MISUSE(EINVAL, "CHILDREN with TREE or "
				      "CHILDREN_FIRST: one shape at most");
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	/* the kernel reverses when it can */
	if ((flags & MNTKIT_LIST_F_REVERSE) &&
	    (mntkit__kernel_calls() & MNTKIT_FEAT_LIST_REVERSE))
		lflags = MNTKIT_LISTMOUNT_REVERSE;
	if (shape)
		ret = mntkit__table_list_shaped(&req, mnt_id, flags, &iv);
	else
		ret = mntkit__list_flat(&req, mnt_id, lflags, &iv);
	if (!ret && !shape && (flags & MNTKIT_LIST_F_REVERSE) && !lflags)
		mntkit__reverse_u64(iv.v, iv.n);
	if (!ret && (flags & MNTKIT_LIST_F_CHILDREN_FIRST))
		mntkit__reverse_u64(iv.v, iv.n);
	if (fd >= 0)
		close(fd);
	if (ret) {
		free(iv.v);
		return id_failed(__func__, ret, mnt_id);
	}
	if (!iv.n) {
		free(iv.v);
		iv.v = NULL;
	} else if (iv.cap - iv.n > 4096) {
		/* the listing's reserve given back (no copy: a mapping) */
		uint64_t *v = realloc(iv.v, iv.n * sizeof(*v));

		if (v)
			iv.v = v;
	}
	*ids = iv.v;
	return (ssize_t)iv.n;
}

/* ---- the root mount ---- */

int mntkit_root_id(unsigned int flags, const struct mntkit_opts *opts,
		   uint64_t *mnt_id)
{
	MNTKIT__PIN();
	struct mntkit_mnt_id_req req;
	uint64_t id;
	int fd, ret;

	if (!mnt_id)
		return MNTKIT__MISUSE(EINVAL, "a NULL mnt_id pointer");
	if (flags & ~MNTKIT_TABLE_F_UNREACHABLE)
		return MNTKIT__MISUSE(EINVAL, "unknown flags %#x",
				      flags & ~MNTKIT_TABLE_F_UNREACHABLE);
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	ret = mntkit__reachable_root(&req, &id);
	if (!ret && (flags & MNTKIT_TABLE_F_UNREACHABLE))
		ret = mntkit__true_root(&req, &id);
	if (fd >= 0)
		close(fd);
	if (ret)
		return mntkit__fail(-ret);
	*mnt_id = id;
	return 0;
}

/* ---- an old ID's mount ---- */

int mntkit_id_from_old(uint64_t old_id, const struct mntkit_opts *opts,
		       uint64_t *mnt_id)
{
	MNTKIT__PIN();
	struct mntkit_table *t;
	size_t n;
	int ret;

	if (!mnt_id)
		return MNTKIT__MISUSE(EINVAL, "a NULL mnt_id pointer");
	if (!old_id || old_id > MNTKIT_MNT_UNIQUE_ID_OFFSET)
		return MNTKIT__MISUSE(EINVAL, "%" PRIu64 " is no old mount ID "
				      "(those are 1 to 2^31)", old_id);
	ret = mntkit_table_new(MNTKIT_STATMOUNT_MNT_BASIC, 0, opts, &t);
	if (ret)
		return ret;
	ret = -ENOENT;
	n = mntkit_table_count(t);
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);

		if ((sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) &&
		    sm->mnt_id_old == old_id) {
			*mnt_id = sm->mnt_id;
			ret = 0;
			break;
		}
	}
	mntkit_table_free(t);
	return ret ? mntkit__fail(-ret) : 0;
}

/* ---- the listing order ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int mntkit_list_order(uint64_t *ids, size_t n, const struct mntkit_opts *opts)
{
	MNTKIT__PIN();
	struct mntkit_mnt_id_req req;
	int ret, fd = -1;

	if (!ids && n)
		return mntkit__fail(EINVAL);
	if (mntkit__ops() != &mntkit_mountinfo_ops) {
		if (n)
			qsort(ids, n, sizeof(*ids), cmp_u64);
		return 0;
	}
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	ret = mntkit__emul_list_order(&req, ids, n);
	if (fd >= 0)
		close(fd);
	return ret ? mntkit__fail(-ret) : 0;
}
