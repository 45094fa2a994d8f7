// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch - print the mount events of this mount namespace, with the
 * current table first, for a number of seconds (default 10).
 *
 *   cc watch.c $(pkg-config --cflags --libs mntkit) -o watch
 *   ./watch [SECONDS]
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
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
		/* the events seq + 1 .. resync_end replace the lost ones */
		printf("resync (events were lost; events %" PRIu64 " to %" PRIu64
		       " catch up)\n",
		       ev->seq + 1, ev->resync_end);
		return;
	}
	mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &point);
	mntkit_changed_str(ev->changed, 0, changed, sizeof(changed));
	printf("%-6s %#" PRIx64 " %s%s%s\n", mntkit_event_kind_name(ev->kind),
	       ev->mnt_id, point, *changed ? " " : "", changed);
}

/* milliseconds on a clock that never jumps */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_INITIAL);
	struct mntkit_watch *w;
	MNTKIT_EVENT(ev);
	long long end, left;
	long seconds = 10;
	struct pollfd p;
	char *e;
	int r;

	if (argc > 2) {
		fprintf(stderr, "usage: %s [SECONDS]\n", argv[0]);
		return 2;
	}
	if (argc == 2) {
		errno = 0;
		seconds = strtol(argv[1], &e, 10);
		if (errno || *e || e == argv[1] || seconds < 0 ||
		    seconds > INT_MAX / 1000) {
			fprintf(stderr, "%s: not a number of seconds\n",
				argv[1]);
			return 2;
		}
	}

	r = mntkit_watch_new(&wo, NULL, &w);
	if (r < 0)
		errx(1, "mntkit_watch_new: %s", strerror(-r));
	printf("source: %s\n",
	       mntkit_watch_source_name(mntkit_watch_get_source(w)));
	p.fd = mntkit_watch_fd(w);
	p.events = POLLIN;
	end = now_ms() + seconds * 1000;
	do {
		/* read until 0 before polling again */
		while ((r = mntkit_watch_read(w, &ev)) == 1)
			print_event(&ev);
		if (r < 0)
			errx(1, "mntkit_watch_read: %s", strerror(-r));
		fflush(stdout);
		left = end - now_ms();
		if (left > 0 && poll(&p, 1, (int)left) < 0 && errno != EINTR)
			err(1, "poll");
	} while (left > 0);
	mntkit_watch_free(w);
	return 0;
}
