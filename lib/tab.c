// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tables read from a file (tab.h tells the formats): the file read, its
 * format guessed, each line given to its format's reader, mountinfo's
 * lines here, fstab's and utab's in tab-fstab.c, and the records made a
 * struct mntkit_table whose lookups and walks serve it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tab.h"

const char *mntkit_tab_format_name(enum mntkit_tab_format format)
{
	switch (format) {
	case MNTKIT_TAB_AUTO:
		return "auto";
	case MNTKIT_TAB_MOUNTINFO:
		return "mountinfo";
	case MNTKIT_TAB_FSTAB:
		return "fstab";
	case MNTKIT_TAB_UTAB:
		return "utab";
	}
	return NULL;
}

/* ---- mountinfo ---- */

static int mountinfo_record(struct tab_reader *rd,
			    const struct mntkit_mi_table *t,
			    const struct mntkit_mi *m, size_t line)
{
	const struct mntkit__tab_rec x = {.line = line,
					  .options = TAB_NONE,
					  .vfs_options = TAB_NONE,
					  .fs_options = TAB_NONE,
					  .user_options = TAB_NONE,
					  .attrs = TAB_NONE};
	const char *opts = mntkit__mi_str(t, m->opts);
	struct tab_buf *r = &rd->rec;
	struct mntkit_statmount *sm;
	uint64_t magic = 0;
	int statfs_ok, ret;

	ret = mntkit__tab_rec_begin(r);
	if (ret)
		return ret;
	sm = tab_rec_sm(r);
	sm->mask = MNTKIT_STATMOUNT_MNT_BASIC | MNTKIT_STATMOUNT_SB_BASIC |
		   MNTKIT_STATMOUNT_PROPAGATE_FROM;
	mntkit__mi_basic(sm, m);
	sm->propagate_from = m->propagate_from;
	sm->sb_dev_major = m->major;
	sm->sb_dev_minor = m->minor;
	sm->sb_flags = m->sb_flags;
	if (mntkit__fs_magic(mntkit__mi_str(t, m->type), m->type.len, &magic,
			     &statfs_ok))
		sm->sb_magic = magic;
	ret = REC_STR(r, FS_TYPE, fs_type, mntkit__mi_str(t, m->type),
		      m->type.len);
	if (!ret)
		ret = REC_STR(r, MNT_ROOT, mnt_root, mntkit__mi_str(t, m->root),
			      m->root.len);
	if (!ret)
		ret = REC_STR(r, MNT_POINT, mnt_point,
			      mntkit__mi_str(t, m->point), m->point.len);
	if (!ret)
		ret = REC_STR(r, MNT_OPTS, mnt_opts,
			      m->opts.len ? opts + 1 : "",
			      m->opts.len ? m->opts.len - 1 : 0);
	if (!ret)
		ret = mntkit__tab_rec_strv(
			r, MNTKIT_STATMOUNT_OPT_ARRAY,
			offsetof(struct mntkit_statmount, opt_array),
			offsetof(struct mntkit_statmount, opt_num),
			opts + m->sec_len, m->opts.len - m->sec_len, 1);
	if (!ret)
		ret = mntkit__tab_rec_strv(
			r, MNTKIT_STATMOUNT_OPT_SEC_ARRAY,
			offsetof(struct mntkit_statmount, opt_sec_array),
			offsetof(struct mntkit_statmount, opt_sec_num), opts,
			m->sec_len, 1);
	if (!ret && m->subtype.len)
		ret = REC_STR(r, FS_SUBTYPE, fs_subtype,
			      mntkit__mi_str(t, m->subtype), m->subtype.len);
	if (!ret)
		ret = REC_STR(r, SB_SOURCE, sb_source,
			      mntkit__mi_str(t, m->source), m->source.len);
	return ret ? ret : mntkit__tab_keep(rd, &x, m->id, m->parent);
}

/* one mountinfo line, through the emulation's parser */
static int mountinfo_line(struct tab_reader *rd, char *s, size_t n, size_t line)
{
	struct mntkit_mi_table t = { 0 };
	struct mntkit_mi_err err = { 0 };
	char *copy = malloc(n + 1);
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, n);
	copy[n] = '\n';
	ret = mntkit__mi_parse(&t, copy, n + 1, &err);
	if (ret == -EBADMSG)
		ret = mntkit__tab_bad(rd, line, err.col, err.msg);
	else if (!ret && t.n == 1)
		ret = mountinfo_record(rd, &t, &t.v[0], line);
	mntkit__mi_free(&t);
	free(copy);
	return ret;
}

/* ---- the file ---- */

/* findmnt's guess, from the first entry: "%u %u" is mountinfo */
static enum mntkit_tab_format guess(const char *s, size_t n)
{
	size_t i = 0;

	for (int k = 0; k < 2; k++) {
		size_t b;

		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < n && s[i] == '+')
			i++;
		b = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == b)
			return MNTKIT_TAB_FSTAB;
	}
	return MNTKIT_TAB_MOUNTINFO;
}

/*
 * libmount's root: the entry of the lowest parent ID (the first such),
 * then up by the parent links while the parent is in the file.
 */
static ssize_t root_of(const struct tab_reader *rd, const ssize_t *parent)
{
	ssize_t r = -1;
	size_t steps = 0;

	for (size_t i = 0; i < rd->n; i++)
		if (r < 0 || rd->parent_old[i] < rd->parent_old[r])
			r = (ssize_t)i;
	while (r >= 0 && parent[r] >= 0 && steps++ < rd->n)
		r = parent[r];
	return r;
}

static int cmp_old(const void *a, const void *b, void *ctx)
{
	const uint32_t *old = ctx;
	uint32_t x = old[*(const size_t *)a], y = old[*(const size_t *)b];

	if (x != y)
		return x < y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* the entry (the first in the file) of old ID @id, or -1 */
static ssize_t find_old(const struct tab_reader *rd, const size_t *by_old,
			uint32_t id)
{
	size_t lo = 0, hi = rd->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rd->old[by_old[mid]] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rd->n && rd->old[by_old[lo]] == id ? (ssize_t)by_old[lo]
						       : -1;
}

/*
 * The parent links of a mountinfo file: by the file's IDs; a mount whose
 * parent is not there, itself, or on a cycle of links is a root.
 */
static int link_parents(struct tab_reader *rd, ssize_t *parent)
{
	size_t *by_old = malloc((rd->n + 1) * sizeof(*by_old));
	unsigned char *state = calloc(rd->n + 1, 1);

	if (!by_old || !state) {
		free(by_old);
		free(state);
		return -ENOMEM;
	}
	for (size_t i = 0; i < rd->n; i++)
		by_old[i] = i;
	qsort_r(by_old, rd->n, sizeof(*by_old), cmp_old, rd->old);
	for (size_t i = 0; i < rd->n; i++) {
		ssize_t p = find_old(rd, by_old, rd->parent_old[i]);

		parent[i] = p == (ssize_t)i ? -1 : p;
	}
	/* cut cycles: 1 on the current path, 2 done */
	for (size_t i = 0; i < rd->n; i++) {
		ssize_t j = (ssize_t)i;

		while (j >= 0 && !state[j]) {
			state[j] = 1;
			if (parent[j] >= 0 && state[parent[j]] == 1) {
				parent[j] = -1; /* closes a cycle */
				break;
			}
			j = parent[j];
		}
		for (j = (ssize_t)i; j >= 0 && state[j] == 1; j = parent[j])
			state[j] = 2;
	}
	free(by_old);
	free(state);
	return 0;
}

static int make_table(struct tab_reader *rd, struct mntkit_table **out)
{
	struct mntkit_statmount **recs = NULL;
	struct mntkit__tab *x = calloc(1, sizeof(*x));
	ssize_t *parent = NULL, root = -1;
	int ret = -ENOMEM;

	recs = malloc((rd->n + 1) * sizeof(*recs));
	parent = malloc((rd->n + 1) * sizeof(*parent));
	if (!x || !recs || !parent) {
		mntkit__tab_free(x);
		goto out;
	}
	for (size_t i = 0; i < rd->n; i++) {
		recs[i] = (struct mntkit_statmount *)(rd->recs.p + rd->rec_off[i]);
		parent[i] = -1;
	}
	if (rd->format == MNTKIT_TAB_MOUNTINFO) {
		ret = link_parents(rd, parent);
		if (ret) {
			mntkit__tab_free(x);
			goto out;
		}
		for (size_t i = 0; i < rd->n; i++)
			if (parent[i] >= 0)
				recs[i]->mnt_parent_id = (uint64_t)parent[i] + 1;
		root = root_of(rd, parent);
	}
	x->format = rd->format;
	x->n = rd->n;
	x->rec = rd->x;
	x->pool = rd->pool.p;
	x->pool_len = rd->pool.len;
	rd->x = NULL;
	rd->pool.p = NULL;
	ret = mntkit__table_from_records(recs, rd->n, root, x, out);
out:
	free(recs);
	free(parent);
	return ret;
}

void mntkit__tab_free(struct mntkit__tab *x)
{
	if (!x)
		return;
	free(x->rec);
	free(x->pool);
	free(x);
}

static void reader_free(struct tab_reader *rd)
{
	free(rd->rec.p);
	free(rd->recs.p);
	free(rd->rec_off);
	free(rd->pool.p);
	free(rd->x);
	free(rd->old);
	free(rd->parent_old);
}

/* the caller's options: check and read them */
static int opts_in(struct mntkit_tab_opts *o, struct tab_reader *rd)
{
	struct mntkit_tab_opts in;
	int ret;

	if (!o)
		return 0;
	ret = mntkit__sized_arg(&in, sizeof(in), o, o->size,
				MNTKIT_TAB_OPTS_SIZE_VER0, "struct mntkit_tab_opts",
				"MNTKIT_TAB_OPTS");
	if (ret)
		return ret;
	if ((unsigned int)in.format > MNTKIT_TAB_UTAB)
		return mntkit__misuse("struct mntkit_tab_opts", EINVAL,
				      "unknown format %d", (int)in.format);
	if (in.flags & ~MNTKIT_TAB_F_SKIP_BAD)
		return mntkit__misuse("struct mntkit_tab_opts", EINVAL,
				      "unknown flags %#x",
				      in.flags & ~MNTKIT_TAB_F_SKIP_BAD);
	rd->o = o;
	rd->format = o->format;
	rd->flags = o->flags;
	return 0;
}

/* what was found, into the caller's options (at least the first struct) */
static void opts_out(struct tab_reader *rd)
{
	struct mntkit_tab_opts *o = rd->o;

	if (!o)
		return;
	o->format = rd->format;
	o->nr_bad = rd->nr_bad;
	o->err_line = rd->err_line;
	o->err_col = rd->err_col;
	o->err_msg = rd->err_msg;
}

/* one entry line: @s (@n bytes) from its first byte */
static int entry_line(struct tab_reader *rd, char *s, size_t n, size_t line)
{
	switch (rd->format) {
	case MNTKIT_TAB_MOUNTINFO:
		/* the column counts from the line's first byte */
		return mountinfo_line(rd, s, n, line);
	case MNTKIT_TAB_UTAB:
		return mntkit__tab_utab_line(rd, s, n, line);
	default:
		return mntkit__tab_fstab_line(rd, s, n, line);
	}
}

/* parse @len bytes at @s (a private copy: unescaped in place) */
static int parse(struct tab_reader *rd, char *s, size_t len)
{
	size_t pos = 0, line = 0;

	if (len > UINT32_MAX)
		return -EFBIG;
	while (pos < len) {
		char *nl = memchr(s + pos, '\n', len - pos);
		size_t eol = nl ? (size_t)(nl - s) : len, bol = pos, b = pos;
		int ret;

		line++;
		pos = eol + 1;
		while (b < eol && tab_is_blank(s[b]))
			b++;
		if (b == eol || s[b] == '#')
			continue;
		if (eol > b && s[eol - 1] == '\r')
			eol--;
		if (rd->format == MNTKIT_TAB_AUTO)
			rd->format = guess(s + b, eol - b);
		ret = entry_line(rd, s + bol, eol - bol, line);
		if (ret == -EBADMSG && (rd->flags & MNTKIT_TAB_F_SKIP_BAD))
			continue;
		if (ret)
			return ret;
	}
	if (rd->format == MNTKIT_TAB_AUTO)
		rd->format = MNTKIT_TAB_FSTAB; /* nothing to tell by */
	return 0;
}

static int read_common(struct tab_reader *rd, char *s, size_t len,
		       struct mntkit_table **out)
{
	int ret = parse(rd, s, len);

	if (!ret)
		ret = make_table(rd, out);
	opts_out(rd);
	reader_free(rd);
	return ret ? mntkit__fail(-ret) : 0;
}

int mntkit_table_read_buf(const char *buf, size_t len,
			  struct mntkit_tab_opts *topts,
			  struct mntkit_table **out)
{
	struct tab_reader rd = {0};
	char *copy;
	int ret;

	if (!out)
		return MNTKIT__MISUSE(EINVAL, "a NULL out pointer");
	*out = NULL;
	if (!buf && len)
		return MNTKIT__MISUSE(EINVAL, "a NULL buffer with length %zu",
				      len);
	ret = opts_in(topts, &rd);
	if (ret)
		return mntkit__fail(-ret);
	if (len > UINT32_MAX)
		return mntkit__fail(EFBIG);
	copy = malloc(len + 1);
	if (!copy)
		return mntkit__fail(ENOMEM);
	if (len)
		memcpy(copy, buf, len);
	ret = read_common(&rd, copy, len, out);
	free(copy);
	return ret;
}

int mntkit_table_read_file(const char *path, struct mntkit_tab_opts *topts,
			   struct mntkit_table **out)
{
	struct tab_reader rd = {0};
	size_t cap = 0, len = 0;
	char *buf = NULL;
	int fd, ret;

	if (!out || !path)
		return MNTKIT__MISUSE(EINVAL, "a NULL %s", out ? "path" :
							       "out pointer");
	*out = NULL;
	ret = opts_in(topts, &rd);
	if (ret)
		return mntkit__fail(-ret);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mntkit__fail(errno);
	ret = mntkit__mi_read(fd, &buf, &cap, &len);
	close(fd);
	if (ret) {
		free(buf);
		return mntkit__fail(-ret);
	}
	ret = read_common(&rd, buf, len, out);
	free(buf);
	return ret;
}

static const char *pool_at(const struct mntkit__tab *x, uint32_t off)
{
	return off == TAB_NONE ? NULL : x->pool + off;
}

int mntkit_table_tab_entry(const struct mntkit_table *t, size_t idx,
			   struct mntkit_tab_entry *e)
{
	const struct mntkit__tab *x = t ? t->tab : NULL;
	const struct mntkit__tab_rec *r;
	struct mntkit_tab_entry v;

	if (!t || !e)
		return MNTKIT__MISUSE(EINVAL, "a NULL %s", t ? "entry" : "table");
	if (e->size < MNTKIT_TAB_ENTRY_SIZE_VER0)
		return mntkit__short_size("struct mntkit_tab_entry", e->size,
					  MNTKIT_TAB_ENTRY_SIZE_VER0,
					  "MNTKIT_TAB_ENTRY");
	if (!x)
		return mntkit__fail(ENODATA);
	if (idx >= x->n)
		return mntkit__fail(EINVAL);
	r = &x->rec[idx];
	memset(&v, 0, sizeof(v));
	v.format = x->format;
	v.line = r->line;
	v.freq = r->freq;
	v.passno = r->passno;
	v.options = pool_at(x, r->options);
	v.vfs_options = pool_at(x, r->vfs_options);
	v.fs_options = pool_at(x, r->fs_options);
	v.user_options = pool_at(x, r->user_options);
	v.attrs = pool_at(x, r->attrs);
	mntkit__sized_out(e, e->size, &v, sizeof(v), sizeof(v.size));
	return 0;
}
