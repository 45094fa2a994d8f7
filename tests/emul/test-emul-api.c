// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The emulation's entry points against the kernel's: the errno of every
 * bad input, listmount order, cursors and pagination, namespaces by ID and
 * by fd, the cache following changes, path -> ID.
 */
#include "emul-diff.h"

static long emu_sm(const void *req, void *buf, size_t size, unsigned int fl)
{
	errno = 0;
	return mntkit_mountinfo_ops.statmount(req, buf, size, fl);
}

static long emu_lm(const void *req, uint64_t *ids, size_t nr, unsigned int fl)
{
	errno = 0;
	return mntkit_mountinfo_ops.listmount(req, ids, nr, fl);
}

/* both calls give the same result and errno (or both succeed) */
#define SAME_SM(req, buf, size, fl, what)                                      \
	do {                                                                   \
		long n_ = t_sys_statmount(req, buf, size, fl);                 \
		int ne_ = n_ < 0 ? errno : 0;                                  \
		long e_ = emu_sm(req, buf, size, fl);                          \
		int ee_ = e_ < 0 ? errno : 0;                                  \
		if (n_ != e_ || ne_ != ee_)                                    \
			t_fail("statmount %s: native %ld/%s, emulated %ld/%s", \
			       what, n_, strerror(ne_), e_, strerror(ee_));    \
	} while (0)

#define SAME_LM(req, ids, nr, fl, what)                                        \
	do {                                                                   \
		long n_ = t_sys_listmount(req, ids, nr, fl);                   \
		int ne_ = n_ < 0 ? errno : 0;                                  \
		long e_ = emu_lm(req, ids, nr, fl);                            \
		int ee_ = e_ < 0 ? errno : 0;                                  \
		if (n_ != e_ || ne_ != ee_)                                    \
			t_fail("listmount %s: native %ld/%s, emulated %ld/%s", \
			       what, n_, strerror(ne_), e_, strerror(ee_));    \
	} while (0)

/*
 * A private namespace chrooted into a fresh tmpfs with its own /proc: no
 * hidden mounts, so every ID of the emulation is the kernel's and every
 * answer must be identical.
 */
static void jail(void)
{
	char *j;

	t_private_ns();
	j = t_path("%s/jail", t_base);
	t_tmpfs(j, 0, NULL);
	t_mkdir(t_path("%s/proc", j));
	t_mount("proc", t_path("%s/proc", j), "proc", 0, NULL);
	t_mkdir(t_path("%s/base", j));
	if (chroot(j) || chdir("/"))
		t_fail("chroot: %s", strerror(errno));
	snprintf(t_base, sizeof(t_base), "/base");
}

T_CASE(statmount_errno_parity)
{
	char big[8192], buf[4096];
	struct t_req *r = (struct t_req *)big;
	uint64_t root;

	ed_require();
	/* a mount mountinfo shows: the emulation knows no other (not the
	 * mount of / in a chroot into a plain directory) */
	root = t_uid(t_root_in_mountinfo() ? "/" : "/proc");
	memset(big, 0, sizeof(big));
	r->size = 24;
	r->mnt_id = root;
	r->param = 0x7fff;
	SAME_SM(r, buf, sizeof(buf), 0, "valid");
	SAME_SM(r, buf, sizeof(buf), 1, "flags 1");
	SAME_SM(r, buf, sizeof(buf), 0x80000000u, "flags high");
	r->size = 23;
	SAME_SM(r, buf, sizeof(buf), 0, "size 23");
	r->size = 0;
	SAME_SM(r, buf, sizeof(buf), 0, "size 0");
	r->size = 4097;
	SAME_SM(r, buf, sizeof(buf), 0, "size > page");
	r->size = 40;
	SAME_SM(r, buf, sizeof(buf), 0, "size 40 zero tail");
	big[36] = 1;
	SAME_SM(r, buf, sizeof(buf), 0, "size 40 non-zero tail");
	big[36] = 0;
	r->size = 32;
	r->mnt_id = 0;
	SAME_SM(r, buf, sizeof(buf), 0, "mnt_id 0");
	r->mnt_id = 5;
	SAME_SM(r, buf, sizeof(buf), 0, "mnt_id old-style");
	r->mnt_id = 1ULL << 31;
	SAME_SM(r, buf, sizeof(buf), 0, "mnt_id 2^31");
	r->mnt_id = (1ULL << 62) + 12345;
	SAME_SM(r, buf, sizeof(buf), 0, "mnt_id unknown");
	r->mnt_id = T_LSMT_ROOT;
	SAME_SM(r, buf, sizeof(buf), 0, "mnt_id LSMT_ROOT");
	r->mnt_id = root;
	r->mnt_ns_id = 1;
	r->mnt_ns_fd = 3;
	SAME_SM(r, buf, sizeof(buf), 0, "ns id and fd");
	r->mnt_ns_fd = 0;
	r->mnt_ns_id = 0xdeadbeefULL;
	SAME_SM(r, buf, sizeof(buf), 0, "unknown ns id");
	r->mnt_ns_id = 0;
	r->mnt_ns_fd = 987;
	SAME_SM(r, buf, sizeof(buf), 0, "bad ns fd");
	r->mnt_ns_fd = 0; /* stdin is not an nsfs file */
	{
		int fd = open("/", O_RDONLY);

		r->mnt_ns_fd = (uint32_t)fd;
		SAME_SM(r, buf, sizeof(buf), 0, "ns fd not a namespace");
		close(fd);
		fd = open("/proc/self/ns/net", O_RDONLY);
		r->mnt_ns_fd = (uint32_t)fd;
		SAME_SM(r, buf, sizeof(buf), 0, "ns fd of a net namespace");
		close(fd);
		r->mnt_ns_fd = 0;
	}
	/* sizes */
	r->param = MNTKIT_STATMOUNT_FS_TYPE;
	SAME_SM(r, buf, 512, 0, "strings into 512");
	SAME_SM(r, buf, 513, 0, "strings into 513");
	SAME_SM(r, buf, 520, 0, "strings into 520");
	r->mnt_id = (1ULL << 62) + 1;
	SAME_SM(r, buf, 512, 0, "EOVERFLOW before ENOENT");
	r->mnt_id = root;
	r->param = MNTKIT_STATMOUNT_MNT_BASIC;
	SAME_SM(r, buf, 100, 0, "fixed into 100");
	SAME_SM(r, buf, 0, 0, "fixed into 0");
	SAME_SM(r, NULL, 0, 0, "NULL buffer, size 0");
	SAME_SM(r, NULL, 600, 0, "NULL buffer");
	SAME_SM(NULL, buf, sizeof(buf), 0, "NULL request");
}

T_CASE(statmount_short_buffers)
{
	uint64_t root, masks[] = { 2, 0x6fff, 0x100, 0x20, 0x2000, 0x1000 };
	char n[1024], e[1024];

	ed_require();
	jail();
	root = t_uid("/proc");
	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		for (size_t size = 0; size <= 600; size += (size < 520 ? 1 : 40)) {
			/* /proc has no options: 6.11-6.12 (no FS_SUBTYPE
			 * yet) answer an empty MNT_OPTS, later kernels and
			 * the emulation none; not asked there */
			uint64_t want = masks[m] &
					(t_kernel_groups() & 0x100 ? ~0ULL
								   : ~0x80ULL);
			struct t_req r = { .size = 24, .mnt_id = root,
					   .param = want };
			/* the emulation asked for the groups the kernel
			 * has (it ignores the others) */
			struct t_req re = { .size = 24, .mnt_id = root,
					    .param = t_kmask(want) };
			long a, b;
			int ea, eb;

			memset(n, 0x5a, sizeof(n));
			memset(e, 0x5a, sizeof(e));
			a = t_sys_statmount(&r, n, size, 0);
			ea = errno;
			b = emu_sm(&re, e, size, 0);
			eb = errno;
			if (a != b || (a && ea != eb))
				t_fail("mask %#" PRIx64 " size %zu: native %ld/%d emulated %ld/%d",
				       masks[m], size, a, ea, b, eb);
			/* the kernel writes str[0] past a short buffer;
			 * the emulation never writes past bufsize */
			if (!a && size <= 512 && n[512] == 0 && e[512] == 0x5a)
				n[512] = 0x5a;
			/* supported_mask is the emulation's own */
			if (!a && size > 144 && (re.param & 0x1000))
				memcpy(n + 144, e + 144, size < 152 ? size - 144 : 8);
			if (!a && memcmp(n, e, size > 512 ? size : 513))
				t_fail("mask %#" PRIx64 " size %zu: replies differ",
				       masks[m], size);
		}
	}
}

T_CASE(listmount_errno_parity)
{
	uint64_t ids[8], root;
	struct t_req r = { .size = 24, .mnt_id = T_LSMT_ROOT };

	ed_require();
	jail();
	root = t_uid("/");
	SAME_LM(&r, ids, 8, 0, "valid");
	SAME_LM(&r, ids, 8, 2, "flags 2");
	SAME_LM(&r, ids, 8, 1, "reverse");
	SAME_LM(&r, ids, 1000001, 0, "nr > 1000000");
	SAME_LM(&r, ids, 0, 0, "nr 0");
	r.mnt_id = 0;
	SAME_LM(&r, ids, 8, 0, "start 0");
	r.mnt_id = 7;
	SAME_LM(&r, ids, 8, 0, "start old-style");
	r.mnt_id = (1ULL << 62) + 5;
	SAME_LM(&r, ids, 8, 0, "start unknown");
	r.mnt_id = root;
	SAME_LM(&r, ids, 8, 0, "start root");
	r.param = 3;
	SAME_LM(&r, ids, 8, 0, "cursor old-style");
	r.param = ~0ULL;
	SAME_LM(&r, ids, 8, 0, "cursor max");
	r.param = 0;
	r.size = 10;
	SAME_LM(&r, ids, 8, 0, "size 10");
	r.size = 5000;
	SAME_LM(&r, ids, 8, 0, "size 5000");
	r.size = 24;
	SAME_LM(&r, NULL, 8, 0, "NULL ids");
	SAME_LM(NULL, ids, 8, 0, "NULL request");
}

/* the kernel's listing of @start with @flags, page size @page, from @cursor */
static size_t page_all(int emu, uint64_t start, uint64_t cursor, size_t page,
		       unsigned int flags, uint64_t *out, size_t cap)
{
	struct t_req r = { .size = 24, .mnt_id = start, .param = cursor };
	size_t n = 0;

	for (;;) {
		long got = emu ? emu_lm(&r, out + n, page, flags) :
				 t_sys_listmount(&r, out + n, page, flags);

		if (got < 0)
			t_fail("%s listmount: %s", emu ? "emulated" : "native",
			       strerror(errno));
		n += (size_t)got;
		if (!got || n + page > cap)
			return n;
		r.param = out[n - 1];
	}
}

T_CASE(listmount_order_cursor_pages)
{
	uint64_t *all, a[4096], b[4096];
	size_t n;

	ed_require();
	jail();
	/* a tree: nested mounts, siblings, no stacking (IDs equal) */
	t_tmpfs(t_path("%s/t", t_base), 0, NULL);
	for (int i = 0; i < 6; i++) {
		t_tmpfs(t_path("%s/t/%d", t_base, i), 0, NULL);
		for (int j = 0; j < 4; j++)
			t_tmpfs(t_path("%s/t/%d/%d", t_base, i, j), 0, NULL);
	}
	n = t_lm(T_LSMT_ROOT, 0, &all);
	{
		uint64_t starts[64];
		size_t ns = 0;

		starts[ns++] = T_LSMT_ROOT;
		starts[ns++] = t_uid(t_base);
		starts[ns++] = t_uid(t_path("%s/t", t_base));
		starts[ns++] = t_uid(t_path("%s/t/3", t_base));
		starts[ns++] = t_uid(t_path("%s/t/3/2", t_base));
		for (size_t s = 0; s < ns; s++)
			for (unsigned int fl = 0; fl < 2; fl++)
				for (size_t page = 1; page <= 7; page += 3) {
					uint64_t cursors[] = { 0, all[0], all[n / 2],
							       all[n / 2] + 1,
							       all[n - 1], ~0ULL };

					for (size_t c = 0; c < 6; c++) {
						size_t x = page_all(0, starts[s], cursors[c],
								    page, fl, a, 4096);
						size_t y = page_all(1, starts[s], cursors[c],
								    page, fl, b, 4096);

						if (x != y || memcmp(a, b, x * sizeof(*a)))
							t_fail("start %#" PRIx64 " flags %u page %zu cursor %zu: %zu vs %zu IDs, or order differs",
							       starts[s], fl, page, c, x, y);
					}
				}
	}
	free(all);
}

T_CASE(cache_follows_changes)
{
	char *p;
	uint64_t id, *ids;
	size_t n0, n1;
	struct mntkit_statmount *sm;

	t_private_ns();
	p = t_path("%s/c", t_base);
	n0 = ed_emul_lm(T_LSMT_ROOT, 0, 0, &ids);
	free(ids);
	id = t_tmpfs(p, 0, "size=1m");
	n1 = ed_emul_lm(T_LSMT_ROOT, 0, 0, &ids);
	free(ids);
	if (n1 != n0 + 1)
		t_fail("a new mount was not seen (%zu -> %zu)", n0, n1);
	t_mount(NULL, p, NULL, MS_REMOUNT, "size=2m");
	sm = ed_emul_sm_alloc(id, MNTKIT_STATMOUNT_MNT_OPTS, 0);
	if (!sm || !strstr(t_sm_s(sm, sm->mnt_opts), "size=2048k"))
		t_fail("a remount was not seen: %s",
		       sm ? t_sm_s(sm, sm->mnt_opts) : strerror(errno));
	free(sm);
	t_mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	sm = ed_emul_sm_alloc(id, MNTKIT_STATMOUNT_MNT_BASIC, 0);
	if (!sm || !(sm->mnt_attr & MNTKIT_MOUNT_ATTR_RDONLY))
		t_fail("a bind remount was not seen");
	free(sm);
	t_umount(p);
	if (ed_emul_sm(id, 2, 0, t_xmalloc(512), 512) != -1 || errno != ENOENT)
		t_fail("an unmounted mount still answers");
	/* a fork's cache is its own */
	t_tmpfs(p, 0, NULL);
	{
		pid_t pid = fork();

		if (pid == 0) {
			uint64_t *v;
			size_t k = ed_emul_lm(T_LSMT_ROOT, 0, 0, &v);

			_exit(k == n1 ? 0 : 1);
		}
		t_wait_child(pid, "forked lister");
	}
}

T_CASE(namespace_by_fd_and_id)
{
	int go[2], ready[2], fd;
	char c;
	pid_t pid;
	uint64_t ns, *a = NULL, *b = NULL;
	ssize_t na;
	size_t nb;

	ed_require();
	t_private_ns();
	if (pipe(go) || pipe(ready))
		t_fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNS))
			_exit(1);
		if (mount("x", t_base, "tmpfs", 0, NULL))
			_exit(1);
		t_ns_root_take(); /* as in a container */
		if (write(ready[1], "x", 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		t_fail("child not ready");
	ns = t_ns_id(pid);
	fd = open(t_path("/proc/%d/ns/mnt", (int)pid), O_RDONLY);
	na = t_lm_raw_ns(T_LSMT_ROOT, 0, 0, (uint32_t)fd, &a);
	if (na <= 0 || !a)
		t_fail("native listmount by ns fd: %s", strerror(errno));
	{
		struct t_req r = { .size = 24, .mnt_ns_fd = (uint32_t)fd,
				   .mnt_id = T_LSMT_ROOT };
		uint64_t v[4096];
		long got = emu_lm(&r, v, 4096, 0);

		if (got < 0)
			t_fail("emulated listmount by ns fd: %s", strerror(errno));
		nb = (size_t)got;
		b = v;
		if ((size_t)na != nb)
			t_fail("by fd: native %zd mounts, emulated %zu", na, nb);
		/* hidden mounts (copies of the host's stacked ones) are
		 * named by old IDs; every unique one must be the kernel's */
		for (size_t k = 0; k < nb; k++)
			if (v[k] > (1ULL << 31) && !t_contains_u64(a, nb, v[k]))
				t_fail("by fd: emulated ID %#" PRIx64 " unknown",
				       v[k]);
	}
	ed_compare_ns(ns, 0, "by id");
	{
		/* mnt_ns_id of the reply */
		struct mntkit_statmount *sm = ed_emul_sm_alloc(a[0], 0x40, ns);

		if (!sm || !(sm->mask & 0x40) || sm->mnt_ns_id != ns)
			t_fail("mnt_ns_id of a foreign mount");
		free(sm);
	}
	(void)b;
	if (write(go[1], "x", 1) != 1)
		t_fail("write");
	t_wait_child(pid, "ns child");
	/*
	 * No process is left in it, but @fd keeps the namespace: the kernel
	 * still answers by its ID (checked on 6.18), and so does the
	 * emulation, which enters it: the same comparison as above, mount
	 * for mount (before: ENOENT)
	 */
	ed_compare_ns(ns, 0, "by id, no process left, kept by an fd");
	close(fd);
	free(a);
}

/*
 * A low cursor (<= 2^31, which no unique ID is) with hidden mounts in the
 * table: the kernel refuses it (EINVAL), and so must the emulation, unless
 * it is the name the emulation gave a hidden mount (not asked here).
 */
T_CASE(listmount_low_cursor_hidden)
{
	const uint64_t cursors[] = { 1, 2, 3, 5, 17, 1ULL << 31 };
	struct t_req r = { .size = 24, .mnt_id = T_LSMT_ROOT };
	struct t_mitab mi;
	uint64_t ids[8];
	char *p;

	ed_require();
	t_private_ns();
	p = t_path("%s/p", t_base);
	t_tmpfs(p, 0, NULL);
	t_mount("over", p, "tmpfs", 0, NULL); /* the first one is hidden */
	t_mi_read(0, &mi);
	for (size_t k = 0; k < MNTKIT_ARRAY_SIZE(cursors); k++) {
		char what[64];

		if (t_mi_by_id(&mi, cursors[k]))
			continue; /* an old ID of this table: a name here */
		r.param = cursors[k];
		snprintf(what, sizeof(what), "cursor %" PRIu64, cursors[k]);
		SAME_LM(&r, ids, 8, 0, what);
		SAME_LM(&r, ids, 8, 1, what);
	}
	t_mi_free(&mi);
}

/* mntkit_path_id() takes the at_flags statx(2) takes, on both backends */
T_CASE(path_id_flags_errno)
{
	const int flags[] = { 0, AT_SYMLINK_NOFOLLOW, AT_NO_AUTOMOUNT,
			      AT_STATX_DONT_SYNC, AT_STATX_FORCE_SYNC,
			      AT_STATX_SYNC_TYPE, 0x1, 0x200, 0x400, 0x8000,
			      0x10000, 0x40000000 };
	const enum mntkit_backend be[] = { MNTKIT_BACKEND_NATIVE,
					   MNTKIT_BACKEND_MOUNTINFO };

	t_require_unique_ids();
	for (size_t k = 0; k < MNTKIT_ARRAY_SIZE(flags); k++) {
		struct statx stx;
		uint64_t id;
		int kerr, ret, e;

		errno = 0;
		kerr = statx(AT_FDCWD, "/", flags[k], STATX_BASIC_STATS, &stx) ?
			       errno :
			       0;
		for (size_t b = 0; b < MNTKIT_ARRAY_SIZE(be); b++) {
			T_OK(mntkit_set_backend(be[b]));
			errno = 0;
			ret = mntkit_path_id(AT_FDCWD, "/", flags[k], &id);
			e = ret < 0 ? errno : 0;
			if (e != kerr || (ret < 0 && ret != -e))
				t_fail("flags %#x backend %d: statx %s, "
				       "mntkit_path_id %d/%s",
				       flags[k], (int)be[b], strerror(kerr),
				       ret, strerror(e));
			errno = 0;
			ret = mntkit_mountinfo_ops.path_id(AT_FDCWD, "/",
							   flags[k], &id);
			if (be[b] == MNTKIT_BACKEND_MOUNTINFO &&
			    (ret < 0 ? -ret : 0) != kerr)
				t_fail("flags %#x: statx %s, emulation %d",
				       flags[k], strerror(kerr), ret);
		}
	}
}

/*
 * mntkit_list_order() on the emulation, with hidden mounts: every ID of
 * the listing comes in mountinfo's order (the kernel's listing order on
 * 6.8+, findmnt's), though listmount gives the hidden ones (old IDs) first;
 * on the native backend it sorts by ID. An ID gone from the table goes
 * where a listing would go on after it.
 */
T_CASE(list_order_mountinfo)
{
	uint64_t *ids, *copy;
	struct t_mitab mi;
	size_t n;
	char *p;

	ed_require();
	t_private_ns();
	p = t_path("%s/p", t_base);
	t_tmpfs(p, 0, NULL);
	t_mount("over", p, "tmpfs", 0, NULL);
	t_tmpfs(t_path("%s/q", t_base), 0, NULL);
	t_mount("over2", t_path("%s/q", t_base), "tmpfs", 0, NULL);
	n = ed_emul_lm(T_LSMT_ROOT, 0, 0, &ids);
	t_mi_read(0, &mi);
	T_EQ_U(n, mi.n);
	T_ASSERT(ids[0] <= MNTKIT_MNT_UNIQUE_ID_OFFSET); /* hidden first */
	T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
	T_OK(mntkit_list_order(ids, n, NULL));
	for (size_t k = 0; k < n; k++) {
		struct mntkit_statmount sm;

		T_OK(ed_emul_sm(ids[k], MNTKIT_STATMOUNT_MNT_BASIC, 0, &sm,
				sizeof(sm)));
		T_EQ_U(sm.mnt_id_old, mi.v[k].id);
	}
	/* an ID gone (above every unique one): right after the last unique
	 * ID of the order, before the hidden mounts that follow it */
	copy = t_xmalloc((n + 1) * sizeof(*copy));
	{
		uint64_t gone = 0;
		size_t at = 0;

		for (size_t k = 0; k < n; k++) {
			if (ids[k] > gone)
				gone = ids[k];
			if (ids[k] > MNTKIT_MNT_UNIQUE_ID_OFFSET)
				at = k + 1;
		}
		gone++;
		copy[0] = gone;
		memcpy(copy + 1, ids, n * sizeof(*ids));
		T_OK(mntkit_list_order(copy, n + 1, NULL));
		for (size_t k = 0; k <= n; k++)
			T_EQ_U(copy[k], k < at ? ids[k] :
					k == at ? gone : ids[k - 1]);
	}
	T_NEG(mntkit_list_order(NULL, 1, NULL), EINVAL);
	T_OK(mntkit_list_order(NULL, 0, NULL));
	/* native: by ID */
	T_OK(mntkit_set_backend(MNTKIT_BACKEND_NATIVE));
	T_OK(mntkit_list_order(ids, n, NULL));
	for (size_t k = 1; k < n; k++)
		T_ASSERT(ids[k - 1] < ids[k]);
	free(copy);
	free(ids);
	t_mi_free(&mi);
}

T_CASE(path_id)
{
	uint64_t id, nat;
	char *p;

	t_private_ns();
	p = t_path("%s/p", t_base);
	nat = t_tmpfs(p, 0, NULL);
	if (mntkit_mountinfo_ops.path_id(AT_FDCWD, p, 0, &id))
		t_fail("path_id: %s", strerror(errno));
	T_EQ_U(id, nat);
	/* stacked: the top one is reachable, and named by its unique ID
	 * (by its old one on a kernel without unique IDs, as statx) */
	t_mount("top", p, "tmpfs", 0, NULL);
	if (mntkit_mountinfo_ops.path_id(AT_FDCWD, p, 0, &id))
		t_fail("path_id: %s", strerror(errno));
	T_EQ_U(id, t_uid(p));
}

/*
 * The old mount ID from an fd's fdinfo (how the emulation looks paths up
 * on kernels before 5.8, whose statx has no STATX_MNT_ID) equals statx's
 * STATX_MNT_ID, for mounts of several kinds, O_PATH and ordinary fds.
 */
T_CASE(fdinfo_mnt_id)
{
	const char *paths[] = { "/", "/proc", "/proc/self/status", "/dev",
				NULL, NULL };
	uint64_t id;
	int bad[2];

	t_private_ns();
	paths[4] = t_path("%s/f", t_base);
	t_tmpfs(paths[4], 0, NULL);
	paths[5] = t_path("%s/f/file", t_base);
	{
		int fd = open(paths[5], O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

		T_OK(fd);
		close(fd);
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		for (int kind = 0; kind < 2; kind++) {
			int fd = open(paths[i], (kind ? O_RDONLY : O_PATH) |
							O_CLOEXEC);

			T_ASSERTF(fd >= 0, "open %s: %s", paths[i],
				  strerror(errno));
			T_EQ_I(mntkit__fdinfo_mnt_id(fd, &id), 0);
			T_EQ_U(id, t_old_id(paths[i]));
			close(fd);
		}
	}
	/* a closed fd, and a pipe (its mount is the kernel's pipefs) */
	T_EQ_I(mntkit__fdinfo_mnt_id(999, &id), -ENOENT);
	T_OK(pipe(bad));
	T_EQ_I(mntkit__fdinfo_mnt_id(bad[0], &id), 0);
	T_ASSERT(id > 0);
	close(bad[0]);
	close(bad[1]);
}

T_CASE(supported_mask_feature)
{
	struct mntkit_features f = { .size = sizeof(f) };

	if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO))
		t_fail("set backend: %s", strerror(errno));
	if (mntkit_get_features(&f))
		t_fail("features: %s", strerror(errno));
	T_EQ_U(f.backend, MNTKIT_BACKEND_MOUNTINFO);
	T_EQ_U(f.supported_mask, mntkit__emul_supported_mask());
	T_EQ_U(f.supported_mask & 0x6000, 0);
	/* the conveniences over the emulation */
	{
		uint64_t *ids;
		ssize_t n = mntkit_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE, NULL,
					&ids);
		struct mntkit_statmount *sm;

		if (n <= 0)
			t_fail("mntkit_list over the emulation: %zd", n);
		if (mntkit_stat(ids[0], 0x7fff, NULL, &sm))
			t_fail("mntkit_stat over the emulation: %s",
			       strerror(errno));
		free(sm);
		free(ids);
	}
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
