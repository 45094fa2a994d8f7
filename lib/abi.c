// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel-ABI entry points, and compile-time checks that the ABI
 * structs of mntkit.h and syscall.h have the kernel's layout, on every
 * architecture (each u64 at an 8-aligned offset: the same offsets where
 * a u64 member is 4-aligned, as on i386).
 */
#include "internal.h"
#include "syscall.h"

#define SM_AT(field, off)                                                      \
	_Static_assert(offsetof(struct mntkit_statmount, field) == (off),      \
		       "struct statmount: " #field " at " #off)

SM_AT(size, 0);
SM_AT(mnt_opts, 4);
SM_AT(mask, 8);
SM_AT(sb_dev_major, 16);
SM_AT(sb_dev_minor, 20);
SM_AT(sb_magic, 24);
SM_AT(sb_flags, 32);
SM_AT(fs_type, 36);
SM_AT(mnt_id, 40);
SM_AT(mnt_parent_id, 48);
SM_AT(mnt_id_old, 56);
SM_AT(mnt_parent_id_old, 60);
SM_AT(mnt_attr, 64);
SM_AT(mnt_propagation, 72);
SM_AT(mnt_peer_group, 80);
SM_AT(mnt_master, 88);
SM_AT(propagate_from, 96);
SM_AT(mnt_root, 104);
SM_AT(mnt_point, 108);
SM_AT(mnt_ns_id, 112);
SM_AT(fs_subtype, 120);
SM_AT(sb_source, 124);
SM_AT(opt_num, 128);
SM_AT(opt_array, 132);
SM_AT(opt_sec_num, 136);
SM_AT(opt_sec_array, 140);
SM_AT(supported_mask, 144);
SM_AT(mnt_uidmap_num, 152);
SM_AT(mnt_uidmap, 156);
SM_AT(mnt_gidmap_num, 160);
SM_AT(mnt_gidmap, 164);
SM_AT(__spare2, 168);
SM_AT(str, 512);
_Static_assert(sizeof(struct mntkit_statmount) == MNTKIT_STATMOUNT_FIXED_SIZE,
	       "struct statmount: fixed part is 512 bytes");

#define REQ_AT(field, off)                                                     \
	_Static_assert(offsetof(struct mntkit_mnt_id_req, field) == (off),     \
		       "struct mnt_id_req: " #field " at " #off)

REQ_AT(size, 0);
REQ_AT(mnt_ns_fd, 4);
REQ_AT(mnt_id, 8);
REQ_AT(param, 16);
REQ_AT(mnt_ns_id, 24);
_Static_assert(offsetof(struct mntkit_mnt_id_req, mnt_ns_id) ==
		       MNTKIT_MNT_ID_REQ_SIZE_VER0,
	       "struct mnt_id_req: VER0 is 24 bytes");
_Static_assert(sizeof(struct mntkit_mnt_id_req) == MNTKIT_MNT_ID_REQ_SIZE_VER1,
	       "struct mnt_id_req: VER1 is 32 bytes");

/* listns(2)'s request (NS_ID_REQ_SIZE_VER0) */
#define NSREQ_AT(field, off)                                                   \
	_Static_assert(offsetof(struct mntkit_ns_id_req, field) == (off),      \
		       "struct ns_id_req: " #field " at " #off)

NSREQ_AT(size, 0);
NSREQ_AT(spare, 4);
NSREQ_AT(ns_id, 8);
NSREQ_AT(ns_type, 16);
NSREQ_AT(spare2, 20);
NSREQ_AT(user_ns_id, 24);
_Static_assert(sizeof(struct mntkit_ns_id_req) == MNTKIT_NS_ID_REQ_SIZE_VER0,
	       "struct ns_id_req: VER0 is 32 bytes");

/* NS_MNT_GET_INFO's reply: its size is in the ioctl's number */
_Static_assert(offsetof(struct mntkit_mnt_ns_info, nr_mounts) == 4 &&
		       offsetof(struct mntkit_mnt_ns_info, mnt_ns_id) == 8 &&
		       sizeof(struct mntkit_mnt_ns_info) == 16,
	       "struct mnt_ns_info: 16 bytes, mnt_ns_id at 8");

int mntkit_statmount(const struct mntkit_mnt_id_req *req,
		     struct mntkit_statmount *buf, size_t bufsize,
		     unsigned int flags)
{
	return mntkit__ops()->statmount(req, buf, bufsize, flags);
}

ssize_t mntkit_listmount(const struct mntkit_mnt_id_req *req,
			 uint64_t *mnt_ids, size_t nr_mnt_ids,
			 unsigned int flags)
{
	return mntkit__ops()->listmount(req, mnt_ids, nr_mnt_ids, flags);
}
