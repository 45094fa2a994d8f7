// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * statmount(2) with STATMOUNT_BY_FD (7.0) where the kernel has it not:
 * the kernel's checks of the request, then the mount of the fd's ID in a
 * backend's ID space, asked by ID. Both backends use it
 * (mntkit__stat_by_fd()); whether the kernel has the flag is a probe of
 * lib/features.c.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "internal.h"
#include "syscall.h"

/* ---- STATMOUNT_BY_FD (7.0) ---- */

/* internal mounts (pipes, sockets, nsfs, ...): 7.x answers EINVAL */
static int internal_mount(int fd)
{
	static const long magic[] = {
		MNTKIT_PIPEFS_MAGIC,
		MNTKIT_SOCKFS_MAGIC,
		MNTKIT_NSFS_MAGIC,
		MNTKIT_ANON_INODE_FS_MAGIC,
		MNTKIT_PID_FS_MAGIC,
	};
	struct statfs st;

	if (fstatfs(fd, &st))
		return 0;
	for (size_t k = 0; k < MNTKIT_ARRAY_SIZE(magic); k++)
		if ((long)st.f_type == magic[k])
			return 1;
	return 0;
}

/* copy_mnt_id_req() of 7.0 for STATMOUNT_BY_FD, then the fd: 0 or -errno */
static int by_fd_req(const struct mntkit_mnt_id_req *ureq, unsigned int flags,
		     struct mntkit_mnt_id_req *req)
{
	int fd, ret;

	if (flags & ~MNTKIT_STATMOUNT_BY_FD)
		return -EINVAL;
	ret = mntkit__req_copy(ureq, req);
	if (ret)
		return ret;
	if (req->mnt_id || req->mnt_ns_id)
		return -EINVAL;
	fd = (int)req->mnt_ns_fd;
	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	return 0;
}

int mntkit__stat_by_fd(const struct mntkit_backend_ops *ops,
		       const struct mntkit_mnt_id_req *ureq,
		       struct mntkit_statmount *buf, size_t bufsize,
		       unsigned int flags)
{
	struct mntkit_mnt_id_req req;
	uint64_t id;
	int fd, ret;

	/* the kernel's order: flags, the request's size and tail, its
	 * fields, then the fd */
	ret = by_fd_req(ureq, flags, &req);
	if (ret) {
		errno = -ret;
		return -1;
	}
	fd = (int)req.mnt_ns_fd;
	ret = ops->path_id(fd, "", AT_EMPTY_PATH, &id);
	if (ret) {
		errno = internal_mount(fd) ? EINVAL : -ret;
		return -1;
	}
	req.size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
	req.mnt_ns_fd = 0;
	req.mnt_id = id;
	ret = ops->statmount(&req, buf, bufsize, 0);
	/* not in the caller's namespace (detached, another namespace's) */
	if (ret && errno == ENOENT && internal_mount(fd))
		errno = EINVAL;
	return ret;
}
