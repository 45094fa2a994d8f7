// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's tables: the kernel's, one snapshot or one per namespace
 * (--all-namespaces); with -F or -s the files' (tabfile.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "cli.h"
#include "lsmnt.h"

/*
 * What the snapshot must hold: the shown columns' groups and whatever the
 * filters and -U compare, whether or not a column shows it.
 */
uint64_t wanted_mask(const struct cmdline *cl)
{
	uint64_t m = filter_mask(&cl->f);

	if (cl->uniq) /* mounts on the same target */
		m |= MNTKIT_STATMOUNT_MNT_POINT;
	if (cl->mtab) /* utab's entries are matched by these */
		m |= MNTKIT_STATMOUNT_MNT_ROOT | MNTKIT_STATMOUNT_MNT_POINT |
		     MNTKIT_STATMOUNT_SB_SOURCE;
	for (size_t c = 0; c < cl->ncols; c++)
		m |= lsmnt_cols[cl->cols[c]].mask;
	if (cl->verify) /* -x's entries, whatever -o says */
		m |= lsmnt_cols[COL_TARGET].mask | lsmnt_cols[COL_SOURCE].mask |
		     lsmnt_cols[COL_FSTYPE].mask | lsmnt_cols[COL_OPTIONS].mask |
		     lsmnt_cols[COL_VFS_OPTIONS].mask |
		     lsmnt_cols[COL_FS_OPTIONS].mask;
	return m;
}

const char *ns_subject(const struct cmdline *cl)
{
	if (cl->ns_arg)
		return "--ns";
	if (cl->task_arg)
		return "-N";
	return cl->unreachable ? "--unreachable" : NULL;
}

/* @r: 0, or an error of the query, reported here */
int query_failed(const struct cmdline *cl, int r)
{
	if (r == 0)
		return r;
	if (cli_report_refusal(ns_subject(cl), CLI_REFUSED_QUERY, -r))
		return r;
	if (r == -EPERM)
		cli_errmsg(ns_subject(cl), "%s (%s)", cli_strerror(-r),
			   cli_eperm_hint());
	else if (r == -ENOSYS)
		cli_errmsg(ns_subject(cl),
		       "%s (this kernel has no listmount(2); "
		       "try MNTKIT_BACKEND=mountinfo)",
		       cli_strerror(-r));
	else
		cli_errmsg(ns_subject(cl), "cannot list the mounts: %s",
		       cli_strerror(-r));
	return r;
}

/*
 * Does the output show or compare a unique ID? UNIQ-ID, UNIQ-PARENT (shown
 * or in -Q), --uniq-id, --kernel=listmount (findmnt's UNIQ-ID), -p (a
 * mount followed by its ID); and, not to mix two kinds of ID, any table
 * but the one of one namespace (--all-namespaces, -m, --unreachable).
 */
static bool shows_unique_ids(const struct cmdline *cl)
{
	for (size_t c = 0; c < cl->ncols; c++)
		if (cl->cols[c] == COL_UNIQ_ID || cl->cols[c] == COL_UNIQ_PARENT)
			return true;
	return cl->f.has_uniq || cl->f.listmount || cl->poll || cl->all_ns ||
	       cl->mtab || cl->unreachable;
}

/*
 * The options of lsmnt's queries of @opts' namespace, in @o: where no
 * unique ID is shown or compared, MNTKIT_OPTS_F_CHEAP_IDS (the emulation
 * names the mounts by their old IDs, which every other column shows,
 * without a look at each mount point).
 */
const struct mntkit_opts *query_opts(const struct cmdline *cl,
				     const struct mntkit_opts *opts,
				     struct mntkit_opts *o)
{
	if (shows_unique_ids(cl))
		return opts;
	*o = (struct mntkit_opts){ .size = sizeof(*o) };
	if (opts) {
		o->mnt_ns_id = opts->mnt_ns_id;
		o->mnt_ns_fd = opts->mnt_ns_fd;
		o->pid = opts->pid;
	}
	o->flags = MNTKIT_OPTS_F_CHEAP_IDS;
	return o;
}

static int take_snapshot(const struct cmdline *cl,
			 const struct mntkit_opts *opts, uint64_t mask,
			 struct mntkit_table **out, bool quiet)
{
	/* siblings in findmnt's order: build_rows() walks the links */
	unsigned int flags = MNTKIT_TABLE_F_OLD_ORDER;
	struct mntkit_opts o;
	int r;

	opts = query_opts(cl, opts, &o);

	if (cl->unreachable)
		flags |= MNTKIT_TABLE_F_UNREACHABLE;
	if (cl->lean)
		flags |= MNTKIT_TABLE_F_COMPACT;
	r = mntkit_table_new(mask, flags, opts, out);
	return quiet ? r : query_failed(cl, r);
}

void free_tables(struct mntkit_table **tabs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mntkit_table_free(tabs[i]);
	free(tabs);
}

/* the snapshots: one, or one per namespace with --all-namespaces */
int snapshots(struct cmdline *cl, struct mntkit_table ***tabs,
	      size_t *ntabs, int **tids)
{
	uint64_t mask = wanted_mask(cl), *ids = NULL;
	size_t skipped = 0;
	int n, r, last_err = 0, *pids = NULL;
	bool want_tid = has_col(cl, COL_TID) || query_needs_tid(cl->query);

	*ntabs = 0;
	*tids = NULL;
	if (cl->ntabfiles) {
		r = read_tabfiles(cl, tabs, ntabs);
		return !r && cl->mtab ? mtab_merge(cl, *tabs, *ntabs) : r;
	}
	if (!cl->all_ns) {
		*tabs = calloc(1, sizeof(**tabs));
		*tids = want_tid ? calloc(1, sizeof(**tids)) : NULL;
		if (!*tabs || (want_tid && !*tids))
			return -ENOMEM;
		/* -N and --ns pid:PID: that process; --ns ID|PATH: none */
		if (want_tid)
			**tids = cl->ns ? cl->ns->pid : self_tid();
		r = take_snapshot(cl, cl->ns, mask, &(*tabs)[0], false);
		if (r < 0)
			return r;
		*ntabs = 1;
		return cl->mtab ? mtab_merge(cl, *tabs, 1) : 0;
	}
	n = list_namespaces(cl, &ids, want_tid ? &pids : NULL);
	if (n < 0)
		return -EINVAL;
	*tabs = calloc((size_t)n + 1, sizeof(**tabs));
	*tids = pids; /* compacted below, as the tables are */
	if (!*tabs) {
		free(ids);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		MNTKIT_OPTS(o, .mnt_ns_id = ids[i]);

		r = take_snapshot(cl, &o, mask, &(*tabs)[*ntabs], true);
		if (r == -ENOENT)
			continue; /* gone since it was listed */
		if (r < 0) {
			skipped++; /* not ours to see */
			last_err = r;
			continue;
		}
		if (pids)
			pids[*ntabs] = pids[i];
		(*ntabs)++;
	}
	free(ids);
	if (skipped)
		cli_errmsg("--all-namespaces",
		       "%zu of %d mount namespaces "
		       "skipped: %s",
		       skipped, n, cli_strerror(-last_err));
	if (!*ntabs && !last_err)
		cli_errmsg("--all-namespaces", "every mount namespace vanished");
	return *ntabs ? 0 : last_err ? last_err : -ENOENT;
}

