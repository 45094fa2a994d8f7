// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The environment the library reads: one table of every variable, one
 * accessor.
 *
 * Each variable is read with secure_getenv(3): a setuid or setgid program
 * (or one with file capabilities: AT_SECURE) sees none of them, so that
 * whoever runs it cannot choose its backend, make it take a testing path,
 * or have it write a debug trace. Each user reads its variable once, at
 * the first call that needs it (a pthread_once of its own), and keeps the
 * value for the life of the process.
 */
#include <stdlib.h>

#include "internal.h"

static const char *const knob_names[MNTKIT__NR_KNOBS] = {
	[MNTKIT__ENV_BACKEND] = "MNTKIT_BACKEND",
	[MNTKIT__ENV_HYBRID] = "MNTKIT_HYBRID",
	[MNTKIT__ENV_DEBUG] = "MNTKIT_DEBUG",
	[MNTKIT__ENV_TEST_KERNEL_MASK] = "MNTKIT_TEST_KERNEL_MASK",
	[MNTKIT__ENV_TEST_OLD_IDS] = "MNTKIT_TEST_OLD_IDS",
	[MNTKIT__ENV_TEST_SETTLE_ROUNDS] = "MNTKIT_TEST_SETTLE_ROUNDS",
};

const char *mntkit__env(enum mntkit__knob knob)
{
	if ((unsigned int)knob >= MNTKIT__NR_KNOBS)
		return NULL;
	return secure_getenv(knob_names[knob]);
}
