// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The emulation's IDs: what each mount is named by (its unique ID from a
 * look at its mount point, else its old ID), the memo of what earlier
 * loads proved, the served paths that are never looked at, the
 * provisional IDs handed out, and the lookups by key. (lib/emul.h)
 */
#include <dirent.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "emul.h"
#include "syscall.h"

/*
 * The provisional (old) IDs this process was ever given for hidden mounts.
 * Once such a mount is gone its ID names nothing: asking for it then gets
 * ENOENT, like any vanished mount, not the EINVAL of an ID that was never
 * valid. With each, its place in the listing when it was last seen: the
 * unique ID listed before it (0: none), so that a listing whose cursor is
 * a hidden mount gone since goes on from there. Under @mntkit__emul_lock.
 */
struct issued_id {
	uint64_t id;
	uint64_t base;
};

static MNTKIT__VEC(struct issued_id) issued;

static ssize_t issued_pos(uint64_t id, int *found)
{
	size_t lo = 0, hi = issued.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (issued.v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < issued.n && issued.v[lo].id == id;
	return (ssize_t)lo;
}

int mntkit__emul_issued_has(uint64_t id)
{
	int found;

	issued_pos(id, &found);
	return found;
}

/* the unique ID listed before hidden mount @id when it was last seen */
uint64_t mntkit__emul_issued_base(uint64_t id)
{
	int found;
	ssize_t pos = issued_pos(id, &found);

	return found ? issued.v[pos].base : 0;
}

static void issued_set_base(uint64_t id, uint64_t base)
{
	int found;
	ssize_t pos = issued_pos(id, &found);

	if (found)
		issued.v[pos].base = base;
}

static int issued_add(uint64_t id)
{
	int found;
	size_t pos = (size_t)issued_pos(id, &found);

	if (found)
		return 0;
	if (mntkit__vec_room(&issued, 1, 64))
		return -ENOMEM;
	memmove(issued.v + pos + 1, issued.v + pos,
		(issued.n - pos) * sizeof(*issued.v));
	issued.v[pos] = (struct issued_id){ id, 0 };
	issued.n++;
	return 0;
}

/*
 * A parent outside the table (the one of "/", above a chroot) is named by
 * its old ID in mnt_parent_id (see parent_key()): that ID was handed out
 * too, so asking for it answers ENOENT (not in this table), not EINVAL.
 */
int mntkit__emul_issue_outside_parents(const struct table *t)
{
	for (size_t i = 0; i < t->mi.n && t->unique_mode; i++) {
		const struct mntkit_mi *m = &t->mi.v[i];

		if (t->ix.parent[i] < 0 && m->parent != m->id &&
		    issued_add(m->parent))
			return -ENOMEM;
	}
	return 0;
}

/* room for "prefix" + a mount point the kernel can resolve */
#define POINT_PATH_MAX (sizeof(((struct table *)0)->prefix) + PATH_MAX)

/*
 * "prefix" + mount point, NUL-terminated, in @buf (POINT_PATH_MAX bytes);
 * NULL when it holds a NUL or is too long for any path lookup (which would
 * fail with ENAMETOOLONG: the mount point cannot be looked at).
 */
static char *point_path(const struct table *t, size_t i, char *buf)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	const char *pt = mntkit__mi_str(&t->mi, m->point);
	size_t pl = strlen(t->prefix);

	if (memchr(pt, '\0', m->point.len) || pl + m->point.len >= PATH_MAX)
		return NULL;
	memcpy(buf, t->prefix, pl);
	memcpy(buf + pl, pt, m->point.len);
	buf[pl + m->point.len] = '\0';
	return buf;
}

/*
 * The old mount ID of what @fd refers to: statx STATX_MNT_ID (5.8+), else
 * the fd's fdinfo (3.15+), so that path lookups work on RHEL 8's 4.18 or
 * Debian 10's 4.19 too. 0 or -errno.
 */
int mntkit__emul_fd_old_id(int fd, uint64_t *id)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
		  MNTKIT_STATX_MNT_ID, &stx) == 0 &&
	    (stx.stx_mask & MNTKIT_STATX_MNT_ID)) {
		*id = stx.stx_mnt_id;
		return 0;
	}
	return mntkit__fdinfo_mnt_id(fd, id);
}

/*
 * The O_PATH fds of the probes of one load, closed together: each run of
 * consecutive fds (the usual case: each open takes the lowest free fd)
 * in one close_range(2), which closes nothing but them since each fd of
 * the run is held here. A single fd, or any where close_range is refused
 * or missing (before 5.9), with one close(2) each.
 */
#define FD_BATCH 64

struct fd_batch {
	int fd[FD_BATCH];
	size_t n;
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void fd_batch_flush(struct fd_batch *b)
{
	size_t n = b->n, end;

	b->n = 0;
	qsort(b->fd, n, sizeof(*b->fd), cmp_int);
	for (size_t k = 0; k < n; k = end) {
		for (end = k + 1; end < n && b->fd[end] == b->fd[end - 1] + 1;)
			end++;
		if (end - k > 1 &&
		    syscall(SYS_close_range, (unsigned int)b->fd[k],
			    (unsigned int)b->fd[end - 1], 0U) == 0)
			continue;
		for (size_t j = k; j < end; j++)
			close(b->fd[j]);
	}
}

/* @fd done with: closed now (@b NULL) or with the batch */
static void fd_done(struct fd_batch *b, int fd)
{
	if (!b) {
		close(fd);
		return;
	}
	b->fd[b->n++] = fd;
	if (b->n == FD_BATCH)
		fd_batch_flush(b);
}

/* the O_PATH fd of @path; with the batch's fds closed first when the
 * process has no fd left (EMFILE) */
static int open_point(const struct table *t, const char *path,
		      struct fd_batch *b)
{
	int fd = openat(t->at, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == EMFILE && b && b->n) {
		fd_batch_flush(b);
		fd = openat(t->at, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	return fd;
}

/*
 * Look at the mount point of entry @i through one O_PATH fd: does it
 * resolve to this mount (STATX_MNT_ID == the old ID), its unique ID, and
 * (when @want_statfs) statfs's f_type. The fd is closed with @b.
 */
static void probe_point(struct table *t, size_t i, int want_statfs,
			struct fd_batch *b)
{
	struct probe *pr = &t->probe[i];
	char buf[POINT_PATH_MAX];
	struct statx stx;
	struct statfs sfs;
	uint64_t old;
	char *path;
	int fd;

	if (pr->ids_done && (pr->statfs_done || !want_statfs))
		return;
	if (pr->no_look) {
		pr->ids_done = pr->statfs_done = 1;
		return;
	}
	path = point_path(t, i, buf);
	fd = path ? open_point(t, path, b) : -1;
	pr->ids_done = 1;
	if (want_statfs)
		pr->statfs_done = 1;
	if (fd < 0)
		return;
	if (mntkit__emul_fd_old_id(fd, &old) == 0 && old == t->mi.v[i].id)
		pr->verified = 1;
	if (pr->verified && t->unique_mode && !pr->has_unique) {
		memset(&stx, 0, sizeof(stx));
		if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
			  MNTKIT_STATX_MNT_ID_UNIQUE, &stx) == 0 &&
		    (stx.stx_mask & MNTKIT_STATX_MNT_ID_UNIQUE) &&
		    stx.stx_mnt_id > MNTKIT_MNT_UNIQUE_ID_OFFSET) {
			pr->has_unique = 1;
			pr->unique = stx.stx_mnt_id;
		}
	}
	if (pr->verified && want_statfs && fstatfs(fd, &sfs) == 0) {
		pr->has_f_type = 1;
		pr->f_type = (unsigned long)sfs.f_type;
	}
	fd_done(b, fd);
}

void mntkit__emul_probe_point(struct table *t, size_t i, int want_statfs)
{
	probe_point(t, i, want_statfs, NULL);
}

/* what fsmagic.c tells of the type of entry @i */
static struct fstype type_lookup(const struct table *t, size_t i)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	struct fstype ft = { .name = m->type };
	int ok;

	ft.known = (uint8_t)mntkit__fs_magic(mntkit__mi_str(&t->mi, m->type),
					     m->type.len, &ft.magic, &ok);
	ft.statfs_ok = (uint8_t)ok;
	if (!ft.known)
		ft.magic = 0;
	return ft;
}

struct fstype mntkit__emul_type_of(const struct table *t, size_t i)
{
	if (t->type[i] != NO_TYPE)
		return t->types[t->type[i]];
	return type_lookup(t, i);
}

/*
 * Does the superblock magic of entry @i need statfs? Not when the type's
 * magic is fixed (fsmagic.c), nor when statfs would ask a server.
 */
static int needs_statfs(const struct table *t, size_t i)
{
	struct fstype ft = mntkit__emul_type_of(t, i);

	return !ft.known && ft.statfs_ok;
}

int mntkit__emul_same_type(const struct table *t, struct mntkit_mi_span a,
			   struct mntkit_mi_span b)
{
	return a.len == b.len && !memcmp(mntkit__mi_str(&t->mi, a),
					 mntkit__mi_str(&t->mi, b), a.len);
}

/* look each distinct type up once per load (runs of one type are common) */
int mntkit__emul_type_magics(struct table *t)
{
	uint8_t c = NO_TYPE;

	t->type = malloc(t->mi.n + 1);
	if (!t->type)
		return -ENOMEM;
	t->ntypes = 0;
	for (size_t i = 0; i < t->mi.n; i++) {
		struct mntkit_mi_span name = t->mi.v[i].type;

		if (!i || !mntkit__emul_same_type(t, name, t->mi.v[i - 1].type)) {
			for (c = 0; c < t->ntypes; c++)
				if (mntkit__emul_same_type(t, name, t->types[c].name))
					break;
			if (c == t->ntypes && t->ntypes < MAX_TYPES)
				t->types[t->ntypes++] = type_lookup(t, i);
			else if (c == t->ntypes)
				c = NO_TYPE;
		}
		t->type[i] = c;
	}
	return 0;
}

static const struct memo *memo_find(const struct table *t, uint32_t old)
{
	size_t lo = 0, hi = t->nmemo;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->memo[mid].old == old)
			return &t->memo[mid];
		if (t->memo[mid].old < old)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* keep what the loaded table proved (see struct table) */
int mntkit__emul_memo_save(struct table *t)
{
	struct memo *m;
	size_t n = 0;

	if (!t->loaded || !t->unique_mode)
		return 0;
	m = malloc((t->mi.n + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* the index has the entries by ascending old ID already */
	for (size_t k = 0; k < t->ix.n; k++) {
		uint32_t i = t->ix.by_old[k];
		const struct probe *pr = &t->probe[i];
		const struct memo *was;

		if (!pr->has_unique) {
			/*
			 * hidden in this load (its point moved away for a
			 * moment): what an earlier load proved stays, for
			 * as long as the old ID is in the table on the same
			 * device (an old ID passed to a new mount at once
			 * is on another one, but for a bind mount)
			 */
			was = memo_find(t, t->mi.v[i].id);
			if (was && was->major == t->mi.v[i].major &&
			    was->minor == t->mi.v[i].minor)
				m[n++] = *was;
			continue;
		}
		m[n].old = t->mi.v[i].id;
		m[n].major = t->mi.v[i].major;
		m[n].minor = t->mi.v[i].minor;
		m[n].has_f_type = pr->has_f_type;
		m[n].unique = pr->unique;
		m[n].f_type = pr->f_type;
		m[n].gen = t->gen;
		m[n].anchor_ok = (uint8_t)t->clean;
		n++;
	}
	free(t->memo);
	t->memo = m;
	t->nmemo = n;
	t->memo_ordered = t->ordered;
	return 0;
}


/* what memo @mm proved, as the probe of its entry */
static void probe_from_memo(struct probe *pr, const struct memo *mm,
			    int want_statfs)
{
	pr->ids_done = 1;
	pr->verified = 1;
	pr->has_unique = 1;
	pr->unique = mm->unique;
	if (want_statfs) {
		pr->statfs_done = 1;
		pr->has_f_type = 1;
		pr->f_type = mm->f_type;
	}
}

/*
 * Entry @i again, when an earlier load proved its old ID X to be the mount
 * of unique ID U: if its mount point still resolves to U, the mount is U
 * (U lives, so X is still U's: old IDs are not shared between live
 * mounts). One statx instead of a full probe. 1 when it is settled.
 */
static int probe_again(struct table *t, size_t i, int want_statfs)
{
	const struct memo *mm = memo_find(t, t->mi.v[i].id);
	struct probe *pr = &t->probe[i];
	char buf[POINT_PATH_MAX];
	struct statx stx;
	char *path;
	int ret;

	if (!mm || (want_statfs && !mm->has_f_type) || pr->no_look)
		return 0;
	path = point_path(t, i, buf);
	if (!path)
		return 0;
	memset(&stx, 0, sizeof(stx));
	ret = statx(t->at, path,
		    AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
		    MNTKIT_STATX_MNT_ID_UNIQUE, &stx);
	if (ret || !(stx.stx_mask & MNTKIT_STATX_MNT_ID_UNIQUE) ||
	    stx.stx_mnt_id != mm->unique)
		return 0;
	probe_from_memo(pr, mm, want_statfs);
	return 1;
}

/*
 * Is entry @i of a filesystem whose server or daemon answers for it (nfs,
 * cifs, fuse, ...: fsmagic.c's statfs_ok 0)? Its mount point is not looked
 * at: an open of an NFS mount point revalidates its root with the server,
 * and a dead server would block the whole listing (findmnt never looks).
 */
static int served_fs(const struct table *t, size_t i)
{
	return !mntkit__emul_type_of(t, i).statfs_ok;
}

static int cmp_point(const void *a, const void *b)
{
	const struct point_ref *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static int is_point(const struct point_ref *v, size_t n, const char *s,
		    size_t len)
{
	struct point_ref key = { s, len };

	return bsearch(&key, v, n, sizeof(*v), cmp_point) != NULL;
}

/* does the path @s cross a point of @v (a prefix ending at a '/', or all) */
int mntkit__emul_crosses(const struct point_ref *v, size_t n, const char *s,
			 size_t len)
{
	if (!n)
		return 0;
	for (size_t k = 1; k < len; k++)
		if (s[k] == '/' && is_point(v, n, s, k))
			return 1;
	return is_point(v, n, s, len) || (len && is_point(v, n, s, 1));
}

/*
 * No call may block on a filesystem's server. Mark the entries whose
 * mount point path crosses the point of a served mount (served_fs()): a
 * lookup of that path could walk into the served filesystem (whose
 * d_revalidate or lookup asks the daemon, and a FUSE request waits for its
 * answer uninterruptibly: not even SIGKILL ends it). A mount point path is
 * the chain of its ancestors' points, and a path that crosses a served
 * point can also end up in the served mount when it is stacked there
 * (mounted over the mount's ancestor), so every prefix counts, whatever
 * the stacking: an overmounted served mount still marks what is below its
 * point (cheap and safe; those mounts only lose their unique IDs). These
 * entries are never looked at: mntkit__emul_probe_point() and probe_again() leave them,
 * so they are named by their old ID (as hidden mounts) and their magic
 * comes from fsmagic.c or is not reported. The served mounts themselves
 * are not looked at either. Exempt: a served mount on "/" of the caller's
 * own table, through which every lookup of the process goes (/proc too).
 */
int mntkit__emul_mark_served_paths(struct table *t)
{
	struct point_ref *v;
	size_t n = 0;

	for (size_t i = 0; i < t->mi.n; i++)
		if (served_fs(t, i))
			n++;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < t->mi.n; i++) {
		const struct mntkit_mi *m = &t->mi.v[i];
		const char *pt = mntkit__mi_str(&t->mi, m->point);

		if (!served_fs(t, i) ||
		    (!t->pid && m->point.len == 1 && pt[0] == '/'))
			continue;
		v[n++] = (struct point_ref){ pt, m->point.len };
	}
	qsort(v, n, sizeof(*v), cmp_point);
	for (size_t i = 0; i < t->mi.n && n; i++) {
		const struct mntkit_mi *m = &t->mi.v[i];

		if (served_fs(t, i) ||
		    mntkit__emul_crosses(v, n, mntkit__mi_str(&t->mi, m->point),
			    m->point.len))
			t->probe[i].no_look = 1;
	}
	t->served = v; /* for mntkit_path_served() */
	t->nserved = n;
	return 0;
}

/* ---- a reload's IDs from the memo, without a look at the points ---- */

/* a hash of a mount point string, a byte at a time */
static uint64_t point_hash_step(uint64_t h, unsigned char c)
{
	return (h ^ c) * 0x100000001b3ULL;
}

#define POINT_HASH_INIT 0xcbf29ce484222325ULL

/* is @a (@alen) the path @b (@blen) or a directory above it? */
static int point_above(const char *a, size_t alen, const char *b,
		       size_t blen)
{
	if (alen > blen || memcmp(a, b, alen))
		return 0;
	return alen == blen || (alen == 1 && a[0] == '/') || b[alen] == '/';
}

/* the longest chain of parents followed (deeper: not judged in view) */
#define VIEW_MAX_DEPTH 64
#define VIEW_BAD       UINT8_MAX

/*
 * What the table tells of whether each entry's mount point leads to it
 * (in_view()): the hashes of the points and the old IDs, each sorted with
 * its entry (looked up by binary search: no map's scattered slots);
 * per entry, the mounts at its own point, its chain (itself and its
 * parents up to the table's root, each on its parent's point or below it:
 * VIEW_BAD when not, 0 not known yet) and the mounts at its point or at
 * a directory above it.
 */
struct view {
	struct mntkit_mi_pair *pairs; /* room for 4n: two arrays, two spare */
	const struct mntkit_mi_pair *points; /* by point hash */
	const struct mntkit_mi_pair *olds;   /* by old ID */
	size_t n;
	uint64_t *hash;
	uint32_t *here;
	uint32_t *above;
	uint8_t *chain;
};

static void view_free(struct view *v)
{
	free(v->pairs);
	free(v->hash);
	free(v->here);
	free(v->above);
	free(v->chain);
}

/* the first pair of @v (@n, sorted) whose key is not below @key */
static size_t pairs_lower(const struct mntkit_mi_pair *v, size_t n,
			  uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the mounts at the point hashed @h */
static uint32_t mounts_at(const struct view *v, uint64_t h)
{
	size_t k = pairs_lower(v->points, v->n, h), end = k;

	while (end < v->n && v->points[end].key == h)
		end++;
	return (uint32_t)(end - k);
}

static int view_init(struct view *v, const struct table *t)
{
	size_t n = t->mi.n;
	struct mntkit_mi_pair *p, *o;

	*v = (struct view){ .n = n };
	v->pairs = malloc((4 * n + 1) * sizeof(*v->pairs));
	v->hash = malloc((n + 1) * sizeof(*v->hash));
	v->here = malloc((n + 1) * sizeof(*v->here));
	v->above = malloc((n + 1) * sizeof(*v->above));
	v->chain = calloc(n + 1, 1);
	if (!v->pairs || !v->hash || !v->here || !v->above || !v->chain)
		return -ENOMEM;
	p = v->pairs;
	o = v->pairs + 2 * n;
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_mi *m = &t->mi.v[i];
		const unsigned char *s = (const unsigned char *)
			mntkit__mi_str(&t->mi, m->point);
		uint64_t h = POINT_HASH_INIT;

		for (size_t k = 0; k < m->point.len; k++)
			h = point_hash_step(h, s[k]);
		v->hash[i] = h;
		p[i] = (struct mntkit_mi_pair){ h, (uint32_t)i };
		o[i] = (struct mntkit_mi_pair){ m->id, (uint32_t)i };
	}
	v->points = mntkit__pairs_sort(p, p + n, n);
	v->olds = mntkit__pairs_sort(o, o + n, n);
	for (size_t k = 0, end; k < n; k = end) {
		for (end = k + 1;
		     end < n && v->points[end].key == v->points[k].key;)
			end++;
		for (size_t j = k; j < end; j++)
			v->here[v->points[j].idx] = (uint32_t)(end - k);
	}
	return 0;
}

/*
 * The mounts at the points of entry @i that are below @from bytes of its
 * point (a directory above it, or its parent's point): at each '/' after
 * @from, and at the whole point when it is longer than @from. @h is the
 * hash of the first @from bytes.
 */
static uint32_t mounts_below(const struct table *t, const struct view *v,
			     size_t i, size_t from, uint64_t h)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	const unsigned char *s =
		(const unsigned char *)mntkit__mi_str(&t->mi, m->point);
	uint32_t n = 0;

	for (size_t k = from; k < m->point.len; k++) {
		if (k > from && s[k] == '/')
			n += mounts_at(v, h);
		h = point_hash_step(h, s[k]);
		if (!k && m->point.len > 1)
			n += mounts_at(v, h); /* "/" */
	}
	return m->point.len > from ? n + v->here[i] : n;
}

/* entry @i's parent in the table, or -1 */
static ssize_t view_parent(const struct table *t, const struct view *v,
			   size_t i)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	size_t k;

	if (m->parent == m->id)
		return -1;
	k = pairs_lower(v->olds, v->n, m->parent);
	if (k >= v->n || v->olds[k].key != m->parent)
		return -1;
	return (ssize_t)v->olds[k].idx;
}

/* entry @i's chain and mounts above, its parent's known (or none) */
static void view_one(const struct table *t, struct view *v, size_t i)
{
	ssize_t p = view_parent(t, v, i);
	const struct mntkit_mi *m = &t->mi.v[i], *pm;

	if (p < 0) {
		v->chain[i] = 1;
		v->above[i] = mounts_below(t, v, i, 0, POINT_HASH_INIT);
		return;
	}
	pm = &t->mi.v[p];
	if (v->chain[p] == VIEW_BAD || v->chain[p] + 1 > VIEW_MAX_DEPTH ||
	    !point_above(mntkit__mi_str(&t->mi, pm->point), pm->point.len,
			 mntkit__mi_str(&t->mi, m->point), m->point.len)) {
		v->chain[i] = VIEW_BAD;
		return;
	}
	v->chain[i] = (uint8_t)(v->chain[p] + 1);
	v->above[i] = v->above[p] +
		      mounts_below(t, v, i, pm->point.len, v->hash[p]);
}

/* entry @i's chain, and those of its parents not known yet, parents first */
static void view_chain(const struct table *t, struct view *v, size_t i)
{
	size_t up[VIEW_MAX_DEPTH + 1], n = 0;
	ssize_t k = (ssize_t)i;

	while (k >= 0 && !v->chain[k]) {
		if (n == VIEW_MAX_DEPTH + 1) {
			v->chain[i] = VIEW_BAD; /* too deep, or a loop */
			return;
		}
		up[n++] = (size_t)k;
		v->chain[k] = VIEW_BAD; /* until known: a loop ends here */
		k = view_parent(t, v, (size_t)k);
	}
	while (n--)
		view_one(t, v, up[n]);
}

/*
 * Does entry @i's mount point lead to it, by the table alone? It does
 * when the only mounts at its point or at a directory above it are its
 * own chain of parents (each on its parent's point or below it, so each
 * is counted there): then nothing is stacked on it or on a directory its
 * point passes through. A deleted point (" (deleted)") is not judged.
 * Used where the mount of the entry is known (mntkit__emul_resolve_ids()):
 * this only decides whether it is named by its unique ID, as a look at
 * its point would.
 */
static int in_view(const struct table *t, struct view *v, size_t i)
{
	static const char del[] = " (deleted)";
	const struct mntkit_mi *m = &t->mi.v[i];
	const char *s = mntkit__mi_str(&t->mi, m->point);

	if (m->point.len >= sizeof(del) - 1 &&
	    !memcmp(s + m->point.len - (sizeof(del) - 1), del, sizeof(del) - 1))
		return 0;
	if (!v->chain[i])
		view_chain(t, v, i);
	return v->chain[i] != VIEW_BAD && v->above[i] == v->chain[i];
}

/*
 * Entry @i from the memo alone, below the anchor (see
 * mntkit__emul_resolve_ids()): its old ID X was proved to be unique ID U
 * by a load no older than the anchor's, U is below the anchor's, and its
 * point is in view by the table. 1 when it is settled.
 */
static int infer(struct table *t, size_t i, const struct memo *anchor,
		 struct view *v, int want_statfs)
{
	const struct memo *mm = memo_find(t, t->mi.v[i].id);
	struct probe *pr = &t->probe[i];

	if (!mm || mm->gen < anchor->gen || mm->unique >= anchor->unique ||
	    (want_statfs && !mm->has_f_type) || pr->no_look ||
	    !in_view(t, v, i))
		return 0;
	probe_from_memo(pr, mm, want_statfs);
	return 1;
}

/* entry @i looked at: its point again (memo) or in full */
static void resolve_one(struct table *t, size_t i, struct fd_batch *b)
{
	int want_statfs = needs_statfs(t, i);

	if (!probe_again(t, i, want_statfs))
		probe_point(t, i, want_statfs, b);
}

/*
 * The last entry, from the end, whose point still leads to the unique ID
 * the memo has for it, from a load that read no change: the anchor (its
 * memo; its entry in *@at_i). The entries after it are looked at.
 */
static const struct memo *find_anchor(struct table *t, size_t *at_i,
				      struct fd_batch *b)
{
	for (size_t i = t->mi.n; i-- > 0;) {
		const struct memo *mm = memo_find(t, t->mi.v[i].id);

		resolve_one(t, i, b);
		if (mm && mm->anchor_ok && t->probe[i].has_unique &&
		    t->probe[i].unique == mm->unique) {
			*at_i = i;
			return mm;
		}
	}
	return NULL;
}

/*
 * The IDs of a reload. A look at each mount point costs a system call a
 * mount; the memo and the kernel's order spare most of them. From 6.8,
 * mountinfo lists the mounts by ascending unique ID (its lines follow
 * the namespace's tree of mounts by that ID) and unique IDs only grow.
 * The anchor (find_anchor()) is a mount proved alive now, U_a; it was a
 * line of a load that read no change, so it was made before that load
 * began. A line before it is a mount made before U_a, so alive since
 * before that load: if its old ID X was proved to be U by that load or a
 * later one, it was the live mount of old ID X then, which is U (two
 * live mounts never share an old ID). So it is U, without a look; the
 * table alone says whether its point leads to it (in_view()), else it is
 * looked at as before. Checked: the memo's load had its unique IDs in
 * line order, and U is below U_a.
 */
static int resolve_from_memo(struct table *t, size_t *upto,
			     struct fd_batch *b)
{
	const struct memo *anchor;
	struct view v;
	size_t a, inferred = 0;
	int ret;

	*upto = 0;
	if (!t->nmemo || !t->memo_ordered)
		return 0;
	anchor = find_anchor(t, &a, b);
	if (!anchor) {
		*upto = t->mi.n; /* all looked at */
		return 0;
	}
	ret = view_init(&v, t);
	for (size_t i = 0; i < a && !ret; i++) {
		if (infer(t, i, anchor, &v, needs_statfs(t, i)))
			inferred++;
		else
			resolve_one(t, i, b);
	}
	*upto = ret ? 0 : t->mi.n;
	mntkit__debug(MNTKIT_PRINT_DEBUG,
		      "emulation: %zu of %zu mounts named from the memo, "
		      "below line %zu", inferred, t->mi.n, a + 1);
	view_free(&v);
	return ret;
}

/* do the unique keys ascend line by line (the hidden ones aside)? */
static int keys_ordered(const struct table *t)
{
	uint64_t last = 0;

	for (size_t i = 0; i < t->mi.n; i++) {
		if (!t->probe[i].has_unique)
			continue;
		if (t->probe[i].unique <= last)
			return 0;
		last = t->probe[i].unique;
	}
	return 1;
}

/* with unique IDs, the key of every entry: its unique ID where it can be
 * read, else its old ID (a hidden mount, or one of a served_fs()) */
int mntkit__emul_resolve_ids(struct table *t)
{
	struct fd_batch b = { .n = 0 };
	size_t done;
	int ret = resolve_from_memo(t, &done, &b);

	if (ret) {
		fd_batch_flush(&b);
		return ret;
	}
	for (size_t i = 0; i < t->mi.n; i++) {
		if (i >= done)
			resolve_one(t, i, &b);
		if (t->probe[i].has_unique) {
			t->keys[i] = t->probe[i].unique;
			continue;
		}
		t->keys[i] = t->mi.v[i].id;
		t->has_hidden = 1;
		mntkit__debug(MNTKIT_PRINT_DEBUG,
			      "emulation: mount %" PRIu64 " has no unique ID "
			      "(its mount point is hidden): provisional old ID",
			      t->keys[i]);
		ret = issued_add(t->keys[i]);
		if (ret)
			break;
	}
	fd_batch_flush(&b);
	t->ordered = keys_ordered(t);
	return ret;
}

/* where each hidden mount of the table stands in the listing (issued) */
void mntkit__emul_note_places(const struct table *t)
{
	uint64_t base = 0;

	for (size_t i = 0; i < t->mi.n; i++) {
		if (!low_key(t->keys[i]))
			base = t->keys[i];
		else
			issued_set_base(t->keys[i], base);
	}
}

/*
 * The entry of key @id, or -1. A listing asks for its IDs in the order
 * listmount gave them: the one after the last found is tried first.
 */
ssize_t mntkit__emul_find_key(struct table *t, uint64_t id)
{
	const struct mntkit_mindex *ix = &t->ix;
	size_t pos = t->next_pos;

	if (pos >= ix->n || ix->key[ix->by_key[pos]] != id) {
		pos = mntkit__mindex_before(ix, id);
		if (pos >= ix->n || ix->key[ix->by_key[pos]] != id)
			return -1;
	}
	t->next_pos = pos + 1;
	return ix->by_key[pos];
}

/*
 * The entry of the mount named @id, when @id is no key of table @t but
 * was the mount's name in an earlier load: its other name now, or -1. A
 * mount is named by its old ID while its mount point does not lead to it
 * and by its unique ID otherwise, so a mount that moves is named one way
 * in one load and the other way in the next: a listing and the statmounts
 * of its IDs (two loads under churn) would lose a live mount. Only what
 * the memo proves (old ID X was the mount of unique ID U, kept while X is
 * in the table on the same device): unique U asked, X hidden now. And
 * old ID X asked, the mount of old ID X named by its unique ID now (its
 * point leads to it again): X names it while it lives, memo or not. The
 * statmount's reply keeps the ID asked as mnt_id (its parent is named as
 * now); the snapshot batch names the mount by its key now (the table
 * sorts it in). A mount hidden since it was made (no memo) is not found
 * by a unique ID: that still answers ENOENT.
 */
ssize_t mntkit__emul_renamed_entry(const struct table *t, uint64_t id)
{
	const struct memo *mm;
	ssize_t i;

	if (!t->unique_mode)
		return -1;
	if (low_id(id)) {
		/*
		 * the mount of old ID X is named by its unique ID now: X
		 * names it as long as it lives (old IDs are not shared
		 * between live mounts), hidden since it was made or not
		 */
		i = mntkit__mindex_find_old(&t->ix, id);
		return i >= 0 && t->ix.key[i] != id ? i : -1;
	}
	for (size_t k = 0; k < t->nmemo; k++) {
		mm = &t->memo[k];
		if (mm->unique != id)
			continue;
		i = mntkit__mindex_find_old(&t->ix, mm->old);
		return i >= 0 && t->ix.key[i] == mm->old &&
			       t->mi.v[i].major == mm->major &&
			       t->mi.v[i].minor == mm->minor ?
			       i :
			       -1;
	}
	return -1;
}
