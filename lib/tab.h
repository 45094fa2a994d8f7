// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tables read from a file: fstab(5) (and mtab, /proc/mounts: the same six
 * fields), /proc/PID/mountinfo (through the emulation's parser) and
 * libmount's utab, each entry made a record of the statmount shape and the
 * whole a struct mntkit_table, so that the lookups and walks of snapshots
 * serve it.
 *
 * The formats, as libmount reads them:
 *
 *   fstab:     SOURCE TARGET TYPE [OPTIONS [FREQ [PASSNO]]] [anything]
 *              fields split at blanks (space, tab); "\ooo" (exactly three
 *              octal digits) stands for a byte; '#' starts a comment line.
 *   mountinfo: see lib/emul-mountinfo.c.
 *   utab:      KEY=VALUE words: ID= SRC= TARGET= ROOT= BINDSRC= OPTS=
 *              ATTRS=, values escaped as in fstab.
 *
 * The format of a file is guessed from its first entry, as findmnt does:
 * a line that starts with two numbers is mountinfo, anything else fstab.
 *
 * The reader's files: tab.c (the file, mountinfo, the table),
 * tab-fstab.c (fstab and utab lines), tab-record.c (the records being
 * made and kept, the string pool).
 */
#ifndef MNTKIT_TAB_H
#define MNTKIT_TAB_H

#include <stddef.h>
#include <stdint.h>

#include "mountinfo.h"
#include "table.h"

/* no string: an offset no pool reaches */
#define TAB_NONE UINT32_MAX

/* a growing buffer */
struct tab_buf {
	char *p;
	size_t len, cap;
};

/* what a read collects */
struct tab_reader {
	struct mntkit_tab_opts *o; /* NULL: defaults */
	unsigned int flags;
	enum mntkit_tab_format format;
	struct tab_buf rec;      /* the record being made */
	struct tab_buf recs;     /* the records, back to back, 8-aligned */
	size_t *rec_off;     /* per entry: its offset in recs */
	struct tab_buf pool;     /* the strings of the entries' file data */
	struct mntkit__tab_rec *x;
	uint32_t *old, *parent_old; /* per entry (mountinfo, utab) */
	size_t n, cap;
	/* the first malformed line */
	size_t nr_bad, err_line, err_col;
	const char *err_msg;
};

static inline int tab_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- tab-record.c: the record being made, the entries kept ---- */

int mntkit__tab_put(struct tab_buf *b, const void *s, size_t n);

static inline struct mntkit_statmount *tab_rec_sm(struct tab_buf *r)
{
	return (struct mntkit_statmount *)r->p;
}

/* a new record: the fixed part, zeroed */
int mntkit__tab_rec_begin(struct tab_buf *r);
/* a string of @n bytes into the [str] field at offset @field_off */
int mntkit__tab_rec_str(struct tab_buf *r, uint64_t flag, size_t field_off,
			const char *s, size_t n);
#define REC_STR(r, flag, field, s, n)                                          \
	mntkit__tab_rec_str((r), MNTKIT_STATMOUNT_##flag,                      \
			    offsetof(struct mntkit_statmount, field), (s), (n))
/* a comma-separated list as a [strv] field (empty words dropped) */
int mntkit__tab_rec_strv(struct tab_buf *r, uint64_t flag, size_t field_off,
			 size_t num_off, const char *s, size_t n, int unescape);
/* the first malformed line noted; -EBADMSG */
int mntkit__tab_bad(struct tab_reader *rd, size_t line, size_t col,
		    const char *msg);
/* keep the record made in rd->rec as the next entry */
int mntkit__tab_keep(struct tab_reader *rd, const struct mntkit__tab_rec *x,
		     uint32_t old, uint32_t parent_old);
/* a string of the pool: its offset, TAB_NONE when empty */
int mntkit__tab_pool_str(struct tab_reader *rd, const char *s, size_t n,
			 uint32_t *off);

/* ---- tab-fstab.c: a line of each format ---- */

int mntkit__tab_fstab_line(struct tab_reader *rd, char *s, size_t n,
			   size_t line);
int mntkit__tab_utab_line(struct tab_reader *rd, char *s, size_t n,
			  size_t line);

#endif
