// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's libsmartcols and libblkid, loaded at their first use
 * (doc/lsmnt.md says why).
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "cli.h"
#include "dl.h"

#define DL_DEFINE(name) __typeof__(name) *sym_##name;
LSMNT_DL_SMARTCOLS(DL_DEFINE)
LSMNT_DL_BLKID(DL_DEFINE)

/* a function of a library and where its address goes */
struct dl_fn {
	const char *name;
	void **ptr;
};

#define FN(fn) { .name = #fn, .ptr = (void **)&sym_##fn },

static const struct dl_fn smartcols_fns[] = { LSMNT_DL_SMARTCOLS(FN) };

static const struct dl_fn blkid_fns[] = { LSMNT_DL_BLKID(FN) };

/* dlopen @soname and fill @fns; exit(1) with dlerror()'s text if not */
static void *load(const char *soname, const struct dl_fn *fns, size_t n)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		cli_errmsg(NULL, "%s", dlerror());
		exit(EXIT_FAILURE);
	}
	for (size_t i = 0; i < n; i++) {
		*fns[i].ptr = dlsym(h, fns[i].name);
		if (!*fns[i].ptr) {
			cli_errmsg(NULL, "%s", dlerror());
			exit(EXIT_FAILURE);
		}
	}
	/* kept open: the functions are called until exit */
	return h;
}

static void *smartcols;

void dl_smartcols(void)
{
	cli_locale(); /* its widths are the locale's */
	if (!smartcols)
		smartcols = load("libsmartcols.so.1", smartcols_fns,
				 sizeof(smartcols_fns) /
					 sizeof(smartcols_fns[0]));
}

void *dl_smartcols_optional(const char *name)
{
	dl_smartcols();
	return dlsym(smartcols, name);
}

void dl_blkid(void)
{
	static bool done;

	if (!done)
		load("libblkid.so.1", blkid_fns,
		     sizeof(blkid_fns) / sizeof(blkid_fns[0]));
	done = true;
}
