// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-lookup - the lookups of lib/lookup.c: a mount of a table by target,
 * source (and tag), device number; the mount that contains a path; is a
 * path a mount point; the canonical form of a path.
 *
 * Tables read from canned buffers need no root; the cases that mount run
 * in a private mount namespace, on both backends (native and mountinfo),
 * and check the answers against the kernel's own (statx's mount IDs).
 */
#include <sys/sysmacros.h>

#include <mntkit.h>

#include "harness.h"
#include "seccomp.h"

#define NATIVE	  MNTKIT_BACKEND_NATIVE
#define MOUNTINFO MNTKIT_BACKEND_MOUNTINFO

static struct mntkit_table *tab(const char *text)
{
	struct mntkit_table *t = NULL;
	int r = mntkit_table_read_buf(text, strlen(text), NULL, &t);

	T_ASSERTF(r == 0, "mntkit_table_read_buf: %s", strerror(-r));
	return t;
}

/* the mount point of record @idx */
static const char *point_of(const struct mntkit_table *t, ssize_t idx)
{
	const struct mntkit_statmount *sm;
	const char *s;

	T_ASSERTF(idx >= 0, "index %zd", idx);
	sm = mntkit_table_get(t, (size_t)idx);
	T_ASSERT(sm);
	T_OK(mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &s));
	return s;
}

static const char *source_of(const struct mntkit_table *t, ssize_t idx)
{
	const struct mntkit_statmount *sm;
	const char *s;

	T_ASSERTF(idx >= 0, "index %zd", idx);
	sm = mntkit_table_get(t, (size_t)idx);
	T_ASSERT(sm);
	T_OK(mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_SB_SOURCE, &s));
	return s;
}

static const char fstab[] =
	"/dev/sda1 / ext4 defaults 0 1\n"		/* 0 */
	"/dev/sda2 /home ext4 defaults 0 2\n"		/* 1 */
	"tmpfs /tmp tmpfs defaults 0 0\n"		/* 2 */
	"/dev/sdb1 /home/ ext4 defaults 0 2\n"		/* 3 */
	"LABEL=data /data ext4 defaults 0 2\n"		/* 4 */
	"UUID=1234-ABCD /boot/efi vfat umask=077 0 1\n" /* 5 */
	"/dev/sdc1 /mnt/my\\040disk ext4 defaults 0 0\n" /* 6 */
	"tmpfs /run tmpfs defaults 0 0\n"		/* 7 */
	"/dev/sdd1/ /home/user/data xfs defaults 0 0\n"; /* 8 */

T_CASE(tab_find_target)
{
	struct mntkit_table *t = tab(fstab);

	/* two on /home: the last by default, the first with FIRST */
	T_EQ_I(mntkit_table_find_target(t, "/home", 0), 3);
	T_EQ_I(mntkit_table_find_target(t, "/home", MNTKIT_LOOKUP_F_FIRST), 1);
	/* trailing slashes do not count, on either side */
	T_EQ_I(mntkit_table_find_target(t, "/home//", MNTKIT_LOOKUP_F_FIRST), 1);
	T_EQ_I(mntkit_table_find_target(t, "/tmp/", 0), 2);
	T_EQ_I(mntkit_table_find_target(t, "/", 0), 0);
	/* an escaped mount point, unescaped by the table */
	T_EQ_I(mntkit_table_find_target(t, "/mnt/my disk", 0), 6);
	T_NEG(mntkit_table_find_target(t, "/mnt/my\\040disk", 0), ENOENT);
	T_NEG(mntkit_table_find_target(t, "/nowhere", 0), ENOENT);
	/* no prefix match: /home is no mount point of /home/user */
	T_NEG(mntkit_table_find_target(t, "/home/user", 0), ENOENT);
	T_NEG(mntkit_table_find_target(NULL, "/", 0), EINVAL);
	T_NEG(mntkit_table_find_target(t, NULL, 0), EINVAL);
	T_NEG(mntkit_table_find_target(t, "/", MNTKIT_LOOKUP_F_NOFOLLOW), EINVAL);
	T_NEG(mntkit_table_find_target(t, "/", 0x100), EINVAL);
	mntkit_table_free(t);
}

T_CASE(tab_find_source)
{
	struct mntkit_table *t = tab(fstab);

	T_EQ_I(mntkit_table_find_source(t, "/dev/sda2", 0), 1);
	T_EQ_I(mntkit_table_find_source(t, "/dev/sda2/", 0), 1);
	T_EQ_I(mntkit_table_find_source(t, "/dev/sdd1", 0), 8);
	T_EQ_I(mntkit_table_find_source(t, "tmpfs", 0), 7);
	T_EQ_I(mntkit_table_find_source(t, "tmpfs", MNTKIT_LOOKUP_F_FIRST), 2);
	/* tags as written */
	T_EQ_I(mntkit_table_find_source(t, "LABEL=data", 0), 4);
	T_EQ_I(mntkit_table_find_source(t, "UUID=1234-ABCD", 0), 5);
	T_NEG(mntkit_table_find_source(t, "LABEL=Data", 0), ENOENT);
	T_NEG(mntkit_table_find_source(t, "/dev/sdz", 0), ENOENT);
	/* a tag no udev link names stays unmatched with CANON too */
	T_NEG(mntkit_table_find_source(t, "LABEL=mntkit-no-such-label-42",
				       MNTKIT_LOOKUP_F_CANON),
	      ENOENT);
	T_NEG(mntkit_table_find_source(t, NULL, 0), EINVAL);
	T_NEG(mntkit_table_find_source(t, "tmpfs", MNTKIT_LOOKUP_F_NOFOLLOW),
	      EINVAL);
	mntkit_table_free(t);
}

/*
 * A mountinfo table: the tree, device numbers, a stack whose top comes
 * before its bottom in file order (a mount moved there later).
 */
static const char mountinfo[] =
	"21 1 8:1 / / rw - ext4 /dev/sda1 rw\n"		    /* 0 */
	"40 22 0:42 / /mnt rw - tmpfs top rw\n"		    /* 1 */
	"22 21 0:40 / /mnt rw - tmpfs bottom rw\n"	    /* 2 */
	"23 21 0:41 / /other rw - tmpfs other rw\n"	    /* 3 */
	"24 21 8:1 /sub /bind rw - ext4 /dev/sda1 rw\n"	    /* 4 */
	"25 40 0:43 / /mnt/in\\040it rw - tmpfs inner rw\n" /* 5 */
	"26 21 0:0 / /zero rw - tmpfs zero rw\n";	    /* 6 */

T_CASE(tab_stack_and_devno)
{
	struct mntkit_table *t = tab(mountinfo);

	/* the top of the stack on /mnt, though the bottom comes last */
	T_EQ_I(mntkit_table_parent(t, 1), 2);
	T_EQ_I(mntkit_table_find_target(t, "/mnt", 0), 1);
	T_EQ_I(mntkit_table_find_target(t, "/mnt", MNTKIT_LOOKUP_F_FIRST), 1);
	T_EQ_I(mntkit_table_find_target(t, "/mnt/in it", 0), 5);
	T_EQ_I(mntkit_table_find_devno(t, makedev(0, 40), 0), 2);
	T_EQ_I(mntkit_table_find_devno(t, makedev(8, 1), 0), 4);
	T_EQ_I(mntkit_table_find_devno(t, makedev(8, 1), MNTKIT_LOOKUP_F_FIRST),
	       0);
	/* 0:0 is a device number like others */
	T_EQ_I(mntkit_table_find_devno(t, makedev(0, 0), 0), 6);
	T_NEG(mntkit_table_find_devno(t, makedev(8, 2), 0), ENOENT);
	T_NEG(mntkit_table_find_devno(NULL, 0, 0), EINVAL);
	T_NEG(mntkit_table_find_devno(t, 0, MNTKIT_LOOKUP_F_CANON), EINVAL);
	/* the containing mount of a path under the stack: its top */
	T_EQ_I(mntkit_table_find_containing(t, "/mnt/x", 0), 1);
	T_EQ_I(mntkit_table_find_containing(t, "/mnt/in it/deep/er", 0), 5);
	T_EQ_I(mntkit_table_find_containing(t, "/mnt/in itx", 0), 1);
	mntkit_table_free(t);
}

T_CASE(tab_fstab_has_no_devno)
{
	struct mntkit_table *t = tab(fstab);

	/* fstab records say nothing of devices: 0:0 is none of theirs */
	T_NEG(mntkit_table_find_devno(t, makedev(0, 0), 0), ENOENT);
	mntkit_table_free(t);
}

T_CASE(tab_find_containing)
{
	struct mntkit_table *t = tab(fstab);

	T_EQ_STR(point_of(t, mntkit_table_find_containing(t, "/home/user/x",
							   0)),
		 "/home/");
	T_EQ_I(mntkit_table_find_containing(t, "/home/user/x", 0), 3);
	T_EQ_I(mntkit_table_find_containing(t, "/home/user/data/a/b", 0), 8);
	T_EQ_I(mntkit_table_find_containing(t, "/home/user/data/", 0), 8);
	T_EQ_I(mntkit_table_find_containing(t, "/home/user/data", 0), 8);
	/* "..", ".", "//" and trailing slashes, lexically */
	T_EQ_I(mntkit_table_find_containing(t, "/home/user/data/../../x", 0),
	       3);
	T_EQ_I(mntkit_table_find_containing(t, "/home/user/data/..", 0), 3);
	T_EQ_I(mntkit_table_find_containing(t, "//home//./user/data//", 0), 8);
	T_EQ_I(mntkit_table_find_containing(t, "/../../home", 0), 3);
	/* a prefix must end at a '/' */
	T_EQ_I(mntkit_table_find_containing(t, "/homes", 0), 0);
	T_EQ_I(mntkit_table_find_containing(t, "/tmpx/y", 0), 0);
	T_EQ_I(mntkit_table_find_containing(t, "/mnt/my disk/f", 0), 6);
	T_EQ_I(mntkit_table_find_containing(t, "/", 0), 0);
	/* relative to the working directory */
	T_OK(chdir("/"));
	T_EQ_I(mntkit_table_find_containing(t, "home/./x", 0), 3);
	T_EQ_I(mntkit_table_find_containing(t, ".", 0), 0);
	T_NEG(mntkit_table_find_containing(t, "", 0), EINVAL);
	T_NEG(mntkit_table_find_containing(t, NULL, 0), EINVAL);
	T_NEG(mntkit_table_find_containing(t, "/",
					   MNTKIT_LOOKUP_F_FIRST), EINVAL);
	mntkit_table_free(t);
}

T_CASE(tab_no_root_entry)
{
	struct mntkit_table *t = tab("tmpfs /run tmpfs defaults 0 0\n");

	T_NEG(mntkit_table_find_containing(t, "/home", 0), ENOENT);
	T_EQ_I(mntkit_table_find_containing(t, "/run/user/0", 0), 0);
	mntkit_table_free(t);
}

T_CASE(sm_match)
{
	struct mntkit_table *t = tab(fstab);
	const struct mntkit_statmount *sm = mntkit_table_get(t, 3);
	struct mntkit_statmount bare;

	T_EQ_I(mntkit_sm_match_target(sm, sm->size, "/home", 0), 1);
	T_EQ_I(mntkit_sm_match_target(sm, sm->size, "/home/", 0), 1);
	T_EQ_I(mntkit_sm_match_target(sm, sm->size, "/hom", 0), 0);
	T_EQ_I(mntkit_sm_match_source(sm, sm->size, "/dev/sdb1", 0), 1);
	T_EQ_I(mntkit_sm_match_source(sm, sm->size, "/dev/sdb", 0), 0);
	T_NEG(mntkit_sm_match_source(sm, sm->size, "/dev/sdb1",
				     MNTKIT_LOOKUP_F_CANON),
	      EINVAL);
	T_NEG(mntkit_sm_match_target(NULL, 0, "/", 0), EINVAL);
	T_NEG(mntkit_sm_match_target(sm, sm->size, NULL, 0), EINVAL);
	/* a record without the group */
	memset(&bare, 0, sizeof(bare));
	bare.size = sizeof(bare);
	bare.mask = MNTKIT_STATMOUNT_MNT_BASIC;
	T_NEG(mntkit_sm_match_target(&bare, sizeof(bare), "/", 0), ENODATA);
	T_NEG(mntkit_sm_match_source(&bare, sizeof(bare), "/", 0), ENODATA);
	/* a reply shorter than its fixed part */
	T_NEG(mntkit_sm_match_target(sm, 16, "/", 0), EBADMSG);
	mntkit_table_free(t);
}

/* ---- mntkit_path_canon() ---- */

static char *canon(const char *path, unsigned int flags)
{
	char *out = (char *)1;
	int r = mntkit_path_canon(path, flags, &out);

	T_ASSERTF(r == 0, "mntkit_path_canon(%s): %s", path, strerror(-r));
	T_ASSERT(out);
	return out;
}

/* a scratch directory by its real path (symlinks in TMPDIR resolved) */
static char *real_tmpdir(void)
{
	char *d = t_tmpdir(), *r = realpath(d, NULL);

	T_ASSERT(r);
	free(d);
	return r;
}

T_CASE(path_canon)
{
	char *d = real_tmpdir(), *p, *q, *c;

	p = t_path("%s/dir/sub", d);
	T_OK(mkdir(t_path("%s/dir", d), 0755));
	T_OK(mkdir(p, 0755));
	T_OK(symlink("dir/sub", t_path("%s/rel", d)));
	T_OK(symlink(p, t_path("%s/abs", d)));
	T_OK(symlink("loop", t_path("%s/loop", d)));
	/* symlinks followed, relative and absolute, "." and ".." */
	T_EQ_STR(canon(t_path("%s/rel", d), 0), p);
	T_EQ_STR(canon(t_path("%s/abs/", d), 0), p);
	T_EQ_STR(canon(t_path("%s//./rel/../sub/.", d), 0),
		 t_path("%s/dir/sub", d));
	/* ".." after a symlink is the parent of its target */
	T_EQ_STR(canon(t_path("%s/rel/..", d), 0), t_path("%s/dir", d));
	/* a final symlink kept with NOFOLLOW, not one before it */
	T_EQ_STR(canon(t_path("%s/rel", d), MNTKIT_LOOKUP_F_NOFOLLOW),
		 t_path("%s/rel", d));
	T_EQ_STR(canon(t_path("%s/abs/../sub", d), MNTKIT_LOOKUP_F_NOFOLLOW),
		 p);
	/* what does not exist is taken as written */
	T_EQ_STR(canon(t_path("%s/rel/no/such/../file", d), 0),
		 t_path("%s/dir/sub/no/file", d));
	/* relative to the working directory */
	T_OK(chdir(t_path("%s/dir", d)));
	T_EQ_STR(canon("sub", 0), p);
	T_EQ_STR(canon("../rel", 0), p);
	T_EQ_STR(canon("/", 0), "/");
	T_EQ_STR(canon("/..//", 0), "/");
	/* the answer agrees with realpath(3) where that answers */
	q = realpath(t_path("%s/rel/../sub", d), NULL);
	T_ASSERT(q);
	T_EQ_STR(canon(t_path("%s/rel/../sub", d), 0), q);
	T_NEG(mntkit_path_canon(t_path("%s/loop", d), 0, &c), ELOOP);
	T_NULL(c);
	T_NEG(mntkit_path_canon("", 0, &c), EINVAL);
	T_NEG(mntkit_path_canon(NULL, 0, &c), EINVAL);
	T_NEG(mntkit_path_canon("/", 0, NULL), EINVAL);
	T_NEG(mntkit_path_canon("/", MNTKIT_LOOKUP_F_FIRST, &c), EINVAL);
}

/* ---- tags through udev's links ---- */

T_CASE(tags_by_udev_links)
{
	struct mntkit_table *t;

	t_private_ns();
	/* our own /dev, in our namespace only: links as udev makes them */
	t_mount("tmpfs", "/dev", "tmpfs", 0, "mode=755");
	t_mkdir("/dev/disk");
	t_mkdir("/dev/disk/by-label");
	t_mkdir("/dev/disk/by-uuid");
	t_mkdir("/dev/disk/by-partuuid");
	T_OK(close(open("/dev/sdz9", O_CREAT | O_WRONLY, 0644)));
	T_OK(close(open("/dev/sdz8", O_CREAT | O_WRONLY, 0644)));
	T_OK(symlink("../../sdz9", "/dev/disk/by-label/my\\x20data"));
	T_OK(symlink("../../sdz9", "/dev/disk/by-uuid/0a1b-2c3d"));
	T_OK(symlink("../../sdz8", "/dev/disk/by-partuuid/feed-01"));
	T_OK(symlink("sdz9", "/dev/alias"));
	t = tab("/dev/sdz9 /data ext4 defaults 0 0\n"
		"PARTUUID=feed-01 /part ext4 defaults 0 0\n"
		"/dev/alias /alias ext4 defaults 0 0\n");
	/* a tag: as written it matches nothing, its device does */
	T_NEG(mntkit_table_find_source(t, "LABEL=my data", 0), ENOENT);
	T_EQ_I(mntkit_table_find_source(t, "LABEL=my data",
					MNTKIT_LOOKUP_F_CANON | MNTKIT_LOOKUP_F_FIRST),
	       0);
	T_EQ_I(mntkit_table_find_source(t, "LABEL=\"my data\"",
					MNTKIT_LOOKUP_F_CANON | MNTKIT_LOOKUP_F_FIRST),
	       0);
	/* the last of those whose source is /dev/sdz9: the alias too */
	T_EQ_I(mntkit_table_find_source(t, "UUID=0a1b-2c3d",
					MNTKIT_LOOKUP_F_CANON),
	       2);
	T_NEG(mntkit_table_find_source(t, "UUID=0a1b-2c3e",
				       MNTKIT_LOOKUP_F_CANON),
	      ENOENT);
	/* a device: a record's tag resolved to it */
	T_NEG(mntkit_table_find_source(t, "/dev/sdz8", 0), ENOENT);
	T_EQ_I(mntkit_table_find_source(t, "/dev/sdz8", MNTKIT_LOOKUP_F_CANON),
	       1);
	/* a path as given first: /dev/alias is record 2 itself */
	T_EQ_I(mntkit_table_find_source(t, "/dev/alias", 0), 2);
	T_EQ_STR(source_of(t, mntkit_table_find_source(
				      t, "/dev/sdz9", MNTKIT_LOOKUP_F_CANON)),
		 "/dev/sdz9");
	mntkit_table_free(t);
}

/* ---- mounts, on both backends ---- */

static void use_backend(enum mntkit_backend b)
{
	if (b == NATIVE)
		t_require_statmount();
	if (mntkit_set_backend(b))
		t_fail("mntkit_set_backend(%s): %s", mntkit_backend_name(b),
		       strerror(errno));
}

static const uint64_t mask = MNTKIT_STATMOUNT_MNT_BASIC |
			     MNTKIT_STATMOUNT_SB_BASIC |
			     MNTKIT_STATMOUNT_MNT_POINT |
			     MNTKIT_STATMOUNT_SB_SOURCE;

static struct mntkit_table *snapshot(void)
{
	struct mntkit_table *t = NULL;
	int r = mntkit_table_new(mask, 0, NULL, &t);

	T_ASSERTF(r == 0, "mntkit_table_new: %s", strerror(-r));
	return t;
}

static uint64_t id_at(const struct mntkit_table *t, ssize_t idx)
{
	T_ASSERTF(idx >= 0, "index %zd (errno %s)", idx, strerror(errno));
	return mntkit_table_get(t, (size_t)idx)->mnt_id;
}

/*
 * The kernel's word: is / the root of a mount (STATX_ATTR_MOUNT_ROOT,
 * 5.8+)? Before 5.8, whether mountinfo shows the mount of / at /.
 */
static int root_is_mount_root(void)
{
	struct statx stx;

	T_OK(statx(AT_FDCWD, "/", 0, STATX_BASIC_STATS, &stx));
	if (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
		return !!(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	return t_root_in_mountinfo();
}

static void mounts(enum mntkit_backend b)
{
	char *d, *a, *sp, *bind, *f1, *f2;
	uint64_t base_id, lower, top, sp_id, bind_id;
	struct mntkit_table *t;
	struct stat st;
	ssize_t i;

	t_private_ns();
	use_backend(b);
	d = real_tmpdir();
	a = t_path("%s/a", d);
	sp = t_path("%s/sp ace\\and\nnewline", d);
	bind = t_path("%s/bind", d);
	f1 = t_path("%s/f1", d);
	f2 = t_path("%s/f2", d);
	base_id = t_uid(d);
	/* a stack of two on a, an escaped mount point, a bind of a */
	lower = t_tmpfs(a, 0, NULL);
	top = t_tmpfs(a, 0, NULL);
	T_ASSERT(top != lower);
	sp_id = t_tmpfs(sp, 0, NULL);
	bind_id = t_bind(a, bind, 0);
	T_OK(close(open(f1, O_CREAT | O_WRONLY, 0644)));
	T_OK(close(open(f2, O_CREAT | O_WRONLY, 0644)));
	t_mount(f1, f2, NULL, MS_BIND, NULL);
	T_OK(symlink("a", t_path("%s/link", d)));
	t = snapshot();

	T_EQ_U(id_at(t, mntkit_table_find_target(t, a, 0)), top);
	T_EQ_U(id_at(t, mntkit_table_find_target(t, t_path("%s/", a), 0)), top);
	i = mntkit_table_find_target(t, a, MNTKIT_LOOKUP_F_FIRST);
	T_ASSERT(i >= 0);
	/* the first is the bottom of the stack, the top's parent */
	T_EQ_I(mntkit_table_parent(t, (size_t)mntkit_table_find_target(t, a, 0)),
	       i);
	T_EQ_STR(point_of(t, i), a);
	if (b == NATIVE)
		T_EQ_U(id_at(t, i), lower);
	T_EQ_U(id_at(t, mntkit_table_find_target(t, sp, 0)), sp_id);
	T_EQ_U(id_at(t, mntkit_table_find_target(t, bind, 0)), bind_id);
	/* through a symlink: only with CANON */
	T_NEG(mntkit_table_find_target(t, t_path("%s/link", d), 0), ENOENT);
	T_EQ_U(id_at(t, mntkit_table_find_target(t, t_path("%s/link", d),
						 MNTKIT_LOOKUP_F_CANON)),
	       top);

	/* the bind shares the top's device: the last is the bind */
	T_OK(stat(bind, &st));
	T_EQ_U(id_at(t, mntkit_table_find_devno(t, st.st_dev, 0)), bind_id);
	T_EQ_U(id_at(t, mntkit_table_find_devno(t, st.st_dev,
						MNTKIT_LOOKUP_F_FIRST)),
	       top);
	T_OK(stat(sp, &st));
	T_EQ_U(id_at(t, mntkit_table_find_devno(t, st.st_dev, 0)), sp_id);

	/* the containing mount */
	T_EQ_U(id_at(t, mntkit_table_find_containing(t, t_path("%s/x/y", a),
						     0)),
	       top);
	T_EQ_U(id_at(t, mntkit_table_find_containing(t, t_path("%s//", a), 0)),
	       top);
	T_EQ_U(id_at(t, mntkit_table_find_containing(
				t, t_path("%s/x/../../a/.", a), 0)),
	       top);
	T_EQ_U(id_at(t, mntkit_table_find_containing(t, t_path("%s/ab", d),
						     0)),
	       base_id);
	T_EQ_U(id_at(t, mntkit_table_find_containing(t, t_path("%s/f", sp),
						     0)),
	       sp_id);
	/* a symlink: lexically it is a name in d, canonically it is a */
	T_EQ_U(id_at(t, mntkit_table_find_containing(t, t_path("%s/link/f", d),
						     0)),
	       base_id);
	T_EQ_U(id_at(t, mntkit_table_find_containing(t, t_path("%s/link/f", d),
						     MNTKIT_LOOKUP_F_CANON)),
	       top);
	T_EQ_U(id_at(t, mntkit_table_find_containing(t, f2, 0)), t_uid(f2));
	mntkit_table_free(t);

	/* is a path a mount point, as the kernel says */
	T_EQ_I(mntkit_is_mountpoint(a, 0), 1);
	T_EQ_I(mntkit_is_mountpoint(t_path("%s/", a), 0), 1);
	T_EQ_I(mntkit_is_mountpoint(bind, 0), 1);
	T_EQ_I(mntkit_is_mountpoint(sp, 0), 1);
	T_EQ_I(mntkit_is_mountpoint(d, 0), 0);
	T_EQ_I(mntkit_is_mountpoint(t_path("%s/a/..", d), 0), 0);
	T_EQ_I(mntkit_is_mountpoint(t_base, 0), 1);
	/* / is one, but in a chroot into a directory that is no mount point */
	T_EQ_I(mntkit_is_mountpoint("/", 0), root_is_mount_root());
	/* a bind-mounted file, and its source, which is none */
	T_EQ_I(mntkit_is_mountpoint(f2, 0), 1);
	T_EQ_I(mntkit_is_mountpoint(f1, 0), 0);
	/* a symlink to a mount point: followed, or looked at itself */
	T_EQ_I(mntkit_is_mountpoint(t_path("%s/link", d), 0), 1);
	T_EQ_I(mntkit_is_mountpoint(t_path("%s/link", d),
				    MNTKIT_LOOKUP_F_NOFOLLOW),
	       0);
	T_OK(chdir(d));
	T_EQ_I(mntkit_is_mountpoint("a", 0), 1);
	T_EQ_I(mntkit_is_mountpoint("./a/../bind/.", 0), 1);
	T_EQ_I(mntkit_is_mountpoint(".", 0), 0);
	T_NEG(mntkit_is_mountpoint(t_path("%s/none", d), 0), ENOENT);
	T_NEG(mntkit_is_mountpoint("", 0), EINVAL);
	T_NEG(mntkit_is_mountpoint(NULL, 0), EINVAL);
	T_NEG(mntkit_is_mountpoint("/", MNTKIT_LOOKUP_F_FIRST), EINVAL);
	/* unmounted, it is none */
	t_umount(f2);
	T_EQ_I(mntkit_is_mountpoint(f2, 0), 0);
}

/*
 * A FUSE mount whose daemon never answers (its fd held, never read): any
 * lookup through it would wait for ever. The lookups answer without one,
 * and an alarm fails the case should they block.
 */
static void served(enum mntkit_backend b)
{
	char opts[128], *d, *fuse, *c = NULL;
	struct mntkit_table *t;
	const struct mntkit_statmount *sm;
	const char *type;
	ssize_t i;
	int fd;

	t_private_ns();
	use_backend(b);
	d = real_tmpdir();
	fuse = t_path("%s/fuse", d);
	t_mkdir(fuse);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_skip("no /dev/fuse: %s", strerror(errno));
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("dead", fuse, "fuse.mntkitdead", MS_NOSUID, opts))
		t_skip("cannot mount fuse: %s", strerror(errno));
	alarm(20);
	T_OK(mntkit_path_canon(t_path("%s/a/../b/./c/", fuse), 0, &c));
	T_EQ_STR(c, t_path("%s/b/c", fuse));
	free(c);
	T_EQ_I(mntkit_is_mountpoint(fuse, 0), 1);
	T_EQ_I(mntkit_is_mountpoint(t_path("%s/x", fuse), 0), 0);
	T_EQ_I(mntkit_is_mountpoint(t_path("%s/x/..", fuse), 0), 1);
	T_EQ_I(mntkit_is_mountpoint(d, 0), 0);
	T_OK(mntkit_table_new(mask | MNTKIT_STATMOUNT_FS_TYPE, 0, NULL, &t));
	i = mntkit_table_find_containing(t, t_path("%s/x/y", fuse),
					 MNTKIT_LOOKUP_F_CANON);
	T_EQ_STR(point_of(t, i), fuse);
	sm = mntkit_table_get(t, (size_t)i);
	T_OK(mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_FS_TYPE, &type));
	T_EQ_STR(type, "fuse");
	T_EQ_I(mntkit_table_find_target(t, t_path("%s/x/..", fuse),
					MNTKIT_LOOKUP_F_CANON),
	       i);
	T_NEG(mntkit_table_find_source(t, t_path("%s/dev", fuse),
				       MNTKIT_LOOKUP_F_CANON),
	      ENOENT);
	T_EQ_I(mntkit_table_find_source(t, "dead", 0), i);
	mntkit_table_free(t);
	alarm(0);
	close(fd);
}

T_CASE(served_native)
{
	served(NATIVE);
}

T_CASE(served_mountinfo)
{
	served(MOUNTINFO);
}

/*
 * A filter refuses statx (and name_to_handle_at): no STATX_ATTR_MOUNT_ROOT,
 * the mount IDs of the path and its parent (by the handle, or fdinfo)
 */
static void refused(const struct t_refusal *r, size_t n)
{
	char *d, *a, *bind, *f1, *f2;

	t_private_ns();
	d = real_tmpdir();
	a = t_path("%s/a", d);
	bind = t_path("%s/bind", d);
	f1 = t_path("%s/f1", d);
	f2 = t_path("%s/f2", d);
	t_tmpfs(a, 0, NULL);
	t_mkdir(t_path("%s/a/sub", d));
	t_bind(t_path("%s/a/sub", d), bind, 0);
	T_OK(close(open(f1, O_CREAT | O_WRONLY, 0644)));
	T_OK(close(open(f2, O_CREAT | O_WRONLY, 0644)));
	t_mount(f1, f2, NULL, MS_BIND, NULL);
	if (t_seccomp_refuse(r, n) < 0) {
		if (errno == ENOTSUP)
			t_skip("no seccomp filter for this architecture");
		t_fail("seccomp filter: %s", strerror(errno));
	}
	T_EQ_I(mntkit_is_mountpoint(a, 0), 1);
	T_EQ_I(mntkit_is_mountpoint(bind, 0), 1);
	T_EQ_I(mntkit_is_mountpoint(f2, 0), 1);
	T_EQ_I(mntkit_is_mountpoint(f1, 0), 0);
	T_EQ_I(mntkit_is_mountpoint(d, 0), 0);
	T_EQ_I(mntkit_is_mountpoint(t_path("%s/a/sub", d), 0), 0);
	T_EQ_I(mntkit_is_mountpoint("/", 0), 1);
	T_NEG(mntkit_is_mountpoint(t_path("%s/none", d), 0), ENOENT);
}

T_CASE(mountpoint_statx_refused)
{
	struct t_refusal r[] = {{"statx", ENOSYS}};

	refused(r, 1);
}

T_CASE(mountpoint_statx_handle_refused)
{
	struct t_refusal r[] = {{"statx", EPERM},
				{"name_to_handle_at", EPERM}};

	refused(r, 2);
}

T_CASE(mounts_native)
{
	mounts(NATIVE);
}

T_CASE(mounts_mountinfo)
{
	mounts(MOUNTINFO);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
