// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the table-file reader (lib/tab.c) in every format, with
 * and without MNTKIT_TAB_F_SKIP_BAD, and the table it makes: every record's
 * strings read back through the checked readers, the file data of every
 * entry, and the tree walked from its roots (every record reached once).
 * Built like fuzz-mountinfo.c: libFuzzer with clang, else replay.c over
 * the committed corpus (fuzz/corpus-tab/).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mntkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_table(const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t), seen = 0;

	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);
		MNTKIT_TAB_ENTRY(e);
		const char *s;

		if (!sm || sm->mnt_id != i + 1)
			abort();
		for (int f = MNTKIT_FIELD_FS_TYPE; f <= MNTKIT_FIELD_SB_SOURCE; f++)
			if (mntkit_sm_str(sm, sm->size, (enum mntkit_field)f,
					  &s) == -EBADMSG)
				abort();
		for (int f = MNTKIT_FIELD_OPT_ARRAY; f <= MNTKIT_FIELD_OPT_SEC_ARRAY; f++)
			if (mntkit_sm_strv(sm, sm->size, (enum mntkit_field)f,
					   NULL, 0) == -EBADMSG)
				abort();
		if (mntkit_table_tab_entry(t, i, &e) || e.line == 0)
			abort();
	}
	/* the walk: pre-order from every root, no record twice */
	for (ssize_t r = mntkit_table_first_root(t); r >= 0;
	     r = mntkit_table_next_sibling(t, (size_t)r)) {
		ssize_t i;

		for (i = r; i >= 0;
		     i = mntkit_table_next_preorder(t, (size_t)i, (size_t)r)) {
			ssize_t c = mntkit_table_first_child(t, (size_t)i);

			if (++seen > n)
				abort();
			if (c >= 0 && mntkit_table_parent(t, (size_t)c) != i)
				abort();
		}
		if (i != -ENOENT)
			abort();
	}
	if (seen != n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int fmt = MNTKIT_TAB_AUTO; fmt <= MNTKIT_TAB_UTAB; fmt++) {
		for (unsigned int flags = 0; flags <= MNTKIT_TAB_F_SKIP_BAD;
		     flags++) {
			MNTKIT_TAB_OPTS(o, .format = (enum mntkit_tab_format)fmt,
					.flags = flags);
			struct mntkit_table *t = NULL;
			int r = mntkit_table_read_buf((const char *)data, size,
						      &o, &t);

			if (r == 0) {
				check_table(t);
				mntkit_table_free(t);
			} else if (r == -EBADMSG &&
				   (o.err_line == 0 || o.err_col == 0 ||
				    !o.err_msg)) {
				abort(); /* a failure must say where */
			} else if (r != -EBADMSG && r != -ENOMEM) {
				abort();
			}
		}
	}
	return 0;
}
