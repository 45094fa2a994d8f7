/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* what the compatibility translation units of test-abi saw */
#ifndef MNTKIT_TEST_ABI_COMPAT_H
#define MNTKIT_TEST_ABI_COMPAT_H

#include <stddef.h>
#include <stdint.h>

struct abi_compat {
	size_t sm_size, req_size, off_str, off_mnt_gidmap, off_mnt_ns_id;
	uint64_t all, lsmt_root;
	uint64_t sys_attr_rdonly, sys_attr_nosymfollow, sys_attr_idmap;
	uint64_t sys_ms_shared, sys_ms_slave, sys_ms_private, sys_ms_unbindable;
	uint64_t sys_statx_mnt_id;
	int sys_has_statmount;
	size_t sys_statmount_size, sys_off_mnt_ns_id, sys_off_mnt_gidmap;
	uint64_t sys_sb_basic, sys_lsmt_root;
};

void abi_compat_before(struct abi_compat *c);
void abi_compat_after(struct abi_compat *c);

#endif
