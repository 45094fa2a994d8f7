/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mntkit.h before the system's mount and stat headers. */
#include <mntkit.h>

#include <fcntl.h>
#include <linux/mount.h>
#include <linux/stat.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <mntkit.h>

#include "test-abi-compat.h"

void abi_compat_after(struct abi_compat *c)
{
	c->sm_size = sizeof(struct mntkit_statmount);
	c->req_size = sizeof(struct mntkit_mnt_id_req);
	c->off_str = offsetof(struct mntkit_statmount, str);
	c->off_mnt_gidmap = offsetof(struct mntkit_statmount, mnt_gidmap);
	c->off_mnt_ns_id = offsetof(struct mntkit_mnt_id_req, mnt_ns_id);
	c->all = MNTKIT_STATMOUNT_ALL;
	c->lsmt_root = MNTKIT_LSMT_ROOT;
	c->sys_attr_rdonly = MOUNT_ATTR_RDONLY;
	c->sys_attr_nosymfollow = MOUNT_ATTR_NOSYMFOLLOW;
	c->sys_attr_idmap = MOUNT_ATTR_IDMAP;
	c->sys_ms_shared = MS_SHARED;
	c->sys_ms_slave = MS_SLAVE;
	c->sys_ms_private = MS_PRIVATE;
	c->sys_ms_unbindable = MS_UNBINDABLE;
	c->sys_statx_mnt_id = STATX_MNT_ID;
#ifdef STATMOUNT_SB_BASIC
	c->sys_has_statmount = 1;
	c->sys_statmount_size = sizeof(struct statmount);
	c->sys_off_mnt_ns_id = offsetof(struct statmount, mnt_ns_id);
	c->sys_sb_basic = STATMOUNT_SB_BASIC;
#endif
#ifdef STATMOUNT_MNT_GIDMAP
	c->sys_off_mnt_gidmap = offsetof(struct statmount, mnt_gidmap);
#endif
#ifdef LSMT_ROOT
	c->sys_lsmt_root = LSMT_ROOT;
#endif
}
