// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt-cols.c - lsmnt's columns: findmnt's names and meanings, every value
 * derived from one statmount reply.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lsmnt.h"

#define G(x) MNTKIT_STATMOUNT_##x

const struct colinfo lsmnt_cols[NR_COLS] = {
	[COL_FSROOT] = {"FSROOT", 0.25, CF_NOEXTREMES, false, true, G(MNT_ROOT),
			"filesystem root"},
	[COL_FSTYPE] = {"FSTYPE", 0.10, CF_TRUNC, false, true,
			G(FS_TYPE) | G(FS_SUBTYPE), "filesystem type"},
	[COL_FS_OPTIONS] = {"FS-OPTIONS", 0.10, CF_TRUNC, false, true,
			    G(SB_BASIC) | G(MNT_OPTS),
			    "FS specific mount options"},
	[COL_GIDMAP] = {"GIDMAP", 0.10, CF_TRUNC, false, false, G(MNT_GIDMAP),
			"GID mapping of an idmapped mount"},
	[COL_ID] = {"ID", 2, CF_RIGHT, true, true, G(MNT_BASIC), "mount ID"},
	[COL_MAGIC] = {"MAGIC", 10, 0, false, false, G(SB_BASIC),
		       "filesystem magic number (statfs f_type)"},
	[COL_MAJMIN] = {"MAJ:MIN", 6, 0, false, true, G(SB_BASIC),
			"major:minor device number"},
	[COL_MASTER] = {"MASTER", 2, CF_RIGHT, true, false, G(MNT_BASIC),
			"peer group of the master (of a slave mount)"},
	[COL_NS] = {"NS", 10, CF_RIGHT, true, false, G(MNT_NS_ID),
		    "mount namespace ID"},
	[COL_OPTIONS] = {"OPTIONS", 0.10, CF_TRUNC, false, true,
			 G(MNT_BASIC) | G(SB_BASIC) | G(MNT_OPTS),
			 "all mount options"},
	[COL_OPT_FIELDS] = {"OPT-FIELDS", 0.10, CF_TRUNC, false, true,
			    G(MNT_BASIC) | G(PROPAGATE_FROM),
			    "optional mount fields"},
	[COL_PARENT] = {"PARENT", 2, CF_RIGHT, true, true, G(MNT_BASIC),
			"mount parent ID"},
	[COL_PEER] = {"PEER", 2, CF_RIGHT, true, false, G(MNT_BASIC),
		      "peer group (of a shared mount)"},
	[COL_PROPAGATE_FROM] = {"PROPAGATE-FROM", 2, CF_RIGHT, true, false,
				G(PROPAGATE_FROM),
				"dominating peer group (of a slave mount)"},
	[COL_PROPAGATION] = {"PROPAGATION", 0.10, 0, false, true, G(MNT_BASIC),
			     "VFS propagation flags"},
	[COL_SB_SOURCE] = {"SB-SOURCE", 0.25, CF_NOEXTREMES, false, false,
			   G(SB_SOURCE), "source of the superblock"},
	[COL_SOURCE] = {"SOURCE", 0.25, CF_NOEXTREMES, false, true,
			G(SB_SOURCE) | G(MNT_ROOT), "source device"},
	[COL_SUBTYPE] = {"SUBTYPE", 0.10, 0, false, false, G(FS_SUBTYPE),
			 "filesystem subtype (e.g. sshfs of fuse.sshfs)"},
	[COL_TARGET] = {"TARGET", 0.30, CF_TREE | CF_NOEXTREMES, false, true,
			G(MNT_POINT), "mountpoint"},
	[COL_UIDMAP] = {"UIDMAP", 0.10, CF_TRUNC, false, false, G(MNT_UIDMAP),
			"UID mapping of an idmapped mount"},
	[COL_UNIQ_ID] = {"UNIQ-ID", 10, CF_RIGHT, true, true, G(MNT_BASIC),
			 "mount 64-bit ID"},
	[COL_UNIQ_PARENT] = {"UNIQ-PARENT", 10, CF_RIGHT, true, false,
			     G(MNT_BASIC), "mount parent 64-bit ID"},
	[COL_VFS_OPTIONS] = {"VFS-OPTIONS", 0.20, CF_TRUNC, false, true,
			     G(MNT_BASIC), "VFS specific mount options"},
};

int col_by_name(const char *name, size_t len)
{
	for (int i = 0; i < NR_COLS; i++) {
		const char *cn = lsmnt_cols[i].name;

		if (strlen(cn) == len && !strncasecmp(cn, name, len))
			return i;
	}
	return -1;
}

/* ---- pieces of a reply ---- */

static const char *sm_str(const struct mntkit_statmount *sm,
			  enum mntkit_field field)
{
	const char *s;

	if (mntkit_sm_str(sm, sm->size, field, &s) < 0)
		return NULL;
	return s;
}

/* a unique ID is above 2^31; the mountinfo emulation has only old IDs */
static bool is_unique_id(uint64_t id)
{
	return id > MNTKIT_MNT_UNIQUE_ID_OFFSET;
}

/* the text of mountinfo's fields is octal-escaped; findmnt shows it decoded */
static void put_unmangled(struct outbuf *ob, const char *s)
{
	const char *p = s;

	while (*p) {
		const char *bs = strchr(p, '\\');

		if (!bs) {
			outbuf_puts(ob, p);
			return;
		}
		outbuf_write(ob, p, (size_t)(bs - p));
		if (bs[1] >= '0' && bs[1] <= '3' && bs[2] >= '0' &&
		    bs[2] <= '7' && bs[3] >= '0' && bs[3] <= '7') {
			outbuf_putc(ob, (char)(((bs[1] - '0') << 6) |
					       ((bs[2] - '0') << 3) |
					       (bs[3] - '0')));
			p = bs + 4;
		} else {
			outbuf_putc(ob, '\\');
			p = bs + 1;
		}
	}
}

static void put_words(struct outbuf *ob, int (*fn)(uint64_t, char *, size_t),
		      uint64_t v)
{
	char buf[256];
	int n = fn(v, buf, sizeof(buf));

	if (n >= 0)
		outbuf_puts(ob, buf);
}

static int attr_words(uint64_t v, char *buf, size_t len)
{
	return mntkit_attr_str(v, MNTKIT_DECODE_PROC, buf, len);
}

static int sb_words(uint64_t v, char *buf, size_t len)
{
	return mntkit_sb_flags_str((uint32_t)v, buf, len);
}

static int prop_words(uint64_t v, char *buf, size_t len)
{
	return mntkit_propagation_str(v, buf, len);
}

/* FS-OPTIONS: the superblock's ro/rw,sync,dirsync,lazytime, then the fs's */
static void put_fs_options(struct outbuf *ob, const struct mntkit_statmount *sm)
{
	const char *opts = sm_str(sm, MNTKIT_FIELD_MNT_OPTS);

	put_words(ob, sb_words, sm->sb_flags);
	if (opts && *opts) {
		outbuf_putc(ob, ',');
		put_unmangled(ob, opts);
	}
}

/*
 * OPTIONS: libmount merges VFS-OPTIONS and FS-OPTIONS into one list whose
 * first word is "ro" when either says ro, then the rest of the VFS options,
 * then the rest of the fs options.
 */
static void put_options(struct outbuf *ob, const struct mntkit_statmount *sm)
{
	const char *opts = sm_str(sm, MNTKIT_FIELD_MNT_OPTS);
	char vfs[256];
	bool ro = (sm->mnt_attr & MNTKIT_MOUNT_ATTR_RDONLY) ||
		  (sm->sb_flags & MNTKIT_SB_RDONLY);
	const char *vtail, *stail;
	char sbw[128];

	if (attr_words(sm->mnt_attr, vfs, sizeof(vfs)) < 0)
		vfs[0] = '\0';
	if (sb_words(sm->sb_flags, sbw, sizeof(sbw)) < 0)
		sbw[0] = '\0';
	vtail = strchr(vfs, ',');
	stail = strchr(sbw, ',');
	outbuf_puts(ob, ro ? "ro" : "rw");
	if (vtail)
		outbuf_puts(ob, vtail);
	if (stail)
		outbuf_puts(ob, stail);
	if (opts && *opts) {
		outbuf_putc(ob, ',');
		put_unmangled(ob, opts);
	}
}

/* OPT-FIELDS: mountinfo's optional fields, in the kernel's order */
static void put_opt_fields(struct outbuf *ob, const struct mntkit_statmount *sm)
{
	uint64_t prop = sm->mnt_propagation;
	bool sep = false;

	if (prop & MNTKIT_MS_SHARED) {
		outbuf_printf(ob, "shared:%" PRIu64, sm->mnt_peer_group);
		sep = true;
	}
	if (prop & MNTKIT_MS_SLAVE) {
		outbuf_printf(ob, "%smaster:%" PRIu64, sep ? " " : "",
			      sm->mnt_master);
		sep = true;
		if ((sm->mask & MNTKIT_STATMOUNT_PROPAGATE_FROM) &&
		    sm->propagate_from && sm->propagate_from != sm->mnt_master)
			outbuf_printf(ob, " propagate_from:%" PRIu64,
				      sm->propagate_from);
	}
	if (prop & MNTKIT_MS_UNBINDABLE)
		outbuf_printf(ob, "%sunbindable", sep ? " " : "");
}

static void put_idmap(struct outbuf *ob, const struct mntkit_statmount *sm,
		      enum mntkit_field field)
{
	ssize_t n = mntkit_sm_strv(sm, sm->size, field, NULL, 0);
	const char **vec;

	if (n <= 0)
		return;
	vec = calloc((size_t)n, sizeof(*vec));
	if (!vec) {
		if (!ob->err)
			ob->err = ENOMEM;
		return;
	}
	n = mntkit_sm_strv(sm, sm->size, field, vec, (size_t)n);
	for (ssize_t i = 0; i < n; i++) {
		if (i)
			outbuf_putc(ob, ',');
		outbuf_puts(ob, vec[i]);
	}
	free(vec);
}

const char *cell_fstype(const struct mntkit_statmount *sm,
			struct outbuf *scratch)
{
	const char *type = sm_str(sm, MNTKIT_FIELD_FS_TYPE);
	const char *sub = sm_str(sm, MNTKIT_FIELD_FS_SUBTYPE);

	if (!type)
		return NULL;
	if (!sub || !*sub)
		return type;
	outbuf_reset(scratch);
	outbuf_printf(scratch, "%s.%s", type, sub);
	return outbuf_cstr(scratch);
}

const char *cell_options(const struct mntkit_statmount *sm,
			 struct outbuf *scratch)
{
	outbuf_reset(scratch);
	put_options(scratch, sm);
	return outbuf_cstr(scratch);
}

static const char *cell_source(const struct cellctx *cc,
			       const struct mntkit_statmount *sm,
			       struct outbuf *scratch)
{
	const char *src = sm_str(sm, MNTKIT_FIELD_SB_SOURCE);
	const char *root = sm_str(sm, MNTKIT_FIELD_MNT_ROOT);

	if (!src)
		return NULL;
	if (cc->nofsroot || !root || !strcmp(root, "/"))
		return src;
	outbuf_reset(scratch);
	outbuf_printf(scratch, "%s[%s]", src, root);
	return outbuf_cstr(scratch);
}

/* a number, NULL when 0 (findmnt leaves a zero ID empty) */
static const char *num_or_null(uint64_t v, struct outbuf *scratch)
{
	if (!v)
		return NULL;
	outbuf_reset(scratch);
	outbuf_printf(scratch, "%" PRIu64, v);
	return outbuf_cstr(scratch);
}

/* the text of @fn into @scratch; NULL if empty */
static const char *build(struct outbuf *scratch,
			 void (*fn)(struct outbuf *,
				    const struct mntkit_statmount *),
			 const struct mntkit_statmount *sm)
{
	const char *s;

	outbuf_reset(scratch);
	fn(scratch, sm);
	s = outbuf_cstr(scratch);
	return s && *s ? s : NULL;
}

/*
 * The groups a value cannot do without. The others may be absent from a
 * reply and then mean "none": no fs options, no subtype, no idmap, or a
 * backend that cannot tell (propagate_from, mnt_ns_id).
 */
#define REQUIRED_GROUPS                                                        \
	(G(SB_BASIC) | G(MNT_BASIC) | G(MNT_ROOT) | G(MNT_POINT) |             \
	 G(FS_TYPE) | G(SB_SOURCE))

const char *cell_value(const struct cellctx *cc, enum col_id col,
		       const struct mntkit_statmount *sm,
		       struct outbuf *scratch)
{
	uint64_t m = sm->mask;

	if (lsmnt_cols[col].mask & REQUIRED_GROUPS & ~m)
		return NULL; /* the reply lacks what the value needs */
	switch (col) {
	case COL_SOURCE:
		return cell_source(cc, sm, scratch);
	case COL_TARGET:
		return sm_str(sm, MNTKIT_FIELD_MNT_POINT);
	case COL_FSTYPE:
		return cell_fstype(sm, scratch);
	case COL_OPTIONS:
		return build(scratch, put_options, sm);
	case COL_VFS_OPTIONS:
		outbuf_reset(scratch);
		put_words(scratch, attr_words, sm->mnt_attr);
		return outbuf_cstr(scratch);
	case COL_FS_OPTIONS:
		return build(scratch, put_fs_options, sm);
	case COL_FSROOT:
		return sm_str(sm, MNTKIT_FIELD_MNT_ROOT);
	case COL_ID:
		return num_or_null(sm->mnt_id_old, scratch);
	case COL_PARENT:
		return num_or_null(sm->mnt_parent_id_old, scratch);
	case COL_UNIQ_ID:
		return is_unique_id(sm->mnt_id)
			       ? num_or_null(sm->mnt_id, scratch)
			       : NULL;
	case COL_UNIQ_PARENT:
		return is_unique_id(sm->mnt_parent_id)
			       ? num_or_null(sm->mnt_parent_id, scratch)
			       : NULL;
	case COL_MAJMIN:
		if (!sm->sb_dev_major && !sm->sb_dev_minor)
			return NULL;
		outbuf_reset(scratch);
		outbuf_printf(scratch, cc->text ? "%3u:%-3u" : "%u:%u",
			      sm->sb_dev_major, sm->sb_dev_minor);
		return outbuf_cstr(scratch);
	case COL_PROPAGATION:
		outbuf_reset(scratch);
		put_words(scratch, prop_words, sm->mnt_propagation);
		return outbuf_cstr(scratch);
	case COL_OPT_FIELDS:
		return build(scratch, put_opt_fields, sm);
	case COL_NS:
		return num_or_null(sm->mnt_ns_id, scratch);
	case COL_PEER:
		return num_or_null(sm->mnt_peer_group, scratch);
	case COL_MASTER:
		return num_or_null(sm->mnt_master, scratch);
	case COL_PROPAGATE_FROM:
		return num_or_null(sm->propagate_from, scratch);
	case COL_SUBTYPE:
		return sm_str(sm, MNTKIT_FIELD_FS_SUBTYPE);
	case COL_MAGIC:
		outbuf_reset(scratch);
		outbuf_printf(scratch, "0x%08" PRIx64, sm->sb_magic);
		return outbuf_cstr(scratch);
	case COL_SB_SOURCE:
		return sm_str(sm, MNTKIT_FIELD_SB_SOURCE);
	case COL_UIDMAP:
		outbuf_reset(scratch);
		put_idmap(scratch, sm, MNTKIT_FIELD_MNT_UIDMAP);
		return scratch->len ? outbuf_cstr(scratch) : NULL;
	case COL_GIDMAP:
		outbuf_reset(scratch);
		put_idmap(scratch, sm, MNTKIT_FIELD_MNT_GIDMAP);
		return scratch->len ? outbuf_cstr(scratch) : NULL;
	default:
		return NULL;
	}
}

/* libmount 2.38's list of pseudo filesystems (--real, --pseudo), sorted */
static const char *const pseudo_fs[] = {
	"anon_inodefs",
	"apparmorfs",
	"autofs",
	"bdev",
	"binder",
	"binfmt_misc",
	"bpf",
	"cgroup",
	"cgroup2",
	"configfs",
	"cpuset",
	"debugfs",
	"devfs",
	"devpts",
	"devtmpfs",
	"dlmfs",
	"dmabuf",
	"drm",
	"efivarfs",
	"fuse",
	"fuse.archivemount",
	"fuse.avfsd",
	"fuse.dumpfs",
	"fuse.encfs",
	"fuse.gvfs-fuse-daemon",
	"fuse.gvfsd-fuse",
	"fuse.lxcfs",
	"fuse.rofiles-fuse",
	"fuse.vmware-vmblock",
	"fuse.xwmfs",
	"fusectl",
	"hugetlbfs",
	"ipathfs",
	"mqueue",
	"nfsd",
	"none",
	"nsfs",
	"overlay",
	"pipefs",
	"proc",
	"pstore",
	"ramfs",
	"resctrl",
	"rootfs",
	"rpc_pipefs",
	"securityfs",
	"selinuxfs",
	"smackfs",
	"sockfs",
	"spufs",
	"sysfs",
	"tmpfs",
	"tracefs",
	"vboxsf",
	"virtiofs",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool fstype_is_pseudo(const char *fstype)
{
	if (!fstype)
		return false;
	return bsearch(&fstype, pseudo_fs,
		       sizeof(pseudo_fs) / sizeof(*pseudo_fs),
		       sizeof(*pseudo_fs), cmp_str) != NULL;
}
