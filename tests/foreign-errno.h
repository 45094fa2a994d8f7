/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * foreign-errno.h - the errno of a request for a foreign namespace by ID
 * without CAP_SYS_ADMIN over it, for test-ns and test-ns7 (include after
 * <mntkit.h> and harness.h).
 *
 * A namespace asked for by ID (not by fd) needs CAP_SYS_ADMIN over its
 * owner: without it statmount answers EPERM (6.12.95, 6.18.44 and 7.2
 * measured; ENOENT before "statmount: permission check should return
 * EPERM", 7.0 and its stable backports), listmount ENOENT. An
 * unprivileged caller that can read the namespace's mountinfo (a process
 * of its own uid is in it) gets the kernel's errno from both backends.
 */
#ifndef MNTKIT_TEST_FOREIGN_ERRNO_H
#define MNTKIT_TEST_FOREIGN_ERRNO_H

#include <sys/prctl.h>
#include <sys/utsname.h>

#include "harness.h"

static inline int t_errno_of(long ret)
{
	return ret < 0 ? errno : 0;
}

/* the running kernel's major version (7 for 7.2.13) */
static inline int t_kernel_major(void)
{
	struct utsname u;

	T_OK(uname(&u));
	return atoi(u.release);
}

/* as uid 65534: the kernel's errno for @mnt_id of @ns_id, and each
 * backend's (a child of the case; exits) */
static inline void t_foreign_errno_body(uint64_t ns_id, uint64_t mnt_id)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER1,
		.mnt_id = mnt_id,
		.param = MNTKIT_STATMOUNT_MNT_BASIC,
		.mnt_ns_id = ns_id,
	};
	char buf[4096];
	uint64_t ids[4];
	int ksm, klm;

	T_OK(setgid(65534));
	T_OK(setuid(65534));
	T_OK(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	ksm = t_errno_of(t_sys_statmount(&req, buf, sizeof(buf), 0));
	req.mnt_id = T_LSMT_ROOT;
	req.param = 0;
	klm = t_errno_of(t_sys_listmount(&req, ids, 4, 0));
	if (t_kernel_major() >= 7)
		T_EQ_I(ksm, EPERM);
	else
		T_ASSERTF(ksm == EPERM || ksm == ENOENT,
			  "the kernel's statmount: %s", strerror(ksm));
	T_EQ_I(klm, ENOENT);
	for (int b = MNTKIT_BACKEND_NATIVE; b <= MNTKIT_BACKEND_MOUNTINFO;
	     b++) {
		int e;

		T_EQ_I(mntkit_set_backend((enum mntkit_backend)b), 0);
		req.mnt_id = mnt_id;
		req.param = MNTKIT_STATMOUNT_MNT_BASIC;
		e = t_errno_of(mntkit_statmount(&req, (void *)buf, sizeof(buf),
						0));
		T_ASSERTF(e == ksm, "%s: statmount %s, the kernel's %s",
			  mntkit_backend_name(mntkit_get_backend()), strerror(e),
			  strerror(ksm));
		req.mnt_id = T_LSMT_ROOT;
		req.param = 0;
		e = t_errno_of(mntkit_listmount(&req, ids, 4, 0));
		T_ASSERTF(e == klm, "%s: listmount %s, the kernel's %s",
			  mntkit_backend_name(mntkit_get_backend()), strerror(e),
			  strerror(klm));
	}
	_exit(0);
}

/*
 * The check for the namespace of @ns_fd (ID @ns_id, @mnt_id one of its
 * mounts): a process of uid 65534 is put in it, then a child of uid 65534
 * asks.
 */
static inline void t_foreign_errno_check(int ns_fd, uint64_t ns_id,
					 uint64_t mnt_id)
{
	int go[2], ready[2];
	pid_t in, pid;
	char x = 1;

	T_OK(pipe(go));
	T_OK(pipe(ready));
	in = fork();
	T_ASSERT(in >= 0);
	if (in == 0) {
		close(go[1]);
		close(ready[0]);
		if (setns(ns_fd, CLONE_NEWNS) || setgid(65534) ||
		    setuid(65534) || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(1);
		(void)!write(ready[1], &x, 1);
		(void)!read(go[0], &x, 1);
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	/* the checker looks only once that process is in place (it raced
	 * it: seen on 6.12 under qemu's TCG) */
	T_ASSERTF(read(ready[0], &x, 1) == 1, "%s",
		  "the namespace's process failed");
	close(ready[0]);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		t_foreign_errno_body(ns_id, mnt_id);
	t_wait_child(pid, "the unprivileged child");
	close(go[1]);
	waitpid(in, NULL, 0);
}

#endif /* MNTKIT_TEST_FOREIGN_ERRNO_H */
