// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The emulation's probes of the kernel, once per process: unique IDs
 * (and the testing knob MNTKIT_TEST_OLD_IDS), namespace IDs, the page
 * size. (lib/emul.h says how the emulation works.)
 */
#include <dirent.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "emul.h"
#include "syscall.h"

/* ---- probes, once per process ---- */

static pthread_once_t caps_once = PTHREAD_ONCE_INIT;
int mntkit__emul_have_unique;  /* statx STATX_MNT_ID_UNIQUE, and no knob */
int mntkit__emul_have_ns_id;   /* ioctl NS_GET_MNTNS_ID */
long mntkit__emul_page_size;   /* the kernel's limit of a request's size */

/* MNTKIT_TEST_OLD_IDS=1: behave as on a kernel without unique IDs */
static int test_old_ids(void)
{
	const char *s = mntkit__env(MNTKIT__ENV_TEST_OLD_IDS);

	return s && !strcmp(s, "1");
}

static void probe_caps(void)
{
	struct statx stx;
	uint64_t id;
	int fd;

	mntkit__emul_page_size = sysconf(_SC_PAGESIZE);
	memset(&stx, 0, sizeof(stx));
	if (!test_old_ids() &&
	    statx(AT_FDCWD, "/", AT_STATX_DONT_SYNC, MNTKIT_STATX_MNT_ID_UNIQUE,
		  &stx) == 0 &&
	    (stx.stx_mask & MNTKIT_STATX_MNT_ID_UNIQUE))
		mntkit__emul_have_unique = 1;
	mntkit__proc_grab(); /* the first use: hold /proc from now on */
	fd = mntkit__proc_open(0, "ns/mnt", O_RDONLY);
	if (fd < 0)
		fd = mntkit__own_ns_fd(); /* no /proc: pidfd (6.11+) */
	if (fd >= 0) {
		if (ioctl(fd, MNTKIT_NS_GET_MNTNS_ID, &id) == 0)
			mntkit__emul_have_ns_id = 1;
		close(fd);
	}
}

void mntkit__emul_caps(void)
{
	pthread_once(&caps_once, probe_caps);
}

int mntkit__emul_unique_ids(void)
{
	mntkit__emul_caps();
	return mntkit__emul_have_unique;
}

uint64_t mntkit__emul_supported_mask(void)
{
	uint64_t mask = MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_BASIC |
			MNTKIT_STATMOUNT_PROPAGATE_FROM |
			MNTKIT_STATMOUNT_MNT_ROOT | MNTKIT_STATMOUNT_MNT_POINT |
			MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_MNT_OPTS |
			MNTKIT_STATMOUNT_FS_SUBTYPE |
			MNTKIT_STATMOUNT_SB_SOURCE |
			MNTKIT_STATMOUNT_OPT_ARRAY |
			MNTKIT_STATMOUNT_OPT_SEC_ARRAY |
			MNTKIT_STATMOUNT_SUPPORTED_MASK;

	mntkit__emul_caps();
	if (mntkit__emul_have_ns_id)
		mask |= MNTKIT_STATMOUNT_MNT_NS_ID;
	return mask;
}
