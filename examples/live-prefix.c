// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * live-prefix - keep the mounts at or below PREFIX in this mount
 * namespace, from a live table: first "= ID POINT" for each there is,
 * then "+ ID POINT" for one that comes (mounted or moved in) and
 * "- ID POINT" for one that goes, for SECONDS (default 10).
 *
 *   cc live-prefix.c $(pkg-config --cflags --libs mntkit) -o live-prefix
 *   ./live-prefix PREFIX [SECONDS]
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mntkit.h>

static const char *prefix;

/* the mount point of @sm when it is PREFIX or below, else NULL */
static const char *under(const struct mntkit_statmount *sm)
{
	const char *p = sm ? mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT) : NULL;
	size_t n = strlen(prefix);

	if (!p || strncmp(p, prefix, n) ||
	    (p[n] && p[n] != '/' && n > 1))
		return NULL;
	return p;
}

int main(int argc, char **argv)
{
	struct mntkit_event ev[32];
	struct mntkit_live *live;
	struct mntkit_table *t;
	long seconds = argc > 2 ? strtol(argv[2], NULL, 10) : 10;
	time_t end;
	ssize_t n;

	if (argc < 2 || argc > 3 || seconds <= 0) {
		fprintf(stderr, "usage: %s PREFIX [SECONDS]\n", argv[0]);
		return 2;
	}
	prefix = argv[1];
	if ((errno = -mntkit_live_new(NULL, NULL, &live)))
		err(1, "mntkit_live_new");
	if ((errno = -mntkit_live_snapshot(live, &t)))
		err(1, "mntkit_live_snapshot");
	for (size_t i = 0; i < mntkit_table_count(t); i++)
		if (under(mntkit_table_get(t, i)))
			printf("= %" PRIu64 " %s\n", mntkit_table_get(t, i)->mnt_id,
			       under(mntkit_table_get(t, i)));
	mntkit_table_free(t);
	ev[0].size = sizeof(ev[0]);
	for (end = time(NULL) + seconds; time(NULL) < end;) {
		struct pollfd p = { .fd = mntkit_live_fd(live), .events = POLLIN };

		fflush(stdout);
		poll(&p, 1, 200);
		while ((n = mntkit_live_process(live, ev, 32)) > 0)
			for (ssize_t i = 0; i < n; i++) {
				const char *was = under(ev[i].before);
				const char *is = under(ev[i].after);

				if (was && (!is || strcmp(was, is)))
					printf("- %" PRIu64 " %s\n", ev[i].mnt_id, was);
				if (is && (!was || strcmp(was, is)))
					printf("+ %" PRIu64 " %s\n", ev[i].mnt_id, is);
			}
		if (n < 0)
			errx(1, "mntkit_live_process: %s", strerror((int)-n));
	}
	mntkit_live_free(live);
	return 0;
}
