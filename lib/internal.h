/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libmntkit: the backend seam and small helpers shared by the
 * library's layers.
 */
#ifndef MNTKIT_INTERNAL_H
#define MNTKIT_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "mntkit.h"

/*
 * A backend serves the kernel-ABI entry points. Both functions follow the
 * system call convention (-1 and errno).
 */
struct mntkit_backend_ops {
	const char *name;
	int (*statmount)(const struct mntkit_mnt_id_req *req,
			 struct mntkit_statmount *buf, size_t bufsize,
			 unsigned int flags);
	ssize_t (*listmount)(const struct mntkit_mnt_id_req *req,
			     uint64_t *mnt_ids, size_t nr_mnt_ids,
			     unsigned int flags);
	/* path -> mount ID in this backend's ID space; 0 or -errno */
	int (*path_id)(int dirfd, const char *path, int at_flags,
		       uint64_t *mnt_id);
};

extern const struct mntkit_backend_ops mntkit_native_ops;
extern const struct mntkit_backend_ops mntkit_mountinfo_ops;

/* the backend in effect (probes once) */
const struct mntkit_backend_ops *mntkit__ops(void);

/* kernel feature bits (MNTKIT_FEAT_*), probed once */
uint32_t mntkit__kernel_features(void);

/* native path -> unique ID (statx, then name_to_handle_at) */
int mntkit__native_path_id(int dirfd, const char *path, int at_flags,
			   uint64_t *mnt_id);

/* which of MNTKIT_FEAT_STATX_UNIQUE / _HANDLE_UNIQUE give unique IDs */
uint32_t mntkit__native_id_source(void);

/* the groups the mountinfo emulation can fill */
uint64_t mntkit__emul_supported_mask(void);

/*
 * Resolve struct mntkit_opts into the namespace part of a request.
 * *@fd_to_close is set to an fd the caller must close after its last use of
 * @req, or -1. Returns 0 or -errno.
 */
int mntkit__req_init(struct mntkit_mnt_id_req *req,
		     const struct mntkit_opts *opts, int *fd_to_close);

/* return -err and set errno = err (err > 0) */
static inline int mntkit__fail(int err)
{
	errno = err;
	return -err;
}

/* turn a syscall-style result (-1/errno) into -errno, keeping errno */
static inline int mntkit__neg_errno(void)
{
	return -errno;
}

#define MNTKIT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
