// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The statmount groups, in one table (groups.h): what each bit is called,
 * which fields of the fixed part it fills or which string it writes, and
 * the order in which the kernel writes the strings.
 */
#include "groups.h"

#define SM_OFF(f) offsetof(struct mntkit_statmount, f)
#define IDX(flag) __builtin_ctzll(MNTKIT_STATMOUNT_##flag)

/* a fixed group: its fields from @first up to (not including) @end */
#define FIXED(flag, nm, first, end)                                           \
	[IDX(flag)] = { MNTKIT_STATMOUNT_##flag, nm, SM_OFF(first),            \
			SM_OFF(end) - SM_OFF(first), 0, 0 }
#define FIXED64(flag, nm, f)                                                   \
	[IDX(flag)] = { MNTKIT_STATMOUNT_##flag, nm, SM_OFF(f),                \
			sizeof(uint64_t), 0, 0 }
#define STR(flag, nm, f)                                                       \
	[IDX(flag)] = { MNTKIT_STATMOUNT_##flag, nm, SM_OFF(f), 0, 0,          \
			MNTKIT_FIELD_##flag }
#define STRV(flag, nm, f, num)                                                 \
	[IDX(flag)] = { MNTKIT_STATMOUNT_##flag, nm, SM_OFF(f), 0,             \
			SM_OFF(num), MNTKIT_FIELD_##flag }

const struct mntkit__group mntkit__groups[MNTKIT__NGROUPS] = {
	FIXED(SB_BASIC, "sb_basic", sb_dev_major, fs_type),
	FIXED(MNT_BASIC, "mnt_basic", mnt_id, propagate_from),
	FIXED64(PROPAGATE_FROM, "propagate_from", propagate_from),
	STR(MNT_ROOT, "mnt_root", mnt_root),
	STR(MNT_POINT, "mnt_point", mnt_point),
	STR(FS_TYPE, "fs_type", fs_type),
	FIXED64(MNT_NS_ID, "mnt_ns_id", mnt_ns_id),
	STR(MNT_OPTS, "mnt_opts", mnt_opts),
	STR(FS_SUBTYPE, "fs_subtype", fs_subtype),
	STR(SB_SOURCE, "sb_source", sb_source),
	STRV(OPT_ARRAY, "opt_array", opt_array, opt_num),
	STRV(OPT_SEC_ARRAY, "opt_sec_array", opt_sec_array, opt_sec_num),
	FIXED64(SUPPORTED_MASK, "supported_mask", supported_mask),
	STRV(MNT_UIDMAP, "mnt_uidmap", mnt_uidmap, mnt_uidmap_num),
	STRV(MNT_GIDMAP, "mnt_gidmap", mnt_gidmap, mnt_gidmap_num),
};

_Static_assert(MNTKIT_STATMOUNT_ALL == (1ULL << MNTKIT__NGROUPS) - 1,
	       "a group of the ABI is not in the table");

const struct mntkit__group *const mntkit__str_groups[MNTKIT__NSTR_GROUPS] = {
	&mntkit__groups[IDX(FS_TYPE)],
	&mntkit__groups[IDX(MNT_ROOT)],
	&mntkit__groups[IDX(MNT_POINT)],
	&mntkit__groups[IDX(MNT_OPTS)],
	&mntkit__groups[IDX(OPT_ARRAY)],
	&mntkit__groups[IDX(OPT_SEC_ARRAY)],
	&mntkit__groups[IDX(FS_SUBTYPE)],
	&mntkit__groups[IDX(SB_SOURCE)],
	&mntkit__groups[IDX(MNT_UIDMAP)],
	&mntkit__groups[IDX(MNT_GIDMAP)],
};

const struct mntkit__group *mntkit__group(uint64_t flag)
{
	if (!flag || (flag & (flag - 1)) || flag > MNTKIT_STATMOUNT_ALL)
		return NULL;
	return &mntkit__groups[__builtin_ctzll(flag)];
}

/* the group of each string field, for a lookup per cell of lsmnt's */
#define FIELD(flag) [MNTKIT_FIELD_##flag] = &mntkit__groups[IDX(flag)]

static const struct mntkit__group *const by_field[] = {
	FIELD(FS_TYPE),	      FIELD(MNT_ROOT),	    FIELD(MNT_POINT),
	FIELD(MNT_OPTS),      FIELD(FS_SUBTYPE),    FIELD(SB_SOURCE),
	FIELD(OPT_ARRAY),     FIELD(OPT_SEC_ARRAY), FIELD(MNT_UIDMAP),
	FIELD(MNT_GIDMAP),
};

_Static_assert(sizeof(by_field) / sizeof(by_field[0]) ==
		       MNTKIT__NSTR_GROUPS + 1,
	       "a string group has no field, or a field no group");

const struct mntkit__group *mntkit__field_group(enum mntkit_field field)
{
	if ((unsigned int)field >= sizeof(by_field) / sizeof(by_field[0]))
		return NULL;
	return by_field[field]; /* NULL for 0 */
}
