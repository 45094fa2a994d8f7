/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-backend - backend choice (probe, MNTKIT_BACKEND, mntkit_set_backend)
 * and mntkit_get_features() against the kernel's features probed here
 * independently with the raw system calls.
 */
#include <pthread.h>
#include <sys/fanotify.h>

#include <mntkit.h>

#include "harness.h"

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
	T_EQ_I(mntkit_backend(), MNTKIT_BACKEND_NATIVE);
	T_EQ_I(mntkit_backend(), MNTKIT_BACKEND_NATIVE);
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

T_CASE(features_prefix_only)
{
	const size_t sizes[] = {
		sizeof(size_t),
		offsetof(struct mntkit_features, flags),
		offsetof(struct mntkit_features, supported_mask),
		offsetof(struct mntkit_features, kernel_mask),
	};
	struct mntkit_features full;

	clean_env();
	memset(&full, 0, sizeof(full));
	full.size = sizeof(full);
	T_EQ_I(mntkit_get_features(&full), 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char raw[sizeof(struct mntkit_features) + 16];
		struct mntkit_features *f = (void *)raw;

		memset(raw, 0xaa, sizeof(raw));
		f->size = sizes[i];
		T_EQ_I(mntkit_get_features(f), 0);
		T_EQ_U(f->size, sizes[i]);
		for (size_t b = sizes[i]; b < sizeof(raw); b++)
			T_ASSERTF(raw[b] == 0xaa, "size %zu: byte %zu written",
				  sizes[i], b);
		/* what was written is the truth */
		if (sizes[i] > offsetof(struct mntkit_features, backend))
			T_EQ_I(f->backend, full.backend);
		if (sizes[i] > offsetof(struct mntkit_features, flags))
			T_EQ_U(f->flags, full.flags);
		if (sizes[i] > offsetof(struct mntkit_features, supported_mask))
			T_EQ_U(f->supported_mask, full.supported_mask);
	}
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
	T_EQ_I(mntkit_backend(), MNTKIT_BACKEND_MOUNTINFO);
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
	T_EQ_I(mntkit_backend(), MNTKIT_BACKEND_NATIVE);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	T_EQ_I(mntkit_backend(), MNTKIT_BACKEND_MOUNTINFO);
	/* auto returns to probing */
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_AUTO), 0);
	T_EQ_I(mntkit_backend(), MNTKIT_BACKEND_NATIVE);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	T_EQ_I(mntkit_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_NATIVE), 0);
	T_EQ_I(mntkit_backend(), MNTKIT_BACKEND_NATIVE);
}

T_CASE(set_backend_bad_value)
{
	clean_env();
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	T_NEG(mntkit_set_backend((enum mntkit_backend)3), EINVAL);
	T_NEG(mntkit_set_backend((enum mntkit_backend) - 1), EINVAL);
	T_NEG(mntkit_set_backend((enum mntkit_backend)0x7fffffff), EINVAL);
	/* and nothing changed */
	T_EQ_I(mntkit_backend(), MNTKIT_BACKEND_MOUNTINFO);
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
	u->backend = mntkit_backend();
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

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--print-backend")) {
		const char *n = mntkit_backend_name(mntkit_backend());

		printf("%s\n", n ? n : "(null)");
		return 0;
	}
	return t_run(argc, argv);
}
