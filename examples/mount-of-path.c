// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mount-of-path - the mount a path is on and its options, one findmnt
 * column a line (as `findmnt -T PATH` shows the mount on top).
 *
 *   cc mount-of-path.c $(pkg-config --cflags --libs mntkit) -o mount-of-path
 *   ./mount-of-path /home
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mntkit.h>

int main(int argc, char **argv)
{
	static const char *const col[] = { "OPTIONS", "VFS-OPTIONS", "FS-OPTIONS" };
	struct mntkit_statmount *sm;
	const char *src;
	char buf[4096];
	int r = argc == 2 ? mntkit_stat_path(AT_FDCWD, argv[1], 0,
					     MNTKIT_STATMOUNT_ALL, &sm) : 0;

	if (argc != 2)
		errx(2, "usage: %s PATH", argv[0]);
	if (r < 0)
		errx(1, "%s: %s", argv[1], strerror(-r));
	src = mntkit_sm_get(sm, MNTKIT_FIELD_SB_SOURCE);
	/* the old ID is the one findmnt and mountinfo show */
	printf("ID %u\nTARGET %s\nSOURCE %s\nFSTYPE %s\nFSROOT %s\n",
	       sm->mnt_id_old, mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT),
	       src ? src : "none", mntkit_sm_get(sm, MNTKIT_FIELD_FS_TYPE),
	       mntkit_sm_get(sm, MNTKIT_FIELD_MNT_ROOT));
	for (int w = MNTKIT_OPTIONS_ALL; w <= MNTKIT_OPTIONS_FS; w++)
		if (mntkit_sm_options(sm, w, buf, sizeof(buf)) >= 0)
			printf("%s %s\n", col[w], buf);
	mntkit_propagation_str(sm->mnt_propagation, 0, buf, sizeof(buf));
	printf("PROPAGATION %s\n", buf);
	free(sm);
	return 0;
}
