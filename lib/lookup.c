// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Lookups: a mount of a table by target, source or device, the mount that
 * contains a path, whether a path is a mount point; the canonical form of
 * a path, made without ever looking through a served filesystem.
 *
 * Tables are read through the public accessors only (mntkit_table_get(),
 * the tree links), so this file does not depend on how table.c stores
 * them. A served filesystem (mntkit_path_served()) is never looked
 * through: mntkit_path_canon() takes what lies beyond one as written.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

#define MAX_SYMLINKS 40

/* ---- paths as strings ---- */

/* the length of @s without its trailing slashes ("/" keeps its one) */
static size_t trimmed_len(const char *s, size_t len)
{
	while (len > 1 && s[len - 1] == '/')
		len--;
	return len;
}

/*
 * The next segment of a path, "/name" (a run of slashes counts as one),
 * or NULL at its end (*@len 0)
 */
static const char *path_segment(const char *s, size_t *len)
{
	size_t n = 1;

	while (s[0] == '/' && s[1] == '/')
		s++;
	*len = 0;
	if (!*s)
		return NULL;
	while (s[n] && s[n] != '/')
		n++;
	*len = n;
	return s;
}

/*
 * libmount's streq_paths(): the same segments, but for a run of slashes
 * and a trailing slash ("/a//b/" is "/a/b"; "" is "/")
 */
static bool same_path(const char *a, const char *b)
{
	for (;;) {
		size_t la, lb;
		const char *sa = path_segment(a, &la), *sb = path_segment(b, &lb);

		if (la + lb == 0)
			return true;
		if (la + lb == 1 && ((sa && *sa == '/') || (sb && *sb == '/')))
			return true; /* a trailing slash */
		if (!sa || !sb || la != lb || memcmp(sa, sb, la))
			return false;
		a = sa + la;
		b = sb + lb;
	}
}

/* a growing string */
struct sbuf {
	char *s;
	size_t len, cap;
};

static int sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (mntkit__reserve(&b->s, &b->cap, b->len + n + 1, 1, 64))
		return -ENOMEM;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

/* take the last component off the absolute path @b ("/" stays) */
static void sbuf_pop(struct sbuf *b)
{
	while (b->len > 1 && b->s[b->len - 1] != '/')
		b->len--;
	if (b->len > 1)
		b->len--;
	b->s[b->len] = '\0';
}

/* append component @c (@n bytes) to the absolute path @b */
static int sbuf_push(struct sbuf *b, const char *c, size_t n)
{
	int r = 0;

	if (b->len > 1)
		r = sbuf_add(b, "/", 1);
	return r ? r : sbuf_add(b, c, n);
}

/* the start of an absolute path: "/", or the working directory */
static int path_start(struct sbuf *b, const char *path)
{
	char *cwd;
	int r;

	if (path[0] == '/')
		return sbuf_add(b, "/", 1);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return -errno;
	if (cwd[0] != '/') { /* "(unreachable)/...": outside our root */
		free(cwd);
		return -ENOENT;
	}
	r = sbuf_add(b, cwd, strlen(cwd));
	free(cwd);
	return r;
}

/* the next component of *@p: its start and length; false at the end */
static bool next_comp(const char **p, const char **c, size_t *n)
{
	const char *s = *p;

	while (*s == '/')
		s++;
	if (!*s)
		return false;
	*c = s;
	while (*s && *s != '/')
		s++;
	*n = (size_t)(s - *c);
	*p = s;
	return true;
}

static bool is_last(const char *p)
{
	while (*p == '/')
		p++;
	return !*p;
}

/* @path made absolute and lexical (no filesystem access but getcwd) */
static int lexical(const char *path, char **out)
{
	struct sbuf b = {0};
	const char *p = path, *c;
	size_t n;
	int r = path_start(&b, path);

	while (!r && next_comp(&p, &c, &n)) {
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.')
			sbuf_pop(&b);
		else
			r = sbuf_push(&b, c, n);
	}
	if (r) {
		free(b.s);
		return r;
	}
	*out = b.s;
	return 0;
}

/* ---- mntkit_path_canon() ---- */

/* the symlink at @path, as a malloc'd string */
static int read_link(const char *path, char **out)
{
	size_t cap = 256;

	for (;;) {
		char *buf = malloc(cap);
		ssize_t n;

		if (!buf)
			return -ENOMEM;
		n = readlink(path, buf, cap);
		if (n < 0) {
			int err = errno;

			free(buf);
			return -err;
		}
		if ((size_t)n < cap) {
			buf[n] = '\0';
			*out = buf;
			return 0;
		}
		free(buf);
		if (cap >= (1U << 20))
			return -ENAMETOOLONG;
		cap *= 2;
	}
}

/*
 * The resolution: @b holds the canonical path so far, @todo what is left.
 * A symlink's target is put in front of what is left. From the first
 * component that cannot be looked at (lexical), the rest is lexical.
 */
static int canon_walk(struct sbuf *b, char *todo, unsigned int flags)
{
	const char *p = todo, *c;
	bool lex = false;
	int links = 0, r = 0;
	size_t n;

	while (!r && next_comp(&p, &c, &n)) {
		struct stat st;
		char *target = NULL, *rest;
		size_t tlen;

		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			sbuf_pop(b);
			continue;
		}
		r = sbuf_push(b, c, n);
		if (r || lex)
			continue;
		r = mntkit_path_served(b->s);
		if (r < 0)
			break;
		if (r == 1) { /* never look into a served filesystem */
			lex = true;
			r = 0;
			continue;
		}
		if ((flags & MNTKIT_LOOKUP_F_NOFOLLOW) && is_last(p))
			break;
		if (fstatat(AT_FDCWD, b->s, &st,
			    AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT)) {
			lex = true; /* no such file, no access: as written */
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++links > MAX_SYMLINKS) {
			r = -ELOOP;
			break;
		}
		r = read_link(b->s, &target);
		if (r)
			break;
		sbuf_pop(b);
		if (target[0] == '/') {
			b->len = 1;
			b->s[1] = '\0';
		}
		tlen = strlen(target);
		rest = malloc(tlen + 1 + strlen(p) + 1);
		if (!rest) {
			free(target);
			r = -ENOMEM;
			break;
		}
		memcpy(rest, target, tlen);
		rest[tlen] = '/';
		strcpy(rest + tlen + 1, p);
		free(target);
		free(todo);
		todo = rest;
		p = todo;
	}
	free(todo);
	return r;
}

int mntkit_path_canon(const char *path, unsigned int flags, char **out)
{
	struct sbuf b = {0};
	char *todo;
	int r;

	if (out)
		*out = NULL;
	if (!path || !*path || !out || (flags & ~MNTKIT_LOOKUP_F_NOFOLLOW))
		return mntkit__fail(EINVAL);
	todo = strdup(path);
	if (!todo)
		return mntkit__fail(ENOMEM);
	r = path_start(&b, path);
	if (r) {
		free(todo);
		free(b.s);
		return mntkit__fail(-r);
	}
	r = canon_walk(&b, todo, flags);
	if (r) {
		free(b.s);
		return mntkit__fail(-r);
	}
	*out = b.s;
	return 0;
}

/* ---- records ---- */

static const char *sm_string(const struct mntkit_statmount *sm,
			     enum mntkit_field field)
{
	const char *s;

	return sm && mntkit_sm_str(sm, sm->size, field, &s) == 0 ? s : NULL;
}

static int sm_match(const struct mntkit_statmount *sm, size_t len,
		    enum mntkit_field field, const char *want,
		    unsigned int flags)
{
	const char *s;
	int r;

	if (!sm || !want || flags)
		return mntkit__fail(EINVAL);
	r = mntkit_sm_str(sm, len, field, &s);
	if (r < 0)
		return r;
	return same_path(s, want);
}

int mntkit_sm_match_target(const struct mntkit_statmount *sm, size_t len,
			   const char *path, unsigned int flags)
{
	return sm_match(sm, len, MNTKIT_FIELD_MNT_POINT, path, flags);
}

int mntkit_sm_match_source(const struct mntkit_statmount *sm, size_t len,
			   const char *source, unsigned int flags)
{
	return sm_match(sm, len, MNTKIT_FIELD_SB_SOURCE, source, flags);
}

/* ---- tables ---- */

/*
 * The visible mount of those on @idx's mount point: up the children on
 * that same mount point (the mounts stacked on it), the last of each.
 * A table without a tree (a file) has no children: @idx itself.
 */
static ssize_t stack_top(const struct mntkit_table *t, size_t idx)
{
	for (int guard = 0; guard < 4096; guard++) {
		const char *pt = sm_string(mntkit_table_get(t, idx),
					   MNTKIT_FIELD_MNT_POINT);
		ssize_t top = -1;

		if (!pt)
			break;
		for (ssize_t c = mntkit_table_first_child(t, idx); c >= 0;
		     c = mntkit_table_next_sibling(t, (size_t)c)) {
			const char *cp =
				sm_string(mntkit_table_get(t, (size_t)c),
					  MNTKIT_FIELD_MNT_POINT);

			if (cp && same_path(cp, pt))
				top = c;
		}
		if (top < 0)
			break;
		idx = (size_t)top;
	}
	return (ssize_t)idx;
}

typedef bool (*match_fn)(const struct mntkit_statmount *sm, const void *arg);

/* the first or last (by @flags) record @fn accepts, -1 when none */
static ssize_t scan(const struct mntkit_table *t, match_fn fn, const void *arg,
		    unsigned int flags)
{
	size_t n = mntkit_table_count(t);

	for (size_t k = 0; k < n; k++) {
		size_t i = flags & MNTKIT_LOOKUP_F_FIRST ? k : n - 1 - k;

		if (fn(mntkit_table_get(t, i), arg))
			return (ssize_t)i;
	}
	return -1;
}

static bool target_is(const struct mntkit_statmount *sm, const void *arg)
{
	const char *pt = sm_string(sm, MNTKIT_FIELD_MNT_POINT);

	return pt && same_path(pt, arg);
}

static ssize_t not_found(void)
{
	return mntkit__fail(ENOENT);
}

ssize_t mntkit_table_find_target(const struct mntkit_table *table,
				 const char *path, unsigned int flags)
{
	ssize_t i;
	char *canon;
	int r;

	if (!table || !path ||
	    (flags & ~(MNTKIT_LOOKUP_F_FIRST | MNTKIT_LOOKUP_F_CANON)))
		return mntkit__fail(EINVAL);
	i = scan(table, target_is, path, flags);
	if (i < 0 && (flags & MNTKIT_LOOKUP_F_CANON) && *path) {
		r = mntkit_path_canon(path, 0, &canon);
		if (r < 0)
			return r;
		i = scan(table, target_is, canon, flags);
		free(canon);
	}
	if (i < 0)
		return not_found();
	return flags & MNTKIT_LOOKUP_F_FIRST ? i : stack_top(table, (size_t)i);
}

/* ---- sources and tags ---- */

static const struct {
	const char *name, *dir;
} tags[] = {
	{"LABEL", "/dev/disk/by-label/"},
	{"UUID", "/dev/disk/by-uuid/"},
	{"PARTLABEL", "/dev/disk/by-partlabel/"},
	{"PARTUUID", "/dev/disk/by-partuuid/"},
};

/* udev's encoding of a name in /dev/disk/by-*: \xHH but for safe bytes */
static int udev_encode(struct sbuf *b, const char *v, size_t n)
{
	int r = 0;

	for (size_t i = 0; i < n && !r; i++) {
		unsigned char ch = (unsigned char)v[i];
		char hex[5];

		if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
		    (ch >= 'A' && ch <= 'Z') || strchr("#+-.:=@_", ch) ||
		    ch >= 0x80) {
			r = sbuf_add(b, v + i, 1);
			continue;
		}
		snprintf(hex, sizeof(hex), "\\x%02x", ch);
		r = sbuf_add(b, hex, 4);
	}
	return r;
}

/*
 * The device a tag names, by udev's link (its canonical path), NULL when
 * @src is no tag or no link names it. -ENOMEM only is an error.
 */
static int tag_device(const char *src, char **dev)
{
	const char *eq = strchr(src, '='), *v;
	struct sbuf b = {0};
	const char *dir = NULL;
	size_t vlen;
	int r;

	*dev = NULL;
	if (!eq)
		return 0;
	for (size_t i = 0; i < MNTKIT_ARRAY_SIZE(tags); i++)
		if (strlen(tags[i].name) == (size_t)(eq - src) &&
		    !memcmp(src, tags[i].name, (size_t)(eq - src)))
			dir = tags[i].dir;
	if (!dir) /* no tag */
		return 0;
	r = sbuf_add(&b, dir, strlen(dir));
	v = eq + 1;
	vlen = strlen(v);
	if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"') {
		v++;
		vlen -= 2;
	}
	if (r || !vlen || (r = udev_encode(&b, v, vlen))) {
		free(b.s);
		return r;
	}
	if (access(b.s, F_OK) == 0)
		r = mntkit_path_canon(b.s, 0, dev);
	free(b.s);
	return r == -ENOMEM ? r : 0;
}

/* the canonical form of a source: a tag's device, a path's canon */
static int source_canon(const char *src, char **out)
{
	int r;

	*out = NULL;
	r = tag_device(src, out);
	if (r || *out)
		return r;
	if (src[0] != '/')
		return 0;
	r = mntkit_path_canon(src, 0, out);
	return r == -ENOMEM ? r : 0;
}

static bool source_is(const struct mntkit_statmount *sm, const void *arg)
{
	const char *src = sm_string(sm, MNTKIT_FIELD_SB_SOURCE);

	return src && same_path(src, arg);
}

static bool source_canon_is(const struct mntkit_statmount *sm, const void *arg)
{
	const char *src = sm_string(sm, MNTKIT_FIELD_SB_SOURCE);
	char *canon;
	bool same;

	if (!src)
		return false;
	if (same_path(src, arg))
		return true;
	if (source_canon(src, &canon) || !canon)
		return false;
	same = !strcmp(canon, arg);
	free(canon);
	return same;
}

ssize_t mntkit_table_find_source(const struct mntkit_table *table,
				 const char *source, unsigned int flags)
{
	char *canon;
	ssize_t i;
	int r;

	if (!table || !source ||
	    (flags & ~(MNTKIT_LOOKUP_F_FIRST | MNTKIT_LOOKUP_F_CANON)))
		return mntkit__fail(EINVAL);
	i = scan(table, source_is, source, flags);
	if (i >= 0 || !(flags & MNTKIT_LOOKUP_F_CANON))
		return i >= 0 ? i : not_found();
	r = source_canon(source, &canon);
	if (r < 0)
		return mntkit__fail(-r);
	if (!canon)
		return not_found();
	i = scan(table, source_canon_is, canon, flags);
	free(canon);
	return i >= 0 ? i : not_found();
}

/* ---- device numbers ---- */

static bool devno_is(const struct mntkit_statmount *sm, const void *arg)
{
	const dev_t *d = arg;

	return sm && (sm->mask & MNTKIT_STATMOUNT_SB_BASIC) &&
	       sm->sb_dev_major == major(*d) && sm->sb_dev_minor == minor(*d);
}

ssize_t mntkit_table_find_devno(const struct mntkit_table *table, dev_t devno,
				unsigned int flags)
{
	MNTKIT_TAB_ENTRY(e);
	ssize_t i;

	if (!table || (flags & ~MNTKIT_LOOKUP_F_FIRST))
		return mntkit__fail(EINVAL);
	/* an fstab's SB_BASIC has sb_flags, no device: never a match */
	if (mntkit_table_tab_entry(table, 0, &e) == 0 &&
	    e.format != MNTKIT_TAB_MOUNTINFO)
		return not_found();
	i = scan(table, devno_is, &devno, flags);
	return i >= 0 ? i : not_found();
}

/* ---- the mount that contains a path ---- */

/* the length of @pt when it is a prefix of @path at a '/', else 0 */
static size_t prefix_len(const char *pt, const char *path, size_t plen)
{
	size_t len = trimmed_len(pt, strlen(pt));

	if (pt[0] != '/' || len > plen || memcmp(pt, path, len))
		return 0;
	if (len == 1 || len == plen || path[len] == '/')
		return len;
	return 0;
}

ssize_t mntkit_table_find_containing(const struct mntkit_table *table,
				     const char *path, unsigned int flags)
{
	size_t n, best_len = 0, plen;
	ssize_t best = -1;
	char *abs;
	int r;

	if (!table || !path || !*path || (flags & ~MNTKIT_LOOKUP_F_CANON))
		return mntkit__fail(EINVAL);
	r = flags & MNTKIT_LOOKUP_F_CANON ? mntkit_path_canon(path, 0, &abs)
					: lexical(path, &abs);
	if (r < 0)
		return mntkit__fail(-r);
	plen = strlen(abs);
	n = mntkit_table_count(table);
	for (size_t i = 0; i < n; i++) {
		const char *pt = sm_string(mntkit_table_get(table, i),
					   MNTKIT_FIELD_MNT_POINT);
		size_t len = pt ? prefix_len(pt, abs, plen) : 0;

		if (len && len >= best_len) {
			best = (ssize_t)i;
			best_len = len;
		}
	}
	free(abs);
	if (best < 0)
		return not_found();
	return stack_top(table, (size_t)best);
}

/* ---- every mount at or below a path ---- */

/* is mount point @pt @path (@plen bytes, canonical) or below it? */
static bool at_or_below(const char *pt, const char *path, size_t plen)
{
	size_t len = trimmed_len(pt, strlen(pt));

	if (pt[0] != '/')
		return false;
	if (plen == 1) /* "/" */
		return true;
	return len >= plen && !memcmp(pt, path, plen) &&
	       (len == plen || pt[plen] == '/');
}

/* does @opts name a namespace other than the caller's own? */
static int other_namespace(const struct mntkit_opts *opts)
{
	struct mntkit_mnt_id_req req;
	int fd, r;

	if (!opts)
		return 0;
	r = mntkit__req_init(&req, opts, &fd);
	if (fd >= 0)
		close(fd);
	return r < 0 ? r : mntkit__req_foreign(&req);
}

/*
 * The mounts of @t whose mount point is @path or below, in tree order
 * (a parent before its children, siblings by ascending ID): an
 * iterative walk of every root's subtree.
 */
static int collect_under(const struct mntkit_table *t, const char *path,
			 struct mntkit_idvec *iv)
{
	size_t plen = strlen(path);

	for (ssize_t r = mntkit_table_first_root(t); r >= 0;
	     r = mntkit_table_next_sibling(t, (size_t)r)) {
		for (ssize_t i = r; i >= 0;
		     i = mntkit_table_next_preorder(t, (size_t)i, (size_t)r)) {
			const struct mntkit_statmount *sm =
				mntkit_table_get(t, (size_t)i);
			const char *pt = sm_string(sm, MNTKIT_FIELD_MNT_POINT);

			if (!pt || !at_or_below(pt, path, plen))
				continue;
			if (mntkit__idvec_reserve(iv, 1))
				return -ENOMEM;
			iv->v[iv->n++] = sm->mnt_id;
		}
	}
	return 0;
}

ssize_t mntkit_list_under(const char *path, unsigned int flags,
			  const struct mntkit_opts *opts, uint64_t **ids)
{
	MNTKIT__PIN();
	struct mntkit_idvec iv = { 0 };
	struct mntkit_table *t = NULL;
	char *abs = NULL;
	int r;

	if (!ids)
		return MNTKIT__MISUSE(EINVAL, "a NULL ids pointer");
	*ids = NULL;
	if (!path || !*path)
		return MNTKIT__MISUSE(EINVAL, "%s path", path ? "an empty" :
							      "a NULL");
	if (flags & ~MNTKIT_LIST_F_CHILDREN_FIRST)
		return MNTKIT__MISUSE(EINVAL, "unknown flags %#x",
				      flags & ~MNTKIT_LIST_F_CHILDREN_FIRST);
	/* a path of another namespace cannot be looked at from here */
	r = other_namespace(opts);
	if (r >= 0)
		r = r ? lexical(path, &abs) : mntkit_path_canon(path, 0, &abs);
	if (r >= 0)
		r = mntkit_table_new(MNTKIT_STATMOUNT_MNT_BASIC |
				     MNTKIT_STATMOUNT_MNT_POINT, 0, opts, &t);
	if (r >= 0)
		r = collect_under(t, abs, &iv);
	mntkit_table_free(t);
	free(abs);
	if (r < 0) {
		free(iv.v);
		return mntkit__fail(-r);
	}
	if (flags & MNTKIT_LIST_F_CHILDREN_FIRST)
		mntkit__reverse_u64(iv.v, iv.n);
	*ids = iv.v;
	return (ssize_t)iv.n;
}

/* ---- is a path a mount point ---- */

/* from the caller's table: is the canonical @path a mount point? */
static int table_says(const char *path)
{
	struct mntkit_table *t;
	ssize_t i;
	int r;

	r = mntkit_table_new(MNTKIT_STATMOUNT_MNT_POINT, 0, NULL, &t);
	if (r < 0)
		return r;
	i = scan(t, target_is, path, 0);
	mntkit_table_free(t);
	return i >= 0;
}

/* the mount IDs of @path and of its parent compared */
static int ids_differ(const char *path)
{
	uint64_t id, up;
	char *parent;
	int r;

	if (!strcmp(path, "/"))
		return 1;
	r = mntkit_path_id(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, &id);
	if (r < 0)
		return r;
	parent = strdup(path);
	if (!parent)
		return -ENOMEM;
	*strrchr(parent, '/') = '\0';
	r = mntkit_path_id(AT_FDCWD, *parent ? parent : "/", 0, &up);
	free(parent);
	if (r < 0)
		return r;
	return id != up;
}

/*
 * statx's STATX_ATTR_MOUNT_ROOT (5.8+); without it (an older kernel, or
 * a filter that refuses statx) the mount IDs
 */
static int stat_says(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, 0,
		  &stx) == 0) {
		if (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
			return !!(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	} else if (!mntkit__native_refused(MNTKIT_REFUSED_STATX)) {
		return -errno;
	}
	return ids_differ(path);
}

int mntkit_is_mountpoint(const char *path, unsigned int flags)
{
	char *canon;
	int r;

	if (!path || !*path || (flags & ~MNTKIT_LOOKUP_F_NOFOLLOW))
		return mntkit__fail(EINVAL);
	r = mntkit_path_canon(path, flags, &canon);
	if (r < 0)
		return r;
	r = mntkit_path_served(canon);
	if (r == 1)
		r = table_says(canon);
	else if (r == 0)
		r = stat_says(canon);
	free(canon);
	return r < 0 ? mntkit__fail(-r) : r;
}
