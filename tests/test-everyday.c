// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-everyday.c - the everyday jobs as calls: every mount under a path
 * (and tearing them down in the order given), findmnt's option strings,
 * a reply's strings without a size, an old ID's mount; and each caller's
 * mistake failing with its errno and its reason in the trace.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "harness.h"
#include "mntkit.h"

static void use_backend(const char *name)
{
	if (!strcmp(name, "mountinfo"))
		T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
	else
		T_OK(mntkit_set_backend(MNTKIT_BACKEND_AUTO));
}

/* the mount point of mount @id, or NULL when it has none */
static char *point_of(uint64_t id)
{
	struct mntkit_statmount *sm;
	const char *p;
	char *s;

	if (mntkit_stat(id, MNTKIT_STATMOUNT_MNT_POINT, NULL, &sm))
		return NULL;
	p = mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT);
	s = p ? t_xstrdup(p) : NULL;
	free(sm);
	return s;
}

/* how many mounts mountinfo shows at or below @dir */
static size_t mountinfo_under(const char *dir)
{
	struct t_mitab tab;
	size_t n = 0, len = strlen(dir);

	t_mi_read(0, &tab);
	for (size_t i = 0; i < tab.n; i++) {
		const char *p = tab.v[i].point;

		if (len == 1 || (!strncmp(p, dir, len) &&
				 (!p[len] || p[len] == '/')))
			n++;
	}
	t_mi_free(&tab);
	return n;
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		t_fail("create %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * A pod's mounts under D/x: three tmpfs stacked on D/x, a recursive bind
 * of a tree (D/src with two submounts) to D/x/r, a bind of a file, a
 * mount at D/x/h hidden by a later mount on D/x itself, and two mounts
 * outside D/x that must not be listed (D/out, D/xx).
 */
static char *make_pod(void)
{
	char *d = t_tmpdir(), *x = t_path("%s/x", d);
	char *src = t_path("%s/src", d);

	t_tmpfs(x, 0, NULL);
	t_tmpfs(t_path("%s/h", x), 0, NULL);
	t_tmpfs(x, 0, NULL); /* covers D/x/h */
	t_tmpfs(x, 0, NULL);
	t_tmpfs(src, 0, NULL);
	t_tmpfs(t_path("%s/s1", src), 0, NULL);
	t_tmpfs(t_path("%s/s2", src), 0, NULL);
	t_bind(src, t_path("%s/r", x), 1);
	touch(t_path("%s/file", d));
	touch(t_path("%s/file", x));
	t_mount(t_path("%s/file", d), t_path("%s/file", x), NULL, MS_BIND,
		NULL);
	t_tmpfs(t_path("%s/out", d), 0, NULL);
	t_tmpfs(t_path("%s/xx", d), 0, NULL);
	return x;
}

static void under_teardown(const char *backend)
{
	uint64_t *ids = NULL, *first = NULL;
	ssize_t n, m;
	char *x;

	t_private_ns();
	x = make_pod();
	use_backend(backend);
	n = mntkit_list_under(x, 0, NULL, &first);
	T_ASSERTF(n > 0, "mntkit_list_under: %zd", n);
	T_EQ_U((size_t)n, mountinfo_under(x));
	T_EQ_U((size_t)n, 8); /* 3 + the hidden one + 3 of the rbind + 1 */
	/* parents first: a mount's parent, when listed, comes before it */
	for (ssize_t i = 0; i < n; i++) {
		struct mntkit_statmount *sm;

		T_OK(mntkit_stat(first[i], MNTKIT_STATMOUNT_MNT_BASIC, NULL,
				 &sm));
		for (ssize_t j = i + 1; j < n; j++)
			T_ASSERTF(first[j] != sm->mnt_parent_id,
				  "the parent of %zd comes after it", i);
		free(sm);
	}
	m = mntkit_list_under(x, MNTKIT_LIST_F_CHILDREN_FIRST, NULL, &ids);
	T_EQ_I(m, n);
	/*
	 * unmounting in the order given succeeds for every mount (the mount
	 * points read first; examples/teardown.c reads each as it goes)
	 */
	char **points = t_xcalloc((size_t)m, sizeof(*points));

	for (ssize_t i = 0; i < m; i++) {
		points[i] = point_of(ids[i]);
		T_ASSERTF(points[i], "mount %zd of %zd has no mount point", i,
			  m);
	}
	for (ssize_t i = 0; i < m; i++) {
		T_ASSERTF(umount2(points[i], 0) == 0, "umount %s (%zd of %zd): %s",
			  points[i], i, m, strerror(errno));
		free(points[i]);
	}
	free(points);
	free(ids);
	T_EQ_U(mountinfo_under(x), 0);
	T_EQ_I(mntkit_list_under(x, 0, NULL, &ids), 0);
	T_NULL(ids);
	free(first);
}

T_CASE(list_under_teardown_native)
{
	t_require_statmount();
	under_teardown("native");
}

T_CASE(list_under_teardown_mountinfo)
{
	under_teardown("mountinfo");
}

T_CASE(list_under_paths)
{
	uint64_t *a = NULL, *b = NULL;
	ssize_t na, nb;
	char *x, *rel;

	t_private_ns();
	x = make_pod();
	na = mntkit_list_under(x, 0, NULL, &a);
	/* a trailing slash, "." and ".." are the same path */
	rel = t_path("%s/./r/../", x);
	nb = mntkit_list_under(rel, 0, NULL, &b);
	T_EQ_I(nb, na);
	T_ASSERT(!memcmp(a, b, (size_t)na * sizeof(*a)));
	free(b);
	/* "/" is every mount */
	nb = mntkit_list_under("/", 0, NULL, &b);
	T_EQ_U((size_t)nb, mountinfo_under("/"));
	free(a);
	free(b);
}

T_CASE(list_children_first)
{
	uint64_t *tree = NULL, *cf = NULL;
	ssize_t n, m;

	n = mntkit_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE, NULL, &tree);
	T_ASSERT(n > 0);
	m = mntkit_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_CHILDREN_FIRST, NULL,
			&cf);
	T_EQ_I(m, n);
	for (ssize_t i = 0; i < n; i++)
		T_EQ_U(cf[i], tree[n - 1 - i]);
	free(tree);
	free(cf);
	T_NEG(mntkit_list(MNTKIT_LSMT_ROOT,
			  MNTKIT_LIST_F_CHILDREN | MNTKIT_LIST_F_CHILDREN_FIRST,
			  NULL, &cf), EINVAL);
}

/* @s with findmnt -r's \xHH escapes undone, in place */
static char *unhex(char *s)
{
	char *o = s;

	for (char *p = s; *p;) {
		unsigned int c;

		if (p[0] == '\\' && p[1] == 'x' && sscanf(p + 2, "%2x", &c) == 1) {
			*o++ = (char)c;
			p += 4;
		} else {
			*o++ = *p++;
		}
	}
	*o = 0;
	return s;
}

/* whether @prog is an executable file in a directory of $PATH */
static int in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *dirs = t_xstrdup(path ? path : ""), *save = NULL;
	int found = 0;

	for (char *d = strtok_r(dirs, ":", &save); d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		char *p = t_path("%s/%s", *d ? d : ".", prog);

		found = !access(p, X_OK);
		free(p);
	}
	free(dirs);
	return found;
}

static void options_like_findmnt(const char *backend)
{
	const enum mntkit_options which[] = { MNTKIT_OPTIONS_VFS,
					      MNTKIT_OPTIONS_FS,
					      MNTKIT_OPTIONS_ALL };
	char line[8192], buf[4096];
	struct mntkit_table *t;
	size_t checked = 0;
	FILE *f;
	int rc;

	t_private_ns();
	free(make_pod());
	t_tmpfs(t_path("%s/ro", t_tmpdir()), MS_RDONLY | MS_NOSUID | MS_NOEXEC,
		"size=1m,mode=700");
	use_backend(backend);
	T_OK(mntkit_table_new(MNTKIT_STATMOUNT_ALL, 0, NULL, &t));
	/* popen(3) runs /bin/sh: a minimal root (a test VM's) may lack both */
	if (access("/bin/sh", X_OK))
		t_skip("no /bin/sh for popen(3) to run findmnt with");
	if (!in_path("findmnt"))
		t_skip("findmnt is not installed (not in PATH=%s)",
		       getenv("PATH") ? getenv("PATH") : "");
	f = popen("findmnt -rn -o ID,VFS-OPTIONS,FS-OPTIONS,OPTIONS 2>/dev/null",
		  "r");
	T_ASSERTF(f, "popen: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *want[3], *save = NULL;
		uint64_t old = strtoull(strtok_r(line, " \n", &save), NULL, 10);
		const struct mntkit_statmount *sm = NULL;

		for (int k = 0; k < 3; k++) {
			want[k] = strtok_r(NULL, " \n", &save);
			T_ASSERT(want[k]);
			unhex(want[k]);
		}
		for (size_t i = 0; i < mntkit_table_count(t); i++)
			if (mntkit_table_get(t, i)->mnt_id_old == old)
				sm = mntkit_table_get(t, i);
		if (!sm)
			continue; /* made or gone since the snapshot */
		for (int k = 0; k < 3; k++) {
			int len = mntkit_sm_options(sm, which[k], buf,
						    sizeof(buf));

			T_ASSERTF(len >= 0, "%s", strerror(-len));
			T_EQ_STR(buf, want[k]);
			T_EQ_I(len, (int)strlen(want[k]));
			/* measured as snprintf(3) does */
			T_EQ_I(mntkit_sm_options(sm, which[k], NULL, 0), len);
		}
		checked++;
	}
	if ((rc = pclose(f)) != 0 && !checked)
		t_skip("findmnt failed (wait status %d)", rc);
	T_ASSERTF(checked >= 10, "only %zu mounts compared", checked);
	mntkit_table_free(t);
}

T_CASE(options_like_findmnt_native)
{
	t_require_statmount();
	options_like_findmnt("native");
}

T_CASE(options_like_findmnt_mountinfo)
{
	options_like_findmnt("mountinfo");
}

T_CASE(options_short_buffer_and_errors)
{
	struct mntkit_statmount *sm;
	char buf[8], whole[512];
	int len;

	T_OK(mntkit_stat_path(AT_FDCWD, "/", 0, MNTKIT_STATMOUNT_ALL, &sm));
	len = mntkit_sm_options(sm, MNTKIT_OPTIONS_ALL, whole, sizeof(whole));
	T_ASSERT(len > 0);
	T_EQ_I(mntkit_sm_options(sm, MNTKIT_OPTIONS_ALL, buf, sizeof(buf)), len);
	T_ASSERT(!strncmp(buf, whole, sizeof(buf) - 1));
	T_EQ_I(buf[sizeof(buf) - 1], 0);
	T_NEG(mntkit_sm_options(NULL, MNTKIT_OPTIONS_ALL, buf, 8), EINVAL);
	T_NEG(mntkit_sm_options(sm, (enum mntkit_options)7, buf, 8), EINVAL);
	T_NEG(mntkit_sm_options(sm, MNTKIT_OPTIONS_VFS, NULL, 8), EINVAL);
	free(sm);
	/* a reply without the group a string needs */
	T_OK(mntkit_stat_path(AT_FDCWD, "/", 0, MNTKIT_STATMOUNT_MNT_BASIC, &sm));
	T_ASSERT(mntkit_sm_options(sm, MNTKIT_OPTIONS_VFS, buf, 8) > 0);
	T_NEG(mntkit_sm_options(sm, MNTKIT_OPTIONS_FS, buf, 8), ENODATA);
	T_NEG(mntkit_sm_options(sm, MNTKIT_OPTIONS_ALL, buf, 8), ENODATA);
	free(sm);
}

T_CASE(sm_get)
{
	struct mntkit_statmount *sm;
	const char *s;

	/* /proc: a mount point also in a chroot whose root is none */
	T_OK(mntkit_stat_path(AT_FDCWD, "/proc", 0,
			      MNTKIT_STATMOUNT_MNT_POINT |
				      MNTKIT_STATMOUNT_FS_TYPE, &sm));
	T_OK(mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_FS_TYPE, &s));
	T_ASSERT(mntkit_sm_get(sm, MNTKIT_FIELD_FS_TYPE) == s);
	T_EQ_STR(mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT), "/proc");
	errno = 0;
	T_NULL(mntkit_sm_get(sm, MNTKIT_FIELD_SB_SOURCE));
	T_EQ_I(errno, ENODATA);
	T_NULL(mntkit_sm_get(sm, MNTKIT_FIELD_OPT_ARRAY));
	T_EQ_I(errno, EINVAL);
	T_NULL(mntkit_sm_get(NULL, MNTKIT_FIELD_FS_TYPE));
	T_EQ_I(errno, EINVAL);
	free(sm);
}

static void id_from_old(const char *backend)
{
	struct mntkit_table *t;
	uint64_t id, max_old = 0;

	t_private_ns();
	free(make_pod());
	use_backend(backend);
	T_OK(mntkit_table_new(MNTKIT_STATMOUNT_MNT_BASIC, 0, NULL, &t));
	for (size_t i = 0; i < mntkit_table_count(t); i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);

		T_OK(mntkit_id_from_old(sm->mnt_id_old, NULL, &id));
		T_EQ_U(id, sm->mnt_id);
		if (sm->mnt_id_old > max_old)
			max_old = sm->mnt_id_old;
	}
	T_NEG(mntkit_id_from_old(max_old + 100000, NULL, &id), ENOENT);
	T_NEG(mntkit_id_from_old(0, NULL, &id), EINVAL);
	T_NEG(mntkit_id_from_old((1ULL << 31) + 5, NULL, &id), EINVAL);
	mntkit_table_free(t);
}

T_CASE(id_from_old_native)
{
	t_require_statmount();
	id_from_old("native");
}

T_CASE(id_from_old_mountinfo)
{
	id_from_old("mountinfo");
}

/* ---- each mistake, its errno and its reason ---- */

static char reason[1024];

static int keep_warn(enum mntkit_print_level level, const char *fmt,
		     va_list ap)
{
	if (level == MNTKIT_PRINT_WARN)
		vsnprintf(reason, sizeof(reason), fmt, ap);
	return 0;
}

struct mistake {
	const char *name;
	int err;
	const char *says; /* a phrase of the reason */
};

static uint64_t root_id(void)
{
	uint64_t id = 0;

	T_OK(mntkit_root_id(0, NULL, &id));
	return id;
}

static const char fstab[] = "/dev/sda1 / ext4 defaults 0 1\n";

/* a mistake with a watch (poll source) made for it; its return value */
static long watch_mistake(int k)
{
	MNTKIT_WATCH_OPTS(wo, .source = MNTKIT_WATCH_POLL);
	struct mntkit_event ev = { 0 };
	struct mntkit_watch *w;
	long r;

	T_OK(mntkit_watch_new(&wo, NULL, &w));
	r = k ? mntkit_watch_read(w, NULL) : mntkit_watch_read(w, &ev);
	mntkit_watch_free(w);
	return r;
}

/* a mistake with a table read from a file's text; its return value */
static long tab_mistake(int k)
{
	struct mntkit_tab_entry e = { 0 };
	struct mntkit_table *t, *t2;
	struct mntkit_event *ev;
	long r;

	T_OK(mntkit_table_read_buf(fstab, sizeof(fstab) - 1, NULL, &t));
	T_OK(mntkit_table_read_buf(fstab, sizeof(fstab) - 1, NULL, &t2));
	if (k == 0)
		r = mntkit_table_tab_entry(t, 0, &e);
	else if (k == 1)
		r = mntkit_diff(t, t2, 1, sizeof(*ev), &ev);
	else
		r = mntkit_diff(t, t2, 0, 8, &ev);
	mntkit_table_free(t);
	mntkit_table_free(t2);
	return r;
}

/* the mistakes of the older calls: watches, tables, table files */
static long older_mistake(int k)
{
	struct mntkit_watch_opts wzero = { 0 };
	struct mntkit_tab_opts tzero = { 0 };
	MNTKIT_WATCH_OPTS(wflag, .flags = 0x100);
	MNTKIT_WATCH_OPTS(wall, .flags = MNTKIT_WATCH_F_ALL_NS);
	MNTKIT_TAB_OPTS(tflag, .flags = 0x100);
	MNTKIT_TAB_OPTS(tformat, .format = (enum mntkit_tab_format)99);
	MNTKIT_OPTS(opts);
	struct mntkit_watch *w;
	struct mntkit_table *t;

	switch (k) {
	case 0:
		return mntkit_watch_new(&wzero, NULL, &w);
	case 1:
		return mntkit_watch_new(&wflag, NULL, &w);
	case 2:
		return mntkit_watch_new(NULL, NULL, NULL);
	case 3:
		return mntkit_watch_new(&wall, &opts, &w);
	case 4:
	case 5:
		return watch_mistake(k - 4);
	case 6:
		return mntkit_table_new(0, 0x100, NULL, &t);
	case 7:
		return mntkit_table_new(0, 0, NULL, NULL);
	case 8:
		return mntkit_table_read_buf(fstab, 4, &tzero, &t);
	case 9:
		return mntkit_table_read_buf(fstab, 4, &tflag, &t);
	case 10:
		return mntkit_table_read_buf(fstab, 4, &tformat, &t);
	case 11:
		return mntkit_table_read_buf(NULL, 4, NULL, &t);
	case 12:
		return mntkit_table_read_file(NULL, NULL, &t);
	case 13:
	case 14:
	case 15:
		return tab_mistake(k - 13);
	}
	t_fail("no mistake %d", k);
	return 0;
}

/* the mistake @k of the table below; its return value */
static long make_mistake(int k)
{
	struct mntkit_opts zero = { 0 };
	struct mntkit_features feat = { 0 };
	struct mntkit_statmount *sm = NULL;
	static uint64_t aligned[128];
	uint64_t *ids, id = 0;
	const char *s;
	long r;

	switch (k) {
	case 0:
		return mntkit_stat(root_id(), 0, &zero, &sm);
	case 1:
		return mntkit_get_features(&feat);
	case 2:
		return mntkit_attr_str(0, 0, NULL, 10);
	case 3:
		return mntkit_propagation_str(0, 4, NULL, 0);
	case 4:
		/* /proc's mount: one with a mount point also in a chroot
		 * whose root is no mount point */
		T_OK(mntkit_path_id(AT_FDCWD, "/proc", 0, &id));
		T_OK(mntkit_stat(id, MNTKIT_STATMOUNT_ALL, NULL, &sm));
		r = mntkit_sm_str(sm, sizeof(*sm), MNTKIT_FIELD_MNT_POINT, &s);
		free(sm);
		return r;
	case 5:
		return mntkit_list(root_id(), 0x100, NULL, &ids);
	case 6:
		return mntkit_list_under(NULL, 0, NULL, &ids);
	case 7:
		return mntkit_stat_many(&id, 1, 0, 0, NULL,
					(char *)aligned + 1, 512);
	case 8:
		return mntkit_id_from_old(0, NULL, &id);
	case 9:
		return mntkit_root_id(2, NULL, &id);
	case 10:
		return mntkit_sm_options(NULL, MNTKIT_OPTIONS_ALL, NULL, 0);
	case 11:
		/* an old ID where a unique one belongs */
		return mntkit_stat(t_old_id("/"), 0, NULL, &sm);
	case 12:
		T_OK(mntkit_stat(root_id(), MNTKIT_STATMOUNT_ALL, NULL, &sm));
		r = mntkit_sm_strv(sm, sm->size, MNTKIT_FIELD_MNT_POINT, NULL,
				   0);
		free(sm);
		return r;
	}
	return older_mistake(k - 13);
}

T_CASE(mistakes_say_why)
{
	const struct mistake table[] = {
		{ "opts of size 0", EINVAL, "declare it with MNTKIT_OPTS()" },
		{ "features of size 0", EINVAL, "MNTKIT_FEATURES()" },
		{ "NULL buffer with a length", EINVAL, "NULL buffer" },
		{ "unknown decoder flag", EINVAL, "unknown flags 0x4" },
		{ "the fixed part's size as length", EBADMSG, "pass sm->size" },
		{ "unknown list flag", EINVAL, "unknown flags 0x100" },
		{ "NULL path", EINVAL, "NULL path" },
		{ "misaligned buffer", EINVAL, "misaligned" },
		{ "old ID 0", EINVAL, "no old mount ID" },
		{ "unknown root flag", EINVAL, "unknown flags 0x2" },
		{ "NULL reply", EINVAL, "NULL reply" },
		{ "old ID for a unique one", EINVAL, "mntkit_id_from_old()" },
		{ "string field as an array", EINVAL, "mntkit_sm_str()" },
		/* the older calls: 13 + older_mistake()'s k */
		{ "watch opts of size 0", EINVAL, "MNTKIT_WATCH_OPTS()" },
		{ "unknown watch flag", EINVAL, "unknown flags 0x100" },
		{ "NULL watch out", EINVAL, "NULL out pointer" },
		{ "all namespaces with opts", EINVAL, "no opts" },
		{ "event of size 0", EINVAL, "MNTKIT_EVENT()" },
		{ "NULL event", EINVAL, "NULL event" },
		{ "unknown table flag", EINVAL, "unknown flags 0x100" },
		{ "NULL table out", EINVAL, "NULL out pointer" },
		{ "tab opts of size 0", EINVAL, "MNTKIT_TAB_OPTS()" },
		{ "unknown tab flag", EINVAL, "unknown flags 0x100" },
		{ "unknown tab format", EINVAL, "unknown format 99" },
		{ "NULL text with a length", EINVAL, "NULL buffer" },
		{ "NULL file path", EINVAL, "NULL path" },
		{ "tab entry of size 0", EINVAL, "MNTKIT_TAB_ENTRY()" },
		{ "unknown diff flag", EINVAL, "unknown flags 0x1" },
		{ "event size too small", EINVAL, "sizeof(struct mntkit_event)" },
	};

	mntkit_set_print(keep_warn);
	for (size_t k = 0; k < sizeof(table) / sizeof(table[0]); k++) {
		long r;

		if (k == 11 && !t_have_unique_ids())
			continue; /* old IDs are the IDs there */
		reason[0] = 0;
		errno = 0;
		r = make_mistake((int)k);
		T_ASSERTF(r == -table[k].err && errno == table[k].err,
			  "%s: %ld, errno %d", table[k].name, r, errno);
		T_ASSERTF(strstr(reason, table[k].says),
			  "%s: the reason \"%s\" does not say \"%s\"",
			  table[k].name, reason, table[k].says);
	}
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
