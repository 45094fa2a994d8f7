/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mntkit/abi.h - the kernel's listmount(2)/statmount(2) ABI under MNTKIT_
 * names: struct mntkit_mnt_id_req, struct mntkit_statmount and their
 * constants, byte for byte those of the merged kernel (6.18), so that
 * they compile next to any version of <linux/mount.h>: one that has none
 * of these definitions (Linux < 6.8 headers, e.g. Debian 12), some, or
 * all. mntkit.h includes it; it stands alone too.
 */
#ifndef MNTKIT_ABI_H
#define MNTKIT_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * struct mntkit_statmount ends in a flexible array member: ISO C, and in
 * C++ an extension g++ and clang++ have; said so, for -pedantic.
 */
#if defined(__cplusplus) && defined(__GNUC__)
#define MNTKIT__FLEX __extension__
#else
#define MNTKIT__FLEX
#endif


/*
 * struct mntkit_mnt_id_req - the request of both system calls
 * (the kernel's struct mnt_id_req).
 *
 * @size:      sizeof the struct passed: MNTKIT_MNT_ID_REQ_SIZE_VER0 (24) or
 *             MNTKIT_MNT_ID_REQ_SIZE_VER1 (32). A larger struct is accepted
 *             when its tail is zero.
 * @mnt_ns_fd: fd of a mount namespace (/proc/PID/ns/mnt), 0 for none (6.18+).
 *             Not together with @mnt_ns_id. With statmount's flag
 *             MNTKIT_STATMOUNT_BY_FD (7.0+) it is the kernel's mnt_fd
 *             instead: an fd (O_PATH too) on the mount to describe, and
 *             @mnt_id and @mnt_ns_id must be 0.
 * @mnt_id:    unique mount ID (> 2^31), or MNTKIT_LSMT_ROOT for listmount.
 * @param:     statmount: the request mask (MNTKIT_STATMOUNT_*);
 *             listmount: the last ID returned by the previous page, 0 first.
 * @mnt_ns_id: (VER1) mount namespace ID, 0 for the caller's namespace.
 */
struct mntkit_mnt_id_req {
	uint32_t size;
	uint32_t mnt_ns_fd;
	uint64_t mnt_id;
	uint64_t param;
	uint64_t mnt_ns_id;
};

#define MNTKIT_MNT_ID_REQ_SIZE_VER0 24
#define MNTKIT_MNT_ID_REQ_SIZE_VER1 32

/*
 * struct mntkit_statmount - the reply of statmount (the kernel's struct
 * statmount). The fixed part is 512 bytes; strings follow in @str.
 * A field marked [str] holds an offset into @str; a field marked [strv]
 * holds the offset of the first of *_num consecutive NUL-terminated strings.
 * Read them with mntkit_sm_str() / mntkit_sm_strv(), which check every
 * offset and count against the reply's size.
 * @mask says which groups were written (MNTKIT_STATMOUNT_*).
 */
#if defined(__cplusplus) && defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc99-extensions"
#endif
struct mntkit_statmount {
	uint32_t size;              /* bytes used: fixed part + strings */
	uint32_t mnt_opts;          /* [str] fs (and LSM) options */
	uint64_t mask;              /* groups written */
	uint32_t sb_dev_major;      /* superblock device */
	uint32_t sb_dev_minor;
	uint64_t sb_magic;          /* ..._SUPER_MAGIC */
	uint32_t sb_flags;          /* MS_{RDONLY,SYNCHRONOUS,DIRSYNC,LAZYTIME} */
	uint32_t fs_type;           /* [str] filesystem type, without subtype */
	uint64_t mnt_id;            /* unique mount ID */
	uint64_t mnt_parent_id;     /* unique ID of the parent mount */
	uint32_t mnt_id_old;        /* reused ID, as in /proc/PID/mountinfo */
	uint32_t mnt_parent_id_old;
	uint64_t mnt_attr;          /* MNTKIT_MOUNT_ATTR_* */
	uint64_t mnt_propagation;   /* MNTKIT_MS_{SHARED,SLAVE,PRIVATE,UNBINDABLE} */
	uint64_t mnt_peer_group;    /* peer group ID if shared, else 0 */
	uint64_t mnt_master;        /* master's peer group ID if slave, else 0 */
	uint64_t propagate_from;    /* dominating peer group visible to caller */
	uint32_t mnt_root;          /* [str] root of the mount within its fs */
	uint32_t mnt_point;         /* [str] mount point relative to caller's root */
	uint64_t mnt_ns_id;         /* ID of the mount namespace */
	uint32_t fs_subtype;        /* [str] subtype (e.g. "sshfs" of fuse.sshfs) */
	uint32_t sb_source;         /* [str] source, e.g. device name, "none" */
	uint32_t opt_num;           /* number of strings in opt_array */
	uint32_t opt_array;         /* [strv] fs options, split, unescaped */
	uint32_t opt_sec_num;       /* number of strings in opt_sec_array */
	uint32_t opt_sec_array;     /* [strv] LSM options */
	uint64_t supported_mask;    /* groups this statmount supports */
	uint32_t mnt_uidmap_num;    /* number of strings in mnt_uidmap */
	uint32_t mnt_uidmap;        /* [strv] "first lower count" uid ranges */
	uint32_t mnt_gidmap_num;    /* number of strings in mnt_gidmap */
	uint32_t mnt_gidmap;        /* [strv] "first lower count" gid ranges */
	uint64_t __spare2[43];
	/* string area (__extension__: C++ has no flexible array members) */
	MNTKIT__FLEX char str[];
};
#if defined(__cplusplus) && defined(__clang__)
#pragma clang diagnostic pop
#endif

#define MNTKIT_STATMOUNT_FIXED_SIZE 512

/*
 * Both structs are the kernel's layout on every ABI: each 64-bit field sits
 * at an 8-aligned offset, so i386 (which aligns a u64 member to 4 bytes,
 * like the kernel's own __u64 there) has the same offsets and the sizes
 * 24/32/512 its compat statmount/listmount read; only _Alignof differs.
 */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(struct mntkit_statmount) == 512, "statmount: 512");
_Static_assert(sizeof(struct mntkit_mnt_id_req) == 32, "mnt_id_req: 32");
#elif defined(__cplusplus) && __cplusplus >= 201103L
static_assert(sizeof(struct mntkit_statmount) == 512, "statmount: 512");
static_assert(sizeof(struct mntkit_mnt_id_req) == 32, "mnt_id_req: 32");
#endif

/* statmount request mask (mnt_id_req.param) and reply mask bits */
#define MNTKIT_STATMOUNT_SB_BASIC       0x00000001ULL /* sb_dev_*, sb_magic, sb_flags */
#define MNTKIT_STATMOUNT_MNT_BASIC      0x00000002ULL /* mnt_id ... mnt_master */
#define MNTKIT_STATMOUNT_PROPAGATE_FROM 0x00000004ULL /* propagate_from */
#define MNTKIT_STATMOUNT_MNT_ROOT       0x00000008ULL /* [str] mnt_root */
#define MNTKIT_STATMOUNT_MNT_POINT      0x00000010ULL /* [str] mnt_point */
#define MNTKIT_STATMOUNT_FS_TYPE        0x00000020ULL /* [str] fs_type */
#define MNTKIT_STATMOUNT_MNT_NS_ID      0x00000040ULL /* mnt_ns_id */
#define MNTKIT_STATMOUNT_MNT_OPTS       0x00000080ULL /* [str] mnt_opts */
#define MNTKIT_STATMOUNT_FS_SUBTYPE     0x00000100ULL /* [str] fs_subtype */
#define MNTKIT_STATMOUNT_SB_SOURCE      0x00000200ULL /* [str] sb_source */
#define MNTKIT_STATMOUNT_OPT_ARRAY      0x00000400ULL /* [strv] opt_array */
#define MNTKIT_STATMOUNT_OPT_SEC_ARRAY  0x00000800ULL /* [strv] opt_sec_array */
#define MNTKIT_STATMOUNT_SUPPORTED_MASK 0x00001000ULL /* supported_mask */
#define MNTKIT_STATMOUNT_MNT_UIDMAP     0x00002000ULL /* [strv] mnt_uidmap */
#define MNTKIT_STATMOUNT_MNT_GIDMAP     0x00004000ULL /* [strv] mnt_gidmap */
/* every group the ABI defines (what Linux 6.18 supports) */
#define MNTKIT_STATMOUNT_ALL            0x00007fffULL

/*
 * statmount flags. MNTKIT_STATMOUNT_BY_FD (Linux 7.0): describe the mount
 * the fd in mnt_id_req.mnt_ns_fd is on (the kernel's mnt_fd), in whatever
 * namespace it is, without the reachability check; a mount detached with
 * umount2(MNT_DETACH) is answered without MNT_POINT and MNT_NS_ID. Before
 * 7.0 the library answers it from the fd's mount ID: see
 * mntkit_statmount(3).
 */
#define MNTKIT_STATMOUNT_BY_FD 0x01U

/* listmount: the caller's root mount (listed itself, unlike a start ID) */
#define MNTKIT_LSMT_ROOT 0xffffffffffffffffULL
/* listmount flags */
#define MNTKIT_LISTMOUNT_REVERSE 0x01U
/* listmount refuses nr_mnt_ids above this with EOVERFLOW */
#define MNTKIT_LISTMOUNT_MAX_NR 1000000U

/* Unique mount IDs are above this; older (reused) IDs are at most this. */
#define MNTKIT_MNT_UNIQUE_ID_OFFSET (1ULL << 31)

/* statx(2) mask bits */
#define MNTKIT_STATX_MNT_ID        0x00001000U
#define MNTKIT_STATX_MNT_ID_UNIQUE 0x00004000U

/* mnt_attr bits (the kernel's MOUNT_ATTR_*) */
#define MNTKIT_MOUNT_ATTR_RDONLY      0x00000001ULL
#define MNTKIT_MOUNT_ATTR_NOSUID      0x00000002ULL
#define MNTKIT_MOUNT_ATTR_NODEV       0x00000004ULL
#define MNTKIT_MOUNT_ATTR_NOEXEC      0x00000008ULL
#define MNTKIT_MOUNT_ATTR__ATIME      0x00000070ULL /* the atime field */
#define MNTKIT_MOUNT_ATTR_RELATIME    0x00000000ULL
#define MNTKIT_MOUNT_ATTR_NOATIME     0x00000010ULL
#define MNTKIT_MOUNT_ATTR_STRICTATIME 0x00000020ULL
#define MNTKIT_MOUNT_ATTR_NODIRATIME  0x00000080ULL
#define MNTKIT_MOUNT_ATTR_IDMAP       0x00100000ULL
#define MNTKIT_MOUNT_ATTR_NOSYMFOLLOW 0x00200000ULL

/* mnt_propagation bits (the kernel's MS_* values) */
#define MNTKIT_MS_UNBINDABLE (1ULL << 17)
#define MNTKIT_MS_PRIVATE    (1ULL << 18)
#define MNTKIT_MS_SLAVE      (1ULL << 19)
#define MNTKIT_MS_SHARED     (1ULL << 20)

/* sb_flags bits */
#define MNTKIT_SB_RDONLY      0x00000001U
#define MNTKIT_SB_SYNCHRONOUS 0x00000010U
#define MNTKIT_SB_DIRSYNC     0x00000080U
#define MNTKIT_SB_LAZYTIME    0x02000000U

#ifdef __cplusplus
}
#endif

#endif /* MNTKIT_ABI_H */
