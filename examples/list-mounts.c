// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * list-mounts - every mount of this process's namespace as `findmnt -l`
 * lists them: TARGET SOURCE FSTYPE OPTIONS, in findmnt's order.
 *
 *   cc list-mounts.c $(pkg-config --cflags --libs mntkit) -o list-mounts
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <mntkit.h>

int main(int argc, char **argv)
{
	struct mntkit_statmount *sm = NULL;
	size_t size = 0;
	char opts[4096];
	uint64_t *ids;
	ssize_t n;

	if (argc != 1)
		errx(2, "usage: %s", argv[0]);
	/* by ID, then in mountinfo's order (findmnt's) on either backend */
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	if (n < 0 || mntkit_list_order(ids, (size_t)n, NULL) < 0)
		err(1, "mntkit_list");
	for (ssize_t i = 0; i < n; i++) {
		/* one buffer for every reply, grown when one needs more */
		int r = mntkit_stat_buf(ids[i], MNTKIT_STATMOUNT_ALL, NULL, &sm,
					&size);
		const char *src;

		if (r == -ENOENT)
			continue; /* unmounted since it was listed */
		if (r < 0 || mntkit_sm_options(sm, MNTKIT_OPTIONS_ALL, opts,
					       sizeof(opts)) < 0)
			err(1, "mount %llu", (unsigned long long)ids[i]);
		src = mntkit_sm_get(sm, MNTKIT_FIELD_SB_SOURCE);
		printf("%s %s %s %s\n", mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT),
		       src ? src : "none", mntkit_sm_get(sm, MNTKIT_FIELD_FS_TYPE),
		       opts);
	}
	free(sm);
	free(ids);
	return 0;
}
