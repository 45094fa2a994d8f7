// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's SIZE, AVAIL, USED, USE% and INO.*: statvfs(2) of the printed
 * rows' mount points.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "lsmnt.h"

/*
 * As findmnt: statvfs() of the mount point's path, as this process sees
 * it. A mount that is overmounted answers for the mount on top, one
 * outside our root or namespace (--unreachable, --ns, -N) for whatever
 * that path is here, or not at all (empty cells). Unlike findmnt, never
 * for a path that is or crosses a served mount (NFS, FUSE, ...): its
 * statvfs would ask the server, and a FUSE daemon that does not answer
 * holds lsmnt beyond SIGKILL (empty cells; mntkit_path_served()).
 */
void fs_usage_get(const struct mntkit_statmount *sm, struct fs_usage *u)
{
	const char *point = NULL;
	struct statvfs st;

	memset(u, 0, sizeof(*u));
	if (!(sm->mask & MNTKIT_STATMOUNT_MNT_POINT) ||
	    mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &point) < 0 ||
	    path_may_block(point) || statvfs(point, &st) < 0)
		return;
	u->ok = true;
	u->frsize = st.f_frsize;
	u->blocks = st.f_blocks;
	u->bfree = st.f_bfree;
	u->bavail = st.f_bavail;
	u->files = st.f_files;
	u->ffree = st.f_ffree;
}

/*
 * SIZE, AVAIL, USED, USE%, INO.*: one statvfs(2) per printed row, and none
 * at all (nor the memory) when no such column is shown.
 */
int add_usage(const struct cmdline *cl, struct row *rows, size_t n,
	      struct fs_usage **usage)
{
	struct row_rec rr = {0};
	bool want = false;

	*usage = NULL;
	for (size_t c = 0; c < cl->pr.ncols; c++)
		want |= !!(lsmnt_cols[cl->pr.cols[c]].flags & CF_STATVFS);
	if (!want || !n)
		return 0;
	*usage = calloc(n, sizeof(**usage));
	if (!*usage)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct row *r = row_get(&rows[i], &rr);

		if (!r) {
			row_rec_free(&rr);
			return -ENOMEM;
		}
		fs_usage_get(r->sm, &(*usage)[i]);
		rows[i].usage = &(*usage)[i];
	}
	row_rec_free(&rr);
	return 0;
}

