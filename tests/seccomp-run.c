/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * seccomp-run - run a command with some system calls refused (tests).
 *
 *	seccomp-run CALL=ERRNO... -- COMMAND [ARG...]
 *
 * Each CALL=ERRNO makes system call CALL (a name tests/seccomp.h knows:
 * statmount, listmount, statx, fanotify_init, epoll_create1, ...) fail
 * with ERRNO (a name such as ENOSYS, EPERM, EINVAL, EACCES, or a number)
 * in the command and everything it starts. The CLI tests use it to prove
 * that every refusal a seccomp profile can make gives a working fallback
 * or a clear error. Exit status: the command's, or 125 for a bad rule or
 * a filter the kernel refused, 127 when the command cannot be run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seccomp.h"

static int errno_of(const char *s)
{
	static const struct {
		const char *name;
		int err;
	} names[] = {
		{ "ENOSYS", ENOSYS }, { "EPERM", EPERM },
		{ "EINVAL", EINVAL }, { "EACCES", EACCES },
		{ "ENOENT", ENOENT }, { "EOPNOTSUPP", EOPNOTSUPP },
		{ "ENOMEM", ENOMEM }, { "EFAULT", EFAULT },
		{ "ENOTTY", ENOTTY }, { "EMFILE", EMFILE },
	};
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i].name, s) == 0)
			return names[i].err;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > 4095)
		return -1;
	return (int)v;
}

static void usage(void)
{
	fprintf(stderr, "usage: seccomp-run CALL=ERRNO... -- COMMAND [ARG...]\n");
	exit(125);
}

int main(int argc, char **argv)
{
	struct t_refusal r[32];
	size_t n = 0;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i] || n == 32)
			usage();
		*eq = '\0';
		r[n].name = argv[i];
		r[n].err = errno_of(eq + 1);
		if (t_seccomp_nr(r[n].name) < 0 || r[n].err < 0) {
			fprintf(stderr, "seccomp-run: unknown call or errno: %s=%s\n",
				argv[i], eq + 1);
			return 125;
		}
		n++;
	}
	if (i + 1 >= argc)
		usage();
	if (t_seccomp_refuse(r, n) < 0) {
		fprintf(stderr, "seccomp-run: cannot install the filter: %s\n",
			strerror(errno));
		return 125;
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "seccomp-run: %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}
