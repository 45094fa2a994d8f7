/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libmntkit: the record comparison shared by diffs (diff.c) and
 * watches (watch.c).
 */
#ifndef MNTKIT_DIFF_H
#define MNTKIT_DIFF_H

#include "mntkit.h"

/* what mntkit__sm_compare() found */
enum mntkit__same {
	MNTKIT__SAME_MOUNT = 0,  /* same mount; *changed says what changed */
	MNTKIT__OTHER_MOUNT = 1, /* a reused ID: another mount */
};

/*
 * Compare two records of the same ID. Returns MNTKIT__OTHER_MOUNT when they
 * cannot be the same mount (see mntkit_diff() in mntkit.h), else
 * MNTKIT__SAME_MOUNT and the MNTKIT_CHANGED_* bits in *@changed; 0 means
 * byte-identical records.
 */
enum mntkit__same mntkit__sm_compare(const struct mntkit_statmount *a,
				     const struct mntkit_statmount *b,
				     uint32_t *changed);

/* the kind of event for a same-mount pair: MOVE, CHANGE, or 0 for none */
enum mntkit_event_kind mntkit__changed_kind(uint32_t changed);

#endif
