/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-tab - tables read from a file (mntkit_table_read_file/_buf): the
 * fstab, mtab, mountinfo and utab formats and their guess, escapes,
 * comments and blank lines, missing fields, freq/passno, the option split,
 * the tree of a mountinfo file, and line:column errors. Needs no root.
 */
#include <mntkit.h>

#include "harness.h"

static struct mntkit_table *read_buf(const char *text,
				     struct mntkit_tab_opts *o)
{
	struct mntkit_table *t = NULL;
	int r = mntkit_table_read_buf(text, strlen(text), o, &t);

	T_ASSERTF(r == 0, "read: %d (line %zu col %zu: %s)", r,
		  o ? o->err_line : 0, o ? o->err_col : 0,
		  o && o->err_msg ? o->err_msg : "-");
	return t;
}

static const char *str(const struct mntkit_table *t, size_t i,
		       enum mntkit_field f)
{
	const struct mntkit_statmount *sm = mntkit_table_get(t, i);
	const char *s = NULL;

	T_ASSERT(sm);
	if (mntkit_sm_str(sm, sm->size, f, &s) < 0)
		return NULL;
	return s;
}

static const char fstab[] =
	"# a comment\n"
	"UUID=1234-abcd  /               ext4    errors=remount-ro 0       1\n"
	"\n"
	"LABEL=boot /boot ext2 defaults,noatime 0 2\n"
	"/dev/sda3 none swap sw 0 0\n"
	"/dev/disk/by-id/x\\040y /mnt/with\\040space xfs "
	"ro,noexec,user,noauto,x-foo=1 1 2\n"
	"\ttmpfs\t/tmp\ttmpfs\tmode=1777,nosuid,nodev\n"
	"   # indented comment\n"
	"sshfs#me@h: /mnt/ssh fuse.sshfs defaults 0 0\n"
	"/dev/b /b xfs\n";

T_CASE(fstab_fields)
{
	MNTKIT_TAB_OPTS(o);
	struct mntkit_table *t = read_buf(fstab, &o);
	MNTKIT_TAB_ENTRY(e);
	const struct mntkit_statmount *sm;

	T_EQ_I(o.format, MNTKIT_TAB_FSTAB);
	T_EQ_U(o.nr_bad, 0);
	T_EQ_U(mntkit_table_count(t), 7);
	T_EQ_STR(str(t, 0, MNTKIT_FIELD_SB_SOURCE), "UUID=1234-abcd");
	T_EQ_STR(str(t, 0, MNTKIT_FIELD_MNT_POINT), "/");
	T_EQ_STR(str(t, 0, MNTKIT_FIELD_FS_TYPE), "ext4");
	T_OK(mntkit_table_tab_entry(t, 0, &e));
	T_EQ_U(e.line, 2);
	T_EQ_I(e.freq, 0);
	T_EQ_I(e.passno, 1);
	T_EQ_STR(e.options, "errors=remount-ro");
	T_NULL(e.vfs_options);
	T_EQ_STR(e.fs_options, "errors=remount-ro");
	T_NULL(e.user_options);

	/* escapes in source and target */
	T_EQ_STR(str(t, 3, MNTKIT_FIELD_SB_SOURCE), "/dev/disk/by-id/x y");
	T_EQ_STR(str(t, 3, MNTKIT_FIELD_MNT_POINT), "/mnt/with space");
	T_OK(mntkit_table_tab_entry(t, 3, &e));
	T_EQ_STR(e.vfs_options, "ro,noexec");
	T_NULL(e.fs_options);
	T_EQ_STR(e.user_options, "user,noauto,x-foo=1");
	T_EQ_I(e.freq, 1);
	T_EQ_I(e.passno, 2);
	sm = mntkit_table_get(t, 3);
	T_EQ_U(sm->mnt_attr & (MNTKIT_MOUNT_ATTR_RDONLY |
			       MNTKIT_MOUNT_ATTR_NOEXEC),
	       MNTKIT_MOUNT_ATTR_RDONLY | MNTKIT_MOUNT_ATTR_NOEXEC);
	T_EQ_U(sm->sb_flags & MNTKIT_SB_RDONLY, MNTKIT_SB_RDONLY);

	/* "defaults" goes nowhere; a type.subtype is split */
	T_OK(mntkit_table_tab_entry(t, 1, &e));
	T_EQ_STR(e.vfs_options, "noatime");
	T_NULL(e.fs_options);
	T_EQ_STR(str(t, 5, MNTKIT_FIELD_FS_TYPE), "fuse");
	T_EQ_STR(str(t, 5, MNTKIT_FIELD_FS_SUBTYPE), "sshfs");

	/* tabs, no freq/passno, no options */
	T_EQ_STR(str(t, 4, MNTKIT_FIELD_MNT_POINT), "/tmp");
	T_OK(mntkit_table_tab_entry(t, 4, &e));
	T_EQ_STR(e.vfs_options, "nosuid,nodev");
	T_EQ_STR(e.fs_options, "mode=1777");
	T_OK(mntkit_table_tab_entry(t, 6, &e));
	T_NULL(e.options);
	T_EQ_I(e.freq, 0);
	T_EQ_U(e.line, 10);

	/* every entry is a root, in file order */
	T_EQ_I(mntkit_table_first_root(t), 0);
	for (size_t i = 0; i + 1 < mntkit_table_count(t); i++)
		T_EQ_I(mntkit_table_next_sibling(t, i), (ssize_t)i + 1);
	T_EQ_I(mntkit_table_find(t, 3), 2);
	mntkit_table_free(t);
}

T_CASE(fstab_numbers)
{
	struct mntkit_table *t =
		read_buf("/dev/i /i ext4 a,,b 99999999999 -1 trailing\n", NULL);
	MNTKIT_TAB_ENTRY(e);

	T_OK(mntkit_table_tab_entry(t, 0, &e));
	T_EQ_I(e.freq, 1215752191); /* libmount's int, as findmnt prints */
	T_EQ_I(e.passno, -1);
	T_EQ_STR(e.fs_options, "a,b");
	mntkit_table_free(t);
}

/* a bad line fails with its line and column, or is skipped */
static void expect_bad_as(enum mntkit_tab_format fmt, const char *text,
			  size_t line, size_t col)
{
	MNTKIT_TAB_OPTS(o, .format = fmt);
	MNTKIT_TAB_OPTS(skip, .format = fmt, .flags = MNTKIT_TAB_F_SKIP_BAD);
	struct mntkit_table *t = (struct mntkit_table *)1;

	errno = 0;
	T_EQ_I(mntkit_table_read_buf(text, strlen(text), &o, &t), -EBADMSG);
	T_EQ_I(errno, EBADMSG);
	T_ASSERT(t == NULL);
	T_EQ_U(o.err_line, line);
	T_EQ_U(o.err_col, col);
	T_ASSERT(o.err_msg != NULL);
	T_EQ_U(o.nr_bad, 1);
	T_OK(mntkit_table_read_buf(text, strlen(text), &skip, &t));
	T_EQ_U(skip.nr_bad, 1);
	T_EQ_U(skip.err_line, line);
	T_EQ_U(mntkit_table_count(t), 1);
	mntkit_table_free(t);
}

static void expect_bad(const char *text, size_t line, size_t col)
{
	expect_bad_as(MNTKIT_TAB_AUTO, text, line, col);
}

T_CASE(fstab_errors)
{
	expect_bad("/dev/a /a ext4\n/dev/sdb1 /data\n", 2, 16);
	expect_bad("/dev/a /a ext4\n/dev/sdb1\n", 2, 10);
	expect_bad("/dev/c /c ext4 rw x 2\n/dev/a /a ext4\n", 1, 19);
	expect_bad("/dev/d /d ext4 rw 1 x\n/dev/a /a ext4\n", 1, 21);
	expect_bad("/dev/a /a ext4\n/dev/e /e ext4 rw # c\n", 2, 19);
}

T_CASE(mountinfo_tree)
{
	static const char mi[] =
		"21 26 0:20 / /proc rw,relatime - proc proc rw\n"
		"23 26 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,mode=755\n"
		"25 23 0:23 / /dev/pts rw,relatime - devpts devpts rw\n"
		"24 23 0:22 / /dev/shm rw,relatime - tmpfs tmpfs rw\n"
		"100 1 0:50 /sub /mnt/a\\040b rw,nosuid shared:5 - ext4 "
		"/dev/sda\\0401 rw,errors=remount-ro\n";
	MNTKIT_TAB_OPTS(o);
	struct mntkit_table *t = read_buf(mi, &o);
	const struct mntkit_statmount *sm;
	ssize_t c;

	T_EQ_I(o.format, MNTKIT_TAB_MOUNTINFO);
	T_EQ_U(mntkit_table_count(t), 5);
	/* libmount's root (lowest parent ID) first, then file order */
	T_EQ_I(mntkit_table_first_root(t), 4);
	T_EQ_I(mntkit_table_next_sibling(t, 4), 0);
	T_EQ_I(mntkit_table_next_sibling(t, 0), 1);
	T_EQ_I(mntkit_table_next_sibling(t, 1), -ENOENT);
	c = mntkit_table_first_child(t, 1);
	T_EQ_I(c, 2);
	T_EQ_I(mntkit_table_next_sibling(t, 2), 3);
	T_EQ_I(mntkit_table_parent(t, 3), 1);
	T_EQ_I(mntkit_table_depth(t, 3), 1);
	sm = mntkit_table_get(t, 4);
	T_EQ_U(sm->mnt_id_old, 100);
	T_EQ_U(sm->mnt_parent_id_old, 1);
	T_EQ_U(sm->sb_dev_minor, 50);
	T_EQ_U(sm->mnt_peer_group, 5);
	T_EQ_STR(str(t, 4, MNTKIT_FIELD_MNT_POINT), "/mnt/a b");
	T_EQ_STR(str(t, 4, MNTKIT_FIELD_SB_SOURCE), "/dev/sda 1");
	T_EQ_STR(str(t, 4, MNTKIT_FIELD_MNT_ROOT), "/sub");
	T_EQ_STR(str(t, 4, MNTKIT_FIELD_MNT_OPTS), "errors=remount-ro");
	mntkit_table_free(t);
}

/* the walk of mntkit_table_next_preorder() from @root, into @out */
static size_t preorder(const struct mntkit_table *t, size_t root,
		       ssize_t *out, size_t room)
{
	size_t k = 0;
	ssize_t i;
	int e;

	for (i = (ssize_t)root; i >= 0 && k < room;
	     i = mntkit_table_next_preorder(t, (size_t)i, root))
		out[k++] = i;
	e = errno;
	T_EQ_I(i, -ENOENT);
	T_EQ_I(e, ENOENT);
	return k;
}

#define T_PREORDER(t, root, ...)                                         \
	do {                                                              \
		static const ssize_t want_[] = { __VA_ARGS__ };           \
		ssize_t got_[16];                                         \
		size_t n_ = preorder(t, root, got_, 16);                  \
		T_EQ_U(n_, sizeof(want_) / sizeof(want_[0]));             \
		for (size_t k_ = 0; k_ < n_; k_++)                        \
			T_EQ_I(got_[k_], want_[k_]);                      \
	} while (0)

T_CASE(mountinfo_preorder)
{
	/* three roots (lines 0, 8, 9), a chain four deep, leaves */
	static const char mi[] =
		"10 1 0:1 / / rw - ext4 r rw\n"
		"11 10 0:2 / /a rw - ext4 a rw\n"
		"12 11 0:3 / /a/b rw - ext4 b rw\n"
		"13 12 0:4 / /a/b/c rw - ext4 c rw\n"
		"14 13 0:5 / /a/b/c/d rw - ext4 d rw\n"
		"15 10 0:6 / /e rw - ext4 e rw\n"
		"16 15 0:7 / /e/f rw - ext4 f rw\n"
		"17 10 0:8 / /g rw - ext4 g rw\n"
		"30 50 0:9 / /lone rw - ext4 l rw\n"
		"31 60 0:10 / /third rw - ext4 t rw\n"
		"32 31 0:11 / /third/x rw - ext4 x rw\n"
		"33 12 0:12 / /a/b/y rw - ext4 y rw\n";
	struct mntkit_table *t = read_buf(mi, NULL);
	size_t n = mntkit_table_count(t);
	ssize_t r;

	T_EQ_U(n, 12);
	/* the roots, each walked whole: the chain climbed back to /a/b
	 * for its second child, a root without children alone */
	r = mntkit_table_first_root(t);
	T_EQ_I(r, 0);
	T_PREORDER(t, 0, 0, 1, 2, 3, 4, 11, 5, 6, 7);
	r = mntkit_table_next_sibling(t, (size_t)r);
	T_EQ_I(r, 8);
	T_PREORDER(t, 8, 8);
	r = mntkit_table_next_sibling(t, (size_t)r);
	T_EQ_I(r, 9);
	T_PREORDER(t, 9, 9, 10);
	T_NEG(mntkit_table_next_sibling(t, (size_t)r), ENOENT);
	/* a subtree inside: never a sibling of its root, nor above it */
	T_PREORDER(t, 2, 2, 3, 4, 11);
	T_PREORDER(t, 5, 5, 6);
	T_PREORDER(t, 4, 4);
	T_PREORDER(t, 7, 7);
	T_PREORDER(t, 11, 11);
	/* the last of a subtree is -ENOENT, also where the table goes on */
	T_NEG(mntkit_table_next_preorder(t, 11, 2), ENOENT);
	T_EQ_I(mntkit_table_next_preorder(t, 11, 0), 5);
	T_NEG(mntkit_table_next_preorder(t, 7, 0), ENOENT);
	T_NEG(mntkit_table_next_preorder(t, 8, 8), ENOENT);
	/* the index rule: -EINVAL with errno for a NULL table, @idx or
	 * @root out of range */
	T_NEG(mntkit_table_next_preorder(NULL, 0, 0), EINVAL);
	T_NEG(mntkit_table_next_preorder(t, n, 0), EINVAL);
	T_NEG(mntkit_table_next_preorder(t, 0, n), EINVAL);
	T_NEG(mntkit_table_next_preorder(t, SIZE_MAX, 0), EINVAL);
	T_NEG(mntkit_table_next_preorder(t, 0, SIZE_MAX), EINVAL);
	mntkit_table_free(t);
	/* an empty table has no index */
	t = read_buf("", NULL);
	T_NEG(mntkit_table_next_preorder(t, 0, 0), EINVAL);
	mntkit_table_free(t);
}

T_CASE(mountinfo_cycle)
{
	static const char mi[] =
		"1 2 0:1 / / rw - ext4 a rw\n"
		"2 1 0:2 / /b rw - ext4 b rw\n"
		"3 3 0:3 / /c rw - ext4 c rw\n";
	struct mntkit_table *t = read_buf(mi, NULL);
	size_t roots = 0, n = 0;

	for (ssize_t r = mntkit_table_first_root(t); r >= 0;
	     r = mntkit_table_next_sibling(t, (size_t)r)) {
		roots++;
		n += 1 + (mntkit_table_first_child(t, (size_t)r) >= 0);
	}
	T_EQ_U(roots, 2); /* the cycle cut once, the self-parent a root */
	T_EQ_U(n, 3);
	mntkit_table_free(t);
}

T_CASE(mountinfo_errors)
{
	expect_bad("1 2 0:1 / / rw - ext4 a rw\n22 1 0:2 / /b rw ext4 b rw\n",
		   2, 27);
	expect_bad("1 2 0:1 / / rw - ext4 a rw\n22 1 0x2 / /b rw - ext4 b rw\n",
		   2, 6);
}

T_CASE(utab)
{
	static const char ut[] =
		"ID=100 SRC=/dev/sda TARGET=/mnt\\040x ROOT=/ "
		"OPTS=user=x,noauto ATTRS=a\n"
		"SRC=/x TARGET=/y\n";
	MNTKIT_TAB_OPTS(o, .format = MNTKIT_TAB_UTAB);
	struct mntkit_table *t = read_buf(ut, &o);
	MNTKIT_TAB_ENTRY(e);

	T_EQ_U(mntkit_table_count(t), 2);
	T_EQ_U(mntkit_table_get(t, 0)->mnt_id_old, 100);
	T_EQ_STR(str(t, 0, MNTKIT_FIELD_MNT_POINT), "/mnt x");
	T_EQ_STR(str(t, 0, MNTKIT_FIELD_MNT_ROOT), "/");
	T_OK(mntkit_table_tab_entry(t, 0, &e));
	T_EQ_STR(e.user_options, "user=x,noauto");
	T_EQ_STR(e.attrs, "a");
	T_EQ_I(e.format, MNTKIT_TAB_UTAB);
	T_NULL(str(t, 1, MNTKIT_FIELD_MNT_ROOT));
	mntkit_table_free(t);
	expect_bad_as(MNTKIT_TAB_UTAB, "SRC=/x TARGET=/y\nID=x TARGET=/z\n", 2,
		      4);
}

T_CASE(guess_and_empty)
{
	MNTKIT_TAB_OPTS(o);
	struct mntkit_table *t = read_buf("# only\n\n  \n", &o);

	T_EQ_U(mntkit_table_count(t), 0);
	T_EQ_I(mntkit_table_first_root(t), -ENOENT);
	T_EQ_I(o.format, MNTKIT_TAB_FSTAB);
	mntkit_table_free(t);
	/* no final newline, CRLF */
	t = read_buf("/dev/a /a ext4 rw 0 0\r\n/dev/b /b ext4", &o);
	T_EQ_U(mntkit_table_count(t), 2);
	mntkit_table_free(t);
}

T_CASE(file_and_args)
{
	char path[PATH_MAX + 16];
	struct mntkit_table *t = NULL;
	MNTKIT_TAB_ENTRY(e);
	MNTKIT_TAB_OPTS(o, .flags = 0x80);
	FILE *f;

	snprintf(path, sizeof(path), "%s/fstab", t_base);
	f = fopen(path, "w");
	T_ASSERT(f);
	fputs(fstab, f);
	fclose(f);
	T_OK(mntkit_table_read_file(path, NULL, &t));
	T_EQ_U(mntkit_table_count(t), 7);
	T_NEG(mntkit_table_tab_entry(t, 7, &e), EINVAL);
	mntkit_table_free(t);
	T_NEG(mntkit_table_read_file("/nonexistent/x", NULL, &t), ENOENT);
	T_NEG(mntkit_table_read_file(path, NULL, NULL), EINVAL);
	T_NEG(mntkit_table_read_file(path, &o, &t), EINVAL);
	o.flags = 0;
	o.format = (enum mntkit_tab_format)9;
	T_NEG(mntkit_table_read_file(path, &o, &t), EINVAL);
	T_EQ_STR(mntkit_tab_format_name(MNTKIT_TAB_MOUNTINFO), "mountinfo");
	T_NULL(mntkit_tab_format_name((enum mntkit_tab_format)9));
	/* a snapshot has no file data */
	if (mntkit_table_new(0, 0, NULL, &t) == 0) {
		T_NEG(mntkit_table_tab_entry(t, 0, &e), ENODATA);
		mntkit_table_free(t);
	}
}

/*
 * The sized structs: an entry of the first struct's size or larger (a
 * newer caller's: its tail zeroed, its size kept), options larger with a
 * zero tail; a smaller entry or options, or a tail that is not zero, are
 * refused.
 */
T_CASE(sized_structs)
{
	unsigned char raw[sizeof(struct mntkit_tab_entry) + 24];
	struct mntkit_tab_entry *e = (void *)raw;
	unsigned char oraw[sizeof(struct mntkit_tab_opts) + 8];
	struct mntkit_tab_opts *o = (void *)oraw;
	struct mntkit_table *t = read_buf(fstab, NULL);

	memset(raw, 0xaa, sizeof(raw));
	e->size = sizeof(raw);
	T_OK(mntkit_table_tab_entry(t, 0, e));
	T_EQ_U(e->size, sizeof(raw));
	T_EQ_STR(e->options, "errors=remount-ro");
	for (size_t b = sizeof(struct mntkit_tab_entry); b < sizeof(raw); b++)
		T_ASSERTF(raw[b] == 0, "byte %zu of a newer entry kept", b);
	memset(raw, 0xaa, sizeof(raw));
	e->size = MNTKIT_TAB_ENTRY_SIZE_VER0;
	T_OK(mntkit_table_tab_entry(t, 0, e));
	T_EQ_U(e->line, 2);
	T_ASSERT(raw[MNTKIT_TAB_ENTRY_SIZE_VER0] == 0xaa);
	e->size = MNTKIT_TAB_ENTRY_SIZE_VER0 - 1;
	T_NEG(mntkit_table_tab_entry(t, 0, e), EINVAL);
	e->size = 0;
	T_NEG(mntkit_table_tab_entry(t, 0, e), EINVAL);
	mntkit_table_free(t);

	memset(oraw, 0, sizeof(oraw));
	o->size = sizeof(oraw);
	t = read_buf(fstab, o);
	T_EQ_I(o->format, MNTKIT_TAB_FSTAB);
	mntkit_table_free(t);
	oraw[sizeof(oraw) - 1] = 1;
	T_NEG(mntkit_table_read_buf(fstab, strlen(fstab), o, &t), E2BIG);
	o->size = MNTKIT_TAB_OPTS_SIZE_VER0 - 1;
	T_NEG(mntkit_table_read_buf(fstab, strlen(fstab), o, &t), EINVAL);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
