// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench-watch - helpers of bench/bench-watch.sh (run in a private mount
 * namespace; refuses to mount otherwise):
 *
 *   bench-watch populate DIR N   a small tmpfs on DIR/src, then N bind
 *                                mounts of it on DIR/p/0..N-1
 *   bench-watch burst DIR N [mount|umount]
 *                                N bind mounts on DIR/b/0..N-1, then their
 *                                N unmounts (or only the one or the
 *                                other); prints the seconds it took
 *   bench-watch cpu PID          the CPU time of PID's threads in
 *                                microseconds (their schedstat run
 *                                times; utime + stime, in clock ticks,
 *                                where there is no schedstat)
 *   bench-watch mountinfo K      reads /proc/self/mountinfo K times;
 *                                prints the CPU time of one read in
 *                                microseconds (what any diff of the
 *                                table pays at least)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

/* bind DIR/src on DIR/SUB/0..N-1, or with @undo unmount them again */
static int binds(const char *dir, const char *sub, long n, int undo)
{
	char src[PATH_MAX], tgt[PATH_MAX];

	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(tgt, sizeof(tgt), "%s/%s", dir, sub);
	mkdir(src, 0755);
	mkdir(tgt, 0755);
	if (!undo)
		return bench_bind("bench-watch", src, tgt, 0, n) < n;
	for (long i = 0; i < n; i++) {
		snprintf(tgt, sizeof(tgt), "%s/%s/%ld", dir, sub, i);
		if (umount2(tgt, MNT_DETACH))
			return perror(tgt), 1;
	}
	return 0;
}

/* the sum of the run times (ns) in /proc/PID/task/ * /schedstat, or -1 */
static long long sched_ns(const char *pid)
{
	char path[PATH_MAX];
	long long sum = 0, ns;
	struct dirent *de;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/schedstat", pid,
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* a thread that ended */
		if (fscanf(f, "%lld", &ns) == 1)
			sum += ns;
		else
			sum = -1;
		fclose(f);
		if (sum < 0)
			break;
	}
	closedir(d);
	return sum;
}

static long cpu_ms(const char *pid)
{
	char path[64], buf[4096], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
				"%lu %lu", &ut, &st) != 2)
		return -1;
	return (long)((ut + st) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/* @k reads of the whole of /proc/self/mountinfo: CPU us per read */
static int read_mountinfo(long k)
{
	static char buf[1 << 20];
	struct timespec a, b;
	int fd;

	if (k < 1)
		k = 1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (long i = 0; i < k; i++) {
		ssize_t n;

		fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return perror("/proc/self/mountinfo"), 1;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		close(fd);
		if (n < 0)
			return perror("/proc/self/mountinfo"), 1;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	printf("%.0f\n", ((double)(b.tv_sec - a.tv_sec) * 1e6 +
			  (double)(b.tv_nsec - a.tv_nsec) / 1e3) / (double)k);
	return 0;
}

int main(int argc, char **argv)
{
	double t0;
	int r;

	if (argc < 3 || argc > 5)
		goto usage;
	if (!strcmp(argv[1], "cpu") && argc == 3) {
		long long ns = sched_ns(argv[2]);

		if (ns >= 0)
			printf("%lld\n", ns / 1000);
		else
			printf("%ld\n", cpu_ms(argv[2]) * 1000);
		return 0;
	}
	if (!strcmp(argv[1], "mountinfo") && argc == 3)
		return read_mountinfo(atol(argv[2]));
	if (argc != 4 && !(argc == 5 && !strcmp(argv[1], "burst")))
		goto usage;
	if (bench_in_host_ns()) {
		fprintf(stderr, "bench-watch: not in a private mount namespace\n");
		return 1;
	}
	if (!strcmp(argv[1], "populate")) {
		char src[PATH_MAX];

		/* binds of a small tmpfs of its own: binding the one that
		 * holds the mount points is quadratic (bench/common.h) */
		snprintf(src, sizeof(src), "%s/src", argv[2]);
		mkdir(src, 0755);
		if (mount("bench-src", src, "tmpfs", 0, "size=4k"))
			return perror(src), 1;
		return binds(argv[2], "p", atol(argv[3]), 0);
	}
	if (!strcmp(argv[1], "burst")) {
		int up = 1, down = 1;

		if (argc == 5) {
			up = !strcmp(argv[4], "mount");
			down = !strcmp(argv[4], "umount");
			if (!up && !down)
				goto usage;
		}
		t0 = now_sec();
		r = (up && binds(argv[2], "b", atol(argv[3]), 0)) ||
		    (down && binds(argv[2], "b", atol(argv[3]), 1));
		printf("%.3f\n", now_sec() - t0);
		return r;
	}
usage:
	fprintf(stderr, "usage: bench-watch populate DIR N | burst DIR N "
			"[mount|umount] | cpu PID | mountinfo K\n");
	return 2;
}
