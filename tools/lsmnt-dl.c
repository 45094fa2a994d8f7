// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt-dl.c - libsmartcols and libblkid, loaded at their first use
 * (lsmnt-dl.h says why).
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "cli.h"
#include "lsmnt-dl.h"

#define DL_SYM(name) __typeof__(name) *sym_##name

DL_SYM(scols_new_table);
DL_SYM(scols_unref_table);
DL_SYM(scols_table_enable_ascii);
DL_SYM(scols_table_enable_noheadings);
DL_SYM(scols_table_enable_shellvar);
DL_SYM(scols_table_new_column);
DL_SYM(scols_table_new_line);
DL_SYM(scols_table_remove_lines);
DL_SYM(scols_table_print_range);
DL_SYM(scols_print_table);
DL_SYM(scols_line_set_data);
DL_SYM(scols_column_set_wrapfunc);
DL_SYM(scols_column_set_safechars);
DL_SYM(scols_wrapnl_chunksize);
DL_SYM(scols_wrapnl_nextchunk);

DL_SYM(blkid_parse_tag_string);
DL_SYM(blkid_evaluate_tag);
DL_SYM(blkid_get_cache);
DL_SYM(blkid_put_cache);
DL_SYM(blkid_probe_all);
DL_SYM(blkid_get_tag_value);
DL_SYM(blkid_verify);
DL_SYM(blkid_dev_iterate_begin);
DL_SYM(blkid_dev_set_search);
DL_SYM(blkid_dev_next);
DL_SYM(blkid_dev_iterate_end);
DL_SYM(blkid_dev_devname);
DL_SYM(blkid_new_probe_from_filename);
DL_SYM(blkid_free_probe);
DL_SYM(blkid_probe_enable_superblocks);
DL_SYM(blkid_probe_set_superblocks_flags);
DL_SYM(blkid_probe_enable_partitions);
DL_SYM(blkid_probe_set_partitions_flags);
DL_SYM(blkid_do_safeprobe);
DL_SYM(blkid_probe_lookup_value);

/* a function of a library and where its address goes */
struct dl_fn {
	const char *name;
	void **ptr;
};

#define FN(fn) { .name = #fn, .ptr = (void **)&sym_##fn }

static const struct dl_fn smartcols_fns[] = {
	FN(scols_new_table),
	FN(scols_unref_table),
	FN(scols_table_enable_ascii),
	FN(scols_table_enable_noheadings),
	FN(scols_table_enable_shellvar),
	FN(scols_table_new_column),
	FN(scols_table_new_line),
	FN(scols_table_remove_lines),
	FN(scols_table_print_range),
	FN(scols_print_table),
	FN(scols_line_set_data),
	FN(scols_column_set_wrapfunc),
	FN(scols_column_set_safechars),
	FN(scols_wrapnl_chunksize),
	FN(scols_wrapnl_nextchunk),
};

static const struct dl_fn blkid_fns[] = {
	FN(blkid_parse_tag_string),
	FN(blkid_evaluate_tag),
	FN(blkid_get_cache),
	FN(blkid_put_cache),
	FN(blkid_probe_all),
	FN(blkid_get_tag_value),
	FN(blkid_verify),
	FN(blkid_dev_iterate_begin),
	FN(blkid_dev_set_search),
	FN(blkid_dev_next),
	FN(blkid_dev_iterate_end),
	FN(blkid_dev_devname),
	FN(blkid_new_probe_from_filename),
	FN(blkid_free_probe),
	FN(blkid_probe_enable_superblocks),
	FN(blkid_probe_set_superblocks_flags),
	FN(blkid_probe_enable_partitions),
	FN(blkid_probe_set_partitions_flags),
	FN(blkid_do_safeprobe),
	FN(blkid_probe_lookup_value),
};

/* dlopen @soname and fill @fns; exit(1) with dlerror()'s text if not */
static void load(const char *soname, const struct dl_fn *fns, size_t n)
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
}

void dl_smartcols(void)
{
	static bool done;

	if (!done)
		load("libsmartcols.so.1", smartcols_fns,
		     sizeof(smartcols_fns) / sizeof(smartcols_fns[0]));
	done = true;
}

void dl_blkid(void)
{
	static bool done;

	if (!done)
		load("libblkid.so.1", blkid_fns,
		     sizeof(blkid_fns) / sizeof(blkid_fns[0]));
	done = true;
}
