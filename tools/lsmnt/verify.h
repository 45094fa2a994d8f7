/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lsmnt -x/--verify (lsmnt-verify.c) */
#ifndef LSMNT_VERIFY_H
#define LSMNT_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

/* one fstab entry, as the file says it (NULL: absent) */
struct verify_entry {
	const char *source, *target, *fstype;
	const char *options; /* the whole field */
	const char *vfs_options, *fs_options, *user_options;
	int passno;
	bool match; /* the filters keep it */
};

struct verify_opts {
	bool verbose;	  /* --verbose: the "[ ]" lines too */
	bool check_order; /* no filter: the order of the targets too */
	bool first_only;  /* -f: the first matching entry only */
	size_t nparse;	  /* lines the reader passed over */
};

/* findmnt's /etc/fstab checks; the exit status (0 or 1) */
int verify_entries(const struct verify_entry *ents, size_t n,
		   const struct verify_opts *o);

/* lsmnt-cols.c */
bool fstype_is_pseudo(const char *fstype);
bool source_is_tag(const char *src);

#endif
