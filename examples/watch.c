// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch - print the mount events of this mount namespace, with the
 * current table first, for a number of seconds (default 10).
 *
 *   watch [SECONDS]
 */
#include <err.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mntkit.h>

static void print_event(const struct mntkit_event *ev)
{
	const struct mntkit_statmount *sm = ev->after ? ev->after : ev->before;
	const char *point = "?";
	char changed[128] = "";

	if (ev->kind == MNTKIT_EVENT_RESYNC) {
		puts("resync (events were lost; what follows catches up)");
		return;
	}
	mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &point);
	mntkit_changed_str(ev->changed, changed, sizeof(changed));
	printf("%-6s %#" PRIx64 " %s %s\n", mntkit_event_kind_name(ev->kind),
	       ev->mnt_id, point, changed);
}

int main(int argc, char **argv)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_INITIAL);
	int seconds = argc > 1 ? atoi(argv[1]) : 10;
	time_t end = time(NULL) + seconds;
	struct mntkit_watch *w;
	struct mntkit_event ev;
	struct pollfd p;
	int r;

	r = mntkit_watch_new(NULL, &wo, &w);
	if (r < 0)
		errx(1, "mntkit_watch_new: %s", strerror(-r));
	printf("source: %s\n",
	       mntkit_watch_source_name(mntkit_watch_source(w)));
	p.fd = mntkit_watch_fd(w);
	p.events = POLLIN;
	while (time(NULL) < end) {
		/* read until 0 before polling again */
		while ((r = mntkit_watch_read(w, &ev)) == 1)
			print_event(&ev);
		if (r < 0)
			errx(1, "mntkit_watch_read: %s", strerror(-r));
		fflush(stdout);
		poll(&p, 1, 1000);
	}
	mntkit_watch_free(w);
	return 0;
}
