// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-oldkernel - libmntkit on a kernel without statmount(2)/listmount(2)
 * and without unique mount IDs (Linux 6.1 in the qemu guest of
 * tests/qemu/run.sh, where it runs as a child of the guest's PID 1).
 *
 * There the library must choose its mountinfo emulation by itself, and
 * every ID it hands out is the mount's old (reused) ID of
 * /proc/PID/mountinfo and statx(STATX_MNT_ID). Nothing can be compared
 * with the kernel's own statmount, so every answer is checked against
 * sources that do not go through libmntkit: /proc/self/mountinfo parsed
 * by the harness, statx(2) STATX_MNT_ID, statfs(2) f_type, stat(2)
 * st_dev, the mounts the case made itself, and the documented errno rules
 * of the emulation.
 *
 * On a kernel that has the system calls every case says SKIP.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>

#include "harness.h"
#include "mntkit.h"

#define UNIQ_OFF MNTKIT_MNT_UNIQUE_ID_OFFSET

/* what the emulation can fill on 6.1 (no NS_GET_MNTNS_ID) */
#define EMUL_MASK_61                                                           \
	(MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_BASIC |              \
	 MNTKIT_STATMOUNT_PROPAGATE_FROM | MNTKIT_STATMOUNT_MNT_ROOT |         \
	 MNTKIT_STATMOUNT_MNT_POINT | MNTKIT_STATMOUNT_FS_TYPE |               \
	 MNTKIT_STATMOUNT_MNT_OPTS | MNTKIT_STATMOUNT_FS_SUBTYPE |             \
	 MNTKIT_STATMOUNT_SB_SOURCE | MNTKIT_STATMOUNT_OPT_ARRAY |             \
	 MNTKIT_STATMOUNT_OPT_SEC_ARRAY | MNTKIT_STATMOUNT_SUPPORTED_MASK)

/* ---- the premise: an old kernel ---- */

static int kernel_older_than(int maj, int min)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &a, &b) != 2)
		t_fail("uname: cannot read the kernel release");
	return a < maj || (a == maj && b < min);
}

/* skip unless the kernel has no statmount and no unique IDs */
static void need_old(void)
{
	struct statx stx;
	struct t_req req = {.size = 24, .mnt_id = 1};
	char buf[512];

	memset(&stx, 0, sizeof(stx));
	if (statx(AT_FDCWD, "/", 0, T_STATX_MNT_ID_UNIQUE, &stx) == 0 &&
	    (stx.stx_mask & T_STATX_MNT_ID_UNIQUE))
		t_skip("not an old kernel: statx has STATX_MNT_ID_UNIQUE");
	if (t_sys_statmount(&req, buf, sizeof(buf), 0) == 0 || errno != ENOSYS)
		t_skip("not an old kernel: statmount(2) exists");
}

static uint64_t old_id(const char *path)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	if (statx(AT_FDCWD, path, 0, T_STATX_MNT_ID, &stx))
		t_fail("statx(%s): %s", path, strerror(errno));
	if (!(stx.stx_mask & T_STATX_MNT_ID))
		t_fail("statx(%s): no STATX_MNT_ID", path);
	return stx.stx_mnt_id;
}

/* ---- mounts of a case (private namespace) ---- */

static uint64_t mk_tmpfs(const char *path, unsigned long flags,
			 const char *data)
{
	t_mkdir(path);
	t_mount("tmpfs", path, "tmpfs", flags, data);
	return old_id(path);
}

static uint64_t mk_bind(const char *src, const char *tgt, int rec)
{
	struct stat st;

	if (stat(src, &st) == 0 && !S_ISDIR(st.st_mode)) {
		int fd = open(tgt, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

		if (fd < 0)
			t_fail("create %s: %s", tgt, strerror(errno));
		close(fd);
	} else {
		t_mkdir(tgt);
	}
	t_mount(src, tgt, NULL, MS_BIND | (rec ? MS_REC : 0), NULL);
	return old_id(tgt);
}

static void mk_file(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		t_fail("create %s: %s", path, strerror(errno));
	close(fd);
}

/* ---- the library's answers ---- */

static struct mntkit_statmount *stat_ok(uint64_t id, uint64_t mask)
{
	struct mntkit_statmount *sm = NULL;
	int r = mntkit_stat(id, mask, NULL, &sm);

	if (r)
		t_fail("mntkit_stat(%" PRIu64 ", %#" PRIx64 "): %s", id, mask,
		       strerror(-r));
	return sm;
}

/* a string field, or NULL when its group is absent */
static const char *sm_s(const struct mntkit_statmount *sm, enum mntkit_field f)
{
	const char *s;
	int r = mntkit_sm_str(sm, sm->size, f, &s);

	if (r == -ENODATA)
		return NULL;
	if (r)
		t_fail("mntkit_sm_str(%s): %s", mntkit_field_name(f),
		       strerror(-r));
	return s;
}

static size_t list_ok(uint64_t start, unsigned int flags,
		      const struct mntkit_opts *opts, uint64_t **ids)
{
	ssize_t n = mntkit_list(start, flags, opts, ids);

	if (n < 0)
		t_fail("mntkit_list(%#" PRIx64 ", %#x): %s", start, flags,
		       strerror((int)-n));
	return (size_t)n;
}

/* the IDs of a mountinfo table, ascending */
static size_t mi_ids(const struct t_mitab *tab, uint64_t **out)
{
	uint64_t *v = t_xcalloc(tab->n + 1, sizeof(*v));

	for (size_t i = 0; i < tab->n; i++)
		v[i] = tab->v[i].id;
	t_sort_u64(v, tab->n);
	*out = v;
	return tab->n;
}

static void same_ids(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
		     const char *what)
{
	if (na != nb)
		t_fail("%s: %zu IDs, mountinfo has %zu", what, na, nb);
	for (size_t i = 0; i < na; i++)
		if (a[i] != b[i])
			t_fail("%s: ID #%zu is %" PRIu64
			       ", mountinfo's %" PRIu64,
			       what, i, a[i], b[i]);
}

/* ---- expectations derived from a mountinfo entry ---- */

static int word_at(const char **p, char *w, size_t len)
{
	size_t n = 0;

	if (!**p)
		return 0;
	while (**p && **p != ',') {
		if (n + 1 < len)
			w[n++] = **p;
		(*p)++;
	}
	if (**p == ',')
		(*p)++;
	w[n] = 0;
	return 1;
}

static uint64_t want_attr(const char *opts)
{
	uint64_t a = 0;
	int noatime = 0, relatime = 0;
	char w[256];

	for (const char *p = opts; word_at(&p, w, sizeof(w));) {
		if (!strcmp(w, "ro"))
			a |= MNTKIT_MOUNT_ATTR_RDONLY;
		else if (!strcmp(w, "nosuid"))
			a |= MNTKIT_MOUNT_ATTR_NOSUID;
		else if (!strcmp(w, "nodev"))
			a |= MNTKIT_MOUNT_ATTR_NODEV;
		else if (!strcmp(w, "noexec"))
			a |= MNTKIT_MOUNT_ATTR_NOEXEC;
		else if (!strcmp(w, "noatime"))
			noatime = 1;
		else if (!strcmp(w, "relatime"))
			relatime = 1;
		else if (!strcmp(w, "nodiratime"))
			a |= MNTKIT_MOUNT_ATTR_NODIRATIME;
		else if (!strcmp(w, "nosymfollow"))
			a |= MNTKIT_MOUNT_ATTR_NOSYMFOLLOW;
		else if (!strcmp(w, "idmapped"))
			a |= MNTKIT_MOUNT_ATTR_IDMAP;
		else if (strcmp(w, "rw"))
			t_fail("unknown per-mount option '%s' in '%s'", w,
			       opts);
	}
	if (noatime)
		a |= MNTKIT_MOUNT_ATTR_NOATIME;
	else if (!relatime)
		a |= MNTKIT_MOUNT_ATTR_STRICTATIME;
	return a;
}

/* super options -> sb_flags and the fs's own options (mnt_opts) */
static uint32_t want_sb(const char *superopts, char *fsopts, size_t len)
{
	uint32_t f = 0;
	int lead = 1, first = 1;
	char w[4096];

	fsopts[0] = 0;
	for (const char *p = superopts; word_at(&p, w, sizeof(w));) {
		if (first) {
			if (!strcmp(w, "ro"))
				f |= MNTKIT_SB_RDONLY;
			else if (strcmp(w, "rw"))
				t_fail("super options do not start with ro/rw: "
				       "%s",
				       superopts);
			first = 0;
			continue;
		}
		if (lead && !strcmp(w, "sync")) {
			f |= MNTKIT_SB_SYNCHRONOUS;
			continue;
		}
		if (lead && !strcmp(w, "dirsync")) {
			f |= MNTKIT_SB_DIRSYNC;
			continue;
		}
		if (lead && !strcmp(w, "mand"))
			continue;
		if (lead && !strcmp(w, "lazytime")) {
			f |= MNTKIT_SB_LAZYTIME;
			continue;
		}
		lead = 0;
		if (fsopts[0])
			strncat(fsopts, ",", len - strlen(fsopts) - 1);
		strncat(fsopts, w, len - strlen(fsopts) - 1);
	}
	return f;
}

static uint64_t want_propagate_from(const struct t_mitab *tab,
				    const struct t_mi *m)
{
	if (!m->master)
		return 0;
	if (m->propagate_from)
		return m->propagate_from;
	for (size_t i = 0; i < tab->n; i++)
		if (tab->v[i].shared == m->master)
			return m->master;
	return 0;
}

/* does the mount point resolve to this very mount? */
static int point_is_mount(const char *point, uint64_t id)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	return statx(AT_FDCWD, point, AT_SYMLINK_NOFOLLOW, T_STATX_MNT_ID,
		     &stx) == 0 &&
	       (stx.stx_mask & T_STATX_MNT_ID) && stx.stx_mnt_id == id;
}

/*
 * Check the reply of every group about mountinfo entry @m against the
 * entry itself and, where the point resolves to the mount, statfs/stat.
 */
static void check_entry(const struct t_mitab *tab, const struct t_mi *m)
{
	struct mntkit_statmount *sm = stat_ok(m->id, MNTKIT_STATMOUNT_ALL);
	char fsopts[4096], type[256], *dot;
	const char *s, *subtype = NULL;
	uint32_t sbf = want_sb(m->superopts, fsopts, sizeof(fsopts));
	const char *pt = m->point;
	uint64_t prop = 0;

	snprintf(type, sizeof(type), "%s", m->fstype);
	dot = strchr(type, '.');
	if (dot) {
		*dot = 0;
		subtype = dot + 1;
	}
	/* groups that are always there, and those that never are on 6.1 */
	T_ASSERTF(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC, "%s: mask %#" PRIx64,
		  pt, sm->mask);
	T_ASSERTF(sm->mask & MNTKIT_STATMOUNT_PROPAGATE_FROM,
		  "%s: mask %#" PRIx64, pt, sm->mask);
	T_ASSERTF(sm->mask & MNTKIT_STATMOUNT_SUPPORTED_MASK,
		  "%s: mask %#" PRIx64, pt, sm->mask);
	T_ASSERTF(!(sm->mask &
		    (MNTKIT_STATMOUNT_MNT_NS_ID | MNTKIT_STATMOUNT_MNT_UIDMAP |
		     MNTKIT_STATMOUNT_MNT_GIDMAP |
		     MNTKIT_STATMOUNT_OPT_SEC_ARRAY)),
		  "%s: mask %#" PRIx64 " has groups 6.1 cannot give", pt,
		  sm->mask);
	T_EQ_U(sm->supported_mask, EMUL_MASK_61);

	/* IDs: the old ones, on both sides */
	T_EQ_U(sm->mnt_id, m->id);
	T_EQ_U(sm->mnt_id_old, m->id);
	T_EQ_U(sm->mnt_parent_id, m->parent);
	T_EQ_U(sm->mnt_parent_id_old, m->parent);
	T_ASSERT(sm->mnt_id <= UNIQ_OFF);

	/* per-mount flags and propagation */
	T_EQ_U(sm->mnt_attr, want_attr(m->opts));
	if (m->shared)
		prop |= MNTKIT_MS_SHARED;
	if (m->master)
		prop |= MNTKIT_MS_SLAVE;
	if (m->unbindable)
		prop |= MNTKIT_MS_UNBINDABLE;
	if (!prop)
		prop = MNTKIT_MS_PRIVATE;
	T_EQ_U(sm->mnt_propagation, prop);
	T_EQ_U(sm->mnt_peer_group, m->shared);
	T_EQ_U(sm->mnt_master, m->master);
	T_EQ_U(sm->propagate_from, want_propagate_from(tab, m));

	/* strings */
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_ROOT), m->root);
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_POINT), m->point);
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_FS_TYPE), type);
	s = sm_s(sm, MNTKIT_FIELD_FS_SUBTYPE);
	if (subtype)
		T_EQ_STR(s, subtype);
	else
		T_ASSERTF(!s, "%s: subtype '%s' for type %s", pt, s, m->fstype);
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_SB_SOURCE), m->source);
	s = sm_s(sm, MNTKIT_FIELD_MNT_OPTS);
	if (fsopts[0]) {
		const char *v[64];
		ssize_t n;
		char joined[4096] = "";

		T_EQ_STR(s, fsopts);
		n = mntkit_sm_strv(sm, sm->size, MNTKIT_FIELD_OPT_ARRAY, v, 64);
		T_ASSERTF(n > 0 && n <= 64, "%s: opt_array count %zd", pt, n);
		T_EQ_U(sm->opt_num, n);
		for (ssize_t i = 0; i < n; i++) {
			if (i)
				strcat(joined, ",");
			strncat(joined, v[i],
				sizeof(joined) - strlen(joined) - 2);
		}
		T_EQ_STR(joined, fsopts);
	} else {
		T_ASSERTF(!s, "%s: mnt_opts '%s', mountinfo has none (%s)", pt,
			  s, m->superopts);
		T_ASSERTF(!(sm->mask & MNTKIT_STATMOUNT_OPT_ARRAY),
			  "%s: opt_array without options", pt);
	}

	/* the superblock */
	if (point_is_mount(m->point, m->id)) {
		struct statfs sfs;
		struct stat st;

		T_ASSERTF(sm->mask & MNTKIT_STATMOUNT_SB_BASIC,
			  "%s: no SB_BASIC for a reachable mount point", pt);
		T_OK(statfs(m->point, &sfs));
		T_OK(lstat(m->point, &st));
		T_EQ_U(sm->sb_magic, (uint64_t)(unsigned long)sfs.f_type);
		T_EQ_U(sm->sb_dev_major, major(st.st_dev));
		T_EQ_U(sm->sb_dev_minor, minor(st.st_dev));
	}
	if (sm->mask & MNTKIT_STATMOUNT_SB_BASIC) {
		T_EQ_U(sm->sb_dev_major, m->major);
		T_EQ_U(sm->sb_dev_minor, m->minor);
		T_EQ_U(sm->sb_flags, sbf);
	}
	free(sm);
}

/* every mount of the namespace: listing and replies against mountinfo */
static size_t check_all(void)
{
	struct t_mitab tab;
	uint64_t *ids, *want;
	size_t n, nw;

	t_mi_read(0, &tab);
	n = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	nw = mi_ids(&tab, &want);
	same_ids(ids, n, want, nw, "mntkit_list(LSMT_ROOT)");
	for (size_t i = 0; i < tab.n; i++)
		check_entry(&tab, &tab.v[i]);
	free(ids);
	free(want);
	t_mi_free(&tab);
	return n;
}

/* ---- the premise ---- */

T_CASE(kernel_has_no_statmount_nor_unique_ids)
{
	struct t_req req = {.size = 24, .mnt_id = MNTKIT_LSMT_ROOT};
	struct statx stx;
	uint64_t id;
	char buf[512];

	if (!kernel_older_than(6, 8))
		t_skip("the kernel is 6.8 or newer: not the old kernel");
	T_ERRNO(t_sys_statmount(&req, buf, sizeof(buf), 0), ENOSYS);
	T_ERRNO(t_sys_listmount(&req, &id, 1, 0), ENOSYS);
	memset(&stx, 0, sizeof(stx));
	T_OK(statx(AT_FDCWD, "/", 0, T_STATX_MNT_ID | T_STATX_MNT_ID_UNIQUE,
		   &stx));
	T_ASSERT(stx.stx_mask & T_STATX_MNT_ID);
	T_ASSERT(!(stx.stx_mask & T_STATX_MNT_ID_UNIQUE));
	T_ASSERT(stx.stx_mnt_id <= UNIQ_OFF);
}

/* ---- backend and features ---- */

T_CASE(backend_auto_selects_mountinfo)
{
	need_old();
	unsetenv("MNTKIT_BACKEND");
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_EQ_STR(mntkit_backend_name(mntkit_get_backend()), "mountinfo");
}

T_CASE(backend_native_cannot_be_forced)
{
	need_old();
	unsetenv("MNTKIT_BACKEND");
	T_NEG(mntkit_set_backend(MNTKIT_BACKEND_NATIVE), ENOSYS);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_AUTO), 0);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_NEG(mntkit_set_backend((enum mntkit_backend)7), EINVAL);
}

/*
 * MNTKIT_BACKEND=native on an old kernel: ignored, as mntkit_set_backend()
 * would refuse it (-ENOSYS): the emulation serves the calls
 */
T_CASE(backend_env_native_ignored)
{
	struct mntkit_mnt_id_req req = {.size = 24, .mnt_id = 1, .param = 2};
	struct mntkit_statmount sm;
	uint64_t *ids;
	ssize_t n;

	need_old();
	req.mnt_id = t_old_id("/"); /* rootfs (ID 1) may be hidden below / */
	setenv("MNTKIT_BACKEND", "native", 1);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
	T_OK(mntkit_statmount(&req, &sm, sizeof(sm), 0));
	T_EQ_U(sm.mnt_id, req.mnt_id);
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	T_ASSERTF(n > 0, "mntkit_list: %s", strerror((int)-n));
	free(ids);
	T_NEG(mntkit_set_backend(MNTKIT_BACKEND_NATIVE), ENOSYS);
	T_EQ_I(mntkit_get_backend(), MNTKIT_BACKEND_MOUNTINFO);
}

T_CASE(features_of_an_old_kernel)
{
	struct mntkit_features f = {.size = sizeof(f)};
	uint32_t never = MNTKIT_FEAT_STATMOUNT | MNTKIT_FEAT_LISTMOUNT |
			 MNTKIT_FEAT_UNIQUE_IDS | MNTKIT_FEAT_STATX_UNIQUE |
			 MNTKIT_FEAT_HANDLE_UNIQUE | MNTKIT_FEAT_NS_ID |
			 MNTKIT_FEAT_REQ_NS_ID | MNTKIT_FEAT_REQ_NS_FD |
			 MNTKIT_FEAT_LIST_REVERSE | MNTKIT_FEAT_FANOTIFY_MNT |
			 MNTKIT_FEAT_NS_ITER;

	need_old();
	T_EQ_I(mntkit_get_features(&f), 0);
	T_EQ_I(f.backend, MNTKIT_BACKEND_MOUNTINFO);
	T_ASSERTF(!(f.flags & never), "flags %#x", f.flags);
	T_EQ_U(f.kernel_mask, 0);
	T_EQ_U(f.supported_mask, EMUL_MASK_61);
}

/* ---- listings ---- */

T_CASE(list_root_equals_mountinfo)
{
	struct t_mitab tab;
	uint64_t *ids, *want;
	size_t n, nw;

	need_old();
	t_mi_read(0, &tab);
	n = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	nw = mi_ids(&tab, &want);
	same_ids(ids, n, want, nw, "LSMT_ROOT");
	/* the guest's init mounted these; every one is listed */
	T_ASSERTF(n >= 5, "only %zu mounts", n);
	for (size_t i = 1; i < n; i++)
		T_ASSERT(ids[i - 1] < ids[i]);
	free(ids);
	n = list_ok(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_REVERSE, NULL, &ids);
	T_EQ_U(n, nw);
	for (size_t i = 0; i < n; i++)
		T_EQ_U(ids[i], want[n - 1 - i]);
	free(ids);
	free(want);
	t_mi_free(&tab);
}

/* raw listmount: every page size, cursors that do and do not exist */
T_CASE(listmount_pages_and_cursors)
{
	struct mntkit_mnt_id_req req = {.size = 24, .mnt_id = MNTKIT_LSMT_ROOT};
	uint64_t *all, page[64];
	size_t n;

	need_old();
	n = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &all);
	T_ASSERT(n >= 3);
	for (size_t sz = 1; sz <= n + 1; sz++) {
		for (int rev = 0; rev < 2; rev++) {
			size_t got = 0;
			ssize_t r;

			req.param = 0;
			for (;;) {
				r = mntkit_listmount(
					&req, page, sz < 64 ? sz : 64,
					rev ? MNTKIT_LISTMOUNT_REVERSE : 0);
				T_ASSERTF(r >= 0, "page %zu: %s", sz,
					  strerror(errno));
				if (!r)
					break;
				for (ssize_t i = 0; i < r; i++, got++) {
					T_ASSERT(got < n);
					T_EQ_U(page[i], rev ? all[n - 1 - got]
							    : all[got]);
				}
				req.param = page[r - 1];
			}
			T_EQ_U(got, n);
		}
	}
	/* a cursor between two IDs, and past the last */
	req.param = all[0] + 1;
	if (n > 1 && all[1] > all[0] + 1) {
		T_EQ_I(mntkit_listmount(&req, page, 64, 0),
		       n - 1 < 64 ? n - 1 : 64);
		T_EQ_U(page[0], all[1]);
	}
	req.param = all[n - 1];
	T_EQ_I(mntkit_listmount(&req, page, 64, 0), 0);
	req.param = all[0];
	T_EQ_I(mntkit_listmount(&req, page, 64, MNTKIT_LISTMOUNT_REVERSE), 0);
	/* ~0 wraps around to the start, as the kernel's cursor + 1 does */
	req.param = ~0ULL;
	T_EQ_I(mntkit_listmount(&req, page, 64, 0), n < 64 ? n : 64);
	free(all);
}

/* ---- every field of every mount ---- */

T_CASE(every_mount_matches_mountinfo)
{
	need_old();
	check_all();
}

T_CASE(ids_are_the_old_ids)
{
	const char *paths[] = {"/", "/proc", "/dev", "/tmp", "/sys", "/run"};
	struct mntkit_statmount *sm;
	uint64_t *ids;
	size_t n;

	need_old();
	n = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	for (size_t i = 0; i < n; i++)
		T_ASSERTF(ids[i] > 0 && ids[i] <= UNIQ_OFF,
			  "ID %#" PRIx64 " is not an old ID", ids[i]);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		uint64_t id, want = old_id(paths[i]);

		T_EQ_I(mntkit_path_id(AT_FDCWD, paths[i], 0, &id), 0);
		T_EQ_U(id, want);
		T_ASSERT(t_contains_u64(ids, n, id));
		sm = stat_ok(id, MNTKIT_STATMOUNT_MNT_BASIC |
					 MNTKIT_STATMOUNT_MNT_POINT);
		T_EQ_U(sm->mnt_id, want);
		T_EQ_U(sm->mnt_id_old, want);
		T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_POINT), paths[i]);
		free(sm);
	}
	free(ids);
}

T_CASE(path_id_flags_and_stat_path)
{
	struct mntkit_statmount *sm;
	uint64_t id;
	int fd;

	need_old();
	/* a file inside a mount, AT_EMPTY_PATH on an fd, a symlink */
	T_EQ_I(mntkit_path_id(AT_FDCWD, "/proc/self/status", 0, &id), 0);
	T_EQ_U(id, old_id("/proc"));
	fd = open("/dev", O_PATH | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	T_EQ_I(mntkit_path_id(fd, "", AT_EMPTY_PATH, &id), 0);
	T_EQ_U(id, old_id("/dev"));
	T_EQ_I(mntkit_path_id(fd, "null", 0, &id), 0);
	T_EQ_U(id, old_id("/dev"));
	close(fd);
	/* /proc/self is a symlink into /proc: the same mount either way */
	T_EQ_I(mntkit_path_id(AT_FDCWD, "/proc/self", AT_SYMLINK_NOFOLLOW, &id),
	       0);
	T_EQ_U(id, old_id("/proc"));
	T_NEG(mntkit_path_id(AT_FDCWD, "/no/such/path", 0, &id), ENOENT);
	T_NEG(mntkit_path_id(AT_FDCWD, NULL, 0, &id), EINVAL);
	T_NEG(mntkit_path_id(AT_FDCWD, "/", 0, NULL), EINVAL);

	T_EQ_I(mntkit_stat_path(AT_FDCWD, "/tmp", 0,
				MNTKIT_STATMOUNT_MNT_BASIC |
					MNTKIT_STATMOUNT_FS_TYPE,
				&sm),
	       0);
	T_EQ_U(sm->mnt_id, old_id("/tmp"));
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_FS_TYPE), "tmpfs");
	free(sm);
}

T_CASE(root_mount_is_its_own_parent)
{
	struct mntkit_statmount *sm;
	struct t_mitab tab;
	struct t_mi *m;
	uint64_t id, id2;

	need_old();
	t_mi_read(0, &tab);
	m = t_mi_by_id(&tab, old_id("/"));
	T_ASSERT(m);
	T_EQ_I(mntkit_root_id(0, NULL, &id), 0);
	T_EQ_U(id, m->id);
	sm = stat_ok(id, MNTKIT_STATMOUNT_MNT_BASIC | MNTKIT_STATMOUNT_FS_TYPE);
	T_EQ_U(sm->mnt_parent_id, m->parent);
	if (m->parent == m->id) {
		/* the namespace's true root: its own parent */
		T_EQ_U(sm->mnt_parent_id, sm->mnt_id);
		T_EQ_I(mntkit_root_id(MNTKIT_TABLE_F_UNREACHABLE, NULL, &id2), 0);
		T_EQ_U(id2, id);
	}
	t_log("root: id %" PRIu64 " parent %" PRIu64 " type %s\n", id,
	      m->parent, sm_s(sm, MNTKIT_FIELD_FS_TYPE));
	free(sm);
	t_mi_free(&tab);
}

/* ---- a crafted table in a private namespace ---- */

T_CASE(variety_matches_mountinfo)
{
	char *d, *odd;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	/* tmpfs options, per-mount flags, atime variants */
	mk_tmpfs(t_path("%s/opts", d), 0,
		 "size=3m,nr_inodes=1234,mode=1750,uid=12,gid=34");
	mk_tmpfs(t_path("%s/flags", d),
		 MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mk_tmpfs(t_path("%s/noatime", d), MS_NOATIME | MS_NODIRATIME, NULL);
	mk_tmpfs(t_path("%s/strict", d), MS_STRICTATIME, NULL);
	mk_tmpfs(t_path("%s/sync", d), MS_SYNCHRONOUS | MS_DIRSYNC, NULL);
	mk_tmpfs(t_path("%s/lazy", d), MS_LAZYTIME, NULL);
	/* a bind of a subdirectory (mnt_root) and of a file */
	t_mkdir(t_path("%s/opts/sub", d));
	t_mkdir(t_path("%s/opts/sub/deeper", d));
	mk_bind(t_path("%s/opts/sub/deeper", d), t_path("%s/subbind", d), 0);
	mk_file(t_path("%s/opts/file", d));
	mk_bind(t_path("%s/opts/file", d), t_path("%s/filebind", d), 0);
	/* a read-only bind of a writable superblock */
	mk_bind(t_path("%s/opts", d), t_path("%s/robind", d), 0);
	t_mount(NULL, t_path("%s/robind", d), NULL,
		MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, NULL);
	/* names that mountinfo escapes: space, tab, newline, backslash */
	odd = t_path("%s/a b\tc\nd\\e", d);
	t_mkdir(odd);
	t_mount("my source\\x", odd, "tmpfs", 0, "size=1m");
	/* other types */
	t_mkdir(t_path("%s/proc2", d));
	t_mount("proc", t_path("%s/proc2", d), "proc", MS_NOSUID, NULL);
	t_mkdir(t_path("%s/sys2", d));
	t_mount("sysfs", t_path("%s/sys2", d), "sysfs", MS_RDONLY, NULL);
	t_mkdir(t_path("%s/ramfs", d));
	if (mount("ramfs", t_path("%s/ramfs", d), "ramfs", 0, "mode=700"))
		t_log("ramfs: %s\n", strerror(errno));
	t_mkdir(t_path("%s/devpts", d));
	if (mount("devpts", t_path("%s/devpts", d), "devpts", 0,
		  "newinstance,ptmxmode=0666"))
		t_log("devpts: %s\n", strerror(errno));
	T_ASSERT(check_all() >= 15);
}

T_CASE(escaped_names_are_raw_strings)
{
	struct mntkit_statmount *sm;
	char *d, *odd;
	uint64_t id;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	odd = t_path("%s/sp ace\ttab\nnl\\bs", d);
	t_mkdir(odd);
	t_mount("src with space", odd, "tmpfs", 0, NULL);
	id = old_id(odd);
	sm = stat_ok(id, MNTKIT_STATMOUNT_ALL);
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_POINT), odd);
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_SB_SOURCE), "src with space");
	free(sm);
	/* the same through path -> ID */
	T_EQ_I(mntkit_path_id(AT_FDCWD, odd, 0, &id), 0);
	T_EQ_U(id, old_id(odd));
}

T_CASE(propagation_shared_slave_unbindable)
{
	char *d;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	/* a shared mount, a peer of it, a slave of it, a slave that is
	 * shared too, an unbindable one, a slave whose master is not
	 * visible (propagate_from) */
	mk_tmpfs(t_path("%s/sh", d), 0, NULL);
	t_mount(NULL, t_path("%s/sh", d), NULL, MS_SHARED, NULL);
	mk_bind(t_path("%s/sh", d), t_path("%s/peer", d), 0);
	mk_bind(t_path("%s/sh", d), t_path("%s/slave", d), 0);
	t_mount(NULL, t_path("%s/slave", d), NULL, MS_SLAVE, NULL);
	mk_bind(t_path("%s/sh", d), t_path("%s/shslave", d), 0);
	t_mount(NULL, t_path("%s/shslave", d), NULL, MS_SLAVE, NULL);
	t_mount(NULL, t_path("%s/shslave", d), NULL, MS_SHARED, NULL);
	mk_bind(t_path("%s/shslave", d), t_path("%s/slave2", d), 0);
	t_mount(NULL, t_path("%s/slave2", d), NULL, MS_SLAVE, NULL);
	mk_tmpfs(t_path("%s/unb", d), 0, NULL);
	t_mount(NULL, t_path("%s/unb", d), NULL, MS_UNBINDABLE, NULL);
	check_all();
	/* hide the masters: chroot into the slaves' parent so that only
	 * slaves are reachable (propagate_from printed or not) */
	{
		struct t_mitab tab;
		int found = 0;
		char *j = t_path("%s/jail", d);

		mk_tmpfs(j, 0, NULL);
		t_mount(NULL, j, NULL, MS_SHARED, NULL);
		mk_bind(j, t_path("%s/jpeer", d), 0);
		t_mkdir(t_path("%s/jpeer/s", d));
		mk_bind(t_path("%s/jpeer", d), t_path("%s/jslave", d), 0);
		t_mount(NULL, t_path("%s/jslave", d), NULL, MS_SLAVE, NULL);
		/* a slave of the jail's peer group, under the jail */
		t_mount(t_path("%s/jslave", d), t_path("%s/s", j), NULL,
			MS_BIND, NULL);
		t_mount(NULL, t_path("%s/s", j), NULL, MS_SLAVE, NULL);
		t_mkdir(t_path("%s/proc", j));
		t_mount("proc", t_path("%s/proc", j), "proc", 0, NULL);
		if (chroot(j) || chdir("/"))
			t_fail("chroot: %s", strerror(errno));
		t_mi_read(0, &tab);
		for (size_t i = 0; i < tab.n; i++) {
			check_entry(&tab, &tab.v[i]);
			found += !!tab.v[i].master;
		}
		T_ASSERT(found >= 1);
		t_mi_free(&tab);
	}
}

T_CASE(stacked_and_overmounted_mounts)
{
	struct t_mitab tab;
	struct mntkit_statmount *sm;
	uint64_t under, top, inner, ids_n;
	uint64_t *ids;
	char *d, *p;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	p = t_path("%s/stack", d);
	under = mk_tmpfs(p, 0, "size=1m");
	t_mkdir(t_path("%s/inner", p));
	inner = mk_tmpfs(t_path("%s/inner", p), 0, NULL);
	top = mk_tmpfs(p, 0, "size=2m");
	T_ASSERT(under != top);
	/* all three are listed and answer, by their old IDs */
	ids_n = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	T_ASSERT(t_contains_u64(ids, ids_n, under));
	T_ASSERT(t_contains_u64(ids, ids_n, inner));
	T_ASSERT(t_contains_u64(ids, ids_n, top));
	free(ids);
	sm = stat_ok(under, MNTKIT_STATMOUNT_ALL);
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_POINT), p);
	T_ASSERT(strstr(sm_s(sm, MNTKIT_FIELD_MNT_OPTS), "size=1024k"));
	/* its point does not resolve to it: SB_BASIC from the type table */
	T_ASSERT(sm->mask & MNTKIT_STATMOUNT_SB_BASIC);
	T_EQ_U(sm->sb_magic, 0x01021994);
	free(sm);
	/* a mount on a mount's root is that mount's child */
	sm = stat_ok(top, MNTKIT_STATMOUNT_MNT_BASIC);
	T_EQ_U(sm->mnt_parent_id, under);
	free(sm);
	sm = stat_ok(under, MNTKIT_STATMOUNT_MNT_BASIC);
	T_EQ_U(sm->mnt_parent_id, old_id(d));
	free(sm);
	T_EQ_I(mntkit_path_id(AT_FDCWD, p, 0, &ids_n), 0);
	T_EQ_U(ids_n, top);
	/* below "under": inner, and top stacked on it */
	ids_n = list_ok(under, MNTKIT_LIST_F_CHILDREN, NULL, &ids);
	T_EQ_U(ids_n, 2);
	T_EQ_U(ids[0], inner < top ? inner : top);
	T_EQ_U(ids[1], inner < top ? top : inner);
	free(ids);
	t_mi_read(0, &tab);
	for (size_t i = 0; i < tab.n; i++)
		check_entry(&tab, &tab.v[i]);
	t_mi_free(&tab);
}

/* the expected children of @id in a mountinfo table, ascending */
static size_t mi_children(const struct t_mitab *tab, uint64_t id, uint64_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < tab->n; i++)
		if (tab->v[i].parent == id && tab->v[i].id != id)
			out[n++] = tab->v[i].id;
	t_sort_u64(out, n);
	return n;
}

static size_t mi_walk(const struct t_mitab *tab, uint64_t id, int rev,
		      uint64_t *out)
{
	uint64_t *kids = t_xcalloc(tab->n + 1, sizeof(*kids));
	size_t nk = mi_children(tab, id, kids), n = 0;

	for (size_t k = 0; k < nk; k++) {
		uint64_t c = kids[rev ? nk - 1 - k : k];

		out[n++] = c;
		n += mi_walk(tab, c, rev, out + n);
	}
	free(kids);
	return n;
}

static void build_tree(const char *d)
{
	for (int i = 0; i < 4; i++) {
		char *a = t_path("%s/t%d", d, i);

		mk_tmpfs(a, 0, NULL);
		for (int j = 0; j < 3; j++) {
			char *b = t_path("%s/c%d", a, j);

			mk_tmpfs(b, 0, NULL);
			if (j == 1)
				mk_tmpfs(t_path("%s/g", b), 0, NULL);
		}
	}
	/* a later mount under an early one: IDs do not follow the tree */
	mk_tmpfs(t_path("%s/t0/late", d), 0, NULL);
}

T_CASE(list_children_and_tree)
{
	struct t_mitab tab;
	uint64_t *ids, *want, root;
	size_t n, nw;
	char *d;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	build_tree(d);
	t_mi_read(0, &tab);
	want = t_xcalloc(tab.n + 1, sizeof(*want));
	root = old_id("/");
	for (int rev = 0; rev < 2; rev++) {
		unsigned int r = rev ? MNTKIT_LIST_F_REVERSE : 0;
		uint64_t starts[] = {old_id(d), old_id(t_path("%s/t0", d)),
				     old_id(t_path("%s/t2/c1", d)),
				     old_id(t_path("%s/t3/c2", d))};

		/* LSMT_ROOT: the root first, then depth-first */
		n = list_ok(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE | r, NULL, &ids);
		want[0] = root;
		nw = 1 + mi_walk(&tab, root, rev, want + 1);
		same_ids(ids, n, want, nw, "TREE from LSMT_ROOT");
		free(ids);
		n = list_ok(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_CHILDREN | r, NULL,
			    &ids);
		nw = mi_children(&tab, root, want);
		if (rev)
			for (size_t i = 0; i < nw / 2; i++) {
				uint64_t x = want[i];

				want[i] = want[nw - 1 - i];
				want[nw - 1 - i] = x;
			}
		same_ids(ids, n, want, nw, "CHILDREN of LSMT_ROOT");
		free(ids);
		for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]);
		     s++) {
			n = list_ok(starts[s], MNTKIT_LIST_F_TREE | r, NULL,
				    &ids);
			nw = mi_walk(&tab, starts[s], rev, want);
			same_ids(ids, n, want, nw, "TREE below a mount");
			free(ids);
			n = list_ok(starts[s], MNTKIT_LIST_F_CHILDREN | r, NULL,
				    &ids);
			nw = mi_children(&tab, starts[s], want);
			if (rev)
				for (size_t i = 0; i < nw / 2; i++) {
					uint64_t x = want[i];

					want[i] = want[nw - 1 - i];
					want[nw - 1 - i] = x;
				}
			same_ids(ids, n, want, nw, "CHILDREN of a mount");
			free(ids);
			/* the flat listing: the subtree by ID */
			n = list_ok(starts[s], r, NULL, &ids);
			nw = mi_walk(&tab, starts[s], 0, want);
			t_sort_u64(want, nw);
			if (rev)
				for (size_t i = 0; i < nw / 2; i++) {
					uint64_t x = want[i];

					want[i] = want[nw - 1 - i];
					want[nw - 1 - i] = x;
				}
			same_ids(ids, n, want, nw,
				 "flat listing below a mount");
			free(ids);
		}
	}
	T_NEG(mntkit_list(MNTKIT_LSMT_ROOT,
			  MNTKIT_LIST_F_TREE | MNTKIT_LIST_F_CHILDREN, NULL, &ids),
	      EINVAL);
	T_NEG(mntkit_list(MNTKIT_LSMT_ROOT, 0x100, NULL, &ids), EINVAL);
	T_NEG(mntkit_list(999999, MNTKIT_LIST_F_TREE, NULL, &ids), ENOENT);
	free(want);
	t_mi_free(&tab);
}

T_CASE(table_snapshot_and_tree)
{
	struct mntkit_table *t;
	struct t_mitab tab;
	size_t n;
	ssize_t r;
	char *d;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	build_tree(d);
	t_mi_read(0, &tab);
	T_EQ_I(mntkit_table_new(MNTKIT_STATMOUNT_MNT_POINT, 0, NULL, &t), 0);
	n = mntkit_table_count(t);
	T_EQ_U(n, tab.n);
	r = mntkit_table_first_root(t);
	T_ASSERT(r >= 0);
	T_EQ_U(mntkit_table_get(t, (size_t)r)->mnt_id, old_id("/"));
	T_NEG(mntkit_table_next_sibling(t, (size_t)r), ENOENT);
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);
		struct t_mi *m = t_mi_by_id(&tab, sm->mnt_id);
		ssize_t p = mntkit_table_parent(t, i), c, prev = -1;
		const char *pt;

		T_ASSERTF(m, "table ID %" PRIu64 " not in mountinfo",
			  sm->mnt_id);
		if (i)
			T_ASSERT(mntkit_table_get(t, i - 1)->mnt_id <
				 sm->mnt_id);
		T_EQ_I(mntkit_table_find(t, sm->mnt_id), i);
		T_EQ_I(mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &pt),
		       0);
		T_EQ_STR(pt, m->point);
		/* the root: its own parent (rootfs as /), or above a mount
		 * outside the table (/ over rootfs, as after switch_root) */
		if (m->parent == m->id || !t_mi_by_id(&tab, m->parent)) {
			T_EQ_I(p, -ENOENT); /* a root: no parent */
			T_EQ_U(mntkit_table_depth(t, i), 0);
		} else {
			T_ASSERT(p >= 0);
			T_EQ_U(mntkit_table_get(t, (size_t)p)->mnt_id,
			       m->parent);
			T_EQ_U(mntkit_table_depth(t, i),
			       mntkit_table_depth(t, (size_t)p) + 1);
		}
		for (c = mntkit_table_first_child(t, i); c >= 0;
		     c = mntkit_table_next_sibling(t, (size_t)c)) {
			T_EQ_I(mntkit_table_parent(t, (size_t)c), i);
			if (prev >= 0)
				T_ASSERT(
					mntkit_table_get(t, (size_t)prev)
						->mnt_id <
					mntkit_table_get(t, (size_t)c)->mnt_id);
			prev = c;
		}
	}
	T_NEG(mntkit_table_find(t, 999999), ENOENT);
	mntkit_table_free(t);
	t_mi_free(&tab);
}

/* ---- the kernel ABI's errors, as the emulation gives them on 6.1 ---- */

T_CASE(statmount_errno_rules)
{
	char big[8192], buf[4096];
	struct mntkit_mnt_id_req *r = (struct mntkit_mnt_id_req *)big;
	struct mntkit_statmount *sm = (struct mntkit_statmount *)buf;
	uint64_t root;
	int fd;

	need_old();
	root = old_id("/");
	memset(big, 0, sizeof(big));
	r->size = 24;
	r->mnt_id = root;
	r->param = MNTKIT_STATMOUNT_ALL;
	T_OK(mntkit_statmount(r, sm, sizeof(buf), 0));
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 1), EINVAL);
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0x80000000u), EINVAL);
	r->size = 23;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), EINVAL);
	r->size = 0;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), EINVAL);
	r->size = 4097;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), E2BIG);
	r->size = 40;
	T_OK(mntkit_statmount(r, sm, sizeof(buf), 0));
	big[36] = 1;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), E2BIG);
	big[36] = 0;
	r->size = 32;
	/* IDs: 0 is never one; every other value is an old ID that names
	 * a mount or not (ENOENT) - there are no unique IDs to refuse for */
	r->mnt_id = 0;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), EINVAL);
	r->mnt_id = 999999;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), ENOENT);
	r->mnt_id = UNIQ_OFF;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), ENOENT);
	r->mnt_id = (1ULL << 62) + 12345;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), ENOENT);
	r->mnt_id = MNTKIT_LSMT_ROOT;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), ENOENT);
	r->mnt_id = root;
	/* namespaces */
	r->mnt_ns_id = 1;
	r->mnt_ns_fd = 3;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), EINVAL);
	r->mnt_ns_fd = 0;
	r->mnt_ns_id = 0xdeadbeefULL; /* 6.1 has no namespace IDs */
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), ENOENT);
	r->mnt_ns_id = 0;
	r->mnt_ns_fd = 987;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), EBADF);
	fd = open("/", O_RDONLY | O_CLOEXEC);
	r->mnt_ns_fd = (uint32_t)fd;
	T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), EINVAL);
	close(fd);
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		r->mnt_ns_fd = (uint32_t)fd;
		T_ERRNO(mntkit_statmount(r, sm, sizeof(buf), 0), EINVAL);
		close(fd);
	}
	fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	r->mnt_ns_fd = (uint32_t)fd;
	T_OK(mntkit_statmount(r, sm, sizeof(buf), 0));
	T_EQ_U(sm->mnt_id, root);
	close(fd);
	r->mnt_ns_fd = 0;
	/* buffers */
	r->param = MNTKIT_STATMOUNT_FS_TYPE;
	T_ERRNO(mntkit_statmount(r, sm, 512, 0), EOVERFLOW);
	T_ERRNO(mntkit_statmount(r, sm, 513, 0), EOVERFLOW);
	r->mnt_id = 999999;
	T_ERRNO(mntkit_statmount(r, sm, 512, 0), EOVERFLOW);
	r->mnt_id = root;
	r->param = MNTKIT_STATMOUNT_MNT_BASIC;
	T_OK(mntkit_statmount(r, NULL, 0, 0));
	T_ERRNO(mntkit_statmount(r, NULL, 600, 0), EFAULT);
	T_ERRNO(mntkit_statmount(NULL, sm, sizeof(buf), 0), EFAULT);
	/* unknown request bits are ignored */
	r->param = MNTKIT_STATMOUNT_MNT_BASIC | (1ULL << 40);
	T_OK(mntkit_statmount(r, sm, sizeof(buf), 0));
	T_EQ_U(sm->mask, MNTKIT_STATMOUNT_MNT_BASIC);
}

T_CASE(listmount_errno_rules)
{
	struct mntkit_mnt_id_req r = {.size = 24, .mnt_id = MNTKIT_LSMT_ROOT};
	uint64_t ids[8];

	need_old();
	T_OK(mntkit_listmount(&r, ids, 8, 0));
	T_OK(mntkit_listmount(&r, ids, 8, MNTKIT_LISTMOUNT_REVERSE));
	T_ERRNO(mntkit_listmount(&r, ids, 8, 2), EINVAL);
	T_ERRNO(mntkit_listmount(&r, ids, 1000001, 0), EOVERFLOW);
	T_EQ_I(mntkit_listmount(&r, ids, 0, 0), 0);
	T_ERRNO(mntkit_listmount(&r, NULL, 8, 0), EFAULT);
	T_ERRNO(mntkit_listmount(NULL, ids, 8, 0), EFAULT);
	r.size = 10;
	T_ERRNO(mntkit_listmount(&r, ids, 8, 0), EINVAL);
	r.size = 5000;
	T_ERRNO(mntkit_listmount(&r, ids, 8, 0), E2BIG);
	r.size = 24;
	r.mnt_id = 0;
	T_ERRNO(mntkit_listmount(&r, ids, 8, 0), EINVAL);
	r.mnt_id = 999999;
	T_ERRNO(mntkit_listmount(&r, ids, 8, 0), ENOENT);
	r.mnt_id = (1ULL << 62) + 5;
	T_ERRNO(mntkit_listmount(&r, ids, 8, 0), ENOENT);
	/* below /proc: nothing (binfmt_misc etc. are not mounted here) */
	r.mnt_id = old_id("/proc");
	T_ASSERT(mntkit_listmount(&r, ids, 8, 0) >= 0);
	/* /dev has pts and mqueue below it */
	r.mnt_id = old_id("/dev");
	T_ASSERT(mntkit_listmount(&r, ids, 8, 0) >= 1);
}

/* EOVERFLOW exactly where the kernel gives it, for every mount */
T_CASE(eoverflow_boundary_every_mount)
{
	uint64_t *ids,
		masks[] = {MNTKIT_STATMOUNT_ALL, MNTKIT_STATMOUNT_MNT_POINT,
			   MNTKIT_STATMOUNT_SB_SOURCE |
				   MNTKIT_STATMOUNT_OPT_ARRAY};
	size_t n;

	need_old();
	n = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < 3; k++) {
			struct mntkit_mnt_id_req r = {.size = 24,
						      .mnt_id = ids[i],
						      .param = masks[k]};
			struct mntkit_statmount *sm = stat_ok(ids[i], masks[k]);
			size_t size = sm->size;
			char *buf = t_xmalloc(size + 64);

			T_ASSERT(size > 512);
			memset(buf, 0x5a, size + 64);
			T_OK(mntkit_statmount(&r, (void *)buf, size, 0));
			T_ASSERT(!memcmp(buf + 8, (char *)sm + 8, size - 8));
			/* nothing written past the buffer */
			for (size_t b = size; b < size + 64; b++)
				T_EQ_U((unsigned char)buf[b], 0x5a);
			T_ERRNO(mntkit_statmount(&r, (void *)buf, size - 1, 0),
				EOVERFLOW);
			free(buf);
			free(sm);
		}
	}
	free(ids);
}

T_CASE(short_buffers_fixed_part)
{
	struct mntkit_mnt_id_req r = {.size = 24,
				      .param = MNTKIT_STATMOUNT_MNT_BASIC |
					       MNTKIT_STATMOUNT_SB_BASIC};
	struct mntkit_statmount *full;
	char buf[600];

	need_old();
	r.mnt_id = old_id("/tmp");
	full = stat_ok(r.mnt_id, r.param);
	T_EQ_U(full->size, 512);
	for (size_t size = 0; size <= 520; size += (size < 64 ? 1 : 23)) {
		memset(buf, 0x5a, sizeof(buf));
		T_OK(mntkit_statmount(&r, (void *)buf, size, 0));
		if (size >= 4) {
			uint32_t got;

			memcpy(&got, buf, 4);
			T_EQ_U(got, size < 512 ? size : 512);
		}
		if (size > 8)
			T_ASSERT(!memcmp(buf + 8, (char *)full + 8,
					 (size < 512 ? size : 512) - 8));
		for (size_t b = size; b < sizeof(buf); b++)
			T_EQ_U((unsigned char)buf[b], 0x5a);
	}
	free(full);
}

T_CASE(string_area_layout)
{
	struct mntkit_statmount *sm;
	const char *end, *s;

	need_old();
	sm = stat_ok(old_id("/run"), MNTKIT_STATMOUNT_ALL);
	/* the area starts with an empty string; each string ends in NUL
	 * inside the reply; the last byte of the reply is a NUL */
	T_EQ_U((unsigned char)sm->str[0], 0);
	end = (const char *)sm + sm->size;
	T_EQ_U((unsigned char)end[-1], 0);
	for (int f = MNTKIT_FIELD_FS_TYPE; f <= MNTKIT_FIELD_SB_SOURCE; f++) {
		int r = mntkit_sm_str(sm, sm->size, (enum mntkit_field)f, &s);

		T_ASSERTF(r == 0 || r == -ENODATA, "%s: %d",
			  mntkit_field_name((enum mntkit_field)f), r);
		if (!r)
			T_ASSERT(s > sm->str && s + strlen(s) < end);
	}
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_FS_TYPE), "tmpfs");
	T_ASSERT(strstr(sm_s(sm, MNTKIT_FIELD_MNT_OPTS), "nr_inodes=4096"));
	T_ASSERT(strstr(sm_s(sm, MNTKIT_FIELD_MNT_OPTS), "mode=755"));
	free(sm);
}

T_CASE(long_strings_grow_the_buffer)
{
	struct mntkit_statmount *sm = NULL, *small;
	char src[2100], *d, *p;
	size_t size;
	uint64_t id;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	/* a mount point of ~3000 bytes and a source of 2000 */
	p = t_xstrdup(d);
	for (int i = 0; strlen(p) < 3000; i++) {
		char *q =
			t_path("%s/%s%02d", p,
			       "directory-name-of-some-length-xxxxxxxxxxx", i);

		t_mkdir(q);
		p = q;
	}
	memset(src, 's', 2000);
	src[2000] = 0;
	t_mount(src, p, "tmpfs", 0, "size=1m");
	id = old_id(p);
	sm = stat_ok(id, MNTKIT_STATMOUNT_ALL);
	T_ASSERT(sm->size > 5000);
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_POINT), p);
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_SB_SOURCE), src);
	/* stat_buf from a tiny buffer grows it */
	small = t_xmalloc(512);
	size = 512;
	T_EQ_I(mntkit_stat_buf(id, MNTKIT_STATMOUNT_ALL, NULL, &small, &size),
	       0);
	T_ASSERT(size >= small->size);
	T_EQ_U(small->size, sm->size);
	T_ASSERT(!memcmp(small, sm, sm->size));
	free(small);
	free(sm);
}

/* ---- changes, reuse, vanishing ---- */

T_CASE(old_ids_are_reused)
{
	struct mntkit_statmount *sm;
	struct t_mitab tab;
	uint64_t a, b;
	char *d;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	a = mk_tmpfs(t_path("%s/first", d), 0, NULL);
	t_umount(t_path("%s/first", d));
	/* the old ID names nothing now */
	T_NEG(mntkit_stat(a, MNTKIT_STATMOUNT_MNT_BASIC, NULL, &sm), ENOENT);
	b = mk_tmpfs(t_path("%s/second", d), 0, NULL);
	t_log("first mount had ID %" PRIu64 ", the next one got %" PRIu64 "\n",
	      a, b);
	/* whatever the kernel gave: the library names it the same */
	sm = stat_ok(b,
		     MNTKIT_STATMOUNT_MNT_BASIC | MNTKIT_STATMOUNT_MNT_POINT);
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_POINT), t_path("%s/second", d));
	free(sm);
	t_mi_read(0, &tab);
	T_ASSERT(t_mi_by_id(&tab, b));
	t_mi_free(&tab);
	if (a != b)
		t_skip("the kernel did not reuse ID %" PRIu64 " (gave %" PRIu64
		       ")",
		       a, b);
	/* reused: the same number is another mount now (documented) */
	sm = stat_ok(a, MNTKIT_STATMOUNT_MNT_POINT);
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_POINT), t_path("%s/second", d));
	free(sm);
}

T_CASE(cache_follows_changes)
{
	struct mntkit_statmount *sm;
	uint64_t *ids, id;
	size_t n0, n1;
	char *p;

	need_old();
	t_private_ns();
	p = t_path("%s/c", t_tmpdir());
	n0 = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	free(ids);
	id = mk_tmpfs(p, 0, "size=1m");
	n1 = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	free(ids);
	T_EQ_U(n1, n0 + 1);
	t_mount(NULL, p, NULL, MS_REMOUNT, "size=2m");
	sm = stat_ok(id, MNTKIT_STATMOUNT_MNT_OPTS);
	T_ASSERTF(strstr(sm_s(sm, MNTKIT_FIELD_MNT_OPTS), "size=2048k"),
		  "remount not seen: %s", sm_s(sm, MNTKIT_FIELD_MNT_OPTS));
	free(sm);
	t_mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	sm = stat_ok(id, MNTKIT_STATMOUNT_MNT_BASIC);
	T_ASSERT(sm->mnt_attr & MNTKIT_MOUNT_ATTR_RDONLY);
	free(sm);
	t_umount(p);
	T_NEG(mntkit_stat(id, MNTKIT_STATMOUNT_MNT_BASIC, NULL, &sm), ENOENT);
	n1 = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	free(ids);
	T_EQ_U(n1, n0);
	/* a fork sees its own namespace's state */
	mk_tmpfs(p, 0, NULL);
	{
		pid_t pid = fork();

		if (pid == 0) {
			uint64_t *v;
			ssize_t k = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &v);

			_exit(k == (ssize_t)n0 + 1 ? 0 : 1);
		}
		t_wait_child(pid, "forked lister");
	}
}

/* propagation changes are not signalled by poll: seen once the table
 * has aged (250 ms at most) */
T_CASE(propagation_change_seen_after_aging)
{
	struct mntkit_statmount *sm;
	uint64_t id;
	char *p;

	need_old();
	t_private_ns();
	p = t_path("%s/pr", t_tmpdir());
	id = mk_tmpfs(p, 0, NULL);
	sm = stat_ok(id, MNTKIT_STATMOUNT_MNT_BASIC);
	T_EQ_U(sm->mnt_propagation, MNTKIT_MS_PRIVATE);
	free(sm);
	t_mount(NULL, p, NULL, MS_SHARED, NULL);
	usleep(300 * 1000);
	sm = stat_ok(id, MNTKIT_STATMOUNT_MNT_BASIC);
	T_EQ_U(sm->mnt_propagation, MNTKIT_MS_SHARED);
	T_ASSERT(sm->mnt_peer_group > 0);
	free(sm);
}

/* ---- namespaces ---- */

struct ns_child {
	pid_t pid;
	int go;
};

/* a child in a new mount namespace with one more tmpfs, waiting */
static struct ns_child ns_child_start(const char *extra)
{
	int go[2], ready[2];
	struct ns_child c;
	char x;

	if (pipe(go) || pipe(ready))
		t_fail("pipe: %s", strerror(errno));
	c.pid = fork();
	if (c.pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (c.pid == 0) {
		close(go[1]);
		close(ready[0]);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("nsonly", extra, "tmpfs", 0, "size=1m"))
			_exit(1);
		if (write(ready[1], "x", 1) != 1 || read(go[0], &x, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	if (read(ready[0], &x, 1) != 1)
		t_fail("namespace child not ready");
	close(ready[0]);
	c.go = go[1];
	return c;
}

static void ns_child_stop(struct ns_child *c)
{
	if (write(c->go, "x", 1) != 1)
		t_fail("write: %s", strerror(errno));
	close(c->go);
	t_wait_child(c->pid, "namespace child");
}

T_CASE(foreign_namespace_by_fd_raw)
{
	struct mntkit_mnt_id_req r = {.size = 24, .mnt_id = MNTKIT_LSMT_ROOT};
	struct mntkit_statmount *sm;
	struct ns_child c;
	struct t_mitab tab;
	uint64_t ids[4096], *want, extra = 0;
	ssize_t n;
	size_t nw;
	char *d, buf[8192];
	int fd;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	c = ns_child_start(d);
	fd = open(t_path("/proc/%d/ns/mnt", (int)c.pid), O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	r.mnt_ns_fd = (uint32_t)fd;
	n = mntkit_listmount(&r, ids, 4096, 0);
	T_ASSERTF(n > 0, "listmount by ns fd: %s", strerror(errno));
	t_mi_read(c.pid, &tab);
	nw = mi_ids(&tab, &want);
	same_ids(ids, (size_t)n, want, nw, "listmount by mnt_ns_fd");
	for (size_t i = 0; i < tab.n; i++)
		if (!strcmp(tab.v[i].source, "nsonly"))
			extra = tab.v[i].id;
	T_ASSERT(extra);
	/* a mount that exists only there */
	r.mnt_id = extra;
	r.param = MNTKIT_STATMOUNT_ALL;
	sm = (struct mntkit_statmount *)buf;
	T_OK(mntkit_statmount(&r, sm, sizeof(buf), 0));
	T_EQ_U(sm->mnt_id, extra);
	T_ASSERT(!(sm->mask & MNTKIT_STATMOUNT_MNT_NS_ID));
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_SB_SOURCE), "nsonly");
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_POINT), d);
	/* not here */
	r.mnt_ns_fd = 0;
	{
		struct t_mitab mine;

		t_mi_read(0, &mine);
		if (!t_mi_by_id(&mine, extra))
			T_ERRNO(mntkit_statmount(&r, sm, sizeof(buf), 0),
				ENOENT);
		t_mi_free(&mine);
	}
	ns_child_stop(&c);
	/*
	 * No process is left in it, but the fd keeps the namespace and its
	 * mounts: the emulation enters it (setns) and lists what the child's
	 * mountinfo listed (before, ENOENT: it read through a process only)
	 */
	r.mnt_ns_fd = (uint32_t)fd;
	r.mnt_id = MNTKIT_LSMT_ROOT;
	r.param = 0;
	n = mntkit_listmount(&r, ids, 4096, 0);
	T_ASSERTF(n > 0, "listmount of a namespace without processes: %s",
		  strerror(errno));
	same_ids(ids, (size_t)n, want, nw, "listmount by mnt_ns_fd, no process");
	r.mnt_id = extra;
	r.param = MNTKIT_STATMOUNT_ALL;
	T_OK(mntkit_statmount(&r, sm, sizeof(buf), 0));
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_SB_SOURCE), "nsonly");
	T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_POINT), d);
	close(fd);
	free(want);
	t_mi_free(&tab);
}

T_CASE(foreign_namespace_by_pid_conveniences)
{
	MNTKIT_OPTS(opts);
	struct ns_child c;
	struct t_mitab tab;
	uint64_t *ids, *want;
	ssize_t n;
	size_t nw;
	char *d;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	c = ns_child_start(d);
	t_mi_read(c.pid, &tab);
	nw = mi_ids(&tab, &want);
	opts.pid = c.pid;
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, &opts, &ids);
	if (n < 0) {
		int e = (int)-n;

		ns_child_stop(&c);
		t_fail("mntkit_list(.pid = child in another namespace) = %zd "
		       "(%s); the emulation can serve a namespace by fd",
		       n, strerror(e));
	}
	same_ids(ids, (size_t)n, want, nw, "mntkit_list(.pid)");
	free(ids);
	ns_child_stop(&c);
	free(want);
	t_mi_free(&tab);
}

T_CASE(namespace_ids_unavailable)
{
	struct mntkit_statmount *sm;
	uint64_t id = 0;
	int fd;

	need_old();
	fd = mntkit_ns_open_pid(0);
	T_ASSERT(fd >= 0);
	/* 6.1 has no NS_GET_MNTNS_ID */
	T_ASSERT(mntkit_ns_id_from_fd(fd, &id) < 0);
	t_log("mntkit_ns_id_from_fd on 6.1: %s\n", strerror(errno));
	close(fd);
	T_ASSERT(mntkit_ns_id_from_pid(0, &id) < 0);
	sm = stat_ok(old_id("/"),
		     MNTKIT_STATMOUNT_MNT_NS_ID | MNTKIT_STATMOUNT_MNT_BASIC);
	T_EQ_U(sm->mask, MNTKIT_STATMOUNT_MNT_BASIC);
	free(sm);
	{
		MNTKIT_OPTS(opts, .mnt_ns_id = 12345);
		uint64_t *ids;

		T_NEG(mntkit_list(MNTKIT_LSMT_ROOT, 0, &opts, &ids), ENOENT);
	}
}

/* ---- chroot: only the reachable mounts exist for mountinfo ---- */

static char *enter_jail(void)
{
	char *j = t_path("%s/jail", t_tmpdir());

	mk_tmpfs(j, 0, NULL);
	t_mkdir(t_path("%s/proc", j));
	t_mount("proc", t_path("%s/proc", j), "proc", 0, NULL);
	mk_tmpfs(t_path("%s/inside", j), 0, NULL);
	if (chroot(j) || chdir("/"))
		t_fail("chroot %s: %s", j, strerror(errno));
	return j;
}

T_CASE(chroot_lists_reachable_mounts)
{
	struct t_mitab tab;
	uint64_t *ids, *want, root, id;
	size_t n, nw;

	need_old();
	t_private_ns();
	enter_jail();
	t_mi_read(0, &tab);
	T_EQ_U(tab.n, 3);
	n = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	nw = mi_ids(&tab, &want);
	same_ids(ids, n, want, nw, "LSMT_ROOT in a chroot");
	free(ids);
	root = old_id("/");
	T_EQ_I(mntkit_root_id(0, NULL, &id), 0);
	T_EQ_U(id, root);
	n = list_ok(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE, NULL, &ids);
	T_EQ_U(n, 3);
	T_EQ_U(ids[0], root);
	free(ids);
	for (size_t i = 0; i < tab.n; i++)
		check_entry(&tab, &tab.v[i]);
	free(want);
	t_mi_free(&tab);
}

/* above the chroot the emulation sees nothing: the true root cannot be
 * named; the library must say so with an error, not a wrong ID */
T_CASE(chroot_true_root_unknown)
{
	struct mntkit_table *t = NULL;
	uint64_t true_root, id = 0;
	int r;

	need_old();
	t_private_ns();
	true_root = old_id("/");
	enter_jail();
	r = mntkit_root_id(MNTKIT_TABLE_F_UNREACHABLE, NULL, &id);
	t_log("mntkit_root_id(unreachable) in a chroot: %d (%s), id %" PRIu64
	      ", true root %" PRIu64 "\n",
	      r, r ? strerror(-r) : "ok", id, true_root);
	if (r == 0)
		T_EQ_U(id, true_root);
	r = mntkit_table_new(0, MNTKIT_TABLE_F_UNREACHABLE, NULL, &t);
	t_log("mntkit_table_new(UNREACHABLE) in a chroot: %d (%s)\n", r,
	      r ? strerror(-r) : "ok");
	if (r == 0) {
		/* then it must hold the true root */
		T_ASSERT(mntkit_table_find(t, true_root) >= 0);
		mntkit_table_free(t);
	}
}

/* ---- who may read ---- */

T_CASE(unprivileged_reader)
{
	pid_t pid;

	need_old();
	t_require_root();
	pid = fork();
	if (pid == 0) {
		struct mntkit_statmount *sm;
		struct t_mitab tab;
		uint64_t *ids, *want;
		size_t n, nw;

		if (setgid(65534) || setuid(65534))
			t_fail("setuid: %s", strerror(errno));
		t_mi_read(0, &tab);
		n = list_ok(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
		nw = mi_ids(&tab, &want);
		same_ids(ids, n, want, nw, "unprivileged LSMT_ROOT");
		for (size_t i = 0; i < n; i++) {
			sm = stat_ok(ids[i], MNTKIT_STATMOUNT_ALL);
			free(sm);
		}
		_exit(0);
	}
	t_wait_child(pid, "unprivileged reader");
}

T_CASE(userns_mount_is_listed)
{
	char *dir;
	pid_t pid;

	need_old();
	t_require_root();
	dir = t_path("%s/u", t_base);
	t_mkdir(dir);
	/* the scratch directory is 0700: let the user reach its mount point */
	if (chmod(t_base, 0711) || chmod(dir, 0777))
		t_fail("chmod: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		struct mntkit_statmount *sm;
		uint64_t id;
		char map[64];
		int fd;

		if (setgid(65534) || setuid(65534))
			t_fail("setuid: %s", strerror(errno));
		/* setuid made the process non-dumpable: /proc/self/uid_map
		 * would belong to root */
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			t_skip("unshare(CLONE_NEWUSER|CLONE_NEWNS): %s",
			       strerror(errno));
		fd = open("/proc/self/uid_map", O_WRONLY);
		snprintf(map, sizeof(map), "0 65534 1");
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			t_fail("uid_map: %s", strerror(errno));
		close(fd);
		if (mount("usrns", dir, "tmpfs", 0, "size=1m"))
			t_fail("mount in a user namespace: %s",
			       strerror(errno));
		id = old_id(dir);
		sm = stat_ok(id, MNTKIT_STATMOUNT_ALL);
		T_EQ_STR(sm_s(sm, MNTKIT_FIELD_SB_SOURCE), "usrns");
		T_EQ_STR(sm_s(sm, MNTKIT_FIELD_MNT_POINT), dir);
		free(sm);
		check_all();
		_exit(0);
	}
	t_wait_child(pid, "user namespace child");
}

/* ---- threads and scale ---- */

static volatile int churn_stop;

static void *reader(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int round = 0; round < 30 && !bad; round++) {
		uint64_t *ids;
		ssize_t n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);

		if (n <= 0) {
			bad = 1;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			struct mntkit_statmount *sm;
			int r = mntkit_stat(ids[i], MNTKIT_STATMOUNT_ALL, NULL,
					    &sm);

			if (r == 0) {
				if (sm->mnt_id != ids[i])
					bad = 2;
				free(sm);
			} else if (r != -ENOENT) {
				bad = 3;
			}
		}
		free(ids);
	}
	return (void *)bad;
}

T_CASE(threads_while_mounts_change)
{
	pthread_t th[4];
	char *d;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	for (int i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, reader, NULL))
			t_fail("pthread_create");
	for (int i = 0; i < 60; i++) {
		char *p = t_path("%s/m%d", d, i % 7);

		mk_tmpfs(p, 0, NULL);
		if (i % 2)
			t_umount(p);
	}
	churn_stop = 1;
	for (int i = 0; i < 4; i++) {
		void *ret;

		pthread_join(th[i], &ret);
		T_ASSERTF(!ret, "reader thread %d: error %ld", i, (long)ret);
	}
	check_all();
}

T_CASE(five_hundred_mounts)
{
	struct timespec a, b;
	size_t n;
	char *d;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	mk_tmpfs(t_path("%s/base", d), 0, NULL);
	for (int i = 0; i < 500; i++) {
		char *p = t_path("%s/base/m%03d", d, i);

		t_mkdir(p);
		if (i % 2)
			t_mount(t_path("%s/base", d), p, NULL, MS_BIND, NULL);
		else
			t_mount("tmpfs", p, "tmpfs", 0, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	n = check_all();
	clock_gettime(CLOCK_MONOTONIC, &b);
	T_ASSERT(n >= 500);
	t_log("checked %zu mounts in %.2f s\n", n,
	      (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
}

/* ---- statmnt ---- */

struct tool_out {
	char *out, *err;
	int status;
};

static struct tool_out tool(const char *const *argv)
{
	char *o = t_path("%s/tool.out.XXXXXX", t_base);
	char *e = t_path("%s/tool.err.XXXXXX", t_base);
	int fo = mkstemp(o), fe = mkstemp(e), st;
	struct tool_out r;
	pid_t pid;

	if (fo < 0 || fe < 0)
		t_fail("mkstemp: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			t_fail("waitpid: %s", strerror(errno));
	close(fo);
	close(fe);
	r.out = t_read_file(o, NULL);
	r.err = t_read_file(e, NULL);
	unlink(o);
	unlink(e);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r;
}

static const char *statmnt_path(void)
{
	const char *p = getenv("MNTKIT_STATMNT");

	if (!p)
		p = "/bin/statmnt";
	if (access(p, X_OK))
		t_skip("no statmnt at %s", p);
	return p;
}

/* the value of "key: value" in statmnt's text output (malloc'd) */
static char *kv(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len > kl + 2 && !strncmp(l, key, kl) && l[kl] == ':' &&
		    l[kl + 1] == ' ') {
			char *v = t_xmalloc(len - kl - 1);

			memcpy(v, l + kl + 2, len - kl - 2);
			v[len - kl - 2] = 0;
			return v;
		}
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static void tool_ok(const struct tool_out *r, const char *what)
{
	if (r->status || r->err[0])
		t_fail("statmnt %s: exit %d, stderr: %s", what, r->status,
		       r->err);
}

T_CASE(statmnt_shows_a_mount)
{
	const char *argv[] = {statmnt_path(), "/proc", NULL};
	struct tool_out r;
	struct t_mitab tab;
	struct t_mi *m;
	char want[64], *v;
	uint64_t id;

	need_old();
	id = old_id("/proc");
	t_mi_read(0, &tab);
	m = t_mi_by_id(&tab, id);
	T_ASSERT(m);
	r = tool(argv);
	tool_ok(&r, "/proc");
	snprintf(want, sizeof(want), "%" PRIu64, id);
	T_EQ_STR(kv(r.out, "mnt_id"), want);
	T_EQ_STR(kv(r.out, "mnt_id_old"), want);
	snprintf(want, sizeof(want), "%" PRIu64, m->parent);
	T_EQ_STR(kv(r.out, "mnt_parent_id"), want);
	T_EQ_STR(kv(r.out, "mnt_point"), "</proc>");
	T_EQ_STR(kv(r.out, "mnt_root"), "</>");
	T_EQ_STR(kv(r.out, "fs_type"), "<proc>");
	T_EQ_STR(kv(r.out, "sb_source"), "<proc>");
	snprintf(want, sizeof(want), "%u", m->major);
	T_EQ_STR(kv(r.out, "sb_dev_major"), want);
	snprintf(want, sizeof(want), "%u", m->minor);
	T_EQ_STR(kv(r.out, "sb_dev_minor"), want);
	T_EQ_STR(kv(r.out, "sb_magic"), "0x9fa0");
	v = kv(r.out, "supported_mask");
	snprintf(want, sizeof(want), "%#llx", (unsigned long long)EMUL_MASK_61);
	T_EQ_STR(v, want);
	T_NULL(kv(r.out, "mnt_ns_id"));
	T_ASSERT(strstr(kv(r.out, "mnt_attr"), "nosuid,nodev,noexec"));
	/* by number: the same text */
	{
		char num[32];
		const char *argv2[] = {argv[0], num, NULL};
		struct tool_out r2;

		snprintf(num, sizeof(num), "%" PRIu64, id);
		r2 = tool(argv2);
		tool_ok(&r2, num);
		T_EQ_STR(r2.out, r.out);
	}
	t_mi_free(&tab);
}

/* "ID\tpoint" lines of -r / -l (ID in decimal) */
static size_t parse_listing(const char *text, uint64_t *ids, char **points,
			    size_t cap)
{
	size_t n = 0;

	for (const char *l = text; l && *l && n < cap;) {
		const char *nl = strchr(l, '\n'), *tab = strchr(l, '\t');
		char *end;

		if (!tab || (nl && tab > nl))
			t_fail("statmnt listing line without a tab: %.80s", l);
		ids[n] = strtoull(l, &end, 10);
		if (end != tab || l[0] < '1' || l[0] > '9')
			t_fail("statmnt listing: bad ID in %.80s", l);
		points[n] = strndup(tab + 1, nl ? (size_t)(nl - tab - 1)
						: strlen(tab + 1));
		n++;
		l = nl ? nl + 1 : NULL;
	}
	return n;
}

T_CASE(statmnt_recursive_and_children)
{
	const char *sm = statmnt_path();
	const char *rec[] = {sm, "-r", NULL}, *kids[] = {sm, "-l", "/", NULL};
	struct t_mitab tab;
	uint64_t ids[512], *want;
	char *points[512];
	struct tool_out r;
	size_t n, nw;

	need_old();
	t_mi_read(0, &tab);
	r = tool(rec);
	tool_ok(&r, "-r");
	n = parse_listing(r.out, ids, points, 512);
	T_EQ_U(n, tab.n);
	T_EQ_U(ids[0], old_id("/"));
	for (size_t i = 0; i < n; i++) {
		struct t_mi *m = t_mi_by_id(&tab, ids[i]);

		T_ASSERTF(m, "statmnt -r: ID %" PRIu64 " not in mountinfo",
			  ids[i]);
		T_EQ_STR(points[i], m->point);
	}
	/* depth-first: a parent before its children */
	for (size_t i = 1; i < n; i++) {
		struct t_mi *m = t_mi_by_id(&tab, ids[i]);
		int seen = 0;

		for (size_t k = 0; k < i; k++)
			seen |= ids[k] == m->parent;
		T_ASSERTF(seen, "statmnt -r: %s before its parent", m->point);
	}
	r = tool(kids);
	tool_ok(&r, "-l /");
	n = parse_listing(r.out, ids, points, 512);
	want = t_xcalloc(tab.n + 1, sizeof(*want));
	nw = mi_children(&tab, old_id("/"), want);
	same_ids(ids, n, want, nw, "statmnt -l /");
	free(want);
	t_mi_free(&tab);
}

T_CASE(statmnt_json_and_mask)
{
	const char *sm = statmnt_path();
	const char *js[] = {sm, "--json", "/tmp", NULL};
	const char *mk[] = {sm, "--mask", "mnt_basic,mnt_ns_id", "/tmp", NULL};
	struct tool_out r;
	char want[64];

	need_old();
	r = tool(js);
	tool_ok(&r, "--json /tmp");
	T_ASSERT(r.out[0] == '{');
	snprintf(want, sizeof(want), "\"mnt_id\": %" PRIu64 ",",
		 old_id("/tmp"));
	T_ASSERTF(strstr(r.out, want), "no '%s' in %s", want, r.out);
	T_ASSERT(strstr(r.out, "\"mnt_point\": \"/tmp\""));
	T_ASSERT(strstr(r.out, "\"fs_type\": \"tmpfs\""));
	T_ASSERT(!strstr(r.out, "\"mnt_ns_id\""));
	r = tool(mk);
	tool_ok(&r, "--mask");
	T_EQ_STR(kv(r.out, "mask"), "0x2");
	T_NULL(kv(r.out, "mnt_ns_id"));
	T_NULL(kv(r.out, "fs_type"));
}

T_CASE(statmnt_errors_on_old_kernel)
{
	const char *sm = statmnt_path();
	const char *gone[] = {sm, "999999", NULL};
	const char *zero[] = {sm, "0", NULL};
	const char *nopath[] = {sm, "/no/such/path", NULL};
	struct tool_out r;

	need_old();
	/* an old ID that names no mount: ENOENT (every number is an old ID
	 * here); 0 is never an ID */
	r = tool(gone);
	T_EQ_I(r.status, 1);
	T_EQ_STR(r.out, "");
	T_ASSERTF(strstr(r.err, "statmnt: 999999: no mount has the old ID 999999"),
		  "stderr: %s", r.err);
	r = tool(zero);
	T_EQ_I(r.status, 1);
	T_ASSERTF(strstr(r.err, "Invalid argument"), "stderr: %s", r.err);
	r = tool(nopath);
	T_EQ_I(r.status, 1);
	T_ASSERTF(strstr(r.err, "No such file or directory"), "stderr: %s",
		  r.err);
}

T_CASE(statmnt_other_namespace)
{
	const char *sm = statmnt_path();
	struct ns_child c;
	struct tool_out r;
	struct t_mitab tab;
	uint64_t ids[512];
	char *points[512], nsarg[64], *d;
	size_t n;

	need_old();
	t_private_ns();
	d = t_tmpdir();
	c = ns_child_start(d);
	snprintf(nsarg, sizeof(nsarg), "pid:%d", (int)c.pid);
	{
		const char *argv[] = {sm, "--ns", nsarg, "-r", NULL};

		r = tool(argv);
	}
	t_mi_read(c.pid, &tab);
	ns_child_stop(&c);
	if (r.status)
		t_fail("statmnt --ns pid:PID -r: exit %d: %s", r.status, r.err);
	n = parse_listing(r.out, ids, points, 512);
	T_EQ_U(n, tab.n);
	for (size_t i = 0; i < n; i++)
		T_ASSERT(t_mi_by_id(&tab, ids[i]));
	t_mi_free(&tab);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
