/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lsmnt.h - what the parts of lsmnt share: the columns, the rows to print
 * and the printers.
 *
 *   lsmnt.c        the main work: snapshots, rows, usage, tags, --poll's glue
 *   lsmnt-opts.c, lsmnt-filter.c, lsmnt-rows.c, lsmnt-ns.c
 *                  command line, filters, the rows to print, namespaces
 *                  (what they share: lsmnt-parts.h)
 *   lsmnt-cols.c   the columns: names, flags, the value of a cell
 *   lsmnt-dev.c    the devices: a source's tags, -c, -e, libblkid and udev
 *   lsmnt-print.c  the printers: JSON, raw, pairs, list and tree (linear,
 *                  findmnt's bytes), and libsmartcols for a terminal
 *   lsmnt-poll.c   --poll: findmnt's actions from libmntkit's watch events
 *   lsmnt-dl.c     libsmartcols and libblkid, dlopen()ed at their first use
 */
#ifndef MNTKIT_TOOLS_LSMNT_H
#define MNTKIT_TOOLS_LSMNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mntkit.h"
#include "output.h"

#define PROG "lsmnt"

/* ---- columns ---- */

enum col_id {
	COL_AVAIL,
	COL_FREQ,
	COL_FSROOT,
	COL_FSTYPE,
	COL_FS_OPTIONS,
	COL_GIDMAP,
	COL_ID,
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
	NR_LIST_COLS, /* the columns above: -H, --output-all */
	/* --poll only (as findmnt's): after the others in -p -H */
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
	bool findmnt;  /* findmnt 2.38 has it, same meaning */
	uint64_t mask; /* statmount groups its value needs */
	const char *help;
};

extern const struct colinfo lsmnt_cols[NR_COLS];

/* the column named @name (@len bytes, any case), -1 if none */
int col_by_name(const char *name, size_t len);

/* how a cell is wanted: list/tree text differs in MAJ:MIN only */
struct cellctx {
	bool text;	   /* list or tree (MAJ:MIN as "%3u:%-3u") */
	bool nofsroot;	   /* -v: SOURCE without [/dir] */
	bool bytes;	   /* -b: sizes in bytes, not 1.5G */
	bool canonicalize; /* -c: SOURCE as a canonical path */
	bool evaluate;	   /* -e: a LABEL=... SOURCE as its device */
	bool vfs_all;	   /* --vfs-all: VFS-OPTIONS with every default */
};

/*
 * What statvfs(2) of a mount point said, taken once per printed row and
 * only when a column needs it (SIZE, AVAIL, USED, USE%).
 */
struct fs_usage {
	bool ok; /* statvfs() succeeded (else the cells are empty) */
	unsigned long frsize;
	uint64_t blocks, bfree, bavail;
};

/*
 * What findmnt asks libblkid (and udev's database) about the source of a
 * mount: LABEL, UUID, PARTUUID, PARTLABEL and SOURCES. Looked up once per
 * distinct source, and only for the columns shown.
 */
enum dev_tag { TAG_LABEL, TAG_UUID, TAG_PARTUUID, TAG_PARTLABEL, NR_TAGS };

#define WANT_TAG(t)  (1U << (t))
#define WANT_SOURCES (1U << NR_TAGS)

struct devtags {
	char *tag[NR_TAGS]; /* NULL: none */
	char *sources;	    /* '\n' between devices; NULL: SOURCE's value */
};

struct blkid_struct_cache;

/* the lookups of one run: one libblkid cache, saved by devlookup_end() */
struct devlookup {
	struct blkid_struct_cache *cache;
	bool probed_all; /* blkid_probe_all() done (SOURCES) */
};

void devtags_get(struct devlookup *dl, const char *src, unsigned int want,
		 bool evaluate, struct devtags *out);
void devtags_free(struct devtags *t);
void devlookup_end(struct devlookup *dl);

/* findmnt's -c and -e: the printed SOURCE (lsmnt-cols.c) */
char *canonical_source(const char *src);
char *evaluate_tag(const char *src);
bool source_is_tag(const char *src);

struct row;

/*
 * The value of column @col for the row @r (a reply of a table, with its
 * statvfs and -U data), or NULL when it has none (JSON null, an empty
 * cell). The text is unescaped; it points into the reply or into
 * @scratch, which is reset first, and lives until the next call with the
 * same @scratch.
 */
const char *cell_value(const struct cellctx *cc, enum col_id col,
		       const struct row *r, struct outbuf *scratch);

/* a path whose lookup may block on a served filesystem's server */
bool path_may_block(const char *path);

/* fill @u from statvfs(2) of the mount point of @sm (none: !u->ok) */
void fs_usage_get(const struct mntkit_statmount *sm, struct fs_usage *u);

/* findmnt's OPTIONS and FSTYPE, for the filters -O, -t, --real, --pseudo */
const char *cell_options(const struct mntkit_statmount *sm,
			 struct outbuf *scratch);
const char *cell_fstype(const struct mntkit_statmount *sm,
			struct outbuf *scratch);
bool fstype_is_pseudo(const char *fstype);

/* ---- tables read from a file (-F, -s) and utab (-m) ---- */

/*
 * The tables lsmnt read from files (-F, -s), whose fstab-format entries
 * have their OPTIONS, VFS-OPTIONS, FS-OPTIONS, FREQ and PASSNO as the
 * file wrote them (mntkit_table_tab_entry()); set by lsmnt.c.
 */
extern struct mntkit_table *const *cell_tabs;
extern size_t cell_ntabs;

/*
 * -m: the userspace options of utab for a record of the kernel's table
 * (by its mnt_id), NULL when none; set by lsmnt.c.
 */
extern const char *(*cell_user_options)(const struct mntkit_statmount *sm);

/* the file data of @sm's entry, if it is of a fstab-format table */
bool cell_tab_entry(const struct mntkit_statmount *sm,
		    struct mntkit_tab_entry *e);

/* ---- what to print ---- */

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

/* "mount", "umount", ...; NULL for ACT_NONE (lsmnt-cols.c) */
const char *poll_action_name(enum poll_action a);

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
	/* the forest of the rows, while it is built (lsmnt-rows.c) */
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
	bool notrunc;	   /* -u */
	bool ascii;	   /* -a */
	bool shell;	   /* -y */
	bool nofsroot;	   /* -v */
	bool bytes;	   /* -b */
	bool canonicalize; /* -c */
	bool evaluate;	   /* -e */
	bool vfs_all;	   /* --vfs-all */
	bool terminal;	   /* list/tree to a terminal: libsmartcols */
	const int *cols;   /* enum col_id */
	size_t ncols;
	FILE *stream; /* where @ob goes, a chunk at a time */
	/*
	 * A flat listing printed in parts (lsmnt.c's stream): @cont, the
	 * rows go on an output begun (no header, no JSON opening; the JSON
	 * object of the first row is open already); @more, more rows follow
	 * (no JSON closing: the last row is not the last).
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

/* the printers hand their output to pr->stream in chunks of this much */
#define PRINT_CHUNK (64U * 1024)

/*
 * A flat list for a pipe or a file (no tree, no multi-line column) of
 * rows that come in parts: each row's cells kept as text, no more, until
 * every row is in and the widths are known. text_cells_add() takes a
 * part (its records may go afterwards), text_cells_print() prints them
 * all as print_rows() does; 0 or a negative errno.
 *
 * With @at (the caller's memory, room for every row), the rows are kept
 * for a tree whose order is known only once all are in (lsmnt.c's
 * streamed tree): each row's cells whole, from where @at says, and in
 * @tw (the same, for a text tree) the width of its tree column's cell
 * without the art. For pr->json such cells are JSON values, and
 * text_cells_print() prints the JSON tree.
 */
struct text_cells {
	struct outbuf text; /* the cells, row after row (the
			     * layout: lsmnt-print.c) */
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

/* a row of a tree in pre-order: which one, where */
struct tree_pos {
	uint32_t row;	     /* its index among the rows added */
	uint32_t depth : 30; /* 0 for the root */
	uint32_t last : 1;   /* no later sibling */
	uint32_t kids : 1;   /* the next row is its first child */
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
 * it, made present at once (lsmnt.c)
 */
void text_reserve(struct outbuf *ob, size_t m, size_t n);

/*
 * --poll: the batches of rows, as findmnt prints them with
 * scols_table_print_range(): each batch measured on its own rows, the
 * header (list, raw) with the first batch only; JSON: a document per
 * batch. A terminal keeps one libsmartcols table across the batches.
 */
struct libscols_table;

struct batch_printer {
	struct printer pr;	   /* noheadings once the header is out */
	struct libscols_table *tb; /* a terminal's, once a batch came */
};

int print_batch(struct batch_printer *bp, const struct row *rows, size_t n,
		struct outbuf *ob);
void batch_printer_end(struct batch_printer *bp);

/* ---- --poll (lsmnt-poll.c) ---- */

/* what the watch loop needs from the command line */
struct poll_opts {
	const struct mntkit_opts *ns; /* NULL: lsmnt's own namespace */
	const char *ns_subject;	      /* for errors: "--ns", "-N" or NULL */
	/*
	 * --all-namespaces: every namespace (MNTKIT_WATCH_ALL_NS); a row's
	 * record has its namespace's ID in mnt_ns_id, its row.tid is the
	 * event's ns_pid
	 */
	bool all_ns;
	uint64_t mask;		      /* statmount groups the rows need */
	unsigned int actions;	      /* ACT_BIT()s to print, 0: all */
	int timeout_ms;		      /* -w: idle timeout, < 0: none */
	bool first_only;	      /* -f: the first matching change only */
	bool backward;		      /* -d backward: a batch reversed */
	/* the filters (-t, -O, -S, -T, ...) of a row's record */
	bool (*match)(void *ctx, const struct mntkit_statmount *sm);
	/* a batch's statvfs, libblkid and TID data (NULL: none needed) */
	int (*decorate)(void *ctx, struct row *rows, size_t n);
	void (*undecorate)(void *ctx); /* free what decorate() made */
	void *ctx;
};

/* -p LIST: findmnt's action words; 0 or -1 after an error message */
int poll_parse_actions(const char *opt, const char *list,
		       unsigned int *actions);

/*
 * Follow the mount table (with po->all_ns, those of every namespace) with
 * libmntkit's watch and print findmnt's --poll batches. Returns 0 (timeout, --first-only), -1 after an error
 * message; SIGINT, SIGTERM and a closed stdout end lsmnt as they end
 * findmnt (by the signal).
 */
int poll_run(const struct printer *pr, const struct poll_opts *po);

#endif
