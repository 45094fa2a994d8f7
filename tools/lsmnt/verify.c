// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt -x/--verify: findmnt's checks of a fstab (or, with --kernel, -m,
 * -N or --ns, of the kernel's mount table), message for message (lsmnt(8)
 * lists them).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <mntkit.h>

#include "dl.h"
#include "cli.h"
#include "lsmnt.h"

/* one fstab entry, as the file says it (NULL: absent) */
struct verify_entry {
	const char *source, *target, *fstype;
	const char *options; /* the whole field */
	const char *vfs_options, *fs_options, *user_options;
	int passno;
	bool match; /* the filters keep it */
	const struct mntkit_statmount *sm; /* its record, and table */
	const struct mntkit_table *t;
	bool owned; /* options, vfs_options, fs_options: malloc'd */
	char *real; /* -x without filters: the target's resolve() */
};

struct verify_opts {
	bool verbose;	  /* --verbose: the "[ ]" lines too */
	bool check_order; /* no filter: the order of the targets too */
	bool first_only;  /* -f: the first matching entry only */
	size_t nparse;	  /* lines the reader passed over */
};

struct vfy {
	const struct verify_opts *o;
	const char *target; /* of the entry, printed once */
	bool printed;
	bool no_fsck;
	int nerrors, nwarnings;
	char **fs;	/* the kernel's filesystem types */
	size_t nfs, capfs;
	bool fs_read;
};

static void mesg(struct vfy *v, char type, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void mesg(struct vfy *v, char type, const char *fmt, va_list ap)
{
	if (!v->printed) {
		printf("%s\n", v->target ? v->target : "");
		v->printed = true;
	}
	printf("   [%c] ", type);
	vprintf(fmt, ap);
	putchar('\n');
}

#define VFY_FN(name, type, count)                                              \
	static __attribute__((format(printf, 2, 3))) void name(                \
		struct vfy *v, const char *fmt, ...)                           \
	{                                                                      \
		va_list ap;                                                    \
		count;                                                         \
		if (type == ' ' && !v->o->verbose)                             \
			return;                                                \
		va_start(ap, fmt);                                             \
		mesg(v, type, fmt, ap);                                        \
		va_end(ap);                                                    \
	}

VFY_FN(ok, ' ', (void)0)
VFY_FN(warn, 'W', v->nwarnings++)
VFY_FN(err, 'E', v->nerrors++)

/* is option @name in the comma list @opts? its value in *@val (or NULL) */
static bool has_opt(const char *opts, const char *name, const char **val,
		    size_t *vlen)
{
	size_t nl = strlen(name);
	const char *p = opts;

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l >= nl && !strncmp(p, name, nl) &&
		    (l == nl || p[nl] == '=')) {
			if (val) {
				*val = l > nl ? p + nl + 1 : NULL;
				*vlen = l > nl ? l - nl - 1 : 0;
			}
			return true;
		}
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* libmount's network filesystems (fuse.X as X) */
static bool is_netfs(const char *type)
{
	static const char *const net[] = {
		"9p", "afs", "ceph", "cifs", "coda", "curlftpfs", "gfs",
		"gfs2", "glusterfs", "ncp", "ncpfs", "nfs", "nfs4", "smb3",
		"smbfs", "sshfs",
	};

	if (!type)
		return false;
	if (!strncmp(type, "fuse.", 5))
		type += 5;
	for (size_t i = 0; i < sizeof(net) / sizeof(*net); i++)
		if (!strcmp(type, net[i]))
			return true;
	return false;
}

static bool is_pseudo_or_net(const char *type)
{
	return fstype_is_pseudo(type) || is_netfs(type);
}

/* a canonical path when it resolves, else @p as it is (malloc'd) */
/*
 * realpath(3) of an absolute path, else the path as it is; never through
 * a served filesystem (NFS, FUSE, ...), whose server may not answer
 */
static char *resolve(const char *p)
{
	char *r = p && *p == '/' && !path_may_block(p) ? realpath(p, NULL)
							: NULL;

	return r ? r : strdup(p ? p : "");
}

/* a later target above this one (error) or the same (warning) */
static void check_order(struct vfy *v, const struct verify_entry *ents,
			size_t n, size_t i)
{
	const char *tgt = ents[i].real;

	for (size_t k = i + 1; tgt && k < n; k++) {
		const char *nt = ents[k].real;
		size_t len;

		if (!ents[k].target)
			continue;
		if (!nt)
			break;
		len = strlen(nt);
		if (!strncmp(nt, tgt, len)) {
			if (tgt[len] == '\0')
				warn(v, "target specified more than once");
			else if (tgt[len] == '/')
				err(v, "wrong order: %s specified before %s",
				    tgt, nt);
		}
	}
}

static void check_target(struct vfy *v, const struct verify_entry *e)
{
	struct stat st;
	char *cn;

	if (!e->target) {
		err(v, "undefined target (fs_file)");
		return;
	}
	if (path_may_block(e->target)) {
		ok(v, "target on a served filesystem: not looked up");
		return;
	}
	cn = resolve(e->target);
	if (cn && strcmp(cn, e->target))
		warn(v, "non-canonical target path (real: %s)", cn);
	if (stat(cn ? cn : e->target, &st) != 0) {
		if (!has_opt(e->options, "noauto", NULL, NULL))
			err(v, "unreachable on boot required target: %s",
			    cli_strerror(errno));
		else
			warn(v, "unreachable target: %s", cli_strerror(errno));
	} else if (!S_ISDIR(st.st_mode) &&
		   !has_opt(e->options, "bind", NULL, NULL)) {
		err(v, "target is not a directory");
	} else {
		ok(v, "target exists");
	}
	free(cn);
}

static void check_options(struct vfy *v, const struct verify_entry *e)
{
	if (e->vfs_options)
		ok(v, "VFS options: %s", e->vfs_options);
	if (e->fs_options)
		ok(v, "FS options: %s", e->fs_options);
	if (e->user_options)
		ok(v, "userspace options: %s", e->user_options);
}

static void check_swaparea(struct vfy *v, const struct verify_entry *e)
{
	const char *val;
	size_t vl;

	if (has_opt(e->options, "discard", &val, &vl) && val &&
	    strncmp(val, "once", vl) && strncmp(val, "pages", vl))
		/* findmnt prints the rest of the options from the value */
		err(v, "unsupported swaparea discard policy: %s", val);
	if (has_opt(e->options, "pri", &val, &vl) && val) {
		const char *p = val;

		if (*p == '-')
			p++;
		for (; p < val + vl; p++) {
			if (!isdigit((unsigned char)*p)) {
				err(v, "failed to parse swaparea priority "
				       "option");
				break;
			}
		}
	}
}

/* the device a source names: a tag through libblkid, else itself */
static char *resolve_spec(const char *src, blkid_cache cache)
{
	if (source_is_tag(src)) {
		char *t = NULL, *val = NULL, *dev = NULL;

		if (sym_blkid_parse_tag_string(src, &t, &val) == 0)
			dev = sym_blkid_evaluate_tag(t, val, &cache);
		free(t);
		free(val);
		return dev;
	}
	return src ? strdup(src) : NULL;
}

static void check_source(struct vfy *v, const struct verify_entry *e,
			 blkid_cache cache, bool *stop)
{
	const char *src = e->source;
	bool bind = has_opt(e->options, "bind", NULL, NULL);
	char *dev = NULL;
	struct stat st;

	if (!src || !*src) {
		err(v, "undefined source (fs_spec)");
		*stop = true;
		return;
	}
	if (source_is_tag(src)) {
		const char *eq = strchr(src, '=');
		int nl = (int)(eq - src);

		dev = resolve_spec(src, cache);
		if (!dev) {
			if (!has_opt(e->options, "noauto", NULL, NULL))
				err(v, "unreachable on boot required source: "
				       "%.*s=%s", nl, src, eq + 1);
			else
				warn(v, "unreachable: %.*s=%s", nl, src,
				     eq + 1);
			return;
		}
		ok(v, "%.*s=%s translated to %s", nl, src, eq + 1, dev);
		src = dev; /* checked as a path below */
	} else if (strchr(src, '=') && stat(src, &st) != 0) {
		/* libblkid would parse it, libmount knows no such tag */
		err(v, "unsupported source tag: %s", src);
		return;
	}
	if (is_pseudo_or_net(e->fstype))
		ok(v, "do not check %s source (pseudo/net)", src);
	else if (path_may_block(src))
		ok(v, "source %s on a served filesystem: not looked up", src);
	else if (stat(src, &st) != 0)
		warn(v, "unreachable source: %s: %s", src, cli_strerror(errno));
	else if ((S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) && !bind)
		warn(v, "non-bind mount source %s is a directory or regular "
			"file", src);
	else if (!S_ISBLK(st.st_mode) && !bind)
		warn(v, "source %s is not a block device", src);
	else
		ok(v, "source %s exists", src);
	free(dev);
}

static void add_fs(struct vfy *v, const char *name, size_t len)
{
	if (mntkit__reserve(&v->fs, &v->capfs, v->nfs + 1, sizeof(*v->fs), 64))
		return;
	v->fs[v->nfs] = strndup(name, len);
	if (v->fs[v->nfs])
		v->nfs++;
}

/* the kernel's filesystems: /proc/filesystems and the modules of fs/ */
static void read_kernel_fs(struct vfy *v)
{
	char line[256], path[512];
	struct utsname u;
	FILE *f = fopen("/proc/filesystems", "re");
	DIR *d;

	v->fs_read = true;
	while (f && fgets(line, sizeof(line), f)) {
		char *t = strchr(line, '\t');
		size_t l;

		if (!t)
			continue;
		t++;
		l = strcspn(t, "\n");
		add_fs(v, t, l);
	}
	if (f)
		fclose(f);
	if (uname(&u) != 0)
		return;
	snprintf(path, sizeof(path), "/lib/modules/%s/kernel/fs", u.release);
	d = opendir(path);
	for (struct dirent *de; d && (de = readdir(d));)
		if (de->d_name[0] != '.')
			add_fs(v, de->d_name, strlen(de->d_name));
	if (d)
		closedir(d);
}

static bool type_known(struct vfy *v, const char *type)
{
	char helper[512];
	struct stat st;

	if (!v->fs_read)
		read_kernel_fs(v);
	for (size_t i = 0; i < v->nfs; i++)
		if (!strcmp(v->fs[i], type))
			return true;
	snprintf(helper, sizeof(helper), "/sbin/mount.%s", type);
	if (stat(helper, &st) == 0)
		return true;
	snprintf(helper, sizeof(helper), "/sbin/fs.d/mount.%s", type);
	return stat(helper, &st) == 0;
}

/* libblkid's type of @dev: NULL (errno set) when none */
static char *probe_type(const char *dev, bool *ambi)
{
	blkid_probe pr = sym_blkid_new_probe_from_filename(dev);
	const char *t = NULL;
	char *type = NULL;
	int rc;

	*ambi = false;
	if (!pr)
		return NULL;
	sym_blkid_probe_enable_superblocks(pr, 1);
	sym_blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	rc = sym_blkid_do_safeprobe(pr);
	if (rc == -2)
		*ambi = true;
	if (rc == 0 && sym_blkid_probe_lookup_value(pr, "TYPE", &t, NULL) == 0)
		type = strdup(t);
	sym_blkid_free_probe(pr);
	if (!type)
		errno = 0;
	return type;
}

static void check_fstype(struct vfy *v, const struct verify_entry *e,
			 blkid_cache cache)
{
	char *src = resolve_spec(e->source, cache), *real;
	const char *type = e->fstype;
	bool isauto = false, isswap = false, ambi = false;

	if (!src)
		return;
	if (is_pseudo_or_net(type)) {
		ok(v, "do not check %s FS type (pseudo/net)", src);
		goto out;
	}
	if (type) {
		bool none = !strcmp(type, "none");

		if (none && !has_opt(e->options, "bind", NULL, NULL) &&
		    !has_opt(e->options, "move", NULL, NULL)) {
			warn(v, "\"none\" FS type is recommended for bind or "
				"move oprations only");
			goto out;
		}
		if (!strcmp(type, "auto"))
			isauto = true;
		else if (!strcmp(type, "swap"))
			isswap = true;
		else if (!strcmp(type, "xfs") || !strcmp(type, "btrfs"))
			v->no_fsck = true;
		if (!isswap && !isauto && !none && !type_known(v, type))
			warn(v, "%s seems unsupported by the current kernel",
			     type);
	}
	errno = 0;
	real = probe_type(src, &ambi);
	if (!real) {
		const char *why = errno ? cli_strerror(errno) : "reason unknown";

		if (isauto)
			err(v, "cannot detect on-disk filesystem type (%s)", why);
		else
			warn(v, "cannot detect on-disk filesystem type (%s)",
			     why);
		goto out;
	}
	v->no_fsck = !strcmp(real, "xfs") || !strcmp(real, "btrfs");
	if (type && !isauto && strcmp(type, real))
		/* findmnt 2.42 warns (2.38: an error) */
		warn(v, "%s does not match with on-disk %s", type, real);
	else if (ambi)
		warn(v, "on-disk %s seems ambivalent", real);
	else
		ok(v, "FS type is %s", real);
	free(real);
out:
	free(src);
}

static void check_passno(struct vfy *v, const struct verify_entry *e)
{
	if (e->target && !strcmp(e->target, "/") && e->passno != 1 &&
	    !v->no_fsck)
		warn(v, "recommended root FS passno is 1 (current is %d)",
		     e->passno);
}

/* findmnt's /etc/fstab checks; the exit status (0 or 1) */
static int verify_entries(struct verify_entry *ents, size_t n,
			  const struct verify_opts *o)
{
	struct vfy v = { .o = o };
	blkid_cache cache = NULL;

	dl_blkid();
	sym_blkid_get_cache(&cache, NULL);
	for (size_t i = 0; o->check_order && i < n; i++)
		ents[i].real = resolve(ents[i].target);
	for (size_t i = 0; i < n; i++) {
		const struct verify_entry *e = &ents[i];
		bool stop = false;

		if (!e->match)
			continue;
		v.target = e->target;
		v.printed = false;
		v.no_fsck = false;
		if (o->check_order)
			check_order(&v, ents, n, i);
		if (e->fstype && !strcmp(e->fstype, "swap")) {
			check_swaparea(&v, e);
		} else {
			check_target(&v, e);
			check_options(&v, e);
		}
		check_source(&v, e, cache, &stop);
		if (!stop) {
			check_fstype(&v, e, cache);
			check_passno(&v, e);
		}
		if (o->first_only)
			break;
	}
	if (cache)
		sym_blkid_put_cache(cache);
	for (size_t i = 0; i < v.nfs; i++)
		free(v.fs[i]);
	free(v.fs);
	fflush(stdout);
	if (v.nerrors || o->nparse || v.nwarnings) {
		fprintf(stderr, "\n%zu parse error%s, %d error%s, %d warning%s\n",
			o->nparse, o->nparse == 1 ? "" : "s", v.nerrors,
			v.nerrors == 1 ? "" : "s", v.nwarnings,
			v.nwarnings == 1 ? "" : "s");
	} else {
		printf("Success, no errors or warnings detected\n");
	}
	return v.nerrors || o->nparse ? 1 : 0;
}

/* ---- the entries of the files, through the filters ---- */

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* a file's entry as the file says it */
static void file_entry(const struct mntkit_table *t, size_t i,
		       const struct mntkit_statmount *sm, struct outbuf *ob,
		       struct verify_entry *e)
{
	MNTKIT_TAB_ENTRY(te);

	mntkit_table_tab_entry(t, i, &te);
	e->options = te.options;
	e->vfs_options = te.vfs_options;
	e->fs_options = te.fs_options;
	e->user_options = te.user_options;
	e->passno = te.passno;
	e->fstype = dup_or_null(cell_fstype(sm, ob));
}

/*
 * a mount of the kernel's table as libmount makes it an entry: the
 * options as the OPTIONS, VFS-OPTIONS and FS-OPTIONS columns show them,
 * no pass number
 */
static void kernel_entry(const struct cmdline *cl,
			 const struct mntkit_statmount *sm, struct outbuf *ob,
			 struct verify_entry *e)
{
	const struct cellctx cc = {.listmount = cl->pr.listmount};
	const struct row r = {.sm = sm};

	e->owned = true;
	e->options = dup_or_null(cell_value(&cc, COL_OPTIONS, &r, ob));
	e->vfs_options = dup_or_null(cell_value(&cc, COL_VFS_OPTIONS, &r, ob));
	e->fs_options = dup_or_null(cell_value(&cc, COL_FS_OPTIONS, &r, ob));
	e->fstype = dup_or_null(cell_fstype(sm, ob));
}

static void free_entry(struct verify_entry *e)
{
	free((char *)e->fstype);
	free(e->real);
	if (!e->owned)
		return;
	free((char *)e->options);
	free((char *)e->vfs_options);
	free((char *)e->fs_options);
}

/* the filters on every entry; false when none is kept */
static bool mark_matches(struct cmdline *cl, struct matcher *m,
			 struct verify_entry *ents, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		m->t = ents[i].t;
		ents[i].match = list_all(&cl->f) || matches(m, ents[i].sm);
		any |= ents[i].match;
	}
	return any;
}

/*
 * findmnt's entries for -x: those the filters keep; a lone argument that
 * is no entry's source is a target (findmnt swaps it before the first
 * entry it checks)
 */
static void select_entries(struct cmdline *cl, struct matcher *m,
			   struct verify_entry *ents, size_t n)
{
	struct filter *f = &cl->f;

	if (f->source && !f->nocanon)
		f->source_canon = canon_source(f->source);
	if (f->target_arg)
		f->target = canon_target(f, f->target_arg);
	if (mark_matches(cl, m, ents, n) || !f->swap || f->target_arg)
		return;
	swap_to_target(f);
	mark_matches(cl, m, ents, n);
}

/*
 * -x: findmnt's checks of the entries the filters keep: those of fstab
 * or the files of -F, else (--kernel, -m, -N, --ns) the kernel's table
 */
int run_verify(struct cmdline *cl)
{
	struct verify_opts vo = {.verbose = cl->verbose,
				 .check_order = list_all(&cl->f),
				 .first_only = cl->f.first};
	struct matcher m = {.f = &cl->f};
	struct verify_entry *ents = NULL;
	struct mntkit_table **tabs = NULL;
	size_t ntabs = 0, n = 0, cap = 0;
	int *tids = NULL, r;

	outbuf_init(&m.s1);
	outbuf_init(&m.s2);
	r = snapshots(cl, &tabs, &ntabs, &tids);
	for (size_t t = 0; !r && t < ntabs; t++)
		cap += mntkit_table_count(tabs[t]);
	if (!r && !(ents = calloc(cap + 1, sizeof(*ents))))
		r = -ENOMEM;
	for (size_t t = 0; !r && t < ntabs; t++) {
		vo.nparse += cl->ntabfiles ? cl->nbad[t] : 0;
		for (size_t i = 0; i < mntkit_table_count(tabs[t]); i++) {
			const struct mntkit_statmount *sm =
				mntkit_table_get(tabs[t], i);
			struct verify_entry *e = &ents[n++];

			e->sm = sm;
			e->t = tabs[t];
			e->source = sm_str(sm, MNTKIT_FIELD_SB_SOURCE);
			e->target = sm_str(sm, MNTKIT_FIELD_MNT_POINT);
			if (cl->ntabfiles)
				file_entry(tabs[t], i, sm, &m.s1, e);
			else
				kernel_entry(cl, sm, &m.s1, e);
		}
	}
	if (!r) {
		select_entries(cl, &m, ents, n);
		r = verify_entries(ents, n, &vo) ? -1 : 0;
	} else if (cl->ntabfiles) { /* the kernel's: snapshots() said why */
		cli_errmsg(NULL, "%s", cli_strerror(-r));
	}
	for (size_t i = 0; i < n; i++)
		free_entry(&ents[i]);
	free(ents);
	free(tids);
	free_tables(tabs, ntabs);
	cell_tabs = NULL;
	cell_ntabs = 0;
	outbuf_free(&m.s1);
	outbuf_free(&m.s2);
	return r < 0 ? -1 : 0;
}
