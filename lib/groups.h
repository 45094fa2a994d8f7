/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * groups.h - the statmount groups (lib/groups.c): the one table of their
 * bits, names, fields and strings that every user derives from (the
 * names of mntkit_mask_name(), the fields of mntkit_sm_str(), the native
 * backend's string offsets, the emulation's reply writer).
 */
#ifndef MNTKIT_GROUPS_H
#define MNTKIT_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include <mntkit.h>

struct mntkit__group {
	uint64_t flag;		 /* MNTKIT_STATMOUNT_*, 1 << its index */
	const char *name;	 /* "sb_basic", ... (mntkit_mask_name()) */
	size_t off;		 /* a fixed group: its first field; a string
				    group: its u32 offset into str */
	size_t len;		 /* a fixed group: its bytes; 0: strings */
	size_t num_off;		 /* a [strv] group: its u32 count, else 0 */
	enum mntkit_field field; /* a string group: its field, else 0 */
};

/* every group, by bit number: mntkit__groups[i].flag == 1ULL << i */
#define MNTKIT__NGROUPS 15
extern const struct mntkit__group mntkit__groups[MNTKIT__NGROUPS];

/* the string groups, in the order the kernel writes them into str */
#define MNTKIT__NSTR_GROUPS 10
extern const struct mntkit__group *const
	mntkit__str_groups[MNTKIT__NSTR_GROUPS];

/* the groups that need the string area (the kernel's STATMOUNT_STRING_REQ) */
#define MNTKIT__STRING_GROUPS                                                  \
	(MNTKIT_STATMOUNT_MNT_ROOT | MNTKIT_STATMOUNT_MNT_POINT |              \
	 MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_MNT_OPTS |                \
	 MNTKIT_STATMOUNT_FS_SUBTYPE | MNTKIT_STATMOUNT_SB_SOURCE |            \
	 MNTKIT_STATMOUNT_OPT_ARRAY | MNTKIT_STATMOUNT_OPT_SEC_ARRAY |         \
	 MNTKIT_STATMOUNT_MNT_UIDMAP | MNTKIT_STATMOUNT_MNT_GIDMAP)

/* the group of one bit @flag, or NULL */
const struct mntkit__group *mntkit__group(uint64_t flag);

/* the string group whose field is @field, or NULL */
const struct mntkit__group *mntkit__field_group(enum mntkit_field field);

#endif /* MNTKIT_GROUPS_H */
