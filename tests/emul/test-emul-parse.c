// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The mountinfo parser, the kernel-style unescaping, the ID index and the
 * magic table, on crafted input (no privileges needed).
 */
#include "harness.h"

#include "internal.h"
#include "mntkit.h"
#include "mountinfo.h"

static struct mntkit_mi_table parse_ok(const char *text)
{
	struct mntkit_mi_table t = { 0 };
	struct mntkit_mi_err err = { 0 };
	char *buf = t_xstrdup(text);
	int ret = mntkit__mi_parse(&t, buf, strlen(buf), &err);

	if (ret)
		t_fail("parse failed (%d) at %zu:%zu: %s", ret, err.line,
		       err.col, err.msg);
	return t;
}

static void span_is(const struct mntkit_mi_table *t, struct mntkit_mi_span s,
		    const char *want, size_t want_len, const char *what)
{
	if (s.len != want_len || memcmp(t->buf + s.off, want, want_len))
		t_fail("%s: got %u bytes '%.*s', want '%s'", what, s.len,
		       (int)s.len, t->buf + s.off, want);
}

#define SPAN_IS(t, s, lit) span_is(t, s, lit, sizeof(lit) - 1, #s)

T_CASE(unescape_like_the_kernel)
{
	static const struct {
		const char *in, *out;
		size_t out_len;
	} c[] = {
		{ "a\\040b", "a b", 3 },
		{ "\\011\\012\\134", "\t\n\\", 3 },
		{ "\\777", "?7", 2 },      /* 2 digits once >= 32 */
		{ "\\101\\60", "A0", 2 },
		{ "\\x41", "\\x41", 4 },   /* not octal: kept */
		{ "end\\", "end\\", 4 },   /* trailing backslash */
		{ "\\0z", "\0z", 2 },      /* a NUL byte, kept */
		{ "\\12a", "\na", 2 },
		{ "\\\\040", "\\\\040", 5 }, /* the second '\' is copied */
		{ "\xc3\xbc", "\xc3\xbc", 2 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char buf[64];
		size_t n = strlen(c[i].in);

		memcpy(buf, c[i].in, n);
		n = mntkit__unescape(buf, buf, n);
		if (n != c[i].out_len || memcmp(buf, c[i].out, n))
			t_fail("unescape '%s': got %zu bytes", c[i].in, n);
	}
}

T_CASE(every_field)
{
	struct mntkit_mi_table t = parse_ok(
		"27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n"
		"30 27 0:40 /sub\\040dir /mnt/a\\011b\\012c\\134d "
		"ro,nosuid,nodev,noexec,noatime,nodiratime,nosymfollow,idmapped "
		"shared:7 master:3 propagate_from:2 unbindable - fuse.sshfs "
		"us\\040er@h: ro,sync,dirsync,mand,lazytime,context=\"a:b:c,d\","
		"seclabel,user_id=0,x=a\\054b\n"
		"31 30 0:41 //deleted /m\\040(deleted) rw,strict - tmpfs  rw\n"
		"32 30 0:42 / /n rw,foo future:1 - a.b.c none rw,size=1k\n");
	const struct mntkit_mi *m = &t.v[1];

	T_EQ_U(t.n, 4);
	T_EQ_U(t.v[0].id, 27);
	T_EQ_U(t.v[0].parent, 1);
	T_EQ_U(t.v[0].major, 254);
	T_EQ_U(t.v[0].attr, 0);
	T_EQ_U(t.v[0].shared, 1);
	SPAN_IS(&t, t.v[0].opts, ",discard");
	T_EQ_U(t.v[0].sec_len, 0);

	T_EQ_U(m->minor, 40);
	SPAN_IS(&t, m->root, "/sub dir");
	SPAN_IS(&t, m->point, "/mnt/a\tb\nc\\d");
	T_EQ_U(m->attr, MNTKIT_MOUNT_ATTR_RDONLY | MNTKIT_MOUNT_ATTR_NOSUID |
				MNTKIT_MOUNT_ATTR_NODEV | MNTKIT_MOUNT_ATTR_NOEXEC |
				MNTKIT_MOUNT_ATTR_NOATIME |
				MNTKIT_MOUNT_ATTR_NODIRATIME |
				MNTKIT_MOUNT_ATTR_NOSYMFOLLOW |
				MNTKIT_MOUNT_ATTR_IDMAP);
	T_EQ_U(m->shared, 7);
	T_EQ_U(m->master, 3);
	T_EQ_U(m->propagate_from, 2);
	T_EQ_U(m->unbindable, 1);
	SPAN_IS(&t, m->type, "fuse");
	SPAN_IS(&t, m->subtype, "sshfs");
	SPAN_IS(&t, m->source, "us er@h:");
	T_EQ_U(m->sb_flags, MNTKIT_SB_RDONLY | MNTKIT_SB_SYNCHRONOUS |
				    MNTKIT_SB_DIRSYNC | MNTKIT_SB_LAZYTIME);
	SPAN_IS(&t, m->opts,
		",context=\"a:b:c,d\",seclabel,user_id=0,x=a\\054b");
	T_EQ_U(m->sec_len, strlen(",context=\"a:b:c,d\",seclabel"));

	/* no atime word: strictatime; empty source; //deleted root */
	SPAN_IS(&t, t.v[2].root, "//deleted");
	SPAN_IS(&t, t.v[2].point, "/m (deleted)");
	T_EQ_U(t.v[2].source.len, 0);
	T_EQ_U(t.v[2].unknown_attr, 1); /* "strict" is no word we know */
	T_EQ_U(t.v[2].attr & MNTKIT_MOUNT_ATTR__ATIME,
	       MNTKIT_MOUNT_ATTR_STRICTATIME);
	/* unknown words and tags are flagged, not guessed */
	T_EQ_U(t.v[3].unknown_attr, 1);
	T_EQ_U(t.v[3].unknown_tag, 1);
	SPAN_IS(&t, t.v[3].type, "a");
	SPAN_IS(&t, t.v[3].subtype, "b.c");
	mntkit__mi_free(&t);
}

T_CASE(malformed_named_by_line_and_column)
{
	static const struct {
		const char *text;
		size_t line, col;
	} c[] = {
		{ "x 1 0:1 / / rw - t s rw\n", 1, 1 },
		{ "2 1 0:1 / / rw - t s rw\n2 1 01 / / rw - t s rw\n", 2, 5 },
		{ "2 1 0:1 / / rw shared:1 t s rw\n", 1, 31 },
		{ "2 1 0:1 / / rw - t s rw", 1, 24 },
		{ "2 1 0:1 / / xx - t s rw\n", 1, 13 },
		{ "2 1 0:1 / / rw - t s xx\n", 1, 22 },
		{ "2 1 0:1 / / rw shared:x - t s rw\n", 1, 23 },
		{ "2 1 0:1 / / rw shared:1 shared:2 - t s rw\n", 1, 25 },
		{ "2 1 0:1 /  rw - t s rw\n", 1, 11 },
		{ "\n", 1, 1 },
		{ "0 1 0:1 / / rw - t s rw\n", 1, 1 },
		{ "2 1 0:1 / / rw - .x s rw\n", 1, 18 },
		{ "99999999999 1 0:1 / / rw - t s rw\n", 1, 1 },
		{ "2 1 0:1 / / rw,,nosuid - t s rw\n", 1, 16 },
		{ "2 1 0:1 / / rw -\n", 1, 17 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct mntkit_mi_table t = { 0 };
		struct mntkit_mi_err err = { 0 };
		char *buf = t_xstrdup(c[i].text);
		int ret = mntkit__mi_parse(&t, buf, strlen(buf), &err);

		if (ret != -EBADMSG)
			t_fail("case %zu: parse returned %d", i, ret);
		if (err.line != c[i].line || err.col != c[i].col || !err.msg)
			t_fail("case %zu: error at %zu:%zu (%s), want %zu:%zu", i,
			       err.line, err.col, err.msg ? err.msg : "-",
			       c[i].line, c[i].col);
		mntkit__mi_free(&t);
		free(buf);
	}
}

T_CASE(very_long_line)
{
	size_t n = 1 << 20;
	char *text = t_xmalloc(n * 4 + 256), *p = text;
	struct mntkit_mi_table t;

	p += sprintf(p, "5 1 0:9 /");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "\\040");
	p += sprintf(p, " /x rw - tmpfs tmpfs rw,size=1k\n");
	t = parse_ok(text);
	T_EQ_U(t.n, 1);
	T_EQ_U(t.v[0].root.len, n + 1);
	mntkit__mi_free(&t);
}

T_CASE(hundred_thousand_lines_and_the_index)
{
	size_t n = 100000;
	char *text = t_xmalloc(n * 80), *p = text;
	struct mntkit_mi_table t;
	struct mntkit_mindex ix;
	uint64_t *keys;

	/* a tree: mount i's parent is i / 2 (old IDs i + 1) */
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%zu %zu 0:%zu / /m/%zu rw - tmpfs t rw\n", i + 1,
			     i ? (i - 1) / 2 + 1 : 1, i, i);
	t = parse_ok(text);
	T_EQ_U(t.n, n);
	keys = t_xmalloc(n * sizeof(*keys));
	/* unique IDs in the reverse order of the old ones */
	for (size_t i = 0; i < n; i++)
		keys[i] = (1ULL << 31) + 10 * (n - i);
	if (mntkit__mindex_build(&ix, t.v, n, keys))
		t_fail("index build failed");
	for (size_t i = 0; i < n; i += 97) {
		T_EQ_I(mntkit__mindex_find(&ix, keys[i]), (ssize_t)i);
		T_EQ_I(mntkit__mindex_find_old(&ix, i + 1), (ssize_t)i);
		T_EQ_I(mntkit__mindex_find(&ix, keys[i] + 1), -1);
		/* first after / last before, also for absent keys */
		T_EQ_U(ix.key[ix.by_key[mntkit__mindex_after(&ix, keys[i] - 5)]],
		       keys[i]);
		if (i + 1 < n)
			T_EQ_U(ix.key[ix.by_key[mntkit__mindex_after(&ix,
								     keys[i + 1])]],
			       keys[i]);
		T_EQ_U(ix.key[ix.by_key[mntkit__mindex_before(&ix, keys[i] + 5) - 1]],
		       keys[i]);
		if (i)
			T_ASSERT(mntkit__mindex_below(&ix, i, (size_t)ix.parent[i]));
		T_ASSERT(mntkit__mindex_below(&ix, i, 0) == (i != 0));
	}
	T_EQ_U(mntkit__mindex_after(&ix, ~0ULL), n);
	T_EQ_U(mntkit__mindex_before(&ix, 0), 0);
	/* children come by ascending key */
	for (size_t i = 0; i < 1000; i++)
		for (uint32_t k = ix.first[i]; k + 1 < ix.first[i + 1]; k++)
			T_ASSERT(ix.key[ix.kids[k]] < ix.key[ix.kids[k + 1]]);
	mntkit__mindex_free(&ix);
	mntkit__mi_free(&t);
	free(keys);
	free(text);
}

T_CASE(index_rejects_inconsistency)
{
	struct mntkit_mi_table t;
	struct mntkit_mindex ix;
	uint64_t keys[3] = { 1, 2, 3 };

	t = parse_ok("2 3 0:1 / /a rw - t s rw\n3 2 0:1 / /b rw - t s rw\n");
	keys[0] = 2, keys[1] = 3;
	T_EQ_I(mntkit__mindex_build(&ix, t.v, t.n, keys), -EBADMSG);
	mntkit__mi_free(&t);
	t = parse_ok("2 1 0:1 / /a rw - t s rw\n2 1 0:1 / /b rw - t s rw\n");
	T_EQ_I(mntkit__mindex_build(&ix, t.v, t.n, keys), -EBADMSG);
	mntkit__mi_free(&t);
	t = parse_ok("2 1 0:1 / /a rw - t s rw\n3 1 0:1 / /b rw - t s rw\n");
	keys[0] = keys[1] = 7;
	T_EQ_I(mntkit__mindex_build(&ix, t.v, t.n, keys), -EBADMSG);
	mntkit__mi_free(&t);
	/* a self-parented root (rootfs on old kernels) is a root */
	t = parse_ok("1 1 0:1 / / rw - rootfs rootfs rw\n2 1 0:2 / /p rw - proc p rw\n");
	keys[0] = 1, keys[1] = 2;
	T_EQ_I(mntkit__mindex_build(&ix, t.v, t.n, keys), 0);
	T_EQ_I(ix.parent[0], -1);
	T_EQ_I(ix.parent[1], 0);
	mntkit__mindex_free(&ix);
	mntkit__mi_free(&t);
}

T_CASE(the_host_file_parses)
{
	size_t len;
	char *text = t_read_file("/proc/self/mountinfo", &len);
	struct mntkit_mi_table t = { 0 };
	struct mntkit_mi_err err;
	struct t_mitab ref;

	if (mntkit__mi_parse(&t, text, len, &err))
		t_fail("host mountinfo: %zu:%zu: %s", err.line, err.col,
		       err.msg);
	t_mi_read(0, &ref);
	if (ref.n != t.n)
		t_fail("%zu lines vs the harness's %zu", t.n, ref.n);
	for (size_t i = 0; i < t.n; i++) {
		T_EQ_U(t.v[i].id, ref.v[i].id);
		span_is(&t, t.v[i].point, ref.v[i].point, strlen(ref.v[i].point),
			"point");
		span_is(&t, t.v[i].source, ref.v[i].source,
			strlen(ref.v[i].source), "source");
	}
	mntkit__mi_free(&t);
	t_mi_free(&ref);
	free(text);
}

T_CASE(magic_table)
{
	static const struct {
		const char *name;
		uint64_t magic;
	} c[] = {
		{ "tmpfs", 0x01021994 }, { "proc", 0x9fa0 },
		{ "ext4", 0xef53 },      { "overlay", 0x794c7630 },
		{ "9p", 0x01021997 },    { "zonefs", 0x5a4f4653 },
		{ "cgroup2", 0x63677270 },
	};
	uint64_t magic;
	int ok;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		if (!mntkit__fs_magic(c[i].name, strlen(c[i].name), &magic, &ok))
			t_fail("%s not in the table", c[i].name);
		T_EQ_U(magic, c[i].magic);
	}
	T_EQ_I(mntkit__fs_magic("rootfs", 6, &magic, &ok), 0);
	T_EQ_I(mntkit__fs_magic("devtmpfs", 8, &magic, &ok), 0);
	T_EQ_I(mntkit__fs_magic("tmpfsx", 6, &magic, &ok), 0);
	T_EQ_I(mntkit__fs_magic("tmp", 3, &magic, &ok), 0);
	T_EQ_I(mntkit__fs_magic("", 0, &magic, &ok), 0);
	T_EQ_I(mntkit__fs_magic("nfs", 3, &magic, &ok), 1);
	T_EQ_I(ok, 0); /* network: the table, never statfs */
	/* served types of no known magic: never statfs either (each name
	 * of the list, so that its order is checked too) */
	static const char *const served[] = { "beegfs", "gpfs", "lustre",
					      "ncp", "ncpfs", "orangefs",
					      "pvfs2", "smbfs" };
	for (size_t i = 0; i < sizeof(served) / sizeof(served[0]); i++) {
		T_EQ_I(mntkit__fs_magic(served[i], strlen(served[i]), &magic,
					&ok), 0);
		T_ASSERTF(!ok, "%s: statfs_ok", served[i]);
	}
	T_EQ_I(mntkit__fs_magic("lustrex", 7, &magic, &ok), 0);
	T_EQ_I(ok, 1);
	T_EQ_I(mntkit__fs_magic("devtmpfs", 8, &magic, &ok), 0);
	T_EQ_I(ok, 1); /* local: statfs on a verified mount point */
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
