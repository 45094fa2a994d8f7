// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The native backend's path -> ID: the unique mount ID of a path by
 * statx, else name_to_handle_at, else (both refused by a filter) the old
 * ID from the fd's fdinfo found among the mounts by statmount.
 */
#include <fcntl.h>
#include <unistd.h>

#include "internal.h"
#include "syscall.h"

/* the mount below the caller's root whose old ID is @old (raw calls: the
 * backend probe comes here) */
static int old_to_unique(uint64_t old, uint64_t *mnt_id)
{
	struct mntkit_mnt_id_req lreq = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = MNTKIT_LSMT_ROOT,
	};
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.param = MNTKIT_STATMOUNT_MNT_BASIC,
	};
	struct mntkit_statmount sm;
	uint64_t ids[256];
	ssize_t n;

	do {
		n = sys_listmount(&lreq, ids, MNTKIT_ARRAY_SIZE(ids), 0);
		if (n < 0)
			return -errno;
		for (ssize_t i = 0; i < n; i++) {
			req.mnt_id = ids[i];
			if (sys_statmount(&req, &sm, sizeof(sm), 0) == 0 &&
			    sm.mnt_id_old == old) {
				*mnt_id = sm.mnt_id;
				return 0;
			}
		}
		if (n > 0)
			lreq.param = ids[n - 1];
	} while (n == (ssize_t)MNTKIT_ARRAY_SIZE(ids));
	return -ENOENT;
}

/*
 * Neither statx nor name_to_handle_at gives the unique ID: the old one
 * from the fd's fdinfo (needs /proc), found among the mounts below the
 * caller's root by statmount's mnt_id_old. One listing and a statmount a
 * mount, for a process whose filter leaves it nothing better.
 */
static int fdinfo_unique_id(int dirfd, const char *path, int at_flags,
			    uint64_t *mnt_id)
{
	uint64_t old;
	int fd, ret;

	fd = mntkit__open_at(dirfd, path, at_flags);
	if (fd < 0)
		return fd;
	ret = mntkit__fdinfo_mnt_id(fd, &old);
	if (fd != dirfd)
		close(fd);
	if (ret)
		return ret;
	return old_to_unique(old, mnt_id);
}

int mntkit__native_path_id(int dirfd, const char *path, int at_flags,
			   uint64_t *mnt_id)
{
	int ret;

	if (!path || !mnt_id)
		return -EINVAL;
	if (!mntkit__native_refused(MNTKIT_REFUSED_STATX)) {
		ret = mntkit__statx_unique_id(dirfd, path, at_flags, mnt_id);
		if (ret != -EOPNOTSUPP)
			return ret;
	}
	if (!mntkit__native_refused(MNTKIT_REFUSED_HANDLE)) {
		ret = mntkit__handle_unique_id(dirfd, path, at_flags, mnt_id);
		/* before 6.12, or no handles (procfs): fdinfo, whose open
		 * fails as this one did where the path is the problem */
		if (!mntkit__native_refused(MNTKIT_REFUSED_STATX) || !ret)
			return ret;
	}
	return fdinfo_unique_id(dirfd, path, at_flags, mnt_id);
}
