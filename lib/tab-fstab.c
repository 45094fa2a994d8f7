// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fstab(5) and libmount's utab lines (tab.h tells the formats), each made
 * a record: fstab's options split as libmount splits them (VFS, the
 * filesystem's, userspace's), the VFS words made statmount's attribute
 * and superblock bits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tab.h"

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

	while (q < e && tab_is_blank(*q))
		q++;
	*w = q;
	while (q < e && !tab_is_blank(*q))
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
static int split_opts(const char *opt, size_t n, struct tab_buf part[3],
		      uint64_t *attr, uint32_t *sb)
{
	size_t i = 0;
	int ret;

	for (int k = 0; k < 3; k++)
		part[k].len = 0;
	while (i < n) {
		size_t b = i;
		enum opt_kind kind;
		struct tab_buf *dst;
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
				ret = dst->len ? mntkit__tab_put(dst, ",", 1)
					       : 0;
				if (!ret)
					ret = mntkit__tab_put(dst, opt + b,
							      i - b);
				if (ret)
					return ret;
			}
		}
		i++;
	}
	return 0;
}

static int fstab_record(struct tab_reader *rd, char *f[4], size_t fl[4],
			struct mntkit__tab_rec *x)
{
	struct tab_buf part[3] = {{0}};
	struct tab_buf *r = &rd->rec;
	uint64_t attr = 0;
	uint32_t sb = 0;
	const char *dot;
	int ret;

	ret = mntkit__tab_rec_begin(r);
	if (!ret)
		ret = split_opts(f[3], fl[3], part, &attr, &sb);
	if (ret)
		goto out;
	tab_rec_sm(r)->mask |=
		MNTKIT_STATMOUNT_MNT_BASIC | MNTKIT_STATMOUNT_SB_BASIC;
	tab_rec_sm(r)->mnt_attr = attr;
	tab_rec_sm(r)->sb_flags = sb;
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
		ret = REC_STR(r, MNT_OPTS, mnt_opts,
			      part[OPT_FS].p ? part[OPT_FS].p : "",
			      part[OPT_FS].len);
	if (!ret)
		ret = mntkit__tab_rec_strv(
			r, MNTKIT_STATMOUNT_OPT_ARRAY,
			offsetof(struct mntkit_statmount, opt_array),
			offsetof(struct mntkit_statmount, opt_num),
			part[OPT_FS].p, part[OPT_FS].len, 0);
	if (!ret)
		ret = REC_STR(r, SB_SOURCE, sb_source, f[0], fl[0]);
	if (!ret)
		ret = mntkit__tab_pool_str(rd, f[3], fl[3], &x->options);
	if (!ret)
		ret = mntkit__tab_pool_str(rd, part[OPT_VFS].p,
					   part[OPT_VFS].len, &x->vfs_options);
	if (!ret)
		ret = mntkit__tab_pool_str(rd, part[OPT_FS].p, part[OPT_FS].len,
					   &x->fs_options);
	if (!ret)
		ret = mntkit__tab_pool_str(rd, part[OPT_USER].p,
					   part[OPT_USER].len,
					   &x->user_options);
	if (!ret)
		ret = mntkit__tab_keep(rd, x, 0, 0);
out:
	for (int k = 0; k < 3; k++)
		free(part[k].p);
	return ret;
}

/* one fstab line (@s, @n bytes, no newline), not blank nor a comment */
int mntkit__tab_fstab_line(struct tab_reader *rd, char *s, size_t n,
			   size_t line)
{
	static const char *const missing[] = {
		"source missing", "mount point missing",
		"filesystem type missing"
	};
	struct mntkit__tab_rec x = {.line = line,
				    .options = TAB_NONE,
				    .vfs_options = TAB_NONE,
				    .fs_options = TAB_NONE,
				    .user_options = TAB_NONE,
				    .attrs = TAB_NONE};
	char *p = s, *e = s + n, *f[4], *w;
	size_t fl[4], wl;

	for (int k = 0; k < 4; k++) {
		fl[k] = word(&p, e, &f[k]);
		if (!fl[k] && k < 3)
			return mntkit__tab_bad(rd, line, (size_t)(f[k] - s) + 1,
					       missing[k]);
	}
	wl = word(&p, e, &w);
	if (wl && number(w, wl, &x.freq))
		return mntkit__tab_bad(rd, line, (size_t)(w - s) + 1,
				       "bad dump frequency");
	if (wl) {
		wl = word(&p, e, &w);
		if (wl && number(w, wl, &x.passno))
			return mntkit__tab_bad(rd, line, (size_t)(w - s) + 1,
					       "bad pass number");
	}
	/* anything after PASSNO is ignored, as libmount does */
	for (int k = 0; k < 4; k++)
		fl[k] = unmangle(f[k], fl[k]);
	return fstab_record(rd, f, fl, &x);
}

/* ---- utab ---- */

int mntkit__tab_utab_line(struct tab_reader *rd, char *s, size_t n, size_t line)
{
	static const char *const keys[] = { "ID=", "SRC=", "TARGET=", "ROOT=",
					    "BINDSRC=", "OPTS=", "ATTRS=" };
	struct mntkit__tab_rec x = {.line = line,
				    .options = TAB_NONE,
				    .vfs_options = TAB_NONE,
				    .fs_options = TAB_NONE,
				    .user_options = TAB_NONE,
				    .attrs = TAB_NONE};
	char *p = s, *e = s + n, *w, *val[MNTKIT_ARRAY_SIZE(keys)] = { 0 };
	size_t wl, vl[MNTKIT_ARRAY_SIZE(keys)] = { 0 };
	struct tab_buf *r = &rd->rec;
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
			return mntkit__tab_bad(rd, line, (size_t)(w - s) + 4,
					       "bad ID");
	}
	if (!val[2] || !vl[2])
		return mntkit__tab_bad(rd, line, n + 1, "TARGET= missing");
	ret = mntkit__tab_rec_begin(r);
	if (ret)
		return ret;
	tab_rec_sm(r)->mask |= MNTKIT_STATMOUNT_MNT_BASIC;
	tab_rec_sm(r)->mnt_id_old = (uint32_t)id;
	ret = REC_STR(r, MNT_POINT, mnt_point, val[2], vl[2]);
	if (!ret && val[3])
		ret = REC_STR(r, MNT_ROOT, mnt_root, val[3], vl[3]);
	if (!ret && val[1])
		ret = REC_STR(r, SB_SOURCE, sb_source, val[1], vl[1]);
	if (!ret && val[5])
		ret = mntkit__tab_pool_str(rd, val[5], vl[5], &x.user_options);
	if (!ret && val[6])
		ret = mntkit__tab_pool_str(rd, val[6], vl[6], &x.attrs);
	return ret ? ret : mntkit__tab_keep(rd, &x, (uint32_t)id, 0);
}
