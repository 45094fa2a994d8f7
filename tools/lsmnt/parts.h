/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lsmnt-parts.h - what the parts of lsmnt.c's work share: the command
 * line, the filters' matcher, the rows' builders.
 *
 *   lsmnt-opts.c    the command line: options, columns, their checks
 *   lsmnt-filter.c  the filters (findmnt's semantics)
 *   lsmnt-rows.c    the rows to print: the forest, -U, list and tree order
 *   lsmnt-ns.c      the mount namespaces (-N, --all-namespaces)
 *   lsmnt.c         the main work: snapshots, rows, usage, tags, --poll
 */
#ifndef MNTKIT_TOOLS_LSMNT_PARTS_H
#define MNTKIT_TOOLS_LSMNT_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli.h"
#include "lsmnt.h"

enum ns_order { ORDER_ID, ORDER_TREE };

struct filter {
	const char *types;   /* -t */
	const char *options; /* -O */
	const char *source;  /* -S or the first argument, not a MAJ:MIN */
	bool source_devno;   /* -S MAJ:MIN or a MAJ:MIN argument: a filter */
	unsigned int major, minor; /* of its own, with the others (findmnt) */
	char *source_canon; /* the device the source names, if any */
	const char *target_arg;
	char *target; /* the mount point to match (canonical) */
	bool strict;  /* -M: no walk up to the mount point of a path */
	/*
	 * a positional source: else a target (one argument; with -f and no
	 * -t, -O, --id, a second argument is ignored, as findmnt's
	 * mount(8)-compatible lookup ignores it)
	 */
	bool swap;
	bool has_id;  /* --id */
	uint32_t id;
	bool has_uniq; /* --uniq-id */
	uint64_t uniq;
	int real;    /* 1 --real, -1 --pseudo */
	bool df;     /* -D: no pseudo filesystems but tmpfs ones */
	bool all;    /* -A: -D and --real/--pseudo do not make a filter */
	bool invert; /* -i */
	bool first;  /* -f */
	/*
	 * -f with a source only (findmnt's "mount compatible" mode, like
	 * mount(8) looking a device up): just the source is matched
	 */
	bool source_only;
	/*
	 * -f with a source only, as libmount's mnt_table_find_source(): the
	 * sources as they are first, through the whole table, and only when
	 * none is the source, the canonical ones (1, then 2; 0: both at once)
	 */
	int source_pass;
	bool shadowed; /* --shadowed: only mounts another is mounted over */
	bool nocanon;  /* -C: no path made canonical to compare it */
};

struct cmdline {
	struct printer pr;
	int cols[2 * NR_COLS + 8];
	size_t ncols;
	const char *outarg; /* -o */
	bool output_all;
	bool list_columns; /* -H */
	bool submounts;	   /* -R */
	bool force_tree;   /* --tree */
	bool unreachable;  /* --unreachable */
	bool df;	   /* -D */
	bool uniq;	   /* -U */
	/*
	 * compact snapshots, rows by table and index (struct row): unless
	 * -m, -U, a file's table or a libblkid column wants every reply
	 */
	bool lean;
	bool backward;	   /* -d backward */
	bool kernel;	   /* -k */
	bool all_ns;	   /* --all-namespaces */
	bool poll;	   /* -p: follow the changes (lsmnt-poll.c) */
	unsigned int actions; /* -p LIST: ACT_BIT()s, 0: all */
	int timeout_ms;	      /* -w, < 0: none */
	enum ns_order order;
	bool order_given;
	const char *tabfiles[8]; /* -F (more than once), -s: /etc/fstab */
	size_t ntabfiles;
	bool fstab;		 /* -s */
	bool mtab;		 /* -m */
	bool verify;		 /* -x */
	bool verbose;		 /* --verbose */
	bool tab_mountinfo;	 /* every table file read was mountinfo */
	size_t nbad[8];		 /* per file: the lines passed over */
	const char *ns_arg;   /* --ns */
	const char *task_arg; /* -N */
	struct mntkit_opts nsopts;
	const struct mntkit_opts *ns;
	struct filter f;
	int *tids; /* TID per snapshot, NULL unless that column is shown */
};

struct matcher {
	const struct filter *f;
	const struct mntkit_table *t; /* the rows' table (--shadowed) */
	struct outbuf s1, s2;
};

/*
 * the printed forest: nodes in the order added (the rows to be, with
 * their links), children in order
 */
struct forest {
	struct row *v;
	size_t n, cap;
	int32_t first_root, last_root;
	/* the tables are compact: rows without a record (struct row) */
	bool lean;
};

/*
 * The children of every mount, in findmnt's order: libmount walks a
 * mount's children by ascending (old, reused) mount ID. A snapshot has
 * them in that order (MNTKIT_TABLE_OLD_ORDER); these are for -U, whose
 * tree is not the snapshot's, and for a file's table. Children of i:
 * v[start[i] .. start[i + 1]).
 */
struct kids {
	uint32_t *start;
	uint32_t *v;
};

/* a mount as findmnt's tree orders it: by parent, then (old ID, ID) */
struct mount_key {
	uint64_t id, parent;
	uint32_t old;
};

/*
 * -U: libmount's mnt_table_uniq_fs(MNT_UNIQ_KEEPTREE) as findmnt calls
 * it: of the mounts with the same target only the last in the table
 * stays; the mounts under a dropped one move under its parent (so, up a
 * chain of dropped ones, under the nearest mount that stays).
 */
struct uniq {
	char *gone;	     /* dropped: a later mount has the same target */
	ssize_t *parent;     /* the parent after the drops, -1 for a root */
	ssize_t *moved_from; /* the topmost dropped mount it was under, -1 */
	ssize_t *up, *top;   /* for a dropped one: where its chain ends */
};

struct build {
	struct matcher *m;
	struct forest *fo;
	bool tree;	      /* nest the rows */
	bool all;	      /* a list of every mount: no matching */
	bool every;	      /* matches_every(): the tree reads no record */
	bool backward;	      /* -d backward */
	bool first;	      /* -f: stop after the first */
	const struct uniq *u; /* -U: the mounts dropped and moved, or NULL */
	size_t *order;	      /* list order (list_order()), or NULL */
	/*
	 * the snapshots are compact (MNTKIT_TABLE_COMPACT): the rows keep
	 * table and index, the filters read a record in @smbuf
	 */
	bool lean;
	struct mntkit_statmount *smbuf;
	size_t smsize;
	int tid;	      /* TID of the snapshot walked */
	char *done;	      /* per table index: in the forest already (-R) */
	ssize_t *node_of;     /* per table index: its forest node (-R) */
	/*
	 * the tables' own sibling order is findmnt's (snapshots taken with
	 * MNTKIT_TABLE_OLD_ORDER): without -U the walks follow their links,
	 * else @k
	 */
	bool linked;
	struct kids k;
	/*
	 * the walk: per depth the mount, its next child (a position in
	 * k.v, or with the table's links the child itself, -1 after the
	 * last), its printed node
	 */
	size_t *node;
	ssize_t *cur, *anc;
	size_t cap;
};

/* lsmnt-opts.c */
int parse_cmdline(struct cmdline *cl, int argc, char *argv[]);

/* lsmnt-filter.c */
char *canon_source(const char *src);
char *canon_target(const struct filter *f, const char *path);
bool matches(struct matcher *m, const struct mntkit_statmount *sm);
/* matches() is true of every mount: no record need be read for it */
bool matches_every(const struct filter *f);
bool list_all(const struct filter *f);
uint64_t filter_mask(const struct filter *f);
void target_walk_up(struct filter *f, struct mntkit_table **tabs,
		    size_t ntabs);

/* lsmnt-rows.c */
int forest_rows(struct forest *fo, struct row **rows, size_t *n);
void uniq_free(struct uniq *u);
int uniq_build(const struct mntkit_table *t, struct uniq *u);
size_t *list_order(const struct cmdline *cl,
		   const struct mntkit_table *t);
int build_tree(struct build *b, const struct mntkit_table *t);
int build_list(struct build *b, const struct mntkit_table *t);
int build_submounts(struct build *b, const struct mntkit_table *t);
/*
 * The streamed tree (lsmnt.c): the pre-order of findmnt's tree of @n
 * mounts, @keys in ascending ID order, into @order (room for @n), with
 * TREE_SHAPE_WORK(@n) bytes of @work. -EAGAIN when they are not one tree
 * - no root or more than one, a mount no walk from the root reaches -
 * which the snapshot's tree is left to order; -ENOMEM.
 */
#define TREE_SHAPE_WORK(n) ((3 * (size_t)(n) + 2) * sizeof(uint32_t))
int tree_shape(const struct mount_key *keys, size_t n, uint32_t *work,
	       struct tree_pos *order);

/* lsmnt-ns.c */
int self_tid(void);
int own_ns_id(uint64_t *id);
int list_namespaces(const struct cmdline *cl, uint64_t **ids,
		    int **pids);

/* lsmnt-opts.c */
extern const char usage_line[];

/* options.c */
bool has_col(const struct cmdline *cl, int col);

/* mem.c */
#define HUGE_RUN (2U << 20)
void *present_alloc(size_t len, size_t huge);
void *big_alloc(size_t len, bool all);

/* snapshot.c */
uint64_t wanted_mask(const struct cmdline *cl);
const char *ns_subject(const struct cmdline *cl);
int query_failed(const struct cmdline *cl, int r);
void free_tables(struct mntkit_table **tabs, size_t n);
int snapshots(struct cmdline *cl, struct mntkit_table ***tabs,
	      size_t *ntabs, int **tids);

/* tabfile.c */
int read_tabfiles(struct cmdline *cl, struct mntkit_table ***tabs,
		  size_t *ntabs);
int mtab_merge(const struct cmdline *cl, struct mntkit_table **tabs,
	       size_t ntabs);
void mtab_free(void);

/* usage.c */
int add_usage(const struct cmdline *cl, struct row *rows, size_t n,
	      struct fs_usage **usage);

/* dev.c */
unsigned int tags_wanted(const struct cmdline *cl);
int add_tags(const struct cmdline *cl, struct row *rows, size_t n,
	     struct devtags **tags, size_t *ntags);
void free_tags(struct devtags *tags, size_t n);

/* poll.c */
int run_poll(struct cmdline *cl);

/* verify.c */
int run_verify(struct cmdline *cl);

/* cols.c */
const char *sm_str(const struct mntkit_statmount *sm,
		   enum mntkit_field field);

/* stream.c */
struct plan {
	bool tree_mode;	 /* findmnt's FL_TREE after all options */
	bool whole_tree; /* the whole tree: exit 0 even when empty */
	bool submounts;
};
enum stream_kind { STREAM_NONE, STREAM_FLAT, STREAM_TREE };
enum stream_kind streamable(const struct cmdline *cl,
			    const struct plan *p);
int run_stream(struct cmdline *cl, enum stream_kind kind);

#endif
