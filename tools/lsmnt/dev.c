// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's devices: the source's tags (LABEL=, UUID=, ... as libmount
 * reads them), -c's canonical source and -e's tag evaluation, and what
 * libblkid and udev's database tell of a device (LABEL, UUID, PARTUUID,
 * PARTLABEL, SOURCES). The columns that show them: cols.c.
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
#include <sys/statvfs.h>
#include <unistd.h>

#include "lsmnt.h"
#include "dl.h"

/* the tags a run wants (tags_wanted()) */
#define WANT_TAG(t)  (1U << (t))
#define WANT_SOURCES (1U << NR_TAGS)

struct blkid_struct_cache;

/* the lookups of one run: one libblkid cache, saved by devlookup_end() */
struct devlookup {
	struct blkid_struct_cache *cache;
	bool probed_all; /* blkid_probe_all() done (SOURCES) */
};

/* ---- a source's tags, -c, -e ---- */

/*
 * libmount's tags: a source NAME=value (value maybe quoted) with one of
 * these names is a tag, and has no path to canonicalize (-c), but one to
 * look up (-e).
 */
static const char *const tag_names[] = {"LABEL", "UUID", "PARTLABEL",
					"PARTUUID", "ID"};

static int tag_index(const char *src, const char **value)
{
	const char *eq = strchr(src, '=');

	if (!eq)
		return -1;
	for (size_t i = 0; i < sizeof(tag_names) / sizeof(*tag_names); i++) {
		if (strlen(tag_names[i]) == (size_t)(eq - src) &&
		    !strncmp(src, tag_names[i], (size_t)(eq - src))) {
			*value = eq + 1;
			return (int)i;
		}
	}
	return -1;
}

bool source_is_tag(const char *src)
{
	const char *v;

	return tag_index(src, &v) >= 0;
}

/* /dev/dm-N as util-linux names it: /dev/mapper/NAME, if that exists */
static char *dm_name(const char *dev)
{
	char path[PATH_MAX], name[256], *out;
	FILE *f;
	size_t n;

	if (strncmp(dev, "/dev/dm-", 8) || strchr(dev + 8, '/'))
		return NULL;
	snprintf(path, sizeof(path), "/sys/block/%s/dm/name", dev + 5);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	n = fread(name, 1, sizeof(name) - 1, f);
	fclose(f);
	while (n && (name[n - 1] == '\n' || name[n - 1] == ' '))
		n--;
	name[n] = '\0';
	if (!n ||
	    (size_t)snprintf(path, sizeof(path), "/dev/mapper/%s", name) >=
		    sizeof(path) ||
	    access(path, F_OK))
		return NULL;
	out = strdup(path);
	return out;
}

/*
 * Would a lookup of @path (a mount's source or target, from the table)
 * walk through a served filesystem (NFS, FUSE, ...) whose server may not
 * answer? lsmnt never resolves such a path (findmnt does, and hangs).
 */
bool path_may_block(const char *path)
{
	return path[0] == '/' && mntkit_path_served(path) == 1;
}

/*
 * -c: util-linux's canonicalize_path(): realpath(3) - relative to the
 * working directory, as findmnt does it - else the source as it is; a
 * device-mapper node as /dev/mapper/NAME.
 */
char *canonical_source(const char *src)
{
	char *real, *dm;

	if (path_may_block(src))
		return strdup(src);
	real = realpath(src, NULL);

	if (!real)
		return strdup(src);
	dm = dm_name(real);
	if (dm) {
		free(real);
		return dm;
	}
	return real;
}

/*
 * -e: the device a tag names, NULL if none - libmount's mnt_resolve_tag():
 * libblkid's blkid_evaluate_tag(), udev's /dev/disk/by-* links, then a
 * scan of the devices (as root) through libblkid's cache.
 */
char *evaluate_tag(const char *src)
{
	char *name = NULL, *value = NULL, *dev = NULL;

	if (!source_is_tag(src))
		return NULL;
	dl_blkid();
	if (sym_blkid_parse_tag_string(src, &name, &value) == 0)
		dev = sym_blkid_evaluate_tag(name, value, NULL);
	free(name);
	free(value);
	return dev;
}

/* ---- libblkid and udev: LABEL, UUID, PARTUUID, PARTLABEL, SOURCES ---- */

/* per tag: its name in a source, libblkid's probe value, udev's property */
static const char *const tag_name[NR_TAGS] = {"LABEL", "UUID", "PARTUUID",
					      "PARTLABEL"};
static const char *const probe_name[NR_TAGS] = {
	"LABEL", "UUID", "PART_ENTRY_UUID", "PART_ENTRY_NAME"};
static const char *const udev_name[NR_TAGS] = {
	"ID_FS_LABEL_ENC", "ID_FS_UUID_ENC", "ID_PART_ENTRY_UUID",
	"ID_PART_ENTRY_NAME"};

#define WANT_TAGS (WANT_SOURCES - 1)

/* util-linux's unhexmangle_string(): udev's \xHH back to the byte */
static void unhexmangle(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'x' && isxdigit((unsigned char)s[2]) &&
		    isxdigit((unsigned char)s[3])) {
			char hex[3] = {s[2], s[3], '\0'};

			*w++ = (char)strtoul(hex, NULL, 16);
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

/*
 * The block device's numbers as sysfs has them (libudev finds a device by
 * its name in the "block" subsystem): "MAJ:MIN" into @buf, or false.
 */
static bool sysfs_devno(const char *dev, char *buf, size_t size)
{
	char path[PATH_MAX], *p;
	const char *name = dev;
	FILE *f;
	bool ok;

	if (!strncmp(name, "/dev/", 5))
		name += 5;
	if (!*name || (size_t)snprintf(path, sizeof(path), "/sys/class/block/%s",
				       name) >= sizeof(path) - 4)
		return false;
	for (p = path + 17; *p; p++)
		if (*p == '/')
			*p = '!'; /* the kernel's name for cciss/c0d0 */
	strcat(path, "/dev");
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok && *buf;
}

/*
 * findmnt asks libudev first: the properties udev's database keeps for
 * the device (/run/udev/data/bMAJ:MIN, "E:KEY=VALUE" lines), for the tags
 * of @want not yet in @out. Whether udev knows the device: findmnt 2.42
 * then takes udev's word alone (a tag udev has not is empty).
 */
static bool udev_tags(const char *dev, unsigned int want, struct devtags *out)
{
	char *real = realpath(dev, NULL), devno[32], path[64], *line = NULL;
	size_t cap = 0;
	FILE *f = NULL;

	if (sysfs_devno(real ? real : dev, devno, sizeof(devno)) &&
	    (size_t)snprintf(path, sizeof(path), "/run/udev/data/b%s", devno) <
		    sizeof(path))
		f = fopen(path, "re");
	free(real);
	if (!f)
		return false;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "E:", 2))
			continue;
		for (int t = 0; t < NR_TAGS; t++) {
			size_t len = strlen(udev_name[t]);

			if (!(want & WANT_TAG(t)) || out->tag[t] ||
			    strncmp(line + 2, udev_name[t], len) ||
			    line[2 + len] != '=')
				continue;
			out->tag[t] = strdup(line + 3 + len);
			if (out->tag[t])
				unhexmangle(out->tag[t]);
		}
	}
	free(line);
	fclose(f);
	return true;
}

/* else libmount's mnt_cache_read_tags(): a probe of the device itself */
static void probe_tags(const char *dev, unsigned int want, struct devtags *out)
{
	blkid_probe pr;
	const char *v;

	dl_blkid();
	pr = sym_blkid_new_probe_from_filename(dev);
	if (!pr)
		return;
	sym_blkid_probe_enable_superblocks(pr, 1);
	sym_blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL |
						      BLKID_SUBLKS_UUID |
						      BLKID_SUBLKS_TYPE);
	sym_blkid_probe_enable_partitions(pr, 1);
	sym_blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	if (sym_blkid_do_safeprobe(pr) == 0) {
		for (int t = 0; t < NR_TAGS; t++)
			if ((want & WANT_TAG(t)) && !out->tag[t] &&
			    !sym_blkid_probe_lookup_value(pr, probe_name[t], &v,
						      NULL))
				out->tag[t] = strdup(v);
	}
	sym_blkid_free_probe(pr);
}

/* a source that is a tag (LABEL=...): its name and (unquoted) value */
static bool parse_tag(const char *src, char **name, char **value)
{
	*name = *value = NULL;
	if (!source_is_tag(src))
		return false;
	dl_blkid();
	if (sym_blkid_parse_tag_string(src, name, value) == 0)
		return true;
	free(*name);
	free(*value);
	*name = *value = NULL;
	return false;
}

/*
 * findmnt's get_tag(): a tag source of that very name gives its value;
 * else the source names a device - a tag through libblkid, a path
 * canonicalized as by -c - which udev's database, then a probe describe.
 */
static void lookup_tags(struct devlookup *dl, const char *src,
			unsigned int want, struct devtags *out)
{
	char *name, *value, *dev;
	bool tag = parse_tag(src, &name, &value);

	for (int t = 0; tag && t < NR_TAGS; t++) {
		if ((want & WANT_TAG(t)) && !strcmp(name, tag_name[t])) {
			out->tag[t] = strdup(value);
			want &= ~WANT_TAG(t);
		}
	}
	if (!(want & WANT_TAGS))
		goto out;
	dev = tag ? sym_blkid_evaluate_tag(name, value,
					   (blkid_cache *)&dl->cache)
		  : canonical_source(src);
	if (dev && *dev && !path_may_block(dev) && !udev_tags(dev, want, out))
		probe_tags(dev, want, out);
	free(dev);
out:
	free(name);
	free(value);
}

/*
 * findmnt's SOURCES: every device libblkid knows (its cache, then all it
 * can probe) with the UUID of a /dev/ source - or, with -e, with the tag
 * a tag source names. NULL (SOURCE's value) when there are none.
 */
static char *lookup_sources(struct devlookup *dl, const char *src,
			    bool evaluate)
{
	char *name, *value, *list = NULL;
	const char *token = "UUID";
	bool tag = parse_tag(src, &name, &value);
	struct outbuf ob = OUTBUF_INIT;
	blkid_dev_iterate it;
	blkid_dev d;

	if (tag ? !evaluate : strncmp(src, "/dev/", 5))
		goto out;
	dl_blkid();
	if (!dl->cache &&
	    sym_blkid_get_cache((blkid_cache *)&dl->cache, NULL) < 0)
		dl->cache = NULL;
	if (!dl->cache)
		goto out;
	if (!dl->probed_all) {
		sym_blkid_probe_all((blkid_cache)dl->cache);
		dl->probed_all = true;
	}
	if (tag)
		token = name;
	else if (!(value = sym_blkid_get_tag_value((blkid_cache)dl->cache,
						   "UUID", src)))
		goto out;
	it = sym_blkid_dev_iterate_begin((blkid_cache)dl->cache);
	if (!it)
		goto out;
	sym_blkid_dev_set_search(it, token, value);
	while (sym_blkid_dev_next(it, &d) == 0) {
		d = sym_blkid_verify((blkid_cache)dl->cache, d);
		if (!d)
			continue;
		if (ob.len)
			outbuf_putc(&ob, '\n');
		outbuf_puts(&ob, sym_blkid_dev_devname(d));
	}
	sym_blkid_dev_iterate_end(it);
	if (ob.len && !ob.err)
		list = strdup(outbuf_cstr(&ob));
out:
	outbuf_free(&ob);
	free(name);
	free(value);
	return list;
}

static void devtags_get(struct devlookup *dl, const char *src,
			unsigned int want, bool evaluate, struct devtags *out)
{
	memset(out, 0, sizeof(*out));
	if (!src)
		return;
	if (want & WANT_TAGS)
		lookup_tags(dl, src, want, out);
	if (want & WANT_SOURCES)
		out->sources = lookup_sources(dl, src, evaluate);
}

void devtags_release(struct devtags *t)
{
	for (int i = 0; i < NR_TAGS; i++)
		free(t->tag[i]);
	free(t->sources);
}

/* as findmnt: libblkid saves what it probed (as root) to its cache file */
static void devlookup_end(struct devlookup *dl)
{
	if (dl->cache)
		sym_blkid_put_cache((blkid_cache)dl->cache);
	dl->cache = NULL;
}

/* ---- the tags of the printed rows ---- */

/*
 * LABEL, UUID, PARTUUID, PARTLABEL, SOURCES: libblkid's answers for the
 * source of each printed row, looked up once per distinct source (rows
 * sorted by it), and not at all when no such column is shown.
 */
static int cmp_row_source(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a;
	const struct row *y = *(const struct row *const *)b;
	const char *sx = NULL, *sy = NULL;

	mntkit_sm_str(x->sm, x->sm->size, MNTKIT_FIELD_SB_SOURCE, &sx);
	mntkit_sm_str(y->sm, y->sm->size, MNTKIT_FIELD_SB_SOURCE, &sy);
	if (!sx || !sy)
		return !!sx - !!sy;
	return strcmp(sx, sy);
}

unsigned int tags_of_col(int col)
{
	switch (col) {
	case COL_LABEL:
		return WANT_TAG(TAG_LABEL);
	case COL_UUID:
		return WANT_TAG(TAG_UUID);
	case COL_PARTUUID:
		return WANT_TAG(TAG_PARTUUID);
	case COL_PARTLABEL:
		return WANT_TAG(TAG_PARTLABEL);
	case COL_SOURCES:
		return WANT_SOURCES;
	default:
		return 0;
	}
}

unsigned int tags_wanted(const struct cmdline *cl)
{
	unsigned int want = 0;

	for (size_t c = 0; c < cl->pr.ncols; c++)
		want |= tags_of_col(cl->pr.cols[c]);
	return want;
}

struct devlookup *devlookup_new(void)
{
	return calloc(1, sizeof(struct devlookup));
}

void devlookup_free(struct devlookup *dl)
{
	if (!dl)
		return;
	devlookup_end(dl);
	free(dl);
}

void devtags_lookup(struct devlookup *dl, const char *src, unsigned int want,
		    bool evaluate, struct devtags *out)
{
	devtags_get(dl, src, want, evaluate, out);
}

int add_tags(const struct cmdline *cl, struct row *rows, size_t n,
	     struct devtags **tags, size_t *ntags)
{
	unsigned int want = tags_wanted(cl);
	struct devlookup dl = {0};
	struct row **by_src;
	const char *prev = NULL;

	*tags = NULL;
	*ntags = 0;
	if (!want || !n)
		return 0;
	by_src = malloc(n * sizeof(*by_src));
	*tags = calloc(n, sizeof(**tags));
	if (!by_src || !*tags) {
		free(by_src);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		by_src[i] = &rows[i];
	qsort(by_src, n, sizeof(*by_src), cmp_row_source);
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = by_src[i]->sm;
		const char *src = NULL;

		if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_SB_SOURCE, &src) <
			    0 ||
		    !src)
			continue;
		if (!prev || strcmp(prev, src))
			devtags_get(&dl, src, want, cl->pr.evaluate,
				    &(*tags)[(*ntags)++]);
		prev = src;
		by_src[i]->tags = &(*tags)[*ntags - 1];
	}
	devlookup_end(&dl);
	free(by_src);
	return 0;
}

void free_tags(struct devtags *tags, size_t n)
{
	for (size_t i = 0; i < n; i++)
		devtags_release(&tags[i]);
	free(tags);
}
