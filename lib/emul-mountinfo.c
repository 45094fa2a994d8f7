// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The /proc/<pid>/mountinfo parser.
 *
 *   ID PARENT MAJ:MIN ROOT POINT MNT_OPTS [TAG[:VALUE]...] - TYPE SOURCE SUPER_OPTS
 *
 * The kernel writes ROOT and POINT through mangle_path()/seq_escape() with
 * " \t\n\\" escaped as \ooo, TYPE and SOURCE likewise (SOURCE raw from a
 * filesystem's ->show_devname), and SUPER_OPTS as "ro|rw", the generic
 * ",sync,dirsync,mand,lazytime", the LSM options, then the filesystem's
 * ->show_options text. SUPER_OPTS is the rest of the line: it may hold
 * spaces a filesystem did not escape.
 *
 * Nothing here trusts the input: every access is bounded by the line, every
 * number is range-checked, and a malformed line is reported by line and
 * column.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "mountinfo.h"

static int is_odigit(char c)
{
	return c >= '0' && c <= '7';
}

size_t mntkit__unescape(char *dst, const char *src, size_t len)
{
	size_t i = 0, o;

	/* the common case: a run with nothing to unescape */
	while (i < len && src[i] && src[i] != '\\')
		i++;
	if (dst != src)
		memcpy(dst, src, i);
	o = i;
	while (i < len && src[i]) {
		if (src[i] == '\\' && i + 1 < len && src[i + 1]) {
			i++;
			if (is_odigit(src[i])) {
				size_t first = i;
				unsigned int num = (unsigned int)(src[i++] & 7);

				/* at most 3 digits, and none that would
				 * overflow a byte (as the kernel's) */
				while (num < 32 && i < len && is_odigit(src[i]) &&
				       i - first < 3)
					num = (num << 3) + (unsigned int)(src[i++] & 7);
				dst[o++] = (char)num;
				continue;
			}
			dst[o++] = '\\';
		}
		dst[o++] = src[i++];
	}
	return o;
}

/* ---- the line scanner ---- */

struct scan {
	char *base;       /* the whole buffer */
	size_t pos;       /* next byte */
	size_t bol;       /* start of the line */
	size_t eol;       /* the line's '\n' */
	size_t line;
	struct mntkit_mi_err *err;
};

static int fail(struct scan *s, size_t at, const char *msg)
{
	if (s->err) {
		s->err->line = s->line;
		s->err->col = at - s->bol + 1;
		s->err->msg = msg;
	}
	return -EBADMSG;
}

/* the next space-delimited field; empty when at a space or the end */
static struct mntkit_mi_span field(struct scan *s)
{
	const char *p = s->base + s->pos, *e = s->base + s->eol, *q = p;
	struct mntkit_mi_span f = { (uint32_t)s->pos, 0 };

	/* on locals: through @s, every byte read would reload s->pos */
	while (q < e && *q != ' ')
		q++;
	f.len = (uint32_t)(q - p);
	s->pos += f.len;
	return f;
}

static int need_space(struct scan *s, const char *what)
{
	if (s->pos >= s->eol || s->base[s->pos] != ' ')
		return fail(s, s->pos, what);
	s->pos++;
	return 0;
}

static int nonempty(struct scan *s, struct mntkit_mi_span *f,
		    const char *what)
{
	*f = field(s);
	if (!f->len)
		return fail(s, s->pos, what);
	return 0;
}

/* a decimal number of [min, max] filling [off, off+len) */
static int number(struct scan *s, size_t off, size_t len, uint64_t min,
		  uint64_t max, uint32_t *out, const char *what)
{
	uint64_t v = 0;

	if (!len || len > 10)
		return fail(s, off, what);
	for (size_t i = 0; i < len; i++) {
		char c = s->base[off + i];

		if (c < '0' || c > '9')
			return fail(s, off + i, what);
		v = v * 10 + (uint64_t)(c - '0');
	}
	if (v < min || v > max)
		return fail(s, off, what);
	*out = (uint32_t)v;
	return 0;
}

static void unescape_span(char *base, struct mntkit_mi_span *f)
{
	f->len = (uint32_t)mntkit__unescape(base + f->off, base + f->off,
					    f->len);
}

static int word_eq(const char *p, size_t len, const char *w, size_t wlen)
{
	return wlen == len && !memcmp(p, w, len);
}

/* a word given as a string literal (its length known at compile time) */
#define word_is(p, len, lit) word_eq((p), (len), "" lit, sizeof(lit) - 1)
#define WORD(lit) "" lit, sizeof(lit) - 1

/* field 6: ro|rw followed by the per-mount flags (show_mnt_opts) */
static int mount_opts(struct scan *s, struct mntkit_mi *m)
{
	static const struct {
		const char *name;
		size_t len;
		uint64_t attr;
	} words[] = {
		{ WORD("nosuid"), MNTKIT_MOUNT_ATTR_NOSUID },
		{ WORD("nodev"), MNTKIT_MOUNT_ATTR_NODEV },
		{ WORD("noexec"), MNTKIT_MOUNT_ATTR_NOEXEC },
		{ WORD("noatime"), MNTKIT_MOUNT_ATTR_NOATIME },
		{ WORD("nodiratime"), MNTKIT_MOUNT_ATTR_NODIRATIME },
		{ WORD("relatime"), 0 }, /* MOUNT_ATTR_RELATIME is 0 */
		{ WORD("nosymfollow"), MNTKIT_MOUNT_ATTR_NOSYMFOLLOW },
		{ WORD("idmapped"), MNTKIT_MOUNT_ATTR_IDMAP },
	};
	struct mntkit_mi_span f = field(s);
	const char *p = s->base + f.off;
	size_t i = 0, n = f.len;
	int relatime = 0, first = 1;

	if (!n)
		return fail(s, f.off, "mount options missing");
	while (i <= n) {
		size_t b = i, k;

		while (i < n && p[i] != ',')
			i++;
		if (first) {
			if (word_is(p + b, i - b, "ro"))
				m->attr |= MNTKIT_MOUNT_ATTR_RDONLY;
			else if (!word_is(p + b, i - b, "rw"))
				return fail(s, f.off, "mount options: not ro/rw");
			first = 0;
		} else {
			for (k = 0; k < MNTKIT_ARRAY_SIZE(words); k++)
				if (word_eq(p + b, i - b, words[k].name,
					    words[k].len))
					break;
			if (i == b)
				return fail(s, f.off + b, "mount options: empty");
			if (k == MNTKIT_ARRAY_SIZE(words)) {
				m->unknown_attr = 1;
			} else {
				m->attr |= words[k].attr;
				/* the one word without an attribute bit */
				if (!words[k].attr)
					relatime = 1;
			}
		}
		i++;
	}
	/* the atime field: noatime, else relatime, else strictatime */
	if (!(m->attr & MNTKIT_MOUNT_ATTR_NOATIME) && !relatime)
		m->attr |= MNTKIT_MOUNT_ATTR_STRICTATIME;
	return 0;
}

/* a "tag:N" optional field: the number, or -1 when @tag does not match */
static int tag_value(struct scan *s, struct mntkit_mi_span f, const char *tag,
		     uint32_t *out, int *matched)
{
	size_t tl = strlen(tag);

	*matched = 0;
	if (f.len <= tl || memcmp(s->base + f.off, tag, tl))
		return 0;
	*matched = 1;
	if (*out)
		return fail(s, f.off, "optional field repeated");
	return number(s, f.off + tl, f.len - tl, 1, INT32_MAX, out,
		      "optional field: bad number");
}

static int optional_fields(struct scan *s, struct mntkit_mi *m)
{
	for (;;) {
		struct mntkit_mi_span f;
		int matched, ret;

		if (s->pos >= s->eol)
			return fail(s, s->pos, "no \" - \" separator");
		f = field(s);
		if (word_is(s->base + f.off, f.len, "-"))
			return need_space(s, "nothing after \" - \"");
		if (!f.len)
			return fail(s, f.off, "empty optional field");
		ret = tag_value(s, f, "shared:", &m->shared, &matched);
		if (!matched)
			ret = tag_value(s, f, "master:", &m->master, &matched);
		if (!matched)
			ret = tag_value(s, f, "propagate_from:",
					&m->propagate_from, &matched);
		if (ret)
			return ret;
		if (!matched) {
			if (word_is(s->base + f.off, f.len, "unbindable")) {
				if (m->unbindable)
					return fail(s, f.off,
						    "optional field repeated");
				m->unbindable = 1;
			} else {
				m->unknown_tag = 1;
			}
		}
		ret = need_space(s, "line ends in the optional fields");
		if (ret)
			return ret;
	}
}

/* does [p, e) start with the option @w (@l bytes) followed by ',' or the
 * end? Its length if so */
static size_t opt_prefix_n(const char *p, const char *e, const char *w,
			   size_t l)
{
	if ((size_t)(e - p) < l || memcmp(p, w, l))
		return 0;
	if (p + l < e && p[l] != ',')
		return 0;
	return l;
}

#define opt_prefix(p, e, lit) opt_prefix_n((p), (e), WORD(lit))

/*
 * The length of the LSM options at the start of @p (SELinux's
 * selinux_sb_show_options(): ,fscontext= ,context= ,defcontext=
 * ,rootcontext= with values in double quotes when they hold a comma, then
 * ,seclabel). No other LSM prints superblock options.
 */
static size_t lsm_opts(const char *p, const char *e)
{
	static const struct {
		const char *name;
		size_t len;
	} ctx[] = { { WORD(",fscontext=") }, { WORD(",context=") },
		    { WORD(",defcontext=") }, { WORD(",rootcontext=") } };
	const char *q = p;

	/* none without a ",...context=" or ",seclabel" next */
	if (e - q < 9 || q[0] != ',' || (q[1] != 'f' && q[1] != 'c' &&
					 q[1] != 'd' && q[1] != 'r' &&
					 q[1] != 's'))
		return 0;
	for (size_t k = 0; k < MNTKIT_ARRAY_SIZE(ctx); k++) {
		size_t l = ctx[k].len;
		const char *v;

		if ((size_t)(e - q) < l || memcmp(q, ctx[k].name, l))
			continue;
		v = q + l;
		if (v < e && *v == '"') {
			const char *c = memchr(v + 1, '"', (size_t)(e - v - 1));

			if (!c)
				break;
			v = c + 1;
		} else {
			while (v < e && *v != ',')
				v++;
		}
		if (v < e && *v != ',')
			break;
		q = v;
	}
	q += opt_prefix(q, e, ",seclabel");
	return (size_t)(q - p);
}

/* TYPE SOURCE SUPER_OPTS */
static int super_part(struct scan *s, struct mntkit_mi *m)
{
	struct mntkit_mi_span f;
	const char *p, *e, *dot;
	int ret;

	ret = nonempty(s, &f, "filesystem type missing");
	if (ret)
		return ret;
	/* "type.subtype": the type name itself never holds a '.' */
	p = s->base + f.off;
	dot = memchr(p, '.', f.len);
	m->type = f;
	if (dot) {
		m->type.len = (uint32_t)(dot - p);
		m->subtype.off = (uint32_t)(dot + 1 - s->base);
		m->subtype.len = f.len - m->type.len - 1;
		if (!m->type.len)
			return fail(s, f.off, "empty filesystem type");
	}
	ret = need_space(s, "source missing");
	if (ret)
		return ret;
	m->source = field(s); /* may be empty */
	ret = need_space(s, "super options missing");
	if (ret)
		return ret;

	/* the rest of the line */
	p = s->base + s->pos;
	e = s->base + s->eol;
	if (opt_prefix(p, e, "ro"))
		m->sb_flags |= MNTKIT_SB_RDONLY;
	else if (!opt_prefix(p, e, "rw"))
		return fail(s, s->pos, "super options: not ro/rw");
	p += 2;
	if (opt_prefix(p, e, ",sync")) {
		m->sb_flags |= MNTKIT_SB_SYNCHRONOUS;
		p += 5;
	}
	if (opt_prefix(p, e, ",dirsync")) {
		m->sb_flags |= MNTKIT_SB_DIRSYNC;
		p += 8;
	}
	p += opt_prefix(p, e, ",mand");
	if (opt_prefix(p, e, ",lazytime")) {
		m->sb_flags |= MNTKIT_SB_LAZYTIME;
		p += 9;
	}
	m->opts.off = (uint32_t)(p - s->base);
	m->opts.len = (uint32_t)(e - p);
	m->sec_len = (uint32_t)lsm_opts(p, e);
	s->pos = s->eol;

	unescape_span(s->base, &m->type);
	unescape_span(s->base, &m->subtype);
	unescape_span(s->base, &m->source);
	return 0;
}

static int parse_line(struct scan *s, struct mntkit_mi *m)
{
	struct mntkit_mi_span f;
	const char *colon;
	int ret;

	memset(m, 0, sizeof(*m));
	f = field(s);
	ret = number(s, f.off, f.len, 1, INT32_MAX, &m->id, "bad mount ID");
	if (!ret)
		ret = need_space(s, "line ends after the mount ID");
	if (ret)
		return ret;
	f = field(s);
	ret = number(s, f.off, f.len, 0, INT32_MAX, &m->parent,
		     "bad parent ID");
	if (!ret)
		ret = need_space(s, "line ends after the parent ID");
	if (ret)
		return ret;
	f = field(s);
	colon = memchr(s->base + f.off, ':', f.len);
	if (!colon)
		return fail(s, f.off, "device is not MAJOR:MINOR");
	ret = number(s, f.off, (size_t)(colon - (s->base + f.off)), 0,
		     UINT32_MAX, &m->major, "bad device major");
	if (!ret)
		ret = number(s, (size_t)(colon + 1 - s->base),
			     f.off + f.len - (size_t)(colon + 1 - s->base), 0,
			     UINT32_MAX, &m->minor, "bad device minor");
	if (!ret)
		ret = need_space(s, "line ends after the device");
	if (!ret)
		ret = nonempty(s, &m->root, "root missing");
	if (!ret)
		ret = need_space(s, "line ends after the root");
	if (!ret)
		ret = nonempty(s, &m->point, "mount point missing");
	if (!ret)
		ret = need_space(s, "line ends after the mount point");
	if (!ret)
		ret = mount_opts(s, m);
	if (!ret)
		ret = need_space(s, "line ends after the mount options");
	if (!ret)
		ret = optional_fields(s, m);
	if (!ret)
		ret = super_part(s, m);
	if (ret)
		return ret;
	unescape_span(s->base, &m->root);
	unescape_span(s->base, &m->point);
	return 0;
}

int mntkit__mi_parse(struct mntkit_mi_table *t, char *buf, size_t len,
		     struct mntkit_mi_err *err)
{
	struct scan s = { .base = buf, .line = 0, .err = err };
	int ret;

	t->buf = buf;
	t->len = len;
	t->n = 0;
	if (len > UINT32_MAX)
		return -EFBIG;
	while (s.pos < len) {
		const char *nl = memchr(buf + s.pos, '\n', len - s.pos);

		s.line++;
		s.bol = s.pos;
		if (!nl) {
			s.eol = len;
			return fail(&s, len, "last line not terminated");
		}
		s.eol = (size_t)(nl - buf);
		ret = mntkit__vec_room(t, 1, 256);
		if (ret)
			return ret;
		ret = parse_line(&s, &t->v[t->n]);
		if (ret)
			return ret;
		t->n++;
		s.pos = s.eol + 1;
	}
	return 0;
}

void mntkit__mi_free(struct mntkit_mi_table *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

int mntkit__mi_read(int fd, char **buf, size_t *cap, size_t *len)
{
	size_t n = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	if ((!*buf || *cap < 4096) && mntkit__grow(buf, cap, 65536, 1, 65536))
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		/* keep room for a whole seq_file chunk and a spare byte */
		if (*cap - n < 16384 && mntkit__grow(buf, cap, n + 16384, 1, 0))
			return -ENOMEM;
		r = read(fd, *buf + n, *cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	(*buf)[n] = '\0';
	*len = n;
	return 0;
}
