// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tree - the mount tree of a namespace, indented by depth: a parent before
 * its children, siblings by ascending mount ID (like `findmnt`'s tree).
 *
 *   cc tree.c $(pkg-config --cflags --libs mntkit) -o tree
 *   ./tree            this process's namespace, from its root
 *   ./tree -a         from the namespace's true root, above a chroot
 *                     (CAP_SYS_ADMIN)
 *   ./tree PID        the namespace of process PID (CAP_SYS_ADMIN)
 *
 * One snapshot (mntkit_table_new) holds every mount with its parent and
 * children; the walk needs neither recursion nor a stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
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

static void print_mount(const struct mntkit_table *t, size_t i)
{
	const struct mntkit_statmount *sm = mntkit_table_get(t, i);
	int indent = (int)(2 * mntkit_table_depth(t, i));

	printf("%*s%s  %s  %s  [%" PRIu64 "]\n", indent, "",
	       field(sm, MNTKIT_FIELD_MNT_POINT, "(unreachable)"),
	       field(sm, MNTKIT_FIELD_SB_SOURCE, "-"),
	       field(sm, MNTKIT_FIELD_FS_TYPE, "?"), sm->mnt_id);
}

int main(int argc, char **argv)
{
	const uint64_t mask = MNTKIT_STATMOUNT_MNT_POINT |
			      MNTKIT_STATMOUNT_FS_TYPE |
			      MNTKIT_STATMOUNT_SB_SOURCE;
	MNTKIT_OPTS(opts);
	unsigned int flags = 0;
	struct mntkit_table *t;
	int i, err;

	for (i = 1; i < argc; i++) {
		char *end;
		long pid;

		if (!strcmp(argv[i], "-a")) {
			flags |= MNTKIT_TABLE_F_UNREACHABLE;
			continue;
		}
		errno = 0;
		pid = strtol(argv[i], &end, 10);
		if (errno || *end || end == argv[i] || pid <= 0 ||
		    pid > INT_MAX || opts.pid) {
			fprintf(stderr, "usage: %s [-a] [PID]\n", argv[0]);
			return 2;
		}
		opts.pid = (pid_t)pid;
	}

	err = mntkit_table_new(mask, flags, &opts, &t);
	if (err < 0 && opts.pid) {
		fprintf(stderr, "PID %d: %s\n", (int)opts.pid, strerror(-err));
		return 1;
	}
	if (err < 0) {
		fprintf(stderr, "mntkit_table_new: %s\n", strerror(-err));
		return 1;
	}

	/* pre-order: the first child, else the next sibling of the nearest
	 * mount on the way up that has one; the roots are siblings too */
	for (ssize_t m = mntkit_table_first_root(t); m >= 0;) {
		ssize_t next;

		print_mount(t, (size_t)m);
		next = mntkit_table_first_child(t, (size_t)m);
		while (next < 0 && m >= 0) {
			next = mntkit_table_next_sibling(t, (size_t)m);
			m = mntkit_table_parent(t, (size_t)m);
		}
		m = next;
	}

	mntkit_table_free(t);
	return 0;
}
