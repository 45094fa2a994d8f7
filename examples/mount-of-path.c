// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mount-of-path - which mount a path is on, and how it is mounted.
 *
 *   cc mount-of-path.c $(pkg-config --cflags --libs mntkit) -o mount-of-path
 *   ./mount-of-path /home
 */
#include <fcntl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mntkit.h>

static void print_str(const struct mntkit_statmount *sm, enum mntkit_field f)
{
	const char *s;
	int err = mntkit_sm_str(sm, sm->size, f, &s);

	/* -ENODATA: the kernel had nothing to say (no subtype, no options) */
	printf("%-12s %s\n", mntkit_field_name(f),
	       err == 0		 ? s
	       : err == -ENODATA ? "-"
				 : strerror(-err));
}

int main(int argc, char **argv)
{
	struct mntkit_statmount *sm;
	char words[256];
	ssize_t nopts;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH\n", argv[0]);
		return 2;
	}

	err = mntkit_stat_path(AT_FDCWD, argv[1], 0, MNTKIT_STATMOUNT_ALL, &sm);
	if (err < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-err));
		return 1;
	}

	printf("%-12s %" PRIu64 " (parent %" PRIu64 ")\n", "mnt_id", sm->mnt_id,
	       sm->mnt_parent_id);
	print_str(sm, MNTKIT_FIELD_MNT_POINT);
	print_str(sm, MNTKIT_FIELD_MNT_ROOT);
	print_str(sm, MNTKIT_FIELD_FS_TYPE);
	print_str(sm, MNTKIT_FIELD_FS_SUBTYPE);
	print_str(sm, MNTKIT_FIELD_SB_SOURCE);

	/* flags decoded to the words of /proc/self/mountinfo and findmnt */
	mntkit_attr_str(sm->mnt_attr, 0, words, sizeof(words));
	printf("%-12s %s\n", "mount", words);
	mntkit_sb_flags_str(sm->sb_flags, 0, words, sizeof(words));
	printf("%-12s %s\n", "superblock", words);
	mntkit_propagation_str(sm->mnt_propagation, 0, words, sizeof(words));
	printf("%-12s %s\n", "propagation", words);

	/* the filesystem's own options, split and unescaped */
	nopts = mntkit_sm_strv(sm, sm->size, MNTKIT_FIELD_OPT_ARRAY, NULL, 0);
	if (nopts > 0) {
		const char **opts = calloc((size_t)nopts, sizeof(*opts));

		if (opts && mntkit_sm_strv(sm, sm->size, MNTKIT_FIELD_OPT_ARRAY,
					   opts, (size_t)nopts) == nopts)
			for (ssize_t i = 0; i < nopts; i++)
				printf("%-12s %s\n", i ? "" : "fs options",
				       opts[i]);
		free(opts);
	}

	free(sm);
	return 0;
}
