// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * emulated - another process's mounts read through the emulation over
 * /proc/PID/mountinfo (what an old kernel gets), in findmnt's order:
 * ID MNT_ID TARGET, ID being mountinfo's (findmnt's) and MNT_ID the one
 * the calls take: a unique ID, or the old one where the emulation cannot
 * read a unique ID without a risk of blocking (see mntkit.h, MOUNT IDS).
 *
 *   cc emulated.c $(pkg-config --cflags --libs mntkit) -o emulated
 *   ./emulated 1
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mntkit.h>

int main(int argc, char **argv)
{
	char *end = "";
	long pid = argc == 2 ? strtol(argv[1], &end, 10) : 0;
	MNTKIT_OPTS(opts, .pid = (pid_t)pid);
	struct mntkit_statmount *sm;
	uint64_t *ids;
	ssize_t n;

	if (argc != 2 || *end || pid <= 0 || pid != (pid_t)pid)
		errx(2, "usage: %s PID", argv[0]);
	if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO) < 0)
		err(1, "mntkit_set_backend");
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, &opts, &ids);
	if (n < 0 || mntkit_list_order(ids, (size_t)n, &opts) < 0)
		errx(1, "PID %ld: %s", pid, strerror(errno));
	for (ssize_t i = 0; i < n; i++) {
		int r = mntkit_stat(ids[i], MNTKIT_STATMOUNT_MNT_BASIC |
				    MNTKIT_STATMOUNT_MNT_POINT, &opts, &sm);

		if (r == -ENOENT)
			continue; /* unmounted since it was listed */
		if (r < 0)
			errx(1, "PID %ld: %s", pid, strerror(-r));
		printf("%u %llu %s\n", sm->mnt_id_old, (unsigned long long)sm->mnt_id,
		       mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT));
		free(sm);
	}
	free(ids);
	return 0;
}
