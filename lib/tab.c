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
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mountinfo.h"
#include "table.h"

#define NONE UINT32_MAX

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

/* ---- growing buffers ---- */

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_room(struct buf *b, size_t n)
{
	if (n > SIZE_MAX / 4 - b->len)
		return -ENOMEM;
	return mntkit__reserve(&b->p, &b->cap, b->len + n, 1, 256);
}

static int buf_put(struct buf *b, const void *s, size_t n)
{
	int ret = buf_room(b, n);

	if (ret)
		return ret;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

/* ---- a record being made: the fixed part, then the strings ---- */

static struct mntkit_statmount *rec_sm(struct buf *r)
{
	return (struct mntkit_statmount *)r->p;
}

static int rec_begin(struct buf *r)
{
	int ret;

	r->len = 0;
	ret = buf_room(r, MNTKIT_STATMOUNT_FIXED_SIZE + 256);
	if (ret)
		return ret;
	memset(r->p, 0, MNTKIT_STATMOUNT_FIXED_SIZE);
	r->len = MNTKIT_STATMOUNT_FIXED_SIZE;
	return 0;
}

/* a string of @n bytes into the [str] field at offset @field_off */
static int rec_str(struct buf *r, uint64_t flag, size_t field_off,
		   const char *s, size_t n)
{
	uint32_t off = (uint32_t)(r->len - MNTKIT_STATMOUNT_FIXED_SIZE);
	int ret = buf_put(r, s, n);

	if (!ret)
		ret = buf_put(r, "", 1);
	if (ret)
		return ret;
	memcpy(r->p + field_off, &off, sizeof(off));
	rec_sm(r)->mask |= flag;
	return 0;
}

#define REC_STR(r, flag, field, s, n)                                          \
	rec_str((r), MNTKIT_STATMOUNT_##flag,                                  \
		offsetof(struct mntkit_statmount, field), (s), (n))

/* a comma-separated list as a [strv] field (empty words dropped) */
static int rec_strv(struct buf *r, uint64_t flag, size_t field_off,
		    size_t num_off, const char *s, size_t n, int unescape)
{
	uint32_t off = (uint32_t)(r->len - MNTKIT_STATMOUNT_FIXED_SIZE);
	uint32_t count = 0;
	size_t i = 0;
	int ret;

	while (i < n) {
		size_t b = i, l;

		while (i < n && s[i] != ',')
			i++;
		if (i > b) {
			ret = buf_put(r, s + b, i - b);
			if (!ret)
				ret = buf_put(r, "", 1);
			if (ret)
				return ret;
			if (unescape) {
				char *w = r->p + r->len - (i - b) - 1;

				l = mntkit__unescape(w, w, i - b);
				w[l] = '\0';
				r->len -= (i - b) - l;
			}
			count++;
		}
		i++;
	}
	memcpy(r->p + field_off, &off, sizeof(off));
	memcpy(r->p + num_off, &count, sizeof(count));
	rec_sm(r)->mask |= flag;
	return 0;
}

static int rec_end(struct buf *r)
{
	int ret = buf_room(r, 8);

	if (ret)
		return ret;
	rec_sm(r)->size = (uint32_t)r->len;
	return 0;
}

/* ---- what a read collects ---- */

struct reader {
	struct mntkit_tab_opts *o; /* NULL: defaults */
	unsigned int flags;
	enum mntkit_tab_format format;
	struct buf rec;      /* the record being made */
	struct buf recs;     /* the records, back to back, 8-aligned */
	size_t *rec_off;     /* per entry: its offset in recs */
	struct buf pool;     /* the strings of the entries' file data */
	struct mntkit__tab_rec *x;
	uint32_t *old, *parent_old; /* per entry (mountinfo, utab) */
	size_t n, cap;
	/* the first malformed line */
	size_t nr_bad, err_line, err_col;
	const char *err_msg;
};

static int bad(struct reader *rd, size_t line, size_t col, const char *msg)
{
	if (!rd->nr_bad++) {
		rd->err_line = line;
		rd->err_col = col;
		rd->err_msg = msg;
	}
	return -EBADMSG;
}

/* room for one more entry in each of the per-entry arrays */
static int grow_entries(struct reader *rd)
{
	struct {
		void *arr;
		size_t size;
	} each[] = {
		{ &rd->rec_off, sizeof(*rd->rec_off) },
		{ &rd->x, sizeof(*rd->x) },
		{ &rd->old, sizeof(*rd->old) },
		{ &rd->parent_old, sizeof(*rd->parent_old) },
	};
	size_t cap = rd->cap;

	for (size_t i = 0; i < MNTKIT_ARRAY_SIZE(each); i++) {
		int ret;

		cap = rd->cap;
		ret = mntkit__grow(each[i].arr, &cap, rd->n + 1, each[i].size,
				   64);
		if (ret)
			return ret;
	}
	rd->cap = cap;
	return 0;
}

/* keep the record made in rd->rec as the next entry */
static int keep(struct reader *rd, const struct mntkit__tab_rec *x,
		uint32_t old, uint32_t parent_old)
{
	size_t pad;
	int ret;

	if (rd->n == rd->cap) {
		ret = grow_entries(rd);
		if (ret)
			return ret;
	}
	rec_sm(&rd->rec)->mnt_id = rd->n + 1;
	rec_sm(&rd->rec)->mnt_parent_id = rd->n + 1;
	ret = rec_end(&rd->rec);
	if (ret)
		return ret;
	pad = (8 - rd->recs.len % 8) % 8;
	ret = buf_put(&rd->recs, "\0\0\0\0\0\0\0", pad);
	if (ret)
		return ret;
	rd->rec_off[rd->n] = rd->recs.len;
	ret = buf_put(&rd->recs, rd->rec.p, rd->rec.len);
	if (ret)
		return ret;
	rd->x[rd->n] = *x;
	rd->old[rd->n] = old;
	rd->parent_old[rd->n] = parent_old;
	rd->n++;
	return 0;
}

/* a string of the pool: its offset, NONE when empty */
static int pool_str(struct reader *rd, const char *s, size_t n, uint32_t *off)
{
	int ret;

	*off = NONE;
	if (!n)
		return 0;
	if (rd->pool.len > UINT32_MAX - n - 1)
		return -EFBIG;
	*off = (uint32_t)rd->pool.len;
	ret = buf_put(&rd->pool, s, n);
	return ret ? ret : buf_put(&rd->pool, "", 1);
}

/* ---- fstab ---- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_odigit(char c)
{
	return c >= '0' && c <= '7';
}

/* libmount's unmangle: "\ooo" (three octal digits) is a byte; in place */
static size_t unmangle(char *s, size_t n)
{
	size_t i = 0, o = 0;

	while (i < n) {
		if (s[i] == '\\' && n - i >= 4 && is_odigit(s[i + 1]) &&
		    is_odigit(s[i + 2]) && is_odigit(s[i + 3])) {
			s[o++] = (char)(((s[i + 1] & 7) << 6) |
					((s[i + 2] & 7) << 3) | (s[i + 3] & 7));
			i += 4;
			continue;
		}
		s[o++] = s[i++];
	}
	return o;
}

/* the next blank-delimited word of [*p, e): its start and length */
static size_t word(char **p, char *e, char **w)
{
	char *q = *p;

	while (q < e && is_blank(*q))
		q++;
	*w = q;
	while (q < e && !is_blank(*q))
		q++;
	*p = q;
	return (size_t)(q - *w);
}

/* fstab's FREQ and PASSNO: strtol(3)'s digits, kept as an int */
static int number(const char *s, size_t n, int *out)
{
	uint64_t v = 0;
	size_t i = 0;
	int neg = 0;

	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (i == n)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (neg)
		v = -v;
	*out = (int)(uint32_t)v;
	return 0;
}

/* the VFS options of libmount's Linux map */
static const char *const vfs_words[] = {
	"ro", "rw", "exec", "noexec", "suid", "nosuid", "dev", "nodev",
	"sync", "async", "dirsync", "remount", "bind", "rbind", "mand",
	"nomand", "atime", "noatime", "iversion", "noiversion", "diratime",
	"nodiratime", "relatime", "norelatime", "strictatime",
	"nostrictatime", "lazytime", "nolazytime", "nosymfollow",
	"symfollow", "loud", "silent", "move", "private", "rprivate",
	"shared", "rshared", "slave", "rslave", "unbindable", "runbindable",
};

/*
 * libmount's userspace map: the words that take no value (with one,
 * "noauto=1" is a fs option), and those that take one ("user" or
 * "user=joe")
 */
static const char *const user_words[] = {
	"auto", "noauto", "nouser", "users", "nousers", "owner", "noowner",
	"group", "nogroup", "_netdev", "nofail",
};
static const char *const user_value_words[] = {
	"user", "comment", "loop", "offset", "sizelimit", "encryption",
	"helper", "uhelper",
};

static int in_list(const char *const *v, size_t nv, const char *w, size_t n,
		   int with_value)
{
	size_t k = n;

	if (with_value) {
		const char *eq = memchr(w, '=', n);

		if (eq)
			k = (size_t)(eq - w);
	}
	for (size_t i = 0; i < nv; i++)
		if (strlen(v[i]) == k && !memcmp(v[i], w, k) &&
		    (with_value || k == n))
			return 1;
	return 0;
}

enum opt_kind { OPT_VFS, OPT_FS, OPT_USER, OPT_DROP };

static enum opt_kind opt_kind(const char *w, size_t n)
{
	/* libmount's "defaults" (with a value too: it has no NOVAL) */
	if (n >= 8 && !memcmp(w, "defaults", 8) && (n == 8 || w[8] == '='))
		return OPT_DROP;
	if (in_list(vfs_words, MNTKIT_ARRAY_SIZE(vfs_words), w, n, 0))
		return OPT_VFS;
	if (n >= 2 && (w[0] == 'x' || w[0] == 'X') && w[1] == '-')
		return OPT_USER;
	if (in_list(user_words, MNTKIT_ARRAY_SIZE(user_words), w, n, 0) ||
	    in_list(user_value_words, MNTKIT_ARRAY_SIZE(user_value_words), w,
		    n, 1))
		return OPT_USER;
	return OPT_FS;
}

/* mnt_attr and sb_flags of a VFS option */
static void vfs_bits(const char *w, size_t n, uint64_t *attr, uint32_t *sb)
{
	static const struct {
		const char *w;
		uint64_t attr;
		uint32_t sb;
	} bits[] = {
		{ "ro", MNTKIT_MOUNT_ATTR_RDONLY, MNTKIT_SB_RDONLY },
		{ "nosuid", MNTKIT_MOUNT_ATTR_NOSUID, 0 },
		{ "nodev", MNTKIT_MOUNT_ATTR_NODEV, 0 },
		{ "noexec", MNTKIT_MOUNT_ATTR_NOEXEC, 0 },
		{ "noatime", MNTKIT_MOUNT_ATTR_NOATIME, 0 },
		{ "strictatime", MNTKIT_MOUNT_ATTR_STRICTATIME, 0 },
		{ "nodiratime", MNTKIT_MOUNT_ATTR_NODIRATIME, 0 },
		{ "nosymfollow", MNTKIT_MOUNT_ATTR_NOSYMFOLLOW, 0 },
		{ "sync", 0, MNTKIT_SB_SYNCHRONOUS },
		{ "dirsync", 0, MNTKIT_SB_DIRSYNC },
		{ "lazytime", 0, MNTKIT_SB_LAZYTIME },
	};

	if (n == 2 && !memcmp(w, "rw", 2)) {
		*attr &= ~MNTKIT_MOUNT_ATTR_RDONLY;
		*sb &= ~MNTKIT_SB_RDONLY;
		return;
	}
	for (size_t i = 0; i < MNTKIT_ARRAY_SIZE(bits); i++) {
		if (strlen(bits[i].w) != n || memcmp(bits[i].w, w, n))
			continue;
		if (bits[i].attr & MNTKIT_MOUNT_ATTR__ATIME)
			*attr &= ~MNTKIT_MOUNT_ATTR__ATIME;
		*attr |= bits[i].attr;
		*sb |= bits[i].sb;
	}
}

/* split @opt into the VFS, fs and user lists (comma-joined) */
static int split_opts(const char *opt, size_t n, struct buf part[3],
		      uint64_t *attr, uint32_t *sb)
{
	size_t i = 0;
	int ret;

	for (int k = 0; k < 3; k++)
		part[k].len = 0;
	while (i < n) {
		size_t b = i;
		enum opt_kind kind;
		struct buf *dst;
		int quoted = 0;

		/* a word ends at a comma outside double quotes (libmount) */
		while (i < n && (quoted || opt[i] != ',')) {
			if (opt[i] == '"')
				quoted = !quoted;
			i++;
		}
		if (i > b) {
			kind = opt_kind(opt + b, i - b);
			if (kind == OPT_VFS)
				vfs_bits(opt + b, i - b, attr, sb);
			if (kind != OPT_DROP) {
				dst = &part[kind];
				ret = dst->len ? buf_put(dst, ",", 1) : 0;
				if (!ret)
					ret = buf_put(dst, opt + b, i - b);
				if (ret)
					return ret;
			}
		}
		i++;
	}
	return 0;
}

static int fstab_record(struct reader *rd, char *f[4], size_t fl[4],
			struct mntkit__tab_rec *x)
{
	struct buf part[3] = { { 0 } };
	struct buf *r = &rd->rec;
	uint64_t attr = 0;
	uint32_t sb = 0;
	const char *dot;
	int ret;

	ret = rec_begin(r);
	if (!ret)
		ret = split_opts(f[3], fl[3], part, &attr, &sb);
	if (ret)
		goto out;
	rec_sm(r)->mask |= MNTKIT_STATMOUNT_MNT_BASIC | MNTKIT_STATMOUNT_SB_BASIC;
	rec_sm(r)->mnt_attr = attr;
	rec_sm(r)->sb_flags = sb;
	dot = memchr(f[2], '.', fl[2]);
	if (dot && dot > f[2] && dot + 1 < f[2] + fl[2]) {
		ret = REC_STR(r, FS_TYPE, fs_type, f[2], (size_t)(dot - f[2]));
		if (!ret)
			ret = REC_STR(r, FS_SUBTYPE, fs_subtype, dot + 1,
				      (size_t)(f[2] + fl[2] - dot - 1));
	} else {
		ret = REC_STR(r, FS_TYPE, fs_type, f[2], fl[2]);
	}
	if (!ret)
		ret = REC_STR(r, MNT_POINT, mnt_point, f[1], fl[1]);
	if (!ret)
		ret = REC_STR(r, MNT_OPTS, mnt_opts, part[OPT_FS].p ? part[OPT_FS].p : "",
			      part[OPT_FS].len);
	if (!ret)
		ret = rec_strv(r, MNTKIT_STATMOUNT_OPT_ARRAY,
			       offsetof(struct mntkit_statmount, opt_array),
			       offsetof(struct mntkit_statmount, opt_num),
			       part[OPT_FS].p, part[OPT_FS].len, 0);
	if (!ret)
		ret = REC_STR(r, SB_SOURCE, sb_source, f[0], fl[0]);
	if (!ret)
		ret = pool_str(rd, f[3], fl[3], &x->options);
	if (!ret)
		ret = pool_str(rd, part[OPT_VFS].p, part[OPT_VFS].len,
			       &x->vfs_options);
	if (!ret)
		ret = pool_str(rd, part[OPT_FS].p, part[OPT_FS].len,
			       &x->fs_options);
	if (!ret)
		ret = pool_str(rd, part[OPT_USER].p, part[OPT_USER].len,
			       &x->user_options);
	if (!ret)
		ret = keep(rd, x, 0, 0);
out:
	for (int k = 0; k < 3; k++)
		free(part[k].p);
	return ret;
}

/* one fstab line (@s, @n bytes, no newline), not blank nor a comment */
static int fstab_line(struct reader *rd, char *s, size_t n, size_t line)
{
	static const char *const missing[] = {
		"source missing", "mount point missing",
		"filesystem type missing"
	};
	struct mntkit__tab_rec x = { .line = line, .options = NONE,
				     .vfs_options = NONE, .fs_options = NONE,
				     .user_options = NONE, .attrs = NONE };
	char *p = s, *e = s + n, *f[4], *w;
	size_t fl[4], wl;

	for (int k = 0; k < 4; k++) {
		fl[k] = word(&p, e, &f[k]);
		if (!fl[k] && k < 3)
			return bad(rd, line, (size_t)(f[k] - s) + 1, missing[k]);
	}
	wl = word(&p, e, &w);
	if (wl && number(w, wl, &x.freq))
		return bad(rd, line, (size_t)(w - s) + 1, "bad dump frequency");
	if (wl) {
		wl = word(&p, e, &w);
		if (wl && number(w, wl, &x.passno))
			return bad(rd, line, (size_t)(w - s) + 1,
				   "bad pass number");
	}
	/* anything after PASSNO is ignored, as libmount does */
	for (int k = 0; k < 4; k++)
		fl[k] = unmangle(f[k], fl[k]);
	return fstab_record(rd, f, fl, &x);
}

/* ---- utab ---- */

static int utab_line(struct reader *rd, char *s, size_t n, size_t line)
{
	static const char *const keys[] = { "ID=", "SRC=", "TARGET=", "ROOT=",
					    "BINDSRC=", "OPTS=", "ATTRS=" };
	struct mntkit__tab_rec x = { .line = line, .options = NONE,
				     .vfs_options = NONE, .fs_options = NONE,
				     .user_options = NONE, .attrs = NONE };
	char *p = s, *e = s + n, *w, *val[MNTKIT_ARRAY_SIZE(keys)] = { 0 };
	size_t wl, vl[MNTKIT_ARRAY_SIZE(keys)] = { 0 };
	struct buf *r = &rd->rec;
	int id = 0, ret;

	while ((wl = word(&p, e, &w))) {
		size_t k;

		for (k = 0; k < MNTKIT_ARRAY_SIZE(keys); k++)
			if (wl >= strlen(keys[k]) &&
			    !memcmp(w, keys[k], strlen(keys[k])))
				break;
		if (k == MNTKIT_ARRAY_SIZE(keys))
			continue; /* libmount passes unknown keys over */
		val[k] = w + strlen(keys[k]);
		vl[k] = unmangle(val[k], wl - strlen(keys[k]));
		if (k == 0 && (number(val[0], vl[0], &id) || id < 0))
			return bad(rd, line, (size_t)(w - s) + 4, "bad ID");
	}
	if (!val[2] || !vl[2])
		return bad(rd, line, n + 1, "TARGET= missing");
	ret = rec_begin(r);
	if (ret)
		return ret;
	rec_sm(r)->mask |= MNTKIT_STATMOUNT_MNT_BASIC;
	rec_sm(r)->mnt_id_old = (uint32_t)id;
	ret = REC_STR(r, MNT_POINT, mnt_point, val[2], vl[2]);
	if (!ret && val[3])
		ret = REC_STR(r, MNT_ROOT, mnt_root, val[3], vl[3]);
	if (!ret && val[1])
		ret = REC_STR(r, SB_SOURCE, sb_source, val[1], vl[1]);
	if (!ret && val[5])
		ret = pool_str(rd, val[5], vl[5], &x.user_options);
	if (!ret && val[6])
		ret = pool_str(rd, val[6], vl[6], &x.attrs);
	return ret ? ret : keep(rd, &x, (uint32_t)id, 0);
}

/* ---- mountinfo ---- */

static int mountinfo_record(struct reader *rd, const struct mntkit_mi_table *t,
			    const struct mntkit_mi *m, size_t line)
{
	const struct mntkit__tab_rec x = { .line = line, .options = NONE,
					   .vfs_options = NONE,
					   .fs_options = NONE,
					   .user_options = NONE,
					   .attrs = NONE };
	const char *opts = mntkit__mi_str(t, m->opts);
	struct buf *r = &rd->rec;
	struct mntkit_statmount *sm;
	uint64_t magic = 0;
	int statfs_ok, ret;

	ret = rec_begin(r);
	if (ret)
		return ret;
	sm = rec_sm(r);
	sm->mask = MNTKIT_STATMOUNT_MNT_BASIC | MNTKIT_STATMOUNT_SB_BASIC |
		   MNTKIT_STATMOUNT_PROPAGATE_FROM;
	sm->mnt_id_old = m->id;
	sm->mnt_parent_id_old = m->parent;
	sm->mnt_attr = m->attr;
	sm->mnt_propagation = mntkit__mi_propagation(m);
	sm->mnt_peer_group = m->shared;
	sm->mnt_master = m->master;
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
		ret = REC_STR(r, MNT_OPTS, mnt_opts, m->opts.len ? opts + 1 : "",
			      m->opts.len ? m->opts.len - 1 : 0);
	if (!ret)
		ret = rec_strv(r, MNTKIT_STATMOUNT_OPT_ARRAY,
			       offsetof(struct mntkit_statmount, opt_array),
			       offsetof(struct mntkit_statmount, opt_num),
			       opts + m->sec_len, m->opts.len - m->sec_len, 1);
	if (!ret)
		ret = rec_strv(r, MNTKIT_STATMOUNT_OPT_SEC_ARRAY,
			       offsetof(struct mntkit_statmount, opt_sec_array),
			       offsetof(struct mntkit_statmount, opt_sec_num),
			       opts, m->sec_len, 1);
	if (!ret && m->subtype.len)
		ret = REC_STR(r, FS_SUBTYPE, fs_subtype,
			      mntkit__mi_str(t, m->subtype), m->subtype.len);
	if (!ret)
		ret = REC_STR(r, SB_SOURCE, sb_source,
			      mntkit__mi_str(t, m->source), m->source.len);
	return ret ? ret : keep(rd, &x, m->id, m->parent);
}

/* one mountinfo line, through the emulation's parser */
static int mountinfo_line(struct reader *rd, char *s, size_t n, size_t line)
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
		ret = bad(rd, line, err.col, err.msg);
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
static ssize_t root_of(const struct reader *rd, const ssize_t *parent)
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
static ssize_t find_old(const struct reader *rd, const size_t *by_old,
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
static int link_parents(struct reader *rd, ssize_t *parent)
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

static int make_table(struct reader *rd, struct mntkit_table **out)
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

static void reader_free(struct reader *rd)
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
static int opts_in(struct mntkit_tab_opts *o, struct reader *rd)
{
	struct mntkit_tab_opts in;
	int ret;

	if (!o)
		return 0;
	ret = mntkit__sized_in(&in, sizeof(in), o, o->size,
			       MNTKIT_TAB_OPTS_SIZE_VER0);
	if (ret)
		return ret;
	if ((unsigned int)in.format > MNTKIT_TAB_UTAB)
		return -EINVAL;
	if (in.flags & ~MNTKIT_TAB_F_SKIP_BAD)
		return -EINVAL;
	rd->o = o;
	rd->format = o->format;
	rd->flags = o->flags;
	return 0;
}

/* what was found, into the caller's options (at least the first struct) */
static void opts_out(struct reader *rd)
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
static int entry_line(struct reader *rd, char *s, size_t n, size_t line)
{
	switch (rd->format) {
	case MNTKIT_TAB_MOUNTINFO:
		/* the column counts from the line's first byte */
		return mountinfo_line(rd, s, n, line);
	case MNTKIT_TAB_UTAB:
		return utab_line(rd, s, n, line);
	default:
		return fstab_line(rd, s, n, line);
	}
}

/* parse @len bytes at @s (a private copy: unescaped in place) */
static int parse(struct reader *rd, char *s, size_t len)
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
		while (b < eol && is_blank(s[b]))
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

static int read_common(struct reader *rd, char *s, size_t len,
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
	struct reader rd = { 0 };
	char *copy;
	int ret;

	if (!out)
		return mntkit__fail(EINVAL);
	*out = NULL;
	if (!buf && len)
		return mntkit__fail(EINVAL);
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
	struct reader rd = { 0 };
	size_t cap = 0, len = 0;
	char *buf = NULL;
	int fd, ret;

	if (!out || !path)
		return mntkit__fail(EINVAL);
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
	return off == NONE ? NULL : x->pool + off;
}

int mntkit_table_tab_entry(const struct mntkit_table *t, size_t idx,
			   struct mntkit_tab_entry *e)
{
	const struct mntkit__tab *x = t ? t->tab : NULL;
	const struct mntkit__tab_rec *r;
	struct mntkit_tab_entry v;

	if (!t || !e || e->size < MNTKIT_TAB_ENTRY_SIZE_VER0)
		return mntkit__fail(EINVAL);
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
