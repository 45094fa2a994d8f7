// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel's features, probed once per process (pthread_once): which
 * system calls answer (and which a seccomp filter refuses: see
 * "Refusals" below), the statmount groups of the kernel, the hybrid
 * replies; and each at its first use: the nsfs ioctls, fanotify's mount
 * events, STATMOUNT_BY_FD, listns(2), epoll and pidfd_open, and what the
 * mountinfo emulation can use (unique IDs, namespace IDs). lib/backend.c
 * chooses the backend from them. (Which of statx and name_to_handle_at a
 * filter refuses is probed in lib/sys.c, under the wrappers that need
 * it.)
 *
 * Hybrid replies. Where the kernel's statmount lacks groups (6.8 - 6.14:
 * see probe_kernel_mask()), the native backend completes its replies with
 * the emulation's (lib/native-hybrid.c, mntkit__emul_hybrid()); the
 * features report the groups so served, and a reply's mask says which it
 * holds. MNTKIT_HYBRID=0 in the environment turns this off (replies then
 * hold only what the kernel wrote).
 *
 * Testing knob: MNTKIT_TEST_KERNEL_MASK=MASK (decimal or 0x hex), read once
 * at the probe, makes the library take the kernel's statmount for one that
 * supports only the groups of MASK (and'ed with the real ones), so that the
 * hybrid replies can be tested on a kernel that has every group. It is
 * meant for tests only. MNTKIT_TEST_OLD_IDS (below) is the emulation's: it names mounts by old IDs, as on a kernel without unique
 * IDs, and mntkit_get_features() then reports none on that backend.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "syscall.h"

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static uint32_t probed_features;
static uint64_t probed_kernel_mask;
static uint64_t probed_hybrid_mask;
static int probed_hybrid; /* native replies go through the hybrid path */
/* the groups of a native request that goes to the kernel untouched */
static uint64_t probed_direct_mask;
static uint64_t probed_root_id; /* a mount of the probe's, to ask about */

/*
 * Refusals. A seccomp filter (a container runtime's profile) answers a
 * call it refuses with one errno for every input: EPERM (Docker, podman),
 * ENOSYS (older runc), EINVAL or EACCES (some profiles). A kernel that has
 * the call answers each input its own way. So each probe asks something
 * whose answer is known - a good request and deliberately bad ones - and
 * a call that does not answer as the kernel would is taken as refused:
 * its errno is kept (probed_refused_errno[]), the library does without
 * it, and mntkit_refused() tells the caller. ENOSYS can also mean that
 * the kernel lacks the call; it counts as refused all the same (the
 * library cannot use the call either way). EPERM for a real reason (a
 * foreign namespace, a mount outside the caller's root) never arises in
 * these probes: they ask about the caller's own root and namespace.
 */
static int probed_refused_errno[MNTKIT_NR_REFUSALS];

static const char *refused_names[MNTKIT_NR_REFUSALS] = {
	"statmount", "listmount", "statx", "name_to_handle_at",
	"ioctl", "fanotify_init", "epoll_create1", "pidfd_open",
};

static void refuse(uint32_t call, int err)
{
	for (unsigned int i = 0; i < MNTKIT_NR_REFUSALS; i++) {
		if (call != 1U << i)
			continue;
		probed_refused_errno[i] = err ? err : EINVAL;
		mntkit__debug(MNTKIT_PRINT_WARN,
			      "%s refused (%s): a seccomp filter, or a kernel "
			      "without it; done without",
			      refused_names[i], strerror(probed_refused_errno[i]));
	}
}

/* the errno of a call that failed, 0 for a success */
static int errno_of(long ret)
{
	return ret < 0 ? errno : 0;
}

/*
 * listmount(2): a listing of one ID below the caller's root always
 * succeeds where the kernel has the call. 0 or its errno; *@first: the
 * ID it gave, if any.
 */
static int probe_listmount(uint64_t *first)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = MNTKIT_LSMT_ROOT,
	};
	uint64_t one = 0;
	ssize_t n = sys_listmount(&req, &one, 1, 0);

	if (n < 0)
		return errno;
	if (n == 1)
		*first = one;
	return 0;
}

/*
 * statmount(2): the kernel answers mount ID 0 with EINVAL and an ID no
 * mount has with ENOENT; a filter gives the same errno to both. Then a
 * mount's ID (@good, when one is known) must be answered. 0 or an errno.
 */
static int probe_statmount(uint64_t good)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.param = MNTKIT_STATMOUNT_MNT_BASIC,
	};
	struct mntkit_statmount sm;
	int e0, e1;

	e0 = errno_of(sys_statmount(&req, &sm, sizeof(sm), 0));
	req.mnt_id = MNTKIT_LSMT_ROOT - 1; /* above every unique ID */
	e1 = errno_of(sys_statmount(&req, &sm, sizeof(sm), 0));
	if (e0 != EINVAL)
		return e0 ? e0 : EINVAL;
	if (e1 != ENOENT)
		return e1 ? e1 : EINVAL;
	if (!good)
		return 0;
	req.mnt_id = good;
	return errno_of(sys_statmount(&req, &sm, sizeof(sm), 0));
}

static uint64_t probe_kernel_mask(uint64_t root_id)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = root_id,
		.param = MNTKIT_STATMOUNT_SUPPORTED_MASK,
	};
	static const uint64_t strs[] = {
		MNTKIT_STATMOUNT_MNT_OPTS, MNTKIT_STATMOUNT_FS_SUBTYPE,
		MNTKIT_STATMOUNT_SB_SOURCE, MNTKIT_STATMOUNT_OPT_ARRAY,
		MNTKIT_STATMOUNT_OPT_SEC_ARRAY,
	};
	struct mntkit_statmount sm;
	uint64_t mask;

	if (sys_statmount(&req, &sm, sizeof(sm), 0) == 0 &&
	    (sm.mask & MNTKIT_STATMOUNT_SUPPORTED_MASK))
		return sm.supported_mask | MNTKIT_STATMOUNT_SUPPORTED_MASK;
	/* before supported_mask (6.8 - 6.14): the fixed groups the kernel
	 * answers to, the strings of 6.8, and each later string group the
	 * kernel tries to write into a bare reply (EOVERFLOW: no room for
	 * its string; a kernel without the group ignores it) - 6.11-6.12
	 * have MNT_OPTS */
	req.param = MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_BASIC |
		    MNTKIT_STATMOUNT_PROPAGATE_FROM | MNTKIT_STATMOUNT_MNT_NS_ID;
	if (sys_statmount(&req, &sm, sizeof(sm), 0) != 0)
		return 0;
	mask = sm.mask | MNTKIT_STATMOUNT_MNT_ROOT |
	       MNTKIT_STATMOUNT_MNT_POINT | MNTKIT_STATMOUNT_FS_TYPE;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		req.param = strs[i];
		if (sys_statmount(&req, &sm, sizeof(sm), 0) == 0)
			mask |= sm.mask & strs[i];
		else if (errno == EOVERFLOW)
			mask |= strs[i];
	}
	return mask;
}

/* MNTKIT_TEST_KERNEL_MASK: pretend the kernel has only these groups */
static uint64_t test_kernel_mask(void)
{
	const char *s = mntkit__env(MNTKIT__ENV_TEST_KERNEL_MASK);
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return ~0ULL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return ~0ULL; /* not a number: ignored, as unset */
	/* the fixed groups every statmount has stay: MNT_BASIC names the
	 * mount to the emulation */
	return v | MNTKIT_STATMOUNT_MNT_BASIC;
}

static int hybrid_allowed(void)
{
	const char *s = mntkit__env(MNTKIT__ENV_HYBRID);

	return !s || strcmp(s, "0") != 0;
}

/*
 * fanotify_init's EPERM is the kernel's where a group that any process may
 * have (FAN_REPORT_FID, 5.13+) is granted: the caller lacks CAP_SYS_ADMIN.
 */
static int fanotify_eperm_is_real(void)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID,
			       O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/*
 * A limit, not a refusal: the groups a user may have
 * (fs.fanotify.max_user_groups, 128 by default: EMFILE), its marks
 * (ENOSPC), the process's or the system's open files (EMFILE, ENFILE),
 * memory. The kernel checks the flags before it counts or allocates
 * anything, so the flags were accepted; the limit may be gone at the
 * next watch, which tries again.
 */
static int fanotify_limit(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM ||
	       err == ENOSPC;
}

/*
 * fanotify mount events (6.15+) on the namespace of @ns_fd. Old kernels
 * answer FAN_REPORT_MNT with EINVAL; without CAP_SYS_ADMIN init is
 * refused (before 6.15) or the mark is (EPERM, for a real reason: a mark
 * with bad flags still gets the kernel's EINVAL); a limit is no refusal
 * (fanotify_limit()). Anything else is a refusal.
 */
static uint32_t probe_fanotify(int ns_fd)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | MNTKIT_FAN_REPORT_MNT,
			       O_RDONLY | O_CLOEXEC);
	int err, bad;

	if (fd < 0) {
		err = errno;
		if (fanotify_limit(err)) {
			mntkit__debug(MNTKIT_PRINT_INFO,
				      "kernel: fanotify_init: %s (a limit: "
				      "fs.fanotify.max_user_groups?)",
				      strerror(err));
			return MNTKIT_FEAT_FANOTIFY_MNT;
		}
		if (err != EINVAL &&
		    (err != EPERM || !fanotify_eperm_is_real()))
			refuse(MNTKIT_REFUSED_FANOTIFY, err);
		return 0;
	}
	if (ns_fd < 0) { /* no /proc: the watch opens it elsewhere */
		close(fd);
		return MNTKIT_FEAT_FANOTIFY_MNT;
	}
	err = errno_of(fanotify_mark(fd, FAN_MARK_ADD | MNTKIT_FAN_MARK_MNTNS,
				     MNTKIT_FAN_MNT_ATTACH, ns_fd, NULL));
	bad = errno_of(fanotify_mark(fd, 0x80000000U, MNTKIT_FAN_MNT_ATTACH,
				     ns_fd, NULL));
	close(fd);
	if (!err || fanotify_limit(err))
		return MNTKIT_FEAT_FANOTIFY_MNT;
	if (bad != EINVAL || (err != EPERM && err != EINVAL)) {
		refused_names[5] = "fanotify_mark";
		refuse(MNTKIT_REFUSED_FANOTIFY, err);
	}
	/* a mark refused for want of privilege: the feature is there */
	return err == EPERM && bad == EINVAL ? MNTKIT_FEAT_FANOTIFY_MNT : 0;
}

/*
 * The nsfs ioctls. A kernel before 6.10 (NS_GET_MNTNS_ID) or 6.12
 * (NS_MNT_GET_INFO) answers ENOTTY; a filter answers what it answers
 * for every ioctl.
 */
static uint32_t probe_ns(uint64_t root_id, uint32_t feat, int fd)
{
	struct mntkit_mnt_ns_info info = { .size = sizeof(info) };
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER1,
		.mnt_id = root_id,
	};
	struct mntkit_statmount sm;
	uint64_t ns_id;

	if (fd < 0)
		return feat;
	if (ioctl(fd, MNTKIT_NS_GET_MNTNS_ID, &ns_id) == 0) {
		feat |= MNTKIT_FEAT_NS_ID;
		req.mnt_ns_id = ns_id;
		if ((feat & MNTKIT_FEAT_STATMOUNT) &&
		    sys_statmount(&req, &sm, sizeof(sm), 0) == 0)
			feat |= MNTKIT_FEAT_REQ_NS_ID;
	} else if (errno != ENOTTY) {
		refuse(MNTKIT_REFUSED_NS_IOCTL, errno);
	}
	if (ioctl(fd, MNTKIT_NS_MNT_GET_INFO, &info) == 0)
		feat |= MNTKIT_FEAT_NS_ITER;
	req.mnt_ns_id = 0;
	req.mnt_ns_fd = (uint32_t)fd;
	if ((feat & MNTKIT_FEAT_STATMOUNT) &&
	    sys_statmount(&req, &sm, sizeof(sm), 0) == 0)
		feat |= MNTKIT_FEAT_REQ_NS_FD;
	return feat;
}

/* the trace of the probe: what the kernel has, what auto picks and why */
static void report_probe(void)
{
	uint32_t need = MNTKIT_FEAT_STATMOUNT | MNTKIT_FEAT_LISTMOUNT;

	mntkit__debug(MNTKIT_PRINT_INFO,
		      "kernel: features %#x, statmount groups %#" PRIx64,
		      probed_features, probed_kernel_mask);
	if ((probed_features & need) == need)
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "auto backend: native (statmount and listmount "
			      "answer)");
	else
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "auto backend: mountinfo (no %s%s%s)",
			      probed_features & MNTKIT_FEAT_STATMOUNT ?
				      "" : "statmount",
			      (probed_features & need) ? "" : " nor ",
			      probed_features & MNTKIT_FEAT_LISTMOUNT ?
				      "" : "listmount");
	if (probed_hybrid)
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "hybrid: the native backend takes groups %#" PRIx64
			      " from the emulation",
			      probed_hybrid_mask);
	else if (probed_kernel_mask &&
		 (probed_kernel_mask & MNTKIT_STATMOUNT_ALL) !=
			 MNTKIT_STATMOUNT_ALL)
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "hybrid off (MNTKIT_HYBRID=0): replies hold only "
			      "the kernel's groups");
}

/*
 * Set once probe() is done. The accessors below read it first and call
 * pthread_once() only before: every statmount asks them, and a call into
 * libc each time is measurable at thousands of mounts.
 */
static atomic_bool probe_done;
static void probe(void);

static void probed(void)
{
	if (!atomic_load_explicit(&probe_done, memory_order_acquire))
		pthread_once(&probe_once, probe);
}

/*
 * Each call on its own: a profile may allow listmount and refuse
 * statmount. The native backend needs both (the emulation then serves
 * both, so that IDs stay of one kind).
 */
static void probe(void)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = MNTKIT_LSMT_ROOT,
	};
	uint32_t feat = 0;
	uint64_t root_id = 0, first = 0;
	uint64_t one;
	int err;

	err = probe_listmount(&first);
	if (err)
		refuse(MNTKIT_REFUSED_LISTMOUNT, err);
	else
		feat |= MNTKIT_FEAT_LISTMOUNT;
	if ((feat & MNTKIT_FEAT_LISTMOUNT) &&
	    sys_listmount(&req, &one, 1, MNTKIT_LISTMOUNT_REVERSE) >= 0)
		feat |= MNTKIT_FEAT_LIST_REVERSE;

	if (mntkit__native_path_id(AT_FDCWD, "/", 0, &root_id) == 0) {
		feat |= MNTKIT_FEAT_UNIQUE_IDS;
		feat |= mntkit__native_id_source();
	} else {
		root_id = 0;
	}
	err = probe_statmount(root_id ? root_id : first);
	/*
	 * In a chroot into a directory that is no mount point, the mount
	 * that holds / is not reachable from the root: statmount refuses it
	 * (EPERM) to a caller without CAP_SYS_ADMIN. listmount's first
	 * mount is one the caller reaches.
	 */
	if (err == EPERM && root_id && first && first != root_id &&
	    !probe_statmount(first)) {
		err = 0;
		root_id = first;
	}
	if (err)
		refuse(MNTKIT_REFUSED_STATMOUNT, err);
	else
		feat |= MNTKIT_FEAT_STATMOUNT;
	/* listmount's IDs are unique ones, whatever statx says */
	if (feat & MNTKIT_FEAT_LISTMOUNT)
		feat |= MNTKIT_FEAT_UNIQUE_IDS;
	if (!root_id)
		root_id = first; /* any mount will do below */
	if ((feat & MNTKIT_FEAT_STATMOUNT) && root_id)
		probed_kernel_mask = probe_kernel_mask(root_id) &
				     test_kernel_mask();
	if (probed_kernel_mask &&
	    (probed_kernel_mask & MNTKIT_STATMOUNT_ALL) != MNTKIT_STATMOUNT_ALL &&
	    hybrid_allowed()) {
		probed_hybrid = 1;
		probed_hybrid_mask = mntkit__emul_supported_mask() &
				     MNTKIT_STATMOUNT_ALL & ~probed_kernel_mask;
	}
	/* the hybrid answers SUPPORTED_MASK itself, whatever the kernel has */
	probed_direct_mask = probed_hybrid ? probed_kernel_mask &
						     ~MNTKIT_STATMOUNT_SUPPORTED_MASK :
					     ~(uint64_t)0;
	probed_root_id = root_id;
	probed_features = feat;
	report_probe();
	atomic_store_explicit(&probe_done, true, memory_order_release);
}

/*
 * The nsfs ioctls and statmount's namespace fields: probed at the first
 * question about namespaces (lib/ns.c, a watch, the caller's features or
 * refusals), not with the calls: a listing needs neither /proc nor its
 * namespace's file.
 */
static pthread_once_t ns_once = PTHREAD_ONCE_INIT;
static uint32_t probed_ns_features;

static void probe_ns_once(void)
{
	int ns_fd;

	pthread_once(&probe_once, probe);
	ns_fd = mntkit__own_ns_fd();
	probed_ns_features =
		probe_ns(probed_root_id, probed_features, ns_fd) &
		~probed_features;
	if (ns_fd >= 0)
		close(ns_fd);
	mntkit__debug(MNTKIT_PRINT_INFO, "kernel: namespace features %#x",
		      probed_ns_features);
}

/*
 * fanotify's mount events: probed at the first question (a watch, the
 * caller's mntkit_get_features() or mntkit_refused()), not with the rest:
 * closing a group that held a mark waits for the kernel's grace period
 * (milliseconds), which a query must not pay.
 */
static pthread_once_t fanotify_once = PTHREAD_ONCE_INIT;
static uint32_t probed_fanotify;

static void probe_fanotify_once(void)
{
	int ns_fd = mntkit__own_ns_fd();

	probed_fanotify = probe_fanotify(ns_fd);
	if (ns_fd >= 0)
		close(ns_fd);
	mntkit__debug(MNTKIT_PRINT_INFO, "kernel: fanotify mount events: %s",
		      probed_fanotify ? "yes" : "no");
}

uint32_t mntkit__kernel_fanotify(void)
{
	pthread_once(&fanotify_once, probe_fanotify_once);
	return probed_fanotify;
}

uint32_t mntkit__kernel_calls(void)
{
	probed();
	return probed_features;
}

uint32_t mntkit__kernel_features(void)
{
	pthread_once(&probe_once, probe);
	pthread_once(&ns_once, probe_ns_once);
	return probed_features | probed_ns_features;
}

uint64_t mntkit__kernel_mask(void)
{
	probed();
	return probed_kernel_mask;
}

uint64_t mntkit__hybrid_mask(void)
{
	probed();
	return probed_hybrid_mask;
}

int mntkit__hybrid(void)
{
	probed();
	return probed_hybrid;
}

uint64_t mntkit__direct_mask(void)
{
	probed();
	return probed_direct_mask;
}

/* ---- STATMOUNT_BY_FD (7.0) ---- */

static pthread_once_t by_fd_once = PTHREAD_ONCE_INIT;
static int kernel_by_fd;

/* a kernel before 7.0 answers EINVAL for any flag */
static void probe_by_fd(void)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.param = MNTKIT_STATMOUNT_MNT_BASIC,
	};
	struct mntkit_statmount sm;
	int fd = open("/", O_PATH | O_CLOEXEC);

	if (fd < 0)
		return;
	req.mnt_ns_fd = (uint32_t)fd;
	kernel_by_fd = sys_statmount(&req, &sm, sizeof(sm),
				     MNTKIT_STATMOUNT_BY_FD) == 0;
	close(fd);
}

int mntkit__kernel_by_fd(void)
{
	pthread_once(&by_fd_once, probe_by_fd);
	return kernel_by_fd;
}

/* ---- listns(2) (6.19+) ---- */

static pthread_once_t listns_once = PTHREAD_ONCE_INIT;
static int have_listns;

static void probe_listns(void)
{
	struct mntkit_ns_id_req req = {
		.size = MNTKIT_NS_ID_REQ_SIZE_VER0,
		.ns_type = MNTKIT_CLONE_NEWNS,
	};
	uint64_t id;

	have_listns = sys_listns(&req, &id, 1, 0) >= 0;
}

int mntkit__kernel_listns(void)
{
	pthread_once(&listns_once, probe_listns);
	return have_listns;
}

/* ---- the emulation's probes (lib/emul.h): unique IDs (and the testing
 * knob MNTKIT_TEST_OLD_IDS), namespace IDs ---- */

static pthread_once_t caps_once = PTHREAD_ONCE_INIT;
int mntkit__emul_have_unique;  /* statx STATX_MNT_ID_UNIQUE, and no knob */
int mntkit__emul_have_ns_id;   /* ioctl NS_GET_MNTNS_ID */

/* MNTKIT_TEST_OLD_IDS=1: behave as on a kernel without unique IDs */
static int test_old_ids(void)
{
	const char *s = mntkit__env(MNTKIT__ENV_TEST_OLD_IDS);

	return s && !strcmp(s, "1");
}

static void probe_caps(void)
{
	struct statx stx;
	uint64_t id;
	int fd;

	memset(&stx, 0, sizeof(stx));
	if (!test_old_ids() &&
	    statx(AT_FDCWD, "/", AT_STATX_DONT_SYNC, MNTKIT_STATX_MNT_ID_UNIQUE,
		  &stx) == 0 &&
	    (stx.stx_mask & MNTKIT_STATX_MNT_ID_UNIQUE))
		mntkit__emul_have_unique = 1;
	mntkit__proc_grab(); /* the first use: hold /proc from now on */
	fd = mntkit__proc_open(0, "ns/mnt", O_RDONLY);
	if (fd < 0)
		fd = mntkit__own_ns_fd(); /* no /proc: pidfd (6.11+) */
	if (fd >= 0) {
		if (ioctl(fd, MNTKIT_NS_GET_MNTNS_ID, &id) == 0)
			mntkit__emul_have_ns_id = 1;
		close(fd);
	}
}

void mntkit__emul_caps(void)
{
	pthread_once(&caps_once, probe_caps);
}

int mntkit__emul_unique_ids(void)
{
	mntkit__emul_caps();
	return mntkit__emul_have_unique;
}

uint64_t mntkit__emul_supported_mask(void)
{
	uint64_t mask = MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_BASIC |
			MNTKIT_STATMOUNT_PROPAGATE_FROM |
			MNTKIT_STATMOUNT_MNT_ROOT | MNTKIT_STATMOUNT_MNT_POINT |
			MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_MNT_OPTS |
			MNTKIT_STATMOUNT_FS_SUBTYPE |
			MNTKIT_STATMOUNT_SB_SOURCE |
			MNTKIT_STATMOUNT_OPT_ARRAY |
			MNTKIT_STATMOUNT_OPT_SEC_ARRAY |
			MNTKIT_STATMOUNT_SUPPORTED_MASK;

	mntkit__emul_caps();
	if (mntkit__emul_have_ns_id)
		mask |= MNTKIT_STATMOUNT_MNT_NS_ID;
	return mask;
}

/* ---- refusals ---- */

static pthread_once_t lazy_once = PTHREAD_ONCE_INIT;
static int epoll_errno, pidfd_errno;

static int errno_of_fd(int fd)
{
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* epoll and pidfd_open: probed at the first question (the watch needs
 * them, a query not) */
static void probe_lazy(void)
{
	epoll_errno = errno_of_fd(epoll_create1(EPOLL_CLOEXEC));
	pidfd_errno = errno_of_fd((int)syscall(SYS_pidfd_open, getpid(), 0));
}

static int lazy_errno(uint32_t call)
{
	pthread_once(&lazy_once, probe_lazy);
	return call == MNTKIT_REFUSED_EPOLL ? epoll_errno : pidfd_errno;
}

static int refused_errno(unsigned int i)
{
	uint32_t call = 1U << i;

	pthread_once(&probe_once, probe);
	if (call == MNTKIT_REFUSED_NS_IOCTL)
		pthread_once(&ns_once, probe_ns_once);
	if (call == MNTKIT_REFUSED_FANOTIFY)
		mntkit__kernel_fanotify();
	if (call == MNTKIT_REFUSED_STATX || call == MNTKIT_REFUSED_HANDLE)
		return mntkit__native_refused(call);
	if (call == MNTKIT_REFUSED_EPOLL || call == MNTKIT_REFUSED_PIDFD)
		return lazy_errno(call);
	return probed_refused_errno[i];
}

uint32_t mntkit__refused_mask(void)
{
	uint32_t m = 0;

	for (unsigned int i = 0; i < MNTKIT_NR_REFUSALS; i++)
		if (refused_errno(i))
			m |= 1U << i;
	return m;
}

int mntkit_refused(uint32_t call, const char **name)
{
	for (unsigned int i = 0; i < MNTKIT_NR_REFUSALS; i++) {
		if (call != 1U << i)
			continue;
		if (name)
			*name = refused_names[i];
		return refused_errno(i);
	}
	if (name)
		*name = NULL;
	return mntkit__fail(EINVAL);
}

