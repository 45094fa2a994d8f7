// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch - the mounts of this namespace (as events "attach"), then every
 * change, for SECONDS seconds (3 by default): KIND ID TARGET, the ID
 * being the one every call takes (mntkit.h, "MOUNT IDS").
 *
 *   cc watch.c $(pkg-config --cflags --libs mntkit) -o watch
 *   ./watch 60
 */
#include <err.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>

#include <mntkit.h>

int main(int argc, char **argv)
{
	MNTKIT_WATCH_OPTS(wo, .flags = MNTKIT_WATCH_F_INITIAL);
	MNTKIT_EVENT(ev);
	struct mntkit_watch *w;
	char *end = "";
	long s = argc == 2 ? strtol(argv[1], &end, 10) : 3;
	struct itimerspec its = { .it_value.tv_sec = s };
	struct pollfd p[2] = { { .events = POLLIN }, { .events = POLLIN } };
	int r;

	if (argc > 2 || *end || end == argv[1] || s < 1 || s > 86400)
		errx(2, "usage: %s [SECONDS]", argv[0]);
	if ((r = mntkit_watch_new(&wo, NULL, &w)) < 0)
		err(1, "mntkit_watch_new");
	p[0].fd = mntkit_watch_fd(w);
	p[1].fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (p[1].fd < 0 || timerfd_settime(p[1].fd, 0, &its, NULL) < 0)
		err(1, "timerfd");
	do {	/* read until 0 before polling again */
		while ((r = mntkit_watch_read(w, &ev)) == 1) {
			const struct mntkit_statmount *sm =
				ev.after ? ev.after : ev.before;
			const char *point =
				sm ? mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT) : NULL;

			printf("%s %llu %s\n", mntkit_event_kind_name(ev.kind),
			       (unsigned long long)ev.mnt_id, point ? point : "?");
		}
		if (r < 0)
			err(1, "mntkit_watch_read");
		fflush(stdout);
	} while (poll(p, 2, -1) >= 0 && !p[1].revents);
	mntkit_watch_free(w);
	return 0;
}
