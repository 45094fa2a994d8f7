/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness.h - a tiny header-only harness for mntkit's C test programs.
 *
 * A test program defines cases with T_CASE(name) { ... } and ends with
 *
 *	int main(int argc, char **argv) { return t_run(argc, argv); }
 *
 * Every case runs in a fork()ed child in its own process group (so a crash
 * fails one case only, and whatever the case leaves running is killed after
 * it). A case passes by returning, skips with t_skip(), fails with t_fail()
 * or a failed T_* assertion. The program prints one line per case:
 *
 *	PASS <name>
 *	FAIL <name>: <reason>
 *	SKIP <name>: <reason>
 *
 * and exits 1 if a case failed, 77 if every case that ran skipped (so that
 * `meson test` reports the program as skipped, not passed), 0 otherwise.
 * Arguments: case name filters
 * (substrings; a case runs when it matches any), -l to list the cases.
 * T_TIMEOUT (seconds, default 60) bounds each case.
 *
 * Nothing here touches the host's mount table: t_private_ns() moves the
 * case into a private mount namespace, and every mounting helper refuses to
 * run outside of one.
 */
#ifndef MNTKIT_TEST_HARNESS_H
#define MNTKIT_TEST_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T_MAX_CASES  256
#define T_REASON_MAX 4096
#define T_EXIT_SKIP  77

#define T_UNUSED __attribute__((unused))

struct t_case {
	const char *name;
	void (*fn)(void);
	int line;
};

static struct t_case t_cases[T_MAX_CASES];
static int t_ncases;
static char *t_reason;	      /* shared page: reason of the current case */
static const char *t_cur;     /* name of the current case */
static char t_base[PATH_MAX]; /* per-program scratch directory */
static int t_private;	      /* in a private mount namespace */
static char t_exe[PATH_MAX];  /* this program, read before any case */

static inline void t_register(const char *name, void (*fn)(void), int line)
{
	if (t_ncases >= T_MAX_CASES) {
		fprintf(stderr, "harness: too many cases\n");
		abort();
	}
	t_cases[t_ncases].name = name;
	t_cases[t_ncases].fn = fn;
	t_cases[t_ncases].line = line;
	t_ncases++;
}

#define T_CASE(name)                                                           \
	static void t_case_##name(void);                                       \
	__attribute__((constructor)) static void t_reg_##name(void)            \
	{                                                                      \
		t_register(#name, t_case_##name, __LINE__);                    \
	}                                                                      \
	static void t_case_##name(void)

/* ---- ending a case ---- */

static inline void t_vset_reason(const char *fmt, va_list ap)
{
	if (!t_reason)
		return;
	vsnprintf(t_reason, T_REASON_MAX, fmt, ap);
	/* one line: the runner's protocol is line based */
	for (char *p = t_reason; *p; p++)
		if (*p == '\n')
			*p = ' ';
}

__attribute__((noreturn, format(printf, 1, 2))) static inline void
t_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	t_vset_reason(fmt, ap);
	va_end(ap);
	fprintf(stderr, "[%s] FAIL: %s\n", t_cur ? t_cur : "?",
		t_reason ? t_reason : "");
	_exit(1);
}

__attribute__((noreturn, format(printf, 1, 2))) static inline void
t_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	t_vset_reason(fmt, ap);
	va_end(ap);
	_exit(T_EXIT_SKIP);
}

/* informational output of a case (stderr; shown when the program fails) */
#define t_log(...) fprintf(stderr, __VA_ARGS__)

/* ---- assertions ---- */

#define T_ASSERT(cond)                                                         \
	do {                                                                   \
		if (!(cond))                                                   \
			t_fail("%s:%d: assertion failed: %s", __FILE__,        \
			       __LINE__, #cond);                               \
	} while (0)

#define T_ASSERTF(cond, fmt, ...)                                              \
	do {                                                                   \
		if (!(cond))                                                   \
			t_fail("%s:%d: %s: " fmt, __FILE__, __LINE__, #cond,   \
			       __VA_ARGS__);                                   \
	} while (0)

/* unsigned 64-bit equality, printed in decimal and hex */
#define T_EQ_U(a, b)                                                           \
	do {                                                                   \
		uint64_t t_a_ = (uint64_t)(a), t_b_ = (uint64_t)(b);           \
		if (t_a_ != t_b_)                                              \
			t_fail("%s:%d: %s == %s: %" PRIu64 " (0x%" PRIx64      \
			       ") != %" PRIu64 " (0x%" PRIx64 ")",             \
			       __FILE__, __LINE__, #a, #b, t_a_, t_a_, t_b_,   \
			       t_b_);                                          \
	} while (0)

/* signed 64-bit equality */
#define T_EQ_I(a, b)                                                           \
	do {                                                                   \
		int64_t t_a_ = (int64_t)(a), t_b_ = (int64_t)(b);              \
		if (t_a_ != t_b_)                                              \
			t_fail("%s:%d: %s == %s: %" PRId64 " != %" PRId64,     \
			       __FILE__, __LINE__, #a, #b, t_a_, t_b_);        \
	} while (0)

#define T_EQ_STR(a, b)                                                         \
	do {                                                                   \
		const char *t_a_ = (a), *t_b_ = (b);                           \
		if (!t_a_ || !t_b_ || strcmp(t_a_, t_b_))                      \
			t_fail("%s:%d: %s == %s: \"%s\" != \"%s\"", __FILE__,  \
			       __LINE__, #a, #b, t_a_ ? t_a_ : "(null)",       \
			       t_b_ ? t_b_ : "(null)");                        \
	} while (0)

#define T_NULL(a)                                                              \
	do {                                                                   \
		const void *t_a_ = (a);                                        \
		if (t_a_)                                                      \
			t_fail("%s:%d: %s is not NULL", __FILE__, __LINE__,    \
			       #a);                                            \
	} while (0)

/* a syscall-style call succeeds (>= 0) */
#define T_OK(expr)                                                             \
	do {                                                                   \
		errno = 0;                                                     \
		long long t_r_ = (long long)(expr);                            \
		if (t_r_ < 0)                                                  \
			t_fail("%s:%d: %s = %lld (errno %d %s)", __FILE__,     \
			       __LINE__, #expr, t_r_, errno, strerror(errno)); \
	} while (0)

/* a syscall-style call fails with -1 and errno == err */
#define T_ERRNO(expr, err)                                                     \
	do {                                                                   \
		errno = 0;                                                     \
		long long t_r_ = (long long)(expr);                            \
		int t_e_ = errno;                                              \
		if (t_r_ != -1 || t_e_ != (err))                               \
			t_fail("%s:%d: %s = %lld errno %d (%s), expected -1 "  \
			       "errno %d (%s)",                                \
			       __FILE__, __LINE__, #expr, t_r_, t_e_,          \
			       strerror(t_e_), (err), strerror(err));          \
	} while (0)

/* a library-style call returns -err and sets errno = err */
#define T_NEG(expr, err)                                                       \
	do {                                                                   \
		errno = 0;                                                     \
		long long t_r_ = (long long)(expr);                            \
		int t_e_ = errno;                                              \
		if (t_r_ != -(long long)(err) || t_e_ != (err))                \
			t_fail("%s:%d: %s = %lld errno %d (%s), expected %d "  \
			       "errno %d (%s)",                                \
			       __FILE__, __LINE__, #expr, t_r_, t_e_,          \
			       strerror(t_e_), -(err), (err), strerror(err));  \
	} while (0)

/* ---- small utilities ---- */

static inline void *t_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		t_fail("out of memory (%zu bytes)", n);
	return p;
}

static inline void *t_xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p)
		t_fail("out of memory");
	return p;
}

static inline void *t_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		t_fail("out of memory (%zu bytes)", n);
	return p;
}

static inline char *t_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		t_fail("out of memory");
	return p;
}

static inline char *t_path(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* a malloc'd formatted string */
static inline char *t_path(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		t_fail("out of memory");
	va_end(ap);
	return s;
}

static inline int t_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline void t_sort_u64(uint64_t *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), t_cmp_u64);
}

static inline int t_contains_u64(const uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* the @n IDs of @got must be the @m IDs of @want, in the same order */
static inline void t_expect_ids(const uint64_t *got, size_t n,
				const uint64_t *want, size_t m, const char *what)
{
	T_ASSERTF(n == m, "%s: %zu IDs, expected %zu", what, n, m);
	for (size_t i = 0; i < n; i++)
		T_ASSERTF(got[i] == want[i],
			  "%s: [%zu] %#" PRIx64 ", expected %#" PRIx64, what, i,
			  got[i], want[i]);
}

/* xorshift64*: a seeded PRNG, the same sequence on every run */
static inline uint64_t t_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* ---- requirements ---- */

/*
 * A machine known to be slow: MNTKIT_TEST_SLOW=1 (tests/qemu's guests set
 * it: qemu's software emulation runs the kernel 10-50x slower). Cases
 * whose size is set for a real machine shrink or skip there, and say so.
 */
static inline int t_slow_machine(void)
{
	const char *e = getenv("MNTKIT_TEST_SLOW");

	return e && *e == '1';
}

static inline void t_require_root(void)
{
	if (geteuid() != 0)
		t_skip("needs root (euid %u)", (unsigned int)geteuid());
}

/* ---- raw system calls (independent of libmntkit) ---- */

#if defined(__alpha__)
#define T_NR_statmount 567
#define T_NR_listmount 568
#elif defined(__mips__)
#if _MIPS_SIM == _ABIO32
#define T_NR_statmount 4457
#define T_NR_listmount 4458
#elif _MIPS_SIM == _ABI64
#define T_NR_statmount 5457
#define T_NR_listmount 5458
#else
#define T_NR_statmount 6457
#define T_NR_listmount 6458
#endif
#elif defined(__x86_64__) && defined(__ILP32__)
#define T_NR_statmount (0x40000000 + 457)
#define T_NR_listmount (0x40000000 + 458)
#else
#define T_NR_statmount 457
#define T_NR_listmount 458
#endif

#ifdef __NR_mount_setattr
#define T_NR_mount_setattr __NR_mount_setattr
#else
#define T_NR_mount_setattr 442
#endif
#ifdef __NR_open_tree
#define T_NR_open_tree __NR_open_tree
#else
#define T_NR_open_tree 428
#endif
#ifdef __NR_move_mount
#define T_NR_move_mount __NR_move_mount
#else
#define T_NR_move_mount 429
#endif

#define T_STATX_MNT_ID	      0x1000U
#define T_STATX_MNT_ID_UNIQUE 0x4000U
#define T_NS_GET_MNTNS_ID     _IOR(0xb7, 0x5, uint64_t)
#define T_LSMT_ROOT	      0xffffffffffffffffULL

/* the kernel's struct mount_attr, under our own name */
struct t_mount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};

#define T_OPEN_TREE_CLONE	  1U
#define T_OPEN_TREE_CLOEXEC	  O_CLOEXEC
#define T_MOVE_MOUNT_F_EMPTY_PATH 0x00000004U
#define T_AT_RECURSIVE		  0x8000

/* request layout of the merged kernel (independent of mntkit.h) */
struct t_req {
	uint32_t size;
	uint32_t mnt_ns_fd;
	uint64_t mnt_id;
	uint64_t param;
	uint64_t mnt_ns_id;
};

#define T_STATMOUNT_MNT_BASIC 0x2U

/* the head of the kernel's struct statmount, under our own name */
struct t_sm_head {
	uint32_t size;
	uint32_t mnt_opts;
	uint64_t mask;
	uint32_t sb_dev_major;
	uint32_t sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags;
	uint32_t fs_type;
	uint64_t mnt_id;
	uint64_t mnt_parent_id;
	uint32_t mnt_id_old;
	uint32_t mnt_parent_id_old;
};

static inline long t_sys_statmount(const void *req, void *buf, size_t size,
				   unsigned int flags)
{
	return syscall(T_NR_statmount, req, buf, size, flags);
}

static inline long t_sys_listmount(const void *req, uint64_t *ids, size_t nr,
				   unsigned int flags)
{
	return syscall(T_NR_listmount, req, ids, nr, flags);
}

static inline int t_mount_setattr(int dirfd, const char *path,
				  unsigned int flags, uint64_t set,
				  uint64_t clr, uint64_t propagation)
{
	struct t_mount_attr attr = {
		.attr_set = set,
		.attr_clr = clr,
		.propagation = propagation,
	};

	return (int)syscall(T_NR_mount_setattr, dirfd, path, flags, &attr,
			    sizeof(attr));
}

/*
 * statx() the mount IDs of a path: *uniq from STATX_MNT_ID_UNIQUE, or,
 * where the kernel has no unique mount IDs (before Linux 6.8), the old ID
 * of STATX_MNT_ID - the ID mntkit names every mount by there; *old from
 * STATX_MNT_ID. Either pointer may be NULL. Cases that need real unique
 * IDs or the native system calls say so (t_require_statmount(),
 * t_have_unique_ids()).
 */
static inline void t_statx_ids(int dirfd, const char *path, int flags,
			       uint64_t *uniq, uint64_t *old)
{
	struct statx stx;

	if (uniq) {
		memset(&stx, 0, sizeof(stx));
		if (statx(dirfd, path, flags, T_STATX_MNT_ID_UNIQUE, &stx))
			t_fail("statx(%s): %s", path, strerror(errno));
		if (stx.stx_mask & T_STATX_MNT_ID_UNIQUE)
			*uniq = stx.stx_mnt_id;
		else
			t_statx_ids(dirfd, path, flags, NULL, uniq);
	}
	if (old) {
		memset(&stx, 0, sizeof(stx));
		if (statx(dirfd, path, flags, T_STATX_MNT_ID, &stx))
			t_fail("statx(%s): %s", path, strerror(errno));
		if (!(stx.stx_mask & T_STATX_MNT_ID))
			t_skip("statx has no STATX_MNT_ID");
		*old = stx.stx_mnt_id;
	}
}

/* does the kernel have unique mount IDs (STATX_MNT_ID_UNIQUE)? */
static inline int t_have_unique_ids(void)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	if (statx(AT_FDCWD, "/", 0, T_STATX_MNT_ID_UNIQUE, &stx))
		t_fail("statx(/): %s", strerror(errno));
	return !!(stx.stx_mask & T_STATX_MNT_ID_UNIQUE);
}

/* skip unless the kernel has unique mount IDs */
static inline void t_require_unique_ids(void)
{
	if (!t_have_unique_ids())
		t_skip("statx has no STATX_MNT_ID_UNIQUE: no unique mount IDs");
}

/* the mount ID of @path: unique, or old without unique IDs (see above) */
static inline uint64_t t_uid(const char *path)
{
	uint64_t id;

	t_statx_ids(AT_FDCWD, path, 0, &id, NULL);
	return id;
}

static inline uint64_t t_old_id(const char *path)
{
	uint64_t id;

	t_statx_ids(AT_FDCWD, path, 0, NULL, &id);
	return id;
}

/* skip unless the kernel has statmount(2) and listmount(2) */
static inline void t_require_statmount(void)
{
	struct t_req req = {.size = 24, .mnt_id = t_uid("/"), .param = 0};
	char buf[512];
	uint64_t id;

	if (t_sys_statmount(&req, buf, sizeof(buf), 0) < 0) {
		if (errno == ENOSYS)
			t_skip("kernel has no statmount(2)");
		t_fail("statmount probe: %s", strerror(errno));
	}
	req.mnt_id = T_LSMT_ROOT;
	if (t_sys_listmount(&req, &id, 1, 0) < 0) {
		if (errno == ENOSYS)
			t_skip("kernel has no listmount(2)");
		t_fail("listmount probe: %s", strerror(errno));
	}
}

/*
 * The statmount groups of the running kernel, asked of the kernel itself
 * (0 without statmount), for the cases whose expectations depend on it:
 * its supported_mask where it has STATMOUNT_SUPPORTED_MASK; before that,
 * the fixed groups it fills for the root mount, the strings every
 * statmount has (mnt_root, mnt_point, fs_type), and each later string
 * group it tries to write: EOVERFLOW into a bare 512-byte reply, or the
 * group in the reply's mask (a kernel that lacks a group ignores it).
 */
static inline uint64_t t_kernel_groups_probe(void);

static inline uint64_t t_kernel_groups(void)
{
	static uint64_t groups;
	static pid_t pid;

	/* once per process (a case runs in a child of its own) */
	if (pid != getpid()) {
		groups = t_kernel_groups_probe();
		pid = getpid();
	}
	return groups;
}

/* the groups of @mask the running kernel answers (unknown bits kept) */
#define t_kmask(mask) ((mask) & (t_kernel_groups() | ~0x7fffULL))

static inline uint64_t t_kernel_groups_probe(void)
{
	static const uint64_t strs[] = {0x80, 0x100, 0x200, 0x400, 0x800,
					0x2000, 0x4000};
	struct t_req req = {.size = 24, .mnt_id = t_uid("/"),
			    .param = 0x1000};
	union {
		struct t_sm_head h;
		uint64_t q[64]; /* 512 bytes; supported_mask at 144 */
	} u;
	uint64_t mask;

	memset(&u, 0, sizeof(u));
	if (t_sys_statmount(&req, &u, sizeof(u), 0) < 0)
		return 0;
	if (u.h.mask & 0x1000)
		return u.q[144 / 8] | 0x1000;
	req.param = 0x1 | 0x2 | 0x4 | 0x40;
	if (t_sys_statmount(&req, &u, sizeof(u), 0) < 0)
		t_fail("statmount(/, fixed groups): %s", strerror(errno));
	mask = u.h.mask | 0x8 | 0x10 | 0x20;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		req.param = strs[i];
		if (t_sys_statmount(&req, &u, sizeof(u), 0) < 0) {
			if (errno == EOVERFLOW)
				mask |= strs[i];
		} else {
			mask |= u.h.mask & strs[i];
		}
	}
	return mask;
}

/* skip unless the kernel's statmount has the groups @mask (named @what) */
static inline void t_require_groups(uint64_t mask, const char *what)
{
	uint64_t k = t_kernel_groups();

	if ((k & mask) != mask)
		t_skip("the kernel's statmount has no %s (groups %#" PRIx64
		       ", this kernel %#" PRIx64 ")",
		       what, mask & ~k, k);
}

/*
 * A raw reply in the form of 6.18, as the library gives it on every
 * kernel (mntkit(3) BUGS): 6.8 - 6.12 write MNT_OPTS "" for a mount
 * without options and MNT_POINT "" for a mount outside the caller's root,
 * with their bits set, where 6.18 leaves both groups out. Each such
 * one-byte string is taken out of the string area, its bit cleared and
 * the offsets behind it moved down.
 */
static size_t t_sm_cut_bytes T_UNUSED; /* what the last cut took out */

static inline size_t t_sm_cut_empty(void *reply)
{
	/* the [str]/[strv] offset fields of struct statmount and groups */
	static const struct {
		uint64_t bit;
		unsigned int off;
	} f[] = {
		{ 0x80, 4 },	  { 0x20, 36 },	  { 0x8, 104 },	  { 0x10, 108 },
		{ 0x100, 120 },	  { 0x200, 124 }, { 0x400, 132 }, { 0x800, 140 },
		{ 0x2000, 156 }, { 0x4000, 164 },
	};
	struct t_sm_head *h = reply;
	char *area = (char *)reply + 512;
	size_t cut = 0;

	for (size_t k = 0; k < 4; k++) {
		uint32_t *o, at, len;

		if ((f[k].bit != 0x80 && f[k].bit != 0x10) ||
		    !(h->mask & f[k].bit) || h->size <= 512)
			continue;
		o = (uint32_t *)((char *)reply + f[k].off);
		at = *o;
		len = h->size - 512;
		if (at >= len || area[at])
			continue;
		memmove(area + at, area + at + 1, len - at - 1);
		h->size--;
		h->mask &= ~f[k].bit;
		*o = 0;
		for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++) {
			uint32_t *p = (uint32_t *)((char *)reply + f[j].off);

			if ((h->mask & f[j].bit) && *p > at)
				(*p)--;
		}
		cut++;
	}
	t_sm_cut_bytes = cut;
	return cut;
}

/*
 * The raw statmount reply of @id for @mask (grown until it fits), malloc'd,
 * in 6.18's form (t_sm_cut_empty(); t_sm_cut_bytes says what it cut).
 * Returns NULL with errno on failure.
 */
static inline void *t_sm_raw_ns(uint64_t id, uint64_t mask, uint64_t ns_id,
				uint32_t ns_fd)
{
	struct t_req req = {
		.size = 32,
		.mnt_ns_fd = ns_fd,
		.mnt_id = id,
		.param = mask,
		.mnt_ns_id = ns_id,
	};
	size_t size = 4096;

	t_sm_cut_bytes = 0;
	for (;;) {
		char *buf = t_xcalloc(1, size);

		if (t_sys_statmount(&req, buf, size, 0) == 0) {
			t_sm_cut_empty(buf);
			return buf;
		}
		free(buf);
		if (errno != EOVERFLOW)
			return NULL;
		size *= 2;
		if (size > (64u << 20))
			t_fail("statmount reply does not fit 64M");
	}
}

static inline void *t_sm_raw(uint64_t id, uint64_t mask)
{
	return t_sm_raw_ns(id, mask, 0, 0);
}

/* a raw statmount that must succeed (skips without statmount(2)) */
static inline void *t_sm(uint64_t id, uint64_t mask)
{
	void *p = t_sm_raw(id, mask);

	if (!p && errno == ENOSYS)
		t_skip("kernel has no statmount(2)");
	if (!p)
		t_fail("raw statmount(%#" PRIx64 ", %#" PRIx64 "): %s", id,
		       mask, strerror(errno));
	return p;
}

/* a string of a raw reply, by offset field value (no checks beyond size) */
static inline const char *t_sm_s(const void *sm, uint32_t off)
{
	uint32_t size;

	memcpy(&size, sm, sizeof(size));
	if (512 + (uint64_t)off >= size)
		t_fail("raw reply offset %u outside size %u", off, size);
	return (const char *)sm + 512 + off;
}

/*
 * Every ID listmount returns below @start (all pages), in a malloc'd array;
 * returns the count, or -1 with errno.
 */
static inline ssize_t t_lm_raw_ns(uint64_t start, unsigned int flags,
				  uint64_t ns_id, uint32_t ns_fd,
				  uint64_t **out)
{
	struct t_req req = {
		.size = 32,
		.mnt_ns_fd = ns_fd,
		.mnt_id = start,
		.mnt_ns_id = ns_id,
	};
	size_t n = 0, cap = 0;
	uint64_t *v = NULL;

	for (;;) {
		ssize_t r;

		if (cap - n < 64) {
			cap = cap ? cap * 2 : 256;
			v = t_xrealloc(v, cap * sizeof(*v));
		}
		r = t_sys_listmount(&req, v + n, cap - n, flags);
		if (r < 0) {
			free(v);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		req.param = v[n - 1];
	}
	*out = v;
	return (ssize_t)n;
}

/* a raw listing that must succeed (skips without listmount(2)) */
static inline size_t t_lm(uint64_t start, unsigned int flags, uint64_t **out)
{
	ssize_t n = t_lm_raw_ns(start, flags, 0, 0, out);

	if (n < 0 && errno == ENOSYS)
		t_skip("kernel has no listmount(2)");
	if (n < 0)
		t_fail("raw listmount(%#" PRIx64 "): %s", start,
		       strerror(errno));
	return (size_t)n;
}

/* ---- /proc/PID/mountinfo, parsed independently ---- */

struct t_mi {
	uint64_t id, parent;
	unsigned int major, minor;
	char *root, *point; /* unescaped */
	char *opts;	    /* per-mount options (field 6) */
	char *optional;	    /* optional fields, space separated */
	char *fstype;	    /* full type, e.g. fuse.sshfs */
	char *source;	    /* unescaped */
	char *superopts;
	uint64_t shared, master, propagate_from;
	int unbindable;
};

struct t_mitab {
	struct t_mi *v;
	size_t n;
	char *buf;
};

/* undo the \ooo escapes of mountinfo in place */
static inline char *t_unescape(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' &&
		    r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 +
				      (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
	return s;
}

/*
 * All of @fd (@path names it in a failure), NUL-terminated, and closes
 * it: read to the end, as a file of /proc (mountinfo) gives a page or so
 * per read(2).
 */
static inline char *t_read_fd(int fd, const char *path, size_t *lenp)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = t_xmalloc(cap);

	for (;;) {
		ssize_t r;

		if (cap - len < 4096) {
			cap *= 2;
			buf = t_xrealloc(buf, cap);
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0)
			t_fail("read %s: %s", path, strerror(errno));
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
}

static inline char *t_read_file(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		t_fail("open %s: %s", path, strerror(errno));
	return t_read_fd(fd, path, lenp);
}

static inline void t_mi_parse_line(char *line, struct t_mi *m)
{
	char *f[6], *p = line, *rest, *dup, *sv = NULL, *w;
	int i;

	memset(m, 0, sizeof(*m));
	rest = strstr(line, " - ");
	if (!rest)
		t_fail("mountinfo: no separator in '%s'", line);
	*rest = 0;
	rest += 3;
	for (i = 0; i < 6; i++) {
		f[i] = p;
		p = strchr(p, ' ');
		if (!p && i < 5)
			t_fail("mountinfo: short line");
		if (p)
			*p++ = 0;
	}
	m->id = strtoull(f[0], NULL, 10);
	m->parent = strtoull(f[1], NULL, 10);
	if (sscanf(f[2], "%u:%u", &m->major, &m->minor) != 2)
		t_fail("mountinfo: bad dev '%s'", f[2]);
	m->root = t_unescape(f[3]);
	m->point = t_unescape(f[4]);
	m->opts = f[5];
	m->optional = p ? p : (char *)"";
	dup = t_xstrdup(m->optional);
	for (w = strtok_r(dup, " ", &sv); w; w = strtok_r(NULL, " ", &sv)) {
		if (!strncmp(w, "shared:", 7))
			m->shared = strtoull(w + 7, NULL, 10);
		else if (!strncmp(w, "master:", 7))
			m->master = strtoull(w + 7, NULL, 10);
		else if (!strncmp(w, "propagate_from:", 15))
			m->propagate_from = strtoull(w + 15, NULL, 10);
		else if (!strcmp(w, "unbindable"))
			m->unbindable = 1;
	}
	free(dup);
	sv = NULL;
	m->fstype = strtok_r(rest, " ", &sv);
	m->source = strtok_r(NULL, " ", &sv);
	m->superopts = strtok_r(NULL, " ", &sv);
	if (!m->fstype || !m->source || !m->superopts)
		t_fail("mountinfo: short line after separator");
	t_unescape(m->source);
}

/* parse /proc/<pid>/mountinfo (pid 0: self) */
static inline void t_mi_read(pid_t pid, struct t_mitab *tab)
{
	char path[64], *line, *save = NULL;
	size_t cap = 64;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/mountinfo");
	tab->buf = t_read_file(path, NULL);
	tab->n = 0;
	tab->v = t_xcalloc(cap, sizeof(*tab->v));
	for (line = strtok_r(tab->buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (tab->n == cap) {
			cap *= 2;
			tab->v = t_xrealloc(tab->v, cap * sizeof(*tab->v));
		}
		t_mi_parse_line(line, &tab->v[tab->n++]);
	}
}

static inline void t_mi_free(struct t_mitab *tab)
{
	free(tab->v);
	free(tab->buf);
	memset(tab, 0, sizeof(*tab));
}

static inline struct t_mi *t_mi_by_id(struct t_mitab *tab, uint64_t old)
{
	for (size_t i = 0; i < tab->n; i++)
		if (tab->v[i].id == old)
			return &tab->v[i];
	return NULL;
}

/*
 * Does the caller's mountinfo show the mount of / at / (its root is the
 * root of a mount)? Not in a chroot into a directory that is no mount
 * point: the mount that holds / has its mount point outside the root.
 */
static inline int t_root_in_mountinfo(void)
{
	struct t_mitab mi;
	struct t_mi *m;
	int r;

	t_mi_read(0, &mi);
	m = t_mi_by_id(&mi, t_old_id("/"));
	r = m && !strcmp(m->point, "/");
	t_mi_free(&mi);
	return r;
}

/*
 * The old IDs of the roots of the caller's mount tree as its mountinfo
 * shows it: the entries whose parent it does not show (or that are their
 * own parent). One, the mount of /, but in a chroot whose root directory
 * is no mount point: there the mount that holds / is outside the root and
 * each mount below it is a root. Returns their number; *@roots is
 * malloc'd.
 */
static inline size_t t_mi_roots(uint64_t **roots)
{
	struct t_mitab mi;
	size_t n = 0;

	t_mi_read(0, &mi);
	*roots = t_xcalloc(mi.n + 1, sizeof(**roots));
	for (size_t i = 0; i < mi.n; i++)
		if (mi.v[i].parent == mi.v[i].id ||
		    !t_mi_by_id(&mi, mi.v[i].parent))
			(*roots)[n++] = mi.v[i].id;
	t_mi_free(&mi);
	return n;
}

/* the last (topmost) mount at a mount point */
static inline struct t_mi *t_mi_by_point(struct t_mitab *tab, const char *pt)
{
	struct t_mi *m = NULL;

	for (size_t i = 0; i < tab->n; i++)
		if (!strcmp(tab->v[i].point, pt))
			m = &tab->v[i];
	return m;
}

/* does a comma separated option list contain the word @w? */
static inline int t_has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; p && *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);

		if (l == n && !strncmp(p, w, n))
			return 1;
		p = c ? c + 1 : NULL;
	}
	return 0;
}

/*
 * A file of the build this program is in: @rel (e.g. "tools/statmnt")
 * below the build directory, @up directories above the program (2 for
 * build/tests/test-x). The program's path is read once before any case:
 * after unshare(CLONE_NEWNS) in a chroot, /proc/self/exe names it from
 * the old namespace's root (the chroot's path in front).
 */
static inline char *t_build_file(int up, const char *rel)
{
	char dir[PATH_MAX], *slash;

	if (!t_exe[0])
		t_fail("harness: the program's path is unknown");
	snprintf(dir, sizeof(dir), "%s", t_exe);
	/* as dirname(3) @up times: "/" stays "/" (a program at the root of
	 * a guest, /tests/test-x, has no build above it) */
	for (int i = 0; i < up; i++) {
		slash = strrchr(dir, '/');
		if (!slash)
			t_fail("harness: %s is not an absolute path", t_exe);
		slash[slash == dir] = '\0';
	}
	return t_path("%s%s%s", dir, strcmp(dir, "/") ? "/" : "", rel);
}

/* ---- the caller's root and its namespace's root ---- */

/*
 * In a chroot(2) the caller's root directory is not its mount namespace's
 * root: the kernel lists a foreign namespace from that namespace's root
 * (and names its mount points from there), a process's mountinfo shows
 * only what its own root reaches, and setns(2) into a mount namespace
 * (nsenter -m) moves the root to the namespace's root. In a container
 * (pivot_root) and on a host the two are the same.
 */

/* setns(2) into the caller's own mount namespace: its root (and cwd)
 * become the namespace's root; 0, or -1 with errno */
static inline int t_ns_root_enter(void)
{
	int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC), r, e;

	if (fd < 0)
		return -1;
	r = setns(fd, CLONE_NEWNS);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

/*
 * The caller's root directory as a process at its mount namespace's root
 * names it: "" where the two are the same, "/srv/jail" in a chroot at
 * /srv/jail. A child enters its own namespace (t_ns_root_enter()) and
 * asks getcwd() where the old root is. t_ns_root_prefix_try() returns 0
 * or the errno where that is refused (it needs CAP_SYS_ADMIN and
 * CAP_SYS_CHROOT) or /proc is missing; t_ns_root_prefix() skips the case
 * then.
 */
static char t_nsroot_prefix[PATH_MAX];
static pid_t t_nsroot_known; /* the process t_nsroot_prefix is of */

static inline int t_ns_root_prefix_try(const char **out)
{
	char *prefix = t_nsroot_prefix;
	char buf[PATH_MAX + sizeof(int)];
	int pfd[2], st;
	ssize_t r;
	pid_t pid;

	*out = prefix;
	if (t_nsroot_known == getpid())
		return 0;
	if (pipe(pfd))
		t_fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), e = 0;

		memset(buf, 0, sizeof(buf));
		if (fd < 0 || t_ns_root_enter() || fchdir(fd) ||
		    !getcwd(buf + sizeof(int), PATH_MAX))
			e = errno ? errno : EIO;
		memcpy(buf, &e, sizeof(int));
		_exit(write(pfd[1], buf, sizeof(buf)) == (ssize_t)sizeof(buf)
			      ? 0 : 1);
	}
	close(pfd[1]);
	r = read(pfd[0], buf, sizeof(buf));
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (r != (ssize_t)sizeof(buf))
		t_fail("where is / in its namespace: no answer");
	memcpy(&st, buf, sizeof(int));
	if (st)
		return st;
	buf[sizeof(buf) - 1] = 0;
	snprintf(prefix, sizeof(t_nsroot_prefix), "%s",
		 strcmp(buf + sizeof(int), "/") ? buf + sizeof(int) : "");
	t_nsroot_known = getpid();
	return 0;
}

static inline const char *t_ns_root_prefix(void)
{
	const char *p;
	int e = t_ns_root_prefix_try(&p);

	if (e)
		t_skip("cannot tell where / is in its mount namespace "
		       "(setns into it: %s)", strerror(e));
	return p;
}

/*
 * Skip the case: @what (a user namespace) failed with @e. The kernel
 * refuses one (EPERM) to a process whose root is not its mount
 * namespace's: said so in a chroot.
 */
__attribute__((noreturn)) static inline void t_skip_userns(int e,
							   const char *what)
{
	const char *pre;

	if (e == EPERM && !t_ns_root_prefix_try(&pre) && *pre)
		t_skip("%s: %s (the kernel refuses one in a chroot, here at %s)",
		       what, strerror(e), pre);
	t_skip("%s: %s", what, strerror(e));
}

/* is the caller's root its mount namespace's root (not in a chroot)? */
static inline int t_root_is_ns_root(void)
{
	return !t_ns_root_prefix()[0];
}

/* @path (of the caller's root) as a process at the namespace's root
 * names it (malloc'd) */
static inline char *t_ns_path(const char *path)
{
	return t_path("%s%s", t_ns_root_prefix(), path);
}

/*
 * For a child of the case in a mount namespace of its own: move its root
 * to the namespace's root, where a container's processes have it, so
 * that the namespace looks the same to a caller outside (the kernel) and
 * to the child's own mountinfo (the emulation). t_base is renamed to
 * match (the same directory).
 */
static inline void t_ns_root_take(void)
{
	char *base;

	if (t_root_is_ns_root())
		return;
	base = t_ns_path(t_base);
	if (t_ns_root_enter())
		t_fail("setns into its own mount namespace: %s",
		       strerror(errno));
	t_nsroot_prefix[0] = '\0'; /* the root is the namespace's now */
	snprintf(t_base, sizeof(t_base), "%s", base);
	free(base);
}

/* ---- private mount namespace and mounts ---- */

/*
 * Set the propagation @type (e.g. MS_REC | MS_PRIVATE) of "/" in the
 * caller's (new) namespace, or, in a chroot whose root directory is no
 * mount point (a plain directory made by debootstrap), where that is
 * EINVAL, of the namespace's root (t_ns_root_enter()), and come back into
 * the chroot and the working directory. 0, or -1 with errno.
 */
static inline int t_root_propagation(unsigned long type)
{
	int root, cwd, r, e;

	if (!mount(NULL, "/", NULL, type, NULL))
		return 0;
	if (errno != EINVAL)
		return -1;
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0 || cwd < 0)
		t_fail("open / and .: %s", strerror(errno));
	if (t_ns_root_enter())
		t_fail("setns into its own mount namespace: %s",
		       strerror(errno));
	r = mount(NULL, "/", NULL, type, NULL);
	e = errno;
	if (fchdir(root) || chroot(".") || fchdir(cwd))
		t_fail("back into the chroot: %s", strerror(errno));
	close(root);
	close(cwd);
	errno = e;
	return r;
}

/* every mount of the caller's namespace private */
static inline int t_make_rprivate(void)
{
	return t_root_propagation(MS_REC | MS_PRIVATE);
}

/*
 * Move the current process into a private mount namespace (skips when not
 * root or when unshare is refused) and mount a tmpfs on the scratch
 * directory, so that every file a case makes lives in that tmpfs.
 */
static inline void t_private_ns(void)
{
	t_require_root();
	if (unshare(CLONE_NEWNS)) {
		if (errno == EPERM)
			t_skip("unshare(CLONE_NEWNS): %s", strerror(errno));
		t_fail("unshare(CLONE_NEWNS): %s", strerror(errno));
	}
	if (t_make_rprivate())
		t_fail("make / rprivate: %s", strerror(errno));
	t_private = 1;
	if (t_base[0] && mount("mntkit-test", t_base, "tmpfs", 0, "mode=755"))
		t_fail("mount tmpfs on %s: %s", t_base, strerror(errno));
}

static inline void t_need_private(const char *what)
{
	if (!t_private)
		t_fail("harness: %s outside a private mount namespace", what);
}

/* a new directory under the scratch directory (malloc'd path) */
static inline char *t_tmpdir(void)
{
	char *p = t_path("%s/d.XXXXXX", t_base);

	if (!mkdtemp(p))
		t_fail("mkdtemp %s: %s", p, strerror(errno));
	return p;
}

static inline void t_mkdir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		t_fail("mkdir %s: %s", path, strerror(errno));
}

static inline void t_mount(const char *src, const char *tgt, const char *type,
			   unsigned long flags, const char *data)
{
	t_need_private("mount");
	if (mount(src, tgt, type, flags, data))
		t_fail("mount(%s, %s, %s, %#lx, %s): %s", src ? src : "NULL",
		       tgt, type ? type : "NULL", flags, data ? data : "NULL",
		       strerror(errno));
}

/* mkdir @tgt and mount a tmpfs there; returns its mount ID (t_uid()) */
static inline uint64_t t_tmpfs(const char *tgt, unsigned long flags,
			       const char *data)
{
	t_mkdir(tgt);
	t_mount("tmpfs", tgt, "tmpfs", flags, data);
	return t_uid(tgt);
}

/* bind mount (recursive with @rec); returns the new mount's t_uid() */
static inline uint64_t t_bind(const char *src, const char *tgt, int rec)
{
	t_mkdir(tgt);
	t_mount(src, tgt, NULL, MS_BIND | (rec ? MS_REC : 0), NULL);
	return t_uid(tgt);
}

static inline void t_setattr(const char *path, unsigned int at_flags,
			     uint64_t set, uint64_t clr, uint64_t prop)
{
	t_need_private("mount_setattr");
	if (t_mount_setattr(AT_FDCWD, path, at_flags, set, clr, prop)) {
		if (errno == ENOSYS)
			t_skip("kernel has no mount_setattr(2)");
		t_fail("mount_setattr(%s, set %#" PRIx64 " clr %#" PRIx64
		       " prop %#" PRIx64 "): %s",
		       path, set, clr, prop, strerror(errno));
	}
}

static inline void t_umount(const char *path)
{
	t_need_private("umount");
	if (umount2(path, MNT_DETACH))
		t_fail("umount %s: %s", path, strerror(errno));
}

/*
 * An fd of a new user namespace whose uid_map and gid_map are @map (e.g.
 * "0 100000 65536"), or -1 with errno (unshare's) when user namespaces
 * are not available.
 */
static inline int t_userns_fd_try(const char *map)
{
	int go[2], ready[2], fd, st;
	char path[64], c = 0;
	pid_t pid;

	if (pipe(go) || pipe(ready))
		t_fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(go[1]);
		close(ready[0]);
		c = unshare(CLONE_NEWUSER) ? (char)(errno ? errno : EIO) : 0;
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		if (read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], &c, 1) != 1 || c) {
		close(ready[0]);
		close(go[1]);
		waitpid(pid, &st, 0);
		errno = c ? c : EIO;
		return -1;
	}
	close(ready[0]);
	for (int i = 0; i < 2; i++) {
		int mfd;

		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid,
			 i ? "gid_map" : "uid_map");
		mfd = open(path, O_WRONLY | O_CLOEXEC);
		if (mfd < 0 || write(mfd, map, strlen(map)) < 0)
			t_fail("write %s: %s", path, strerror(errno));
		close(mfd);
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		t_fail("open %s: %s", path, strerror(errno));
	close(go[1]);
	waitpid(pid, &st, 0);
	return fd;
}

/* the same, skipping the case when user namespaces are not available */
static inline int t_userns_fd(const char *map)
{
	int fd = t_userns_fd_try(map);

	if (fd < 0)
		t_skip_userns(errno, "cannot create a user namespace");
	return fd;
}

/*
 * An idmapped bind mount of @src on @tgt (mkdir'd) with the user namespace
 * @userns_fd: 0, or -1 with errno when the kernel or the file system
 * cannot make one.
 */
static inline int t_idmap_mount_try(const char *src, const char *tgt,
				    int userns_fd)
{
	struct t_mount_attr attr = {
		.attr_set = 0x00100000ULL, /* MOUNT_ATTR_IDMAP */
		.userns_fd = (uint64_t)userns_fd,
	};
	int fd, e;

	t_need_private("idmapped mount");
	t_mkdir(tgt);
	fd = (int)syscall(T_NR_open_tree, AT_FDCWD, src,
			  T_OPEN_TREE_CLONE | T_OPEN_TREE_CLOEXEC);
	if (fd < 0)
		return -1;
	if (syscall(T_NR_mount_setattr, fd, "", AT_EMPTY_PATH, &attr,
		    sizeof(attr))) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (syscall(T_NR_move_mount, fd, "", AT_FDCWD, tgt,
		    T_MOVE_MOUNT_F_EMPTY_PATH))
		t_fail("move_mount to %s: %s", tgt, strerror(errno));
	close(fd);
	return 0;
}

/* the same, skipping when impossible; returns the new mount's t_uid() */
static inline uint64_t t_idmap_mount(const char *src, const char *tgt,
				     int userns_fd)
{
	if (t_idmap_mount_try(src, tgt, userns_fd))
		t_skip("idmapped mounts not available: %s", strerror(errno));
	return t_uid(tgt);
}

/* the mount namespace ID of /proc/<pid>/ns/mnt via NS_GET_MNTNS_ID */
static inline uint64_t t_ns_id(pid_t pid)
{
	char path[64];
	uint64_t id = 0;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/mnt");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		t_fail("open %s: %s", path, strerror(errno));
	if (ioctl(fd, T_NS_GET_MNTNS_ID, &id)) {
		int e = errno;

		close(fd);
		if (e == ENOTTY || e == EINVAL)
			t_skip("no NS_GET_MNTNS_ID ioctl (%s)", strerror(e));
		t_fail("NS_GET_MNTNS_ID: %s", strerror(e));
	}
	close(fd);
	return id;
}

/* ---- child processes of a case ---- */

/*
 * Wait for a child of the case; fail the case if it did not exit 0 (the
 * child's own t_fail() reason, written to the shared page, is kept).
 */
static inline void t_wait_child(pid_t pid, const char *what)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			t_fail("waitpid %s: %s", what, strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) == T_EXIT_SKIP)
		_exit(T_EXIT_SKIP); /* the child's skip reason stands */
	if (t_reason && t_reason[0])
		_exit(1); /* the child's failure reason stands */
	if (WIFSIGNALED(st))
		t_fail("%s killed by signal %d", what, WTERMSIG(st));
	t_fail("%s exited %d", what, WEXITSTATUS(st));
}

/* read exactly @n bytes (0) or fail */
static inline void t_read_full(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			t_fail("short read from pipe: %s",
			       r ? strerror(errno) : "EOF");
		p += r;
		n -= (size_t)r;
	}
}

static inline void t_write_full(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t r = write(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			t_fail("short write to pipe: %s", strerror(errno));
		p += r;
		n -= (size_t)r;
	}
}

/* seconds of CLOCK_MONOTONIC */
static inline double t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A child of the case in a private mount namespace of its own, held there
 * (so that the namespace lives) until t_ns_child_stop().
 */
struct t_ns_child {
	pid_t pid;
	int done;  /* closing it lets the child exit */
	int ns_fd; /* /proc/PID/ns/mnt */
};

/*
 * Fork the child: it moves into a private mount namespace (t_private_ns()),
 * at its root (t_ns_root_take(): where the case runs in a chroot, the
 * child's paths are t_ns_path() of the case's), runs @fill on a zeroed
 * @rep of @size bytes there and sends it back into
 * the case's @rep. A child that fails or skips before it sent its report
 * ends the case with its own reason.
 */
static inline void t_ns_child_start(struct t_ns_child *c,
				    void (*fill)(void *rep), void *rep,
				    size_t size)
{
	int pfd[2], done[2];
	char *p = rep;

	if (pipe(pfd) || pipe(done))
		t_fail("pipe: %s", strerror(errno));
	c->pid = fork();
	if (c->pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (c->pid == 0) {
		char ch;

		close(pfd[0]);
		close(done[1]);
		t_private_ns();
		t_ns_root_take();
		memset(rep, 0, size);
		fill(rep);
		t_write_full(pfd[1], rep, size);
		/* stay until the case is done */
		while (read(done[0], &ch, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(pfd[1]);
	close(done[0]);
	c->done = done[1];
	while (size) {
		ssize_t r = read(pfd[0], p, size);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			/* the child failed: its reason stands */
			t_wait_child(c->pid, "namespace child");
			t_fail("namespace child sent no report");
		}
		p += r;
		size -= (size_t)r;
	}
	close(pfd[0]);
	c->ns_fd = open(t_path("/proc/%d/ns/mnt", (int)c->pid),
			O_RDONLY | O_CLOEXEC);
	if (c->ns_fd < 0)
		t_fail("open /proc/%d/ns/mnt: %s", (int)c->pid,
		       strerror(errno));
}

/*
 * Run @body(@arg) as PID 1 of a new PID namespace with its own /proc, in
 * a private mount namespace: a watch of every namespace sees the case's
 * only. The case's verdict is its child's.
 */
static inline void t_in_own_pidns(void (*body)(int), int arg)
{
	pid_t pid;

	t_private_ns();
	if (unshare(CLONE_NEWPID))
		t_skip("unshare(CLONE_NEWPID): %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV |
							   MS_NOEXEC, NULL))
			t_fail("mount proc: %s", strerror(errno));
		body(arg);
		_exit(0);
	}
	t_wait_child(pid, "the case in its PID namespace");
}

/* let the child of t_ns_child_start() exit, and reap it */
static inline void t_ns_child_stop(struct t_ns_child *c)
{
	close(c->done);
	close(c->ns_fd);
	t_wait_child(c->pid, "namespace child");
}

/*
 * Churn: a child of the case that mounts and unmounts tmpfs, nested, in
 * the case's namespace for at most @secs seconds, as fast as it can:
 * @dir/I and @dir/I/n for I = 0..7 in turn (with @stack, a third tmpfs
 * stacked on @dir/5/n), then odd rounds detach both at once, even rounds
 * the inner one first. t_churn_end() stops it and waits for it.
 */
struct t_churn {
	pid_t pid;
	int fd;	   /* the round count comes through it */
	int *stop; /* shared with the child: set, it stops */
};

/*
 * A case that reads under churn makes more than 10 reads: in @secs on a
 * real machine, in up to 4 times as long on a slow (emulated) one, where
 * each read takes 10-50 times as long. t_churn_cap(): how long the churn
 * may have to run; t_churn_reading(): whether the case, which began at
 * @t0 and made @reads reads, reads on.
 */
static inline double t_churn_cap(double secs)
{
	return t_slow_machine() ? 4 * secs : secs;
}

static inline int t_churn_reading(double t0, double secs, uint64_t reads)
{
	double t = t_now() - t0;

	return t < secs || (reads <= 10 && t < t_churn_cap(secs));
}

static inline void t_churn_start(struct t_churn *c, const char *dir,
				 double secs, int stack)
{
	int pfd[2];

	if (pipe(pfd))
		t_fail("pipe: %s", strerror(errno));
	c->stop = mmap(NULL, sizeof(*c->stop), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c->stop == MAP_FAILED)
		t_fail("mmap: %s", strerror(errno));
	*c->stop = 0;
	c->pid = fork();
	if (c->pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (c->pid == 0) {
		uint64_t count = 0;
		char p[PATH_MAX], q[PATH_MAX];
		double end = t_now() + secs;

		close(pfd[0]);
		for (int i = 0;
		     t_now() < end && !__atomic_load_n(c->stop, __ATOMIC_RELAXED);
		     i = (i + 1) % 8) {
			snprintf(p, sizeof(p), "%s/%d", dir, i);
			snprintf(q, sizeof(q), "%s/%d/n", dir, i);
			mkdir(p, 0755);
			if (mount("c", p, "tmpfs", 0, NULL))
				_exit(3);
			mkdir(q, 0755);
			if (mount("c", q, "tmpfs", 0, NULL))
				_exit(3);
			if (stack && i == 5 && mount("s", q, "tmpfs", 0, NULL))
				_exit(3);
			if (i % 2 && umount2(p, MNT_DETACH))
				_exit(4);
			if (!(i % 2) &&
			    (umount2(q, MNT_DETACH) || umount2(p, MNT_DETACH)))
				_exit(4);
			count++;
		}
		t_write_full(pfd[1], &count, sizeof(count));
		_exit(0);
	}
	close(pfd[1]);
	c->fd = pfd[0];
}

/* stop the churn child and wait for it: it must have made more than 10
 * rounds */
static inline void t_churn_end(struct t_churn *c, const char *what)
{
	uint64_t count;

	__atomic_store_n(c->stop, 1, __ATOMIC_RELAXED);
	t_read_full(c->fd, &count, sizeof(count));
	close(c->fd);
	t_wait_child(c->pid, "churn child");
	munmap(c->stop, sizeof(*c->stop));
	t_log("%s: %" PRIu64 " churn rounds\n", what, count);
	T_ASSERTF(count > 10, "%s: only %" PRIu64 " churn rounds", what,
		  count);
}

/* ---- capabilities and the namespace's root ---- */

/* capset(2) without libcap: drop CAP_SYS_ADMIN from the effective set */
static inline void t_drop_sys_admin(void)
{
	struct {
		uint32_t version;
		int pid;
	} h = {0x20080522, 0}; /* _LINUX_CAPABILITY_VERSION_3 */
	struct {
		uint32_t effective, permitted, inheritable;
	} d[2];

	memset(d, 0, sizeof(d));
	T_OK(syscall(SYS_capget, &h, d));
	d[0].effective &= ~(1U << 21); /* CAP_SYS_ADMIN */
	T_OK(syscall(SYS_capset, &h, d));
}

/* the namespace's true root: follow the parents up from "/" (raw) */
static inline uint64_t t_true_root(void)
{
	uint64_t id = t_uid("/");

	for (int i = 0; i < 1000; i++) {
		const struct t_sm_head *sm = t_sm(id, T_STATMOUNT_MNT_BASIC);
		uint64_t parent = sm->mnt_parent_id;

		free((void *)sm);
		if (parent == id)
			return id;
		id = parent;
	}
	t_fail("no root above /");
}

/* ---- the runner ---- */

static int t_rm_cb(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static inline int t_case_cmp(const void *a, const void *b)
{
	return ((const struct t_case *)a)->line -
	       ((const struct t_case *)b)->line;
}

static inline int t_selected(const char *name, int argc, char **argv)
{
	int any = 0;

	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		any = 1;
		if (strstr(name, argv[i]))
			return 1;
	}
	return !any;
}

/* run one case in a child; prints its line; returns 0 pass, 1 fail, 2 skip */
static inline int t_run_case(const struct t_case *c, unsigned int timeout)
{
	siginfo_t si;
	int ret, st;
	pid_t pid;

	memset(t_reason, 0, T_REASON_MAX);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		printf("FAIL %s: fork: %s\n", c->name, strerror(errno));
		return 1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		t_cur = c->name;
		alarm(timeout);
		c->fn();
		_exit(0);
	}
	setpgid(pid, pid);
	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			break;
	/* the case is a zombie: its process group cannot be reused yet */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			break;
	t_reason[T_REASON_MAX - 1] = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		printf("PASS %s\n", c->name);
		ret = 0;
	} else if (WIFEXITED(st) && WEXITSTATUS(st) == T_EXIT_SKIP) {
		printf("SKIP %s: %s\n", c->name,
		       t_reason[0] ? t_reason : "skipped");
		ret = 2;
	} else if (WIFSIGNALED(st)) {
		printf("FAIL %s: killed by signal %d (%s)%s%s%s\n", c->name,
		       WTERMSIG(st), strsignal(WTERMSIG(st)),
		       WTERMSIG(st) == SIGALRM ? " - timeout" : "",
		       t_reason[0] ? ": " : "", t_reason);
		ret = 1;
	} else {
		printf("FAIL %s: %s\n", c->name,
		       t_reason[0] ? t_reason : "exit status nonzero");
		ret = 1;
	}
	fflush(stdout);
	return ret;
}

static inline int t_run(int argc, char **argv)
{
	unsigned int timeout = 60;
	int failed = 0, ran = 0, skipped = 0;
	const char *e = getenv("T_TIMEOUT");

	if (e && atoi(e) > 0)
		timeout = (unsigned int)atoi(e);
	qsort(t_cases, (size_t)t_ncases, sizeof(t_cases[0]), t_case_cmp);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-l")) {
			for (int j = 0; j < t_ncases; j++)
				printf("%s\n", t_cases[j].name);
			return 0;
		}
	}
	t_reason = mmap(NULL, T_REASON_MAX, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t_reason == MAP_FAILED) {
		printf("FAIL harness: mmap: %s\n", strerror(errno));
		return 1;
	}
	{
		ssize_t n = readlink("/proc/self/exe", t_exe, sizeof(t_exe) - 1);

		t_exe[n > 0 ? n : 0] = '\0';
	}
	snprintf(t_base, sizeof(t_base), "/tmp/mntkit-test.XXXXXX");
	if (!mkdtemp(t_base)) {
		printf("FAIL harness: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < t_ncases; i++) {
		if (!t_selected(t_cases[i].name, argc, argv))
			continue;
		ran++;
		switch (t_run_case(&t_cases[i], timeout)) {
		case 1:
			failed = 1;
			break;
		case 2:
			skipped++;
			break;
		}
	}
	/* only plain files can be left here: mounts lived in the cases' ns */
	nftw(t_base, t_rm_cb, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	if (!ran)
		fprintf(stderr, "no case matched\n");
	if (failed)
		return 1;
	return ran && skipped == ran ? T_EXIT_SKIP : 0;
}

#endif /* MNTKIT_TEST_HARNESS_H */
