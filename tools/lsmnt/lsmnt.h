/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lsmnt.h - what lsmnt's files share, each part under the file that
 * defines it. Besides: escape.h, the printers' escaping; dl.h, libsmartcols
 * and libblkid, loaded at their first use. How lsmnt works: doc/lsmnt.md.
 */
#ifndef MNTKIT_TOOLS_LSMNT_H
#define MNTKIT_TOOLS_LSMNT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "cli.h"
#include "mntkit.h"
#include "output.h"
#include "util.h"

#define PROG "lsmnt"

struct cmdline;
struct matcher;
struct row;

/* ---- cols.c: the columns, the value of a cell ---- */

enum col_id {
	COL_AVAIL,
	COL_FREQ,
	COL_FSROOT,
	COL_FSTYPE,
	COL_FS_OPTIONS,
	COL_GIDMAP,
	COL_ID,
	COL_INO_AVAIL,
	COL_INO_TOTAL,
	COL_INO_USED,
	COL_INO_USE_PCT,
	COL_LABEL,
	COL_MAGIC,
	COL_MAJMIN,
	COL_MASTER,
	COL_NS,
	COL_OPTIONS,
	COL_OPT_FIELDS,
	COL_PARENT,
	COL_PARTLABEL,
	COL_PARTUUID,
	COL_PASSNO,
	COL_PEER,
	COL_PROPAGATE_FROM,
	COL_PROPAGATION,
	COL_SB_SOURCE,
	COL_SIZE,
	COL_SOURCE,
	COL_SOURCES,
	COL_SUBTYPE,
	COL_TARGET,
	COL_TID,
	COL_UIDMAP,
	COL_UNIQ_ID,
	COL_UNIQ_PARENT,
	COL_USED,
	COL_USE_PCT,
	COL_UUID,
	COL_VFS_OPTIONS,
	NR_LIST_COLS, /* the columns above */
	/* --poll only (as findmnt's) */
	COL_ACTION = NR_LIST_COLS,
	COL_OLD_OPTIONS,
	COL_OLD_TARGET,
	NR_COLS
};

/* column flags: libsmartcols' meanings (SCOLS_FL_*), used by both printers */
#define CF_TRUNC      0x01U
#define CF_TREE	      0x02U
#define CF_RIGHT      0x04U
#define CF_NOEXTREMES 0x08U
/* lsmnt's own: the value comes from statvfs(2) of the mount point */
#define CF_STATVFS 0x10U
/* lsmnt's own: a count of inodes (INO.*), never in human units */
#define CF_INODES 0x200U
/* lsmnt's own: a size, a JSON number with -b (else a string like 1.5G) */
#define CF_SIZE 0x20U
/*
 * SCOLS_FL_WRAP with findmnt's newline chunks: one line of text per value
 * of the cell, a JSON array of strings (SOURCES)
 */
#define CF_WRAP 0x40U
/* lsmnt's own: the value comes from libblkid (or udev's database) */
#define CF_BLKID 0x80U
/* SCOLS_FL_STRICTWIDTH (ACTION) */
#define CF_STRICT 0x100U

struct colinfo {
	const char *name; /* findmnt's name, upper case */
	double whint;	  /* width hint: >= 1 columns, < 1 share of terminal */
	unsigned int flags;
	bool number;   /* a JSON number (else a string) */
	uint64_t mask; /* statmount groups its value needs */
	const char *help; /* findmnt 2.42's words for its columns */
};

extern const struct colinfo lsmnt_cols[NR_COLS];

/*
 * findmnt 2.42's columns, in its order (-H, and but for --poll's
 * --output-all): lsmnt's own columns are not among them
 */
#define NR_FINDMNT_COLS 32
extern const int findmnt_cols[NR_FINDMNT_COLS];

/* the column named @name (@len bytes, any case), -1 if none */
int col_by_name(const char *name, size_t len);

/* --poll: what happened to the mount of a row (findmnt's ACTION) */
enum poll_action {
	ACT_NONE, /* not --poll */
	ACT_MOUNT,
	ACT_UMOUNT,
	ACT_REMOUNT,
	ACT_MOVE,
	NR_ACTS
};

#define ACT_BIT(a) (1U << (a))

/* "mount", "umount", ...; NULL for ACT_NONE */
const char *poll_action_name(enum poll_action a);

/* how a cell is wanted: list/tree text differs in MAJ:MIN only */
struct cellctx {
	bool text;	   /* list or tree (MAJ:MIN as "%3u:%-3u") */
	bool nofsroot;	   /* -v: SOURCE without [/dir] */
	bool bytes;	   /* -b: sizes in bytes, not 1.5G */
	bool canonicalize; /* -c: SOURCE as a canonical path */
	bool evaluate;	   /* -e: a LABEL=... SOURCE as its device */
	bool vfs_all;	   /* --vfs-all: VFS-OPTIONS with every default */
	/*
	 * --kernel=listmount: the values of findmnt's listmount(2) table
	 * (UNIQ-ID, no TID, no OPT-FIELDS, the options as libmount makes
	 * them of a statmount(2) reply), else those of its mountinfo
	 */
	bool listmount;
	bool tabfile; /* -F: OPT-FIELDS as the file writes them */
};

/*
 * The value of column @col for the row @r (a reply of a table, with its
 * statvfs and -U data), or NULL when it has none (JSON null, an empty
 * cell). The text is unescaped; it points into the reply or into
 * @scratch, which is reset first, and lives until the next call with the
 * same @scratch.
 */
const char *cell_value(const struct cellctx *cc, enum col_id col,
		       const struct row *r, struct outbuf *scratch);

/*
 * Whether @col's cell of @r is one line per '\n'-separated chunk: a
 * CF_WRAP column (SOURCES) with the devices of a tag; findmnt 2.42 keeps
 * any other source as one value, its '\n's escaped like SOURCE's
 */
bool cell_wraps(const struct row *r, int col);

/*
 * findmnt's OPTIONS (@listmount: of its --kernel=listmount table) and
 * FSTYPE, for the filters -O, -t, --real, --pseudo
 */
const char *cell_options(const struct mntkit_statmount *sm, bool listmount,
			 struct outbuf *scratch);
const char *cell_fstype(const struct mntkit_statmount *sm,
			struct outbuf *scratch);
bool fstype_is_pseudo(const char *fstype);

/* the string field @field of @sm, NULL when it has none */
const char *sm_str(const struct mntkit_statmount *sm,
		   enum mntkit_field field);

/*
 * The tables lsmnt read from files (-F, -s), whose fstab-format entries
 * have their OPTIONS, VFS-OPTIONS, FS-OPTIONS, FREQ and PASSNO as the
 * file wrote them (mntkit_table_tab_entry()); set by tabfile.c.
 */
extern struct mntkit_table *const *cell_tabs;
extern size_t cell_ntabs;

/*
 * -m: the userspace options of utab for a record of the kernel's table
 * (by its mnt_id), NULL when none; set by tabfile.c.
 */
extern const char *(*cell_user_options)(const struct mntkit_statmount *sm);

/* ---- usage.c: SIZE, AVAIL, USED, USE%, INO.* (statvfs(2)) ---- */

/*
 * What statvfs(2) of a mount point said, taken once per printed row and
 * only when a column needs it (SIZE, AVAIL, USED, USE%).
 */
struct fs_usage {
	bool ok; /* statvfs() succeeded (else the cells are empty) */
	unsigned long frsize;
	uint64_t blocks, bfree, bavail;
	uint64_t files, ffree; /* INO.*: inodes */
};

/* the rows' usage, into *@usage (NULL when no column shows it) */
int add_usage(const struct cmdline *cl, struct row *rows, size_t n,
	      struct fs_usage **usage);
/* statvfs(2) of @sm's mount point, never through a served filesystem */
void fs_usage_get(const struct mntkit_statmount *sm, struct fs_usage *u);

/* ---- dev.c: a source's device and tags (libblkid, udev) ---- */

/*
 * What findmnt asks libblkid (and udev's database) about the source of a
 * mount: LABEL, UUID, PARTUUID, PARTLABEL and SOURCES. Looked up once per
 * distinct source, and only for the columns shown.
 */
enum dev_tag { TAG_LABEL, TAG_UUID, TAG_PARTUUID, TAG_PARTLABEL, NR_TAGS };

struct devtags {
	char *tag[NR_TAGS]; /* NULL: none */
	char *sources;	    /* '\n' between devices; NULL: SOURCE's value */
};

/* findmnt's -c and -e: the printed SOURCE */
char *canonical_source(const char *src);
char *evaluate_tag(const char *src);
bool source_is_tag(const char *src);

/* a path whose lookup may block on a served filesystem's server */
bool path_may_block(const char *path);

/* the tags the shown columns need (0: none) */
unsigned int tags_wanted(const struct cmdline *cl);
/* the tags column @col needs (0: none) */
unsigned int tags_of_col(int col);
/* one source's tags at a time (the filter's): a libblkid cache kept */
struct devlookup;
struct devlookup *devlookup_new(void);
void devlookup_free(struct devlookup *dl);
void devtags_lookup(struct devlookup *dl, const char *src, unsigned int want,
		    bool evaluate, struct devtags *out);
void devtags_release(struct devtags *t);
/* the rows' tags, into *@tags (@ntags of them), free_tags() frees them */
int add_tags(const struct cmdline *cl, struct row *rows, size_t n,
	     struct devtags **tags, size_t *ntags);
void free_tags(struct devtags *tags, size_t n);

/* ---- uniq.c: -U's drops ---- */

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

void uniq_free(struct uniq *u);
int uniq_build(const struct mntkit_table *t, struct uniq *u);

/* ---- rows.c: the rows to print ---- */

/*
 * a row: a mount of one of the tables, in output order. Its record is
 * @sm, or, when that is NULL, mount @idx of the compact snapshot @t, made
 * when it is printed (row_get()): a snapshot of many mounts is then never
 * held as whole replies.
 */
struct row {
	const struct mntkit_statmount *sm;
	const struct mntkit_table *t;
	size_t idx;
	/* --poll: the record before the action (umount, move, remount) */
	const struct mntkit_statmount *old;
	enum poll_action action;
	unsigned int depth; /* in the printed tree, 0 for a top-level row */
	bool last;	    /* no later sibling in the printed tree */
	/*
	 * -U moved the mount under another parent (that of a duplicate it
	 * was under, as libmount's mnt_table_uniq_fs() does): its IDs, 0
	 * when none
	 */
	bool moved;
	uint32_t parent_old;
	uint64_t parent_uniq;
	const struct fs_usage *usage; /* NULL unless a column needs it */
	const struct devtags *tags;   /* NULL unless a column needs it */
	int tid; /* TID: the process whose view this is, 0 for none */
	/* the forest of the rows, while it is built */
	int32_t first_child, last_child, next;
};

/* a row with its record at hand (row_get()) */
struct row_rec {
	struct row row;
	struct mntkit_statmount *buf; /* the record, when made here */
	size_t size;
};

/*
 * @r itself when it has its record, else a copy of it in @rr whose record
 * is made from its snapshot into rr's buffer (valid until the next call
 * with @rr); NULL when that fails (ENOMEM). row_rec_free() frees the
 * buffer.
 */
const struct row *row_get(const struct row *r, struct row_rec *rr);
void row_rec_free(struct row_rec *rr);

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
	/*
	 * the mounts the filters matched, -Q aside (a list, -R): findmnt's
	 * count of its lines for -R and for -f's lookup of a source
	 */
	size_t matched;
};

/*
 * The children of every mount, in findmnt's order: libmount walks a
 * mount's children by ascending (old, reused) mount ID. A snapshot has
 * them in that order (MNTKIT_TABLE_F_OLD_ORDER); these are for -U, whose
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

struct build {
	const struct cmdline *cl;
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
	 * the snapshots are compact (MNTKIT_TABLE_F_COMPACT): the rows keep
	 * table and index, the filters read a record in @smbuf
	 */
	bool lean;
	struct mntkit_statmount *smbuf;
	size_t smsize;
	int tid;	      /* TID of the snapshot walked */
	char *done;	      /* per index: in the forest (-R), walked (tree) */
	ssize_t *node_of;     /* per table index: its forest node (-R) */
	/*
	 * the tables' own sibling order is findmnt's (snapshots taken with
	 * MNTKIT_TABLE_F_OLD_ORDER): without -U the walks follow their links,
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

int forest_rows(struct forest *fo, struct row **rows, size_t *n);
size_t *list_order(const struct cmdline *cl,
		   const struct mntkit_table *t);
int build_tree(struct build *b, const struct mntkit_table *t);
int build_list(struct build *b, const struct mntkit_table *t);
int build_submounts(struct build *b, const struct mntkit_table *t);

/* a row of a tree in pre-order: which one, where */
struct tree_pos {
	uint32_t row;	     /* its index among the rows added */
	uint32_t depth : 30; /* 0 for the root */
	uint32_t last : 1;   /* no later sibling */
	uint32_t kids : 1;   /* the next row is its first child */
};

/*
 * The streamed tree (stream.c): the pre-order of findmnt's tree of @n
 * mounts, @keys in ascending ID order, into @order (room for @n), with
 * TREE_SHAPE_WORK(@n) bytes of @work. -EAGAIN when they are not one tree
 * - no root or more than one, a mount no walk from the root reaches -
 * which the snapshot's tree is left to order; -ENOMEM.
 */
#define TREE_SHAPE_WORK(n) ((3 * (size_t)(n) + 2) * sizeof(uint32_t))
int tree_shape(const struct mount_key *keys, size_t n, uint32_t *work,
	       struct tree_pos *order);

/* ---- filter.c: the filters, with findmnt's semantics ---- */

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
	/* -S, -T, -M: an argument is never swapped (FL_NOSWAPMATCH) */
	bool noswap;
	bool has_id;  /* --id, or --uniq-id with an old ID */
	int64_t id;
	bool has_uniq; /* --id or --uniq-id with a unique ID */
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
	bool listmount; /* --kernel=listmount: OPTIONS as its table has them */
	bool nocanon;  /* -C: no path made canonical to compare it */
};

struct matcher {
	const struct filter *f;
	struct query *q; /* -Q, or NULL */
	const struct mntkit_table *t; /* the rows' table (--shadowed) */
	struct outbuf s1, s2;
};

char *canon_source(const char *src);
char *canon_target(const struct filter *f, const char *path);
bool matches(struct matcher *m, const struct mntkit_statmount *sm);
/* matches() is true of every mount: no record need be read for it */
bool matches_every(const struct filter *f);
bool list_all(const struct filter *f);
uint64_t filter_mask(const struct filter *f);
/* a lone argument that is no source: a mount point (findmnt's swap) */
void swap_to_target(struct filter *f);
void target_walk_up(struct filter *f, struct mntkit_table **tabs,
		    size_t ntabs);

/* ---- print.c: the printers' entry points, what every format shares ---- */

enum out_mode {
	OUT_TREE,  /* default: list/tree text */
	OUT_LIST,  /* -l */
	OUT_RAW,   /* -r */
	OUT_PAIRS, /* -P */
};

struct printer {
	enum out_mode mode;
	bool json;	   /* -J */
	bool tree;	   /* rows nest (tree output, or JSON "children") */
	bool noheadings;   /* -n */
	bool header_done;  /* --poll: the header went with a batch before */
	bool notrunc;	   /* -u */
	bool ascii;	   /* -a */
	bool shell;	   /* -y */
	bool nofsroot;	   /* -v */
	bool bytes;	   /* -b */
	bool canonicalize; /* -c */
	bool evaluate;	   /* -e */
	bool vfs_all;	   /* --vfs-all */
	bool listmount;	   /* --kernel=listmount (struct cellctx) */
	bool tabfile;	   /* -F (struct cellctx) */
	bool hyperlink;	   /* --hyperlink: TARGET as a link, in text */
	bool terminal;	   /* list/tree to a terminal: libsmartcols */
	const int *cols;   /* enum col_id */
	size_t ncols;
	FILE *stream; /* where @ob goes, a chunk at a time */
	/*
	 * A flat listing printed in parts (stream.c): @cont, the rows go on
	 * an output begun (no header, no JSON opening; the JSON object of
	 * the first row is open already); @more, more rows follow (no JSON
	 * closing: the last row is not the last).
	 */
	bool cont;
	bool more;
};

/*
 * Print @rows into @ob (JSON, raw, pairs, or list/tree for a pipe or a
 * file) or, for a terminal, through libsmartcols to stdout. @ob is written
 * to pr->stream whenever it holds more than a chunk, always after a whole
 * row, and the caller flushes the rest. Returns 0 or a negative errno.
 */
int print_rows(const struct printer *pr, const struct row *rows, size_t n,
	       struct outbuf *ob);

/*
 * --poll: the batches of rows, as findmnt prints them with
 * scols_table_print_range(): each batch measured on its own rows, the
 * header (list, raw) with the first batch only; JSON: a document per
 * batch. A terminal keeps one libsmartcols table across the batches.
 */
struct libscols_table;

struct batch_printer {
	struct printer pr;	   /* header_done once the header is out */
	struct libscols_table *tb; /* a terminal's, once a batch came */
};

int print_batch(struct batch_printer *bp, const struct row *rows, size_t n,
		struct outbuf *ob);

/* the printers hand their output to pr->stream in chunks of this much */
#define PRINT_CHUNK (64U * 1024)

/*
 * After a row: hand a full chunk (PRINT_CHUNK) to the stream. The
 * snapshot is complete before the first byte, so streaming only bounds
 * the memory; a chunk ends with a whole row, so even a failure leaves no
 * half record.
 */
static inline int row_done(const struct printer *pr, struct outbuf *ob)
{
	int r;

	if (ob->len < PRINT_CHUNK || !pr->stream)
		return ob->err ? -ob->err : 0;
	r = outbuf_flush(ob, pr->stream);
	if (r < 0)
		ob->err = -r; /* keep it: later appends do nothing */
	return r;
}

/*
 * Rows as printed: nested (depth, last) or flat. A flat view of tree rows
 * (no TARGET column to draw the tree in) keeps their order.
 */
static inline unsigned int row_depth(const struct printer *pr,
				     const struct row *r)
{
	return pr->tree ? r->depth : 0;
}

static inline bool row_last(const struct printer *pr, const struct row *rows,
			    size_t i, size_t n)
{
	return pr->tree ? rows[i].last : i + 1 == n && !pr->more;
}

/* the column of the tree's art, when the rows nest */
static inline bool is_tree_col(const struct printer *pr, int col)
{
	return pr->tree && (lsmnt_cols[col].flags & CF_TREE);
}

/* the columns the tree's art takes before a cell of @col in row @r */
static inline size_t art_cols(const struct printer *pr, int col,
			      const struct row *r)
{
	return is_tree_col(pr, col) ? 2 * (size_t)row_depth(pr, r) : 0;
}

struct cellctx cell_ctx(const struct printer *pr, bool text);

/* @n blanks */
void put_spaces(struct outbuf *ob, size_t n);

/*
 * A cell's text as list and tree write it (put_safe()), TARGET with
 * --hyperlink inside findmnt's OSC 8 link (file://HOST/path); its width
 * (@ob NULL: measured only)
 */
size_t put_cell_text(const struct printer *pr, int col, const char *v,
		     struct outbuf *ob);
/* "file://HOST", the links' start */
const char *hyperlink_uri(void);

/* a column's name as printed (-y: a shell variable's); @buf: COLNAME_MAX */
#define COLNAME_MAX 64
const char *col_name(const struct printer *pr, size_t c, char *buf);

/* room in *@v (of *@cap) for a flag per depth up to @d: 0 or -ENOMEM */
static inline int grow_flags(bool **v, size_t *cap, unsigned int d)
{
	return mntkit__reserve(v, cap, (size_t)d + 1, sizeof(**v), 16);
}

/* the tree's art: 2 columns each */
struct treeart {
	const char *branch, *last, *vert, *space;
};

const struct treeart *tree_art(const struct printer *pr);
/* the art before a row at depth @d > 0 (@more: per depth, a later sibling) */
void put_art(struct outbuf *ob, const struct treeart *art,
	     const bool *more, unsigned int d, bool last);

/* ---- print-text.c: list and tree text for a pipe or a file ---- */

int print_text(const struct printer *pr, const struct row *rows, size_t n,
	       struct outbuf *ob);

/* libsmartcols' width of a column whose widest cell is @widest */
size_t col_width(const struct printer *pr, const struct colinfo *ci,
		 size_t widest);
/* the header line of aligned text output (none with -n) */
void put_header(const struct printer *pr, const size_t *width,
		struct outbuf *ob);

struct textctx {
	const struct printer *pr;
	size_t *width;
	bool *more; /* per depth: that level's row has a later sibling */
	size_t morecap;
	struct outbuf art;
	/* @art is of the row before: at this depth, last or not */
	unsigned int art_depth;
	bool art_last, art_made;
	struct outbuf scratch;
	struct row_rec rr;
};

/* the art of a row at depth @d, @last of its siblings, into tc->art */
int art_of(struct textctx *tc, const struct treeart *style, unsigned int d,
	   bool last);
/* the art of row @i of @n after the rows before it; its depth into *@d */
int row_art(struct textctx *tc, const struct treeart *style,
	    const struct row *rows, size_t i, size_t n, unsigned int *d);

/* ---- print-json.c: JSON (-J) ---- */

int print_json(const struct printer *pr, const struct row *rows, size_t n,
	       struct outbuf *ob);

/* the value @v of column @ci, of an object indented by @ind */
void put_json_value(const struct printer *pr, const struct colinfo *ci,
		    const char *v, bool wrap, size_t ind, struct outbuf *ob);

/*
 * The columns' keys as written before their values at one depth, made
 * once for all the rows there: the first `<indentation>"name": `, each
 * other `,\n<indentation>"name": `; and what closes a row there that has
 * neither children nor the last place among its siblings.
 */
struct json_keys {
	struct outbuf text; /* the keys, then the close */
	size_t *at;	    /* per column where its key begins; the close */
	unsigned int depth;
	bool made;
};

int json_keys_at(const struct printer *pr, struct json_keys *k,
		 unsigned int d);
/* the key of column @c at json_keys_at()'s depth; ncols: the close */
void put_key(struct outbuf *ob, const struct json_keys *k, size_t c);
void json_keys_free(struct json_keys *k);
/* a row's object at depth @d, unless open already ("},{") */
void json_row_open(struct outbuf *ob, unsigned int d, bool opened);
/*
 * After the members of a row at depth @d: its children open, or its
 * object closes with every parent's that it was the last row of; true
 * when that leaves the next row's object open already.
 */
bool json_row_end(struct outbuf *ob, const struct json_keys *k,
		  size_t ncols, unsigned int d, bool kids, const bool *lastv);

/* ---- print-raw.c: raw (-r) and pairs (-P) ---- */

int print_flat(const struct printer *pr, const struct row *rows, size_t n,
	       struct outbuf *ob);

/* ---- print-scols.c: list and tree on a terminal, by libsmartcols ---- */

int print_scols(const struct printer *pr, const struct row *rows, size_t n);
/* the loaded libsmartcols makes links (2.40 and later) */
bool scols_has_uri(void);
/* --poll's batch on a terminal: one table, a range printed per batch */
int batch_scols(struct batch_printer *bp, const struct row *rows, size_t n);
void batch_printer_end(struct batch_printer *bp);

/* ---- print-cells.c: cells kept until the widths are known ---- */

/*
 * A flat list for a pipe or a file (no tree, no multi-line column) of
 * rows that come in parts: each row's cells kept as text, no more, until
 * every row is in and the widths are known. text_cells_add() takes a
 * part (its records may go afterwards), text_cells_print() prints them
 * all as print_rows() does; 0 or a negative errno.
 *
 * With @at (the caller's memory, room for every row), the rows are kept
 * for a tree whose order is known only once all are in (stream.c's
 * streamed tree): each row's cells whole, from where @at says, and in
 * @tw (the same, for a text tree) the width of its tree column's cell
 * without the art. For pr->json such cells are JSON values, and
 * text_cells_print() prints the JSON tree.
 */
struct text_cells {
	struct outbuf text; /* the cells, row after row (the
			     * layout: print-cells.c) */
	size_t *width;	    /* per column: the widest cell */
	size_t n;	    /* rows */
	size_t ncols;	    /* of the arrays, 0 until they are made */
	struct outbuf scratch;
	struct outbuf *last; /* per column: the cell of the row before */
	struct outbuf *raw;  /* per column: its value before escaping */
	size_t *rawidth;     /* per column: its width */
	struct outbuf esc;   /* a cell escaped */
	struct row_rec rr;   /* a snapshot's record */
	size_t *at;	     /* per row: where its cells begin, or NULL */
	uint32_t *tw;	     /* with @at: per row its tree cell's width */
};

int text_cells_add(const struct printer *pr, struct text_cells *tc,
		   const struct row *rows, size_t n);
/*
 * @rows: NULL, or the rows added (for the tree's art: pr->tree); @order:
 * NULL, or with tc->at the rows' tree, whose @n rows print in its order
 */
int text_cells_print(const struct printer *pr, struct text_cells *tc,
		     const struct row *rows, const struct tree_pos *order,
		     struct outbuf *ob);
void text_cells_free(struct text_cells *tc);

/*
 * Room in @ob for the text of @n rows as long, on average, as the @m in
 * it, made present at once
 */
void text_reserve(struct outbuf *ob, size_t m, size_t n);

/* ---- query.c: -Q, --filter (findmnt 2.42's filter expression) ---- */

struct query;

/* an evaluation failed, its message told: exit 1, nothing printed */
#define QUERY_FAILED (-ECANCELED)

/*
 * -Q TEXT, as the option is read: the parse (findmnt's message and -1 when
 * it fails), the characters the scanner echoes written to stdout
 */
int query_parse(struct cmdline *cl, const char *text);
/*
 * After the columns: each holder bound to a column (a hidden one added
 * when none of the output is named so), findmnt's messages and -1 for an
 * unknown one
 */
int query_bind(struct cmdline *cl);
/* does row @r pass: 1, 0, or QUERY_FAILED (told) */
int query_match(struct query *q, const struct row *r);
void query_free(struct query *q);
/* the statmount groups its columns need; whether one of them is TID */
uint64_t query_mask(const struct query *q);
bool query_needs_tid(const struct query *q);

/* ---- options.c: the command line ---- */

enum ns_order { ORDER_ID, ORDER_TREE };

/* the table findmnt reads: -s, -m, -k, --kernel[=how], -N (the last) */
enum tab_type {
	TAB_DEFAULT,
	TAB_FSTAB,
	TAB_MTAB,
	TAB_MOUNTINFO,
	TAB_LISTMOUNT,
};

struct cmdline {
	struct printer pr;
	/*
	 * the columns findmnt's columns[] holds: the output's (pr.cols,
	 * the first pr.ncols of them), then -Q's hidden ones
	 */
	int cols[2 * NR_COLS + 8];
	size_t ncols;
	bool cut;	    /* a --poll column without -p cut the output */
	struct query *query; /* -Q */
	enum tab_type tabtype;
	bool no_tree;	    /* findmnt's FL_TREE cleared by an option */
	bool dfi;	    /* -I */
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
	bool poll;	   /* -p: follow the changes (poll.c) */
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
	uint64_t id_arg[2];	 /* --id, --uniq-id as given */
	bool id_given[2];
	bool tab_mountinfo;	 /* every table file read was mountinfo */
	size_t nbad[8];		 /* per file: the lines passed over */
	const char *ns_arg;   /* --ns */
	const char *task_arg; /* -N */
	size_t task_pos;      /* -N among the files of -F */
	char task_file[32];   /* -N with -F: /proc/TID/mountinfo */
	struct mntkit_opts nsopts;
	const struct mntkit_opts *ns;
	struct filter f;
	int *tids; /* TID per snapshot, NULL unless that column is shown */
};

extern const char usage_line[];

/*
 * findmnt's message "lsmnt: TEXT", the user's words in it byte for byte
 * as findmnt writes them (an expression's newline too)
 */
void fm_errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int parse_cmdline(struct cmdline *cl, int argc, char *argv[]);

/* ---- options-cols.c: the columns of the command line ---- */

/* -H: findmnt's columns printed; 1 (done), or -1 (a write error, told) */
int list_findmnt_columns(const struct cmdline *cl);
/* the default columns (df's, --poll's), then -o's: 0 or -1 (told) */
int set_columns(struct cmdline *cl);
/*
 * the output's columns as findmnt's table has them (a --poll column
 * without -p cuts them, with a warning), then -Q's: 0 or -1 (told)
 */
int finish_columns(struct cmdline *cl);
/* column @col is shown */
bool has_col(const struct cmdline *cl, int col);

/* ---- ns.c: the mount namespaces (-N, --all-namespaces) ---- */

int self_tid(void);
int own_ns_id(uint64_t *id);
int list_namespaces(const struct cmdline *cl, uint64_t **ids, int **pids);

/* ---- snapshot.c: the kernel's tables ---- */

/* the statmount groups the columns, the filters and -U need */
uint64_t wanted_mask(const struct cmdline *cl);
/* @opts (in @o) with MNTKIT_OPTS_F_CHEAP_IDS where no unique ID shows */
const struct mntkit_opts *query_opts(const struct cmdline *cl,
				     const struct mntkit_opts *opts,
				     struct mntkit_opts *o);
/* the option an error names: --ns, -N, --unreachable, or NULL */
const char *ns_subject(const struct cmdline *cl);
/* @r: 0, or an error of the query, reported here */
int query_failed(const struct cmdline *cl, int r);
/* the snapshots: one, or one per namespace with --all-namespaces */
int snapshots(struct cmdline *cl, struct mntkit_table ***tabs,
	      size_t *ntabs, int **tids);
void free_tables(struct mntkit_table **tabs, size_t n);

/* ---- tabfile.c: -F, -s and -m's utab ---- */

/* -F, -s: the tables of the files (errors told) */
int read_tabfiles(struct cmdline *cl, struct mntkit_table ***tabs,
		  size_t *ntabs);
/* -m: utab's userspace options for the tables' mounts (cell_user_options) */
int mtab_merge(const struct cmdline *cl, struct mntkit_table **tabs,
	       size_t ntabs);
void mtab_free(void);

/* ---- main.c: the run's flow ---- */

struct plan {
	bool tree_mode;	 /* findmnt's FL_TREE after all options */
	bool whole_tree; /* the whole tree: exit 0 even when empty */
	bool submounts;
};

/* ---- stream.c: every mount printed from its reply, no snapshot ---- */

enum stream_kind { STREAM_NONE, STREAM_FLAT, STREAM_TREE };

/* whether, and how, the run can stream */
enum stream_kind streamable(const struct cmdline *cl, const struct plan *p);
/*
 * 0, -1 (an error, told), or 1: the tree was no tree, to be printed from
 * a snapshot
 */
int run_stream(struct cmdline *cl, enum stream_kind kind);

/* ---- poll.c: --poll ---- */

/* -p LIST: findmnt's action words; 0 or -1 after an error message */
int poll_parse_actions(const char *opt, const char *list,
		       unsigned int *actions);
/* -p: follow the mount table and print findmnt's batches; 0 or -1 */
int run_poll(struct cmdline *cl);

/* ---- verify.c: -x, --verify ---- */

/* findmnt's checks of the entries the filters keep; 0 or -1 */
int run_verify(struct cmdline *cl);

/* ---- big blocks (lib/util.h) ---- */

/*
 * @len bytes (malloc()ed: free(3) and realloc(3) take them); when @all of
 * them will be written (every mount a row, the text of every cell, a
 * buffer used over and over) made present at once, in huge pages from
 * two huge runs on: mntkit__big_alloc()
 */
static inline void *big_alloc(size_t len, bool all)
{
	return all ? mntkit__big_alloc(len, 2 * MNTKIT__HUGE,
				       MNTKIT__BIG_PRESENT) :
		     malloc(len);
}

#endif
