// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hybrid replies: on a kernel whose statmount lacks some groups (6.8 -
 * 6.14), the native backend completes its replies from the mountinfo
 * emulation. This kernel has every group, so each check runs in a child
 * that sets the testing knob MNTKIT_TEST_KERNEL_MASK (lib/backend.c)
 * before its first library call: the library then takes the kernel for
 * one that has only those groups. The hybrid reply of every mount must be
 * byte for byte the reply of the kernel with every group (the full native
 * one): fixed part, string packing, size, mask; and fail with EOVERFLOW
 * exactly where the kernel does.
 *
 * Documented differences, applied to the kernel's reply before comparing:
 * supported_mask is the library's (kernel groups + emulated ones), and
 * idmappings (not in mountinfo) are absent when the pretended kernel lacks
 * them. A mount that is not in mountinfo (outside the caller's root) gets
 * only the kernel's groups.
 */
#include "emul-diff.h"
#include "tree.h"

#include <sys/prctl.h>

#define HY_STRING_REQ 0x6fb8ULL

/* the kernels to pretend: 6.8, 6.10-like, 6.12-like, all but idmaps */
static const uint64_t hy_kmasks[] = { 0x3f, 0xff, 0xfff, 0x1fff };

struct hy_ctx {
	uint64_t kmask;     /* what the library takes the kernel for */
	uint64_t hybrid;    /* the groups it fills from the emulation */
	uint64_t supported; /* supported_mask of its replies */
	uint64_t ns_id;     /* 0: ours */
	uint64_t real;      /* the running kernel's own groups */
	size_t replies, cut, outside;
};

/* mntkit_statmount() through the library (native backend, hybrid) */
static int hy_sm_into(const struct hy_ctx *c, uint64_t id, uint64_t mask,
		      void *buf, size_t size)
{
	struct mntkit_mnt_id_req req = {
		.size = c->ns_id ? 32 : 24,
		.mnt_id = id,
		.param = mask,
		.mnt_ns_id = c->ns_id,
	};

	return mntkit_statmount(&req, buf, size, 0);
}

static void *hy_sm(const struct hy_ctx *c, uint64_t id, uint64_t mask)
{
	size_t size = 4096;

	for (;;) {
		char *buf = t_xcalloc(1, size);

		if (hy_sm_into(c, id, mask, buf, size) == 0)
			return buf;
		free(buf);
		if (errno != EOVERFLOW)
			return NULL;
		size *= 2;
		if (size > (64u << 20))
			t_fail("hybrid reply does not fit 64M");
	}
}

static void hy_diff(const char *what, uint64_t id, uint64_t mask,
		    const struct mntkit_statmount *n,
		    const struct mntkit_statmount *h)
{
	char a[512], b[512];

	ed_show(a, sizeof(a), (const char *)n + 512,
		n->size > 512 ? n->size - 512 : 0);
	ed_show(b, sizeof(b), (const char *)h + 512,
		h->size > 512 ? h->size - 512 : 0);
	if (n->size != h->size || n->mask != h->mask)
		t_fail("%s: mount %#" PRIx64 " mask %#" PRIx64
		       ": kernel size %u mask %#" PRIx64 " [%s], hybrid size %u "
		       "mask %#" PRIx64 " [%s]",
		       what, id, mask, n->size, n->mask, a, h->size, h->mask, b);
	for (size_t i = 0; i < n->size; i++)
		if (((const char *)n)[i] != ((const char *)h)[i])
			t_fail("%s: mount %#" PRIx64 " mask %#" PRIx64
			       ": byte %zu (%s) differs: kernel %02x hybrid "
			       "%02x; strings kernel [%s] hybrid [%s]",
			       what, id, mask, i, ed_field_at(i),
			       ((const unsigned char *)n)[i],
			       ((const unsigned char *)h)[i], a, b);
}

/* cut the idmappings off a kernel reply (they are its last strings) */
static void hy_cut_idmaps(struct mntkit_statmount *n)
{
	uint32_t cut = n->size - 512;

	if ((n->mask & MNTKIT_STATMOUNT_MNT_UIDMAP) && n->mnt_uidmap < cut)
		cut = n->mnt_uidmap;
	if ((n->mask & MNTKIT_STATMOUNT_MNT_GIDMAP) && n->mnt_gidmap < cut)
		cut = n->mnt_gidmap;
	n->size = 512 + cut;
	n->mask &= ~(MNTKIT_STATMOUNT_MNT_UIDMAP | MNTKIT_STATMOUNT_MNT_GIDMAP);
	n->mnt_uidmap = n->mnt_gidmap = 0;
	n->mnt_uidmap_num = n->mnt_gidmap_num = 0;
}

/* the short-buffer rules: the kernel's outcome for @size, and ours */
static void hy_compare_size(struct hy_ctx *c, uint64_t id, uint64_t mask,
			    size_t size, const char *what)
{
	char *kb = t_xcalloc(1, size + 64), *hb = t_xcalloc(1, size + 64);
	struct t_req req = {
		.size = c->ns_id ? 32 : 24,
		.mnt_id = id,
		.param = mask,
		.mnt_ns_id = c->ns_id,
	};
	long kr;
	int ke, hr, he;

	memset(kb, 0x5a, size + 64);
	memset(hb, 0x5a, size + 64);
	errno = 0;
	kr = t_sys_statmount(&req, kb, size, 0);
	ke = errno;
	errno = 0;
	hr = hy_sm_into(c, id, mask, hb, size);
	he = errno;
	if ((kr < 0) != (hr < 0) || (kr < 0 && ke != he))
		t_fail("%s: mount %#" PRIx64 " mask %#" PRIx64 " bufsize %zu: "
		       "kernel %ld (%s), hybrid %d (%s)",
		       what, id, mask, size, kr, kr < 0 ? strerror(ke) : "ok",
		       hr, hr < 0 ? strerror(he) : "ok");
	/* what a success wrote (supported_mask is the library's); the kernel
	 * may write the string area's leading NUL past a buffer of <= 512
	 * bytes, the library does not */
	if (kr == 0 && size >= 152 &&
	    (((struct mntkit_statmount *)kb)->mask &
	     MNTKIT_STATMOUNT_SUPPORTED_MASK))
		((struct mntkit_statmount *)kb)->supported_mask = c->supported;
	if (kr == 0 && memcmp(kb, hb, size))
		t_fail("%s: mount %#" PRIx64 " mask %#" PRIx64
		       " bufsize %zu: the replies differ",
		       what, id, mask, size);
	free(kb);
	free(hb);
}

static void hy_compare_one(struct hy_ctx *c, uint64_t id, uint64_t mask,
			   const char *what)
{
	struct mntkit_statmount *n, *h;
	int ke, he, cut = 0;

	/* the reference is the running kernel: only its groups compare (on
	 * a kernel without some, the hybrid's answer for them has no
	 * reference here) */
	mask &= c->real | ~ED_ALL;
	errno = 0;
	n = t_sm_raw_ns(id, mask, c->ns_id, 0);
	ke = errno;
	/* 6.12's empty strings cut: its sizes are no longer the kernel's */
	cut = n && t_sm_cut_bytes;
	errno = 0;
	h = hy_sm(c, id, mask);
	he = errno;
	if (!n || !h) {
		if (n || h || ke != he)
			t_fail("%s: mount %#" PRIx64 " mask %#" PRIx64
			       ": kernel %s, hybrid %s",
			       what, id, mask, n ? "ok" : strerror(ke),
			       h ? "ok" : strerror(he));
		return;
	}
	c->replies++;
	if (n->mask & MNTKIT_STATMOUNT_SUPPORTED_MASK)
		n->supported_mask = c->supported;
	if ((n->mask & (MNTKIT_STATMOUNT_MNT_UIDMAP |
			MNTKIT_STATMOUNT_MNT_GIDMAP)) &&
	    !((c->kmask | c->hybrid) & MNTKIT_STATMOUNT_MNT_UIDMAP)) {
		hy_cut_idmaps(n);
		c->cut++;
		cut = 1;
	}
	hy_diff(what, id, mask, n, h);

	/* EOVERFLOW: the exact size fits, one byte less does not */
	if ((mask & HY_STRING_REQ) && h->size > 512 && !cut) {
		hy_compare_size(c, id, mask, h->size, what);
		hy_compare_size(c, id, mask, h->size - 1, what);
		hy_compare_size(c, id, mask, 512, what);
	}
	if (!(mask & HY_STRING_REQ) && !cut) {
		hy_compare_size(c, id, mask, 100, what);
		hy_compare_size(c, id, mask, 512, what);
	}
	free(n);
	free(h);
}

/* every mount the kernel lists in the namespace of @c */
static size_t hy_mounts(const struct hy_ctx *c, uint64_t **ids)
{
	ssize_t n = t_lm_raw_ns(T_LSMT_ROOT, 0, c->ns_id, 0, ids);

	if (n < 0)
		t_fail("raw listmount: %s", strerror(errno));
	return (size_t)n;
}

/*
 * In this (child) process, before any other library call: pretend the
 * kernel has @kmask and check what the library says of itself.
 */
static void hy_setup(struct hy_ctx *c, uint64_t kmask, uint64_t ns_id)
{
	struct mntkit_features f = { .size = sizeof(f) };
	char v[32];

	memset(c, 0, sizeof(*c));
	snprintf(v, sizeof(v), "%#" PRIx64, kmask);
	if (setenv("MNTKIT_TEST_KERNEL_MASK", v, 1))
		t_fail("setenv: %s", strerror(errno));
	if (mntkit_set_backend(MNTKIT_BACKEND_NATIVE))
		t_fail("native backend: %s", strerror(errno));
	T_OK(mntkit_get_features(&f));
	c->real = t_kernel_groups();
	/* the library takes the pretended groups the kernel really has */
	kmask &= c->real;
	c->kmask = kmask;
	c->hybrid = mntkit__emul_supported_mask() & ED_ALL & ~kmask;
	c->supported = kmask | c->hybrid;
	c->ns_id = ns_id;
	T_EQ_U(f.kernel_mask, kmask);
	T_EQ_U(f.supported_mask, c->supported);
	T_EQ_U(mntkit__hybrid_mask(), c->hybrid);
	/* what the caller sees: the flag and the groups from the emulation */
	T_EQ_U(!!(f.flags & MNTKIT_FEAT_HYBRID), !!c->hybrid);
	T_EQ_U(f.emul_mask, c->hybrid);
}

/* every mount, with every group alone, all, none and random mixes */
static void hy_compare_all(struct hy_ctx *c, int all_masks, const char *what)
{
	uint64_t *ids, seed = 0x9e3779b97f4a7c15ULL;
	size_t n = hy_mounts(c, &ids);

	for (size_t i = 0; i < n; i++) {
		hy_compare_one(c, ids[i], ED_ALL, what);
		if (!all_masks)
			continue;
		for (uint64_t bit = 1; bit <= ED_ALL; bit <<= 1)
			hy_compare_one(c, ids[i], bit, what);
		hy_compare_one(c, ids[i], 0, what);
		hy_compare_one(c, ids[i], 0xffffffffffff0000ULL | 0x2a0, what);
		for (int k = 0; k < 8; k++)
			hy_compare_one(c, ids[i], t_rand(&seed) & ED_ALL, what);
	}
	free(ids);
}

/* fork a child per pretended kernel; each compares every mount */
static void hy_check(uint64_t ns_id, int all_masks, const char *what)
{
	for (size_t k = 0; k < MNTKIT_ARRAY_SIZE(hy_kmasks); k++) {
		pid_t pid = fork();

		if (pid < 0)
			t_fail("fork: %s", strerror(errno));
		if (pid == 0) {
			struct hy_ctx c;
			char w[128];

			hy_setup(&c, hy_kmasks[k], ns_id);
			snprintf(w, sizeof(w), "%s, kernel %#" PRIx64, what,
				 hy_kmasks[k]);
			hy_compare_all(&c, all_masks, w);
			t_log("%s: %zu replies, %zu with idmaps cut\n", w,
			      c.replies, c.cut);
			_exit(0);
		}
		t_wait_child(pid, what);
	}
}

static char *setup(void)
{
	ed_require();
	t_private_ns();
	return t_tmpdir();
}

/* ---- the situations ---- */

T_CASE(features_and_knobs)
{
	pid_t pid;

	ed_require();
	/* without the knob: this kernel has every group, no hybrid */
	pid = fork();
	if (pid == 0) {
		struct mntkit_features f = { .size = sizeof(f) };
		uint64_t real = t_kernel_groups(), hy;

		/* the kernel's own groups; the hybrid where it lacks some */
		hy = (real & ED_ALL) == ED_ALL ?
			     0 : mntkit__emul_supported_mask() & ED_ALL & ~real;
		unsetenv("MNTKIT_TEST_KERNEL_MASK");
		T_OK(mntkit_get_features(&f));
		T_EQ_U(f.kernel_mask, real);
		T_EQ_U(mntkit__hybrid_mask(), hy);
		T_EQ_U(!!(f.flags & MNTKIT_FEAT_HYBRID), !!hy);
		T_EQ_U(f.emul_mask, hy);
		_exit(0);
	}
	t_wait_child(pid, "no knob");
	/* MNTKIT_HYBRID=0: the kernel's groups only */
	pid = fork();
	if (pid == 0) {
		struct mntkit_features f = { .size = sizeof(f) };
		struct mntkit_statmount *sm;
		struct hy_ctx c = { .kmask = 0x3f & t_kernel_groups() };

		setenv("MNTKIT_TEST_KERNEL_MASK", "0x3f", 1);
		setenv("MNTKIT_HYBRID", "0", 1);
		T_OK(mntkit_get_features(&f));
		T_EQ_U(f.kernel_mask, c.kmask);
		T_EQ_U(mntkit__hybrid_mask(), 0);
		T_EQ_U(f.flags & MNTKIT_FEAT_HYBRID, 0);
		T_EQ_U(f.emul_mask, 0);
		if (f.backend == MNTKIT_BACKEND_NATIVE)
			T_EQ_U(f.supported_mask, c.kmask);
		T_ASSERT(mntkit_set_backend(MNTKIT_BACKEND_NATIVE) == 0);
		sm = hy_sm(&c, t_uid("/"), 0x3f);
		T_ASSERT(sm);
		T_EQ_U(sm->mask & ~0x3fULL, 0);
		free(sm);
		_exit(0);
	}
	t_wait_child(pid, "MNTKIT_HYBRID=0");
}

/* the host's own table, read only */
T_CASE(host_table)
{
	ed_require();
	hy_check(0, 1, "host");
}

T_CASE(tree)
{
	struct t_tree t;

	setup();
	t_tree_build(&t);
	hy_check(0, 1, "tree");
}

T_CASE(options_flags_escapes)
{
	static const char *const names[] = {
		"sp ace", "tab\there", "new\nline", "back\\slash",
		"oct\\040al",
	};
	char *d = setup();

	t_tmpfs(t_path("%s/o", d), 0, "size=1m,mode=1777,uid=1000,gid=100");
	t_tmpfs(t_path("%s/ro", d), MS_RDONLY | MS_SYNCHRONOUS | MS_DIRSYNC |
					    MS_LAZYTIME | MS_NOSUID,
		NULL);
	t_tmpfs(t_path("%s/na", d), MS_NOATIME | MS_NODEV | MS_NOEXEC, NULL);
	for (size_t i = 0; i < MNTKIT_ARRAY_SIZE(names); i++) {
		char *p = t_path("%s/%s", d, names[i]);

		t_mkdir(p);
		t_mount(names[i], p, "tmpfs", 0, "nr_inodes=99");
	}
	t_mkdir(t_path("%s/empty", d));
	t_mount("", t_path("%s/empty", d), "tmpfs", 0, NULL);
	t_mkdir(t_path("%s/pr", d));
	t_mount("proc", t_path("%s/pr", d), "proc", MS_NOSUID, "hidepid=2");
	hy_check(0, 1, "options");
}

/* overmounted mounts: the emulation names them by their old ID, but the
 * hybrid finds them through the kernel's old ID and completes them */
T_CASE(hidden_mounts)
{
	char *d = setup();
	char *p = t_path("%s/st", d);

	t_tmpfs(p, 0, "size=1m");
	t_mount("second", p, "tmpfs", 0, "size=2m");
	t_mount("third", p, "tmpfs", MS_NOSUID, "size=3m");
	t_tmpfs(t_path("%s/x", d), 0, NULL);
	t_tmpfs(t_path("%s/x/y", d), 0, "mode=711");
	t_mount("over", t_path("%s/x", d), "tmpfs", 0, NULL);
	hy_check(0, 1, "hidden");
}

T_CASE(propagation_and_slave_ns)
{
	char *d = setup();

	t_tmpfs(t_path("%s/sh", d), 0, NULL);
	t_mount(NULL, t_path("%s/sh", d), NULL, MS_SHARED, NULL);
	t_bind(t_path("%s/sh", d), t_path("%s/peer", d), 0);
	t_bind(t_path("%s/sh", d), t_path("%s/sl", d), 0);
	t_mount(NULL, t_path("%s/sl", d), NULL, MS_SLAVE, NULL);
	if (unshare(CLONE_NEWNS))
		t_fail("unshare: %s", strerror(errno));
	if (t_root_propagation(MS_REC | MS_SLAVE))
		t_fail("make / rslave: %s", strerror(errno));
	hy_check(0, 0, "slave_ns");
}

/*
 * A chroot: mounts outside it are not in mountinfo. Those the kernel still
 * answers for (root may statmount them) get the kernel's groups only.
 */
T_CASE(chroot_and_outside_mounts)
{
	char *d = setup();
	uint64_t out;

	t_tmpfs(t_path("%s/r", d), 0, NULL);
	t_mkdir(t_path("%s/r/in", d));
	t_tmpfs(t_path("%s/r/in/x", d), 0, "size=1m");
	out = t_tmpfs(t_path("%s/r/out", d), 0, "size=2m");
	t_mkdir(t_path("%s/r/in/proc", d));
	t_mount("proc", t_path("%s/r/in/proc", d), "proc", 0, NULL);
	if (chroot(t_path("%s/r/in", d)) || chdir("/"))
		t_fail("chroot: %s", strerror(errno));
	hy_check(0, 1, "chroot");

	for (size_t k = 0; k < MNTKIT_ARRAY_SIZE(hy_kmasks); k++) {
		pid_t pid = fork();

		if (pid == 0) {
			struct mntkit_statmount *n, *h;
			struct hy_ctx c;

			hy_setup(&c, hy_kmasks[k], 0);
			h = hy_sm(&c, out, ED_ALL);
			n = t_sm_raw(out, ED_ALL & c.kmask);
			if (!h || !n)
				t_fail("outside mount: %s", strerror(errno));
			/* only the kernel's groups, as the kernel wrote them
			 * (the string area is opened by the string groups
			 * asked for, even those that emit nothing) */
			T_EQ_U(h->mask & c.hybrid &
				       ~MNTKIT_STATMOUNT_SUPPORTED_MASK,
			       0);
			if (n->size == 512)
				n->size = 513;
			/* supported_mask needs no table */
			n->mask |= MNTKIT_STATMOUNT_SUPPORTED_MASK;
			n->supported_mask = c.supported;
			hy_diff("outside", out, ED_ALL, n, h);
			free(n);
			free(h);
			_exit(0);
		}
		t_wait_child(pid, "outside");
	}
}

T_CASE(foreign_namespace)
{
	int go[2], ready[2];
	char c;
	pid_t pid;

	ed_require();
	t_private_ns();
	if (pipe(go) || pipe(ready))
		t_fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		char *d = t_path("%s/f", t_base);

		if (unshare(CLONE_NEWNS))
			_exit(1);
		t_mkdir(d);
		if (mount("foreign", d, "tmpfs", MS_NODEV, "size=2m,mode=750"))
			_exit(1);
		t_ns_root_take(); /* as in a container */
		if (write(ready[1], "x", 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		t_fail("child did not get ready");
	hy_check(t_ns_id(pid), 1, "foreign");
	if (write(go[1], "x", 1) != 1)
		t_fail("write: %s", strerror(errno));
	t_wait_child(pid, "ns child");
}

T_CASE(idmapped)
{
	char *d = setup();
	int ufd;

	t_tmpfs(t_path("%s/a", d), 0, NULL);
	ufd = t_userns_fd("0 100000 65536");
	t_idmap_mount(t_path("%s/a", d), t_path("%s/i", d), ufd);
	hy_check(0, 0, "idmapped");
}

/*
 * The kernel's refusals come first, as from the kernel. The mount asked is
 * one the process sees in mountinfo (not "/": in a chroot into a directory
 * that is no mount point, its mount is not shown, and its reply has the
 * kernel's groups only, as chroot_and_outside_mounts checks; a small
 * buffer then fits where the kernel's strings would not).
 */
T_CASE(errors_like_the_kernel)
{
	char *d = setup();
	char *p = t_path("%s/gone", d);
	uint64_t gone = t_tmpfs(p, 0, NULL);
	uint64_t seen = t_tmpfs(t_path("%s/seen", d), 0, NULL);
	pid_t pid;

	t_umount(p);
	pid = fork();
	if (pid == 0) {
		struct {
			struct t_req r;
			uint64_t tail[2];
		} big = { .r = { .size = 48, .mnt_id = seen, .param = ED_ALL } };
		struct t_req r = { .size = 24, .mnt_id = seen, .param = ED_ALL };
		char kb[4096], hb[4096];
		struct hy_ctx c;
		long kr, hr;
		int ke, he;

		hy_setup(&c, 0x3f, 0);
		/* the kernel answers only for its groups: ask for those */
		r.param &= c.real;
		big.r.param &= c.real;
#define SAME(req, buf, size, flags)                                            \
	do {                                                                   \
		errno = 0;                                                     \
		kr = t_sys_statmount((req), (buf) ? kb : NULL, (size),         \
				     (flags));                                 \
		ke = errno;                                                    \
		errno = 0;                                                     \
		hr = mntkit_statmount((const void *)(req), (buf) ? (void *)hb  \
							     : NULL,           \
				      (size), (flags));                        \
		he = errno;                                                    \
		if (kr != hr || (kr < 0 && ke != he))                          \
			t_fail("line %d: kernel %ld (%s), hybrid %ld (%s)",     \
			       __LINE__, kr, strerror(ke), hr, strerror(he));  \
	} while (0)
		SAME(&r, 1, sizeof(kb), 1);          /* flags */
		r.mnt_id = 0;
		SAME(&r, 1, sizeof(kb), 0);          /* ID 0 */
		r.mnt_id = 12;
		SAME(&r, 1, sizeof(kb), 0);          /* an old-style ID */
		r.mnt_id = gone;
		SAME(&r, 1, sizeof(kb), 0);          /* vanished: ENOENT */
		SAME(&r, 1, 512, 0);                 /* ... with 512 bytes */
		r.param = 0x2; /* fixed groups only */
		SAME(&r, 1, 512, 0);
		r.param = ED_ALL & c.real;
		r.mnt_id = seen;
		r.size = 20;
		SAME(&r, 1, sizeof(kb), 0);          /* short request */
		SAME(&big.r, 1, sizeof(kb), 0);      /* zero tail: fine */
		big.tail[1] = 1;
		SAME(&big.r, 1, sizeof(kb), 0);      /* non-zero tail */
		r.size = 32;
		r.mnt_ns_id = 1;
		SAME(&r, 1, sizeof(kb), 0);          /* no such namespace */
		r.mnt_ns_id = 0;
		SAME(&r, 0, 0, 0);                   /* no buffer */
		SAME(&r, 1, 512, 0);                 /* strings, 512 bytes */
		if (c.real & MNTKIT_STATMOUNT_SB_SOURCE) {
			r.param = MNTKIT_STATMOUNT_SB_SOURCE;
			SAME(&r, 1, 512, 0);
			SAME(&r, 1, 513, 0);
		}
		_exit(0);
	}
	t_wait_child(pid, "errors");
}

/*
 * Under churn: another process mounts and unmounts in the same namespace
 * (old IDs are reused) while every stable mount is compared, again and
 * again. A reply must never mix two mounts.
 */
T_CASE(churn)
{
	char *d = setup();
	pid_t churner, pid;
	int status;

	for (int i = 0; i < 20; i++)
		t_tmpfs(t_path("%s/s%d", d, i), 0,
			i % 2 ? "size=1m" : "mode=700");
	t_mkdir(t_path("%s/c", d));
	churner = fork();
	if (churner == 0) {
		char *p = t_path("%s/c", d);

		for (;;) {
			if (mount("churn", p, "tmpfs", 0, "size=8k") == 0)
				umount2(p, MNT_DETACH);
		}
	}
	pid = fork();
	if (pid == 0) {
		struct hy_ctx c;
		uint64_t ids[20];

		hy_setup(&c, 0x3f, 0);
		for (int i = 0; i < 20; i++)
			ids[i] = t_uid(t_path("%s/s%d", d, i));
		for (int round = 0; round < 30; round++)
			for (int i = 0; i < 20; i++)
				hy_compare_one(&c, ids[i], ED_ALL, "churn");
		_exit(0);
	}
	t_wait_child(pid, "churn");
	kill(churner, SIGKILL);
	waitpid(churner, &status, 0);
}

T_CASE(two_thousand_mounts)
{
	char *d = setup();

	t_tmpfs(t_path("%s/many", d), 0, NULL);
	for (int i = 0; i < 2000; i++) {
		char *p = t_path("%s/many/%d", d, i);

		t_mkdir(p);
		if (mount(i % 7 ? "m" : "m src", p, "tmpfs",
			  i % 3 ? 0 : MS_NOSUID, i % 5 ? NULL : "size=1m"))
			t_fail("mount %d: %s", i, strerror(errno));
		free(p);
	}
	hy_check(0, 0, "2000");
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
