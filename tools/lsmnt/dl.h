/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dl.h - lsmnt's libsmartcols and libblkid, dlopen()ed at their first use
 * (doc/lsmnt.md says why). Each function is called through sym_NAME, of
 * the library's own prototype; one that cannot be loaded ends lsmnt with
 * a message and exit status 1.
 */
#ifndef LSMNT_DL_H
#define LSMNT_DL_H

#include <blkid.h>
#include <libsmartcols.h>

/* the functions called through sym_NAME: one list, for the declarations
 * below and dl.c's pointers and symbol tables */
#define LSMNT_DL_SMARTCOLS(X) \
	X(scols_new_table) \
	X(scols_unref_table) \
	X(scols_table_enable_ascii) \
	X(scols_table_enable_noheadings) \
	X(scols_table_enable_shellvar) \
	X(scols_table_new_column) \
	X(scols_table_new_line) \
	X(scols_table_remove_lines) \
	X(scols_table_print_range) \
	X(scols_print_table) \
	X(scols_line_set_data) \
	X(scols_column_set_wrapfunc) \
	X(scols_column_set_safechars) \
	X(scols_wrapnl_chunksize) \
	X(scols_wrapnl_nextchunk)

#define LSMNT_DL_BLKID(X) \
	X(blkid_parse_tag_string) \
	X(blkid_evaluate_tag) \
	X(blkid_get_cache) \
	X(blkid_put_cache) \
	X(blkid_probe_all) \
	X(blkid_get_tag_value) \
	X(blkid_verify) \
	X(blkid_dev_iterate_begin) \
	X(blkid_dev_set_search) \
	X(blkid_dev_next) \
	X(blkid_dev_iterate_end) \
	X(blkid_dev_devname) \
	X(blkid_new_probe_from_filename) \
	X(blkid_free_probe) \
	X(blkid_probe_enable_superblocks) \
	X(blkid_probe_set_superblocks_flags) \
	X(blkid_probe_enable_partitions) \
	X(blkid_probe_set_partitions_flags) \
	X(blkid_do_safeprobe) \
	X(blkid_probe_lookup_value)

#define LSMNT_DL_EXTERN(name) extern __typeof__(name) *sym_##name;
LSMNT_DL_SMARTCOLS(LSMNT_DL_EXTERN)
LSMNT_DL_BLKID(LSMNT_DL_EXTERN)
#undef LSMNT_DL_EXTERN

/* load the library and its sym_ pointers, or exit(1) with a message */
void dl_smartcols(void);
/*
 * a function of libsmartcols that an older one lacks (loading it first),
 * or NULL: scols_column_set_uri() (2.40)
 */
void *dl_smartcols_optional(const char *name);
void dl_blkid(void);

#endif /* LSMNT_DL_H */
