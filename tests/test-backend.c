/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-backend - backend choice (probe, MNTKIT_BACKEND, mntkit_set_backend)
 * and mntkit_get_features() against the kernel's features probed here
 * independently with the raw system calls.
 */
#include <pthread.h>
#include <sys/fanotify.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>

#include <mntkit.h>

#include "harness.h"
#include "seccomp.h"

/* each case starts from the environment it chooses */
static void clean_env(void)
{
	unsetenv("MNTKIT_BACKEND");
}

/* the backend a fresh process picks with MNTKIT_BACKEND=@env (NULL: unset) */
static char *backend_of_child(const char *env)
{
	static char out[64];
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	T_OK(pipe(pfd));
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		char *argv[] = {"test-backend", "--print-backend", NULL};

		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		if (env)
			setenv("MNTKIT_BACKEND", env, 1);
		else
			unsetenv("MNTKIT_BACKEND");
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], out, sizeof(out) - 1);
	close(pfd[0]);
	waitpid(pid, &st, 0);
	T_ASSERTF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x",
		  st);
	T_ASSERT(n > 0);
	out[n] = 0;
	out[strcspn(out, "\n")] = 0;
	return out;
}

/*
 * Run this program as @exe with "--print-backend" and the variables
 * @env ("NAME=VALUE", NULL-terminated) added; its stdout (the backend) into
 * @out, its stderr (the trace) into @err.
 */
static void run_child(const char *exe, const char *const *env, char *out,
		      size_t outlen, char *err, size_t errlen)
{
	int po[2], pe[2], st;
	ssize_t n;
	pid_t pid;

	T_OK(pipe(po));
	T_OK(pipe(pe));
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		char *argv[] = {"test-backend", "--print-backend", NULL};

		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		unsetenv("MNTKIT_BACKEND");
		unsetenv("MNTKIT_DEBUG");
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execv(exe, argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	waitpid(pid, &st, 0);
	n = read(po[0], out, outlen - 1);
	out[n > 0 ? n : 0] = 0;
	out[strcspn(out, "\n")] = 0;
	n = read(pe[0], err, errlen - 1);
	err[n > 0 ? n : 0] = 0;
	close(po[0]);
	close(pe[0]);
	T_ASSERTF(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "child status %#x, stderr: %s", st, err);
}

T_CASE(backend_names)
{
	T_EQ_STR(mntkit_backend_name(MNTKIT_BACKEND_AUTO), "auto");
	T_EQ_STR(mntkit_backend_name(MNTKIT_BACKEND_NATIVE), "native");
	T_EQ_STR(mntkit_backend_name(MNTKIT_BACKEND_MOUNTINFO), "mountinfo");
	T_NULL(mntkit_backend_name((enum mntkit_backend)3));
	T_NULL(mntkit_backend_name((enum mntkit_backend) - 1));
	T_NULL(mntkit_backend_name((enum mntkit_backend)100));
}

T_CASE(default_backend_is_native)
{
	clean_env();
	t_require_statmount();
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
}

/*
 * A caller without CAP_SYS_ADMIN in a chroot into a directory that is no
 * mount point (`chroot DIR` of a debootstrap'd tree): the mount that
 * holds its / has its mount point outside the root, and statmount(2)
 * refuses it (EPERM: not reachable); the mounts below the root are
 * answered. The native backend serves it, and its listing has them.
 */
T_CASE(native_unprivileged_in_chroot_subdir)
{
	struct t_req req = {.size = 24, .param = T_STATMOUNT_MNT_BASIC};
	uint64_t x, *ids;
	char buf[512], *d;
	ssize_t n;

	clean_env();
	t_require_statmount();
	t_private_ns();
	d = t_tmpdir();
	t_tmpfs(t_path("%s/r", d), 0, "mode=755");
	t_mkdir(t_path("%s/r/in", d));
	x = t_tmpfs(t_path("%s/r/in/x", d), 0, "mode=755");
	req.mnt_id = t_uid(t_path("%s/r/in", d));
	T_OK(chroot(t_path("%s/r/in", d)));
	T_OK(chdir("/"));
	T_OK(setgid(65534));
	T_OK(setuid(65534));
	if (t_sys_statmount(&req, buf, sizeof(buf), 0) == 0)
		t_log("statmount answers the mount that holds / here\n");
	else
		T_EQ_I(errno, EPERM);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	T_ASSERTF(n > 0, "mntkit_list: %s", strerror(errno));
	T_ASSERTF(t_contains_u64(ids, (size_t)n, x),
		  "the listing lacks /x (%#" PRIx64 ")", x);
	free(ids);
}

/* ---- features, probed independently ---- */

#define NS_MNT_GET_INFO_T _IOR(0xb7, 10, struct t_mnt_ns_info)

struct t_mnt_ns_info {
	uint32_t size;
	uint32_t nr_mounts;
	uint64_t mnt_ns_id;
};

static uint32_t my_probe(void)
{
	struct t_req req = {.size = 24, .mnt_id = T_LSMT_ROOT};
	struct statx stx;
	struct t_mnt_ns_info info = {.size = sizeof(info)};
	uint32_t f = 0;
	uint64_t id, nsid;
	int fd;
	char buf[1024];

	if (t_sys_listmount(&req, &id, 1, 0) >= 0)
		f |= MNTKIT_FEAT_LISTMOUNT;
	if (t_sys_listmount(&req, &id, 1, 1) >= 0)
		f |= MNTKIT_FEAT_LIST_REVERSE;
	memset(&stx, 0, sizeof(stx));
	if (statx(AT_FDCWD, "/", 0, T_STATX_MNT_ID_UNIQUE, &stx) == 0 &&
	    (stx.stx_mask & T_STATX_MNT_ID_UNIQUE))
		f |= MNTKIT_FEAT_STATX_UNIQUE;
	req.mnt_id = stx.stx_mnt_id;
	if (t_sys_statmount(&req, buf, sizeof(buf), 0) == 0) {
		f |= MNTKIT_FEAT_STATMOUNT;
		if (stx.stx_mnt_id > MNTKIT_MNT_UNIQUE_ID_OFFSET)
			f |= MNTKIT_FEAT_UNIQUE_IDS;
	}
	{
		/* name_to_handle_at(AT_HANDLE_MNT_ID_UNIQUE): a u64 ID */
		struct file_handle *h = t_xcalloc(1, sizeof(*h) + 128);
		uint64_t mid = 0;

		h->handle_bytes = 128;
		if (syscall(SYS_name_to_handle_at, AT_FDCWD, "/", h, &mid,
			    0x001) == 0 &&
		    mid == stx.stx_mnt_id)
			f |= MNTKIT_FEAT_HANDLE_UNIQUE;
		free(h);
	}
	fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	if (ioctl(fd, T_NS_GET_MNTNS_ID, &nsid) == 0) {
		f |= MNTKIT_FEAT_NS_ID;
		req.size = 32;
		req.mnt_ns_id = nsid;
		if (t_sys_statmount(&req, buf, sizeof(buf), 0) == 0)
			f |= MNTKIT_FEAT_REQ_NS_ID;
		req.mnt_ns_id = 0;
	}
	req.mnt_ns_fd = (uint32_t)fd;
	if (t_sys_statmount(&req, buf, sizeof(buf), 0) == 0)
		f |= MNTKIT_FEAT_REQ_NS_FD;
	if (ioctl(fd, NS_MNT_GET_INFO_T, &info) == 0)
		f |= MNTKIT_FEAT_NS_ITER;
	close(fd);
	/* STATMOUNT_BY_FD (7.0): the fd in mnt_ns_fd, flag 1 */
	fd = open("/", O_PATH | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	memset(&req, 0, sizeof(req));
	req.size = 24;
	req.mnt_ns_fd = (uint32_t)fd;
	req.param = 2;
	if (t_sys_statmount(&req, buf, sizeof(buf), 1) == 0)
		f |= MNTKIT_FEAT_STATMOUNT_BY_FD;
	close(fd);
	/* listns(2) (6.19): 470, a 32-byte request of CLONE_NEWNS */
	{
		struct {
			uint32_t size, spare;
			uint64_t ns_id;
			uint32_t ns_type, spare2;
			uint64_t user_ns_id;
		} lreq = { .size = 32, .ns_type = 0x20000 };
		uint64_t one;

		if (syscall(470, &lreq, &one, 1, 0) >= 0)
			f |= MNTKIT_FEAT_LISTNS;
	}
	fd = fanotify_init(FAN_CLASS_NOTIF | 0x4000 /* FAN_REPORT_MNT */,
			   O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		f |= MNTKIT_FEAT_FANOTIFY_MNT;
		close(fd);
	}
	return f;
}

static const struct {
	uint32_t bit;
	const char *name;
} feat_names[] = {
	{MNTKIT_FEAT_STATMOUNT, "STATMOUNT"},
	{MNTKIT_FEAT_LISTMOUNT, "LISTMOUNT"},
	{MNTKIT_FEAT_UNIQUE_IDS, "UNIQUE_IDS"},
	{MNTKIT_FEAT_STATX_UNIQUE, "STATX_UNIQUE"},
	{MNTKIT_FEAT_HANDLE_UNIQUE, "HANDLE_UNIQUE"},
	{MNTKIT_FEAT_NS_ID, "NS_ID"},
	{MNTKIT_FEAT_REQ_NS_ID, "REQ_NS_ID"},
	{MNTKIT_FEAT_REQ_NS_FD, "REQ_NS_FD"},
	{MNTKIT_FEAT_LIST_REVERSE, "LIST_REVERSE"},
	{MNTKIT_FEAT_FANOTIFY_MNT, "FANOTIFY_MNT"},
	{MNTKIT_FEAT_NS_ITER, "NS_ITER"},
	{MNTKIT_FEAT_STATMOUNT_BY_FD, "STATMOUNT_BY_FD"},
	{MNTKIT_FEAT_LISTNS, "LISTNS"},
};

T_CASE(feature_flags_match_probes)
{
	struct mntkit_features f;
	uint32_t mine;
	uint64_t k;

	clean_env();
	mine = my_probe(); /* on any kernel: all it has, or nothing */
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	T_EQ_I(mntkit_get_features(&f), 0);
	for (size_t i = 0; i < sizeof(feat_names) / sizeof(feat_names[0]); i++)
		T_ASSERTF((f.flags & feat_names[i].bit) ==
				  (mine & feat_names[i].bit),
			  "FEAT_%s: library %s, probe %s", feat_names[i].name,
			  f.flags & feat_names[i].bit ? "set" : "clear",
			  mine & feat_names[i].bit ? "set" : "clear");
	/* HYBRID: the library completes the replies of a kernel whose
	 * statmount lacks groups (6.8 - 6.17) */
	k = t_kernel_groups();
	T_EQ_U(!!(f.flags & MNTKIT_FEAT_HYBRID),
	       k && (k & MNTKIT_STATMOUNT_ALL) != MNTKIT_STATMOUNT_ALL);
	T_EQ_U(f.flags & ~0x3fffU, 0);
}

/*
 * What the native backend answers: every group on a kernel that has them
 * all; on one without some, the kernel's and the emulation's (all but the
 * idmaps, which mountinfo does not show)
 */
static uint64_t lib_groups(void)
{
	uint64_t k = t_kernel_groups();

	if ((k & MNTKIT_STATMOUNT_ALL) == MNTKIT_STATMOUNT_ALL)
		return MNTKIT_STATMOUNT_ALL;
	return (k | 0x1fffULL) & MNTKIT_STATMOUNT_ALL;
}

T_CASE(feature_flags_on_this_kernel)
{
	/* what every kernel with statmount has (6.8+) */
	const uint32_t need = MNTKIT_FEAT_STATMOUNT | MNTKIT_FEAT_LISTMOUNT |
			      MNTKIT_FEAT_UNIQUE_IDS |
			      MNTKIT_FEAT_STATX_UNIQUE;
	struct mntkit_features f;

	clean_env();
	t_require_statmount();
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	T_EQ_I(mntkit_get_features(&f), 0);
	T_ASSERTF((f.flags & need) == need, "flags %#x lack %#x", f.flags,
		  need & ~f.flags);
	T_EQ_I(f.backend, MNTKIT_BACKEND_NATIVE);
	/* the kernel's own groups; with the hybrid, the emulation's too */
	T_EQ_U(f.kernel_mask, t_kernel_groups());
	T_EQ_U(f.supported_mask, lib_groups());
	T_EQ_U(f.size, sizeof(f));
}

T_CASE(kernel_mask_is_kernels_supported_mask)
{
	struct mntkit_features f;
	struct mntkit_statmount *sm;

	clean_env();
	t_require_statmount();
	t_require_groups(MNTKIT_STATMOUNT_SUPPORTED_MASK,
			 "STATMOUNT_SUPPORTED_MASK");
	sm = t_sm(t_uid("/"), MNTKIT_STATMOUNT_SUPPORTED_MASK);
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	T_EQ_I(mntkit_get_features(&f), 0);
	T_ASSERT(sm->mask & MNTKIT_STATMOUNT_SUPPORTED_MASK);
	T_EQ_U(f.kernel_mask, sm->supported_mask);
	free(sm);
}

/*
 * The first struct (MNTKIT_FEATURES_SIZE_VER0) and anything larger: the
 * fields both know are written, a newer caller's tail is zeroed, the
 * caller's size never; anything smaller is refused with nothing written.
 */
T_CASE(features_sizes)
{
	const size_t ver0 = MNTKIT_FEATURES_SIZE_VER0;
	const size_t sizes[] = { ver0, sizeof(struct mntkit_features),
				 sizeof(struct mntkit_features) + 16 };
	struct mntkit_features full;
	unsigned char raw[sizeof(struct mntkit_features) + 32];
	struct mntkit_features *f = (void *)raw;

	clean_env();
	memset(&full, 0, sizeof(full));
	full.size = sizeof(full);
	T_EQ_I(mntkit_get_features(&full), 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(raw, 0xaa, sizeof(raw));
		f->size = sizes[i];
		T_EQ_I(mntkit_get_features(f), 0);
		T_EQ_U(f->size, sizes[i]);
		for (size_t b = sizeof(struct mntkit_features); b < sizes[i]; b++)
			T_ASSERTF(raw[b] == 0, "size %zu: byte %zu not zeroed",
				  sizes[i], b);
		for (size_t b = sizes[i]; b < sizeof(raw); b++)
			T_ASSERTF(raw[b] == 0xaa, "size %zu: byte %zu written",
				  sizes[i], b);
		/* what was written is the truth */
		T_EQ_I(f->backend, full.backend);
		T_EQ_U(f->flags, full.flags);
		T_EQ_U(f->supported_mask, full.supported_mask);
		T_EQ_U(f->kernel_mask, full.kernel_mask);
		T_EQ_U(f->emul_mask, full.emul_mask);
		T_EQ_U(f->refused, full.refused);
	}
	memset(raw, 0xaa, sizeof(raw));
	f->size = ver0 - 1;
	T_NEG(mntkit_get_features(f), EINVAL);
	for (size_t b = sizeof(f->size); b < sizeof(raw); b++)
		T_ASSERTF(raw[b] == 0xaa, "refused, but byte %zu written", b);
}

T_CASE(features_bad_args)
{
	struct mntkit_features f;

	clean_env();
	memset(&f, 0, sizeof(f));
	f.size = 0;
	T_NEG(mntkit_get_features(&f), EINVAL);
	/* f.size cannot even hold the size field */
	f.size = sizeof(f.size) - 1;
	T_NEG(mntkit_get_features(&f), EINVAL);
	T_ASSERT(mntkit_get_features(NULL) < 0);
}

/* ---- forcing ---- */

T_CASE(env_forces_backend)
{
	clean_env();
	t_require_statmount();
	T_EQ_STR(backend_of_child(NULL), "native");
	T_EQ_STR(backend_of_child("native"), "native");
	T_EQ_STR(backend_of_child("auto"), "native");
	T_EQ_STR(backend_of_child("mountinfo"), "mountinfo");
}

T_CASE(env_read_at_first_call)
{
	struct mntkit_features f;

	clean_env();
	t_require_statmount();
	setenv("MNTKIT_BACKEND", "mountinfo", 1);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	T_EQ_I(mntkit_get_features(&f), 0);
	T_EQ_I(f.backend, MNTKIT_BACKEND_MOUNTINFO);
	/* the kernel did not change */
	T_EQ_U(f.kernel_mask, t_kernel_groups());
	T_ASSERT(f.flags & MNTKIT_FEAT_STATMOUNT);
	T_EQ_U(f.supported_mask & ~MNTKIT_STATMOUNT_ALL, 0);
}

T_CASE(set_backend_overrides)
{
	clean_env();
	t_require_statmount();
	setenv("MNTKIT_BACKEND", "mountinfo", 1);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_NATIVE), 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	/* auto returns to probing */
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_AUTO), 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_NATIVE), 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
}

T_CASE(set_backend_bad_value)
{
	clean_env();
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	T_NEG(mntkit_set_backend((enum mntkit_backend)3), EINVAL);
	T_NEG(mntkit_set_backend((enum mntkit_backend) - 1), EINVAL);
	T_NEG(mntkit_set_backend((enum mntkit_backend)0x7fffffff), EINVAL);
	/* and nothing changed */
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
}

/* many threads make the first call at once: one answer for all */
struct first_use {
	pthread_barrier_t *go;
	enum mntkit_backend backend;
	struct mntkit_features f;
	ssize_t n;
	uint64_t first;
};

static void *first_use_thread(void *arg)
{
	struct first_use *u = arg;
	uint64_t *ids = NULL;

	pthread_barrier_wait(u->go);
	u->backend = mntkit_get_backend();
	u->n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	u->first = u->n > 0 ? ids[0] : 0;
	free(ids);
	u->f.size = sizeof(u->f);
	mntkit_get_features(&u->f);
	return NULL;
}

T_CASE(concurrent_first_use)
{
	enum { NT = 8 };
	pthread_barrier_t go;
	pthread_t th[NT];
	struct first_use u[NT];

	clean_env();
	t_require_statmount();
	memset(u, 0, sizeof(u));
	T_EQ_I(pthread_barrier_init(&go, NULL, NT), 0);
	for (int i = 0; i < NT; i++) {
		u[i].go = &go;
		T_EQ_I(pthread_create(&th[i], NULL, first_use_thread, &u[i]),
		       0);
	}
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < NT; i++) {
		T_EQ_I(u[i].backend, MNTKIT_BACKEND_NATIVE);
		T_ASSERT(u[i].n > 0);
		T_EQ_I(u[i].n, u[0].n);
		T_EQ_U(u[i].first, u[0].first);
		T_EQ_U(u[i].f.flags, u[0].f.flags);
		T_EQ_U(u[i].f.kernel_mask,
		       t_kernel_groups());
		T_EQ_U(u[i].f.supported_mask, lib_groups());
	}
	pthread_barrier_destroy(&go);
}

/* ---- the environment: one rule, secure_getenv ---- */

/* the lines of the trace, as a print callback gets them */
static char trace[16384];
static size_t trace_len;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;

static int capture(enum mntkit_print_level level, const char *fmt,
		   va_list ap)
{
	char line[512];
	int n;

	vsnprintf(line, sizeof(line), fmt, ap);
	pthread_mutex_lock(&trace_lock);
	n = snprintf(trace + trace_len, sizeof(trace) - trace_len, "%s: %s\n",
		     mntkit_print_level_name(level), line);
	if (n > 0 && (size_t)n < sizeof(trace) - trace_len)
		trace_len += (size_t)n;
	pthread_mutex_unlock(&trace_lock);
	return 0;
}

/*
 * MNTKIT_BACKEND=native where mntkit_set_backend(NATIVE) refuses (a filter
 * refuses statmount): the same answer, the variable is ignored (and the
 * trace says so), where before the library forced a backend that fails
 * every call.
 */
T_CASE(env_native_follows_set_backend_rule)
{
	struct t_refusal r[] = { { "statmount", ENOSYS } };
	uint64_t *ids = NULL;

	clean_env();
	t_require_statmount();
	if (t_seccomp_refuse(r, 1) < 0) {
		if (errno == ENOTSUP)
			t_skip("no seccomp filter for this architecture");
		t_fail("seccomp filter: %s", strerror(errno));
	}
	mntkit_set_print(capture);
	setenv("MNTKIT_BACKEND", "native", 1);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_ASSERT(mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids) > 0);
	free(ids);
	T_NEG(mntkit_set_backend(MNTKIT_BACKEND_NATIVE), ENOSYS);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_ASSERTF(strstr(trace, "warn: MNTKIT_BACKEND=native") != NULL,
		  "trace: %s", trace);
	T_ASSERTF(strstr(trace, "warn: statmount refused") != NULL,
		  "trace: %s", trace);
}

T_CASE(env_unknown_backend_ignored)
{
	clean_env();
	t_require_statmount();
	mntkit_set_print(capture);
	setenv("MNTKIT_BACKEND", "nativ", 1);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	T_ASSERTF(strstr(trace, "warn: MNTKIT_BACKEND=nativ: no such") != NULL,
		  "trace: %s", trace);
}

/*
 * A setuid program reads none of the variables (secure_getenv): this
 * program, copied setuid to nobody and run by root, takes the native
 * backend although MNTKIT_BACKEND says mountinfo, and writes no trace
 * although MNTKIT_DEBUG asks for one.
 */
T_CASE(setuid_ignores_env)
{
	static const char *const env[] = { "MNTKIT_BACKEND=mountinfo",
					   "MNTKIT_DEBUG=debug", NULL };
	char dir[] = "/tmp/mntkit-suid.XXXXXX", exe[64], out[64], err[4096];
	struct statvfs sv;
	int in, fd;
	char buf[65536];
	ssize_t n;

	clean_env();
	t_require_statmount();
	if (geteuid() != 0)
		t_skip("needs root to make a setuid copy (euid %u)",
		       (unsigned int)geteuid());
	T_ASSERT(mkdtemp(dir) != NULL);
	T_OK(chmod(dir, 0755));
	T_OK(statvfs(dir, &sv));
	if (sv.f_flag & ST_NOSUID) {
		rmdir(dir);
		t_skip("/tmp is mounted nosuid");
	}
	snprintf(exe, sizeof(exe), "%s/test-backend", dir);
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	fd = open(exe, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	T_ASSERT(in >= 0 && fd >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		T_ASSERT(write(fd, buf, (size_t)n) == n);
	close(in);
	close(fd);
	T_OK(chown(exe, 65534, 65534));
	T_OK(chmod(exe, 04755));
	/* the copy, not setuid: it reads the variables */
	run_child("/proc/self/exe", env, out, sizeof(out), err, sizeof(err));
	T_EQ_STR(out, "mountinfo");
	T_ASSERTF(strstr(err, "mntkit: info: MNTKIT_BACKEND=mountinfo\n"),
		  "no trace on stderr: '%s'", err);
	/* setuid: it does not */
	run_child(exe, env, out, sizeof(out), err, sizeof(err));
	unlink(exe);
	rmdir(dir);
	T_EQ_STR(out, "native");
	T_EQ_STR(err, "");
}

/* ---- the debug trace ---- */

T_CASE(set_print_returns_previous)
{
	mntkit_print_fn def = mntkit_set_print(capture);

	T_ASSERT(def != NULL); /* the stderr printer */
	T_ASSERT(mntkit_set_print(NULL) == capture);
	T_ASSERT(mntkit_set_print(def) == NULL);
	T_EQ_STR(mntkit_print_level_name(MNTKIT_PRINT_WARN), "warn");
	T_EQ_STR(mntkit_print_level_name(MNTKIT_PRINT_INFO), "info");
	T_EQ_STR(mntkit_print_level_name(MNTKIT_PRINT_DEBUG), "debug");
	T_NULL(mntkit_print_level_name((enum mntkit_print_level)3));
}

T_CASE(trace_backend_choice)
{
	clean_env();
	t_require_statmount();
	mntkit_set_print(capture);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	T_ASSERTF(strstr(trace, "info: auto backend: native") != NULL,
		  "trace: %s", trace);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	T_ASSERTF(strstr(trace, "info: backend set to mountinfo") != NULL,
		  "trace: %s", trace);
	/* NULL: nowhere */
	mntkit_set_print(NULL);
	trace_len = 0;
	trace[0] = 0;
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_NATIVE), 0);
	T_EQ_STR(trace, "");
}

/*
 * A kernel whose statmount lacks groups (MNTKIT_TEST_KERNEL_MASK): the
 * probe reports the hybrid, and each reply completed by the emulation
 * says which groups came from where.
 */
T_CASE(trace_hybrid_replies)
{
	struct mntkit_statmount *sm = NULL;
	char want[128];
	uint64_t root;

	clean_env();
	t_require_statmount();
	setenv("MNTKIT_TEST_KERNEL_MASK", "0x3f", 1);
	mntkit_set_print(capture);
	T_EQ_I(mntkit_root_id(0, NULL, &root), 0);
	T_EQ_I(mntkit_stat(root, MNTKIT_STATMOUNT_MNT_BASIC |
				   MNTKIT_STATMOUNT_SB_SOURCE,
			   NULL, &sm),
	       0);
	free(sm);
	T_ASSERTF(strstr(trace, "info: hybrid: the native backend takes") !=
			  NULL,
		  "trace: %s", trace);
	snprintf(want, sizeof(want),
		 "debug: hybrid reply for mount %#" PRIx64 ": groups %#x from "
		 "the kernel, %#x from the emulation",
		 root, (unsigned int)MNTKIT_STATMOUNT_MNT_BASIC,
		 (unsigned int)MNTKIT_STATMOUNT_SB_SOURCE);
	T_ASSERTF(strstr(trace, want) != NULL, "no '%s' in trace: %s", want,
		  trace);
}

/* MNTKIT_DEBUG=LEVEL: the default printer writes to stderr */
T_CASE(debug_env_to_stderr)
{
	static const char *const info[] = { "MNTKIT_DEBUG=info", NULL };
	static const char *const warn[] = { "MNTKIT_DEBUG=1", NULL };
	char out[64], err[4096];

	clean_env();
	t_require_statmount();
	run_child("/proc/self/exe", NULL, out, sizeof(out), err, sizeof(err));
	T_EQ_STR(out, "native");
	T_EQ_STR(err, "");
	run_child("/proc/self/exe", info, out, sizeof(out), err, sizeof(err));
	T_ASSERTF(strstr(err, "mntkit: info: auto backend: native (") != NULL,
		  "stderr: '%s'", err);
	/* warn shows no info line */
	run_child("/proc/self/exe", warn, out, sizeof(out), err, sizeof(err));
	T_EQ_STR(err, "");
}

/*
 * mntkit_set_backend() while other threads take snapshots, list and start
 * watches: each call runs on one backend from start to end, so none fails
 * (before, a call that met the switch halfway mixed the two backends'
 * answers and failed with EINVAL: 191 errors in 8 s).
 */
struct switch_race {
	_Atomic int stop;
	_Atomic long calls, errors, switches;
	_Atomic int last_err;
	_Atomic int which;
};

static void *race_caller(void *arg)
{
	struct switch_race *r = arg;
	int which = r->which++ % 3;

	while (!r->stop) {
		struct mntkit_table *t = NULL;
		struct mntkit_watch *w = NULL;
		uint64_t *ids = NULL;
		long ret;
		MNTKIT_WATCH_OPTS(wo, .source = MNTKIT_WATCH_POLL,
				  .mask = MNTKIT_STATMOUNT_MNT_BASIC);

		if (which == 0) {
			ret = mntkit_table_new(MNTKIT_STATMOUNT_MNT_POINT, 0,
					       NULL, &t);
			mntkit_table_free(t);
		} else if (which == 1) {
			ret = mntkit_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE,
					  NULL, &ids);
			free(ids);
		} else {
			ret = mntkit_watch_new(&wo, NULL, &w);
			mntkit_watch_free(w);
		}
		r->calls++;
		if (ret < 0) {
			r->errors++;
			r->last_err = (int)-ret;
		}
	}
	return NULL;
}

static void *race_switcher(void *arg)
{
	struct switch_race *r = arg;
	static const enum mntkit_backend seq[] = {
		MNTKIT_BACKEND_NATIVE, MNTKIT_BACKEND_MOUNTINFO,
		MNTKIT_BACKEND_AUTO, MNTKIT_BACKEND_MOUNTINFO,
	};

	for (unsigned int i = 0; !r->stop; i++) {
		if (mntkit_set_backend(seq[i % 4]) == 0)
			r->switches++;
		usleep(200);
	}
	return NULL;
}

T_CASE(set_backend_while_others_call)
{
	enum { NCALLERS = 3 };
	struct switch_race r;
	pthread_t callers[NCALLERS], sw;

	clean_env();
	t_require_statmount();
	memset(&r, 0, sizeof(r));
	for (int i = 0; i < NCALLERS; i++)
		T_EQ_I(pthread_create(&callers[i], NULL, race_caller, &r), 0);
	T_EQ_I(pthread_create(&sw, NULL, race_switcher, &r), 0);
	/* until every caller has met many switches (or 20 s) */
	for (int ms = 0; ms < 20000 && (r.calls < 600 || r.switches < 600);
	     ms += 10)
		usleep(10000);
	r.stop = 1;
	for (int i = 0; i < NCALLERS; i++)
		pthread_join(callers[i], NULL);
	pthread_join(sw, NULL);
	t_log("%ld calls, %ld backend switches, %ld errors\n", (long)r.calls,
	      (long)r.switches, (long)r.errors);
	T_ASSERT(r.switches > 0 && r.calls > 0);
	T_ASSERTF(r.errors == 0, "%ld of %ld calls failed (last: %s)",
		  (long)r.errors, (long)r.calls, strerror(r.last_err));
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--print-backend")) {
		const char *n = mntkit_backend_name(mntkit_get_backend());
		uid_t eu = geteuid();

		/*
		 * A setuid copy (setuid_ignores_env): LeakSanitizer, under
		 * ASan, must ptrace the process at exit, which it may only
		 * with one uid and dumpable. The library has read its
		 * environment by now.
		 */
		if (eu != getuid() && (setresuid(eu, eu, eu) ||
				       prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)))
			return 1;

		printf("%s\n", n ? n : "(null)");
		return 0;
	}
	return t_run(argc, argv);
}
