// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * teardown - every mount at or below PATH (those stacked on PATH too) in
 * an order to unmount them in: each before its parent and before what it
 * covers. With -u it unmounts them, in that order.
 *
 *   cc teardown.c $(pkg-config --cflags --libs mntkit) -o teardown
 *   ./teardown -u /run/pod/1234
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include <mntkit.h>

int main(int argc, char **argv)
{
	int unmount = argc == 3 && !strcmp(argv[1], "-u");
	const char *path = argv[argc - 1], *point;
	struct mntkit_statmount *sm;
	uint64_t *ids;
	ssize_t n;

	if (argc != 2 + unmount)
		errx(2, "usage: %s [-u] PATH", argv[0]);
	n = mntkit_list_under(path, MNTKIT_LIST_F_CHILDREN_FIRST, NULL, &ids);
	if (n < 0)
		errx(1, "%s: %s", path, strerror((int)-n));
	for (ssize_t i = 0; i < n; i++) {
		int r = mntkit_stat(ids[i], MNTKIT_STATMOUNT_MNT_BASIC |
				    MNTKIT_STATMOUNT_MNT_POINT, NULL, &sm);

		if (r == -ENOENT)
			continue; /* gone since it was listed */
		if (r < 0)
			errx(1, "mount %llu: %s", (unsigned long long)ids[i],
			     strerror(-r));
		/* the path names the mount on top: this one, by now */
		point = mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT);
		printf("%u %s\n", sm->mnt_id_old, point);
		if (unmount && umount2(point, UMOUNT_NOFOLLOW) < 0)
			err(1, "umount %s", point);
		free(sm);
	}
	free(ids);
	return 0;
}
