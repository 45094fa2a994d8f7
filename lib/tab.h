/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libmntkit: what a table read from a file (lib/tab.c) keeps
 * beside its records, and the seam to the table (lib/table.c).
 */
#ifndef MNTKIT_TAB_H
#define MNTKIT_TAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "mntkit.h"

/* per record: what the statmount shape has no field for */
struct mntkit__tab_rec {
	size_t line;
	int freq, passno;
	/* offsets into the pool, (uint32_t)-1: none */
	uint32_t options, vfs_options, fs_options, user_options, attrs;
};

struct mntkit__tab {
	enum mntkit_tab_format format;
	size_t n;
	struct mntkit__tab_rec *rec; /* by table index (= file order) */
	char *pool;
	size_t pool_len;
};

/* inline: the table (lib/table.c) frees it without calling into tab.c,
 * which calls the table (tests/cli/layers.sh: no two files call each
 * other) */
static inline void mntkit__tab_free(struct mntkit__tab *x)
{
	if (!x)
		return;
	free(x->rec);
	free(x->pool);
	free(x);
}

/*
 * Make a table of @n records (their mnt_id ascending: 1, 2, ... in file
 * order), linked by mnt_parent_id; @first_root (or -1) goes first among
 * the roots. The table takes @x over (also on failure). 0 or -errno.
 */
int mntkit__table_from_records(struct mntkit_statmount *const *recs, size_t n,
			       ssize_t first_root, struct mntkit__tab *x,
			       struct mntkit_table **out);

/* the file data of a table, NULL for a snapshot of a namespace */
const struct mntkit__tab *mntkit__table_tab(const struct mntkit_table *t);

#endif
