/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * seccomp.h - refuse chosen system calls with a chosen errno, for tests.
 *
 * A test that proves a fallback installs a filter that answers some
 * system calls with an error (ENOSYS, EPERM, EINVAL, EACCES, ...) and lets
 * every other call through, the way container runtimes' profiles refuse
 * calls they do not know. The filter stays for the life of the process
 * and its children (it cannot be removed): install it in a forked child
 * (a harness case, or tests/seccomp-run.c before it executes a command).
 *
 *	struct t_refusal r[] = { { "statmount", ENOSYS }, { "statx", EPERM } };
 *	if (t_seccomp_refuse(r, 2) < 0) ...
 *
 * Names are looked up in a table of the calls mntkit makes (and a few
 * more); t_seccomp_nr() answers -1 for a name it does not know. The
 * filter checks the architecture: a call made through another ABI (i386
 * compat on x86-64) is refused with ENOSYS, so no refused call can slip
 * through under another number.
 */
#ifndef MNTKIT_TEST_SECCOMP_H
#define MNTKIT_TEST_SECCOMP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__) && defined(__ILP32__)
#define T_SECCOMP_ARCH AUDIT_ARCH_X86_64 /* x32: __X32_SYSCALL_BIT set */
#elif defined(__x86_64__)
#define T_SECCOMP_ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define T_SECCOMP_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define T_SECCOMP_ARCH AUDIT_ARCH_AARCH64
#endif

struct t_refusal {
	const char *name; /* system call, e.g. "statmount" */
	int err;	  /* errno it answers, e.g. ENOSYS */
};

/* the number of system call @name on this ABI, or -1 */
static inline long t_seccomp_nr(const char *name)
{
	static const struct {
		const char *name;
		long nr;
	} calls[] = {
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
		/* the same on every ABI that has them (asm-generic too) */
		{ "statmount", 457 },
		{ "listmount", 458 },
#endif
#ifdef __NR_statx
		{ "statx", __NR_statx },
#endif
#ifdef __NR_openat2
		{ "openat2", __NR_openat2 },
#endif
#ifdef __NR_openat
		{ "openat", __NR_openat },
#endif
#ifdef __NR_open
		{ "open", __NR_open },
#endif
#ifdef __NR_name_to_handle_at
		{ "name_to_handle_at", __NR_name_to_handle_at },
#endif
#ifdef __NR_fanotify_init
		{ "fanotify_init", __NR_fanotify_init },
#endif
#ifdef __NR_fanotify_mark
		{ "fanotify_mark", __NR_fanotify_mark },
#endif
#ifdef __NR_epoll_create1
		{ "epoll_create1", __NR_epoll_create1 },
#endif
#ifdef __NR_epoll_create
		{ "epoll_create", __NR_epoll_create },
#endif
#ifdef __NR_epoll_ctl
		{ "epoll_ctl", __NR_epoll_ctl },
#endif
#ifdef __NR_ioctl
		{ "ioctl", __NR_ioctl },
#endif
#ifdef __NR_setns
		{ "setns", __NR_setns },
#endif
#ifdef __NR_statfs
		{ "statfs", __NR_statfs },
#endif
#ifdef __NR_fstatfs
		{ "fstatfs", __NR_fstatfs },
#endif
#ifdef __NR_newfstatat
		{ "newfstatat", __NR_newfstatat },
#endif
#ifdef __NR_fstatat64
		{ "fstatat64", __NR_fstatat64 },
#endif
#ifdef __NR_poll
		{ "poll", __NR_poll },
#endif
#ifdef __NR_ppoll
		{ "ppoll", __NR_ppoll },
#endif
#ifdef __NR_pidfd_open
		{ "pidfd_open", __NR_pidfd_open },
#endif
#ifdef __NR_inotify_init1
		{ "inotify_init1", __NR_inotify_init1 },
#endif
	};

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (strcmp(calls[i].name, name) == 0)
			return calls[i].nr;
	return -1;
}

/*
 * Install a filter that answers each call of @r with its errno and lets
 * the others through. 0, or -1 with errno (EINVAL for an unknown name or
 * more than 32 rules, or what prctl says).
 */
static inline int t_seccomp_refuse(const struct t_refusal *r, size_t n)
{
#ifndef T_SECCOMP_ARCH
	(void)r;
	(void)n;
	errno = ENOTSUP;
	return -1;
#else
	/* 4 to check the arch and load the number, 2 a rule, 1 to allow */
	struct sock_filter f[4 + 2 * 32 + 1];
	size_t k = 0;

	if (n > 32) {
		errno = EINVAL;
		return -1;
	}
	f[k++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      T_SECCOMP_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ERRNO | ENOSYS);
	f[k++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < n; i++) {
		long nr = t_seccomp_nr(r[i].name);

		if (nr < 0 || r[i].err <= 0 || r[i].err > 4095) {
			errno = EINVAL;
			return -1;
		}
		f[k++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(
			BPF_RET | BPF_K,
			SECCOMP_RET_ERRNO | ((unsigned int)r[i].err &
					     SECCOMP_RET_DATA));
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ALLOW);

	struct sock_fprog prog = { .len = (unsigned short)k, .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#endif
}

#endif
