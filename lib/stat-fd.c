// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mntkit_stat_fd(): the mount an fd is on, as statmount(2) with
 * STATMOUNT_BY_FD (7.0) describes it, on every kernel (the emulation of
 * the flag is mntkit__stat_by_fd() in lib/by-fd.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* the first buffer; doubled on EOVERFLOW up to the largest reply */
#define STAT_FD_FIRST 4096
#define STAT_FD_MAX   (64U << 20)

int mntkit_stat_fd(int fd, uint64_t mask, struct mntkit_statmount **out)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.param = mask,
	};
	struct mntkit_statmount *sm = NULL, *n;
	size_t size = STAT_FD_FIRST;
	int ret;

	if (!out)
		return mntkit__fail(EINVAL);
	*out = NULL;
	if (fd < 0)
		return mntkit__fail(EBADF);
	req.mnt_ns_fd = (uint32_t)fd;
	for (;;) {
		n = realloc(sm, size);
		if (!n) {
			ret = -ENOMEM;
			goto fail;
		}
		sm = n;
		if (mntkit_statmount(&req, sm, size, MNTKIT_STATMOUNT_BY_FD) == 0)
			break;
		ret = -errno;
		if (ret != -EOVERFLOW || size >= STAT_FD_MAX)
			goto fail;
		size *= 2;
	}
	/* no larger than the reply (never below the fixed part) */
	n = realloc(sm, mntkit__sm_size(sm));
	*out = n ? n : sm;
	return 0;
fail:
	free(sm);
	return mntkit__fail(-ret);
}
