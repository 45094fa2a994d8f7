// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Table: a snapshot of a mount namespace (mntkit_table_new(), every
 * group), its tree and its lookups. Immutable once made, as the C table
 * is: its methods may run in many threads at once. Its Mounts point into
 * the snapshot (which they keep alive), nothing is copied.
 */
#include "mntkit-py.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mkpy_table {
	PyObject_HEAD
	struct mntkit_table *t;
	size_t n;
	size_t *order; /* the table's indices in tree order */
	int lexical;   /* another namespace: paths are taken lexically */
};

struct table_iter {
	PyObject_HEAD
	struct mkpy_table *tb;
	size_t pos;
};

static PyTypeObject table_iter_type;

static inline struct mkpy_table *TB(PyObject *o)
{
	return (struct mkpy_table *)o;
}

/*
 * The indices of @t depth-first, a parent before its children (in the
 * table's order: by ascending ID), root after root, into @order (room for
 * every mount).
 */
static void tree_order(const struct mntkit_table *t, size_t *order)
{
	size_t k = 0;

	for (ssize_t r = mntkit_table_first_root(t); r >= 0;
	     r = mntkit_table_next_sibling(t, (size_t)r))
		for (ssize_t i = r; i >= 0;
		     i = mntkit_table_next_preorder(t, (size_t)i, (size_t)r))
			order[k++] = (size_t)i;
}

/* a Table of @t (taken over: freed on failure); @lexical: its paths are
 * another namespace's */
static PyObject *table_wrap(PyTypeObject *type, struct mntkit_table *t,
			    int lexical)
{
	struct mkpy_table *tb;
	size_t *order;

	order = malloc((mntkit_table_count(t) + 1) * sizeof(*order));
	if (!order) {
		mntkit_table_free(t);
		return PyErr_NoMemory();
	}
	tree_order(t, order);
	tb = (struct mkpy_table *)type->tp_alloc(type, 0);
	if (!tb) {
		mntkit_table_free(t);
		free(order);
		return NULL;
	}
	tb->t = t;
	tb->n = mntkit_table_count(t);
	tb->order = order;
	tb->lexical = lexical;
	return (PyObject *)tb;
}

PyObject *mkpy_table_wrap(struct mntkit_table *t, int lexical)
{
	return table_wrap(&mkpy_table_type, t, lexical);
}

static PyObject *table_new(PyTypeObject *type, PyObject *args,
			   PyObject *kwargs)
{
	static char *kwlist[] = {"ns", "cheap_ids", NULL};
	const struct mntkit_opts *use;
	struct mntkit_table *t = NULL;
	PyObject *ns = Py_None;
	int r, cheap = 0, lexical;
	MNTKIT_OPTS(o);

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$p:Table", kwlist,
					 &ns, &cheap) ||
	    mkpy_ns_opts(ns, &o, &use) < 0)
		return NULL;
	lexical = use != NULL; /* another namespace's */
	mkpy_cheap_ids(cheap, &o, &use);
	MKPY_CALL(r = mntkit_table_new(MKPY_MASK, 0, use, &t));
	if (r < 0)
		return mkpy_raise(r, NULL);
	return table_wrap(type, t, lexical);
}

static void table_dealloc(PyObject *self)
{
	mntkit_table_free(TB(self)->t);
	free(TB(self)->order);
	Py_TYPE(self)->tp_free(self);
}

/* the Mount of index @idx */
static PyObject *table_mount(struct mkpy_table *tb, size_t idx)
{
	const struct mntkit_statmount *sm = mntkit_table_get(tb->t, idx);

	if (!sm)
		return mkpy_raise(errno, NULL);
	return mkpy_mount_borrow(sm, (PyObject *)tb);
}

/* the index of @key (a Mount or an ID): >= 0, or -1 with KeyError (or
 * TypeError, ValueError) set */
static ssize_t table_index(struct mkpy_table *tb, PyObject *key)
{
	uint64_t id;
	ssize_t i;

	if (mkpy_mount_id(key, &id) < 0)
		return -1;
	i = mntkit_table_find(tb->t, id);
	if (i < 0) {
		PyErr_SetObject(PyExc_KeyError, key);
		return -1;
	}
	return i;
}

static Py_ssize_t table_len(PyObject *self)
{
	return (Py_ssize_t)TB(self)->n;
}

static PyObject *table_getitem(PyObject *self, PyObject *key)
{
	ssize_t i = table_index(TB(self), key);

	return i < 0 ? NULL : table_mount(TB(self), (size_t)i);
}

static int table_contains(PyObject *self, PyObject *key)
{
	uint64_t id;

	if (mkpy_mount_id(key, &id) < 0)
		return -1;
	return mntkit_table_find(TB(self)->t, id) >= 0;
}

/* the Mounts of the indices @first, then each next_sibling() of it */
static PyObject *siblings(struct mkpy_table *tb, ssize_t first)
{
	PyObject *list = PyList_New(0), *m;

	for (ssize_t i = first; list && i >= 0;
	     i = mntkit_table_next_sibling(tb->t, (size_t)i)) {
		m = table_mount(tb, (size_t)i);
		if (!m || PyList_Append(list, m) < 0)
			Py_CLEAR(list);
		Py_XDECREF(m);
	}
	return list;
}

static PyObject *table_parent(PyObject *self, PyObject *arg)
{
	ssize_t i = table_index(TB(self), arg), p;

	if (i < 0)
		return NULL;
	p = mntkit_table_parent(TB(self)->t, (size_t)i);
	if (p < 0)
		Py_RETURN_NONE;
	return table_mount(TB(self), (size_t)p);
}

static PyObject *table_children(PyObject *self, PyObject *arg)
{
	ssize_t i = table_index(TB(self), arg);

	if (i < 0)
		return NULL;
	return siblings(TB(self), mntkit_table_first_child(TB(self)->t,
							    (size_t)i));
}

static PyObject *table_roots(PyObject *self, PyObject *unused)
{
	(void)unused;
	return siblings(TB(self), mntkit_table_first_root(TB(self)->t));
}

/* a lookup by a path or a source: the Mount, or None */
static PyObject *table_find(PyObject *self, PyObject *arg,
			    ssize_t (*find)(const struct mntkit_table *,
					    const char *, unsigned int))
{
	struct mkpy_table *tb = TB(self);
	unsigned int flags = tb->lexical ? 0 : MNTKIT_LOOKUP_F_CANON;
	PyObject *bytes;
	ssize_t i;

	if (!PyUnicode_FSConverter(arg, &bytes))
		return NULL;
	MKPY_CALL(i = find(tb->t, PyBytes_AS_STRING(bytes), flags));
	Py_DECREF(bytes);
	if (i == -ENOENT)
		Py_RETURN_NONE;
	if (i < 0)
		return mkpy_raise((int)i, arg);
	return table_mount(tb, (size_t)i);
}

static PyObject *table_find_target(PyObject *self, PyObject *arg)
{
	return table_find(self, arg, mntkit_table_find_target);
}

static PyObject *table_find_source(PyObject *self, PyObject *arg)
{
	return table_find(self, arg, mntkit_table_find_source);
}

/* ---- under() ---- */

/*
 * @path made absolute (from the working directory) and normal without
 * looking at the filesystem: no "//", "." or trailing '/', a ".." takes
 * off the component before it. malloc'd, or NULL (errno set).
 */
static char *lexical(const char *path)
{
	char *cwd = NULL, *out, *w;
	const char *p, *end;
	size_t len;

	if (path[0] != '/' && !(cwd = getcwd(NULL, 0)))
		return NULL;
	len = (cwd ? strlen(cwd) : 0) + strlen(path) + 3;
	out = malloc(len);
	if (!out) {
		free(cwd);
		return NULL;
	}
	snprintf(out, len, "%s/%s", cwd ? cwd : "", path);
	free(cwd);
	/* in place: w writes behind p, which reads a component at a time */
	w = out;
	for (p = out; *p;) {
		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		if (end - p == 2 && p[0] == '.' && p[1] == '.') {
			while (w > out && *--w != '/')
				;
		} else if (end > p && !(end - p == 1 && p[0] == '.')) {
			*w++ = '/';
			memmove(w, p, (size_t)(end - p));
			w += end - p;
		}
		p = end;
	}
	if (w == out)
		*w++ = '/';
	*w = '\0';
	return out;
}

/* is mount point @pt @path (canonical, @plen bytes) or below it? */
static int at_or_below(const char *pt, const char *path, size_t plen)
{
	size_t len = strlen(pt);

	while (len > 1 && pt[len - 1] == '/')
		len--;
	if (pt[0] != '/')
		return 0;
	if (plen == 1)
		return 1;
	return len >= plen && !memcmp(pt, path, plen) &&
	       (len == plen || pt[plen] == '/');
}

static PyObject *table_under(PyObject *self, PyObject *args,
			     PyObject *kwargs)
{
	static char *kwlist[] = {"path", "children_first", NULL};
	struct mkpy_table *tb = TB(self);
	PyObject *bytes, *list, *m;
	int children_first = 0;
	char *abs = NULL;
	const char *pt;
	size_t plen;
	int r = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|p:under", kwlist,
					 PyUnicode_FSConverter, &bytes,
					 &children_first))
		return NULL;
	if (!PyBytes_GET_SIZE(bytes)) {
		Py_DECREF(bytes);
		PyErr_SetString(PyExc_ValueError, "under: an empty path");
		return NULL;
	}
	MKPY_CALL({
		if (tb->lexical)
			r = (abs = lexical(PyBytes_AS_STRING(bytes))) ? 0
								      : -errno;
		else
			r = mntkit_path_canon(PyBytes_AS_STRING(bytes), 0,
					      &abs);
	});
	if (r < 0) {
		mkpy_raise(r, bytes);
		Py_DECREF(bytes);
		return NULL;
	}
	Py_DECREF(bytes);
	plen = strlen(abs);
	list = PyList_New(0);
	for (size_t k = 0; list && k < tb->n; k++) {
		size_t i = tb->order[children_first ? tb->n - 1 - k : k];
		const struct mntkit_statmount *sm = mntkit_table_get(tb->t, i);

		if (!sm || mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT,
					 &pt) < 0 ||
		    !at_or_below(pt, abs, plen))
			continue;
		m = mkpy_mount_borrow(sm, self);
		if (!m || PyList_Append(list, m) < 0)
			Py_CLEAR(list);
		Py_XDECREF(m);
	}
	free(abs);
	return list;
}

static PyObject *table_diff(PyObject *self, PyObject *other)
{
	struct mntkit_event *evs = NULL;
	PyObject *list, *e;
	ssize_t n;

	if (!PyObject_TypeCheck(other, &mkpy_table_type)) {
		PyErr_Format(PyExc_TypeError, "diff: a Table, not %.100s",
			     Py_TYPE(other)->tp_name);
		return NULL;
	}
	MKPY_CALL(n = mntkit_diff(TB(self)->t, TB(other)->t, 0, sizeof(*evs),
				  &evs));
	if (n < 0)
		return mkpy_raise((int)n, NULL);
	list = PyList_New(n);
	for (ssize_t i = 0; list && i < n; i++) {
		e = mkpy_event_new(&evs[i], self, other);
		if (!e)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, i, e);
	}
	free(evs);
	return list;
}

static PyObject *table_iter(PyObject *self)
{
	struct table_iter *it = PyObject_New(struct table_iter,
					     &table_iter_type);

	if (!it)
		return NULL;
	it->tb = (struct mkpy_table *)Py_NewRef(self);
	it->pos = 0;
	return (PyObject *)it;
}

static PyObject *table_repr(PyObject *self)
{
	return PyUnicode_FromFormat("<mntkit.Table of %zu mounts>",
				    TB(self)->n);
}

static PyMethodDef table_methods[] = {
	{"parent", table_parent, METH_O,
	 "parent(mount)\n--\n\n"
	 "The parent of mount (a Mount or an ID) in the tree, or None for a "
	 "root. KeyError when the table has no such mount."},
	{"children", table_children, METH_O,
	 "children(mount)\n--\n\n"
	 "The children of mount (a Mount or an ID), by ascending ID: a list."},
	{"roots", table_roots, METH_NOARGS,
	 "roots()\n--\n\n"
	 "The roots of the tree: the caller's root mount, then any mount the "
	 "snapshot could not place below it. A list."},
	{"find_target", table_find_target, METH_O,
	 "find_target(path)\n--\n\n"
	 "The mount whose mount point is path (the visible one of a stack), "
	 "or None. In the caller's namespace a path that matches no mount "
	 "point as given is tried in its canonical form (never resolved "
	 "through a FUSE or network filesystem)."},
	{"find_source", table_find_source, METH_O,
	 "find_source(spec)\n--\n\n"
	 "The last mount whose source is spec (a path, 'tmpfs', "
	 "'server:/export', or LABEL=, UUID=, PARTLABEL=, PARTUUID=), or "
	 "None."},
	{"under", MKPY_METH(table_under), METH_VARARGS | METH_KEYWORDS,
	 "under(path, children_first=False)\n--\n\n"
	 "Every mount whose mount point is path or below it, every mount "
	 "stacked on path included, as mntkit_list_under(3) lists them but "
	 "from this snapshot: parents first (tree order), or with "
	 "children_first=True in an order in which each can be unmounted. "
	 "path is made canonical in the caller's namespace (never through a "
	 "served filesystem), taken lexically for another's."},
	{"diff", table_diff, METH_O,
	 "diff(other)\n--\n\n"
	 "The events that turn this snapshot into other (a later Table of "
	 "the same namespace): a list of Event, by ascending ID."},
	{NULL, NULL, 0, NULL},
};

static PySequenceMethods table_as_sequence = {
	.sq_contains = table_contains,
};

static PyMappingMethods table_as_mapping = {
	.mp_length = table_len,
	.mp_subscript = table_getitem,
};

PyTypeObject mkpy_table_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "mntkit.Table",
	.tp_basicsize = sizeof(struct mkpy_table),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Table(ns=None, *, cheap_ids=False)\n--\n\n"
		  "A snapshot of the mounts of a namespace (ns: None for the "
		  "caller's, a PID, a Namespace or an open namespace file), "
		  "with every statmount group. cheap_ids=True: on the "
		  "mountinfo emulation every mount is named by its old ID "
		  "(id == old_id, parent_id == old_parent_id) and no mount "
		  "point is looked at to learn unique IDs; the native backend "
		  "gives unique IDs either way. Such an ID is reused: do not "
		  "keep it.\n\n"
		  "len(table), iteration in tree order (depth-first, a parent "
		  "before its children, siblings by ascending ID), table[id], "
		  "id in table. Immutable: safe to share between threads.",
	.tp_new = table_new,
	.tp_dealloc = table_dealloc,
	.tp_repr = table_repr,
	.tp_iter = table_iter,
	.tp_methods = table_methods,
	.tp_as_sequence = &table_as_sequence,
	.tp_as_mapping = &table_as_mapping,
};

static void table_iter_dealloc(PyObject *self)
{
	Py_DECREF(((struct table_iter *)self)->tb);
	PyObject_Free(self);
}

static PyObject *table_iter_next(PyObject *self)
{
	struct table_iter *it = (struct table_iter *)self;

	if (it->pos >= it->tb->n)
		return NULL;
	return table_mount(it->tb, it->tb->order[it->pos++]);
}

static PyTypeObject table_iter_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "mntkit._TableIterator",
	.tp_basicsize = sizeof(struct table_iter),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = table_iter_dealloc,
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = table_iter_next,
};

int mkpy_table_ready(void)
{
	if (PyType_Ready(&table_iter_type) < 0)
		return -1;
	return PyType_Ready(&mkpy_table_type);
}
