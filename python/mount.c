// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mount: one statmount reply, read-only. Its attributes are the reply's
 * fields under the kernel's names without their prefixes, made when they
 * are read (a Mount is its reply's bytes and nothing more); a field of a
 * group the reply lacks is None. Strings are decoded as os.fsdecode()
 * decodes a path (UTF-8, undecodable bytes as surrogates).
 */
#include "mntkit-py.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define G(x) MNTKIT_STATMOUNT_##x

enum kind {
	K_U64,         /* a u64 field */
	K_U32,         /* a u32 field */
	K_STR,         /* a string (mntkit_sm_str()) */
	K_STRV,        /* a string array, as a tuple */
	K_SOURCE,      /* findmnt's SOURCE: sb_source[root] */
	K_OPTIONS,     /* findmnt's OPTIONS, VFS-OPTIONS, FS-OPTIONS */
	K_PROPAGATION, /* findmnt's PROPAGATION */
	K_DEV,         /* (major, minor) */
};

struct field {
	const char *name;
	enum kind kind;
	uint64_t group; /* the group the field needs */
	size_t off;     /* K_U64, K_U32 */
	int arg;        /* enum mntkit_field, or enum mntkit_options */
	const char *doc;
};

#define OFF(f) offsetof(struct mntkit_statmount, f)

/* the attributes; group 0: never None */
static const struct field fields[] = {
	{"id", K_U64, 0, OFF(mnt_id), 0,
	 "The mount's ID (mnt_id): its unique 64-bit ID where the kernel has "
	 "them (6.8+), what every call takes; never None."},
	{"mask", K_U64, 0, OFF(mask), 0,
	 "The statmount groups the reply holds (MNTKIT_STATMOUNT_* bits); a "
	 "field of a group it lacks is None."},
	{"parent_id", K_U64, G(MNT_BASIC), OFF(mnt_parent_id), 0,
	 "The parent mount's ID (mnt_parent_id); its own ID for the root."},
	{"old_id", K_U32, G(MNT_BASIC), OFF(mnt_id_old), 0,
	 "The old, reused 31-bit ID (mnt_id_old): mountinfo's first field, "
	 "findmnt's ID. Show it; never keep it to find the mount again."},
	{"old_parent_id", K_U32, G(MNT_BASIC), OFF(mnt_parent_id_old), 0,
	 "The parent's old ID (mnt_parent_id_old): mountinfo's second "
	 "field."},
	{"attr", K_U64, G(MNT_BASIC), OFF(mnt_attr), 0,
	 "The mount's flags (mnt_attr, MOUNT_ATTR_* bits)."},
	{"propagation_flags", K_U64, G(MNT_BASIC), OFF(mnt_propagation), 0,
	 "The propagation as bits (mnt_propagation: MS_SHARED, MS_SLAVE, "
	 "MS_PRIVATE, MS_UNBINDABLE)."},
	{"propagation", K_PROPAGATION, G(MNT_BASIC), 0, 0,
	 "findmnt's PROPAGATION: 'shared', 'private', 'private,slave', "
	 "'shared,slave', 'private,unbindable'."},
	{"peer_group", K_U64, G(MNT_BASIC), OFF(mnt_peer_group), 0,
	 "The peer group of a shared mount (mnt_peer_group), else 0."},
	{"master", K_U64, G(MNT_BASIC), OFF(mnt_master), 0,
	 "The master's peer group of a slave mount (mnt_master), else 0."},
	{"propagate_from", K_U64, G(PROPAGATE_FROM), OFF(propagate_from), 0,
	 "The dominating peer group the caller sees (propagate_from), or 0."},
	{"dev", K_DEV, G(SB_BASIC), 0, 0,
	 "The superblock's device: (major, minor)."},
	{"sb_magic", K_U64, G(SB_BASIC), OFF(sb_magic), 0,
	 "The filesystem's magic number (sb_magic, statfs' f_type)."},
	{"sb_flags", K_U32, G(SB_BASIC), OFF(sb_flags), 0,
	 "The superblock's flags (sb_flags: SB_RDONLY, SB_SYNCHRONOUS, "
	 "SB_DIRSYNC, SB_LAZYTIME)."},
	{"root", K_STR, G(MNT_ROOT), 0, MNTKIT_FIELD_MNT_ROOT,
	 "The root of the mount within its filesystem (mnt_root; findmnt's "
	 "FSROOT)."},
	{"mount_point", K_STR, G(MNT_POINT), 0, MNTKIT_FIELD_MNT_POINT,
	 "Where it is mounted (mnt_point; findmnt's TARGET), relative to the "
	 "caller's root."},
	{"fs_type", K_STR, G(FS_TYPE), 0, MNTKIT_FIELD_FS_TYPE,
	 "The filesystem type without its subtype ('fuse' of 'fuse.sshfs')."},
	{"fs_subtype", K_STR, G(FS_SUBTYPE), 0, MNTKIT_FIELD_FS_SUBTYPE,
	 "The subtype ('sshfs' of 'fuse.sshfs'), or None."},
	{"ns_id", K_U64, G(MNT_NS_ID), OFF(mnt_ns_id), 0,
	 "The ID of the mount namespace (mnt_ns_id)."},
	{"opts", K_STR, G(MNT_OPTS), 0, MNTKIT_FIELD_MNT_OPTS,
	 "The filesystem's own (and the LSM's) options as the kernel writes "
	 "them (mnt_opts), or None when it has none."},
	{"sb_source", K_STR, G(SB_SOURCE), 0, MNTKIT_FIELD_SB_SOURCE,
	 "The superblock's source (sb_source: a device, 'tmpfs', "
	 "'server:/export')."},
	{"source", K_SOURCE, G(SB_SOURCE), 0, 0,
	 "findmnt's SOURCE: sb_source, and [root] after it when the mount's "
	 "root is not the filesystem's (a bind mount)."},
	{"options", K_OPTIONS, G(MNT_BASIC) | G(SB_BASIC), 0,
	 MNTKIT_OPTIONS_ALL,
	 "findmnt's OPTIONS: vfs_options and fs_options merged."},
	{"vfs_options", K_OPTIONS, G(MNT_BASIC), 0, MNTKIT_OPTIONS_VFS,
	 "findmnt's VFS-OPTIONS: the mount's flags as words."},
	{"fs_options", K_OPTIONS, G(SB_BASIC), 0, MNTKIT_OPTIONS_FS,
	 "findmnt's FS-OPTIONS: the superblock's flags, then the filesystem's "
	 "own options."},
	{"opt_array", K_STRV, G(OPT_ARRAY), 0, MNTKIT_FIELD_OPT_ARRAY,
	 "The filesystem's options, split and unescaped (opt_array): a "
	 "tuple of str."},
	{"opt_sec_array", K_STRV, G(OPT_SEC_ARRAY), 0,
	 MNTKIT_FIELD_OPT_SEC_ARRAY,
	 "The LSM's options (opt_sec_array): a tuple of str."},
	{"uidmap", K_STRV, G(MNT_UIDMAP), 0, MNTKIT_FIELD_MNT_UIDMAP,
	 "An idmapped mount's UID ranges, 'first lower count' each "
	 "(mnt_uidmap): a tuple of str."},
	{"gidmap", K_STRV, G(MNT_GIDMAP), 0, MNTKIT_FIELD_MNT_GIDMAP,
	 "An idmapped mount's GID ranges (mnt_gidmap): a tuple of str."},
	{"supported_mask", K_U64, G(SUPPORTED_MASK), OFF(supported_mask), 0,
	 "The groups the statmount that answered supports "
	 "(supported_mask)."},
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static inline struct mkpy_mount *M(PyObject *o)
{
	return (struct mkpy_mount *)o;
}

PyObject *mkpy_mount_copy(const struct mntkit_statmount *sm)
{
	size_t size = sm->size, alloc = size;
	struct mkpy_mount *m;

	if (alloc < MNTKIT_STATMOUNT_FIXED_SIZE)
		alloc = MNTKIT_STATMOUNT_FIXED_SIZE;
	m = PyObject_NewVar(struct mkpy_mount, &mkpy_mount_type,
			    (Py_ssize_t)alloc);
	if (!m)
		return NULL;
	memcpy(m->data, sm, size);
	if (size < alloc)
		memset((char *)m->data + size, 0, alloc - size);
	m->sm = (const struct mntkit_statmount *)m->data;
	m->owner = NULL;
	return (PyObject *)m;
}

PyObject *mkpy_mount_borrow(const struct mntkit_statmount *sm,
			    PyObject *owner)
{
	struct mkpy_mount *m;

	m = PyObject_NewVar(struct mkpy_mount, &mkpy_mount_type, 0);
	if (!m)
		return NULL;
	m->sm = sm;
	m->owner = Py_NewRef(owner);
	return (PyObject *)m;
}

int mkpy_mount_id(PyObject *arg, uint64_t *id)
{
	if (PyObject_TypeCheck(arg, &mkpy_mount_type)) {
		*id = M(arg)->sm->mnt_id;
		return 0;
	}
	return mkpy_u64_arg(arg, "a mount ID (or a Mount)", 0, UINT64_MAX, id);
}

static void mount_dealloc(PyObject *self)
{
	Py_XDECREF(M(self)->owner);
	PyObject_Free(self);
}

/* a string of the kernel's, as os.fsdecode() makes it */
static PyObject *fsdecode(const char *s)
{
	return PyUnicode_DecodeFSDefault(s);
}

/* the error of reading a field: None when the reply lacks it */
static PyObject *field_error(int r)
{
	if (r == -ENODATA)
		Py_RETURN_NONE;
	return mkpy_raise(r, NULL);
}

static PyObject *get_str(const struct mntkit_statmount *sm, int field)
{
	const char *s;
	int r = mntkit_sm_str(sm, sm->size, field, &s);

	return r < 0 ? field_error(r) : fsdecode(s);
}

static PyObject *get_strv(const struct mntkit_statmount *sm, int field)
{
	const char **vec;
	PyObject *t, *s;
	ssize_t n;

	n = mntkit_sm_strv(sm, sm->size, field, NULL, 0);
	if (n < 0)
		return field_error((int)n);
	vec = PyMem_Malloc(((size_t)n + 1) * sizeof(*vec));
	if (!vec)
		return PyErr_NoMemory();
	n = mntkit_sm_strv(sm, sm->size, field, vec, (size_t)n);
	t = n < 0 ? field_error((int)n) : PyTuple_New(n);
	for (ssize_t i = 0; n >= 0 && t && i < n; i++) {
		s = fsdecode(vec[i]);
		if (!s)
			Py_CLEAR(t);
		else
			PyTuple_SET_ITEM(t, i, s);
	}
	PyMem_Free(vec);
	return t;
}

static PyObject *get_source(const struct mntkit_statmount *sm)
{
	PyObject *s, *r, *out = NULL;
	const char *src, *root;

	if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_SB_SOURCE, &src) < 0)
		return get_str(sm, MNTKIT_FIELD_SB_SOURCE);
	if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_ROOT, &root) < 0 ||
	    !strcmp(root, "/"))
		return fsdecode(src);
	s = fsdecode(src);
	r = s ? fsdecode(root) : NULL;
	if (r)
		out = PyUnicode_FromFormat("%U[%U]", s, r);
	Py_XDECREF(s);
	Py_XDECREF(r);
	return out;
}

/* the text of a decoder (snprintf's convention), measured first */
static PyObject *decoded(int (*fn)(const struct mntkit_statmount *sm,
				   int arg, char *buf, size_t len),
			 const struct mntkit_statmount *sm, int arg)
{
	char small[256], *buf = small;
	PyObject *s;
	int n;

	n = fn(sm, arg, small, sizeof(small));
	if (n >= (int)sizeof(small)) {
		buf = PyMem_Malloc((size_t)n + 1);
		if (!buf)
			return PyErr_NoMemory();
		n = fn(sm, arg, buf, (size_t)n + 1);
	}
	s = n < 0 ? field_error(n) : fsdecode(buf);
	if (buf != small)
		PyMem_Free(buf);
	return s;
}

static int options_of(const struct mntkit_statmount *sm, int which,
		      char *buf, size_t len)
{
	return mntkit_sm_options(sm, (enum mntkit_options)which, buf, len);
}

static int propagation_of(const struct mntkit_statmount *sm, int unused,
			  char *buf, size_t len)
{
	(void)unused;
	return mntkit_propagation_str(sm->mnt_propagation, 0, buf, len);
}

static PyObject *mount_field(PyObject *self, void *closure)
{
	const struct field *f = closure;
	const struct mntkit_statmount *sm = M(self)->sm;
	const char *p = (const char *)sm + f->off;
	uint64_t u64;
	uint32_t u32;

	if ((sm->mask & f->group) != f->group)
		Py_RETURN_NONE;
	switch (f->kind) {
	case K_U64:
		memcpy(&u64, p, sizeof(u64));
		return PyLong_FromUnsignedLongLong(u64);
	case K_U32:
		memcpy(&u32, p, sizeof(u32));
		return PyLong_FromUnsignedLong(u32);
	case K_STR:
		return get_str(sm, f->arg);
	case K_STRV:
		return get_strv(sm, f->arg);
	case K_SOURCE:
		return get_source(sm);
	case K_OPTIONS:
		return decoded(options_of, sm, f->arg);
	case K_PROPAGATION:
		return decoded(propagation_of, sm, 0);
	case K_DEV:
		return Py_BuildValue("(kk)", (unsigned long)sm->sb_dev_major,
				     (unsigned long)sm->sb_dev_minor);
	}
	Py_RETURN_NONE;
}

static PyObject *mount_repr(PyObject *self)
{
	const struct mntkit_statmount *sm = M(self)->sm;
	PyObject *point, *type, *src, *r = NULL;

	point = get_str(sm, MNTKIT_FIELD_MNT_POINT);
	type = point ? get_str(sm, MNTKIT_FIELD_FS_TYPE) : NULL;
	src = type ? get_source(sm) : NULL;
	if (src)
		r = PyUnicode_FromFormat(
			"<mntkit.Mount id=%llu old_id=%lu mount_point=%R "
			"fs_type=%R source=%R>",
			(unsigned long long)sm->mnt_id,
			(unsigned long)sm->mnt_id_old, point, type, src);
	Py_XDECREF(point);
	Py_XDECREF(type);
	Py_XDECREF(src);
	return r;
}

static uint64_t id_of(PyObject *self)
{
	return M(self)->sm->mnt_id;
}

static Py_hash_t mount_hash(PyObject *self)
{
	return mkpy_id_hash(id_of(self));
}

static PyObject *mount_richcompare(PyObject *a, PyObject *b, int op)
{
	return mkpy_id_compare(a, b, op, id_of);
}

/* a getter per field of the table above, and the end */
static PyGetSetDef mount_getset[NFIELDS + 1];

int mkpy_mount_ready(void)
{
	for (size_t i = 0; i < NFIELDS; i++) {
		PyGetSetDef *g = &mount_getset[i];

		g->name = fields[i].name;
		g->get = mount_field;
		g->doc = fields[i].doc;
		g->closure = (void *)&fields[i];
	}
	return PyType_Ready(&mkpy_mount_type);
}

PyTypeObject mkpy_mount_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "mntkit.Mount",
	.tp_basicsize = offsetof(struct mkpy_mount, data),
	.tp_itemsize = 1,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One mount: what statmount(2) says of it, read-only.\n\n"
		  "The attributes are the reply's fields, named as in the "
		  "kernel without their prefixes; a field of a group the "
		  "reply lacks is None. Equal and hashable by id. Immutable: "
		  "safe to share between threads.",
	.tp_dealloc = mount_dealloc,
	.tp_repr = mount_repr,
	.tp_hash = mount_hash,
	.tp_richcompare = mount_richcompare,
	.tp_getset = mount_getset,
};
