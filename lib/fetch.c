// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fetching from the backend in effect, for the layers above (query.c,
 * table.c, watch.c): a reply that grows to fit, a listing with all its
 * pages, the climb to a namespace's true root.
 */
#include <stdlib.h>

#include "internal.h"

/* first buffer of a reply with strings: most replies fit in it */
#define STAT_FIRST_BUFSIZE 4096
/* no reply is larger than this (the kernel's strings are page-bounded) */
#define STAT_MAX_BUFSIZE (64U << 20)
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
 * IDs: it grows from a page as before.
 */
#define LIST_RESERVE (128U * 1024)

int mntkit__stat_into(const struct mntkit_mnt_id_req *base, uint64_t mnt_id,
		     uint64_t mask, struct mntkit_statmount **buf,
		     size_t *bufsize)
{
	const struct mntkit_backend_ops *ops = mntkit__ops();
	struct mntkit_mnt_id_req req = *base;
	struct mntkit_statmount *nbuf;
	size_t size = *bufsize;

	req.mnt_id = mnt_id;
	req.param = mask;
	if (!*buf || size < MNTKIT_STATMOUNT_FIXED_SIZE)
		size = STAT_FIRST_BUFSIZE;
	for (;;) {
		if (size != *bufsize || !*buf) {
			nbuf = realloc(*buf, size);
			if (!nbuf)
				return -ENOMEM;
			*buf = nbuf;
			*bufsize = size;
		}
		if (ops->statmount(&req, *buf, size, 0) == 0)
			return 0;
		if (errno != EOVERFLOW || size >= STAT_MAX_BUFSIZE)
			return -errno;
		size *= 2;
	}
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
