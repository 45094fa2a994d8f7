// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's columns: findmnt's names and meanings, every value derived from
 * one statmount reply.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "lsmnt.h"

#define G(x) MNTKIT_STATMOUNT_##x

/*
 * The columns: findmnt 2.42's (with its width hints, flags and -H words)
 * and lsmnt's own (GIDMAP, MAGIC, MASTER, NS, PEER, PROPAGATE-FROM,
 * SB-SOURCE, SUBTYPE, UIDMAP, UNIQ-PARENT).
 */
const struct colinfo lsmnt_cols[NR_COLS] = {
	[COL_AVAIL] = {"AVAIL", 5, CF_RIGHT | CF_STATVFS | CF_SIZE, false,
		       G(MNT_POINT),
		       "filesystem size available, use <number> if --bytes is "
		       "given"},
	[COL_FREQ] = {"FREQ", 1, CF_RIGHT, true, 0,
		      "dump(8) period in days [fstab only]"},
	[COL_FSROOT] = {"FSROOT", 0.25, CF_NOEXTREMES, false, G(MNT_ROOT),
			"filesystem root"},
	[COL_FSTYPE] = {"FSTYPE", 0.10, CF_TRUNC, false,
			G(FS_TYPE) | G(FS_SUBTYPE), "filesystem type"},
	[COL_FS_OPTIONS] = {"FS-OPTIONS", 0.10, CF_TRUNC, false,
			    G(SB_BASIC) | G(MNT_OPTS),
			    "FS specific mount options"},
	[COL_GIDMAP] = {"GIDMAP", 0.10, CF_TRUNC, false, G(MNT_GIDMAP),
			"GID mapping of an idmapped mount"},
	[COL_ID] = {"ID", 2, CF_RIGHT, true, G(MNT_BASIC), "mount ID"},
	[COL_INO_AVAIL] = {"INO.AVAIL", 5, CF_RIGHT | CF_STATVFS | CF_INODES,
			   false, G(MNT_POINT), "number of available inodes"},
	[COL_INO_TOTAL] = {"INO.TOTAL", 5, CF_RIGHT | CF_STATVFS | CF_INODES,
			   false, G(MNT_POINT), "total number of inodes"},
	[COL_INO_USED] = {"INO.USED", 5, CF_RIGHT | CF_STATVFS | CF_INODES,
			  false, G(MNT_POINT), "number of used inodes"},
	[COL_INO_USE_PCT] = {"INO.USE%", 3, CF_RIGHT | CF_STATVFS | CF_INODES,
			     false, G(MNT_POINT),
			     "percentage of INO.USED divided by INO.TOTAL"},
	[COL_LABEL] = {"LABEL", 0.10, CF_BLKID, false, G(SB_SOURCE),
		       "filesystem label"},
	[COL_MAGIC] = {"MAGIC", 10, 0, false, G(SB_BASIC),
		       "filesystem magic number (statfs f_type)"},
	[COL_MAJMIN] = {"MAJ:MIN", 6, 0, false, G(SB_BASIC),
			"major:minor device number"},
	[COL_MASTER] = {"MASTER", 2, CF_RIGHT, true, G(MNT_BASIC),
			"peer group of the master (of a slave mount)"},
	[COL_NS] = {"NS", 10, CF_RIGHT, true, G(MNT_NS_ID),
		    "mount namespace ID"},
	[COL_OPTIONS] = {"OPTIONS", 0.10, CF_TRUNC, false,
			 G(MNT_BASIC) | G(SB_BASIC) | G(MNT_OPTS),
			 "all mount options"},
	[COL_OPT_FIELDS] = {"OPT-FIELDS", 0.10, CF_TRUNC, false,
			    G(MNT_BASIC) | G(PROPAGATE_FROM),
			    "optional mount fields"},
	[COL_PARENT] = {"PARENT", 2, CF_RIGHT, true, G(MNT_BASIC),
			"mount parent ID"},
	[COL_PARTLABEL] = {"PARTLABEL", 0.10, CF_BLKID, false, G(SB_SOURCE),
			   "partition label"},
	[COL_PARTUUID] = {"PARTUUID", 36, CF_BLKID, false, G(SB_SOURCE),
			  "partition UUID"},
	[COL_PASSNO] = {"PASSNO", 1, CF_RIGHT, true, 0,
			"pass number on parallel fsck(8) [fstab only]"},
	[COL_PEER] = {"PEER", 2, CF_RIGHT, true, G(MNT_BASIC),
		      "peer group (of a shared mount)"},
	[COL_PROPAGATE_FROM] = {"PROPAGATE-FROM", 2, CF_RIGHT, true,
				G(PROPAGATE_FROM),
				"dominating peer group (of a slave mount)"},
	[COL_PROPAGATION] = {"PROPAGATION", 0.10, 0, false, G(MNT_BASIC),
			     "VFS propagation flags"},
	[COL_SB_SOURCE] = {"SB-SOURCE", 0.25, CF_NOEXTREMES, false,
			   G(SB_SOURCE), "source of the superblock"},
	[COL_SIZE] = {"SIZE", 5, CF_RIGHT | CF_STATVFS | CF_SIZE, false,
		      G(MNT_POINT),
		      "filesystem size, use <number> if --bytes is given"},
	[COL_SOURCE] = {"SOURCE", 0.25, CF_NOEXTREMES, false,
			G(SB_SOURCE) | G(MNT_ROOT), "source device"},
	[COL_SOURCES] = {"SOURCES", 0.25, CF_WRAP | CF_BLKID, false,
			 G(SB_SOURCE) | G(MNT_ROOT),
			 "all possible source devices"},
	[COL_SUBTYPE] = {"SUBTYPE", 0.10, 0, false, G(FS_SUBTYPE),
			 "filesystem subtype (e.g. sshfs of fuse.sshfs)"},
	[COL_TARGET] = {"TARGET", 0.30, CF_TREE | CF_NOEXTREMES, false,
			G(MNT_POINT), "mountpoint"},
	[COL_TID] = {"TID", 4, CF_RIGHT, true, 0, "task ID"},
	[COL_UIDMAP] = {"UIDMAP", 0.10, CF_TRUNC, false, G(MNT_UIDMAP),
			"UID mapping of an idmapped mount"},
	[COL_UNIQ_ID] = {"UNIQ-ID", 10, CF_RIGHT, true, G(MNT_BASIC),
			 "mount 64-bit ID (requires --kernel=listmount)"},
	[COL_UNIQ_PARENT] = {"UNIQ-PARENT", 10, CF_RIGHT, true, G(MNT_BASIC),
			     "mount parent 64-bit ID"},
	[COL_USED] = {"USED", 5, CF_RIGHT | CF_STATVFS | CF_SIZE, false,
		      G(MNT_POINT),
		      "filesystem size used, use <number> if --bytes is given"},
	[COL_USE_PCT] = {"USE%", 3, CF_RIGHT | CF_STATVFS, false, G(MNT_POINT),
			 "filesystem use percentage"},
	[COL_UUID] = {"UUID", 36, CF_BLKID, false, G(SB_SOURCE),
		      "filesystem UUID"},
	[COL_VFS_OPTIONS] = {"VFS-OPTIONS", 0.20, CF_TRUNC, false,
			     G(MNT_BASIC) | G(SB_BASIC),
			     "VFS specific mount options"},
	/* --poll only */
	[COL_ACTION] = {"ACTION", 10, CF_STRICT, false, 0,
			"action detected by --poll"},
	[COL_OLD_OPTIONS] = {"OLD-OPTIONS", 0.10, CF_TRUNC, false,
			     G(MNT_BASIC) | G(SB_BASIC) | G(MNT_OPTS),
			     "old mount options saved by --poll"},
	[COL_OLD_TARGET] = {"OLD-TARGET", 0.30, 0, false, G(MNT_POINT),
			    "old mountpoint saved by --poll"},
};

const int findmnt_cols[NR_FINDMNT_COLS] = {
	COL_TARGET,	 COL_ACTION,	  COL_AVAIL,	   COL_FREQ,
	COL_FSROOT,	 COL_FSTYPE,	  COL_FS_OPTIONS,  COL_ID,
	COL_INO_AVAIL,	 COL_INO_TOTAL,	  COL_INO_USED,	   COL_INO_USE_PCT,
	COL_LABEL,	 COL_MAJMIN,	  COL_OLD_OPTIONS, COL_OLD_TARGET,
	COL_OPTIONS,	 COL_OPT_FIELDS,  COL_PARENT,	   COL_PARTLABEL,
	COL_PARTUUID,	 COL_PASSNO,	  COL_PROPAGATION, COL_SIZE,
	COL_SOURCE,	 COL_SOURCES,	  COL_TID,	   COL_UNIQ_ID,
	COL_USED,	 COL_USE_PCT,	  COL_UUID,	   COL_VFS_OPTIONS,
};

static const char *const action_names[NR_ACTS] = {
	[ACT_MOUNT] = "mount",
	[ACT_UMOUNT] = "umount",
	[ACT_REMOUNT] = "remount",
	[ACT_MOVE] = "move",
};

const char *poll_action_name(enum poll_action a)
{
	return a > ACT_NONE && a < NR_ACTS ? action_names[a] : NULL;
}

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

const char *sm_str(const struct mntkit_statmount *sm,
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

static void put_words(struct outbuf *ob, mntkit_decoder fn, unsigned int flags,
		      uint64_t v)
{
	char buf[256];
	int n = fn(v, flags, buf, sizeof(buf));

	if (n >= 0)
		outbuf_puts(ob, buf);
}


/*
 * --vfs-all's VFS-OPTIONS: every VFS option of libmount's Linux map, each
 * as itself or as its opposite (rw,exec,suid,dev,async,loud,...), in the
 * map's order. libmount takes the flags from all the options mountinfo
 * shows: the mount's, and the superblock's sync, dirsync, lazytime (and
 * ro); silent, mand, iversion and strictatime never show there, so their
 * defaults do.
 */
static void put_vfs_all(struct outbuf *ob, const struct mntkit_statmount *sm)
{
	enum { RO = 1, NOEXEC = 2, NOSUID = 4, NODEV = 8, NOATIME = 16,
	       NODIRATIME = 32, RELATIME = 64, NOSYMFOLLOW = 128, SYNC = 256,
	       DIRSYNC = 512, LAZYTIME = 1024 };
	static const struct {
		const char *set, *unset; /* the word for the flag, or NULL */
		unsigned int flag;	 /* 0: a flag mountinfo never has */
	} map[] = {
		{"ro", "rw", RO},
		{"noexec", "exec", NOEXEC},
		{"nosuid", "suid", NOSUID},
		{"nodev", "dev", NODEV},
		{"sync", "async", SYNC},
		{"dirsync", NULL, DIRSYNC},
		{"silent", "loud", 0},
		{"mand", "nomand", 0},
		{"noatime", "atime", NOATIME},
		{"iversion", "noiversion", 0},
		{"nodiratime", "diratime", NODIRATIME},
		{"relatime", "norelatime", RELATIME},
		{"strictatime", "nostrictatime", 0},
		{"lazytime", "nolazytime", LAZYTIME},
		{"nosymfollow", "symfollow", NOSYMFOLLOW},
	};
	uint64_t a = sm->mnt_attr, atime = a & MNTKIT_MOUNT_ATTR__ATIME;
	unsigned int f = 0;
	bool first = true;

	f |= a & MNTKIT_MOUNT_ATTR_RDONLY || sm->sb_flags & MNTKIT_SB_RDONLY ? RO
									 : 0;
	f |= sm->sb_flags & MNTKIT_SB_SYNCHRONOUS ? SYNC : 0;
	f |= sm->sb_flags & MNTKIT_SB_DIRSYNC ? DIRSYNC : 0;
	f |= sm->sb_flags & MNTKIT_SB_LAZYTIME ? LAZYTIME : 0;
	f |= a & MNTKIT_MOUNT_ATTR_NOEXEC ? NOEXEC : 0;
	f |= a & MNTKIT_MOUNT_ATTR_NOSUID ? NOSUID : 0;
	f |= a & MNTKIT_MOUNT_ATTR_NODEV ? NODEV : 0;
	f |= atime == MNTKIT_MOUNT_ATTR_NOATIME ? NOATIME : 0;
	f |= atime == MNTKIT_MOUNT_ATTR_RELATIME ? RELATIME : 0;
	f |= a & MNTKIT_MOUNT_ATTR_NODIRATIME ? NODIRATIME : 0;
	f |= a & MNTKIT_MOUNT_ATTR_NOSYMFOLLOW ? NOSYMFOLLOW : 0;
	for (size_t i = 0; i < sizeof(map) / sizeof(*map); i++) {
		const char *w = map[i].flag && (f & map[i].flag) ? map[i].set
								 : map[i].unset;

		if (!w)
			continue;
		if (!first)
			outbuf_putc(ob, ',');
		outbuf_puts(ob, w);
		first = false;
	}
}

/*
 * --vfs-all's VFS-OPTIONS of a fstab-format entry, as libmount makes them:
 * the flags of its options as written, word by word (a later word
 * overrides an earlier one; user and users set noexec, nosuid and nodev,
 * owner and group nosuid and nodev), then every option of libmount's Linux
 * map as itself or its opposite, in the map's order. A word without an
 * opposite is shown when any bit of its flags is set: rbind (MS_BIND |
 * MS_REC) with bind, and rprivate's MS_REC shows rbind, runbindable,
 * rslave and rshared too, as findmnt shows them.
 */
static void put_vfs_all_tab(struct outbuf *ob, const char *opts)
{
	enum { RO = 1u << 0, NOEXEC = 1u << 1, NOSUID = 1u << 2,
	       NODEV = 1u << 3, BIND = 1u << 7, REC = 1u << 8,
	       UNBINDABLE = 1u << 18, PRIVATE = 1u << 19, SLAVE = 1u << 20,
	       SHARED = 1u << 21 };
	static const struct {
		const char *set, *unset;
		unsigned int flag;
	} map[] = {
		{"ro", "rw", RO},
		{"noexec", "exec", NOEXEC},
		{"nosuid", "suid", NOSUID},
		{"nodev", "dev", NODEV},
		{"sync", "async", 1u << 4},
		{"dirsync", NULL, 1u << 5},
		{"remount", NULL, 1u << 6},
		{"bind", NULL, BIND},
		{"rbind", NULL, BIND | REC},
		{"silent", "loud", 1u << 9},
		{"mand", "nomand", 1u << 10},
		{"noatime", "atime", 1u << 11},
		{"iversion", "noiversion", 1u << 12},
		{"nodiratime", "diratime", 1u << 13},
		{"relatime", "norelatime", 1u << 14},
		{"strictatime", "nostrictatime", 1u << 15},
		{"lazytime", "nolazytime", 1u << 16},
		{"unbindable", NULL, UNBINDABLE},
		{"runbindable", NULL, UNBINDABLE | REC},
		{"private", NULL, PRIVATE},
		{"rprivate", NULL, PRIVATE | REC},
		{"slave", NULL, SLAVE},
		{"rslave", NULL, SLAVE | REC},
		{"shared", NULL, SHARED},
		{"rshared", NULL, SHARED | REC},
		{"nosymfollow", "symfollow", 1u << 17},
	};
	enum { NMAP = sizeof(map) / sizeof(*map) };
	unsigned int f = 0;
	bool first = true;
	const char *p = opts ? opts : "";

	while (*p) {
		size_t n = 0;
		bool q = false;

		/* a word ends at a comma outside double quotes */
		while (p[n] && (q || p[n] != ',')) {
			if (p[n] == '"')
				q = !q;
			n++;
		}
#define IS(w) (strlen(w) == n && !strncmp(p, (w), n))
		if (IS("user") || IS("users"))
			f |= NOEXEC | NOSUID | NODEV;
		else if (IS("owner") || IS("group"))
			f |= NOSUID | NODEV;
		for (size_t i = 0; i < NMAP; i++) {
			if (IS(map[i].set))
				f |= map[i].flag;
			else if (map[i].unset && IS(map[i].unset))
				f &= ~map[i].flag;
		}
#undef IS
		p += n;
		if (*p)
			p++;
	}
	for (size_t i = 0; i < NMAP; i++) {
		const char *w = f & map[i].flag ? map[i].set : map[i].unset;

		if (!w)
			continue;
		if (!first)
			outbuf_putc(ob, ',');
		outbuf_puts(ob, w);
		first = false;
	}
}

/* FS-OPTIONS: the superblock's ro/rw,sync,dirsync,lazytime, then the fs's */
static void put_fs_options(struct outbuf *ob, const struct mntkit_statmount *sm)
{
	const char *opts = sm_str(sm, MNTKIT_FIELD_MNT_OPTS);

	put_words(ob, mntkit_sb_flags_str, 0, sm->sb_flags);
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
	/*
	 * the words of the flags, made again only when they differ from
	 * the mount before's (most mounts have the same flags; a list
	 * writes each OPTIONS twice, to measure it and to print it)
	 */
	static struct {
		bool valid;
		uint64_t attr;
		uint64_t sb_flags;
		size_t len;
		char words[2 + 256 + 128];
	} last;
	const char *opts = sm_str(sm, MNTKIT_FIELD_MNT_OPTS);

	if (!last.valid || last.attr != sm->mnt_attr ||
	    last.sb_flags != sm->sb_flags) {
		bool ro = (sm->mnt_attr & MNTKIT_MOUNT_ATTR_RDONLY) ||
			  (sm->sb_flags & MNTKIT_SB_RDONLY);
		const char *vtail, *stail;
		char vfs[256], sbw[128];

		if (mntkit_attr_str(sm->mnt_attr, MNTKIT_DECODE_F_PROC, vfs,
				    sizeof(vfs)) < 0)
			vfs[0] = '\0';
		if (mntkit_sb_flags_str(sm->sb_flags, 0, sbw, sizeof(sbw)) < 0)
			sbw[0] = '\0';
		vtail = strchr(vfs, ',');
		stail = strchr(sbw, ',');
		last.len = (size_t)snprintf(last.words, sizeof(last.words),
					    "%s%s%s", ro ? "ro" : "rw",
					    vtail ? vtail : "",
					    stail ? stail : "");
		if (last.len >= sizeof(last.words))
			last.len = sizeof(last.words) - 1;
		last.attr = sm->mnt_attr;
		last.sb_flags = sm->sb_flags;
		last.valid = true;
	}
	outbuf_write(ob, last.words, last.len);
	if (opts && *opts) {
		outbuf_putc(ob, ',');
		put_unmangled(ob, opts);
	}
}

/*
 * --kernel=listmount: the options as libmount makes them of a statmount(2)
 * reply. VFS-OPTIONS: ro|rw, nosuid, nodev, noexec, nodiratime,
 * nosymfollow, then the atime word (strictatime, noatime or relatime);
 * FS-OPTIONS: the filesystem's own options, or, when it has none, the
 * superblock's ro|rw, sync, dirsync, lazytime; OPTIONS: the two merged as
 * libmount merges them (ro when either part says ro).
 */
/* the words after ro|rw */
static void put_vfs_tail_listmount(struct outbuf *ob,
				   const struct mntkit_statmount *sm)
{
	uint64_t a = sm->mnt_attr, atime = a & MNTKIT_MOUNT_ATTR__ATIME;

	if (a & MNTKIT_MOUNT_ATTR_NOSUID)
		outbuf_puts(ob, ",nosuid");
	if (a & MNTKIT_MOUNT_ATTR_NODEV)
		outbuf_puts(ob, ",nodev");
	if (a & MNTKIT_MOUNT_ATTR_NOEXEC)
		outbuf_puts(ob, ",noexec");
	if (a & MNTKIT_MOUNT_ATTR_NODIRATIME)
		outbuf_puts(ob, ",nodiratime");
	if (a & MNTKIT_MOUNT_ATTR_NOSYMFOLLOW)
		outbuf_puts(ob, ",nosymfollow");
	if (atime == MNTKIT_MOUNT_ATTR_STRICTATIME)
		outbuf_puts(ob, ",strictatime");
	else if (atime == MNTKIT_MOUNT_ATTR_NOATIME)
		outbuf_puts(ob, ",noatime");
	else if (atime == MNTKIT_MOUNT_ATTR_RELATIME)
		outbuf_puts(ob, ",relatime");
}

static void put_vfs_listmount(struct outbuf *ob,
			      const struct mntkit_statmount *sm)
{
	outbuf_puts(ob, sm->mnt_attr & MNTKIT_MOUNT_ATTR_RDONLY ? "ro" : "rw");
	put_vfs_tail_listmount(ob, sm);
}

/* the filesystem's own options, NULL when it has none */
static const char *fs_own_options(const struct mntkit_statmount *sm)
{
	const char *opts = sm_str(sm, MNTKIT_FIELD_MNT_OPTS);

	return opts && *opts ? opts : NULL;
}

static void put_fs_listmount(struct outbuf *ob,
			     const struct mntkit_statmount *sm)
{
	const char *opts = fs_own_options(sm);

	if (opts)
		put_unmangled(ob, opts);
	else
		put_words(ob, mntkit_sb_flags_str, 0, sm->sb_flags);
}

static void put_options_listmount(struct outbuf *ob,
				  const struct mntkit_statmount *sm)
{
	const char *opts = fs_own_options(sm), *tail;
	bool ro = (sm->mnt_attr & MNTKIT_MOUNT_ATTR_RDONLY) ||
		  (!opts && (sm->sb_flags & MNTKIT_SB_RDONLY));
	char sbw[128];

	outbuf_puts(ob, ro ? "ro" : "rw");
	put_vfs_tail_listmount(ob, sm);
	if (opts) {
		outbuf_putc(ob, ',');
		put_unmangled(ob, opts);
		return;
	}
	if (mntkit_sb_flags_str(sm->sb_flags, 0, sbw, sizeof(sbw)) < 0)
		return;
	tail = strchr(sbw, ',');
	if (tail)
		outbuf_puts(ob, tail);
}

/*
 * OPT-FIELDS: mountinfo's optional fields, in the kernel's order; the
 * kernel writes no propagate_from equal to the master's group, a file
 * may (@as_written: findmnt repeats what it read)
 */
static void put_opt_fields_as(struct outbuf *ob,
			      const struct mntkit_statmount *sm, bool as_written)
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
		    sm->propagate_from &&
		    (as_written || sm->propagate_from != sm->mnt_master))
			outbuf_printf(ob, " propagate_from:%" PRIu64,
				      sm->propagate_from);
	}
	if (prop & MNTKIT_MS_UNBINDABLE)
		outbuf_printf(ob, "%sunbindable", sep ? " " : "");
}

static void put_opt_fields(struct outbuf *ob, const struct mntkit_statmount *sm)
{
	put_opt_fields_as(ob, sm, false);
}

static void put_opt_fields_file(struct outbuf *ob,
				const struct mntkit_statmount *sm)
{
	put_opt_fields_as(ob, sm, true);
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

struct mntkit_table *const *cell_tabs;
size_t cell_ntabs;
const char *(*cell_user_options)(const struct mntkit_statmount *sm);

/* the file data of @sm's entry, if it is of a fstab-format table */
static bool cell_tab_entry(const struct mntkit_statmount *sm,
			   struct mntkit_tab_entry *e)
{
	for (size_t t = 0; t < cell_ntabs; t++) {
		ssize_t i = mntkit_table_find(cell_tabs[t], sm->mnt_id);

		if (i >= 0 && mntkit_table_get(cell_tabs[t], (size_t)i) == sm)
			return mntkit_table_tab_entry(cell_tabs[t], (size_t)i,
						      e) == 0 &&
			       e->format != MNTKIT_TAB_MOUNTINFO;
	}
	return false;
}

/* OPTIONS, and -m's userspace options after them (libmount's merge) */
static void put_options_all(struct outbuf *ob,
			    const struct mntkit_statmount *sm)
{
	const char *user = cell_user_options ? cell_user_options(sm) : NULL;

	put_options(ob, sm);
	if (user && *user) {
		outbuf_putc(ob, ',');
		outbuf_puts(ob, user);
	}
}

const char *cell_options(const struct mntkit_statmount *sm, bool listmount,
			 struct outbuf *scratch)
{
	MNTKIT_TAB_ENTRY(e);

	if (cell_ntabs && cell_tab_entry(sm, &e))
		return e.options; /* none: no -O matches (libmount) */
	outbuf_reset(scratch);
	if (listmount)
		put_options_listmount(scratch, sm);
	else
		put_options_all(scratch, sm);
	return outbuf_cstr(scratch);
}

/* the cells of a fstab-format entry that its record cannot give */
static bool cell_tab(enum col_id col, const struct mntkit_tab_entry *e,
		     struct outbuf *scratch, const char **out)
{
	int v;

	switch (col) {
	case COL_OPTIONS:
		*out = e->options;
		return true;
	case COL_VFS_OPTIONS:
		*out = e->vfs_options;
		return true;
	case COL_FS_OPTIONS:
		*out = e->fs_options;
		return true;
	case COL_PROPAGATION:
	case COL_MAJMIN:
	case COL_FSROOT:
	case COL_OPT_FIELDS:
		*out = NULL; /* findmnt: none in a fstab */
		return true;
	case COL_FREQ:
	case COL_PASSNO:
		v = col == COL_FREQ ? e->freq : e->passno;
		outbuf_reset(scratch);
		outbuf_printf(scratch, "%d", v);
		*out = outbuf_cstr(scratch);
		return true;
	default:
		return false;
	}
}

/*
 * SOURCE: the source, -c canonical, -e a tag's device (findmnt prints
 * nothing for a tag it cannot find), then [dir] for a bind mount.
 */
static const char *cell_source(const struct cellctx *cc,
			       const struct mntkit_statmount *sm,
			       struct outbuf *scratch)
{
	const char *src = sm_str(sm, MNTKIT_FIELD_SB_SOURCE);
	const char *root = sm_str(sm, MNTKIT_FIELD_MNT_ROOT);
	bool fsroot = !cc->nofsroot && root && strcmp(root, "/");
	char *alt = NULL;

	if (!src)
		return NULL;
	if ((cc->canonicalize || cc->evaluate) && *src) {
		bool tag = source_is_tag(src);

		if (!tag && cc->canonicalize)
			alt = canonical_source(src);
		else if (tag && cc->evaluate && !(alt = evaluate_tag(src)))
			return NULL;
	}
	if (!alt && !fsroot)
		return src;
	outbuf_reset(scratch);
	outbuf_puts(scratch, alt ? alt : src);
	if (fsroot)
		outbuf_printf(scratch, "[%s]", root);
	free(alt);
	return outbuf_cstr(scratch);
}

/* ---- SIZE, AVAIL, USED, USE%: what statvfs(2) said (usage.c) ---- */

/*
 * util-linux's size_to_human_string(SIZE_SUFFIX_1LETTER), whose bytes
 * findmnt prints: the largest binary unit the size reaches (B K M G T P
 * E), one decimal rounded half up from the truncated thousandths, no
 * ".0", a carry rounds up the whole part (1023.96K is "1024K"), and the
 * locale's decimal point.
 */
static void put_human_size(struct outbuf *ob, uint64_t bytes)
{
	static const char letters[] = "BKMGTPE";
	const struct lconv *lc;
	const char *dp;
	unsigned int exp = 0;
	uint64_t whole, frac;

	cli_locale(); /* its decimal point */
	lc = localeconv();
	dp = lc && lc->decimal_point && *lc->decimal_point ? lc->decimal_point
							    : ".";

	while (exp < 60 && bytes >= UINT64_C(1) << (exp + 10))
		exp += 10;
	whole = bytes >> exp;
	frac = exp ? bytes & ((UINT64_C(1) << exp) - 1) : 0;
	if (frac) {
		/* thousandths, without overflow for the exabytes */
		if (frac >= UINT64_MAX / 1000)
			frac = frac / 1024 * 1000 / (UINT64_C(1) << (exp - 10));
		else
			frac = frac * 1000 / (UINT64_C(1) << exp);
		frac = (frac + 50) / 100; /* tenths */
		if (frac == 10) {
			whole++;
			frac = 0;
		}
	}
	if (frac)
		outbuf_printf(ob, "%" PRIu64 "%s%" PRIu64 "%c", whole, dp, frac,
			      letters[exp / 10]);
	else
		outbuf_printf(ob, "%" PRIu64 "%c", whole, letters[exp / 10]);
}

/*
 * SIZE, AVAIL, USED: 0 as "0", else -b bytes or findmnt's 1.5G; USE%;
 * INO.AVAIL (f_ffree, which is f_favail on Linux), INO.TOTAL, INO.USED:
 * numbers; INO.USE%
 */
static const char *cell_usage(const struct cellctx *cc, enum col_id col,
			      const struct fs_usage *u, struct outbuf *scratch)
{
	uint64_t v;

	if (!u || !u->ok)
		return NULL;
	outbuf_reset(scratch);
	switch (col) {
	case COL_INO_AVAIL:
		v = u->ffree;
		break;
	case COL_INO_TOTAL:
		v = u->files;
		break;
	case COL_INO_USED:
		v = u->files - u->ffree;
		break;
	case COL_INO_USE_PCT:
		if (!u->files)
			return "-";
		outbuf_printf(scratch, "%.0f%%",
			      (double)(u->files - u->ffree) / (double)u->files *
				      100);
		return outbuf_cstr(scratch);
	case COL_SIZE:
		v = (uint64_t)u->frsize * u->blocks;
		break;
	case COL_AVAIL:
		v = (uint64_t)u->frsize * u->bavail;
		break;
	case COL_USED:
		v = (uint64_t)u->frsize * (u->blocks - u->bfree);
		break;
	default: /* USE%: the same double arithmetic as findmnt's */
		if (!u->blocks)
			return "-";
		outbuf_printf(scratch, "%.0f%%",
			      (double)(u->blocks - u->bfree) /
				      (double)u->blocks * 100);
		return outbuf_cstr(scratch);
	}
	if (!v)
		return "0";
	if (cc->bytes || (lsmnt_cols[col].flags & CF_INODES))
		outbuf_printf(scratch, "%" PRIu64, v);
	else
		put_human_size(scratch, v);
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
		       const struct row *r, struct outbuf *scratch)
{
	const struct mntkit_statmount *sm = r->sm;
	uint64_t m = sm->mask;

	MNTKIT_TAB_ENTRY(e);
	bool tab = cell_ntabs && cell_tab_entry(sm, &e);
	const char *tabv;

	if (tab && col == COL_VFS_OPTIONS && cc->vfs_all) {
		outbuf_reset(scratch);
		put_vfs_all_tab(scratch, e.options);
		return outbuf_cstr(scratch);
	}
	if (tab && cell_tab(col, &e, scratch, &tabv))
		return tabv;
	/* a fstab entry has what it has: no root, no tree */
	if (!tab && (lsmnt_cols[col].mask & REQUIRED_GROUPS & ~m))
		return NULL; /* the reply lacks what the value needs */
	switch (col) {
	case COL_SOURCE:
		return cell_source(cc, sm, scratch);
	case COL_TARGET:
		return sm_str(sm, MNTKIT_FIELD_MNT_POINT);
	case COL_FSTYPE:
		return cell_fstype(sm, scratch);
	case COL_OPTIONS:
		return build(scratch, cc->listmount ? put_options_listmount
						    : put_options_all,
			     sm);
	case COL_VFS_OPTIONS:
		if (cc->vfs_all)
			return build(scratch, put_vfs_all, sm);
		if (cc->listmount)
			return build(scratch, put_vfs_listmount, sm);
		outbuf_reset(scratch);
		put_words(scratch, mntkit_attr_str, MNTKIT_DECODE_F_PROC, sm->mnt_attr);
		return outbuf_cstr(scratch);
	case COL_FS_OPTIONS:
		return build(scratch, cc->listmount ? put_fs_listmount
						    : put_fs_options,
			     sm);
	case COL_FSROOT:
		return sm_str(sm, MNTKIT_FIELD_MNT_ROOT);
	case COL_ID:
		return num_or_null(sm->mnt_id_old, scratch);
	case COL_PARENT:
		return num_or_null(r->moved ? r->parent_old
					    : sm->mnt_parent_id_old,
				   scratch);
	case COL_UNIQ_ID:
		/* findmnt: of its listmount(2) table only */
		return cc->listmount && is_unique_id(sm->mnt_id)
			       ? num_or_null(sm->mnt_id, scratch)
			       : NULL;
	case COL_UNIQ_PARENT: {
		uint64_t p = r->moved ? r->parent_uniq : sm->mnt_parent_id;

		return is_unique_id(p) ? num_or_null(p, scratch) : NULL;
	}
	case COL_MAJMIN:
		if (!sm->sb_dev_major && !sm->sb_dev_minor)
			return NULL;
		outbuf_reset(scratch);
		outbuf_printf(scratch, cc->text ? "%3u:%-3u" : "%u:%u",
			      sm->sb_dev_major, sm->sb_dev_minor);
		return outbuf_cstr(scratch);
	case COL_PROPAGATION:
		outbuf_reset(scratch);
		put_words(scratch, mntkit_propagation_str, 0,
			  sm->mnt_propagation);
		return outbuf_cstr(scratch);
	case COL_OPT_FIELDS:
		/* findmnt: mountinfo's, none in its listmount(2) table */
		if (cc->listmount)
			return NULL;
		return build(scratch,
			     cc->tabfile ? put_opt_fields_file : put_opt_fields,
			     sm);
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
	case COL_SIZE:
	case COL_AVAIL:
	case COL_USED:
	case COL_USE_PCT:
	case COL_INO_AVAIL:
	case COL_INO_TOTAL:
	case COL_INO_USED:
	case COL_INO_USE_PCT:
		return cell_usage(cc, col, r->usage, scratch);
	case COL_TID:
		/* findmnt: the PID of the mountinfo it read */
		if (cc->listmount)
			return NULL;
		return num_or_null(r->tid > 0 ? (uint64_t)r->tid : 0, scratch);
	case COL_FREQ:
	case COL_PASSNO:
		return NULL; /* fstab only: findmnt has none for the kernel's */
	case COL_LABEL:
		return r->tags ? r->tags->tag[TAG_LABEL] : NULL;
	case COL_UUID:
		return r->tags ? r->tags->tag[TAG_UUID] : NULL;
	case COL_PARTUUID:
		return r->tags ? r->tags->tag[TAG_PARTUUID] : NULL;
	case COL_PARTLABEL:
		return r->tags ? r->tags->tag[TAG_PARTLABEL] : NULL;
	case COL_SOURCES:
		/* findmnt falls through to SOURCE when it found no devices */
		if (r->tags && r->tags->sources)
			return r->tags->sources;
		return cell_source(cc, sm, scratch);
	case COL_ACTION:
		return poll_action_name(r->action);
	case COL_OLD_OPTIONS:
		/* findmnt: the options before a remount or an umount */
		if (!r->old ||
		    (r->action != ACT_REMOUNT && r->action != ACT_UMOUNT))
			return NULL;
		return build(scratch, put_options, r->old);
	case COL_OLD_TARGET:
		/* findmnt: the mount point before a move or an umount */
		if (!r->old || (r->action != ACT_MOVE && r->action != ACT_UMOUNT))
			return NULL;
		return sm_str(r->old, MNTKIT_FIELD_MNT_POINT);
	default:
		return NULL;
	}
}

bool cell_wraps(const struct row *r, int col)
{
	return (lsmnt_cols[col].flags & CF_WRAP) && r->tags && r->tags->sources;
}

/* libmount 2.42's list of pseudo filesystems (--real, --pseudo), sorted */
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
	"fuse.kio-fuse",
	"fuse.lxcfs",
	"fuse.portal",
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
	"pidfs",
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
