/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lsmnt-dl.h - libsmartcols and libblkid, loaded at their first use.
 *
 * Most runs of lsmnt need neither (a list, JSON, raw output, to a pipe or
 * a file): linking them costs every run their loading and relocation
 * (about 0.4 ms and 0.4 MiB of memory at start, measured against a
 * program without them). So they are dlopen()ed by the code that calls
 * them: libsmartcols for list and tree output on a terminal, libblkid for
 * tags (LABEL=, -e, LABEL/UUID/... columns, SOURCES) and -x. Each function
 * is called through sym_NAME, of the library's own prototype. A library
 * that cannot be loaded is an error, as it was when the dynamic linker
 * refused to start lsmnt without it: a line on stderr and exit status 1.
 */
#ifndef LSMNT_DL_H
#define LSMNT_DL_H

#include <blkid.h>
#include <libsmartcols.h>

#define DL_SYM(name) extern __typeof__(name) *sym_##name

/* ---- libsmartcols ---- */
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

/* ---- libblkid ---- */
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

#undef DL_SYM

/* load the library and its sym_ pointers, or exit(1) with a message */
void dl_smartcols(void);
void dl_blkid(void);

#endif /* LSMNT_DL_H */
