// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The mntkit module: its functions (mounts(), stat(), namespaces(),
 * watch(), backend(), features()) and its types.
 */
#include "mntkit-py.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

/* the replies of mounts() are read this many bytes at a time, at first */
#define MOUNTS_CHUNK (512 * 1024)

/* append a Mount of each of the @n replies at @buf to @list */
static int append_replies(PyObject *list, const char *buf, ssize_t n)
{
	for (ssize_t k = 0; k < n; k++) {
		const struct mntkit_statmount *sm = (const void *)buf;
		PyObject *m = mkpy_mount_copy(sm);

		if (!m || PyList_Append(list, m) < 0) {
			Py_XDECREF(m);
			return -1;
		}
		Py_DECREF(m);
		buf += mntkit_stat_span(sm);
	}
	return 0;
}

/*
 * The Mounts of @ids, read a buffer of replies at a time
 * (mntkit_stat_many()); mounts gone since the listing are left out.
 */
static PyObject *stat_ids(const uint64_t *ids, size_t n,
			  const struct mntkit_opts *use)
{
	size_t size = MOUNTS_CHUNK, i = 0;
	PyObject *list = PyList_New(0);
	char *buf = NULL, *bigger;
	ssize_t got;

	if (!list || !(buf = malloc(size)))
		goto nomem;
	while (i < n) {
		MKPY_CALL(got = mntkit_stat_many(ids + i, n - i, MKPY_MASK, 0,
						 use, buf, size));
		if (got == -ENOENT) { /* gone since the listing */
			i++;
			continue;
		}
		if (got == -EOVERFLOW && size < (1U << 30)) {
			bigger = realloc(buf, 2 * size);
			if (!bigger)
				goto nomem;
			buf = bigger;
			size *= 2;
			continue;
		}
		if (got < 0) {
			mkpy_raise((int)got, NULL);
			goto fail;
		}
		if (append_replies(list, buf, got) < 0)
			goto fail;
		i += (size_t)got;
	}
	free(buf);
	return list;
nomem:
	PyErr_NoMemory();
fail:
	free(buf);
	Py_XDECREF(list);
	return NULL;
}

static PyObject *mounts(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"ns", "cheap_ids", NULL};
	const struct mntkit_opts *use;
	PyObject *ns = Py_None, *list;
	int r = 0, cheap = 0;
	uint64_t *ids = NULL;
	MNTKIT_OPTS(o);
	ssize_t n;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$p:mounts", kwlist,
					 &ns, &cheap) ||
	    mkpy_ns_opts(ns, &o, &use) < 0)
		return NULL;
	mkpy_cheap_ids(cheap, &o, &use);
	/* findmnt's (mountinfo's) order */
	MKPY_CALL({
		n = mntkit_list(MNTKIT_LSMT_ROOT, 0, use, &ids);
		if (n > 0)
			r = mntkit_list_order(ids, (size_t)n, use);
	});
	if (n < 0 || r < 0) {
		free(ids);
		return mkpy_raise(n < 0 ? (int)n : r, NULL);
	}
	list = stat_ids(ids, (size_t)n, use);
	free(ids);
	return list;
}

/* stat() of a path, or of an open file (fileno()) */
static PyObject *stat_path(PyObject *target, const char *id_only)
{
	struct mntkit_statmount *sm = NULL;
	PyObject *bytes = NULL, *m;
	int r, fd = -1;

	if (id_only) {
		PyErr_Format(PyExc_ValueError,
			     "stat: %s= is for a mount ID, not a path",
			     id_only);
		return NULL;
	}
	if (!PyUnicode_Check(target) && !PyBytes_Check(target) &&
	    !PyObject_HasAttrString(target, "__fspath__") &&
	    PyObject_HasAttrString(target, "fileno")) {
		fd = PyObject_AsFileDescriptor(target);
		if (fd < 0)
			return NULL;
		MKPY_CALL(r = mntkit_stat_fd(fd, MKPY_MASK, &sm));
	} else {
		if (!PyUnicode_FSConverter(target, &bytes))
			return NULL;
		MKPY_CALL(r = mntkit_stat_path(AT_FDCWD,
					       PyBytes_AS_STRING(bytes), 0,
					       MKPY_MASK, &sm));
		Py_DECREF(bytes);
	}
	if (r < 0)
		return mkpy_raise(r, fd < 0 ? target : NULL);
	m = mkpy_mount_copy(sm);
	free(sm);
	return m;
}

static PyObject *stat_(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"target", "ns", "cheap_ids", NULL};
	struct mntkit_statmount *sm = NULL;
	const struct mntkit_opts *use;
	PyObject *target, *ns = Py_None, *m;
	int r, cheap = 0;
	MNTKIT_OPTS(o);
	uint64_t id;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$Op:stat", kwlist,
					 &target, &ns, &cheap) ||
	    mkpy_ns_opts(ns, &o, &use) < 0)
		return NULL;
	if (!PyLong_Check(target) || PyBool_Check(target)) {
		if (PyBool_Check(target)) {
			PyErr_SetString(PyExc_TypeError,
					"stat: a mount ID, a path or an open "
					"file, not a bool");
			return NULL;
		}
		return stat_path(target, use ? "ns" : cheap ? "cheap_ids"
							       : NULL);
	}
	if (mkpy_mount_id(target, &id) < 0)
		return NULL;
	mkpy_cheap_ids(cheap, &o, &use);
	MKPY_CALL(r = mntkit_stat(id, MKPY_MASK, use, &sm));
	if (r < 0)
		return mkpy_raise(r, NULL);
	m = mkpy_mount_copy(sm);
	free(sm);
	return m;
}

static PyObject *id_from_old(PyObject *self, PyObject *args,
			     PyObject *kwargs)
{
	static char *kwlist[] = {"old_id", "ns", NULL};
	const struct mntkit_opts *use;
	PyObject *old, *ns = Py_None;
	uint64_t old_id, id = 0;
	MNTKIT_OPTS(o);
	int r;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$O:id_from_old",
					 kwlist, &old, &ns) ||
	    mkpy_ns_opts(ns, &o, &use) < 0 ||
	    mkpy_u64_arg(old, "id_from_old: an old ID", 1,
			 MNTKIT_MNT_UNIQUE_ID_OFFSET, &old_id) < 0)
		return NULL;
	MKPY_CALL(r = mntkit_id_from_old(old_id, use, &id));
	if (r < 0)
		return mkpy_raise(r, NULL);
	return PyLong_FromUnsignedLongLong(id);
}

static PyObject *backend(PyObject *self, PyObject *unused)
{
	enum mntkit_backend b;
	const char *name;

	(void)self;
	(void)unused;
	MKPY_CALL(b = mntkit_get_backend());
	name = mntkit_backend_name(b);
	return PyUnicode_FromString(name ? name : "unknown");
}

/* ---- features() ---- */

static const struct {
	uint32_t bit;
	const char *name;
} feature_names[] = {
	{MNTKIT_FEAT_STATMOUNT, "statmount"},
	{MNTKIT_FEAT_LISTMOUNT, "listmount"},
	{MNTKIT_FEAT_UNIQUE_IDS, "unique_ids"},
	{MNTKIT_FEAT_STATX_UNIQUE, "statx_unique"},
	{MNTKIT_FEAT_HANDLE_UNIQUE, "handle_unique"},
	{MNTKIT_FEAT_NS_ID, "ns_id"},
	{MNTKIT_FEAT_REQ_NS_ID, "req_ns_id"},
	{MNTKIT_FEAT_REQ_NS_FD, "req_ns_fd"},
	{MNTKIT_FEAT_LIST_REVERSE, "list_reverse"},
	{MNTKIT_FEAT_FANOTIFY_MNT, "fanotify_mnt"},
	{MNTKIT_FEAT_NS_ITER, "ns_iter"},
	{MNTKIT_FEAT_HYBRID, "hybrid"},
	{MNTKIT_FEAT_STATMOUNT_BY_FD, "statmount_by_fd"},
	{MNTKIT_FEAT_LISTNS, "listns"},
};

/* a frozenset of the names of the bits of @bits, by @name_of */
static PyObject *names_of(uint64_t bits, const char *(*name_of)(uint64_t))
{
	PyObject *set = PyFrozenSet_New(NULL), *s;
	const char *name;

	for (int i = 0; set && i < 64; i++) {
		if (!(bits & (1ULL << i)) || !(name = name_of(1ULL << i)))
			continue;
		s = PyUnicode_FromString(name);
		if (!s || PySet_Add(set, s) < 0)
			Py_CLEAR(set);
		Py_XDECREF(s);
	}
	return set;
}

static const char *feature_name(uint64_t bit)
{
	for (size_t i = 0; i < sizeof(feature_names) / sizeof(*feature_names);
	     i++)
		if (feature_names[i].bit == bit)
			return feature_names[i].name;
	return NULL;
}

static const char *refused_name(uint64_t bit)
{
	const char *name = NULL;

	mntkit_refused((uint32_t)bit, &name);
	return name;
}

static PyObject *features(PyObject *self, PyObject *unused)
{
	MNTKIT_FEATURES(f);
	const char *name;
	int r;

	(void)self;
	(void)unused;
	MKPY_CALL(r = mntkit_get_features(&f));
	if (r < 0)
		return mkpy_raise(r, NULL);
	name = mntkit_backend_name(f.backend);
	return Py_BuildValue("{s:s,s:N,s:N,s:N,s:N,s:N}", "backend",
			     name ? name : "unknown", "flags",
			     names_of(f.flags, feature_name),
			     "supported_groups",
			     names_of(f.supported_mask, mntkit_mask_name),
			     "kernel_groups",
			     names_of(f.kernel_mask, mntkit_mask_name),
			     "emul_groups",
			     names_of(f.emul_mask, mntkit_mask_name),
			     "refused", names_of(f.refused, refused_name));
}

/* ---- the module ---- */

static PyMethodDef module_methods[] = {
	{"mounts", MKPY_METH(mounts), METH_VARARGS | METH_KEYWORDS,
	 "mounts(ns=None, *, cheap_ids=False)\n--\n\n"
	 "Every mount of a namespace as a list of Mount, in findmnt's list "
	 "order (mountinfo's). ns: None for the caller's namespace, a PID "
	 "(int), a Namespace, or an open namespace file (/proc/PID/ns/mnt). "
	 "cheap_ids=True: on the mountinfo emulation every mount is named by "
	 "its old ID (id == old_id) and no mount point is looked at to learn "
	 "unique IDs, as for lsmnt's default columns; the native backend "
	 "gives unique IDs either way. Such an ID is reused: do not keep "
	 "it."},
	{"stat", MKPY_METH(stat_), METH_VARARGS | METH_KEYWORDS,
	 "stat(target, *, ns=None, cheap_ids=False)\n--\n\n"
	 "One Mount: of a mount ID (int; in namespace ns), of the mount a "
	 "path is on (str, bytes or os.PathLike), or of the mount an open "
	 "file is on (an object with fileno()). cheap_ids=True (a mount ID "
	 "only, as ns=): as for mounts(); an old ID is taken on the "
	 "emulation, and the reply names its mount and parent by old IDs."},
	{"namespaces", mkpy_namespaces, METH_NOARGS,
	 "namespaces()\n--\n\n"
	 "Every mount namespace the caller can find, as a list of Namespace "
	 "by ascending ID (Linux 6.10+: earlier kernels have no namespace "
	 "IDs, mntkit.Error EOPNOTSUPP)."},
	{"watch", MKPY_METH(mkpy_watch_func), METH_VARARGS | METH_KEYWORDS,
	 "watch(ns=None, *, all_namespaces=False, initial=False, "
	 "cheap_ids=False)\n--\n\n"
	 "A Watch of the mount events of a namespace: see Watch."},
	{"id_from_old", MKPY_METH(id_from_old), METH_VARARGS | METH_KEYWORDS,
	 "id_from_old(old_id, *, ns=None)\n--\n\n"
	 "The ID (what stat() and a Table take) of the mount whose old ID "
	 "is old_id: mountinfo's first field, findmnt's ID. Reads a "
	 "snapshot. mntkit.Error ENOENT when no mount has it."},
	{"backend", backend, METH_NOARGS,
	 "backend()\n--\n\n"
	 "The backend in effect: 'native' (the statmount and listmount "
	 "system calls) or 'mountinfo' (the emulation over "
	 "/proc/PID/mountinfo). MNTKIT_BACKEND=native|mountinfo in the "
	 "environment chooses one."},
	{"features", features, METH_NOARGS,
	 "features()\n--\n\n"
	 "What this process can ask and get: a dict of 'backend' (str), "
	 "'flags' (the kernel's features: 'statmount', 'listmount', "
	 "'unique_ids', ...), 'supported_groups', 'kernel_groups', "
	 "'emul_groups' (statmount groups: 'sb_basic', 'mnt_basic', ...) "
	 "and 'refused' (system calls a seccomp filter refuses), each a "
	 "frozenset of names."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "mntkit",
	.m_doc = "The mounts of Linux: listmount(2) and statmount(2) on every "
		 "kernel, through libmntkit.\n\n"
		 "mounts(), stat(), Table (a snapshot: tree, lookups, "
		 "diff), watch() (events, also with asyncio), LiveTable (a "
		 "table kept current by the events), namespaces(), "
		 "backend(), features(). Errors are mntkit.Error, an "
		 "OSError.",
	.m_size = -1,
	.m_methods = module_methods,
};

PyMODINIT_FUNC PyInit_mntkit(void);

PyMODINIT_FUNC PyInit_mntkit(void)
{
	PyObject *m;

	if (mkpy_mount_ready() < 0 || mkpy_table_ready() < 0 ||
	    mkpy_watch_ready() < 0 || PyType_Ready(&mkpy_live_type) < 0 ||
	    PyType_Ready(&mkpy_namespace_type) < 0)
		return NULL;
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	if (mkpy_errors_init(m) < 0 ||
	    PyModule_AddType(m, &mkpy_mount_type) < 0 ||
	    PyModule_AddType(m, &mkpy_table_type) < 0 ||
	    PyModule_AddType(m, &mkpy_watch_type) < 0 ||
	    PyModule_AddType(m, &mkpy_event_type) < 0 ||
	    PyModule_AddType(m, &mkpy_live_type) < 0 ||
	    PyModule_AddType(m, &mkpy_namespace_type) < 0 ||
	    PyModule_AddStringConstant(m, "__version__", mntkit_version()) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
