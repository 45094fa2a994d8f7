// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ns-mounts - the mount tree of another process's mount namespace,
 * indented by depth (needs privilege over that namespace).
 *
 *   cc ns-mounts.c $(pkg-config --cflags --libs mntkit) -o ns-mounts
 *   ./ns-mounts $(pidof some-daemon)
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mntkit.h>

#define MAX_DEPTH 64

int main(int argc, char **argv)
{
	const uint64_t mask = MNTKIT_STATMOUNT_MNT_BASIC |
			      MNTKIT_STATMOUNT_MNT_POINT |
			      MNTKIT_STATMOUNT_FS_TYPE;
	uint64_t stack[MAX_DEPTH], ns_id, *ids;
	struct mntkit_statmount *sm = NULL;
	size_t smsize = 0;
	int depth = 0, ret = 0, err;
	ssize_t n;
	char *end;
	long pid;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PID\n", argv[0]);
		return 2;
	}
	errno = 0;
	pid = strtol(argv[1], &end, 10);
	if (errno || *end || end == argv[1] || pid <= 0 || pid > INT_MAX) {
		fprintf(stderr, "%s: not a PID\n", argv[1]);
		return 2;
	}

	/* every convenience takes the namespace in one options struct */
	MNTKIT_OPTS(opts, .pid = (pid_t)pid);

	err = mntkit_ns_id_from_pid((pid_t)pid, &ns_id);
	if (err == 0)
		printf("mount namespace %" PRIu64 " of PID %ld\n", ns_id, pid);

	/* depth-first: a parent comes before its children */
	n = mntkit_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE, &opts, &ids);
	if (n < 0) {
		fprintf(stderr, "PID %ld: %s\n", pid, strerror((int)-n));
		return 1;
	}

	for (ssize_t i = 0; i < n; i++) {
		const char *point, *type;

		err = mntkit_stat_buf(ids[i], mask, &opts, &sm, &smsize);
		if (err == -ENOENT)
			continue; /* gone since it was listed */
		if (err < 0) {
			fprintf(stderr, "mount %" PRIu64 ": %s\n", ids[i],
				strerror(-err));
			ret = 1;
			break;
		}
		/* pop until the top of the stack is this mount's parent */
		while (depth > 0 && stack[depth - 1] != sm->mnt_parent_id)
			depth--;
		if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &point))
			point = "(unreachable)";
		if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_FS_TYPE, &type))
			type = "?";
		printf("%*s%s [%s] %" PRIu64 "\n", 2 * depth, "", point, type,
		       sm->mnt_id);
		if (depth < MAX_DEPTH)
			stack[depth++] = sm->mnt_id;
	}

	free(sm);
	free(ids);
	return ret;
}
