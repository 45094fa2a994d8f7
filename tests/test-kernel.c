/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-kernel - the kernel-ABI entry points mntkit_statmount() and
 * mntkit_listmount() against the raw system calls 457/458, statx, statfs
 * and /proc/self/mountinfo, on a mount tree built in a private namespace
 * (tree.h), and the semantics of shared/kernel-abi.md.
 */
#include <mntkit.h>

#include "harness.h"
#include "tree.h"

#define SM_BASIC (MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_BASIC)

static void setup(struct t_tree *t)
{
	t_require_statmount();
	t_private_ns();
	t_tree_build(t);
}

static struct mntkit_mnt_id_req req0(uint64_t id, uint64_t param)
{
	struct mntkit_mnt_id_req r;

	memset(&r, 0, sizeof(r));
	r.size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
	r.mnt_id = id;
	r.param = param;
	return r;
}

/* mntkit_statmount into a block of exactly @size bytes; NULL + errno */
static struct mntkit_statmount *lib_sm_size(uint64_t id, uint64_t mask,
					    size_t size)
{
	struct mntkit_mnt_id_req r = req0(id, mask);
	struct mntkit_statmount *sm = t_xcalloc(1, size);

	if (mntkit_statmount(&r, sm, size, 0)) {
		int e = errno;

		free(sm);
		errno = e;
		return NULL;
	}
	return sm;
}

/* mntkit_statmount that must succeed (64k buffer) */
static struct mntkit_statmount *lib_sm(uint64_t id, uint64_t mask)
{
	struct mntkit_statmount *sm = lib_sm_size(id, mask, 65536);

	if (!sm)
		t_fail("mntkit_statmount(%#" PRIx64 ", %#" PRIx64 "): %s", id,
		       mask, strerror(errno));
	return sm;
}

/* the string of a field, read by offset (independent of mntkit_sm_str) */
static const char *S(const struct mntkit_statmount *sm, uint32_t off)
{
	return t_sm_s(sm, off);
}

T_CASE(zero_mask)
{
	struct t_tree t;
	struct mntkit_statmount *sm, *raw;

	setup(&t);
	sm = lib_sm(t.id[T_A], 0);
	T_EQ_U(sm->size, 512);
	T_EQ_U(sm->mask, 0);
	raw = t_sm(t.id[T_A], 0);
	T_ASSERT(!memcmp(sm, raw, 512));
	free(sm);
	free(raw);
}

T_CASE(ids_match_statx_and_mountinfo)
{
	struct t_tree t;
	struct t_mitab tab;

	setup(&t);
	t_mi_read(0, &tab);
	for (int i = 0; i < T_NMOUNTS; i++) {
		struct mntkit_statmount *sm = lib_sm(t.id[i], SM_BASIC);
		uint64_t uniq, old;
		struct t_mi *m;

		if (i == T_AD) { /* overmounted by T_STACK */
			free(sm);
			continue;
		}

		t_statx_ids(AT_FDCWD, t.path[i], 0, &uniq, &old);
		m = t_mi_by_point(&tab, t.path[i]);
		T_ASSERTF(m, "%s not in mountinfo", t.path[i]);
		T_EQ_U(sm->mask, SM_BASIC);
		T_EQ_U(sm->mnt_id, uniq);
		T_EQ_U(sm->mnt_id, t.id[i]);
		T_EQ_U(sm->mnt_id_old, old);
		T_EQ_U(sm->mnt_id_old, m->id);
		T_EQ_U(sm->mnt_parent_id_old, m->parent);
		T_EQ_U(sm->mnt_parent_id, t.parent[i]);
		T_ASSERT(sm->mnt_id > MNTKIT_MNT_UNIQUE_ID_OFFSET);
		T_ASSERT(sm->mnt_id_old <= MNTKIT_MNT_UNIQUE_ID_OFFSET);
		free(sm);
	}
	t_mi_free(&tab);
}

T_CASE(sb_basic_matches_statx_statfs)
{
	struct t_tree t;
	struct t_mitab tab;

	setup(&t);
	t_mi_read(0, &tab);
	for (int i = 0; i < T_NMOUNTS; i++) {
		struct mntkit_statmount *sm =
			lib_sm(t.id[i], MNTKIT_STATMOUNT_SB_BASIC);
		struct t_mi *m = t_mi_by_point(&tab, t.path[i]);
		struct statx stx;
		struct statfs sfs;
		uint32_t want = 0;

		if (i == T_AD) { /* overmounted by T_STACK */
			free(sm);
			continue;
		}

		memset(&stx, 0, sizeof(stx));
		T_OK(statx(AT_FDCWD, t.path[i], 0, STATX_BASIC_STATS, &stx));
		T_OK(statfs(t.path[i], &sfs));
		T_EQ_U(sm->mask, MNTKIT_STATMOUNT_SB_BASIC);
		T_EQ_U(sm->sb_dev_major, stx.stx_dev_major);
		T_EQ_U(sm->sb_dev_minor, stx.stx_dev_minor);
		T_EQ_U(sm->sb_dev_major, m->major);
		T_EQ_U(sm->sb_dev_minor, m->minor);
		T_EQ_U(sm->sb_magic, (uint64_t)sfs.f_type);
		if (t_has_word(m->superopts, "ro"))
			want |= MNTKIT_SB_RDONLY;
		if (t_has_word(m->superopts, "sync"))
			want |= MNTKIT_SB_SYNCHRONOUS;
		if (t_has_word(m->superopts, "dirsync"))
			want |= MNTKIT_SB_DIRSYNC;
		if (t_has_word(m->superopts, "lazytime"))
			want |= MNTKIT_SB_LAZYTIME;
		T_EQ_U(sm->sb_flags, want);
		free(sm);
	}
	/* the ro,sync,dirsync,lazytime superblock */
	{
		struct mntkit_statmount *sm =
			lib_sm(t.id[T_RO], MNTKIT_STATMOUNT_SB_BASIC);

		T_EQ_U(sm->sb_flags, MNTKIT_SB_RDONLY | MNTKIT_SB_SYNCHRONOUS |
					     MNTKIT_SB_DIRSYNC |
					     MNTKIT_SB_LAZYTIME);
		free(sm);
	}
	t_mi_free(&tab);
}

T_CASE(mnt_attr_matches_mountinfo)
{
	static const struct {
		const char *word;
		uint64_t bit;
	} words[] = {
		{"ro", MNTKIT_MOUNT_ATTR_RDONLY},
		{"nosuid", MNTKIT_MOUNT_ATTR_NOSUID},
		{"nodev", MNTKIT_MOUNT_ATTR_NODEV},
		{"noexec", MNTKIT_MOUNT_ATTR_NOEXEC},
		{"nodiratime", MNTKIT_MOUNT_ATTR_NODIRATIME},
		{"nosymfollow", MNTKIT_MOUNT_ATTR_NOSYMFOLLOW},
		{"idmapped", MNTKIT_MOUNT_ATTR_IDMAP},
	};
	struct t_tree t;
	struct t_mitab tab;

	setup(&t);
	t_setattr(t.path[T_BIND], 0,
		  MNTKIT_MOUNT_ATTR_NOSYMFOLLOW | MNTKIT_MOUNT_ATTR_RDONLY, 0,
		  0);
	t_mi_read(0, &tab);
	for (int i = 0; i < T_NMOUNTS; i++) {
		struct mntkit_statmount *sm =
			lib_sm(t.id[i], MNTKIT_STATMOUNT_MNT_BASIC);
		struct t_mi *m = t_mi_by_point(&tab, t.path[i]);
		uint64_t want = 0, atime;

		if (i == T_AD) { /* overmounted by T_STACK */
			free(sm);
			continue;
		}

		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
			if (t_has_word(m->opts, words[w].word))
				want |= words[w].bit;
		atime = sm->mnt_attr & MNTKIT_MOUNT_ATTR__ATIME;
		if (t_has_word(m->opts, "noatime"))
			T_EQ_U(atime, MNTKIT_MOUNT_ATTR_NOATIME);
		else if (t_has_word(m->opts, "relatime"))
			T_EQ_U(atime, MNTKIT_MOUNT_ATTR_RELATIME);
		else
			T_EQ_U(atime, MNTKIT_MOUNT_ATTR_STRICTATIME);
		T_ASSERTF((sm->mnt_attr & ~MNTKIT_MOUNT_ATTR__ATIME) == want,
			  "%s: mnt_attr %#" PRIx64 ", mountinfo '%s'",
			  t.path[i], sm->mnt_attr, m->opts);
		free(sm);
	}
	t_mi_free(&tab);
}

T_CASE(propagation_matches_mountinfo)
{
	struct t_tree t;
	struct t_mitab tab;
	char *p;

	setup(&t);
	/* a slave that is also shared, and an unbindable mount */
	p = t_path("%s/shslave", t.dir);
	t_bind(t.path[T_SHARED], p, 0);
	t_mount(NULL, p, NULL, MS_SLAVE, NULL);
	t_mount(NULL, p, NULL, MS_SHARED, NULL);
	t_mount(NULL, t.path[T_AD], NULL, MS_UNBINDABLE, NULL);
	t_mi_read(0, &tab);
	for (size_t i = 0; i < tab.n; i++) {
		struct t_mi *m = &tab.v[i];
		struct mntkit_statmount *sm;
		uint64_t want = 0, id = 0;
		uint64_t *ids;
		size_t n = t_lm(T_LSMT_ROOT, 0, &ids);

		/* the unique ID of this mountinfo line */
		for (size_t j = 0; j < n && !id; j++) {
			struct mntkit_statmount *r = t_sm(ids[j], 0x2);

			if (r->mnt_id_old == m->id)
				id = ids[j];
			free(r);
		}
		free(ids);
		T_ASSERTF(id, "no unique ID for mount %" PRIu64, m->id);
		sm = lib_sm(id, MNTKIT_STATMOUNT_MNT_BASIC |
					MNTKIT_STATMOUNT_PROPAGATE_FROM);
		if (m->shared)
			want |= MNTKIT_MS_SHARED;
		if (m->master)
			want |= MNTKIT_MS_SLAVE;
		if (m->unbindable)
			want |= MNTKIT_MS_UNBINDABLE;
		if (!want)
			want = MNTKIT_MS_PRIVATE;
		T_ASSERTF(sm->mnt_propagation == want,
			  "%s: propagation %#" PRIx64 ", mountinfo '%s'",
			  m->point, sm->mnt_propagation, m->optional);
		T_EQ_U(sm->mnt_peer_group, m->shared);
		T_EQ_U(sm->mnt_master, m->master);
		if (m->propagate_from)
			T_EQ_U(sm->propagate_from, m->propagate_from);
		if (!m->master)
			T_EQ_U(sm->propagate_from, 0);
		T_ASSERT(sm->mask & MNTKIT_STATMOUNT_PROPAGATE_FROM);
		free(sm);
	}
	t_mi_free(&tab);
}

/* the fs options of mountinfo's super options: without the generic words */
static void fs_opts(const char *superopts, char *out, size_t len)
{
	static const char *const generic[] = {"ro",	 "rw",	 "sync",
					      "dirsync", "mand", "lazytime"};
	char *dup = t_xstrdup(superopts), *sv = NULL, *w;

	out[0] = 0;
	for (w = strtok_r(dup, ",", &sv); w; w = strtok_r(NULL, ",", &sv)) {
		int skip = 0;

		for (size_t g = 0; g < sizeof(generic) / sizeof(generic[0]);
		     g++)
			if (!strcmp(w, generic[g]))
				skip = 1;
		if (skip)
			continue;
		if (out[0])
			strncat(out, ",", len - strlen(out) - 1);
		strncat(out, w, len - strlen(out) - 1);
	}
	free(dup);
}

T_CASE(strings_match_mountinfo)
{
	struct t_tree t;
	struct t_mitab tab;

	setup(&t);
	t_mi_read(0, &tab);
	for (int i = 0; i < T_NMOUNTS; i++) {
		struct mntkit_statmount *sm =
			lib_sm(t.id[i], MNTKIT_STATMOUNT_ALL);
		struct t_mi *m = t_mi_by_point(&tab, t.path[i]);
		char want[1024];

		if (i == T_AD) { /* overmounted by T_STACK */
			free(sm);
			continue;
		}

		T_ASSERT(sm->mask & MNTKIT_STATMOUNT_MNT_ROOT);
		T_ASSERT(sm->mask & MNTKIT_STATMOUNT_MNT_POINT);
		T_ASSERT(sm->mask & MNTKIT_STATMOUNT_FS_TYPE);
		T_ASSERT(sm->mask & MNTKIT_STATMOUNT_SB_SOURCE);
		T_EQ_STR(S(sm, sm->mnt_root), m->root);
		T_EQ_STR(S(sm, sm->mnt_point), m->point);
		T_EQ_STR(S(sm, sm->mnt_point), t.path[i]);
		T_EQ_STR(S(sm, sm->fs_type), m->fstype);
		T_EQ_STR(S(sm, sm->sb_source), m->source);
		T_ASSERT(!(sm->mask & MNTKIT_STATMOUNT_FS_SUBTYPE));
		T_ASSERT(!(sm->mask & MNTKIT_STATMOUNT_MNT_UIDMAP));
		T_ASSERT(!(sm->mask & MNTKIT_STATMOUNT_MNT_GIDMAP));
		fs_opts(m->superopts, want, sizeof(want));
		if (!want[0]) {
			T_ASSERT(!(sm->mask & MNTKIT_STATMOUNT_MNT_OPTS));
			T_ASSERT(!(sm->mask & MNTKIT_STATMOUNT_OPT_ARRAY));
		} else {
			const char *p;
			char joined[1024] = "";

			T_ASSERT(sm->mask & MNTKIT_STATMOUNT_MNT_OPTS);
			T_EQ_STR(S(sm, sm->mnt_opts), want);
			T_ASSERT(sm->mask & MNTKIT_STATMOUNT_OPT_ARRAY);
			p = S(sm, sm->opt_array);
			for (uint32_t k = 0; k < sm->opt_num; k++) {
				if (k)
					strcat(joined, ",");
				strncat(joined, p, 512);
				p += strlen(p) + 1;
			}
			T_EQ_STR(joined, want);
		}
		free(sm);
	}
	{
		struct mntkit_statmount *sm =
			lib_sm(t.id[T_BIND], MNTKIT_STATMOUNT_MNT_ROOT);

		T_EQ_STR(S(sm, sm->mnt_root), "/sub");
		free(sm);
		sm = lib_sm(t.id[T_SPACE], MNTKIT_STATMOUNT_SB_SOURCE |
						   MNTKIT_STATMOUNT_MNT_POINT);
		T_EQ_STR(S(sm, sm->sb_source), "my src");
		T_ASSERT(strstr(S(sm, sm->mnt_point), "/sp ace"));
		free(sm);
		/* what this kernel's tmpfs shows of size=1024k,mode=700
		 * (7.x adds inode64), from its mountinfo */
		char want[1024];
		struct t_mi *m = t_mi_by_point(&tab, t.path[T_A]);

		T_ASSERT(m);
		fs_opts(m->superopts, want, sizeof(want));
		T_ASSERTF(strstr(want, "size=1024k") && strstr(want, "mode=700"),
			  "mountinfo: %s", m->superopts);
		sm = lib_sm(t.id[T_A], MNTKIT_STATMOUNT_MNT_OPTS);
		T_EQ_STR(S(sm, sm->mnt_opts), want);
		free(sm);
	}
	t_mi_free(&tab);
}

T_CASE(ns_id_and_supported_mask)
{
	struct t_tree t;
	struct mntkit_statmount *sm;

	setup(&t);
	sm = lib_sm(t.id[T_A], MNTKIT_STATMOUNT_MNT_NS_ID |
				       MNTKIT_STATMOUNT_SUPPORTED_MASK);
	T_EQ_U(sm->mask,
	       MNTKIT_STATMOUNT_MNT_NS_ID | MNTKIT_STATMOUNT_SUPPORTED_MASK);
	T_EQ_U(sm->mnt_ns_id, t_ns_id(0));
	/* every group; on a kernel without some, the hybrid's: the
	 * emulation has every group but the idmaps (not in mountinfo) */
	if ((t_kernel_groups() & MNTKIT_STATMOUNT_ALL) == MNTKIT_STATMOUNT_ALL)
		T_EQ_U(sm->supported_mask, MNTKIT_STATMOUNT_ALL);
	else
		T_EQ_U(sm->supported_mask,
		       (t_kernel_groups() | 0x1fff) & MNTKIT_STATMOUNT_ALL);
	T_EQ_U(sm->size, 512);
	free(sm);
}

T_CASE(unknown_request_bits_ignored)
{
	struct t_tree t;
	struct mntkit_statmount *a, *b;

	setup(&t);
	a = lib_sm(t.id[T_A], MNTKIT_STATMOUNT_ALL);
	b = lib_sm(t.id[T_A], MNTKIT_STATMOUNT_ALL | (1ULL << 15) |
				      (1ULL << 40) | (1ULL << 63));
	T_EQ_U(a->mask, b->mask);
	T_EQ_U(a->size, b->size);
	T_ASSERT(!memcmp(a, b, a->size));
	free(a);
	free(b);
}

/* one group asked alone: the exact size succeeds, one byte less fails */
static void check_exact(uint64_t id, uint64_t mask, const char *what)
{
	struct mntkit_statmount *raw, *sm;
	uint32_t size;

	/* the reference is the running kernel: only its groups (a group it
	 * lacks comes from the hybrid, whose sizes test-emul-hybrid and
	 * test-emul-diff check against a kernel that has it) */
	mask &= t_kernel_groups() | ~MNTKIT_STATMOUNT_ALL;
	if (!(mask & MNTKIT_STATMOUNT_ALL))
		return;
	raw = t_sm(id, mask);
	size = raw->size;

	sm = lib_sm_size(id, mask, size);
	T_ASSERTF(sm, "%s: %u bytes: %s", what, size, strerror(errno));
	T_EQ_U(sm->size, size);
	T_EQ_U(sm->mask, raw->mask);
	T_ASSERTF(!memcmp(sm, raw, size), "%s: reply differs from raw", what);
	free(sm);
	if (size > 512 || (mask & ~0x1047ULL)) {
		errno = 0;
		sm = lib_sm_size(id, mask, size - 1);
		T_ASSERTF(!sm && errno == EOVERFLOW,
			  "%s: %u bytes: %s, expected EOVERFLOW", what,
			  size - 1, sm ? "success" : strerror(errno));
	}
	free(raw);
}

static const uint64_t string_groups[] = {
	MNTKIT_STATMOUNT_MNT_ROOT,   MNTKIT_STATMOUNT_MNT_POINT,
	MNTKIT_STATMOUNT_FS_TYPE,    MNTKIT_STATMOUNT_MNT_OPTS,
	MNTKIT_STATMOUNT_FS_SUBTYPE, MNTKIT_STATMOUNT_SB_SOURCE,
	MNTKIT_STATMOUNT_OPT_ARRAY,  MNTKIT_STATMOUNT_OPT_SEC_ARRAY,
	MNTKIT_STATMOUNT_MNT_UIDMAP, MNTKIT_STATMOUNT_MNT_GIDMAP,
};

T_CASE(string_groups_exact_size)
{
	struct t_tree t;

	setup(&t);
	for (int i = 0; i < T_NMOUNTS; i++) {
		for (size_t g = 0; g < sizeof(string_groups) / 8; g++)
			check_exact(t.id[i], string_groups[g],
				    mntkit_mask_name(string_groups[g]));
		check_exact(t.id[i], MNTKIT_STATMOUNT_ALL, "all");
		check_exact(t.id[i],
			    MNTKIT_STATMOUNT_MNT_POINT |
				    MNTKIT_STATMOUNT_OPT_ARRAY,
			    "mnt_point,opt_array");
	}
}

T_CASE(short_buffer_without_strings)
{
	struct t_tree t;
	unsigned char raw[600], lib[600];
	struct mntkit_mnt_id_req r;

	setup(&t);
	r = req0(t.id[T_A], SM_BASIC);
	for (size_t size = 0; size <= 512; size += 50) {
		memset(raw, 0xa5, sizeof(raw));
		memset(lib, 0xa5, sizeof(lib));
		T_OK(t_sys_statmount(&r, raw, size, 0));
		T_EQ_I(mntkit_statmount(&r, (void *)lib, size, 0), 0);
		T_ASSERTF(!memcmp(raw, lib, sizeof(raw)),
			  "bufsize %zu: reply differs from raw", size);
	}
	/* a 100-byte buffer holds the truncated fixed part */
	{
		struct mntkit_statmount *sm = (void *)lib;

		memset(lib, 0xa5, sizeof(lib));
		T_EQ_I(mntkit_statmount(&r, sm, 100, 0), 0);
		T_EQ_U(sm->size, 100);
		T_EQ_U(sm->mask, SM_BASIC);
		T_EQ_U(sm->mnt_id, t.id[T_A]);
		T_EQ_U(lib[100], 0xa5);
	}
}

T_CASE(all_mounts_byte_equal_to_raw)
{
	struct t_tree t;
	struct t_mnt *v;
	size_t n;

	setup(&t);
	n = t_all_mounts(&v);
	for (size_t i = 0; i < n; i++) {
		struct mntkit_statmount *raw =
			t_sm(v[i].id, MNTKIT_STATMOUNT_ALL);
		/* the kernel's groups (more are the hybrid's) */
		struct mntkit_statmount *sm =
			lib_sm(v[i].id, MNTKIT_STATMOUNT_ALL & t_kernel_groups());
		struct mntkit_statmount *all =
			lib_sm(v[i].id, MNTKIT_STATMOUNT_ALL);

		T_EQ_U(all->mask & raw->mask, raw->mask);
		free(all);
		T_EQ_U(sm->size, raw->size);
		T_ASSERTF(!memcmp(sm, raw, raw->size),
			  "mount %" PRIx64 ": reply differs from raw", v[i].id);
		free(raw);
		free(sm);
	}
	free(v);
}

T_CASE(ver1_request_own_namespace)
{
	struct t_tree t;
	struct mntkit_mnt_id_req r;
	struct mntkit_statmount *a, *b;

	setup(&t);
	a = lib_sm(t.id[T_AB], MNTKIT_STATMOUNT_ALL);
	b = t_xcalloc(1, 65536);
	memset(&r, 0, sizeof(r));
	r.size = MNTKIT_MNT_ID_REQ_SIZE_VER1;
	r.mnt_id = t.id[T_AB];
	r.param = MNTKIT_STATMOUNT_ALL;
	r.mnt_ns_id = t_ns_id(0);
	T_EQ_I(mntkit_statmount(&r, b, 65536, 0), 0);
	T_EQ_U(a->size, b->size);
	T_ASSERT(!memcmp(a, b, a->size));
	free(a);
	free(b);
}

/* an idmapped mount: the map strings as seen from the caller's userns */
T_CASE(idmap_strings)
{
	struct t_tree t;
	struct mntkit_statmount *sm;
	int ufd;
	uint64_t id;
	const char *p;

	setup(&t);
	/* not in mountinfo: the library cannot emulate them */
	t_require_groups(MNTKIT_STATMOUNT_MNT_UIDMAP | MNTKIT_STATMOUNT_MNT_GIDMAP,
			 "MNT_UIDMAP/MNT_GIDMAP (the maps of an idmapped mount)");
	ufd = t_userns_fd("0 100000 65536");
	id = t_idmap_mount(t.path[T_SHARED], t_path("%s/idm", t.dir), ufd);
	sm = lib_sm(id, MNTKIT_STATMOUNT_MNT_UIDMAP |
				MNTKIT_STATMOUNT_MNT_GIDMAP |
				MNTKIT_STATMOUNT_MNT_BASIC);
	T_EQ_U(sm->mask, MNTKIT_STATMOUNT_MNT_UIDMAP |
				 MNTKIT_STATMOUNT_MNT_GIDMAP |
				 MNTKIT_STATMOUNT_MNT_BASIC);
	T_ASSERT(sm->mnt_attr & MNTKIT_MOUNT_ATTR_IDMAP);
	T_EQ_U(sm->mnt_uidmap_num, 1);
	T_EQ_U(sm->mnt_gidmap_num, 1);
	p = S(sm, sm->mnt_uidmap);
	T_EQ_STR(p, "0 100000 65536");
	p = S(sm, sm->mnt_gidmap);
	T_EQ_STR(p, "0 100000 65536");
	free(sm);
	check_exact(id, MNTKIT_STATMOUNT_MNT_UIDMAP, "mnt_uidmap");
	check_exact(id, MNTKIT_STATMOUNT_MNT_GIDMAP, "mnt_gidmap");
	close(ufd);
}

/* a FUSE mount without a server: statmount never talks to the fs */
T_CASE(fuse_subtype)
{
	struct t_tree t;
	struct mntkit_statmount *sm;
	char opts[128], *p;
	uint64_t *ids, id = 0;
	size_t n;
	int fd;

	setup(&t);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_skip("no /dev/fuse: %s", strerror(errno));
	p = t_path("%s/fuse", t.dir);
	t_mkdir(p);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("fsrc", p, "fuse.mntkittest", MS_NOSUID | MS_NODEV, opts))
		t_skip("cannot mount fuse: %s", strerror(errno));
	close(fd); /* aborts the connection: nothing can hang on it */
	/* its ID without touching it: the mount whose mnt_point is p */
	n = t_lm(T_LSMT_ROOT, 0, &ids);
	for (size_t i = 0; i < n; i++) {
		struct mntkit_statmount *r = t_sm(ids[i], 0x10);

		if ((r->mask & 0x10) && !strcmp(S(r, r->mnt_point), p))
			id = ids[i];
		free(r);
	}
	T_ASSERT(id);
	sm = lib_sm(id, MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_FS_SUBTYPE |
				MNTKIT_STATMOUNT_SB_SOURCE);
	T_ASSERT(sm->mask & MNTKIT_STATMOUNT_FS_SUBTYPE);
	T_EQ_STR(S(sm, sm->fs_type), "fuse");
	T_EQ_STR(S(sm, sm->fs_subtype), "mntkittest");
	T_EQ_STR(S(sm, sm->sb_source), "fsrc");
	free(sm);
	check_exact(id, MNTKIT_STATMOUNT_FS_SUBTYPE, "fs_subtype");
	check_exact(id, MNTKIT_STATMOUNT_ALL, "all");
	free(ids);
}

/* ---- errno parity with the raw system calls ---- */

struct bad_sm {
	const char *what;
	size_t size; /* request size */
	uint32_t ns_fd;
	uint64_t id, param, ns_id;
	size_t tail_at; /* a nonzero byte here (0: none) */
	unsigned int flags;
	int want; /* the kernel's errno per kernel-abi.md, 0 ok */
};

static void check_parity_sm(const struct bad_sm *b)
{
	unsigned char reqbuf[8192], r1[2048], r2[2048];
	struct mntkit_mnt_id_req *r = (void *)reqbuf;
	long ret1, ret2;
	int e1, e2;

	memset(reqbuf, 0, sizeof(reqbuf));
	r->size = (uint32_t)b->size;
	r->mnt_ns_fd = b->ns_fd;
	r->mnt_id = b->id;
	r->param = b->param;
	r->mnt_ns_id = b->ns_id;
	if (b->tail_at)
		reqbuf[b->tail_at] = 1;
	memset(r1, 0, sizeof(r1));
	memset(r2, 0, sizeof(r2));
	errno = 0;
	ret1 = t_sys_statmount(reqbuf, r1, sizeof(r1), b->flags);
	e1 = errno;
	errno = 0;
	ret2 = mntkit_statmount((void *)reqbuf, (void *)r2, sizeof(r2),
				b->flags);
	e2 = errno;
	T_ASSERTF(ret1 == ret2 && (ret1 == 0 || e1 == e2),
		  "%s: raw %ld (%s), mntkit %ld (%s)", b->what, ret1,
		  strerror(e1), ret2, strerror(e2));
	if (ret1 == 0)
		T_ASSERTF(!memcmp(r1, r2, sizeof(r1)), "%s: replies differ",
			  b->what);
	/* and the kernel does what kernel-abi.md says */
	T_ASSERTF(b->want ? (ret1 == -1 && e1 == b->want) : ret1 == 0,
		  "%s: kernel says %ld (%s), kernel-abi.md says %s", b->what,
		  ret1, strerror(e1), b->want ? strerror(b->want) : "success");
}

T_CASE(statmount_errno_parity)
{
	struct t_tree t;
	uint64_t gone, old, ns;
	char *p;
	int fd, notns;

	setup(&t);
	p = t_path("%s/gone", t.dir);
	gone = t_tmpfs(p, 0, NULL);
	t_umount(p);
	old = t_old_id(t.path[T_A]);
	ns = t_ns_id(0);
	fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	notns = open("/", O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd > 0 && notns > 0);
	{
		const uint64_t A = t.id[T_A], M = SM_BASIC;
		const struct bad_sm cases[] = {
			{"ok VER0", 24, 0, A, M, 0, 0, 0, 0},
			{"ok VER1", 32, 0, A, M, ns, 0, 0, 0},
			{"ok VER1 ns fd", 32, (uint32_t)fd, A, M, 0, 0, 0, 0},
			{"size 0", 0, 0, A, M, 0, 0, 0, EINVAL},
			{"size 23", 23, 0, A, M, 0, 0, 0, EINVAL},
			{"size 25 zero tail", 25, 0, A, M, 0, 0, 0, 0},
			{"size 25 byte 24 set", 25, 0, A, M, 0, 24, 0, ENOENT},
			{"size 33 zero tail", 33, 0, A, M, 0, 0, 0, 0},
			{"size 40 nonzero tail", 40, 0, A, M, 0, 39, 0, E2BIG},
			{"size 33 nonzero tail", 33, 0, A, M, 0, 32, 0, E2BIG},
			{"size 4096 zero tail", 4096, 0, A, M, 0, 0, 0, 0},
			{"size 4097", 4097, 0, A, M, 0, 0, 0, E2BIG},
			{"size 65536", 65536, 0, A, M, 0, 0, 0, E2BIG},
			{"old ID", 24, 0, old, M, 0, 0, 0, EINVAL},
			{"mnt_id 0", 24, 0, 0, M, 0, 0, 0, EINVAL},
			{"mnt_id 2^31", 24, 0, 1ULL << 31, M, 0, 0, 0, EINVAL},
			{"LSMT_ROOT", 24, 0, MNTKIT_LSMT_ROOT, M, 0, 0, 0,
			 ENOENT},
			{"flags 1", 24, 0, A, M, 0, 0, 1, EINVAL},
			{"flags 0x80000000", 24, 0, A, M, 0, 0, 0x80000000U,
			 EINVAL},
			{"unmounted ID", 24, 0, gone, M, 0, 0, 0, ENOENT},
			{"ns fd and ns id", 32, (uint32_t)fd, A, M, ns, 0, 0,
			 EINVAL},
			{"no such ns id", 32, 0, A, M, 1, 0, 0, ENOENT},
			{"ns fd not a ns", 32, (uint32_t)notns, A, M, 0, 0, 0,
			 EINVAL},
			{"ns fd closed", 32, 999, A, M, 0, 0, 0, EBADF},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			check_parity_sm(&cases[i]);
	}
	close(fd);
	close(notns);
}

T_CASE(statmount_efault)
{
	struct t_tree t;
	struct mntkit_mnt_id_req r;
	char buf[1024];

	setup(&t);
	r = req0(t.id[T_A], SM_BASIC);
	T_ERRNO(t_sys_statmount(NULL, buf, sizeof(buf), 0), EFAULT);
	T_ERRNO(mntkit_statmount(NULL, (void *)buf, sizeof(buf), 0), EFAULT);
	T_ERRNO(t_sys_statmount(&r, NULL, sizeof(buf), 0), EFAULT);
	T_ERRNO(mntkit_statmount(&r, NULL, sizeof(buf), 0), EFAULT);
}

struct bad_lm {
	const char *what;
	size_t size;
	uint32_t ns_fd;
	uint64_t id, param, ns_id;
	size_t nr;
	unsigned int flags;
	int want;
};

static void check_parity_lm(const struct bad_lm *b, uint64_t *ids1,
			    uint64_t *ids2, size_t cap)
{
	unsigned char reqbuf[8192];
	struct mntkit_mnt_id_req *r = (void *)reqbuf;
	long ret1, ret2;
	int e1, e2;

	memset(reqbuf, 0, sizeof(reqbuf));
	r->size = (uint32_t)b->size;
	r->mnt_ns_fd = b->ns_fd;
	r->mnt_id = b->id;
	r->param = b->param;
	r->mnt_ns_id = b->ns_id;
	memset(ids1, 0, cap * 8);
	memset(ids2, 0, cap * 8);
	errno = 0;
	ret1 = t_sys_listmount(reqbuf, ids1, b->nr, b->flags);
	e1 = errno;
	errno = 0;
	ret2 = mntkit_listmount((void *)reqbuf, ids2, b->nr, b->flags);
	e2 = errno;
	T_ASSERTF(ret1 == ret2 && (ret1 >= 0 || e1 == e2),
		  "%s: raw %ld (%s), mntkit %ld (%s)", b->what, ret1,
		  strerror(e1), ret2, strerror(e2));
	if (ret1 > 0)
		T_ASSERTF(!memcmp(ids1, ids2, (size_t)ret1 * 8),
			  "%s: IDs differ", b->what);
	T_ASSERTF(b->want ? (ret1 == -1 && e1 == b->want) : ret1 >= 0,
		  "%s: kernel says %ld (%s), kernel-abi.md says %s", b->what,
		  ret1, strerror(e1), b->want ? strerror(b->want) : "success");
}

T_CASE(listmount_errno_parity)
{
	struct t_tree t;
	uint64_t gone, old, ns, *ids1, *ids2;
	const size_t cap = MNTKIT_LISTMOUNT_MAX_NR;
	char *p;
	int fd;

	setup(&t);
	p = t_path("%s/gone", t.dir);
	gone = t_tmpfs(p, 0, NULL);
	t_umount(p);
	old = t_old_id(t.path[T_A]);
	ns = t_ns_id(0);
	fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd > 0);
	/* room for the biggest nr the kernel accepts */
	ids1 = t_xcalloc(cap, 8);
	ids2 = t_xcalloc(cap, 8);
	{
		const uint64_t R = MNTKIT_LSMT_ROOT, A = t.id[T_A];
		const struct bad_lm cases[] = {
			{"ok root", 24, 0, R, 0, 0, 100, 0, 0},
			{"ok reverse", 24, 0, R, 0, 0, 100, 1, 0},
			{"ok subtree", 24, 0, A, 0, 0, 100, 0, 0},
			{"ok VER1 ns id", 32, 0, R, 0, ns, 100, 0, 0},
			{"ok VER1 ns fd", 32, (uint32_t)fd, R, 0, 0, 100, 0, 0},
			{"nr 0", 24, 0, R, 0, 0, 0, 0, 0},
			{"nr max", 24, 0, R, 0, 0, cap, 0, 0},
			{"nr max+1", 24, 0, R, 0, 0, cap + 1, 0, EOVERFLOW},
			{"nr huge", 24, 0, R, 0, 0, SIZE_MAX / 8, 0, EOVERFLOW},
			{"flags 2", 24, 0, R, 0, 0, 100, 2, EINVAL},
			{"flags 3", 24, 0, R, 0, 0, 100, 3, EINVAL},
			{"size 0", 0, 0, R, 0, 0, 100, 0, EINVAL},
			{"size 23", 23, 0, R, 0, 0, 100, 0, EINVAL},
			{"size 4097", 4097, 0, R, 0, 0, 100, 0, E2BIG},
			{"old ID", 24, 0, old, 0, 0, 100, 0, EINVAL},
			{"mnt_id 0", 24, 0, 0, 0, 0, 100, 0, EINVAL},
			{"unmounted ID", 24, 0, gone, 0, 0, 100, 0, ENOENT},
			{"cursor old-style", 24, 0, R, 5, 0, 100, 0, EINVAL},
			{"cursor gone", 24, 0, R, gone, 0, 100, 0, 0},
			{"ns fd and ns id", 32, (uint32_t)fd, R, 0, ns, 100, 0,
			 EINVAL},
			{"no such ns id", 32, 0, R, 0, 1, 100, 0, ENOENT},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			check_parity_lm(&cases[i], ids1, ids2, cap);
	}
	free(ids1);
	free(ids2);
	close(fd);
}

T_CASE(listmount_efault)
{
	struct mntkit_mnt_id_req r = req0(MNTKIT_LSMT_ROOT, 0);
	uint64_t ids[4];

	t_require_statmount();
	T_ERRNO(t_sys_listmount(NULL, ids, 4, 0), EFAULT);
	T_ERRNO(mntkit_listmount(NULL, ids, 4, 0), EFAULT);
	T_ERRNO(t_sys_listmount(&r, NULL, 4, 0), EFAULT);
	T_ERRNO(mntkit_listmount(&r, NULL, 4, 0), EFAULT);
}

/* ---- listmount ---- */

/* the whole list through mntkit_listmount in pages of @page */
static size_t lib_pages(uint64_t start, size_t page, unsigned int flags,
			uint64_t *out, size_t cap)
{
	struct mntkit_mnt_id_req r = req0(start, 0);
	size_t n = 0;

	for (;;) {
		ssize_t got;

		size_t want = page < cap - n ? page : cap - n;

		T_ASSERTF(want > 0, "more than %zu mounts", cap);
		got = mntkit_listmount(&r, out + n, want, flags);
		T_ASSERTF(got >= 0, "mntkit_listmount: %s", strerror(errno));
		T_ASSERT((size_t)got <= want);
		if (got == 0)
			break;
		n += (size_t)got;
		r.param = out[n - 1];
	}
	return n;
}

T_CASE(listmount_pages)
{
	static const size_t pages[] = {1, 2, 3, 7, 1000};
	struct t_tree t;
	uint64_t raw[4096], *lib = t_xcalloc(8192, 8);
	struct mntkit_mnt_id_req r;
	long n;

	setup(&t);
	r = req0(MNTKIT_LSMT_ROOT, 0);
	n = t_sys_listmount(&r, raw, 4096, 0);
	T_ASSERT(n > T_NMOUNTS && n < 4096);
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		size_t m = lib_pages(MNTKIT_LSMT_ROOT, pages[i], 0, lib, 8192);

		T_EQ_U(m, n);
		T_ASSERTF(!memcmp(lib, raw, (size_t)n * 8),
			  "page %zu: order differs", pages[i]);
	}
	for (long i = 1; i < n; i++)
		T_ASSERT(raw[i] > raw[i - 1]);
	free(lib);
}

T_CASE(listmount_reverse)
{
	struct t_tree t;
	uint64_t fwd[4096], rev[4096];
	size_t n, m;

	setup(&t);
	n = lib_pages(MNTKIT_LSMT_ROOT, 4096, 0, fwd, 4096);
	m = lib_pages(MNTKIT_LSMT_ROOT, 4096, MNTKIT_LISTMOUNT_REVERSE, rev,
		      4096);
	T_EQ_U(m, n);
	for (size_t i = 0; i < n; i++)
		T_EQ_U(rev[i], fwd[n - 1 - i]);
	for (size_t i = 1; i < m; i++)
		T_ASSERT(rev[i] < rev[i - 1]);
	/* pages in reverse give the same */
	m = lib_pages(MNTKIT_LSMT_ROOT, 2, MNTKIT_LISTMOUNT_REVERSE, rev, 4096);
	T_EQ_U(m, n);
	for (size_t i = 0; i < n; i++)
		T_EQ_U(rev[i], fwd[n - 1 - i]);
	/* and a subtree in reverse */
	n = lib_pages(t.id[T_A], 4096, 0, fwd, 4096);
	m = lib_pages(t.id[T_A], 1, MNTKIT_LISTMOUNT_REVERSE, rev, 4096);
	T_EQ_U(m, n);
	for (size_t i = 0; i < n; i++)
		T_EQ_U(rev[i], fwd[n - 1 - i]);
}

T_CASE(listmount_root_and_start)
{
	struct t_tree t;
	uint64_t all[4096], below[4096], root;
	size_t n, m;
	int reached;

	setup(&t);
	root = t_uid("/");
	/* listed when the root reaches it: not the mount that holds / in a
	 * chroot into a directory that is no mount point */
	reached = t_root_in_mountinfo();
	n = lib_pages(MNTKIT_LSMT_ROOT, 100, 0, all, 4096);
	T_ASSERTF(t_contains_u64(all, n, root) == reached,
		  "root %" PRIx64 " %slisted", root, reached ? "not " : "");
	/* the root as a start ID is not listed itself */
	m = lib_pages(root, 100, 0, below, 4096);
	T_ASSERT(!t_contains_u64(below, m, root));
	if (reached) {
		T_EQ_U(m + 1, n);
		for (size_t i = 0; i < m; i++)
			T_ASSERT(t_contains_u64(all, n, below[i]));
	} else {
		/* the mount that holds / is outside the root: below it also
		 * what the root does not reach (CAP_SYS_ADMIN lists it) */
		for (size_t i = 0; i < n; i++)
			T_ASSERT(t_contains_u64(below, m, all[i]));
	}
	/* a leaf lists nothing */
	T_EQ_U(lib_pages(t.id[T_ABC], 10, 0, below, 4096), 0);
	T_EQ_U(lib_pages(t.id[T_STACK], 10, 0, below, 4096), 0);
}

/* listmount(LSMT_ROOT) is exactly the set of mountinfo's mounts */
T_CASE(listmount_matches_mountinfo)
{
	struct t_tree t;
	struct t_mitab tab;
	uint64_t ids[4096];
	size_t n;

	setup(&t);
	n = lib_pages(MNTKIT_LSMT_ROOT, 4096, 0, ids, 4096);
	t_mi_read(0, &tab);
	T_EQ_U(n, tab.n);
	for (size_t i = 0; i < n; i++) {
		struct mntkit_statmount *sm = t_sm(ids[i], 0x2);

		T_ASSERTF(t_mi_by_id(&tab, sm->mnt_id_old),
			  "listed mount %u not in mountinfo", sm->mnt_id_old);
		free(sm);
	}
	t_mi_free(&tab);
}

/* a start ID lists its whole subtree (recursive), ascending */
T_CASE(listmount_subtree)
{
	struct t_tree t;
	struct t_mnt *v;
	uint64_t got[4096], want[4096];
	size_t n, m, k = 0;

	setup(&t);
	n = t_all_mounts(&v);
	for (int s = 0; s < 2; s++) {
		uint64_t top = s ? t.id[T_A] : t.scratch;

		k = 0;
		for (size_t i = 0; i < n; i++)
			if (t_below(v, n, v[i].id, top))
				want[k++] = v[i].id;
		t_sort_u64(want, k);
		m = lib_pages(top, 3, 0, got, 4096);
		T_EQ_U(m, k);
		for (size_t i = 0; i < m; i++)
			T_EQ_U(got[i], want[i]);
	}
	/* the tree's own numbers: a has b, b/c, d and d's stacked mount */
	T_EQ_U(k, 4);
	free(v);
}

T_CASE(listmount_cursor_need_not_exist)
{
	struct t_tree t;
	uint64_t all[4096], got[4096], gone;
	struct mntkit_mnt_id_req r;
	size_t n, k = 0;
	ssize_t m;
	char *p;

	setup(&t);
	p = t_path("%s/gone", t.dir);
	gone = t_tmpfs(p, 0, NULL);
	t_tmpfs(t_path("%s/after", t.dir), 0, NULL);
	t_umount(p);
	n = lib_pages(MNTKIT_LSMT_ROOT, 4096, 0, all, 4096);
	r = req0(MNTKIT_LSMT_ROOT, gone);
	m = mntkit_listmount(&r, got, 4096, 0);
	T_ASSERTF(m >= 0, "%s", strerror(errno));
	for (size_t i = 0; i < n; i++)
		if (all[i] > gone)
			T_EQ_U(got[k++], all[i]);
	T_EQ_U(m, k);
	T_ASSERT(k >= 1);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
