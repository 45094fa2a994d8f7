// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-watch-wakeup.c - a watch that stops following the change signals
 * while a diff is owed follows them again without losing one that came
 * meanwhile.
 *
 * Putting the mountinfo file back into the watch's epoll set polls it,
 * and mountinfo's poll takes the signal: epoll then reports nothing for
 * it. The watch must notice it (from its private file) and wake its
 * caller. The moment is forced here through the watch's timing (lib/
 * watch.h): the race it stands for (a mount between a diff's read of
 * mountinfo and the watch's return to following the signals) is too
 * narrow to hit from outside.
 */
#include <poll.h>
#include <sys/mount.h>

#include "harness.h"
#include "mntkit.h"
#include "watch.h"

/* read what is there; whether it told of a change of mount @id */
static int read_change(struct mntkit_watch *w, uint64_t id)
{
	MNTKIT_EVENT(ev);
	int found = 0, r;

	while ((r = mntkit_watch_read(w, &ev)) > 0)
		found |= ev.kind == MNTKIT_EVENT_CHANGE && ev.mnt_id == id;
	T_ASSERTF(r == 0, "mntkit_watch_read: %s", strerror(-r));
	return found;
}

static void signal_while_away(enum mntkit_watch_source src)
{
	MNTKIT_WATCH_OPTS(wo, .source = src,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN);
	struct mntkit_watch *w;
	struct pollfd p;
	char *m;
	uint64_t id;
	int r;

	t_private_ns();
	m = t_path("%s/m", t_tmpdir());
	id = t_tmpfs(m, 0, "size=1m");
	r = mntkit_watch_new(&wo, NULL, &w);
	if (r == -EOPNOTSUPP || r == -EPERM)
		t_skip("no %s watch: %s", mntkit_watch_source_name(src),
		       strerror(-r));
	T_OK(r);
	read_change(w, id);
	T_ASSERT(w->mi.wake_fd >= 0 && w->mi.wake_on);

	/* a diff owed: the file leaves the set */
	w->tm.verify_due = mntkit__watch_now() + 3600LL * 1000000000LL;
	mntkit__watch_arm(w);
	T_ASSERT(!w->mi.wake_on);

	/*
	 * a remount, signalled while the file is out (and not through
	 * fanotify, which tells of mounts and unmounts only)
	 */
	t_mount(NULL, m, NULL, MS_REMOUNT, "size=2m");

	/* the diff done, but before the remount: the file goes back */
	w->tm.verify_due = 0;
	w->tm.verify_first = 0;
	mntkit__watch_arm(w);
	T_ASSERT(w->mi.wake_on);

	/* the watch wakes its caller, and tells of the remount */
	p = (struct pollfd){ .fd = mntkit_watch_fd(w), .events = POLLIN };
	for (int i = 0;; i++) {
		T_ASSERTF(poll(&p, 1, 3000) == 1,
			  "%s", "no wakeup for the remount signalled meanwhile");
		if (read_change(w, id))
			break;
		T_ASSERTF(i < 50, "woken %d times, no CHANGE of the mount", i);
	}
	mntkit_watch_free(w);
}

T_CASE(signal_while_away_poll)
{
	signal_while_away(MNTKIT_WATCH_POLL);
}

T_CASE(signal_while_away_fanotify)
{
	signal_while_away(MNTKIT_WATCH_FANOTIFY);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
