// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mount namespaces: the ns= argument every query takes, the Namespace
 * type, namespaces().
 */
#include "mntkit-py.h"

#include <limits.h>
#include <stdlib.h>
#include <structmember.h>

struct mkpy_namespace {
	PyObject_HEAD
	uint64_t id;
	pid_t pid; /* 0: none known */
};

int mkpy_ns_opts(PyObject *ns, struct mntkit_opts *o,
		 const struct mntkit_opts **use)
{
	long pid;
	int fd;

	*use = NULL;
	if (!ns || ns == Py_None)
		return 0;
	if (PyBool_Check(ns)) {
		PyErr_SetString(PyExc_TypeError,
				"ns: a PID, a mntkit.Namespace or an open "
				"namespace file, not a bool");
		return -1;
	}
	if (PyLong_Check(ns)) {
		pid = PyLong_AsLong(ns);
		if (pid == -1 && PyErr_Occurred())
			PyErr_Clear();
		if (pid <= 0 || pid > INT_MAX) {
			PyErr_SetString(PyExc_ValueError,
					"ns: a PID is a positive int");
			return -1;
		}
		o->pid = (pid_t)pid;
	} else if (PyObject_TypeCheck(ns, &mkpy_namespace_type)) {
		o->mnt_ns_id = ((struct mkpy_namespace *)ns)->id;
	} else if (PyObject_HasAttrString(ns, "fileno")) {
		fd = PyObject_AsFileDescriptor(ns);
		if (fd < 0)
			return -1;
		if (fd == 0) {
			PyErr_SetString(PyExc_ValueError,
					"ns: fd 0 cannot name a namespace");
			return -1;
		}
		o->mnt_ns_fd = fd;
	} else {
		PyErr_Format(PyExc_TypeError,
			     "ns: None, a PID, a mntkit.Namespace or an open "
			     "namespace file, not %.100s",
			     Py_TYPE(ns)->tp_name);
		return -1;
	}
	*use = o;
	return 0;
}

void mkpy_cheap_ids(int on, struct mntkit_opts *o,
		    const struct mntkit_opts **use)
{
	if (!on)
		return;
	o->flags |= MNTKIT_OPTS_F_CHEAP_IDS;
	*use = o;
}

static uint64_t id_of(PyObject *self)
{
	return ((struct mkpy_namespace *)self)->id;
}

static PyObject *namespace_make(PyTypeObject *type, uint64_t id, pid_t pid)
{
	struct mkpy_namespace *n;

	n = (struct mkpy_namespace *)type->tp_alloc(type, 0);
	if (!n)
		return NULL;
	n->id = id;
	n->pid = pid;
	return (PyObject *)n;
}

static PyObject *namespace_new(PyTypeObject *type, PyObject *args,
			       PyObject *kwargs)
{
	static char *kwlist[] = {"id", NULL};
	PyObject *arg;
	uint64_t id;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:Namespace", kwlist,
					 &arg) ||
	    mkpy_u64_arg(arg, "Namespace: the ID", 1, UINT64_MAX - 1, &id) < 0)
		return NULL;
	return namespace_make(type, id, 0);
}

static PyObject *namespace_pid(PyObject *self, void *closure)
{
	struct mkpy_namespace *n = (struct mkpy_namespace *)self;

	(void)closure;
	if (!n->pid)
		Py_RETURN_NONE;
	return PyLong_FromLong(n->pid);
}

static PyObject *namespace_repr(PyObject *self)
{
	struct mkpy_namespace *n = (struct mkpy_namespace *)self;

	if (!n->pid)
		return PyUnicode_FromFormat("mntkit.Namespace(id=%llu)",
					    (unsigned long long)n->id);
	return PyUnicode_FromFormat("mntkit.Namespace(id=%llu, pid=%d)",
				    (unsigned long long)n->id, (int)n->pid);
}

static Py_hash_t namespace_hash(PyObject *self)
{
	return mkpy_id_hash(id_of(self));
}

static PyObject *namespace_richcompare(PyObject *a, PyObject *b, int op)
{
	return mkpy_id_compare(a, b, op, id_of);
}

static PyMemberDef namespace_members[] = {
	{"id", T_ULONGLONG, offsetof(struct mkpy_namespace, id), READONLY,
	 "The namespace's 64-bit ID (ioctl NS_GET_MNTNS_ID, Linux 6.10+)."},
	{NULL, 0, 0, 0, NULL},
};

static PyGetSetDef namespace_getset[] = {
	{"pid", namespace_pid, NULL,
	 "The lowest process in the namespace when it was listed, or None "
	 "(a namespace kept alive by an fd or a bind mount, or one made "
	 "with Namespace(id)).",
	 NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject mkpy_namespace_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "mntkit.Namespace",
	.tp_basicsize = sizeof(struct mkpy_namespace),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Namespace(id)\n--\n\n"
		  "A mount namespace by its ID, as namespaces() lists them; "
		  "pass one as ns= to name the namespace by ID. Immutable, "
		  "equal and hashable by ID.",
	.tp_new = namespace_new,
	.tp_repr = namespace_repr,
	.tp_hash = namespace_hash,
	.tp_richcompare = namespace_richcompare,
	.tp_members = namespace_members,
	.tp_getset = namespace_getset,
};

PyObject *mkpy_namespaces(PyObject *self, PyObject *unused)
{
	uint64_t *ids = NULL;
	pid_t *pids = NULL;
	PyObject *list, *ns;
	ssize_t n;

	(void)self;
	(void)unused;
	MKPY_CALL(n = mntkit_ns_list_pids(&ids, &pids));
	if (n < 0)
		return mkpy_raise((int)n, NULL);
	list = PyList_New(n);
	for (ssize_t i = 0; list && i < n; i++) {
		ns = namespace_make(&mkpy_namespace_type, ids[i], pids[i]);
		if (!ns)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, i, ns);
	}
	free(ids);
	free(pids);
	return list;
}
