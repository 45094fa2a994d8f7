// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The native backend: the kernel's statmount(2) and listmount(2).
 *
 * A request for groups the kernel's statmount does not have goes to the
 * hybrid path (lib/native-hybrid.c): the kernel's groups from the kernel, the others
 * from the mountinfo emulation, in one reply laid out as a kernel with
 * every group would lay it. Everything else goes to the kernel untouched.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "internal.h"
#include "syscall.h"

/* the groups an older kernel answers with an empty string, where 6.18
 * leaves them out */
#define EMPTY_CUT (MNTKIT_STATMOUNT_MNT_OPTS | MNTKIT_STATMOUNT_MNT_POINT)

static uint32_t *field_u32(struct mntkit_statmount *sm, size_t off)
{
	return (uint32_t *)((char *)sm + off);
}

/*
 * A complete reply of sm->size bytes: drop the empty MNT_OPTS and
 * MNT_POINT strings 6.8 - 6.12 write (proc's options; the mount point of
 * a mount outside the caller's root), as 6.18 does: the bit cleared, the
 * byte cut from the string area, the later offsets moved down. Returns
 * the bytes cut.
 */
static bool empty_str(const struct mntkit_statmount *sm, uint64_t flag,
		      uint32_t off)
{
	return (sm->mask & flag) &&
	       off < sm->size - MNTKIT_STATMOUNT_FIXED_SIZE && !sm->str[off];
}

/* whether a reply has any string to cut: inline, for the common case */
static inline bool has_empty(const struct mntkit_statmount *sm)
{
	return empty_str(sm, MNTKIT_STATMOUNT_MNT_OPTS, sm->mnt_opts) ||
	       empty_str(sm, MNTKIT_STATMOUNT_MNT_POINT, sm->mnt_point);
}

static size_t cut_empty(struct mntkit_statmount *sm)
{
	size_t cut = 0;

	for (size_t k = 0; k < MNTKIT__NSTR_GROUPS; k++) {
		const struct mntkit__group *g = mntkit__str_groups[k];
		size_t area = sm->size - MNTKIT_STATMOUNT_FIXED_SIZE;
		uint32_t off;

		if (!(g->flag & EMPTY_CUT) || !(sm->mask & g->flag))
			continue;
		off = *field_u32(sm, g->off);
		if (off >= area || sm->str[off])
			continue;
		memmove(sm->str + off, sm->str + off + 1, area - off - 1);
		sm->str[area - 1] = '\0';
		sm->size--;
		sm->mask &= ~g->flag;
		*field_u32(sm, g->off) = 0;
		for (size_t j = 0; j < MNTKIT__NSTR_GROUPS; j++) {
			const struct mntkit__group *h = mntkit__str_groups[j];
			uint32_t *o = field_u32(sm, h->off);

			if ((sm->mask & h->flag) && *o > off)
				(*o)--;
		}
		cut++;
	}
	return cut;
}

/* a whole reply of the kernel's to @req, in @bufsize bytes: its cut */
static inline void cut_reply(const struct mntkit_mnt_id_req *req,
			     struct mntkit_statmount *sm, size_t bufsize)
{
	if ((req->param & EMPTY_CUT) && bufsize > MNTKIT_STATMOUNT_FIXED_SIZE &&
	    has_empty(sm))
		cut_empty(sm);
}

/*
 * The kernel's reply, with its empty strings cut. Where the kernel has
 * them (no FS_SUBTYPE: 6.8 - 6.12) a reply that overflows @bufsize by
 * what is cut still fits, as on 6.18: it is read again into a buffer
 * that holds the cut bytes too.
 */
static int direct_statmount(const struct mntkit_mnt_id_req *req,
			    struct mntkit_statmount *buf, size_t bufsize)
{
	struct mntkit_statmount *big;
	size_t more = 2; /* at most one byte for each group of EMPTY_CUT */
	int ret;

	ret = sys_statmount(req, buf, bufsize, 0);
	if (!(req->param & EMPTY_CUT))
		return ret;
	if (ret == 0) {
		cut_reply(req, buf, bufsize);
		return 0;
	}
	if (errno != EOVERFLOW || bufsize <= MNTKIT_STATMOUNT_FIXED_SIZE ||
	    (mntkit__kernel_mask() & MNTKIT_STATMOUNT_FS_SUBTYPE))
		return -1;
	big = malloc(bufsize + more);
	if (!big) {
		errno = EOVERFLOW; /* what the kernel said */
		return -1;
	}
	ret = sys_statmount(req, big, bufsize + more, 0);
	if (ret == 0) {
		if (has_empty(big))
			cut_empty(big);
		if (big->size <= bufsize)
			memcpy(buf, big, big->size);
		else
			ret = -1;
	}
	free(big);
	if (ret)
		errno = EOVERFLOW;
	return ret;
}

/* whether @req goes to the kernel as it is (and only the cut after) */
static inline bool direct(const struct mntkit_mnt_id_req *req,
			  unsigned int flags)
{
	return !flags && req && req->size >= MNTKIT_MNT_ID_REQ_SIZE_VER0 &&
	       !(req->param & MNTKIT_STATMOUNT_ALL & ~mntkit__direct_mask());
}

static int native_statmount(const struct mntkit_mnt_id_req *req,
			    struct mntkit_statmount *buf, size_t bufsize,
			    unsigned int flags)
{
	uint64_t kmask;

	/* the common case first: a request the kernel answers itself */
	if (direct(req, flags))
		return direct_statmount(req, buf, bufsize);
	/* STATMOUNT_BY_FD: the kernel's where it has it and every group
	 * asked; else the mount's ID from the fd, asked as below */
	if (flags == MNTKIT_STATMOUNT_BY_FD &&
	    (!mntkit__kernel_by_fd() ||
	     (req && mntkit__hybrid() &&
	      (req->param & MNTKIT_STATMOUNT_ALL & ~mntkit__kernel_mask()))))
		return mntkit__stat_by_fd(&mntkit_native_ops, req, buf,
					  bufsize, flags);
	/* what the kernel refuses before it looks at the mask is its own */
	if (!req || flags || req->size < MNTKIT_MNT_ID_REQ_SIZE_VER0)
		return sys_statmount(req, buf, bufsize, flags);
	if (!mntkit__hybrid())
		return direct_statmount(req, buf, bufsize);
	kmask = mntkit__kernel_mask();
	/* supported_mask: the hybrid's, not the kernel's */
	if (!(req->param & MNTKIT_STATMOUNT_ALL &
	      (~kmask | MNTKIT_STATMOUNT_SUPPORTED_MASK)))
		return direct_statmount(req, buf, bufsize);
	mntkit__debug(MNTKIT_PRINT_DEBUG,
		      "hybrid reply for mount %#" PRIx64 ": groups %#" PRIx64
		      " from the kernel, %#" PRIx64 " from the emulation",
		      (uint64_t)req->mnt_id, (uint64_t)(req->param & kmask),
		      (uint64_t)(req->param & ~kmask & mntkit__hybrid_mask()));
	return mntkit__emul_hybrid(req, kmask, buf, bufsize);
}

/*
 * The replies of @ids one after another in @buf (mntkit_stat_many()).
 * A request the kernel answers itself is, after the first ID, a loop
 * around the system call (sys_statmount() is the instruction itself on
 * x86-64): nothing returns between one call and the next, the return the
 * CPU would mispredict after each. The first ID is asked as
 * native_statmount() asks it, so that its failure is that call's (a
 * reply that fits once cut included); a later one's stops the loop. The
 * hybrid's requests go one native_statmount() each (mntkit__fill_each()).
 */
static ssize_t native_stat_fill(struct mntkit_mnt_id_req *req,
				const uint64_t *ids, size_t n, char *buf,
				size_t bufsize)
{
	size_t at = 0, k;

	if (!direct(req, 0))
		return mntkit__fill_each(native_statmount, req, ids, n, buf,
					 bufsize);
	for (k = 0; k < n; k++) {
		struct mntkit_statmount *sm = (void *)(buf + at);
		size_t room = at < bufsize ? bufsize - at : 0;
		int ret = -1;

		req->mnt_id = ids[k];
		if (room >= MNTKIT_STATMOUNT_FIXED_SIZE)
			ret = k ? sys_statmount(req, sm, room, 0) :
				  direct_statmount(req, sm, room);
		if (ret && k)
			break; /* the next call tells why */
		if (ret)
			return room < MNTKIT_STATMOUNT_FIXED_SIZE ? -EOVERFLOW :
								    -errno;
		if (k) /* the first: cut by direct_statmount() */
			cut_reply(req, sm, room);
		at += mntkit_stat_span(sm);
	}
	return (ssize_t)k;
}

static ssize_t native_listmount(const struct mntkit_mnt_id_req *req,
				uint64_t *mnt_ids, size_t nr_mnt_ids,
				unsigned int flags)
{
	return sys_listmount(req, mnt_ids, nr_mnt_ids, flags);
}

const struct mntkit_backend_ops mntkit_native_ops = {
	.name = "native",
	.statmount = native_statmount,
	.listmount = native_listmount,
	.path_id = mntkit__native_path_id,
	.stat_fill = native_stat_fill,
};
