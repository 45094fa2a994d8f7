// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LiveTable: the mount table of a namespace kept current by a watch's
 * events (struct mntkit_live). process() applies what is pending and
 * returns it as Events, events() does it on an asyncio loop one event at
 * a time (aio.c), the lookups read the state, snapshot() gives it as an
 * immutable Table.
 *
 * A struct mntkit_live is used by one thread at a time (the writer). A
 * LiveTable marks itself busy while a call runs with the GIL released: a
 * call from another thread meanwhile raises RuntimeError. close() works
 * from any thread: during a call it ends the live table when the call
 * returns; while an async iteration waits on a loop it wakes it through
 * the loop, which ends it. Its snapshots are Tables: immutable, shared
 * freely.
 */
#include "mntkit-py.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* the events one mntkit_live_process() call gives at most */
#define LIVE_BATCH 64

struct mkpy_live {
	PyObject_HEAD
	struct mntkit_live *l; /* NULL once closed */
	int fd;
	int all_ns;  /* of every namespace: no lookups, snapshot(ns_id) */
	int lexical; /* another namespace: paths are taken lexically */
	int busy;    /* a call runs with the GIL released */
	int closing; /* close() came meanwhile: end it after */
	struct mkpy_aio aio; /* an async iteration waiting on a loop */
};

static inline struct mkpy_live *L(PyObject *o)
{
	return (struct mkpy_live *)o;
}

static void live_end(struct mkpy_live *lv)
{
	mntkit_live_free(lv->l);
	lv->l = NULL;
	lv->fd = -1;
	lv->closing = 0;
}

static PyObject *live_new(PyTypeObject *type, PyObject *args,
			  PyObject *kwargs)
{
	MNTKIT_WATCH_OPTS(wo);
	const struct mntkit_opts *use;
	struct mntkit_live *l = NULL;
	struct mkpy_live *lv;
	MNTKIT_OPTS(o);
	int r;

	if (mkpy_watch_args(args, kwargs, "LiveTable", &wo, &o, &use) < 0)
		return NULL;
	wo.mask = MKPY_MASK;
	MKPY_CALL(r = mntkit_live_new(&wo, use, &l));
	if (r < 0)
		return mkpy_raise(r, NULL);
	lv = (struct mkpy_live *)type->tp_alloc(type, 0);
	if (!lv) {
		mntkit_live_free(l);
		return NULL;
	}
	lv->l = l;
	lv->fd = mntkit_live_fd(l);
	lv->all_ns = (wo.flags & MNTKIT_WATCH_F_ALL_NS) != 0;
	lv->lexical = use != NULL;
	return (PyObject *)lv;
}

static void live_dealloc(PyObject *self)
{
	live_end(L(self));
	Py_TYPE(self)->tp_free(self);
}

static int is_open(struct mkpy_live *lv)
{
	return lv->l && !lv->closing;
}

/*
 * Claim the live table for a call (@lookup: one on the state of one
 * namespace): 0, or -1 with ValueError (closed; a lookup on an
 * all-namespace one) or RuntimeError (another thread's call runs).
 */
static int live_enter(struct mkpy_live *lv, int lookup)
{
	if (!is_open(lv)) {
		PyErr_SetString(PyExc_ValueError, "the LiveTable is closed");
		return -1;
	}
	if (lv->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the LiveTable is in use by another thread");
		return -1;
	}
	if (lookup && lv->all_ns) {
		PyErr_SetString(PyExc_ValueError,
				"an all-namespace LiveTable has no lookups: "
				"take snapshot(ns_id)");
		return -1;
	}
	lv->busy = 1;
	return 0;
}

static void live_leave(struct mkpy_live *lv)
{
	lv->busy = 0;
	if (lv->closing && !lv->aio.waiting)
		live_end(lv);
}

/* append the Events of @evs[0..@n) (copies of the records) to @list */
static int append_events(PyObject *list, const struct mntkit_event *evs,
			 ssize_t n)
{
	PyObject *e;

	for (ssize_t i = 0; i < n; i++) {
		e = mkpy_event_new(&evs[i], NULL, NULL);
		if (!e || PyList_Append(list, e) < 0) {
			Py_XDECREF(e);
			return -1;
		}
		Py_DECREF(e);
	}
	return 0;
}

static PyObject *live_process(PyObject *self, PyObject *unused)
{
	struct mkpy_live *lv = L(self);
	struct mntkit_event *evs;
	PyObject *list;
	ssize_t n;

	(void)unused;
	if (live_enter(lv, 0) < 0)
		return NULL;
	list = PyList_New(0);
	evs = calloc(LIVE_BATCH, sizeof(*evs));
	if (!list || !evs) {
		if (list && !evs)
			PyErr_NoMemory();
		Py_CLEAR(list);
		goto out;
	}
	evs[0].size = sizeof(*evs);
	do {
		/* the records live until the next call: copied before it */
		MKPY_CALL(n = mntkit_live_process(lv->l, evs, LIVE_BATCH));
		if (n < 0 && PyList_GET_SIZE(list)) {
			break; /* the events applied first: the error again
				* on the next call */
		} else if (n < 0) {
			mkpy_raise((int)n, NULL);
			Py_CLEAR(list);
		} else if (append_events(list, evs, n) < 0) {
			Py_CLEAR(list);
		}
	} while (list && n == LIVE_BATCH && !lv->closing);
out:
	free(evs);
	live_leave(lv);
	return list;
}

static PyObject *live_rescan(PyObject *self, PyObject *unused)
{
	struct mkpy_live *lv = L(self);
	int r;

	(void)unused;
	if (live_enter(lv, 0) < 0)
		return NULL;
	MKPY_CALL(r = mntkit_live_rescan(lv->l));
	live_leave(lv);
	if (r < 0)
		return mkpy_raise(r, NULL);
	Py_RETURN_NONE;
}

/* the snapshot of namespace @ns_id (0: the live table's one) */
static PyObject *take_snapshot(struct mkpy_live *lv, uint64_t ns_id)
{
	struct mntkit_table *t = NULL;
	int r;

	if (live_enter(lv, 0) < 0)
		return NULL;
	MKPY_CALL(r = ns_id ? mntkit_live_snapshot_ns(lv->l, ns_id, &t)
			    : mntkit_live_snapshot(lv->l, &t));
	live_leave(lv);
	if (r < 0)
		return mkpy_raise(r, NULL);
	return mkpy_table_wrap(t, lv->lexical);
}

static PyObject *live_snapshot(PyObject *self, PyObject *args,
			       PyObject *kwargs)
{
	static char *kwlist[] = {"ns_id", NULL};
	struct mkpy_live *lv = L(self);
	PyObject *arg = Py_None;
	uint64_t ns_id = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:snapshot", kwlist,
					 &arg))
		return NULL;
	if (arg != Py_None &&
	    mkpy_u64_arg(arg, "snapshot: ns_id", 1, UINT64_MAX, &ns_id) < 0)
		return NULL;
	if (lv->all_ns != (ns_id != 0)) {
		PyErr_SetString(PyExc_ValueError,
				lv->all_ns ? "snapshot: an all-namespace "
					     "LiveTable takes an ns_id"
					   : "snapshot: a LiveTable of one "
					     "namespace takes no ns_id");
		return NULL;
	}
	return take_snapshot(lv, ns_id);
}

/* the Mount (a copy) of @sm, or None for a NULL @sm with errno ENOENT */
static PyObject *mount_or_none(const struct mntkit_statmount *sm, int err,
			       PyObject *what)
{
	if (sm)
		return mkpy_mount_copy(sm);
	if (err == ENOENT)
		Py_RETURN_NONE;
	return mkpy_raise(err, what);
}

/*
 * The record of @key (a Mount or an ID) in the state of @lv, claimed
 * (live_leave() after): NULL with KeyError (no such mount) or another
 * error set.
 */
static const struct mntkit_statmount *lookup(struct mkpy_live *lv,
					     PyObject *key, uint64_t *id)
{
	const struct mntkit_statmount *sm;

	if (mkpy_mount_id(key, id) < 0 || live_enter(lv, 1) < 0)
		return NULL;
	sm = mntkit_live_get(lv->l, *id);
	if (!sm) {
		live_leave(lv);
		PyErr_SetObject(PyExc_KeyError, key);
	}
	return sm;
}

static PyObject *live_getitem(PyObject *self, PyObject *key)
{
	const struct mntkit_statmount *sm;
	PyObject *m;
	uint64_t id;

	sm = lookup(L(self), key, &id);
	if (!sm)
		return NULL;
	m = mkpy_mount_copy(sm);
	live_leave(L(self));
	return m;
}

static PyObject *live_get(PyObject *self, PyObject *args)
{
	PyObject *key, *dflt = Py_None, *m;

	if (!PyArg_ParseTuple(args, "O|O:get", &key, &dflt))
		return NULL;
	m = live_getitem(self, key);
	if (m || !PyErr_ExceptionMatches(PyExc_KeyError))
		return m;
	PyErr_Clear();
	return Py_NewRef(dflt);
}

static int live_contains(PyObject *self, PyObject *key)
{
	uint64_t id;
	int r;

	if (mkpy_mount_id(key, &id) < 0 || live_enter(L(self), 1) < 0)
		return -1;
	r = mntkit_live_get(L(self)->l, id) != NULL;
	live_leave(L(self));
	return r;
}

static PyObject *live_parent(PyObject *self, PyObject *arg)
{
	struct mkpy_live *lv = L(self);
	uint64_t id, pid;
	PyObject *m;
	int r;

	if (!lookup(lv, arg, &id))
		return NULL;
	r = mntkit_live_parent(lv->l, id, &pid);
	m = r < 0 ? mount_or_none(NULL, -r, NULL)
		  : mount_or_none(mntkit_live_get(lv->l, pid), errno, NULL);
	live_leave(lv);
	return m;
}

static PyObject *live_children(PyObject *self, PyObject *arg)
{
	struct mkpy_live *lv = L(self);
	uint64_t id, *ids = NULL;
	PyObject *list = NULL, *m;
	ssize_t n;

	if (!lookup(lv, arg, &id))
		return NULL;
	n = mntkit_live_children(lv->l, id, &ids);
	if (n < 0) {
		mkpy_raise((int)n, NULL);
		goto out;
	}
	list = PyList_New(0);
	for (ssize_t i = 0; list && i < n; i++) {
		m = mount_or_none(mntkit_live_get(lv->l, ids[i]), errno,
				  NULL);
		if (!m || PyList_Append(list, m) < 0)
			Py_CLEAR(list);
		Py_XDECREF(m);
	}
out:
	free(ids);
	live_leave(lv);
	return list;
}

/* a lookup by a path or a source: the Mount, or None */
static PyObject *live_find(PyObject *self, PyObject *arg,
			   const struct mntkit_statmount *(*find)(
				   struct mntkit_live *, const char *,
				   unsigned int))
{
	struct mkpy_live *lv = L(self);
	unsigned int flags = lv->lexical ? 0 : MNTKIT_LOOKUP_F_CANON;
	const struct mntkit_statmount *sm;
	PyObject *bytes, *m;
	int err;

	if (!PyUnicode_FSConverter(arg, &bytes))
		return NULL;
	if (live_enter(lv, 1) < 0) {
		Py_DECREF(bytes);
		return NULL;
	}
	MKPY_CALL({
		sm = find(lv->l, PyBytes_AS_STRING(bytes), flags);
		err = errno;
	});
	Py_DECREF(bytes);
	m = mount_or_none(sm, err, arg);
	live_leave(lv);
	return m;
}

static PyObject *live_find_target(PyObject *self, PyObject *arg)
{
	return live_find(self, arg, mntkit_live_find_target);
}

static PyObject *live_find_source(PyObject *self, PyObject *arg)
{
	return live_find(self, arg, mntkit_live_find_source);
}

/* the snapshot of a live table of one namespace (len(), iteration) */
static PyObject *own_snapshot(struct mkpy_live *lv)
{
	if (is_open(lv) && lv->all_ns) {
		PyErr_SetString(PyExc_ValueError,
				"an all-namespace LiveTable: take "
				"snapshot(ns_id)");
		return NULL;
	}
	return take_snapshot(lv, 0);
}

static Py_ssize_t live_len(PyObject *self)
{
	PyObject *t = own_snapshot(L(self));
	Py_ssize_t n;

	if (!t)
		return -1;
	n = PyObject_Length(t);
	Py_DECREF(t);
	return n;
}

static PyObject *live_iter(PyObject *self)
{
	PyObject *t = own_snapshot(L(self)), *it;

	if (!t)
		return NULL;
	it = PyObject_GetIter(t);
	Py_DECREF(t);
	return it;
}

static PyObject *live_fileno(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (!is_open(L(self))) {
		PyErr_SetString(PyExc_ValueError, "the LiveTable is closed");
		return NULL;
	}
	return PyLong_FromLong(L(self)->fd);
}

static PyObject *live_close(PyObject *self, PyObject *unused)
{
	struct mkpy_live *lv = L(self);

	(void)unused;
	if (!is_open(lv))
		Py_RETURN_NONE;
	if (!lv->busy && !lv->aio.waiting) {
		live_end(lv);
		Py_RETURN_NONE;
	}
	lv->closing = 1;
	if (mkpy_aio_wake(&lv->aio) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *live_enter_ctx(PyObject *self, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(self);
}

static PyObject *live_exit_ctx(PyObject *self, PyObject *args)
{
	PyObject *r;

	(void)args;
	r = live_close(self, NULL);
	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

/* ---- the asyncio form (aio.c): events() ---- */

static int aio_is_open(PyObject *self)
{
	return is_open(L(self));
}

static int aio_fd(PyObject *self)
{
	return L(self)->fd;
}

/* apply the next event pending, alone: its Event */
static int aio_next(PyObject *self, PyObject **out)
{
	struct mkpy_live *lv = L(self);
	MNTKIT_EVENT(ev);
	ssize_t n;

	if (live_enter(lv, 0) < 0)
		return -1;
	MKPY_CALL(n = mntkit_live_process(lv->l, &ev, 1));
	/* the records live until the next call: copied before it */
	if (n > 0)
		*out = mkpy_event_new(&ev, NULL, NULL);
	else if (n < 0)
		mkpy_raise((int)n, NULL);
	live_leave(lv);
	if (n <= 0)
		return n < 0 ? -1 : 0;
	return *out ? 1 : -1;
}

static void aio_release(PyObject *self)
{
	struct mkpy_live *lv = L(self);

	if (lv->closing && !lv->busy && !lv->aio.waiting)
		live_end(lv);
}

static const struct mkpy_aio_ops live_aio = {
	.what = "LiveTable",
	.offset = offsetof(struct mkpy_live, aio),
	.is_open = aio_is_open,
	.fd = aio_fd,
	.next = aio_next,
	.release = aio_release,
};

static PyObject *live_events(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (!is_open(L(self))) {
		PyErr_SetString(PyExc_ValueError, "the LiveTable is closed");
		return NULL;
	}
	return mkpy_aio_iter(self, &live_aio);
}

static PyObject *live_closed(PyObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!is_open(L(self)));
}

static PyObject *live_repr(PyObject *self)
{
	if (!is_open(L(self)))
		return PyUnicode_FromString("<mntkit.LiveTable closed>");
	return PyUnicode_FromFormat("<mntkit.LiveTable fd=%d%s>", L(self)->fd,
				    L(self)->all_ns ? " all_namespaces" : "");
}

static PyMethodDef live_methods[] = {
	{"process", live_process, METH_NOARGS,
	 "process()\n--\n\n"
	 "Apply the events pending, without waiting, and return them: a list "
	 "of Event (empty when none is pending), as a watch reads them; a "
	 "'resync' event is applied inside (the events after it bring the "
	 "state to the kernel's table) and returned too. Call it when "
	 "fileno() polls readable."},
	{"snapshot", MKPY_METH(live_snapshot), METH_VARARGS | METH_KEYWORDS,
	 "snapshot(ns_id=None)\n--\n\n"
	 "The state now as a Table, made without a system call and without "
	 "copying a mount; it stays as it is while the LiveTable changes "
	 "and may be shared between threads. An all-namespace LiveTable "
	 "takes the ID of a namespace (that of its events): "
	 "FileNotFoundError (a mntkit.Error) when it has no such "
	 "namespace."},
	{"get", live_get, METH_VARARGS,
	 "get(mount, default=None)\n--\n\n"
	 "The Mount of mount (a Mount or an ID) in the state now, or "
	 "default. live[mount] raises KeyError instead."},
	{"parent", live_parent, METH_O,
	 "parent(mount)\n--\n\n"
	 "The parent of mount (a Mount or an ID), or None for a root. "
	 "KeyError when the state has no such mount."},
	{"children", live_children, METH_O,
	 "children(mount)\n--\n\n"
	 "The children of mount (a Mount or an ID), by ascending ID: a "
	 "list. KeyError when the state has no such mount."},
	{"find_target", live_find_target, METH_O,
	 "find_target(path)\n--\n\n"
	 "The mount whose mount point is path, as Table.find_target() finds "
	 "it, or None."},
	{"find_source", live_find_source, METH_O,
	 "find_source(spec)\n--\n\n"
	 "The last mount whose source is spec, as Table.find_source() finds "
	 "it, or None."},
	{"events", live_events, METH_NOARGS,
	 "events()\n--\n\n"
	 "An async iterator of the events, on the running asyncio loop: "
	 "async for ev in live.events(). Each step applies the next pending "
	 "event alone and yields it, so that the state is the one after it "
	 "(and before the next) while the loop body runs; with none pending "
	 "it waits on the loop (add_reader() of fileno()) without blocking "
	 "it. close() ends the iteration, cancelling its task removes the "
	 "reader; one iteration waits at a time (RuntimeError). An event "
	 "that cannot be applied (mntkit.Error ENOMEM) is kept and applied "
	 "first by the next step or process()."},
	{"rescan", live_rescan, METH_NOARGS,
	 "rescan()\n--\n\n"
	 "Compare the state with a fresh table now and queue the events of "
	 "the differences (changes the kernel does not signal, such as "
	 "propagation): the next process() applies them."},
	{"fileno", live_fileno, METH_NOARGS,
	 "fileno()\n--\n\n"
	 "An fd that polls readable when the table may have changed, for "
	 "selectors and event loops (loop.add_reader(); or events()); then "
	 "call process() (a wakeup may bring no event). The LiveTable's "
	 "own: do not close it."},
	{"close", live_close, METH_NOARGS,
	 "close()\n--\n\n"
	 "End the live table; its snapshots stay valid. From any thread; "
	 "an async iteration of events() stops. Closing a closed LiveTable "
	 "does nothing."},
	{"__enter__", live_enter_ctx, METH_NOARGS, NULL},
	{"__exit__", live_exit_ctx, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef live_getset[] = {
	{"closed", live_closed, NULL, "True once close() was called.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods live_as_sequence = {
	.sq_contains = live_contains,
};

static PyMappingMethods live_as_mapping = {
	.mp_length = live_len,
	.mp_subscript = live_getitem,
};

PyTypeObject mkpy_live_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "mntkit.LiveTable",
	.tp_basicsize = sizeof(struct mkpy_live),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc =
		"LiveTable(ns=None, *, all_namespaces=False, initial=False, "
		"cheap_ids=False)\n--\n\n"
		"The mount table of a namespace (ns as for mounts()), or of "
		"every namespace a process is in (all_namespaces=True), kept "
		"current by the events of a watch: each process() applies "
		"what is pending at the cost of what it changes, not of the "
		"table's size. It starts as the table now; with initial=True "
		"it starts empty and the first process() brings an attach "
		"event for every mount. An all-namespace LiveTable fills "
		"each namespace from its events. cheap_ids=True is refused "
		"(ValueError), as by watch().\n\n"
		"live[id], id in live, get(), parent(), children(), "
		"find_target(), find_source() read the state now (Mounts "
		"copied out of it); len(live) and iteration (tree order) are "
		"those of snapshot(). async for ev in live.events() applies "
		"and yields the events on an asyncio loop. A context "
		"manager; close() ends it.\n\n"
		"One thread at a time (the writer): a call while another "
		"thread's call runs raises RuntimeError; close() works from "
		"any thread. The Tables of snapshot() are immutable: share "
		"them with other threads.",
	.tp_new = live_new,
	.tp_dealloc = live_dealloc,
	.tp_repr = live_repr,
	.tp_iter = live_iter,
	.tp_methods = live_methods,
	.tp_getset = live_getset,
	.tp_as_sequence = &live_as_sequence,
	.tp_as_mapping = &live_as_mapping,
};
