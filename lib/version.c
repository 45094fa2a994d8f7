/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * version.c - the library's release, at run time.
 *
 * The header's MNTKIT_VERSION_* say which release a program was compiled
 * against; mntkit_version() says which one it runs with.
 */
#include "mntkit.h"

#define MNTKIT__STR2(x) #x
#define MNTKIT__STR(x) MNTKIT__STR2(x)

const char *mntkit_version(void)
{
	return MNTKIT__STR(MNTKIT_VERSION_MAJOR) "." MNTKIT__STR(
		MNTKIT_VERSION_MINOR) "." MNTKIT__STR(MNTKIT_VERSION_PATCH);
}
