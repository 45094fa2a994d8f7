// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Filesystem type name -> superblock magic (sb->s_magic), for the mounts
 * whose magic statfs(2) cannot tell: a mount point that does not resolve
 * to the mount (overmounted, stacked, deleted), or a filesystem whose
 * statfs asks a server or reports another value.
 *
 * Only types whose s_magic is one fixed value, set by the filesystem's
 * fill_super, are listed (values of <linux/magic.h> and the filesystems'
 * sources). Left out on purpose: rootfs and devtmpfs (ramfs or tmpfs by
 * kernel configuration), minix (one magic per on-disk version), and every
 * type not listed here: for those the emulation reports SB_BASIC only when
 * statfs on a verified mount point gives the value.
 *
 * Served filesystems (statfs_ok 0 here, or in served_only[]): a server or
 * daemon answers for them, so a lookup through them, or their statfs, can
 * block for as long as it does not answer. The emulation never resolves a
 * path through one (emul-ids.c: mntkit__emul_mark_served_paths()).
 */
#include <string.h>

#include "internal.h"
#include "mountinfo.h"

struct fs_magic {
	const char *name;
	uint64_t magic;
	int statfs_ok;
};

/* sorted by name (strcmp order) */
static const struct fs_magic table[] = {
	{ "9p", 0x01021997, 0 },          /* f_type is the server's */
	{ "adfs", 0xadf5, 1 },
	{ "affs", 0xadff, 1 },
	{ "afs", 0x6b414653, 0 },
	{ "autofs", 0x0187, 1 },
	{ "binder", 0x6c6f6f70, 1 },
	{ "binfmt_misc", 0x42494e4d, 1 },
	{ "bpf", 0xcafe4a11, 1 },
	{ "btrfs", 0x9123683e, 1 },
	{ "ceph", 0x00c36400, 0 },
	{ "cgroup", 0x0027e0eb, 1 },
	{ "cgroup2", 0x63677270, 1 },
	{ "cifs", 0xff534d42, 0 },
	{ "coda", 0x73757245, 0 },
	{ "configfs", 0x62656570, 1 },
	{ "cramfs", 0x28cd3d45, 1 },
	{ "debugfs", 0x64626720, 1 },
	{ "devpts", 0x1cd1, 1 },
	{ "ecryptfs", 0xf15f, 1 },
	{ "efivarfs", 0xde5e81e4, 1 },
	{ "efs", 0x00414a53, 1 },
	{ "erofs", 0xe0f5e1e2, 1 },
	{ "exfat", 0x2011bab0, 1 },
	{ "ext2", 0xef53, 1 },
	{ "ext3", 0xef53, 1 },
	{ "ext4", 0xef53, 1 },
	{ "f2fs", 0xf2f52010, 1 },
	{ "fuse", 0x65735546, 0 },        /* statfs asks the daemon */
	{ "fuseblk", 0x65735546, 0 },
	{ "fusectl", 0x65735543, 1 },
	{ "gfs2", 0x01161970, 1 },
	{ "hfs", 0x4244, 1 },
	{ "hfsplus", 0x482b, 1 },
	{ "hostfs", 0x00c0ffee, 1 },
	{ "hpfs", 0xf995e849, 1 },
	{ "hugetlbfs", 0x958458f6, 1 },
	{ "iso9660", 0x9660, 1 },
	{ "jffs2", 0x72b6, 1 },
	{ "jfs", 0x3153464a, 1 },
	{ "mqueue", 0x19800202, 1 },
	{ "msdos", 0x4d44, 1 },
	{ "nfs", 0x6969, 0 },
	{ "nfs4", 0x6969, 0 },
	{ "nfsd", 0x6e667364, 1 },
	{ "nilfs2", 0x3434, 1 },
	{ "nsfs", 0x6e736673, 1 },
	{ "ocfs2", 0x7461636f, 1 },
	{ "openpromfs", 0x9fa1, 1 },
	{ "overlay", 0x794c7630, 1 },
	{ "proc", 0x9fa0, 1 },
	{ "pstore", 0x6165676c, 1 },
	{ "qnx4", 0x002f, 1 },
	{ "qnx6", 0x68191122, 1 },
	{ "ramfs", 0x858458f6, 1 },
	{ "reiserfs", 0x52654973, 1 },
	{ "romfs", 0x7275, 1 },
	{ "rpc_pipefs", 0x67596969, 1 },
	{ "securityfs", 0x73636673, 1 },
	{ "selinuxfs", 0xf97cff8c, 1 },
	{ "smackfs", 0x43415d53, 1 },
	{ "smb3", 0xff534d42, 0 },
	{ "squashfs", 0x73717368, 1 },
	{ "sysfs", 0x62656572, 1 },
	{ "tmpfs", 0x01021994, 1 },
	{ "tracefs", 0x74726163, 1 },
	{ "udf", 0x15013346, 1 },
	{ "vboxsf", 0x786f4256, 0 },
	{ "vfat", 0x4d44, 1 },
	{ "virtiofs", 0x65735546, 0 },
	{ "xfs", 0x58465342, 1 },
	{ "zonefs", 0x5a4f4653, 1 },
};

/*
 * Served types whose magic is not fixed or not known here: never looked
 * at, like the served types of table[]. Sorted by name.
 */
static const char *const served_only[] = {
	"beegfs", "gpfs", "lustre", "ncp", "ncpfs", "orangefs", "pvfs2",
	"smbfs",
};

static int cmp_name(const char *name, size_t len, const char *entry)
{
	size_t el = strlen(entry);
	int c = memcmp(name, entry, len < el ? len : el);

	if (c)
		return c;
	return len < el ? -1 : len > el;
}

int mntkit__fs_magic(const char *type, size_t len, uint64_t *magic,
		     int *statfs_ok)
{
	size_t lo = 0, hi = MNTKIT_ARRAY_SIZE(table);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_name(type, len, table[mid].name);

		if (!c) {
			*magic = table[mid].magic;
			*statfs_ok = table[mid].statfs_ok;
			return 1;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*statfs_ok = 1;
	lo = 0;
	hi = MNTKIT_ARRAY_SIZE(served_only);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_name(type, len, served_only[mid]);

		if (!c) {
			*statfs_ok = 0;
			break;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}
