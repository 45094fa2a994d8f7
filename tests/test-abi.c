/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-abi - the kernel ABI half of mntkit.h against the layout and the
 * constants of the merged kernel (shared/kernel-abi.md), and against the
 * running kernel itself.
 */
#include <linux/mount.h>
#include <sys/mount.h>

#include <mntkit.h>

#include "harness.h"
#include "test-abi-compat.h"

/* how this ABI aligns a u64 in a struct (not _Alignof(uint64_t), which
 * is 8 on i386 too) */
#define U64_MEMBER_ALIGN                                                       \
	offsetof(struct {                                                      \
		char c;                                                        \
		uint64_t v;                                                    \
	}, v)

#define FIELD(type, f, off, sz)                                                \
	do {                                                                   \
		T_EQ_U(offsetof(struct type, f), off);                         \
		T_EQ_U(sizeof(((struct type *)0)->f), sz);                     \
	} while (0)

T_CASE(statmount_offsets)
{
	FIELD(mntkit_statmount, size, 0, 4);
	FIELD(mntkit_statmount, mnt_opts, 4, 4);
	FIELD(mntkit_statmount, mask, 8, 8);
	FIELD(mntkit_statmount, sb_dev_major, 16, 4);
	FIELD(mntkit_statmount, sb_dev_minor, 20, 4);
	FIELD(mntkit_statmount, sb_magic, 24, 8);
	FIELD(mntkit_statmount, sb_flags, 32, 4);
	FIELD(mntkit_statmount, fs_type, 36, 4);
	FIELD(mntkit_statmount, mnt_id, 40, 8);
	FIELD(mntkit_statmount, mnt_parent_id, 48, 8);
	FIELD(mntkit_statmount, mnt_id_old, 56, 4);
	FIELD(mntkit_statmount, mnt_parent_id_old, 60, 4);
	FIELD(mntkit_statmount, mnt_attr, 64, 8);
	FIELD(mntkit_statmount, mnt_propagation, 72, 8);
	FIELD(mntkit_statmount, mnt_peer_group, 80, 8);
	FIELD(mntkit_statmount, mnt_master, 88, 8);
	FIELD(mntkit_statmount, propagate_from, 96, 8);
	FIELD(mntkit_statmount, mnt_root, 104, 4);
	FIELD(mntkit_statmount, mnt_point, 108, 4);
	FIELD(mntkit_statmount, mnt_ns_id, 112, 8);
	FIELD(mntkit_statmount, fs_subtype, 120, 4);
	FIELD(mntkit_statmount, sb_source, 124, 4);
	FIELD(mntkit_statmount, opt_num, 128, 4);
	FIELD(mntkit_statmount, opt_array, 132, 4);
	FIELD(mntkit_statmount, opt_sec_num, 136, 4);
	FIELD(mntkit_statmount, opt_sec_array, 140, 4);
	FIELD(mntkit_statmount, supported_mask, 144, 8);
	FIELD(mntkit_statmount, mnt_uidmap_num, 152, 4);
	FIELD(mntkit_statmount, mnt_uidmap, 156, 4);
	FIELD(mntkit_statmount, mnt_gidmap_num, 160, 4);
	FIELD(mntkit_statmount, mnt_gidmap, 164, 4);
	FIELD(mntkit_statmount, __spare2, 168, 43 * 8);
	T_EQ_U(offsetof(struct mntkit_statmount, str), 512);
}

T_CASE(statmount_field_signedness)
{
	struct mntkit_statmount sm;

	/* every field is unsigned, as the kernel's __u32/__u64 */
	memset(&sm, 0xff, sizeof(sm));
	T_ASSERT(sm.size > 0 && sm.mnt_opts > 0 && sm.mask > 0);
	T_ASSERT(sm.sb_flags > 0 && sm.mnt_id_old > 0 && sm.opt_num > 0);
	T_EQ_U(sm.mnt_id, UINT64_MAX);
	T_EQ_U(sm.mnt_id_old, UINT32_MAX);
}

T_CASE(mnt_id_req_offsets)
{
	FIELD(mntkit_mnt_id_req, size, 0, 4);
	FIELD(mntkit_mnt_id_req, mnt_ns_fd, 4, 4);
	FIELD(mntkit_mnt_id_req, mnt_id, 8, 8);
	FIELD(mntkit_mnt_id_req, param, 16, 8);
	FIELD(mntkit_mnt_id_req, mnt_ns_id, 24, 8);
}

T_CASE(sizes)
{
	T_EQ_U(sizeof(struct mntkit_statmount), 512);
	T_EQ_U(MNTKIT_STATMOUNT_FIXED_SIZE, 512);
	T_EQ_U(sizeof(struct mntkit_mnt_id_req), 32);
	T_EQ_U(MNTKIT_MNT_ID_REQ_SIZE_VER0, 24);
	T_EQ_U(MNTKIT_MNT_ID_REQ_SIZE_VER1, 32);
	T_EQ_U(MNTKIT_MNT_ID_REQ_SIZE_VER1, sizeof(struct mntkit_mnt_id_req));
	T_EQ_U(MNTKIT_MNT_ID_REQ_SIZE_VER0,
	       offsetof(struct mntkit_mnt_id_req, mnt_ns_id));
	/* the kernel's structs are made of plain __u64/__u32 at naturally
	 * aligned offsets: the same offsets and sizes on every ABI, and the
	 * alignment of a u64 member - 8 on x86-64, 4 on i386, whose compat
	 * statmount/listmount read the same layout */
	T_EQ_U(_Alignof(struct mntkit_statmount), U64_MEMBER_ALIGN);
	T_EQ_U(_Alignof(struct mntkit_mnt_id_req), U64_MEMBER_ALIGN);
}

T_CASE(mask_bits)
{
	static const struct {
		uint64_t v, want;
	} bits[] = {
		{MNTKIT_STATMOUNT_SB_BASIC, 0x1},
		{MNTKIT_STATMOUNT_MNT_BASIC, 0x2},
		{MNTKIT_STATMOUNT_PROPAGATE_FROM, 0x4},
		{MNTKIT_STATMOUNT_MNT_ROOT, 0x8},
		{MNTKIT_STATMOUNT_MNT_POINT, 0x10},
		{MNTKIT_STATMOUNT_FS_TYPE, 0x20},
		{MNTKIT_STATMOUNT_MNT_NS_ID, 0x40},
		{MNTKIT_STATMOUNT_MNT_OPTS, 0x80},
		{MNTKIT_STATMOUNT_FS_SUBTYPE, 0x100},
		{MNTKIT_STATMOUNT_SB_SOURCE, 0x200},
		{MNTKIT_STATMOUNT_OPT_ARRAY, 0x400},
		{MNTKIT_STATMOUNT_OPT_SEC_ARRAY, 0x800},
		{MNTKIT_STATMOUNT_SUPPORTED_MASK, 0x1000},
		{MNTKIT_STATMOUNT_MNT_UIDMAP, 0x2000},
		{MNTKIT_STATMOUNT_MNT_GIDMAP, 0x4000},
	};
	uint64_t all = 0;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		T_EQ_U(bits[i].v, bits[i].want);
		T_ASSERTF(!(all & bits[i].v), "bit %zu repeats", i);
		all |= bits[i].v;
	}
	T_EQ_U(all, 0x7fff);
	T_EQ_U(MNTKIT_STATMOUNT_ALL, 0x7fff);
	T_EQ_U(sizeof(MNTKIT_STATMOUNT_ALL), 8);
	T_EQ_U(sizeof(MNTKIT_STATMOUNT_SB_BASIC), 8);
}

T_CASE(listmount_constants)
{
	T_EQ_U(MNTKIT_LSMT_ROOT, 0xffffffffffffffffULL);
	T_EQ_U(sizeof(MNTKIT_LSMT_ROOT), 8);
	T_EQ_U(MNTKIT_LISTMOUNT_REVERSE, 1);
	T_EQ_U(MNTKIT_LISTMOUNT_MAX_NR, 1000000);
	T_EQ_U(MNTKIT_MNT_UNIQUE_ID_OFFSET, 2147483648ULL);
	T_EQ_U(MNTKIT_STATX_MNT_ID, 0x1000);
	T_EQ_U(MNTKIT_STATX_MNT_ID_UNIQUE, 0x4000);
	T_EQ_U(MNTKIT_STATX_MNT_ID, STATX_MNT_ID);
}

T_CASE(mount_attr_constants)
{
	T_EQ_U(MNTKIT_MOUNT_ATTR_RDONLY, 0x1);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NOSUID, 0x2);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NODEV, 0x4);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NOEXEC, 0x8);
	T_EQ_U(MNTKIT_MOUNT_ATTR__ATIME, 0x70);
	T_EQ_U(MNTKIT_MOUNT_ATTR_RELATIME, 0x0);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NOATIME, 0x10);
	T_EQ_U(MNTKIT_MOUNT_ATTR_STRICTATIME, 0x20);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NODIRATIME, 0x80);
	T_EQ_U(MNTKIT_MOUNT_ATTR_IDMAP, 0x100000);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NOSYMFOLLOW, 0x200000);
	/* and the system headers agree */
	T_EQ_U(MNTKIT_MOUNT_ATTR_RDONLY, MOUNT_ATTR_RDONLY);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NOSUID, MOUNT_ATTR_NOSUID);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NODEV, MOUNT_ATTR_NODEV);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NOEXEC, MOUNT_ATTR_NOEXEC);
	T_EQ_U(MNTKIT_MOUNT_ATTR__ATIME, MOUNT_ATTR__ATIME);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NOATIME, MOUNT_ATTR_NOATIME);
	T_EQ_U(MNTKIT_MOUNT_ATTR_STRICTATIME, MOUNT_ATTR_STRICTATIME);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NODIRATIME, MOUNT_ATTR_NODIRATIME);
	T_EQ_U(MNTKIT_MOUNT_ATTR_IDMAP, MOUNT_ATTR_IDMAP);
	T_EQ_U(MNTKIT_MOUNT_ATTR_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW);
}

T_CASE(propagation_and_sb_constants)
{
	T_EQ_U(MNTKIT_MS_UNBINDABLE, 0x20000);
	T_EQ_U(MNTKIT_MS_PRIVATE, 0x40000);
	T_EQ_U(MNTKIT_MS_SLAVE, 0x80000);
	T_EQ_U(MNTKIT_MS_SHARED, 0x100000);
	T_EQ_U(MNTKIT_MS_UNBINDABLE, MS_UNBINDABLE);
	T_EQ_U(MNTKIT_MS_PRIVATE, MS_PRIVATE);
	T_EQ_U(MNTKIT_MS_SLAVE, MS_SLAVE);
	T_EQ_U(MNTKIT_MS_SHARED, MS_SHARED);
	T_EQ_U(MNTKIT_SB_RDONLY, 1);
	T_EQ_U(MNTKIT_SB_SYNCHRONOUS, 16);
	T_EQ_U(MNTKIT_SB_DIRSYNC, 128);
	T_EQ_U(MNTKIT_SB_LAZYTIME, 1U << 25);
	T_EQ_U(MNTKIT_SB_RDONLY, MS_RDONLY);
	T_EQ_U(MNTKIT_SB_SYNCHRONOUS, MS_SYNCHRONOUS);
	T_EQ_U(MNTKIT_SB_DIRSYNC, MS_DIRSYNC);
	T_EQ_U(MNTKIT_SB_LAZYTIME, MS_LAZYTIME);
}

T_CASE(library_constants)
{
	T_EQ_U(MNTKIT_BACKEND_AUTO, 0);
	T_EQ_U(MNTKIT_BACKEND_NATIVE, 1);
	T_EQ_U(MNTKIT_BACKEND_MOUNTINFO, 2);
	T_EQ_U(MNTKIT_FIELD_FS_TYPE, 1);
	T_EQ_U(MNTKIT_FIELD_MNT_ROOT, 2);
	T_EQ_U(MNTKIT_FIELD_MNT_POINT, 3);
	T_EQ_U(MNTKIT_FIELD_MNT_OPTS, 4);
	T_EQ_U(MNTKIT_FIELD_FS_SUBTYPE, 5);
	T_EQ_U(MNTKIT_FIELD_SB_SOURCE, 6);
	T_EQ_U(MNTKIT_FIELD_OPT_ARRAY, 7);
	T_EQ_U(MNTKIT_FIELD_OPT_SEC_ARRAY, 8);
	T_EQ_U(MNTKIT_FIELD_MNT_UIDMAP, 9);
	T_EQ_U(MNTKIT_FIELD_MNT_GIDMAP, 10);
	T_EQ_U(MNTKIT_LIST_F_REVERSE, 1);
	T_EQ_U(MNTKIT_LIST_F_CHILDREN, 2);
	T_EQ_U(MNTKIT_LIST_F_TREE, 4);
	T_EQ_U(MNTKIT_LIST_F_REVERSE, MNTKIT_LISTMOUNT_REVERSE);
	T_EQ_U(MNTKIT_DECODE_F_PROC, 1);
	T_EQ_U(MNTKIT_FEAT_STATMOUNT | MNTKIT_FEAT_LISTMOUNT |
		       MNTKIT_FEAT_UNIQUE_IDS | MNTKIT_FEAT_STATX_UNIQUE |
		       MNTKIT_FEAT_HANDLE_UNIQUE | MNTKIT_FEAT_NS_ID |
		       MNTKIT_FEAT_REQ_NS_ID | MNTKIT_FEAT_REQ_NS_FD |
		       MNTKIT_FEAT_LIST_REVERSE | MNTKIT_FEAT_FANOTIFY_MNT |
		       MNTKIT_FEAT_NS_ITER,
	       0x7ff);
	/* the version macros exist and are numbers */
	T_ASSERT(MNTKIT_VERSION_MAJOR >= 0 && MNTKIT_VERSION_MINOR >= 0 &&
		 MNTKIT_VERSION_PATCH >= 0);
}

T_CASE(opts_macro)
{
	MNTKIT_OPTS(a);
	MNTKIT_OPTS(b, .mnt_ns_id = 42);
	MNTKIT_OPTS(c, .pid = 7, .mnt_ns_fd = 3);

	T_EQ_U(a.size, sizeof(struct mntkit_opts));
	T_EQ_U(a.mnt_ns_id, 0);
	T_EQ_U(a.mnt_ns_fd, 0);
	T_EQ_U(a.pid, 0);
	T_EQ_U(b.size, sizeof(struct mntkit_opts));
	T_EQ_U(b.mnt_ns_id, 42);
	T_EQ_U(b.pid, 0);
	T_EQ_U(c.size, sizeof(struct mntkit_opts));
	T_EQ_I(c.pid, 7);
	T_EQ_I(c.mnt_ns_fd, 3);
	T_EQ_U(c.mnt_ns_id, 0);
}

static void check_compat(const struct abi_compat *c)
{
	T_EQ_U(c->sm_size, 512);
	T_EQ_U(c->req_size, 32);
	T_EQ_U(c->off_str, 512);
	T_EQ_U(c->off_mnt_gidmap, 164);
	T_EQ_U(c->off_mnt_ns_id, 24);
	T_EQ_U(c->all, 0x7fff);
	T_EQ_U(c->lsmt_root, MNTKIT_LSMT_ROOT);
	T_EQ_U(c->sys_attr_rdonly, MNTKIT_MOUNT_ATTR_RDONLY);
	T_EQ_U(c->sys_attr_nosymfollow, MNTKIT_MOUNT_ATTR_NOSYMFOLLOW);
	T_EQ_U(c->sys_attr_idmap, MNTKIT_MOUNT_ATTR_IDMAP);
	T_EQ_U(c->sys_ms_shared, MNTKIT_MS_SHARED);
	T_EQ_U(c->sys_ms_slave, MNTKIT_MS_SLAVE);
	T_EQ_U(c->sys_ms_private, MNTKIT_MS_PRIVATE);
	T_EQ_U(c->sys_ms_unbindable, MNTKIT_MS_UNBINDABLE);
	T_EQ_U(c->sys_statx_mnt_id, MNTKIT_STATX_MNT_ID);
	if (c->sys_has_statmount) {
		/* the system's own struct statmount (newer headers) agrees */
		T_EQ_U(c->sys_statmount_size, 512);
		T_EQ_U(c->sys_off_mnt_ns_id, 112);
		T_EQ_U(c->sys_sb_basic, MNTKIT_STATMOUNT_SB_BASIC);
		if (c->sys_off_mnt_gidmap)
			T_EQ_U(c->sys_off_mnt_gidmap, 164);
		if (c->sys_lsmt_root)
			T_EQ_U(c->sys_lsmt_root, MNTKIT_LSMT_ROOT);
	}
}

T_CASE(compiles_after_system_headers)
{
	struct abi_compat c;

	memset(&c, 0, sizeof(c));
	abi_compat_before(&c);
	check_compat(&c);
}

T_CASE(compiles_before_system_headers)
{
	struct abi_compat c;

	memset(&c, 0, sizeof(c));
	abi_compat_after(&c);
	check_compat(&c);
}

/* the layout against the running kernel: fill the struct by the raw call */
T_CASE(layout_matches_running_kernel)
{
	struct mntkit_mnt_id_req req;
	struct mntkit_statmount sm;
	struct statfs sfs;
	struct statx stx;
	uint64_t uniq, old, k;

	t_require_statmount();
	t_statx_ids(AT_FDCWD, "/", 0, &uniq, &old);
	memset(&stx, 0, sizeof(stx));
	T_OK(statx(AT_FDCWD, "/", 0, STATX_BASIC_STATS, &stx));
	T_OK(statfs("/", &sfs));

	memset(&req, 0, sizeof(req));
	req.size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
	req.mnt_id = uniq;
	req.param = MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_BASIC |
		    MNTKIT_STATMOUNT_MNT_NS_ID |
		    MNTKIT_STATMOUNT_SUPPORTED_MASK;
	k = t_kernel_groups();
	memset(&sm, 0xa5, sizeof(sm));
	T_OK(t_sys_statmount(&req, &sm, sizeof(sm), 0));
	T_EQ_U(sm.size, 512);
	/* a group the kernel lacks is not in the reply */
	T_EQ_U(sm.mask, req.param & k);
	T_EQ_U(sm.mnt_id, uniq);
	T_EQ_U(sm.mnt_id_old, old);
	T_EQ_U(sm.sb_dev_major, stx.stx_dev_major);
	T_EQ_U(sm.sb_dev_minor, stx.stx_dev_minor);
	T_EQ_U(sm.sb_magic, (uint64_t)sfs.f_type);
	if (k & MNTKIT_STATMOUNT_MNT_NS_ID)
		T_EQ_U(sm.mnt_ns_id, t_ns_id(0));
	if (k & MNTKIT_STATMOUNT_SUPPORTED_MASK)
		T_EQ_U(sm.supported_mask | MNTKIT_STATMOUNT_SUPPORTED_MASK,
		       k);
	T_ASSERT(sm.mnt_id > MNTKIT_MNT_UNIQUE_ID_OFFSET);
	T_ASSERT(sm.mnt_id_old <= MNTKIT_MNT_UNIQUE_ID_OFFSET);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
