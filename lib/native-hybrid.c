// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hybrid replies: the native backend's statmount on a kernel that lacks
 * groups the emulation can fill: the kernel's groups, completed from the
 * emulation's table (lib/emul.h, "Hybrid replies").
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

/* ---- hybrid replies: the kernel's, completed by the emulation ---- */

/* the kernel's reply, grown to fit (under @mntkit__emul_lock) */
static struct {
	struct mntkit_statmount *sm;
	size_t size;
} kreply;

/* the system call, as a statmount of the library's shape */
static int kernel_statmount(const struct mntkit_mnt_id_req *req,
			    struct mntkit_statmount *buf, size_t bufsize,
			    unsigned int flags)
{
	return sys_statmount(req, buf, bufsize, flags);
}

/* the kernel's statmount of @req into kreply; 0 or -errno */
static int kernel_reply(const struct mntkit_mnt_id_req *req)
{
	return mntkit__stat_grown(kernel_statmount, req, 0, &kreply.sm,
				  &kreply.size);
}

/*
 * The table entry of the mount the kernel just described (kreply), proven
 * to be that mount, either way:
 *  - the table was current when the kernel answered and has not changed
 *    since (no mount event between its read and now), so its line with
 *    the kernel's old ID is that very mount;
 *  - or, under churn (the table changed meanwhile), the table was read
 *    between two replies of the kernel about the same mount (same unique
 *    ID, same old ID): the mount lived all along, a unique ID never comes
 *    back once its mount is gone, and no two live mounts share an old ID,
 *    so that old ID was this mount's while the table was read.
 * Requiring the first alone made a reply under constant churn (a mount
 * and unmount in a loop elsewhere in the namespace) give up after some
 * tries and come back with the kernel's groups only: truthful, but not
 * the newer kernel's reply (test-emul-hybrid's churn case, now and then).
 * 1 with *@tp and *@ip, 0 when the kernel answered but the emulation
 * cannot complete the reply (the mount is not in mountinfo), or -errno
 * from the kernel.
 */
static int hybrid_match(const struct mntkit_mnt_id_req *kreq, int need,
			struct table **tp, size_t *ip)
{
	uint64_t prev_old = 0;
	int have_prev = 0;

	if (!need)
		return kernel_reply(kreq);
	for (int tries = 0; tries < LOAD_TRIES; tries++) {
		struct table *t = NULL;
		uint64_t old;
		ssize_t i;
		int ret, have;

		/* after a change seen below, this re-reads the table */
		have = mntkit__emul_request_table(kreq, &t, IDS_ANY) == 0;
		ret = kernel_reply(kreq);
		if (ret)
			return ret;
		if (!have || !(kreply.sm->mask & MNTKIT_STATMOUNT_MNT_BASIC))
			return 0;
		old = kreply.sm->mnt_id_old;
		if (mntkit__emul_table_changed(t)) {
			t->stale = 1;
			if (!have_prev || prev_old != old) {
				prev_old = old;
				have_prev = 1;
				continue;
			}
			/* read between two replies of this mount: its line */
		}
		i = mntkit__mindex_find_old(&t->ix, old);
		if (i < 0)
			return 0;
		*tp = t;
		*ip = (size_t)i;
		return 1;
	}
	return 0;
}

int mntkit__emul_hybrid(const struct mntkit_mnt_id_req *ureq, uint64_t kmask,
			struct mntkit_statmount *buf, size_t bufsize)
{
	uint64_t fixed[MNTKIT_STATMOUNT_FIXED_SIZE / sizeof(uint64_t)];
	struct reply r = { .sm = (struct mntkit_statmount *)fixed };
	struct mntkit_mnt_id_req kreq;
	uint64_t want, supported;
	struct table *t = NULL;
	size_t i = 0;
	int ret;

	mntkit__emul_caps();
	/* the request's own faults are the kernel's to report */
	ret = mntkit__req_copy(ureq, &kreq);
	if (ret) {
		errno = -ret;
		return -1;
	}
	if (kreq.size > sizeof(kreq))
		kreq.size = sizeof(kreq); /* its tail is zero: mntkit__req_copy() */
	want = kreq.param;
	/* the kernel's groups, and MNT_BASIC to know the mount by (every
	 * statmount has it) */
	kmask |= MNTKIT_STATMOUNT_MNT_BASIC;
	kreq.param = (want & kmask) | MNTKIT_STATMOUNT_MNT_BASIC;
	supported = (kmask | mntkit__emul_supported_mask()) &
		    MNTKIT_STATMOUNT_ALL;
	pthread_once(&mntkit__emul_atfork_once, mntkit__emul_setup_atfork);
	pthread_mutex_lock(&mntkit__emul_lock);
	r.str = mntkit__emul_scratch.str;
	r.cap = mntkit__emul_scratch.cap;
	/* the table only when the emulation has something to add */
	ret = hybrid_match(&kreq, !!(want & ~kmask & supported), &t, &i);
	if ((ret >= 0 || ret == -ENOENT) && (want & MNTKIT__STRING_GROUPS) &&
	    bufsize == MNTKIT_STATMOUNT_FIXED_SIZE)
		ret = -EOVERFLOW;
	if (ret >= 0) {
		r.bufsize = bufsize;
		ret = mntkit__emul_fill_reply(&r, ret ? t : NULL, i, want, kreply.sm, kmask,
				 supported);
	}
	if (kreply.size > SCRATCH_KEEP) {
		free(kreply.sm);
		kreply.sm = NULL;
		kreply.size = 0;
	}
	ret = mntkit__emul_reply_out(&r, ret, buf, bufsize);
	pthread_mutex_unlock(&mntkit__emul_lock);
	return ret;
}
