// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench-diff - what one diff of a mountinfo-backend watch costs, against
 * one read of /proc/self/mountinfo (bench/bench-emul.sh's helper).
 *
 *   bench-diff DIR ROUNDS
 *	in the current mount namespace, which must not be the one named by
 *	BENCH_HOST_MNTNS (the link text of /proc/self/ns/mnt outside):
 *	a watch (source poll) of it on the backend in effect (the caller
 *	sets MNTKIT_BACKEND=mountinfo, and MNTKIT_TEST_OLD_IDS=1 for the
 *	old-ID mode), then ROUNDS times: a tmpfs mounted on DIR (untimed),
 *	the diff that follows (mntkit_watch_rescan(), which re-reads the
 *	changed table and compares it with the watch's view, as the diff
 *	after a change signal does), its events drained; the tmpfs
 *	unmounted and diffed again. Between the diffs, one read of
 *	/proc/self/mountinfo (open, read to the end, close). Prints the
 *	medians, CPU time of the process in microseconds:
 *	"DIFF_US READ_US EVENTS" (EVENTS: what the last two diffs reported,
 *	2 when each saw its mount).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "mntkit.h"
#include "common.h"

/* a mount and an unmount per round: 2 samples */
#define MAX_DIFF_ROUNDS (BENCH_MAX_ROUNDS / 2)

static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* one read of the whole mountinfo, CPU us; -1 on failure */
static double read_once(void)
{
	static char buf[1 << 20];
	double t0 = cpu_us();
	ssize_t n;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? -1 : cpu_us() - t0;
}

/* the diff after a change: CPU us, and the events it queued */
static double diff_once(struct mntkit_watch *w, int *events)
{
	MNTKIT_EVENT(ev);
	double t0 = cpu_us(), t;
	int r;

	if (mntkit_watch_rescan(w) < 0)
		return -1;
	t = cpu_us() - t0;
	while ((r = mntkit_watch_read(w, &ev)) > 0)
		(*events)++;
	return r < 0 ? -1 : t;
}

int main(int argc, char **argv)
{
	static double diffs[2 * MAX_DIFF_ROUNDS], reads[2 * MAX_DIFF_ROUNDS];
	MNTKIT_WATCH_OPTS(wo, .source = MNTKIT_WATCH_POLL,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN);
	struct mntkit_watch *w;
	int rounds, n = 0, events = 0;

	if (argc != 3 || (rounds = atoi(argv[2])) < 1 ||
	    rounds > MAX_DIFF_ROUNDS) {
		fprintf(stderr, "usage: bench-diff DIR ROUNDS (1..%d)\n",
			MAX_DIFF_ROUNDS);
		return 2;
	}
	if (bench_in_host_ns()) {
		fprintf(stderr, "bench-diff: not in a private mount namespace "
				"(BENCH_HOST_MNTNS)\n");
		return 1;
	}
	if (mntkit_watch_new(&wo, NULL, &w) < 0) {
		perror("bench-diff: mntkit_watch_new");
		return 1;
	}
	for (int i = 0; i < rounds; i++) {
		events = 0;
		if (mount("bench-diff", argv[1], "tmpfs", 0, "size=4k")) {
			perror(argv[1]);
			return 1;
		}
		diffs[n] = diff_once(w, &events);
		reads[n++] = read_once();
		if (umount2(argv[1], MNT_DETACH)) {
			perror(argv[1]);
			return 1;
		}
		diffs[n] = diff_once(w, &events);
		reads[n++] = read_once();
		if (diffs[n - 1] < 0 || diffs[n - 2] < 0 || reads[n - 1] < 0 ||
		    reads[n - 2] < 0) {
			fprintf(stderr, "bench-diff: a diff or read failed\n");
			return 1;
		}
	}
	mntkit_watch_free(w);
	printf("%.0f %.0f %d\n", median(diffs, n), median(reads, n), events);
	return 0;
}
