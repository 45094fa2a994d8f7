// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * snapshot-diff - a snapshot of the mount table, then the shell COMMAND,
 * then a second snapshot: what changed, one event a line (KIND ID
 * TARGET [WHAT]).
 *
 *   cc snapshot-diff.c $(pkg-config --cflags --libs mntkit) -o snapshot-diff
 *   ./snapshot-diff 'mount -o remount,ro /mnt'
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>

#include <mntkit.h>

int main(int argc, char **argv)
{
	struct mntkit_table *before, *after;
	struct mntkit_event *ev;
	char what[256];
	ssize_t n;

	if (argc != 2)
		errx(2, "usage: %s COMMAND", argv[0]);
	if (mntkit_table_new(MNTKIT_STATMOUNT_ALL, 0, NULL, &before) < 0)
		err(1, "mntkit_table_new");
	if (system(argv[1]) != 0)
		warnx("%s: failed", argv[1]);
	if (mntkit_table_new(MNTKIT_STATMOUNT_ALL, 0, NULL, &after) < 0 ||
	    (n = mntkit_diff(before, after, 0, sizeof(*ev), &ev)) < 0)
		err(1, "mntkit_diff");
	for (ssize_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = ev[i].after ? ev[i].after :
								  ev[i].before;

		mntkit_changed_str(ev[i].changed, 0, what, sizeof(what));
		printf("%s %u %s%s%s\n", mntkit_event_kind_name(ev[i].kind),
		       sm->mnt_id_old, mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT),
		       *what ? " " : "", what);
	}
	free(ev);
	mntkit_table_free(before);
	mntkit_table_free(after);
	return 0;
}
