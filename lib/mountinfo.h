/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libmntkit: the /proc/<pid>/mountinfo parser (emul-mountinfo.c)
 * and the mount ID index (emul-index.c) the emulation is built on.
 *
 * The parser works in place: the text is read into one buffer, the escaped
 * fields (root, mount point, type, source) are unescaped where they stand,
 * and every entry refers to its fields by (offset, length) spans of that
 * buffer. Lengths, not NULs, end the fields, so bytes are reproduced exactly
 * as the kernel's own unescaping yields them.
 */
#ifndef MNTKIT_MOUNTINFO_H
#define MNTKIT_MOUNTINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mntkit.h"

/* a run of bytes of the parse buffer */
struct mntkit_mi_span {
	uint32_t off;
	uint32_t len;
};

/* one mountinfo line */
struct mntkit_mi {
	uint32_t id;                  /* old mount ID (field 1) */
	uint32_t parent;              /* old ID of the parent (field 2) */
	uint32_t major, minor;        /* st_dev of the superblock */
	struct mntkit_mi_span root;   /* unescaped (kernel string_unescape) */
	struct mntkit_mi_span point;  /* unescaped */
	struct mntkit_mi_span type;   /* unescaped, without ".subtype" */
	struct mntkit_mi_span subtype;/* unescaped; len 0: none */
	struct mntkit_mi_span source; /* unescaped; len 0: none printed */
	/*
	 * The superblock options after "ro|rw" and the generic ones, still
	 * escaped as printed: the LSM options (first @sec_len bytes) and then
	 * the filesystem's own, each part starting with its ','.
	 */
	struct mntkit_mi_span opts;
	uint32_t sec_len;
	uint64_t attr;                /* MNTKIT_MOUNT_ATTR_* from field 6 */
	uint32_t sb_flags;            /* MNTKIT_SB_* from the super options */
	uint32_t shared;              /* peer group, 0: not shared */
	uint32_t master;              /* master's group, 0: not a slave */
	uint32_t propagate_from;      /* as printed, 0: not printed */
	uint8_t unbindable;
	uint8_t unknown_attr;         /* field 6 had a word we do not know */
	uint8_t unknown_tag;          /* an optional field we do not know */
};

struct mntkit_mi_table {
	char *buf;                    /* the text, unescaped in place */
	size_t len;
	struct mntkit_mi *v;          /* entries in file order */
	size_t n;
	size_t cap;
};

/* where and why a parse failed (line and column count from 1) */
struct mntkit_mi_err {
	size_t line;
	size_t col;
	const char *msg;
};

/*
 * Parse @len bytes at @buf (which the table takes over for its spans; the
 * caller still owns and frees it). 0 on success, -EBADMSG with *@err set
 * for malformed input, -ENOMEM, -EFBIG for a text above 4 GiB.
 */
int mntkit__mi_parse(struct mntkit_mi_table *t, char *buf, size_t len,
		     struct mntkit_mi_err *err);
void mntkit__mi_free(struct mntkit_mi_table *t);

/* the bytes of a span */
static inline const char *mntkit__mi_str(const struct mntkit_mi_table *t,
					 struct mntkit_mi_span s)
{
	return t->buf + s.off;
}

/* statmount's mnt_propagation of a line: its peer group, master, unbindable */
static inline uint64_t mntkit__mi_propagation(const struct mntkit_mi *m)
{
	uint64_t p = 0;

	if (m->shared)
		p |= MNTKIT_MS_SHARED;
	if (m->master)
		p |= MNTKIT_MS_SLAVE;
	if (m->unbindable)
		p |= MNTKIT_MS_UNBINDABLE;
	return p ? p : MNTKIT_MS_PRIVATE;
}

/*
 * A line's fields of statmount's MNT_BASIC group but the unique IDs (its
 * old IDs, attributes, propagation, peer group, master): the emulation's
 * replies and the table-file reader fill them alike
 */
static inline void mntkit__mi_basic(struct mntkit_statmount *sm,
				    const struct mntkit_mi *m)
{
	sm->mnt_id_old = m->id;
	sm->mnt_parent_id_old = m->parent;
	sm->mnt_attr = m->attr;
	sm->mnt_propagation = mntkit__mi_propagation(m);
	sm->mnt_peer_group = m->shared;
	sm->mnt_master = m->master;
}

/*
 * The kernel's string_unescape(UNESCAPE_OCTAL) over @len bytes at @src
 * (stopping at a NUL as the kernel does), writing to @dst (which may be
 * @src). Returns the number of bytes written.
 */
size_t mntkit__unescape(char *dst, const char *src, size_t len);

/*
 * Read an open mountinfo file from its start to EOF into *@buf (malloc'd,
 * grown as needed; *@cap its size), one byte past the text kept free.
 * 0 or -errno.
 */
int mntkit__mi_read(int fd, char **buf, size_t *cap, size_t *len);

/* ---- the ID index (emul-index.c) ---- */

/*
 * Over n entries with a 64-bit key each (the IDs the emulation hands out):
 * lookup by key and by old ID in O(log n), the "first key after" and "last
 * key before" cursors, and the mount tree (parent index, children by
 * ascending key, and a pre-order interval per entry so that "is i below
 * j" is O(1)).
 */
struct mntkit_mindex {
	size_t n;
	uint64_t *key;      /* per entry */
	uint32_t *by_key;   /* entry indices, ascending key */
	uint32_t *by_old;   /* entry indices, ascending old ID */
	uint64_t *old;      /* per entry: its old ID */
	int32_t *parent;    /* entry index of the parent, -1 if none listed */
	uint32_t *first;    /* children of i: kids[first[i] .. first[i+1]) */
	uint32_t *kids;
	uint32_t *pre;      /* pre-order number */
	uint32_t *last;     /* largest pre-order number in the subtree */
};

/*
 * Build over @v (n entries) with the keys @key (copied; NULL: the keys are
 * the old IDs, and key/by_key are old/by_old). -EBADMSG when keys or old
 * IDs repeat or the parent links form a cycle; -ENOMEM.
 */
int mntkit__mindex_build(struct mntkit_mindex *ix, const struct mntkit_mi *v,
			 size_t n, const uint64_t *key);
void mntkit__mindex_free(struct mntkit_mindex *ix);

/* (key, entry index) pairs */
struct mntkit_mi_pair {
	uint64_t key;
	uint32_t idx;
};

/*
 * Sort @n pairs (@tmp: room for as many) by key, stably, in O(n): an LSD
 * radix sort on the bytes in which the keys differ (2 or 3 for IDs).
 * Returns the sorted array (@p or @tmp).
 */
struct mntkit_mi_pair *mntkit__pairs_sort(struct mntkit_mi_pair *p,
					  struct mntkit_mi_pair *tmp, size_t n);

/* entry index of @key / of old ID @old, or -1 */
ssize_t mntkit__mindex_find(const struct mntkit_mindex *ix, uint64_t key);
ssize_t mntkit__mindex_find_old(const struct mntkit_mindex *ix, uint64_t old);

/* position in by_key of the first key > @key (n if none) */
size_t mntkit__mindex_after(const struct mntkit_mindex *ix, uint64_t key);
/* number of keys < @key: by_key[ret - 1] is the last key before it */
size_t mntkit__mindex_before(const struct mntkit_mindex *ix, uint64_t key);

/* is entry @i strictly below entry @top in the tree? */
static inline int mntkit__mindex_below(const struct mntkit_mindex *ix,
				       size_t i, size_t top)
{
	return ix->pre[i] > ix->pre[top] && ix->pre[i] <= ix->last[top];
}

/* ---- filesystem magic numbers (fsmagic.c) ---- */

/*
 * The superblock magic of a filesystem type name. Returns 1 and stores it
 * when the table knows the type, 0 otherwise. *@statfs_ok says whether
 * statfs(2) on such a mount reports the same value without side effects
 * (0 for network and FUSE filesystems, whose statfs asks a server, and for
 * 9p, whose f_type is the server's). A type the table does not know gets
 * *@statfs_ok 1, unless it is a served type of unknown magic (lustre,
 * orangefs, ...): 0. statfs_ok 0 is what "served" means to the emulation:
 * no path is resolved through such a mount.
 */
int mntkit__fs_magic(const char *type, size_t len, uint64_t *magic,
		     int *statfs_ok);

#endif
