// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The debug trace: one line for each decision the library takes without
 * telling its caller (the backend and why, hybrid replies, provisional
 * IDs, reloads of mountinfo, a watch's fallback to poll, re-reads under
 * churn, refused system calls), and the reason of each caller's mistake
 * (mntkit__misuse()).
 *
 * The lines go to the function set with mntkit_set_print(); until one is
 * set, to stderr for the levels MNTKIT_DEBUG asks for (read once, with
 * secure_getenv: lib/env.c), and nowhere when it is unset.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int print_stderr(enum mntkit_print_level level, const char *fmt,
			va_list ap);

static _Atomic(mntkit_print_fn) printer = print_stderr;

static pthread_once_t level_once = PTHREAD_ONCE_INIT;
/* the highest level the default printer writes; -1: none */
static int env_level = -1;

static const char *const level_names[] = {
	[MNTKIT_PRINT_WARN] = "warn",
	[MNTKIT_PRINT_INFO] = "info",
	[MNTKIT_PRINT_DEBUG] = "debug",
};

/* MNTKIT_DEBUG=warn|info|debug, or 0 (none) .. 3 (all); other values: all */
static void read_level(void)
{
	const char *s = mntkit__env(MNTKIT__ENV_DEBUG);

	if (!s || !*s || !strcmp(s, "0"))
		return;
	for (int i = 0; i < (int)MNTKIT_ARRAY_SIZE(level_names); i++)
		if (!strcmp(s, level_names[i]) || (s[0] == '1' + i && !s[1]))
			env_level = i;
	if (env_level < 0)
		env_level = MNTKIT_PRINT_DEBUG;
}

static int print_stderr(enum mntkit_print_level level, const char *fmt,
			va_list ap)
{
	char line[512];

	if ((int)level > env_level)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	/* one write per line: lines of threads do not interleave */
	return fprintf(stderr, "mntkit: %s: %s\n", level_names[level], line);
}

mntkit_print_fn mntkit_set_print(mntkit_print_fn fn)
{
	return atomic_exchange(&printer, fn);
}

const char *mntkit_print_level_name(enum mntkit_print_level level)
{
	if ((unsigned int)level >= MNTKIT_ARRAY_SIZE(level_names))
		return NULL;
	return level_names[level];
}

int mntkit__debug_on(enum mntkit_print_level level)
{
	mntkit_print_fn fn = atomic_load(&printer);

	if (!fn)
		return 0;
	if (fn != print_stderr)
		return 1;
	pthread_once(&level_once, read_level);
	return (int)level <= env_level;
}

int mntkit__misuse(const char *func, int err, const char *fmt, ...)
{
	mntkit_print_fn fn = atomic_load(&printer);
	char reason[256];
	va_list ap;

	if (fn && mntkit__debug_on(MNTKIT_PRINT_WARN)) {
		va_start(ap, fmt);
		vsnprintf(reason, sizeof(reason), fmt, ap);
		va_end(ap);
		mntkit__debug(MNTKIT_PRINT_WARN, "%s: %s", func, reason);
	}
	return mntkit__fail(err);
}

int mntkit__short_size(const char *type, size_t size, size_t ver0,
		       const char *macro)
{
	return mntkit__misuse(type, EINVAL,
			      "size %zu, below the %zu of its first version: "
			      "declare it with %s(), which sets the size",
			      size, ver0, macro);
}

int mntkit__sized_arg(void *out, size_t out_size, const void *in,
		      size_t in_size, size_t ver0, const char *type,
		      const char *macro)
{
	int ret = mntkit__sized_in(out, out_size, in, in_size, ver0);

	if (ret == -EINVAL)
		return mntkit__short_size(type, in_size, ver0, macro);
	if (ret == -E2BIG)
		return mntkit__misuse(type, E2BIG,
			"size %zu with fields set beyond the %zu bytes this "
			"library knows (a newer header asking for what this "
			"library cannot do)", in_size, out_size);
	return ret;
}

void mntkit__debug(enum mntkit_print_level level, const char *fmt, ...)
{
	mntkit_print_fn fn = atomic_load(&printer);
	int saved = errno;
	va_list ap;

	if (!fn || !mntkit__debug_on(level))
		return;
	va_start(ap, fmt);
	fn(level, fmt, ap);
	va_end(ap);
	errno = saved; /* the trace never changes what a call reports */
}
