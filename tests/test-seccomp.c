/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-seccomp - the library under seccomp filters that refuse the system
 * calls it makes (tests/seccomp.h): each refusal gives a working fallback
 * or a clear failure, and mntkit_get_features()/mntkit_refused() say
 * which calls are refused.
 *
 * Every case installs its filter in its own forked child (the harness
 * forks one per case), after it has taken what it compares with from the
 * kernel through raw calls and /proc. The filters answer one errno for
 * every input, as container runtimes' profiles do (EPERM: Docker, podman;
 * ENOSYS: older runc; EINVAL, EACCES: some profiles).
 *
 * The asserts on mntkit_refused() and features.refused are left out when
 * the header has no MNTKIT_REFUSED_* (so this program also builds against
 * the library before them, and shows which fallbacks were missing).
 */
#include <poll.h>
#include <sys/fanotify.h>
#include <grp.h>
#include <sys/mount.h>

#include <mntkit.h>

#include "harness.h"
#include "seccomp.h"

#ifdef MNTKIT_REFUSED_STATMOUNT
#define T_HAVE_REFUSED 1
#else /* an older header: the cases still run, without those asserts */
#define MNTKIT_REFUSED_STATMOUNT 0x0001U
#define MNTKIT_REFUSED_LISTMOUNT 0x0002U
#define MNTKIT_REFUSED_STATX	 0x0004U
#define MNTKIT_REFUSED_HANDLE	 0x0008U
#define MNTKIT_REFUSED_NS_IOCTL	 0x0010U
#define MNTKIT_REFUSED_FANOTIFY	 0x0020U
#define MNTKIT_REFUSED_EPOLL	 0x0040U
#endif

static void refuse(const char *a, int ea, const char *b, int eb,
		   const char *c, int ec)
{
	struct t_refusal r[3];
	size_t n = 0;

	if (a)
		r[n++] = (struct t_refusal){ a, ea };
	if (b)
		r[n++] = (struct t_refusal){ b, eb };
	if (c)
		r[n++] = (struct t_refusal){ c, ec };
	if (t_seccomp_refuse(r, n) < 0) {
		if (errno == ENOTSUP)
			t_skip("no seccomp filter for this architecture");
		t_fail("seccomp filter: %s", strerror(errno));
	}
}

static uint32_t refused_mask(void)
{
	struct mntkit_features f;

	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	T_EQ_I(mntkit_get_features(&f), 0);
#ifdef T_HAVE_REFUSED
	return f.refused;
#else
	return 0;
#endif
}

static uint32_t feature_flags(void)
{
	struct mntkit_features f;

	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	T_EQ_I(mntkit_get_features(&f), 0);
	return f.flags;
}

#ifdef T_HAVE_REFUSED
#define EXPECT_REFUSED(call, err)                                              \
	do {                                                                   \
		const char *name_ = NULL;                                      \
		T_EQ_I(mntkit_refused((call), &name_), (err));                 \
		T_ASSERT(name_ != NULL);                                       \
		T_ASSERTF(refused_mask() & (call), "refused %#x lacks %#x",    \
			  refused_mask(), (unsigned int)(call));               \
	} while (0)
#define EXPECT_ALLOWED(call)                                                   \
	do {                                                                   \
		T_EQ_I(mntkit_refused((call), NULL), 0);                       \
		T_ASSERTF(!(refused_mask() & (call)), "refused %#x has %#x",   \
			  refused_mask(), (unsigned int)(call));               \
	} while (0)
#else
#define EXPECT_REFUSED(call, err) ((void)0)
#define EXPECT_ALLOWED(call)	  ((void)0)
#endif

/* is @id among the kernel's IDs @kv (n of them)? */
static int in_ids(const uint64_t *kv, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (kv[i] == id)
			return 1;
	return 0;
}

/*
 * The listing through the library equals mountinfo's (@mi, read before the
 * filter), and every ID it gives is one the library answers statmount for
 * with that very ID: a unique ID the kernel listed (@kv) or an old one of
 * mountinfo (a mount the emulation could not prove, or statx refused).
 */
static void expect_coherent_listing(const struct t_mitab *mi,
				    const uint64_t *kv, size_t kn)
{
	struct mntkit_statmount *sm = NULL;
	uint64_t *ids = NULL;
	ssize_t n;

	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	T_ASSERTF(n >= 0, "mntkit_list: %s", strerror((int)-n));
	T_EQ_U((size_t)n, mi->n);
	for (ssize_t i = 0; i < n; i++) {
		int found = 0;

		T_ASSERTF(ids[i] <= MNTKIT_MNT_UNIQUE_ID_OFFSET ||
				  in_ids(kv, kn, ids[i]),
			  "ID %#" PRIx64 " is neither the kernel's nor old",
			  ids[i]);
		T_EQ_I(mntkit_stat(ids[i], MNTKIT_STATMOUNT_MNT_BASIC |
						   MNTKIT_STATMOUNT_MNT_POINT,
				   NULL, &sm),
		       0);
		T_EQ_U(sm->mnt_id, ids[i]);
		for (size_t j = 0; j < mi->n; j++)
			if (mi->v[j].id == sm->mnt_id_old &&
			    !strcmp(mi->v[j].point,
				    sm->str + sm->mnt_point))
				found = 1;
		T_ASSERTF(found, "mount %#" PRIx64 " (%s) not in mountinfo",
			  ids[i], sm->str + sm->mnt_point);
		free(sm);
		sm = NULL;
	}
	free(ids);
}

/* both calls refused with @err: the emulation serves both */
static void both_refused(int err)
{
	struct t_mitab mi;
	uint64_t *kv;
	size_t kn;

	t_require_statmount();
	kn = t_lm(T_LSMT_ROOT, 0, &kv);
	t_mi_read(0, &mi);
	refuse("statmount", err, "listmount", err, NULL, 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_EQ_U(feature_flags() &
		       (MNTKIT_FEAT_STATMOUNT | MNTKIT_FEAT_LISTMOUNT),
	       0);
	EXPECT_REFUSED(MNTKIT_REFUSED_STATMOUNT, err);
	EXPECT_REFUSED(MNTKIT_REFUSED_LISTMOUNT, err);
	expect_coherent_listing(&mi, kv, kn);
	t_mi_free(&mi);
	free(kv);
}

T_CASE(both_refused_enosys) { both_refused(ENOSYS); }
T_CASE(both_refused_eperm) { both_refused(EPERM); }
T_CASE(both_refused_einval) { both_refused(EINVAL); }
T_CASE(both_refused_eacces) { both_refused(EACCES); }

/* one call refused: still the emulation for both (IDs of one kind) */
static void one_refused(const char *call, uint32_t bit, uint32_t other,
			int err)
{
	struct t_mitab mi;
	uint64_t *kv;
	size_t kn;

	t_require_statmount();
	kn = t_lm(T_LSMT_ROOT, 0, &kv);
	t_mi_read(0, &mi);
	refuse(call, err, NULL, 0, NULL, 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	EXPECT_REFUSED(bit, err);
	EXPECT_ALLOWED(other);
	(void)bit;
	(void)other;
	expect_coherent_listing(&mi, kv, kn);
	t_mi_free(&mi);
	free(kv);
}

T_CASE(statmount_refused_einval)
{
	one_refused("statmount", MNTKIT_REFUSED_STATMOUNT,
		    MNTKIT_REFUSED_LISTMOUNT, EINVAL);
}

T_CASE(statmount_refused_eperm)
{
	one_refused("statmount", MNTKIT_REFUSED_STATMOUNT,
		    MNTKIT_REFUSED_LISTMOUNT, EPERM);
}

T_CASE(listmount_refused_einval)
{
	one_refused("listmount", MNTKIT_REFUSED_LISTMOUNT,
		    MNTKIT_REFUSED_STATMOUNT, EINVAL);
}

T_CASE(listmount_refused_eacces)
{
	one_refused("listmount", MNTKIT_REFUSED_LISTMOUNT,
		    MNTKIT_REFUSED_STATMOUNT, EACCES);
}

/*
 * EPERM for a real reason: a process without CAP_SYS_ADMIN gets EPERM
 * from fanotify and for mounts outside its root, and must keep the
 * native backend and see nothing refused.
 */
T_CASE(unprivileged_is_not_refused)
{
	t_require_root();
	t_require_statmount();
	T_OK(setgroups(0, NULL));
	T_OK(setresgid(65534, 65534, 65534));
	T_OK(setresuid(65534, 65534, 65534));
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	T_EQ_U(refused_mask(), 0);
}

/* ... but the same process under a filter that refuses fanotify_init */
T_CASE(unprivileged_fanotify_refused)
{
	t_require_root();
	t_require_statmount();
	T_OK(setgroups(0, NULL));
	T_OK(setresgid(65534, 65534, 65534));
	T_OK(setresuid(65534, 65534, 65534));
	refuse("fanotify_init", EPERM, NULL, 0, NULL, 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	EXPECT_REFUSED(MNTKIT_REFUSED_FANOTIFY, EPERM);
	T_EQ_U(refused_mask() & ~MNTKIT_REFUSED_FANOTIFY, 0);
}

/* statx refused: path lookups by name_to_handle_at or fdinfo */
static void statx_refused(int err, const char *also, int also_err)
{
	uint64_t want_proc, want_root, id = 0;
	/* the mount of / is one mountinfo shows (not in a chroot into a
	 * plain directory: then the fallbacks cannot name it by its
	 * unique ID, which mountinfo gives them) */
	int root_shown = t_root_in_mountinfo();

	t_require_statmount();
	t_require_unique_ids();
	want_proc = t_uid("/proc");
	want_root = t_uid("/");
	refuse("statx", err, also, also_err, NULL, 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	EXPECT_REFUSED(MNTKIT_REFUSED_STATX, err);
	T_EQ_I(mntkit_path_id(AT_FDCWD, "/proc", 0, &id), 0);
	T_EQ_U(id, want_proc);
	if (root_shown || !also) {
		T_EQ_I(mntkit_path_id(AT_FDCWD, "/", 0, &id), 0);
		T_EQ_U(id, want_root);
	}
	T_EQ_I(mntkit_path_id(AT_FDCWD, "/nonexistent-mntkit", 0, &id),
	       -ENOENT);
}

T_CASE(statx_refused_enosys) { statx_refused(ENOSYS, NULL, 0); }
T_CASE(statx_refused_eperm) { statx_refused(EPERM, NULL, 0); }

T_CASE(statx_and_handle_refused)
{
	statx_refused(EPERM, "name_to_handle_at", EPERM);
	EXPECT_REFUSED(MNTKIT_REFUSED_HANDLE, EPERM);
}

/* statx and the mount calls refused: the emulation, by old IDs */
static void statx_and_calls_refused(int err)
{
	struct mntkit_statmount *sm = NULL;
	uint64_t old, id = 0;
	struct t_mitab mi;
	ssize_t n;
	uint64_t *ids;
	/* /, or /proc where mountinfo lacks the mount of / (a chroot into a
	 * plain directory): the emulation knows only what it shows */
	const char *top = t_root_in_mountinfo() ? "/" : "/proc";

	old = t_old_id(top);
	t_mi_read(0, &mi);
	refuse("statx", err, "statmount", err, "listmount", err);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_EQ_I(mntkit_path_id(AT_FDCWD, top, 0, &id), 0);
	T_EQ_U(id, old);
	T_EQ_I(mntkit_stat(id, MNTKIT_STATMOUNT_MNT_POINT, NULL, &sm), 0);
	T_EQ_STR(sm->str + sm->mnt_point, top);
	free(sm);
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	T_ASSERTF(n >= 0, "mntkit_list: %s", strerror((int)-n));
	T_EQ_U((size_t)n, mi.n);
	free(ids);
	t_mi_free(&mi);
}

T_CASE(statx_and_calls_refused_eperm) { statx_and_calls_refused(EPERM); }
T_CASE(statx_and_calls_refused_enosys) { statx_and_calls_refused(ENOSYS); }

/* the nsfs ioctls refused: no namespace IDs, the rest native */
T_CASE(ns_ioctl_refused)
{
	struct t_mitab mi;
	uint64_t *kv;
	size_t kn;

	t_require_statmount();
	kn = t_lm(T_LSMT_ROOT, 0, &kv);
	t_mi_read(0, &mi);
	refuse("ioctl", EPERM, NULL, 0, NULL, 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	T_EQ_U(feature_flags() & MNTKIT_FEAT_NS_ID, 0);
	EXPECT_REFUSED(MNTKIT_REFUSED_NS_IOCTL, EPERM);
	expect_coherent_listing(&mi, kv, kn);
	t_mi_free(&mi);
	free(kv);
}

/* does the kernel give this process fanotify mount events? */
static void require_fanotify_mnt(void)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | 0x00004000U /* REPORT_MNT */,
			       O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		t_skip("no fanotify mount events: %s", strerror(errno));
	close(fd);
}

static enum mntkit_watch_source watch_source_now(void)
{
	struct mntkit_watch *w = NULL;
	enum mntkit_watch_source s;
	int ret = mntkit_watch_new(NULL, NULL, &w);

	T_ASSERTF(ret == 0, "mntkit_watch_new: %s", strerror(-ret));
	s = mntkit_watch_get_source(w);
	mntkit_watch_free(w);
	return s;
}

static void fanotify_refused(const char *call, int err)
{
	t_require_root();
	t_require_statmount();
	require_fanotify_mnt();
	refuse(call, err, NULL, 0, NULL, 0);
	T_EQ_I(watch_source_now(), MNTKIT_WATCH_POLL);
	EXPECT_REFUSED(MNTKIT_REFUSED_FANOTIFY, err);
}

T_CASE(fanotify_init_refused) { fanotify_refused("fanotify_init", EPERM); }
T_CASE(fanotify_mark_refused) { fanotify_refused("fanotify_mark", EACCES); }

/*
 * A limit is no refusal: fanotify_init's EMFILE (the user's groups,
 * fs.fanotify.max_user_groups, 128 by default: one watcher per namespace
 * on a host of containers reaches it) was taken for a seccomp filter, so
 * mntkit_refused() named fanotify_init as refused and the tools said
 * "seccomp?". Now the auto watch takes poll, a forced fanotify watch
 * fails with the limit's errno, and nothing is called refused.
 */
T_CASE(fanotify_group_limit)
{
	MNTKIT_WATCH_OPTS(wo, .source = MNTKIT_WATCH_FANOTIFY);
	struct mntkit_watch *w = NULL;

	t_require_root();
	t_require_statmount();
	require_fanotify_mnt();
	refuse("fanotify_init", EMFILE, NULL, 0, NULL, 0);
	T_EQ_I(watch_source_now(), MNTKIT_WATCH_POLL);
	T_EQ_I(mntkit_watch_new(&wo, NULL, &w), -EMFILE);
	T_NULL(w);
	EXPECT_ALLOWED(MNTKIT_REFUSED_FANOTIFY);
}

T_CASE(fanotify_allowed_is_used)
{
	t_require_root();
	t_require_statmount();
	require_fanotify_mnt();
	T_EQ_I(watch_source_now(), MNTKIT_WATCH_FANOTIFY);
	EXPECT_ALLOWED(MNTKIT_REFUSED_FANOTIFY);
}

/* epoll refused: the watch fails with its errno, and says why */
T_CASE(epoll_refused)
{
	struct mntkit_watch *w = NULL;

	refuse("epoll_create1", EPERM, NULL, 0, NULL, 0);
	T_EQ_I(mntkit_watch_new(NULL, NULL, &w), -EPERM);
	T_NULL(w);
	EXPECT_REFUSED(MNTKIT_REFUSED_EPOLL, EPERM);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* the first event of @w for mount @id, within 5 s; its kind */
static int event_of(struct mntkit_watch *w, uint64_t id)
{
	struct pollfd p = { .fd = mntkit_watch_fd(w), .events = POLLIN };
	MNTKIT_EVENT(ev);
	int64_t end = now_ms() + 5000;
	int r;

	for (;;) {
		while ((r = mntkit_watch_read(w, &ev)) == 1)
			if (ev.mnt_id == id)
				return (int)ev.kind;
		T_ASSERTF(r == 0, "mntkit_watch_read: %s", strerror(-r));
		T_ASSERTF(now_ms() < end, "no event for %#" PRIx64, id);
		(void)poll(&p, 1, 100);
	}
}

/* the native backend's watch without /proc: fanotify alone */
T_CASE(watch_without_proc)
{
	struct mntkit_watch *w = NULL;
	uint64_t id;
	char *dir;
	int ret;

	t_require_statmount();
	t_private_ns();
	require_fanotify_mnt();
	dir = t_tmpdir();
	T_OK(umount2("/proc", MNT_DETACH));
	T_ASSERT(access("/proc/self", F_OK) < 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_NATIVE);
	ret = mntkit_watch_new(NULL, NULL, &w);
	T_ASSERTF(ret == 0, "mntkit_watch_new without /proc: %s",
		  strerror(-ret));
	T_EQ_I(mntkit_watch_get_source(w), MNTKIT_WATCH_FANOTIFY);
	t_mount("none", dir, "tmpfs", 0, NULL);
	T_EQ_I(mntkit_path_id(AT_FDCWD, dir, 0, &id), 0);
	T_EQ_I(event_of(w, id), MNTKIT_EVENT_ATTACH);
	T_OK(umount2(dir, 0));
	T_EQ_I(event_of(w, id), MNTKIT_EVENT_DETACH);
	mntkit_watch_free(w);
	free(dir);
}

/* without /proc the poll source cannot be had: a clear ENOENT */
T_CASE(poll_watch_without_proc)
{
	MNTKIT_WATCH_OPTS(wo, .source = MNTKIT_WATCH_POLL);
	struct mntkit_watch *w = NULL;

	t_private_ns();
	T_OK(umount2("/proc", MNT_DETACH));
	T_EQ_I(mntkit_watch_new(&wo, NULL, &w), -ENOENT);
	T_NULL(w);
}

#ifdef T_HAVE_REFUSED
/* without a filter nothing is refused (root, a kernel that has the calls) */
T_CASE(nothing_refused_unfiltered)
{
	t_require_root();
	t_require_statmount();
	require_fanotify_mnt();
	T_EQ_U(refused_mask(), 0);
	for (uint32_t bit = 1; bit <= MNTKIT_REFUSED_PIDFD; bit <<= 1)
		T_EQ_I(mntkit_refused(bit, NULL), 0);
}

T_CASE(refused_bad_call)
{
	const char *name = "x";

	T_EQ_I(mntkit_refused(0, &name), -EINVAL);
	T_NULL(name);
	T_EQ_I(errno, EINVAL);
	T_EQ_I(mntkit_refused(MNTKIT_REFUSED_STATMOUNT |
				      MNTKIT_REFUSED_LISTMOUNT,
			      NULL),
	       -EINVAL);
	T_EQ_I(mntkit_refused(MNTKIT_REFUSED_PIDFD << 1, NULL), -EINVAL);
	/* no filter here: 0, or ENOSYS from a kernel without the call
	 * (5.10, 6.1), which mntkit_refused() cannot tell from a filter */
	T_EQ_I(mntkit_refused(MNTKIT_REFUSED_STATMOUNT, &name),
	       t_sys_statmount(&(struct t_req){.size = 24}, NULL, 0, 0) < 0 &&
			       errno == ENOSYS
		       ? ENOSYS
		       : 0);
	T_EQ_STR(name, "statmount");
}
#endif

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
