// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mntkit_stat_fd(): the mount an fd is on, as statmount(2) with
 * STATMOUNT_BY_FD (7.0) describes it, on every kernel (the emulation of
 * the flag is mntkit__stat_by_fd() in lib/by-fd.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int mntkit_stat_fd(int fd, uint64_t mask, struct mntkit_statmount **out)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.param = mask,
	};
	struct mntkit_statmount *sm = NULL;
	size_t size = 0;
	int ret;

	if (!out)
		return mntkit__fail(EINVAL);
	*out = NULL;
	if (fd < 0)
		return mntkit__fail(EBADF);
	req.mnt_ns_fd = (uint32_t)fd;
	ret = mntkit__stat_grown(mntkit_statmount, &req,
				 MNTKIT_STATMOUNT_BY_FD, &sm, &size);
	if (ret)
		goto fail;
	*out = mntkit__sm_fit(sm);
	return 0;
fail:
	free(sm);
	return mntkit__fail(-ret);
}
