/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Raw system calls that libc does not wrap (or did not in older versions),
 * with per-architecture numbers. Nothing here depends on the installed
 * kernel headers having these definitions.
 */
#ifndef MNTKIT_SYSCALL_H
#define MNTKIT_SYSCALL_H

#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mntkit.h"

#if defined(__alpha__)
#define MNTKIT_NR_statmount 567
#define MNTKIT_NR_listmount 568
#elif defined(__mips__)
#if _MIPS_SIM == _ABIO32
#define MNTKIT_NR_statmount 4457
#define MNTKIT_NR_listmount 4458
#elif _MIPS_SIM == _ABI64
#define MNTKIT_NR_statmount 5457
#define MNTKIT_NR_listmount 5458
#else /* n32 */
#define MNTKIT_NR_statmount 6457
#define MNTKIT_NR_listmount 6458
#endif
#else /* x86_64, i386, x32 (with the x32 bit), arm, arm64, asm-generic */
#if defined(__x86_64__) && defined(__ILP32__)
#define MNTKIT_NR_statmount (0x40000000 + 457)
#define MNTKIT_NR_listmount (0x40000000 + 458)
#else
#define MNTKIT_NR_statmount 457
#define MNTKIT_NR_listmount 458
#endif
#endif

/*
 * statmount(2). On x86-64 by the syscall instruction itself, not libc's
 * syscall(): a caller that asks about thousands of mounts in a row
 * (mntkit_stat_many()) would pay, per call, the return out of syscall()
 * just after the kernel ran, which the CPU mispredicts - 80 to 130 ns a
 * call where measured (a virtual machine), 3 to 5 % of a whole listing.
 * The kernel's ABI: the number in rax, the arguments in rdi, rsi, rdx and
 * r10, rcx and r11 clobbered, -errno in rax.
 */
static inline int sys_statmount(const struct mntkit_mnt_id_req *req,
				struct mntkit_statmount *buf, size_t bufsize,
				unsigned int flags)
{
#if defined(__x86_64__) && !defined(__ILP32__)
	register long r10 __asm__("r10") = (long)flags;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)MNTKIT_NR_statmount), "D"(req), "S"(buf),
			   "d"(bufsize), "r"(r10)
			 : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return (int)ret;
#else
	return (int)syscall(MNTKIT_NR_statmount, req, buf, bufsize, flags);
#endif
}

static inline ssize_t sys_listmount(const struct mntkit_mnt_id_req *req,
				    uint64_t *mnt_ids, size_t nr_mnt_ids,
				    unsigned int flags)
{
	return syscall(MNTKIT_NR_listmount, req, mnt_ids, nr_mnt_ids, flags);
}

/* listns(2) (6.19+) */
#if defined(__alpha__)
#define MNTKIT_NR_listns 580
#elif defined(__mips__)
#if _MIPS_SIM == _ABIO32
#define MNTKIT_NR_listns 4470
#elif _MIPS_SIM == _ABI64
#define MNTKIT_NR_listns 5470
#else
#define MNTKIT_NR_listns 6470
#endif
#elif defined(__x86_64__) && defined(__ILP32__)
#define MNTKIT_NR_listns (0x40000000 + 470)
#else
#define MNTKIT_NR_listns 470
#endif

/* its request (NS_ID_REQ_SIZE_VER0: 32 bytes) */
struct mntkit_ns_id_req {
	uint32_t size;
	uint32_t spare;
	uint64_t ns_id;      /* the last ID returned, 0 first */
	uint32_t ns_type;    /* CLONE_NEW* bits, 0 for every type */
	uint32_t spare2;
	uint64_t user_ns_id; /* owner filter, 0 for none */
};
#define MNTKIT_NS_ID_REQ_SIZE_VER0 32
#define MNTKIT_CLONE_NEWNS 0x00020000U

static inline ssize_t sys_listns(const struct mntkit_ns_id_req *req,
				 uint64_t *ids, size_t nr, unsigned int flags)
{
	return syscall(MNTKIT_NR_listns, req, ids, nr, flags);
}

/* nsfs ioctls (_IO/_IOR(0xb7, ...)) */
#define MNTKIT_NSIO 0xb7
#define MNTKIT_NS_GET_USERNS    _IO(MNTKIT_NSIO, 0x1)
#define MNTKIT_NS_GET_PARENT    _IO(MNTKIT_NSIO, 0x2)
#define MNTKIT_NS_GET_NSTYPE    _IO(MNTKIT_NSIO, 0x3)
#define MNTKIT_NS_GET_OWNER_UID _IO(MNTKIT_NSIO, 0x4)
#define MNTKIT_NS_GET_MNTNS_ID _IOR(MNTKIT_NSIO, 0x5, uint64_t)

/* NS_MNT_GET_INFO/NEXT/PREV (6.12+) fill this */
struct mntkit_mnt_ns_info {
	uint32_t size;
	uint32_t nr_mounts;
	uint64_t mnt_ns_id;
};
#define MNTKIT_NS_MNT_GET_INFO _IOR(MNTKIT_NSIO, 10, struct mntkit_mnt_ns_info)
#define MNTKIT_NS_MNT_GET_NEXT _IOR(MNTKIT_NSIO, 11, struct mntkit_mnt_ns_info)
#define MNTKIT_NS_MNT_GET_PREV _IOR(MNTKIT_NSIO, 12, struct mntkit_mnt_ns_info)

/* name_to_handle_at: return the unique mount ID in a u64 (6.12+) */
#define MNTKIT_AT_HANDLE_MNT_ID_UNIQUE 0x001

/* fanotify mount events, marks (6.15+) */
#define MNTKIT_FAN_REPORT_MNT 0x00004000U
#define MNTKIT_FAN_MARK_MNTNS 0x00000110U
#define MNTKIT_FAN_MNT_ATTACH 0x01000000ULL
#define MNTKIT_FAN_MNT_DETACH 0x02000000ULL
#define MNTKIT_FAN_Q_OVERFLOW 0x00004000ULL
#define MNTKIT_FAN_EVENT_INFO_TYPE_MNT 7

/* pidfd_open(2) (5.3+; PIDFD_THREAD, 6.9+, is O_EXCL), the namespace
 * ioctl (6.11+) */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#define MNTKIT_PIDFD_GET_MNT_NAMESPACE _IO(0xFF, 3)

/* close_range(2) (5.9+), one number on every architecture */
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* statfs f_type of the filesystems the library tells apart by magic
 * (the others: lib/fsmagic.c's table) */
#define MNTKIT_PROC_SUPER_MAGIC 0x9fa0
#define MNTKIT_PIPEFS_MAGIC     0x50495045
#define MNTKIT_SOCKFS_MAGIC     0x534f434b
#define MNTKIT_NSFS_MAGIC       0x6e736673
#define MNTKIT_ANON_INODE_FS_MAGIC 0x09041934
#define MNTKIT_PID_FS_MAGIC     0x50494446

#endif
