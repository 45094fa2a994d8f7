// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The mountinfo backend: statmount/listmount emulated over
 * /proc/<pid>/mountinfo for kernels without the system calls.
 *
 * This is the seam only: the emulation itself is the next piece of work
 * (issue "Exact emulation of statmount/listmount"). Until it lands, every
 * call answers ENOSYS, exactly as a kernel without the calls would, so a
 * caller that forces this backend learns that nothing can serve it.
 */
#include "internal.h"

static int emul_statmount(const struct mntkit_mnt_id_req *req,
			  struct mntkit_statmount *buf, size_t bufsize,
			  unsigned int flags)
{
	(void)req;
	(void)buf;
	(void)bufsize;
	(void)flags;
	errno = ENOSYS;
	return -1;
}

static ssize_t emul_listmount(const struct mntkit_mnt_id_req *req,
			      uint64_t *mnt_ids, size_t nr_mnt_ids,
			      unsigned int flags)
{
	(void)req;
	(void)mnt_ids;
	(void)nr_mnt_ids;
	(void)flags;
	errno = ENOSYS;
	return -1;
}

static int emul_path_id(int dirfd, const char *path, int at_flags,
			uint64_t *mnt_id)
{
	(void)dirfd;
	(void)path;
	(void)at_flags;
	(void)mnt_id;
	return -ENOSYS;
}

uint64_t mntkit__emul_supported_mask(void)
{
	return 0;
}

const struct mntkit_backend_ops mntkit_mountinfo_ops = {
	.name = "mountinfo",
	.statmount = emul_statmount,
	.listmount = emul_listmount,
	.path_id = emul_path_id,
};
