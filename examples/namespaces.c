// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * namespaces - every mount namespace this process can find, one per line:
 * its ID, its number of mounts, and its root mount's filesystem type and
 * source. Root finds them all (Linux 6.10+ for namespace IDs); others
 * find their own and those of the processes they may inspect.
 *
 *   cc namespaces.c $(pkg-config --cflags --libs mntkit) -o namespaces
 *   ./namespaces
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mntkit.h>

/* one namespace's line; 0, or a negative errno (nothing printed) */
static int print_ns(uint64_t ns_id)
{
	const uint64_t mask =
		MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_SB_SOURCE;
	MNTKIT_OPTS(opts, .mnt_ns_id = ns_id);
	struct mntkit_statmount *sm;
	const char *src;
	uint64_t *ids;
	ssize_t n;
	int err;

	/* tree order puts the namespace's root mount first */
	n = mntkit_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE, &opts, &ids);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ENOENT; /* emptied while we looked: it is going away */

	err = mntkit_stat(ids[0], mask, &opts, &sm);
	free(ids);
	if (err < 0)
		return err;

	src = mntkit_sm_get(sm, MNTKIT_FIELD_SB_SOURCE);
	printf("%-12" PRIu64 " %6zd  %-12s %s\n", ns_id, n,
	       mntkit_sm_get(sm, MNTKIT_FIELD_FS_TYPE), src ? src : "-");
	free(sm);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t *ns;
	ssize_t n;
	int ret = 0;

	if (argc != 1) {
		fprintf(stderr, "usage: %s\n", argv[0]);
		return 2;
	}

	n = mntkit_ns_list(&ns);
	if (n == -EOPNOTSUPP)
		errx(1, "mount namespace IDs need Linux 6.10 or later");
	if (n < 0)
		errx(1, "mntkit_ns_list: %s", strerror((int)-n));

	for (ssize_t i = 0; i < n; i++) {
		int err = print_ns(ns[i]);

		if (err == -ENOENT)
			continue; /* the namespace died since it was listed */
		if (err < 0) {
			warnx("namespace %" PRIu64 ": %s", ns[i],
			      strerror(-err));
			ret = 1;
		}
	}

	free(ns);
	return ret;
}
