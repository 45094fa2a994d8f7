/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-statfd - statmount(2)'s STATMOUNT_BY_FD (Linux 7.0) through
 * mntkit_statmount() and mntkit_stat_fd() on both backends, against the
 * library's own answer by mount ID and, where the kernel has the flag,
 * against the raw system call; and the cut of the empty MNT_OPTS /
 * MNT_POINT strings of 6.8 - 6.12 (native replies look like 6.18's).
 * Expectations come from the running kernel: whether it has the flag is
 * asked of the raw call.
 */
#include <mntkit.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "harness.h"
#include "tree.h"

#define BY_FD MNTKIT_STATMOUNT_BY_FD
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* does the running kernel have STATMOUNT_BY_FD? (raw call) */
static int kernel_by_fd(void)
{
	struct t_req req = { .size = 24, .param = T_STATMOUNT_MNT_BASIC };
	char buf[512];
	int fd = open("/", O_PATH | O_CLOEXEC), ok;

	T_ASSERT(fd >= 0);
	req.mnt_ns_fd = (uint32_t)fd;
	ok = t_sys_statmount(&req, buf, sizeof(buf), BY_FD) == 0;
	close(fd);
	return ok;
}

/* switch to @b; 0 when this kernel cannot have it */
static int use_backend(enum mntkit_backend b)
{
	int ret = mntkit_set_backend(b);

	if (ret == -ENOSYS)
		return 0;
	T_EQ_I(ret, 0);
	return 1;
}

static const enum mntkit_backend backends[] = {
	MNTKIT_BACKEND_NATIVE,
	MNTKIT_BACKEND_MOUNTINFO,
};

/* the reply by fd equals the reply by the ID the backend gives the path */
static void same_as_by_id(const char *path, uint64_t mask)
{
	struct mntkit_statmount *a, *b;
	uint64_t id;
	int fd = open(path, O_PATH | O_CLOEXEC);

	T_ASSERTF(fd >= 0, "open %s: %s", path, strerror(errno));
	T_EQ_I(mntkit_path_id(AT_FDCWD, path, 0, &id), 0);
	T_EQ_I(mntkit_stat_fd(fd, mask, &a), 0);
	T_EQ_I(mntkit_stat(id, mask, NULL, &b), 0);
	T_EQ_U(a->mnt_id, id);
	T_EQ_U(a->size, b->size);
	T_ASSERTF(!memcmp(a, b, a->size), "%s (mask %#" PRIx64
		  ", %s): the reply by fd differs from the one by ID", path,
		  mask, mntkit_backend_name(mntkit_get_backend()));
	free(a);
	free(b);
	close(fd);
}

T_CASE(stat_fd_mounted)
{
	static const uint64_t masks[] = {
		MNTKIT_STATMOUNT_MNT_BASIC,
		MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_BASIC |
			MNTKIT_STATMOUNT_MNT_POINT | MNTKIT_STATMOUNT_FS_TYPE,
		MNTKIT_STATMOUNT_ALL,
	};
	struct t_tree t;

	t_private_ns();
	t_tree_build(&t);
	for (size_t b = 0; b < NELEM(backends); b++) {
		if (!use_backend(backends[b]))
			continue;
		for (size_t m = 0; m < NELEM(masks); m++) {
			/* / where mountinfo shows its mount (not in a chroot
			 * into a plain directory: the emulation knows only
			 * what mountinfo shows) */
			if (t_root_in_mountinfo())
				same_as_by_id("/", masks[m]);
			same_as_by_id("/proc", masks[m]);
			same_as_by_id(t.path[T_A], masks[m]);
			same_as_by_id(t.path[T_RO], masks[m]);
		}
	}
}

/* the raw kernel's answer to a BY_FD request, where it has the flag */
static int raw_errno(const struct mntkit_mnt_id_req *req, unsigned int flags)
{
	char buf[4096];

	return t_sys_statmount(req, buf, sizeof(buf), flags) ? errno : 0;
}

static int lib_errno(const struct mntkit_mnt_id_req *req, unsigned int flags)
{
	char buf[4096];

	return mntkit_statmount(req, (void *)buf, sizeof(buf), flags) ? errno :
									 0;
}

T_CASE(stat_fd_errors)
{
	struct mntkit_mnt_id_req req;
	int kernel = kernel_by_fd(), fd, nsfd, closed;
	struct mntkit_statmount *sm = NULL;
	struct {
		const char *what;
		uint32_t size;
		int fd;
		uint64_t mnt_id, mnt_ns_id;
		unsigned int flags;
		int err; /* 7.2's answer */
	} c[8];
	size_t n = 0;

	/* /proc: a mount that mountinfo shows (that of / is not there in a
	 * chroot into a plain directory) */
	fd = open("/proc", O_PATH | O_CLOEXEC);
	nsfd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	/* an fd number nothing has (the library's own fds stay low) */
	closed = 1000;
	T_ASSERT(fd >= 0 && nsfd >= 0 && fcntl(closed, F_GETFD) < 0);
#define C(w, sz, f, id, ns, fl, e)                                             \
	c[n++] = (typeof(c[0])){ w, sz, f, id, ns, fl, e }
	C("good", 24, fd, 0, 0, BY_FD, 0);
	C("VER1", 32, fd, 0, 0, BY_FD, 0);
	C("mnt_id set", 24, fd, t_uid("/proc"), 0, BY_FD, EINVAL);
	C("mnt_ns_id set", 32, fd, 0, 1 /* checked before it is looked up */, BY_FD,
	  EINVAL);
	C("closed fd", 24, closed, 0, 0, BY_FD, EBADF);
	C("unknown flag", 24, fd, 0, 0, BY_FD | 2, EINVAL);
	C("size 16", 16, fd, 0, 0, BY_FD, EINVAL);
	C("nsfs fd", 24, nsfd, 0, 0, BY_FD, EINVAL);
#undef C
	for (size_t b = 0; b < NELEM(backends); b++) {
		if (!use_backend(backends[b]))
			continue;
		for (size_t k = 0; k < n; k++) {
			int want = c[k].err, got;

			memset(&req, 0, sizeof(req));
			req.size = c[k].size;
			req.mnt_ns_fd = (uint32_t)c[k].fd;
			req.mnt_id = c[k].mnt_id;
			req.param = MNTKIT_STATMOUNT_MNT_BASIC;
			req.mnt_ns_id = c[k].mnt_ns_id;
			if (kernel)
				T_EQ_I(raw_errno(&req, c[k].flags), want);
			got = lib_errno(&req, c[k].flags);
			T_ASSERTF(got == want, "%s (%s): %s, the kernel's is %s",
				  c[k].what, mntkit_backend_name(mntkit_get_backend()),
				  strerror(got), strerror(want));
		}
		T_NEG(mntkit_stat_fd(closed, MNTKIT_STATMOUNT_MNT_BASIC, &sm),
		      EBADF);
		T_NULL(sm);
		T_NEG(mntkit_stat_fd(-1, MNTKIT_STATMOUNT_MNT_BASIC, &sm), EBADF);
		T_NEG(mntkit_stat_fd(nsfd, MNTKIT_STATMOUNT_MNT_BASIC, &sm),
		      EINVAL);
		T_NEG(mntkit_stat_fd(fd, MNTKIT_STATMOUNT_MNT_BASIC, NULL),
		      EINVAL);
	}
	close(fd);
	close(nsfd);
}

/*
 * A mount detached with umount2(MNT_DETACH) while an fd keeps it: 7.0+
 * answers without MNT_POINT and MNT_NS_ID (the mount is in no
 * namespace); before, the library finds no such mount (ENOENT).
 */
T_CASE(stat_fd_detached)
{
	int kernel = kernel_by_fd();
	struct mntkit_statmount *sm;
	char *dir;
	int fd;

	t_private_ns();
	dir = t_tmpdir();
	T_OK(mount("mntkit-detached", dir, "tmpfs", 0, "size=1m"));
	fd = open(dir, O_PATH | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	T_OK(umount2(dir, MNT_DETACH));
	for (size_t b = 0; b < NELEM(backends); b++) {
		if (!use_backend(backends[b]))
			continue;
		if (!kernel || backends[b] == MNTKIT_BACKEND_MOUNTINFO) {
			T_NEG(mntkit_stat_fd(fd, MNTKIT_STATMOUNT_ALL, &sm),
			      ENOENT);
			continue;
		}
		T_EQ_I(mntkit_stat_fd(fd, MNTKIT_STATMOUNT_ALL, &sm), 0);
		T_ASSERT(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC);
		T_ASSERT(!(sm->mask & MNTKIT_STATMOUNT_MNT_POINT));
		T_ASSERT(!(sm->mask & MNTKIT_STATMOUNT_MNT_NS_ID));
		T_EQ_U(sm->mnt_parent_id, sm->mnt_id);
		free(sm);
	}
	close(fd);
}

/* no group of a native reply is an empty MNT_OPTS or MNT_POINT string */
static void no_empty_strings(uint64_t id, uint64_t mask, const char *what)
{
	struct mntkit_statmount *sm, *big;
	const char *s;
	size_t size;

	T_EQ_I(mntkit_stat(id, mask, NULL, &sm), 0);
	if (sm->mask & MNTKIT_STATMOUNT_MNT_OPTS) {
		T_EQ_I(mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_OPTS, &s), 0);
		T_ASSERTF(*s, "%s: MNT_OPTS is an empty string", what);
	}
	if (sm->mask & MNTKIT_STATMOUNT_MNT_POINT) {
		T_EQ_I(mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &s),
		       0);
		T_ASSERTF(*s, "%s: MNT_POINT is an empty string", what);
	}
	/* the exact size fits, one byte less does not */
	size = sm->size;
	if (size > MNTKIT_STATMOUNT_FIXED_SIZE) {
		struct mntkit_mnt_id_req req = {
			.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
			.mnt_id = id,
			.param = mask,
		};

		big = t_xcalloc(1, size);
		T_OK(mntkit_statmount(&req, big, size, 0));
		T_EQ_U(big->size, size);
		T_ASSERT(!memcmp(big, sm, size));
		T_ERRNO(mntkit_statmount(&req, big, size - 1, 0), EOVERFLOW);
		free(big);
	}
	free(sm);
}

T_CASE(native_no_empty_strings)
{
	static const uint64_t masks[] = {
		MNTKIT_STATMOUNT_MNT_POINT | MNTKIT_STATMOUNT_MNT_OPTS,
		0xff, /* what 6.12's statmount has */
		MNTKIT_STATMOUNT_ALL,
	};
	uint64_t proc, top;
	struct mntkit_features f = { .size = sizeof(f) };
	char *dir;
	pid_t pid;
	int st;

	t_require_statmount();
	t_private_ns();
	proc = t_uid("/proc");
	top = t_true_root();
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_NATIVE), 0);
	T_EQ_I(mntkit_get_features(&f), 0); /* the probes, before chroot */
	for (size_t m = 0; m < NELEM(masks); m++)
		no_empty_strings(proc, masks[m], "/proc");
	/* a mount outside the caller's root: no MNT_POINT at all */
	dir = t_tmpdir();
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		struct mntkit_statmount *sm;

		T_OK(chroot(dir));
		for (size_t m = 0; m < NELEM(masks); m++) {
			no_empty_strings(top, masks[m], "outside the root");
			T_EQ_I(mntkit_stat(top, masks[m], NULL, &sm), 0);
			T_ASSERTF(!(sm->mask & MNTKIT_STATMOUNT_MNT_POINT),
				  "mask %#" PRIx64 ": MNT_POINT of a mount "
				  "outside the root", masks[m]);
			free(sm);
		}
		_exit(0);
	}
	T_ASSERT(waitpid(pid, &st, 0) == pid);
	T_ASSERTF(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "the chroot'ed child failed (status %#x)", st);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
