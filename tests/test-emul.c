/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-emul - the mountinfo backend (the emulation) against the native
 * backend, mount by mount, on the test tree of a private namespace.
 *
 * The two backends may number mounts differently (the emulation can only
 * know mountinfo's reused IDs), so mounts are matched through mnt_id_old;
 * every group the emulation says it wrote (the reply's mask) must hold the
 * native value.
 */
#include <mntkit.h>

#include "harness.h"
#include "tree.h"

/* a reply of the given backend, by mntkit_stat() */
static struct mntkit_statmount *stat_on(enum mntkit_backend b, uint64_t id,
					uint64_t mask)
{
	struct mntkit_statmount *sm = NULL;
	int r;

	T_EQ_I(mntkit_set_backend(b), 0);
	r = mntkit_stat(id, mask, NULL, &sm);
	T_ASSERTF(r == 0, "%s: mntkit_stat(%#" PRIx64 "): %s",
		  mntkit_backend_name(b), id, strerror(-r));
	return sm;
}

static size_t list_on(enum mntkit_backend b, uint64_t start, unsigned int flags,
		      uint64_t **ids)
{
	ssize_t n;

	T_EQ_I(mntkit_set_backend(b), 0);
	n = mntkit_list(start, flags, NULL, ids);
	T_ASSERTF(n >= 0, "%s: mntkit_list(%#x): %s", mntkit_backend_name(b),
		  flags, strerror(errno));
	return (size_t)n;
}

/* skip the case while the emulation is not there */
static void require_emulation(void)
{
	uint64_t *ids = NULL;
	ssize_t n;

	t_require_statmount();
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	T_ASSERTF(n > 0, "emulated mntkit_list: %s", strerror(errno));
	free(ids);
}

static void setup(struct t_tree *t)
{
	require_emulation();
	t_private_ns();
	t_tree_build(t);
}

/* the emulated mount whose old ID is @old: its reply (ALL) */
struct emount {
	uint64_t id;
	struct mntkit_statmount *sm;
};

static size_t emulated_mounts(struct emount **out)
{
	uint64_t *ids;
	size_t n = list_on(MNTKIT_BACKEND_MOUNTINFO, MNTKIT_LSMT_ROOT, 0, &ids);
	struct emount *v = t_xcalloc(n, sizeof(*v));

	for (size_t i = 0; i < n; i++) {
		v[i].id = ids[i];
		v[i].sm = stat_on(MNTKIT_BACKEND_MOUNTINFO, ids[i],
				  MNTKIT_STATMOUNT_ALL);
		T_EQ_U(v[i].sm->mnt_id, ids[i]);
	}
	free(ids);
	*out = v;
	return n;
}

static struct emount *by_old(struct emount *v, size_t n, uint64_t old)
{
	for (size_t i = 0; i < n; i++)
		if ((v[i].sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) &&
		    v[i].sm->mnt_id_old == old)
			return &v[i];
	return NULL;
}

T_CASE(emul_lists_every_mount)
{
	struct t_tree t;
	struct t_mitab tab;
	struct emount *v;
	size_t n;

	setup(&t);
	n = emulated_mounts(&v);
	t_mi_read(0, &tab);
	T_EQ_U(n, tab.n);
	for (size_t i = 0; i < tab.n; i++)
		T_ASSERTF(by_old(v, n, tab.v[i].id),
			  "mount %" PRIu64 " (%s) not listed by the emulation",
			  tab.v[i].id, tab.v[i].point);
	for (size_t i = 1; i < n; i++)
		T_ASSERT(v[i].id > v[i - 1].id);
	t_mi_free(&tab);
}

#define SAME_U(f)                                                              \
	T_ASSERTF(e->f == nat->f,                                              \
		  "%s: " #f " %#" PRIx64 " (emulated) != %#" PRIx64            \
		  " (native)",                                                 \
		  what, (uint64_t)e->f, (uint64_t)nat->f)
#define SAME_S(bit, f)                                                         \
	do {                                                                   \
		/* a group the kernel lacks has no native reference */       \
		if (e->mask & t_kmask(bit)) {                                  \
			T_ASSERTF(nat->mask &(bit),                            \
				  "%s: " #f " emulated but not native", what); \
			T_ASSERTF(                                             \
				!strcmp(t_sm_s(e, e->f), t_sm_s(nat, nat->f)), \
				"%s: " #f " '%s' (emulated) != '%s'", what,    \
				t_sm_s(e, e->f), t_sm_s(nat, nat->f));         \
		}                                                              \
	} while (0)

T_CASE(emul_fields_match_native)
{
	struct t_tree t;
	struct t_mnt *nv;
	struct emount *ev;
	struct mntkit_features f;
	size_t nn, en;

	setup(&t);
	nn = t_all_mounts(&nv);
	en = emulated_mounts(&ev);
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	T_EQ_I(mntkit_get_features(&f), 0);
	for (size_t i = 0; i < nn; i++) {
		struct emount *em = by_old(ev, en, nv[i].old);
		struct mntkit_statmount *e, *nat;
		char what[64];

		T_ASSERT(em);
		e = em->sm;
		nat = t_sm(nv[i].id, MNTKIT_STATMOUNT_ALL);
		snprintf(what, sizeof(what), "mount %u", nv[i].old);
		/* what mountinfo surely tells */
		T_ASSERTF((e->mask & 0x3a) == 0x3a,
			  "%s: emulated mask %#" PRIx64 " lacks groups "
			  "mountinfo has",
			  what, e->mask);
		/* and here (no idmaps, no LSM) it tells all the kernel does
		 * (of the groups the kernel has) */
		/* 6.11-6.12 (no FS_SUBTYPE yet) give a mount without
		 * options an empty MNT_OPTS; later kernels and the
		 * emulation leave it out */
		if ((nat->mask & MNTKIT_STATMOUNT_MNT_OPTS) &&
		    !(t_kernel_groups() & MNTKIT_STATMOUNT_FS_SUBTYPE) &&
		    !*t_sm_s(nat, nat->mnt_opts))
			nat->mask &= ~MNTKIT_STATMOUNT_MNT_OPTS;
		T_ASSERTF(t_kmask(e->mask) == nat->mask,
			  "%s: emulated mask %#" PRIx64 ", native %#" PRIx64,
			  what, e->mask, nat->mask);
		T_ASSERTF(!(e->mask & ~f.supported_mask) ||
				  e->mask == MNTKIT_STATMOUNT_SUPPORTED_MASK,
			  "%s: mask %#" PRIx64 " beyond supported %#" PRIx64,
			  what, e->mask, f.supported_mask);
		if (e->mask & MNTKIT_STATMOUNT_SB_BASIC) {
			SAME_U(sb_dev_major);
			SAME_U(sb_dev_minor);
			SAME_U(sb_magic);
			SAME_U(sb_flags);
		}
		if (e->mask & MNTKIT_STATMOUNT_MNT_BASIC) {
			SAME_U(mnt_id_old);
			SAME_U(mnt_parent_id_old);
			SAME_U(mnt_attr);
			SAME_U(mnt_propagation);
			SAME_U(mnt_peer_group);
			SAME_U(mnt_master);
		}
		if (e->mask & MNTKIT_STATMOUNT_PROPAGATE_FROM)
			SAME_U(propagate_from);
		if (e->mask & MNTKIT_STATMOUNT_MNT_NS_ID)
			SAME_U(mnt_ns_id);
		SAME_S(MNTKIT_STATMOUNT_MNT_ROOT, mnt_root);
		SAME_S(MNTKIT_STATMOUNT_MNT_POINT, mnt_point);
		SAME_S(MNTKIT_STATMOUNT_FS_TYPE, fs_type);
		SAME_S(MNTKIT_STATMOUNT_FS_SUBTYPE, fs_subtype);
		SAME_S(MNTKIT_STATMOUNT_SB_SOURCE, sb_source);
		SAME_S(MNTKIT_STATMOUNT_MNT_OPTS, mnt_opts);
		if (e->mask & t_kmask(MNTKIT_STATMOUNT_OPT_ARRAY)) {
			const char *a, *b;

			SAME_U(opt_num);
			a = t_sm_s(e, e->opt_array);
			b = t_sm_s(nat, nat->opt_array);
			for (uint32_t k = 0; k < nat->opt_num; k++) {
				T_EQ_STR(a, b);
				a += strlen(a) + 1;
				b += strlen(b) + 1;
			}
		}
		/* the strings the native backend has, the emulation has too,
		 * where mountinfo shows them */
		T_ASSERTF(!(nat->mask & MNTKIT_STATMOUNT_MNT_OPTS) ||
				  (e->mask & MNTKIT_STATMOUNT_MNT_OPTS),
			  "%s: mnt_opts missing", what);
		free(nat);
	}
	for (size_t i = 0; i < en; i++)
		free(ev[i].sm);
	free(ev);
	free(nv);
}

/* the emulation's own parent IDs point at the right mounts */
T_CASE(emul_parents_consistent)
{
	struct t_tree t;
	struct emount *v;
	size_t n;

	setup(&t);
	n = emulated_mounts(&v);
	for (size_t i = 0; i < n; i++) {
		struct mntkit_statmount *sm = v[i].sm;
		struct emount *p = NULL;

		for (size_t j = 0; j < n; j++)
			if (v[j].id == sm->mnt_parent_id)
				p = &v[j];
		if (!p) /* the root: its parent is outside the namespace view */
			continue;
		T_EQ_U(p->sm->mnt_id_old, sm->mnt_parent_id_old);
	}
	free(v);
}

/* the emulated ID of a tree mount (by its old ID, read from mountinfo) */
static uint64_t eid(struct emount *v, size_t n, const struct t_tree *t,
		    int which)
{
	struct t_mitab tab;
	struct emount *e;
	uint64_t old = 0;

	t_mi_read(0, &tab);
	for (size_t i = 0; i < tab.n; i++) {
		if (strcmp(tab.v[i].point, t->path[which]))
			continue;
		/* stacked on the same point: the first is the lower one */
		old = tab.v[i].id;
		if (which != T_STACK)
			break;
	}
	t_mi_free(&tab);
	e = by_old(v, n, old);
	T_ASSERTF(e, "tree mount %d not emulated", which);
	return e->id;
}

T_CASE(emul_orders)
{
	struct t_tree t;
	uint64_t *fwd, *rev, *tree, *kids, a, want[2];
	size_t n, m, k, en;
	struct emount *v;

	setup(&t);
	en = emulated_mounts(&v);
	n = list_on(MNTKIT_BACKEND_MOUNTINFO, MNTKIT_LSMT_ROOT, 0, &fwd);
	m = list_on(MNTKIT_BACKEND_MOUNTINFO, MNTKIT_LSMT_ROOT,
		    MNTKIT_LIST_F_REVERSE, &rev);
	T_EQ_U(m, n);
	for (size_t i = 0; i < n; i++)
		T_EQ_U(rev[i], fwd[n - 1 - i]);
	a = eid(v, en, &t, T_A);
	/* children of a: b and d, by ascending (emulated) ID */
	m = list_on(MNTKIT_BACKEND_MOUNTINFO, a, MNTKIT_LIST_F_CHILDREN, &kids);
	T_EQ_U(m, 2);
	want[0] = eid(v, en, &t, T_AB);
	want[1] = eid(v, en, &t, T_AD);
	t_sort_u64(want, 2);
	T_EQ_U(kids[0], want[0]);
	T_EQ_U(kids[1], want[1]);
	/* the tree below a: each child followed by its own subtree */
	k = list_on(MNTKIT_BACKEND_MOUNTINFO, a, MNTKIT_LIST_F_TREE, &tree);
	T_EQ_U(k, 4);
	T_EQ_U(tree[0], kids[0]);
	T_EQ_U(tree[2], kids[1]);
	T_EQ_U(tree[kids[0] == eid(v, en, &t, T_AB) ? 1 : 3],
	       eid(v, en, &t, T_ABC));
	T_EQ_U(tree[kids[0] == eid(v, en, &t, T_AB) ? 3 : 1],
	       eid(v, en, &t, T_STACK));
	free(fwd);
	free(rev);
	free(tree);
	free(kids);
	free(v);
}

T_CASE(emul_path_id)
{
	struct t_tree t;
	struct emount *v;
	size_t n;

	setup(&t);
	n = emulated_mounts(&v);
	for (int i = 0; i < T_NMOUNTS; i++) {
		uint64_t id;

		if (i == T_AD)
			continue; /* overmounted */
		T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
		T_EQ_I(mntkit_path_id(AT_FDCWD, t.path[i], 0, &id), 0);
		T_EQ_U(id, by_old(v, n, t_old_id(t.path[i]))->id);
		/* where the mount's point leads to it: its unique ID */
		T_EQ_U(id, t.id[i]);
	}
	free(v);
}

T_CASE(emul_abi_edges)
{
	struct t_tree t;
	struct mntkit_mnt_id_req r;
	struct mntkit_statmount *sm;
	uint64_t id, gone;
	char *p;
	uint32_t size;

	setup(&t);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	T_EQ_I(mntkit_path_id(AT_FDCWD, t.path[T_A], 0, &id), 0);
	memset(&r, 0, sizeof(r));
	r.size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
	r.mnt_id = id;
	r.param = MNTKIT_STATMOUNT_MNT_POINT | MNTKIT_STATMOUNT_MNT_OPTS;
	sm = t_xcalloc(1, 8192);
	T_EQ_I(mntkit_statmount(&r, sm, 8192, 0), 0);
	size = sm->size;
	T_ASSERT(size > 512);
	/* the exact size fits, one byte less overflows */
	memset(sm, 0, 8192);
	T_EQ_I(mntkit_statmount(&r, sm, size, 0), 0);
	T_EQ_U(sm->size, size);
	T_ERRNO(mntkit_statmount(&r, sm, size - 1, 0), EOVERFLOW);
	T_ERRNO(mntkit_statmount(&r, sm, 8192, 1), EINVAL);
	r.size = 0;
	T_ERRNO(mntkit_statmount(&r, sm, 8192, 0), EINVAL);
	r.size = 4097;
	T_ERRNO(mntkit_statmount(&r, sm, 8192, 0), E2BIG);
	/* a mount that is gone */
	p = t_path("%s/gone", t.dir);
	t_tmpfs(p, 0, NULL);
	T_EQ_I(mntkit_path_id(AT_FDCWD, p, 0, &gone), 0);
	t_umount(p);
	r.size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
	r.mnt_id = gone;
	T_ERRNO(mntkit_statmount(&r, sm, 8192, 0), ENOENT);
	free(sm);
}

/* a dead FUSE mount and an idmapped mount, seen by both backends */
T_CASE(emul_fuse_and_idmap)
{
	struct t_tree t;
	struct t_mnt *nv;
	struct emount *ev;
	size_t nn, en, seen = 0;
	char opts[128], *fuse, *idm;
	int fd, ufd;

	setup(&t);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_skip("no /dev/fuse: %s", strerror(errno));
	fuse = t_path("%s/fuse", t.dir);
	t_mkdir(fuse);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("fsrc", fuse, "fuse.mntkittest", MS_NOSUID, opts))
		t_skip("cannot mount fuse: %s", strerror(errno));
	close(fd); /* aborts the connection: nothing can hang on it */
	idm = t_path("%s/idm", t.dir);
	ufd = t_userns_fd_try("0 100000 65536");
	if (ufd < 0 || t_idmap_mount_try(t.path[T_SHARED], idm, ufd))
		idm = NULL;
	nn = t_all_mounts(&nv);
	en = emulated_mounts(&ev);
	for (size_t i = 0; i < nn; i++) {
		struct mntkit_statmount *nat =
			t_sm(nv[i].id, MNTKIT_STATMOUNT_ALL);
		struct emount *em = by_old(ev, en, nv[i].old);
		struct mntkit_statmount *e;
		const char *pt = t_sm_s(nat, nat->mnt_point);
		const char *what = pt;

		T_ASSERT(em);
		e = em->sm;
		if (!strcmp(pt, fuse)) {
			T_ASSERT(e->mask & MNTKIT_STATMOUNT_FS_SUBTYPE);
			SAME_S(MNTKIT_STATMOUNT_FS_TYPE, fs_type);
			SAME_S(MNTKIT_STATMOUNT_FS_SUBTYPE, fs_subtype);
			SAME_S(MNTKIT_STATMOUNT_SB_SOURCE, sb_source);
			SAME_S(MNTKIT_STATMOUNT_MNT_OPTS, mnt_opts);
			SAME_U(mnt_attr);
			T_EQ_STR(t_sm_s(e, e->fs_type), "fuse");
			T_EQ_STR(t_sm_s(e, e->fs_subtype), "mntkittest");
			seen++;
		}
		if (idm && !strcmp(pt, idm)) {
			SAME_U(mnt_attr);
			T_ASSERT(e->mnt_attr & MNTKIT_MOUNT_ATTR_IDMAP);
			/* mountinfo has no maps: never claimed wrongly */
			if (e->mask & MNTKIT_STATMOUNT_MNT_UIDMAP) {
				SAME_U(mnt_uidmap_num);
				SAME_S(MNTKIT_STATMOUNT_MNT_UIDMAP, mnt_uidmap);
			}
			seen++;
		}
		free(nat);
	}
	T_EQ_U(seen, idm ? 2 : 1);
	if (ufd >= 0)
		close(ufd);
	free(ev);
	free(nv);
}

/* the set of old IDs a backend lists from LSMT_ROOT, sorted */
static size_t old_ids_on(enum mntkit_backend b, uint64_t **out)
{
	uint64_t *ids;
	size_t n = list_on(b, MNTKIT_LSMT_ROOT, 0, &ids);

	for (size_t i = 0; i < n; i++) {
		struct mntkit_statmount *sm = stat_on(b, ids[i], 0x2);

		ids[i] = sm->mnt_id_old;
		free(sm);
	}
	t_sort_u64(ids, n);
	*out = ids;
	return n;
}

static void same_mounts_both_backends(const char *what)
{
	uint64_t *a, *b;
	size_t n = old_ids_on(MNTKIT_BACKEND_NATIVE, &a);
	size_t m = old_ids_on(MNTKIT_BACKEND_MOUNTINFO, &b);

	T_ASSERTF(n == m, "%s: native lists %zu mounts, emulation %zu", what, n,
		  m);
	for (size_t i = 0; i < n; i++)
		T_ASSERTF(a[i] == b[i], "%s: mount %" PRIu64 " vs %" PRIu64,
			  what, a[i], b[i]);
	free(a);
	free(b);
}

/* a change of the mount table is seen by the very next call */
T_CASE(emul_sees_changes_at_once)
{
	struct t_tree t;
	struct mntkit_statmount *sm;
	uint64_t id, *ids;
	size_t n0, n;
	char *x;

	setup(&t);
	n0 = list_on(MNTKIT_BACKEND_MOUNTINFO, MNTKIT_LSMT_ROOT, 0, &ids);
	free(ids);
	for (int round = 0; round < 20; round++) {
		x = t_path("%s/x%d", t.dir, round);
		t_tmpfs(x, 0, NULL);
		T_EQ_I(mntkit_path_id(AT_FDCWD, x, 0, &id), 0);
		n = list_on(MNTKIT_BACKEND_MOUNTINFO, MNTKIT_LSMT_ROOT, 0,
			    &ids);
		T_EQ_U(n, n0 + 1);
		T_ASSERT(t_contains_u64(ids, n, id));
		free(ids);
		sm = stat_on(MNTKIT_BACKEND_MOUNTINFO, id, 0x2);
		T_EQ_U(sm->mnt_attr & MNTKIT_MOUNT_ATTR_RDONLY, 0);
		free(sm);
		/* a remount changes the mount's flags */
		t_mount(NULL, x, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
		sm = stat_on(MNTKIT_BACKEND_MOUNTINFO, id, 0x2);
		T_ASSERTF(sm->mnt_attr & MNTKIT_MOUNT_ATTR_RDONLY,
			  "round %d: remount ro not seen", round);
		free(sm);
		t_umount(x);
		n = list_on(MNTKIT_BACKEND_MOUNTINFO, MNTKIT_LSMT_ROOT, 0,
			    &ids);
		T_EQ_U(n, n0);
		T_ASSERT(!t_contains_u64(ids, n, id));
		free(ids);
		T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
		sm = (void *)1;
		T_NEG(mntkit_stat(id, 0x2, NULL, &sm), ENOENT);
	}
	same_mounts_both_backends("after the rounds");
}

/* a new root (chroot) and a new namespace (setns) are seen */
T_CASE(emul_follows_root_and_namespace)
{
	struct t_tree t;
	uint64_t *ids;
	int fd, pfd[2];
	pid_t pid;
	char c;

	setup(&t);
	same_mounts_both_backends("before");
	/* warm the cache, then chroot into a */
	T_ASSERT(list_on(MNTKIT_BACKEND_MOUNTINFO, MNTKIT_LSMT_ROOT, 0, &ids) >
		 T_NMOUNTS);
	free(ids);
	/* the emulation reads /proc: the chroot needs one */
	t_mkdir(t_path("%s/proc", t.path[T_A]));
	t_mount("proc", t_path("%s/proc", t.path[T_A]), "proc", 0, NULL);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		T_OK(chroot(t.path[T_A]));
		T_OK(chdir("/"));
		/* a, b, b/c, d, d's stacked mount and proc */
		T_EQ_U(list_on(MNTKIT_BACKEND_MOUNTINFO, MNTKIT_LSMT_ROOT, 0,
			       &ids),
		       6);
		free(ids);
		same_mounts_both_backends("in a chroot");
		_exit(0);
	}
	t_wait_child(pid, "chroot child");

	/* a process with a namespace of its own, and setns into it */
	T_OK(pipe(pfd));
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		close(pfd[0]);
		T_OK(unshare(CLONE_NEWNS));
		t_mount("y", t.path[T_RO], "tmpfs", 0, NULL);
		t_umount(t.path[T_AB]);
		T_ASSERT(write(pfd[1], "x", 1) == 1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	T_ASSERT(read(pfd[0], &c, 1) == 1);
	fd = open(t_path("/proc/%d/ns/mnt", (int)pid), O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	T_OK(setns(fd, CLONE_NEWNS));
	close(fd);
	same_mounts_both_backends("after setns");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * Two tmpfs stacked on @x, "lower" under "upper": the ID the emulation
 * hands out for "lower" (its old ID: its point leads to "upper")
 */
static uint64_t stacked_lower(const char *x)
{
	struct mntkit_statmount *sm;
	uint64_t *ids, lower = 0;
	size_t n;

	t_mkdir(x);
	t_mount("lower", x, "tmpfs", 0, NULL);
	t_mount("upper", x, "tmpfs", 0, NULL);
	n = list_on(MNTKIT_BACKEND_MOUNTINFO, MNTKIT_LSMT_ROOT, 0, &ids);
	for (size_t i = 0; i < n; i++) {
		sm = stat_on(MNTKIT_BACKEND_MOUNTINFO, ids[i],
			     MNTKIT_STATMOUNT_SB_SOURCE);
		if ((sm->mask & MNTKIT_STATMOUNT_SB_SOURCE) &&
		    !strcmp(t_sm_s(sm, sm->sb_source), "lower"))
			lower = ids[i];
		free(sm);
	}
	free(ids);
	T_ASSERT(lower);
	return lower;
}

/*
 * A mount the emulation names by its old ID (its point leads to another
 * mount stacked on it) vanishes: statmount of the ID it handed out says
 * ENOENT, as for any mount that vanished between listmount and statmount.
 */
T_CASE(emul_vanished_stacked_mount_enoent)
{
	struct t_tree t;
	struct mntkit_mnt_id_req r;
	struct mntkit_statmount *sm;
	uint64_t lower;
	char *x, buf[1024];

	setup(&t);
	x = t_path("%s/stacked", t.dir);
	lower = stacked_lower(x);
	t_umount(x);
	t_umount(x);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	sm = (void *)1;
	T_NEG(mntkit_stat(lower, MNTKIT_STATMOUNT_MNT_BASIC, NULL, &sm),
	      ENOENT);
	T_NULL(sm);
	memset(&r, 0, sizeof(r));
	r.size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
	r.mnt_id = lower;
	r.param = MNTKIT_STATMOUNT_MNT_BASIC;
	T_ERRNO(mntkit_statmount(&r, (void *)buf, sizeof(buf), 0), ENOENT);
	/* and as a listmount cursor it still works */
	r.param = lower;
	r.mnt_id = MNTKIT_LSMT_ROOT;
	T_OK(mntkit_listmount(&r, (uint64_t *)(void *)buf, 8, 0));
}

/*
 * A mount the emulation names by its old ID (stacked under another) is
 * uncovered (the one on it unmounted, as a teardown does): the old ID it
 * handed out still names it, although it is listed by its unique ID now.
 */
T_CASE(emul_uncovered_mount_keeps_old_id)
{
	struct mntkit_statmount *sm;
	struct t_tree t;
	uint64_t lower;
	char *x;

	setup(&t);
	x = t_path("%s/stacked", t.dir);
	lower = stacked_lower(x);
	t_umount(x);
	sm = stat_on(MNTKIT_BACKEND_MOUNTINFO, lower,
		     MNTKIT_STATMOUNT_MNT_BASIC | MNTKIT_STATMOUNT_SB_SOURCE);
	T_EQ_U(sm->mnt_id, lower);
	T_ASSERT(!strcmp(t_sm_s(sm, sm->sb_source), "lower"));
	free(sm);
	t_umount(x);
}

/*
 * MNTKIT_OPTS_F_CHEAP_IDS: on the emulation every mount is named by its
 * old ID (mnt_id == mnt_id_old, its parent's old ID as mnt_parent_id) in
 * a table, a listing and a reply, consistently with mountinfo; the
 * listing order is mountinfo's; a unique ID asked for is still taken;
 * the default stays the unique ID; the native backend keeps its unique
 * IDs; an unknown bit and a watch are refused.
 */
T_CASE(emul_cheap_ids)
{
	MNTKIT_OPTS(cheap, .flags = MNTKIT_OPTS_F_CHEAP_IDS);
	MNTKIT_OPTS(bad, .flags = 0x2);
	struct mntkit_table *tab;
	struct mntkit_statmount *sm;
	struct mntkit_watch *w;
	struct mntkit_live *l;
	struct t_mitab mi;
	uint64_t *ids, old_a = 0, old_abc = 0, parent_abc = 0;
	struct t_tree t;
	ssize_t n;

	setup(&t);
	t_mi_read(0, &mi);
	for (size_t i = 0; i < mi.n; i++) {
		if (!strcmp(mi.v[i].point, t.path[T_A]))
			old_a = mi.v[i].id;
		if (!strcmp(mi.v[i].point, t.path[T_ABC])) {
			old_abc = mi.v[i].id;
			parent_abc = mi.v[i].parent;
		}
	}
	T_ASSERT(old_a && old_abc);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);

	T_OK(mntkit_table_new(MNTKIT_STATMOUNT_MNT_BASIC, 0, &cheap, &tab));
	T_EQ_U(mntkit_table_count(tab), mi.n);
	for (size_t i = 0; i < mntkit_table_count(tab); i++) {
		const struct mntkit_statmount *r = mntkit_table_get(tab, i);

		T_EQ_U(r->mnt_id, r->mnt_id_old);
		T_EQ_U(r->mnt_parent_id, r->mnt_parent_id_old);
	}
	T_ASSERT(mntkit_table_find(tab, old_abc) >= 0);
	mntkit_table_free(tab);

	/* the listing: mountinfo's old IDs, ascending; ordered as the file */
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, &cheap, &ids);
	T_ASSERTF(n >= 0, "mntkit_list: %s", strerror(errno));
	T_EQ_U((size_t)n, mi.n);
	for (ssize_t i = 1; i < n; i++)
		T_ASSERT(ids[i] > ids[i - 1]);
	T_OK(mntkit_list_order(ids, (size_t)n, &cheap));
	for (size_t i = 0; i < mi.n; i++)
		T_EQ_U(ids[i], mi.v[i].id);
	free(ids);

	/* a reply by old ID, its parent by old ID */
	T_OK(mntkit_stat(old_abc, MNTKIT_STATMOUNT_MNT_BASIC, &cheap, &sm));
	T_EQ_U(sm->mnt_id, old_abc);
	T_EQ_U(sm->mnt_parent_id, parent_abc);
	free(sm);

	/* a unique ID asked for is taken; without the flag: unique IDs */
	if (t.id[T_A] > MNTKIT_MNT_UNIQUE_ID_OFFSET) {
		T_OK(mntkit_stat(t.id[T_A], MNTKIT_STATMOUNT_MNT_BASIC,
				 &cheap, &sm));
		T_EQ_U(sm->mnt_id_old, old_a);
		free(sm);
		T_OK(mntkit_table_new(MNTKIT_STATMOUNT_MNT_BASIC, 0, NULL,
				      &tab));
		T_ASSERT(mntkit_table_find(tab, t.id[T_A]) >= 0);
		T_ASSERT(mntkit_table_find(tab, old_a) < 0);
		mntkit_table_free(tab);
		/* the native backend names it by its unique ID, flag or not */
		T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_NATIVE), 0);
		T_OK(mntkit_stat(t.id[T_A], MNTKIT_STATMOUNT_MNT_BASIC,
				 &cheap, &sm));
		T_EQ_U(sm->mnt_id, t.id[T_A]);
		free(sm);
		T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	}

	T_NEG(mntkit_list(MNTKIT_LSMT_ROOT, 0, &bad, &ids), EINVAL);
	T_NEG(mntkit_watch_new(NULL, &cheap, &w), EINVAL);
	T_NEG(mntkit_live_new(NULL, &cheap, &l), EINVAL);
	t_mi_free(&mi);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
