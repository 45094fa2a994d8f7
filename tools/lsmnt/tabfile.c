// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's tables read from files: -F and -s (fstab, mountinfo, utab), and
 * -m's userspace options from utab.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lsmnt.h"

/* -m: the tables utab merges into (-F takes at most as many files) */
#define MTAB_MAX 8

/*
 * -F, -s: the tables of the files, as findmnt reads them (bad lines are
 * passed over with a warning); every file must be readable.
 */
int read_tabfiles(struct cmdline *cl, struct mntkit_table ***tabs,
		  size_t *ntabs)
{
	*tabs = calloc(cl->ntabfiles, sizeof(**tabs));
	if (!*tabs)
		return -ENOMEM;
	cl->tab_mountinfo = true;
	/*
	 * findmnt: -s and -x read fstab format, -F guesses; libmount reads
	 * every file into one table whose format is guessed once, from the
	 * first entry line: the files after it are read in its format
	 */
	enum mntkit_tab_format fmt = cl->fstab || cl->verify
					     ? MNTKIT_TAB_FSTAB
					     : MNTKIT_TAB_AUTO;
	for (size_t i = 0; i < cl->ntabfiles; i++) {
		MNTKIT_TAB_OPTS(o, .flags = MNTKIT_TAB_F_SKIP_BAD,
				.format = fmt);
		const char *path = cl->tabfiles[i];
		int r = mntkit_table_read_file(path, &o, &(*tabs)[i]);

		if (r < 0) {
			cli_errmsg(NULL, "can't read %s: %s", path,
				   cli_strerror(-r));
			return r;
		}
		(*ntabs)++;
		cl->nbad[i] = o.nr_bad;
		if (o.nr_bad)
			cli_errmsg(path,
				   "parse error at line %zu, column %zu: %s "
				   "-- ignored%s",
				   o.err_line, o.err_col, o.err_msg,
				   o.nr_bad > 1 ? " (and more lines)" : "");
		if (o.format != MNTKIT_TAB_MOUNTINFO)
			cl->tab_mountinfo = false;
		/* a file without an entry line (good or bad) tells nothing */
		if (mntkit_table_count((*tabs)[i]) || o.nr_bad)
			fmt = o.format;
	}
	cell_tabs = *tabs;
	cell_ntabs = *ntabs;
	return 0;
}

/*
 * -m: libmount's mtab, the kernel's table with the userspace options of
 * utab (LIBMOUNT_UTAB, else /run/mount/utab) appended to OPTIONS. Each
 * utab entry, from the last, goes to the last mount of the table (in list
 * order) not merged yet whose root, mount point and source are the
 * entry's (libmount's mnt_table_merge_user_fs()). With -F the files are
 * the kernel's table, as findmnt -m -F reads them (each file's table
 * merged on its own).
 */
static struct {
	const struct mntkit_table *t[MTAB_MAX];
	const char **user[MTAB_MAX]; /* per table index */
	size_t n;
	struct mntkit_table *utab;
} mtab;

static const char *mtab_user_options(const struct mntkit_statmount *sm)
{
	for (size_t k = 0; k < mtab.n; k++) {
		ssize_t i = mntkit_table_find(mtab.t[k], sm->mnt_id);

		if (i >= 0 && mntkit_table_get(mtab.t[k], (size_t)i) == sm)
			return mtab.user[k][i];
	}
	return NULL;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* utab's entries into table @t, whose user options go to @user */
static int mtab_merge_one(const struct cmdline *cl,
			  const struct mntkit_table *t, const char **user)
{
	size_t n = mntkit_table_count(t), *order = list_order(cl, t);

	for (size_t u = mntkit_table_count(mtab.utab); u-- > 0;) {
		const struct mntkit_statmount *us = mntkit_table_get(mtab.utab, u);
		const char *target = sm_str(us, MNTKIT_FIELD_MNT_POINT);
		const char *root = sm_str(us, MNTKIT_FIELD_MNT_ROOT);
		const char *src = sm_str(us, MNTKIT_FIELD_SB_SOURCE);
		MNTKIT_TAB_ENTRY(e);

		if (mntkit_table_tab_entry(mtab.utab, u, &e) < 0 ||
		    !e.user_options || !target || !root)
			continue;
		for (size_t k = n; k-- > 0;) {
			size_t i = order ? order[k] : k;
			const struct mntkit_statmount *sm = mntkit_table_get(t, i);

			if (user[i] ||
			    !str_same(sm_str(sm, MNTKIT_FIELD_MNT_ROOT), root) ||
			    !str_same(sm_str(sm, MNTKIT_FIELD_MNT_POINT), target) ||
			    !str_same(sm_str(sm, MNTKIT_FIELD_SB_SOURCE), src))
				continue;
			user[i] = e.user_options;
			break;
		}
	}
	free(order);
	return 0;
}

int mtab_merge(const struct cmdline *cl, struct mntkit_table **tabs,
	       size_t ntabs)
{
	MNTKIT_TAB_OPTS(o, .format = MNTKIT_TAB_UTAB,
			.flags = MNTKIT_TAB_F_SKIP_BAD);
	const char *path = secure_getenv("LIBMOUNT_UTAB");
	int r;

	if (!path || !*path)
		path = "/run/mount/utab";
	r = mntkit_table_read_file(path, &o, &mtab.utab);
	if (r == -ENOENT)
		return 0; /* no utab: nothing to merge */
	if (r < 0) {
		cli_errmsg(NULL, "can't read %s: %s", path, cli_strerror(-r));
		return r;
	}
	for (size_t k = 0; k < ntabs && k < MTAB_MAX; k++) {
		mtab.t[k] = tabs[k];
		mtab.user[k] = calloc(mntkit_table_count(tabs[k]) + 1,
				      sizeof(*mtab.user[k]));
		if (!mtab.user[k])
			return -ENOMEM;
		mtab.n = k + 1;
		mtab_merge_one(cl, tabs[k], mtab.user[k]);
	}
	cell_user_options = mtab_user_options;
	return 0;
}

void mtab_free(void)
{
	for (size_t k = 0; k < mtab.n; k++)
		free(mtab.user[k]);
	mntkit_table_free(mtab.utab);
	memset(&mtab, 0, sizeof(mtab));
	cell_user_options = NULL;
}

