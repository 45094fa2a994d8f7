// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * list-mounts - every mount of this process's namespace: ID, mount point,
 * filesystem type and source, one per line.
 *
 *   cc list-mounts.c $(pkg-config --cflags --libs mntkit) -o list-mounts
 *   ./list-mounts
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mntkit.h>

/* a string field, or @dflt when the reply does not carry it */
static const char *field(const struct mntkit_statmount *sm, enum mntkit_field f,
			 const char *dflt)
{
	const char *s;

	return mntkit_sm_str(sm, sm->size, f, &s) == 0 ? s : dflt;
}

int main(int argc, char **argv)
{
	const uint64_t mask =
		MNTKIT_STATMOUNT_MNT_BASIC | MNTKIT_STATMOUNT_MNT_POINT |
		MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_SB_SOURCE;
	struct mntkit_statmount *sm = NULL;
	size_t smsize = 0;
	uint64_t *ids;
	ssize_t n;
	int ret = 0;

	if (argc != 1) {
		fprintf(stderr, "usage: %s\n", argv[0]);
		return 2;
	}

	/* every mount, the root included, by ascending ID */
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	if (n < 0) {
		fprintf(stderr, "mntkit_list: %s\n", strerror((int)-n));
		return 1;
	}

	for (ssize_t i = 0; i < n; i++) {
		/* one buffer for all mounts, grown when a reply needs more */
		int err = mntkit_stat_buf(ids[i], mask, NULL, &sm, &smsize);

		if (err == -ENOENT)
			continue; /* unmounted since it was listed */
		if (err < 0) {
			fprintf(stderr, "mount %" PRIu64 ": %s\n", ids[i],
				strerror(-err));
			ret = 1;
			continue;
		}
		printf("%-12" PRIu64 " %-40s %-12s %s\n", sm->mnt_id,
		       field(sm, MNTKIT_FIELD_MNT_POINT, "(unreachable)"),
		       field(sm, MNTKIT_FIELD_FS_TYPE, "?"),
		       field(sm, MNTKIT_FIELD_SB_SOURCE, "-"));
	}

	free(sm);
	free(ids);
	return ret;
}
