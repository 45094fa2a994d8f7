// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's filters, with findmnt's semantics.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <unistd.h>

#include "cli.h"
#include "lsmnt.h"

/* ---- filters (findmnt's semantics) ---- */

/*
 * -t: libmount's match_fstype(): a comma list of types, compared without
 * case; a leading "no" negates the whole list, "no" before a later item
 * excludes that type.
 */
static bool match_types(const char *type, const char *pattern)
{
	size_t len = strlen(type);
	const char *p = pattern;
	bool no = false;

	if (!strncmp(p, "no", 2)) {
		no = true;
		p += 2;
	}
	for (;;) {
		if (!strncmp(p, "no", 2) && !strncasecmp(p + 2, type, len) &&
		    (p[len + 2] == '\0' || p[len + 2] == ','))
			return false;
		if (!strncasecmp(p, type, len) &&
		    (p[len] == '\0' || p[len] == ','))
			return !no;
		p = strchr(p, ',');
		if (!p)
			return no;
		p++;
	}
}

/* the next option of a comma list (quotes keep commas): name and value */
static bool next_option(const char **pp, const char **name, size_t *nlen,
			const char **val, size_t *vlen)
{
	const char *p = *pp;
	bool quoted = false;

	while (*p == ',')
		p++;
	if (!*p)
		return false;
	*name = p;
	*val = NULL;
	*vlen = 0;
	for (; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == ',')
			break;
		else if (!quoted && *p == '=' && !*val)
			*val = p + 1;
	}
	*nlen = (size_t)((*val ? *val - 1 : p) - *name);
	if (*val)
		*vlen = (size_t)(p - *val);
	*pp = p;
	return true;
}

/* does @optstr hold option @name (with value @val if @val != NULL)? */
static bool has_option(const char *optstr, const char *name, size_t nlen,
		       const char *val, size_t vlen)
{
	const char *p = optstr, *n, *v;
	size_t nl, vl;

	while (next_option(&p, &n, &nl, &v, &vl)) {
		if (nl != nlen || strncmp(n, name, nlen))
			continue;
		if (!val)
			return true;
		return vl == vlen && !strncmp(v, val, vlen);
	}
	return false;
}

/*
 * -O: libmount's mnt_match_options(): every item must hold; "noX" means
 * X is absent ("+noX" means the option noX itself is there).
 */
static bool match_options(const char *optstr, const char *pattern)
{
	const char *p = pattern, *name, *val;
	size_t nlen, vlen;

	while (next_option(&p, &name, &nlen, &val, &vlen)) {
		bool no = false, found;

		if (*name == '+') {
			name++;
			nlen--;
		} else if (nlen >= 2 && !strncmp(name, "no", 2)) {
			no = true;
			name += 2;
			nlen -= 2;
		}
		found = has_option(optstr, name, nlen, val && vlen ? val : NULL,
				   vlen);
		if (found == no)
			return false;
	}
	return true;
}

/*
 * realpath(3) of an argument, but never through a served filesystem
 * (NFS, FUSE, ...: findmnt hangs there on a dead server): a path that
 * leads into one is canonical as far as the library resolves it without
 * looking into it (mntkit_path_canon()); any other, realpath's answer.
 */
static char *real_path(const char *path)
{
	char *c = NULL;

	if (mntkit_path_canon(path, 0, &c) == 0 &&
	    mntkit_path_served(c) == 1)
		return c;
	free(c);
	return realpath(path, NULL);
}

/*
 * The device a -S source names, canonical: a tag (LABEL=, UUID=, ...)
 * through libblkid as findmnt resolves it (udev's links, else its
 * cache and, as root, a scan), a path as realpath() gives it.
 */
char *canon_source(const char *src)
{
	char *dev, *real;

	if (source_is_tag(src)) {
		dev = evaluate_tag(src);
		real = dev ? real_path(dev) : NULL;
		free(dev);
		return real;
	}
	return strchr(src, '/') ? real_path(src) : NULL;
}

/* -T, -M, a mount point argument: the path to compare (-C: as given) */
char *canon_target(const struct filter *f, const char *path)
{
	return f->nocanon ? strdup(path) : real_path(path);
}

/*
 * --shadowed: another mount of the table is mounted on @sm's very mount
 * point, over @sm's root (libmount's mnt_table_over_fs(): a child whose
 * target is the parent's own).
 */
static bool is_shadowed(const struct mntkit_table *t,
			const struct mntkit_statmount *sm)
{
	const char *point;
	ssize_t i = t ? mntkit_table_find(t, sm->mnt_id) : -1;

	if (i < 0 ||
	    mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &point) < 0)
		return false;
	for (ssize_t c = mntkit_table_first_child(t, (size_t)i); c >= 0;
	     c = mntkit_table_next_sibling(t, (size_t)c)) {
		const struct mntkit_statmount *ch = mntkit_table_get(t, (size_t)c);

		if (mntkit_sm_match_target(ch, ch->size, point, 0) == 1)
			return true;
	}
	return false;
}

static bool match_source(struct matcher *m, const struct mntkit_statmount *sm)
{
	const struct filter *f = m->f;
	const char *src, *type;
	char *real;
	bool ok;

	if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_SB_SOURCE, &src) < 0)
		return false;
	if (f->source_pass != 2 &&
	    mntkit_sm_match_source(sm, sm->size, f->source, 0) == 1)
		return true;
	type = cell_fstype(sm, &m->s1);
	if (!f->source_canon || fstype_is_pseudo(type) || f->nocanon ||
	    f->source_pass == 1)
		return false;
	if (!strcmp(src, f->source_canon))
		return true;
	if (src[0] != '/' || path_may_block(src))
		return false;
	real = realpath(src, NULL);
	ok = real && !strcmp(real, f->source_canon);
	free(real);
	return ok;
}

/* libmount's mnt_fs_match_target(): as given, then the canonical path */
static bool match_target(const struct filter *f,
			 const struct mntkit_statmount *sm)
{
	return mntkit_sm_match_target(sm, sm->size, f->target_arg, 0) == 1 ||
	       (f->target &&
		mntkit_sm_match_target(sm, sm->size, f->target, 0) == 1);
}

/*
 * -D: findmnt leaves out pseudo filesystems, but keeps every type with
 * "tmpfs" in its name (devtmpfs too), whatever --real or --pseudo say.
 * 1 keep it, 0 drop it, -1 the other filters decide.
 */
static int df_verdict(struct matcher *m, const struct mntkit_statmount *sm)
{
	const char *type = cell_fstype(sm, &m->s1);

	if (type && strstr(type, "tmpfs"))
		return 1;
	return fstype_is_pseudo(type) ? 0 : -1;
}

/* libmount's match_func() without -i */
static bool matches_plain(struct matcher *m, const struct mntkit_statmount *sm)
{
	const struct filter *f = m->f;
	const char *s;

	if (f->source_only)
		return f->source ? match_source(m, sm) : match_target(f, sm);
	if (f->has_id && (int64_t)sm->mnt_id_old != f->id)
		return false;
	/* (findmnt 2.42 finds a unique ID with --kernel=listmount only) */
	if (f->has_uniq && sm->mnt_id != f->uniq)
		return false;
	if (f->types) {
		s = cell_fstype(sm, &m->s1);
		if (!s || !match_types(s, f->types))
			return false;
	}
	if (f->options) {
		/* findmnt 2.42: an entry without options has none ("noX"
		 * holds), where 2.38 never matched it */
		s = cell_options(sm, f->listmount, &m->s2);
		if (!match_options(s ? s : "", f->options))
			return false;
	}
	if (f->target_arg && !match_target(f, sm))
		return false;
	if (f->source_devno && (sm->sb_dev_major != f->major ||
				sm->sb_dev_minor != f->minor))
		return false;
	if (f->source && !match_source(m, sm))
		return false;
	if (f->df && !f->all) {
		int v = df_verdict(m, sm);

		if (v >= 0)
			return v;
	}
	if (f->real) {
		bool pseudo = fstype_is_pseudo(cell_fstype(sm, &m->s1));

		if (pseudo == (f->real > 0))
			return false;
	}
	if (f->shadowed && !is_shadowed(m->t, sm))
		return false;
	return true;
}

bool matches(struct matcher *m, const struct mntkit_statmount *sm)
{
	return matches_plain(m, sm) != (m->f->invert && !m->f->source_only);
}

/*
 * findmnt's "list all": no filter, where -D, --real and --pseudo count as
 * filters unless -A is given. A list (not the tree) then holds every
 * mount, and neither -i nor, with -A, --real or --pseudo change that.
 */
bool list_all(const struct filter *f)
{
	if ((f->df || f->real) && !f->all)
		return false;
	return !f->types && !f->options && !f->source && !f->source_devno &&
	       !f->target_arg && !f->has_id && !f->has_uniq;
}

/*
 * list_all() but for what it leaves to matches(): -i, --shadowed, and
 * --real or --pseudo with -A (-D with -A filters nothing)
 */
bool matches_every(const struct filter *f)
{
	return list_all(f) && !f->invert && !f->source_only &&
	       !f->shadowed && !f->real;
}

uint64_t filter_mask(const struct filter *f)
{
	uint64_t m = MNTKIT_STATMOUNT_MNT_BASIC;

	if (f->types || f->real || f->df)
		m |= MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_FS_SUBTYPE;
	if (f->options)
		m |= MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_OPTS;
	if (f->source)
		m |= MNTKIT_STATMOUNT_SB_SOURCE | MNTKIT_STATMOUNT_SB_BASIC |
		     MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_FS_SUBTYPE;
	if (f->source_devno)
		m |= MNTKIT_STATMOUNT_SB_BASIC;
	/* one argument is tried as a mount point too (select_rows()) */
	if (f->target_arg || f->swap || f->shadowed)
		m |= MNTKIT_STATMOUNT_MNT_POINT;
	return m;
}

void swap_to_target(struct filter *f)
{
	free(f->target);
	free(f->source_canon);
	f->source_canon = NULL;
	f->target_arg = f->source;
	f->target = canon_target(f, f->target_arg);
	f->source = NULL;
	f->strict = true;
}

/*
 * -T of a path that is no mount point: the mount point it is under, found
 * as findmnt does, by the path's canonical form with its last components
 * taken off one by one until a mount's target is left. A path as the
 * lookup takes it (absolute, no "//", ".", ".." or trailing '/') is the
 * library's mntkit_table_find_containing() in every table, the longest
 * mount point of them; another (-C) is walked as written.
 */
static bool lexically_normal(const char *p)
{
	if (p[0] != '/')
		return false;
	if (!p[1])
		return true;
	for (const char *c = p; *c; c++) {
		if (*c != '/')
			continue;
		if (c[1] == '/' || c[1] == '\0' ||
		    (c[1] == '.' && (c[2] == '/' || c[2] == '\0')) ||
		    (c[1] == '.' && c[2] == '.' && (c[3] == '/' || c[3] == '\0')))
			return false;
	}
	return true;
}

static void walk_up_as_written(char *path, struct mntkit_table **tabs,
			       size_t ntabs)
{
	size_t len = strlen(path);

	for (;;) {
		for (size_t t = 0; t < ntabs; t++) {
			size_t n = mntkit_table_count(tabs[t]);

			for (size_t i = 0; i < n; i++) {
				const struct mntkit_statmount *sm =
					mntkit_table_get(tabs[t], i);
				const char *point;

				if (mntkit_sm_str(sm, sm->size,
						  MNTKIT_FIELD_MNT_POINT,
						  &point) == 0 &&
				    strlen(point) == len &&
				    !strncmp(point, path, len)) {
					path[len] = '\0';
					return;
				}
			}
		}
		if (len <= 1)
			return;
		while (len > 1 && path[len - 1] != '/')
			len--;
		if (len > 1)
			len--;
	}
}

void target_walk_up(struct filter *f, struct mntkit_table **tabs,
		    size_t ntabs)
{
	size_t best = 0;

	if (!f->target)
		return;
	if (!lexically_normal(f->target)) {
		walk_up_as_written(f->target, tabs, ntabs);
		return;
	}
	for (size_t t = 0; t < ntabs; t++) {
		ssize_t i = mntkit_table_find_containing(tabs[t], f->target, 0);
		const struct mntkit_statmount *sm;
		const char *point;
		size_t len;

		if (i < 0)
			continue;
		sm = mntkit_table_get(tabs[t], (size_t)i);
		if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT,
				  &point) < 0)
			continue;
		len = strlen(point);
		while (len > 1 && point[len - 1] == '/')
			len--;
		if (len > best)
			best = len;
	}
	if (best)
		f->target[best] = '\0';
}
