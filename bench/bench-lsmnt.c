// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench-lsmnt - the helpers of bench/lsmnt.sh.
 *
 *   bench-lsmnt bare [MASK]
 *	the bare system-call loop, as a process of its own (so that it is
 *	timed like lsmnt and findmnt): raw listmount(2) in pages of 4096 IDs
 *	and raw statmount(2) of the groups MASK (a number, 0x.. too; default
 *	every group) into one fixed 1 MiB buffer per mount; prints the
 *	number of mounts.
 *
 *   bench-lsmnt run TIMEOUT CMD [ARG...]
 *	run CMD with its output to /dev/null and print "WALL MAXRSS CUT
 *	CPU": wall seconds, peak RSS in KiB (wait4(2); this launcher is
 *	small, so the high-water mark carried over exec is small too), 1
 *	when it was killed after TIMEOUT seconds, and the CPU seconds (user
 *	and system) of CMD and what it waited for.
 *
 *   bench-lsmnt grow DIR N1[,N2...] -- CMD [ARG...]
 *	in the current mount namespace, which must not be the initial one
 *	(bench/lsmnt.sh runs it under "unshare -m --propagation private"):
 *	mount a tmpfs on DIR and a second one on DIR/src, then for each Nk
 *	add bind mounts of DIR/src on DIR/0 ... DIR/Nk-1 and run CMD with
 *	BENCH_N=Nk in its environment. Stops at the first Nk the mount table
 *	cannot take (fs.mount-max).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mntkit.h"
#include "common.h"

/*
 * raw listmount(2) in pages, raw statmount(2) of every group into one
 * fixed buffer (common.h); prints how many statmount calls succeeded
 */
static int bare(const char *maskarg)
{
	uint64_t mask = MNTKIT_STATMOUNT_ALL;
	struct result res = {0};
	uint64_t *ids = NULL;
	size_t cap = 0;
	ssize_t n;

	if (maskarg) {
		char *end;

		errno = 0;
		mask = strtoull(maskarg, &end, 0);
		if (errno || end == maskarg || *end) {
			fprintf(stderr, "bench-lsmnt bare: bad mask '%s'\n",
				maskarg);
			return 2;
		}
	}
	n = bench_bare_listmount(&ids, &cap);
	if (n < 0) {
		errno = (int)-n;
		perror("bench-lsmnt bare: listmount");
		free(ids);
		return 1;
	}
	bench_bare_statmount_mask(ids, (size_t)n, mask, &res);
	printf("%ld\n", res.mounts - res.failed);
	free(ids);
	return 0;
}

static int run_cmd(char **argv, long n)
{
	char env[32];
	int status;
	pid_t pid;

	snprintf(env, sizeof(env), "%ld", n);
	setenv("BENCH_N", env, 1);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int grow(int argc, char **argv)
{
	const char *dir, *p;
	char src[PATH_MAX];
	long have = 0;
	char **cmd;

	if (argc < 5 || strcmp(argv[3], "--")) {
		fprintf(stderr,
			"usage: bench-lsmnt grow DIR N1[,N2...] -- CMD...\n");
		return 2;
	}
	dir = argv[1];
	cmd = argv + 4;
	if (!bench_in_private_mntns()) {
		fprintf(stderr, "bench-lsmnt: refusing to mount in the initial "
				"mount namespace (run under unshare -m)\n");
		return 2;
	}
	if (bench_table_start("bench-lsmnt", dir, "bench-lsmnt",
			      "size=64m,nr_inodes=1000000", src, sizeof(src)))
		return 1;
	for (p = argv[2]; *p;) {
		char *end;
		long want = strtol(p, &end, 10);

		if (end == p || want < 0) {
			fprintf(stderr, "bench-lsmnt: bad size list '%s'\n",
				argv[2]);
			return 2;
		}
		if (have < want) {
			have += bench_bind("bench-lsmnt", src, dir, have, want);
			if (have < want) {
				fprintf(stderr,
					"bench-lsmnt: %ld bind mounts; "
					"stopping there\n",
					have);
				return 0;
			}
		}
		if (run_cmd(cmd, have) != 0)
			return 1;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

static int run_timed(int argc, char **argv)
{
	struct rusage ru;
	double t0, limit;
	int status, cut = 0;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: bench-lsmnt run TIMEOUT CMD...\n");
		return 2;
	}
	limit = atof(argv[1]);
	t0 = now_sec();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	for (;;) {
		pid_t got = wait4(pid, &status, WNOHANG, &ru);

		if (got == pid)
			break;
		if (got < 0)
			return 1;
		if (!cut && now_sec() - t0 > limit) {
			kill(pid, SIGKILL);
			cut = 1;
		}
		usleep(now_sec() - t0 < 1 ? 200 : 20000);
	}
	printf("%.6f %ld %d %.6f\n", now_sec() - t0, ru.ru_maxrss, cut,
	       tv_sec(&ru.ru_utime) + tv_sec(&ru.ru_stime));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run_timed(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "bare"))
		return bare(argc >= 3 ? argv[2] : NULL);
	if (argc >= 2 && !strcmp(argv[1], "grow"))
		return grow(argc - 1, argv + 1);
	fprintf(stderr, "usage: bench-lsmnt bare [MASK]\n"
			"       bench-lsmnt run TIMEOUT CMD...\n"
			"       bench-lsmnt grow DIR N1[,N2...] -- CMD...\n");
	return 2;
}
