// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ns-mounts - the mount tree of another process's mount namespace as
 * `findmnt -N PID` shows it: TARGET SOURCE FSTYPE, indented by depth
 * (CAP_SYS_ADMIN, or a process whose /proc/PID/mountinfo one may read).
 *
 *   cc ns-mounts.c $(pkg-config --cflags --libs mntkit) -o ns-mounts
 *   ./ns-mounts $(pidof some-daemon)
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mntkit.h>

/* a mount's TARGET SOURCE FSTYPE, indented by its depth */
static void print_mount(const struct mntkit_table *t, size_t m)
{
	const struct mntkit_statmount *sm = mntkit_table_get(t, m);
	const char *src = mntkit_sm_get(sm, MNTKIT_FIELD_SB_SOURCE);

	printf("%*s%s %s %s\n", 2 * (int)mntkit_table_depth(t, m), "",
	       mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT), src ? src : "none",
	       mntkit_sm_get(sm, MNTKIT_FIELD_FS_TYPE));
}

int main(int argc, char **argv)
{
	char *end = "";
	long pid = argc == 2 ? strtol(argv[1], &end, 10) : 0;
	MNTKIT_OPTS(opts, .pid = (pid_t)pid);
	struct mntkit_table *t;
	int r;

	if (argc != 2 || *end || pid <= 0 || pid != (pid_t)pid)
		errx(2, "usage: %s PID", argv[0]);
	/* findmnt's order of siblings: by the IDs mountinfo shows */
	r = mntkit_table_new(MNTKIT_STATMOUNT_ALL, MNTKIT_TABLE_F_OLD_ORDER,
			     &opts, &t);
	if (r < 0)
		errx(1, "PID %ld: %s", pid, strerror(-r));
	/* pre-order, root after root: a mount before its children */
	for (ssize_t r = mntkit_table_first_root(t); r >= 0;
	     r = mntkit_table_next_sibling(t, (size_t)r))
		for (ssize_t m = r; m >= 0;
		     m = mntkit_table_next_preorder(t, (size_t)m, (size_t)r))
			print_mount(t, (size_t)m);
	mntkit_table_free(t);
	return 0;
}
