// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fetching from the backend in effect, for the layers above (query.c,
 * the snapshots, the watches): a reply that grows to fit, the replies of
 * many IDs, a listing with all its pages, the climb to a namespace's true
 * root. Nothing here knows of tables: replies go to the caller's buffer
 * or sink.
 */
#include <stdlib.h>

#include "internal.h"

/* IDs asked per listmount call at first; doubles up to the kernel's max */
#define LIST_FIRST_PAGE 1024
/*
 * The room a flat listing of a whole namespace reserves at first, in IDs:
 * 1 MiB of address space (malloc() maps it untouched), of which only what
 * the kernel writes becomes memory. The listing then neither moves nor
 * copies its IDs as it grows page after page (the kernel allocates each
 * page's IDs itself, so its pages stay small), nor touches memory the IDs
 * do not fill: a page first touched is dear in a virtual machine. A
 * subtree's listing (a watch's after a move, per event) is mostly a few
 * IDs: it grows from a page.
 */
#define LIST_RESERVE (128U * 1024)
/* mntkit__stat_each() reads the replies this many bytes at a time */
#define FILL_BATCH (64U << 10)

int mntkit__stat_into(const struct mntkit_mnt_id_req *base, uint64_t mnt_id,
		     uint64_t mask, struct mntkit_statmount **buf,
		     size_t *bufsize)
{
	struct mntkit_mnt_id_req req = *base;

	req.mnt_id = mnt_id;
	req.param = mask;
	return mntkit__stat_grown(mntkit__ops()->statmount, &req, 0, buf,
				  bufsize);
}

ssize_t mntkit__stat_fill(const struct mntkit_mnt_id_req *base,
			  const uint64_t *ids, size_t n, uint64_t mask,
			  char *buf, size_t bufsize)
{
	const struct mntkit_backend_ops *ops = mntkit__ops();
	struct mntkit_mnt_id_req req = *base;

	req.param = mask;
	if (ops->stat_fill)
		return ops->stat_fill(&req, ids, n, buf, bufsize);
	return mntkit__fill_each(ops->statmount, &req, ids, n, buf, bufsize);
}

/*
 * A backend that can answer for all the IDs at once does; else they are
 * read a batch at a time, one system call a mount with nothing between
 * them on the native backend.
 */
int mntkit__stat_each(const struct mntkit_mnt_id_req *req, const uint64_t *ids,
		      size_t n, uint64_t mask, mntkit__reply_fn *each,
		      void *ctx)
{
	const struct mntkit_backend_ops *ops = mntkit__ops();
	struct mntkit_statmount *one = NULL; /* a reply larger than a batch */
	size_t onesize = 0;
	char *batch;
	int ret = 0;

	if (ops->stat_many) {
		struct mntkit_mnt_id_req r = *req;

		r.param = mask;
		return ops->stat_many(&r, ids, n, mask, each, ctx);
	}
	batch = malloc(FILL_BATCH);
	if (!batch)
		return -ENOMEM;
	for (size_t i = 0; i < n && !ret;) {
		ssize_t got = mntkit__stat_fill(req, ids + i, n - i, mask,
						batch, FILL_BATCH);
		size_t at = 0;

		if (got == -EOVERFLOW) { /* larger than a batch: alone */
			got = mntkit__stat_into(req, ids[i], mask, &one,
						&onesize);
			if (!got)
				ret = each(ctx, ids[i++], one);
		}
		if (got == -ENOENT) { /* gone since the listing */
			i++;
			continue;
		}
		if (got < 0)
			ret = (int)got;
		for (ssize_t k = 0; k < got && !ret; k++) {
			const struct mntkit_statmount *sm =
				(const void *)(batch + at);

			ret = each(ctx, ids[i + (size_t)k], sm);
			at += mntkit_stat_span(sm);
		}
		if (got > 0)
			i += (size_t)got;
	}
	free(batch);
	free(one);
	return ret;
}

/* ---- listing ---- */

int mntkit__idvec_reserve(struct mntkit_idvec *iv, size_t want)
{
	return mntkit__vec_room(iv, want, LIST_FIRST_PAGE);
}

int mntkit__list_flat(const struct mntkit_mnt_id_req *base, uint64_t mnt_id,
		      unsigned int lflags, struct mntkit_idvec *iv)
{
	const struct mntkit_backend_ops *ops = mntkit__ops();
	struct mntkit_mnt_id_req req = *base;
	size_t page = LIST_FIRST_PAGE;
	ssize_t got;
	int ret;

	req.mnt_id = mnt_id;
	req.param = 0;
	if (!iv->cap && mnt_id == MNTKIT_LSMT_ROOT) {
		ret = mntkit__idvec_reserve(iv, LIST_RESERVE);
		if (ret)
			return ret;
	}
	for (;;) {
		ret = mntkit__idvec_reserve(iv, page);
		if (ret)
			return ret;
		got = ops->listmount(&req, iv->v + iv->n, page, lflags);
		if (got < 0)
			return -errno;
		iv->n += (size_t)got;
		if ((size_t)got < page)
			return 0;
		req.param = iv->v[iv->n - 1];
		if (page < MNTKIT_LISTMOUNT_MAX_NR / 2)
			page *= 2;
	}
}

/* ---- the root mount ---- */

/* the parent of @id (itself for a namespace's root) */
static int parent_of(const struct mntkit_mnt_id_req *base, uint64_t id,
		     uint64_t *parent)
{
	struct mntkit_mnt_id_req req = *base;
	struct mntkit_statmount sm;

	req.mnt_id = id;
	req.param = MNTKIT_STATMOUNT_MNT_BASIC;
	if (mntkit__ops()->statmount(&req, &sm, sizeof(sm), 0) != 0)
		return -errno;
	*parent = sm.mnt_parent_id;
	return 0;
}

/*
 * No climb up the parents is longer than this: a namespace holds fewer
 * mounts (fs.mount-max), and each step is a fresh statmount, so only mounts
 * that keep swapping places under the climb could make it go round.
 */
#define CLIMB_MAX MNTKIT_LISTMOUNT_MAX_NR

/* the namespace's true root: climb from @id to the mount that is its own
 * parent (CAP_SYS_ADMIN past a chroot, else -EPERM; -ELOOP: see CLIMB_MAX) */
int mntkit__true_root(const struct mntkit_mnt_id_req *req, uint64_t *id)
{
	uint64_t parent;
	int ret;

	for (size_t steps = 0; steps < CLIMB_MAX; steps++) {
		ret = parent_of(req, *id, &parent);
		if (ret || parent == *id)
			return ret;
		*id = parent;
	}
	return -ELOOP;
}
