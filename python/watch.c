// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Watch and Event: mount events as an iterator (blocking), by read()
 * (with a timeout), through fileno() for selectors, and as an async
 * iterator on an asyncio event loop (aio.c).
 *
 * A struct mntkit_watch is used by one thread at a time. A Watch makes
 * its calls with the GIL released and marks itself busy meanwhile: a call
 * from another thread then raises RuntimeError. close() is the exception:
 * from any thread, at any time. When a call is running (a next() blocked
 * in poll(), say) it wakes it through an eventfd and the call ends the
 * watch when it returns; when an async iteration waits on an event loop
 * it is woken through the loop (mkpy_aio_wake()) and ends it.
 */
#include "mntkit-py.h"
#include <structmember.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* ---- Event ---- */

struct mkpy_event {
	PyObject_HEAD
	PyObject *kind, *id, *mount, *old, *changed, *seq, *time;
	PyObject *monotonic, *resync_end, *ns_id, *ns_pid;
	char gone;
};

static PyObject *u64_or_none(uint64_t v)
{
	if (!v)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(v);
}

static PyObject *seconds_or_none(uint64_t ns, uint64_t seq)
{
	if (!seq)
		Py_RETURN_NONE;
	return PyFloat_FromDouble((double)ns / 1e9);
}

/* the names of the MNTKIT_CHANGED_* bits of @changed, as a frozenset */
static PyObject *changed_set(uint32_t changed)
{
	char buf[256], *p, *comma;
	PyObject *set, *s;

	set = PyFrozenSet_New(NULL);
	if (!set || !changed ||
	    mntkit_changed_str(changed, 0, buf, sizeof(buf)) < 0)
		return set;
	for (p = buf; *p; p = comma) {
		comma = strchrnul(p, ',');
		s = PyUnicode_FromStringAndSize(p, comma - p);
		if (!s || PySet_Add(set, s) < 0) {
			Py_XDECREF(s);
			Py_DECREF(set);
			return NULL;
		}
		Py_DECREF(s);
		if (*comma)
			comma++;
	}
	return set;
}

/* the Mount of a record: borrowed from @owner, or a copy */
static PyObject *record(const struct mntkit_statmount *sm, PyObject *owner)
{
	if (!sm)
		return NULL;
	return owner ? mkpy_mount_borrow(sm, owner) : mkpy_mount_copy(sm);
}

PyObject *mkpy_event_new(const struct mntkit_event *ev,
			 PyObject *before_owner, PyObject *after_owner)
{
	const char *kind = mntkit_event_kind_name(ev->kind);
	struct mkpy_event *e;
	PyObject *before, *after;

	e = PyObject_New(struct mkpy_event, &mkpy_event_type);
	if (!e)
		return NULL;
	before = record(ev->before, before_owner);
	after = record(ev->after, after_owner);
	e->kind = PyUnicode_InternFromString(kind ? kind : "unknown");
	e->id = u64_or_none(ev->mnt_id);
	e->mount = after ? after : before ? Py_NewRef(before) : NULL;
	e->old = after ? before : NULL;
	if (!after)
		Py_XDECREF(before);
	e->changed = changed_set(ev->changed);
	e->seq = u64_or_none(ev->seq);
	e->time = seconds_or_none(ev->realtime_ns, ev->seq);
	e->monotonic = seconds_or_none(ev->monotonic_ns, ev->seq);
	e->resync_end = ev->kind == MNTKIT_EVENT_RESYNC
				? PyLong_FromUnsignedLongLong(ev->resync_end)
				: Py_NewRef(Py_None);
	e->ns_id = u64_or_none(ev->mnt_ns_id);
	e->ns_pid = u64_or_none((uint64_t)ev->ns_pid);
	e->gone = (ev->flags & MNTKIT_EVENT_F_GONE) != 0;
	if (!e->kind || !e->id || (ev->before && !before) ||
	    (ev->after && !after) || !e->changed || !e->seq || !e->time ||
	    !e->monotonic || !e->resync_end || !e->ns_id || !e->ns_pid) {
		Py_DECREF(e);
		return NULL;
	}
	return (PyObject *)e;
}

static void event_dealloc(PyObject *self)
{
	struct mkpy_event *e = (struct mkpy_event *)self;

	Py_XDECREF(e->kind);
	Py_XDECREF(e->id);
	Py_XDECREF(e->mount);
	Py_XDECREF(e->old);
	Py_XDECREF(e->changed);
	Py_XDECREF(e->seq);
	Py_XDECREF(e->time);
	Py_XDECREF(e->monotonic);
	Py_XDECREF(e->resync_end);
	Py_XDECREF(e->ns_id);
	Py_XDECREF(e->ns_pid);
	PyObject_Free(self);
}

static PyObject *event_repr(PyObject *self)
{
	struct mkpy_event *e = (struct mkpy_event *)self;
	PyObject *point = NULL, *r;

	if (e->mount) {
		point = PyObject_GetAttrString(e->mount, "mount_point");
		if (!point)
			return NULL;
	}
	r = PyUnicode_FromFormat("<mntkit.Event %U id=%R mount_point=%R "
				 "seq=%R>",
				 e->kind, e->id, point ? point : Py_None,
				 e->seq);
	Py_XDECREF(point);
	return r;
}

#define EV_MEMBER(name, doc)                                                   \
	{#name, T_OBJECT, offsetof(struct mkpy_event, name), READONLY, doc}

static PyMemberDef event_members[] = {
	EV_MEMBER(kind, "'attach', 'detach', 'move', 'change', 'resync', "
			"'ns-add' or 'ns-gone'."),
	EV_MEMBER(id, "The mount's ID, or None (resync, ns-add, ns-gone)."),
	EV_MEMBER(mount, "The Mount after the event (attach, move, change), "
			 "or the last one seen (detach); None for the kinds "
			 "without a mount."),
	EV_MEMBER(old, "The Mount before a move or a change, else None."),
	EV_MEMBER(changed,
		  "What a move or a change changed: a frozenset of 'parent', "
		  "'mnt_point', 'attr', 'propagation', 'sb_flags', 'options', "
		  "'source', 'idmap', 'other'."),
	EV_MEMBER(seq, "1, 2, 3, ... in the order of a watch's events, no "
		       "gaps; None for a diff's."),
	EV_MEMBER(time, "When the watch learned of it (time.time()'s clock), "
			"or None for a diff's."),
	EV_MEMBER(monotonic, "The same moment on time.monotonic()'s clock, or "
			     "None."),
	EV_MEMBER(resync_end,
		  "resync: the seq of its last event (events may have been "
		  "lost; those up to it bring the view up to date); else "
		  "None."),
	EV_MEMBER(ns_id, "An all-namespace watch's event: its namespace's "
			 "ID; else None."),
	EV_MEMBER(ns_pid, "An all-namespace watch's event: the lowest "
			  "process of its namespace; else None."),
	{"gone", T_BOOL, offsetof(struct mkpy_event, gone), READONLY,
	 "The kernel reported the mount, but it was gone before it could be "
	 "read: its Mount holds only its id."},
	{NULL, 0, 0, 0, NULL},
};

PyTypeObject mkpy_event_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "mntkit.Event",
	.tp_basicsize = sizeof(struct mkpy_event),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "What happened to a mount: an event of a watch, of "
		  "LiveTable.process() or of Table.diff(). Immutable.",
	.tp_dealloc = event_dealloc,
	.tp_repr = event_repr,
	.tp_members = event_members,
};

/* ---- Watch ---- */

struct mkpy_watch {
	PyObject_HEAD
	struct mntkit_watch *w; /* NULL once closed */
	int fd;                 /* the watch's */
	int wake;               /* an eventfd: close() wakes a waiting call */
	int busy;               /* a call runs with the GIL released */
	int closing;            /* close() came meanwhile: end it after */
	struct mkpy_aio aio;    /* an async iteration waiting on a loop */
};

static inline struct mkpy_watch *W(PyObject *o)
{
	return (struct mkpy_watch *)o;
}

static void watch_end(struct mkpy_watch *wt)
{
	mntkit_watch_free(wt->w);
	wt->w = NULL;
	if (wt->wake >= 0)
		close(wt->wake);
	wt->wake = -1;
	wt->fd = -1;
	wt->closing = 0;
}

int mkpy_watch_args(PyObject *args, PyObject *kwargs, const char *name,
		    struct mntkit_watch_opts *wo, struct mntkit_opts *o,
		    const struct mntkit_opts **use)
{
	static char *kwlist[] = {"ns", "all_namespaces", "initial",
				 "cheap_ids", NULL};
	int all_ns = 0, initial = 0, cheap = 0;
	PyObject *ns = Py_None;
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "|O$ppp:%s", name);
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kwlist, &ns,
					 &all_ns, &initial, &cheap) ||
	    mkpy_ns_opts(ns, o, use) < 0)
		return -1;
	if (cheap) {
		PyErr_Format(PyExc_ValueError,
			     "%s: cheap_ids=True is not for a watch: it "
			     "compares the IDs of many loads", name);
		return -1;
	}
	if (all_ns && *use) {
		PyErr_Format(PyExc_ValueError,
			     "%s: all_namespaces=True takes no ns", name);
		return -1;
	}
	wo->flags = (all_ns ? MNTKIT_WATCH_F_ALL_NS : 0) |
		    (initial ? MNTKIT_WATCH_F_INITIAL : 0);
	return 0;
}

static PyObject *watch_new(PyTypeObject *type, PyObject *args,
			   PyObject *kwargs)
{
	MNTKIT_WATCH_OPTS(wo);
	const struct mntkit_opts *use;
	struct mntkit_watch *w = NULL;
	struct mkpy_watch *wt;
	MNTKIT_OPTS(o);
	int r;

	if (mkpy_watch_args(args, kwargs, "watch", &wo, &o, &use) < 0)
		return NULL;
	wt = (struct mkpy_watch *)type->tp_alloc(type, 0);
	if (!wt)
		return NULL;
	wt->fd = wt->wake = -1;
	MKPY_CALL(r = mntkit_watch_new(&wo, use, &w));
	if (r < 0) {
		Py_DECREF(wt);
		return mkpy_raise(r, NULL);
	}
	wt->w = w;
	wt->fd = mntkit_watch_fd(w);
	wt->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wt->wake < 0) {
		Py_DECREF(wt);
		return PyErr_SetFromErrno(PyExc_OSError);
	}
	return (PyObject *)wt;
}

PyObject *mkpy_watch_func(PyObject *self, PyObject *args, PyObject *kwargs)
{
	(void)self;
	return watch_new(&mkpy_watch_type, args, kwargs);
}

static void watch_dealloc(PyObject *self)
{
	watch_end(W(self));
	Py_TYPE(self)->tp_free(self);
}

/* claim the watch for a call: 0, or -1 with the error set */
static int watch_enter(struct mkpy_watch *wt)
{
	if (wt->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the Watch is in use by another thread");
		return -1;
	}
	wt->busy = 1;
	return 0;
}

static void watch_leave(struct mkpy_watch *wt)
{
	wt->busy = 0;
	if (wt->closing && !wt->aio.waiting)
		watch_end(wt);
}

static int is_open(struct mkpy_watch *wt)
{
	return wt->w && !wt->closing;
}

static int check_open(struct mkpy_watch *wt)
{
	if (is_open(wt))
		return 0;
	PyErr_SetString(PyExc_ValueError, "the Watch is closed");
	return -1;
}

/* the next event now: 1 and *@out, 0 when none, -1 with the error set */
static int read_one(struct mkpy_watch *wt, PyObject **out)
{
	MNTKIT_EVENT(ev);
	int r;

	MKPY_CALL(r = mntkit_watch_read(wt->w, &ev));
	if (r < 0) {
		mkpy_raise(r, NULL);
		return -1;
	}
	if (r == 0)
		return 0;
	/* the records live until the next read: copied now */
	*out = mkpy_event_new(&ev, NULL, NULL);
	return *out ? 1 : -1;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Wait until the watch's fd polls readable, close() wakes it, or @deadline
 * (now_ms(); -1: none) passes. 1, 0 at the deadline, -1 with the error
 * set (a signal's exception).
 */
static int wait_ready(struct mkpy_watch *wt, int64_t deadline)
{
	struct pollfd p[2] = {
		{.fd = wt->fd, .events = POLLIN},
		{.fd = wt->wake, .events = POLLIN},
	};
	int64_t left;
	int r, err;

	for (;;) {
		left = deadline < 0 ? -1 : deadline - now_ms();
		if (deadline >= 0 && left < 0)
			left = 0;
		if (left > INT32_MAX)
			left = INT32_MAX;
		Py_BEGIN_ALLOW_THREADS
		r = poll(p, 2, (int)left);
		err = errno;
		Py_END_ALLOW_THREADS
		if (r >= 0)
			return r > 0;
		if (err != EINTR) {
			errno = err;
			PyErr_SetFromErrno(PyExc_OSError);
			return -1;
		}
		if (PyErr_CheckSignals() < 0)
			return -1;
	}
}

/*
 * The next event, waiting up to @timeout_ms (-1: for ever): 1 and *@out,
 * 0 when none came or the watch was closed meanwhile, -1 with the error
 * set.
 */
static int next_event(struct mkpy_watch *wt, int64_t timeout_ms,
		      PyObject **out)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	int r;

	if (watch_enter(wt) < 0)
		return -1;
	for (;;) {
		r = is_open(wt) ? read_one(wt, out) : 0;
		if (r || !is_open(wt) || !timeout_ms)
			break;
		r = wait_ready(wt, deadline);
		if (r <= 0)
			break;
	}
	watch_leave(wt);
	return r;
}

static PyObject *watch_next(PyObject *self)
{
	PyObject *ev = NULL;

	if (!is_open(W(self)))
		return NULL; /* the end of the iteration */
	return next_event(W(self), -1, &ev) > 0 ? ev : NULL;
}

static PyObject *watch_read(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"timeout", NULL};
	PyObject *timeout = NULL, *ev = NULL;
	double secs = 0;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:read", kwlist,
					 &timeout) ||
	    check_open(W(self)) < 0)
		return NULL;
	if (timeout && timeout != Py_None) {
		secs = PyFloat_AsDouble(timeout);
		if (secs == -1.0 && PyErr_Occurred())
			return NULL;
		if (!(secs >= 0) || secs > 1e9) {
			PyErr_SetString(PyExc_ValueError,
					"read: timeout is None or seconds "
					">= 0");
			return NULL;
		}
	}
	r = next_event(W(self), timeout == Py_None ? -1 : (int64_t)(secs * 1e3),
		       &ev);
	if (r < 0)
		return NULL;
	if (!r)
		Py_RETURN_NONE;
	return ev;
}

static PyObject *watch_close(PyObject *self, PyObject *unused)
{
	struct mkpy_watch *wt = W(self);
	uint64_t one = 1;

	(void)unused;
	if (!is_open(wt))
		Py_RETURN_NONE;
	if (!wt->busy && !wt->aio.waiting) {
		watch_end(wt);
		Py_RETURN_NONE;
	}
	wt->closing = 1;
	if (wt->busy && write(wt->wake, &one, sizeof(one)) < 0 &&
	    errno != EAGAIN)
		return PyErr_SetFromErrno(PyExc_OSError);
	if (mkpy_aio_wake(&wt->aio) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *watch_fileno(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (check_open(W(self)) < 0)
		return NULL;
	return PyLong_FromLong(W(self)->fd);
}

static PyObject *watch_rescan(PyObject *self, PyObject *unused)
{
	struct mkpy_watch *wt = W(self);
	int r;

	(void)unused;
	if (check_open(wt) < 0 || watch_enter(wt) < 0)
		return NULL;
	MKPY_CALL(r = mntkit_watch_rescan(wt->w));
	watch_leave(wt);
	if (r < 0)
		return mkpy_raise(r, NULL);
	Py_RETURN_NONE;
}

static PyObject *watch_enter_ctx(PyObject *self, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(self);
}

static PyObject *watch_exit_ctx(PyObject *self, PyObject *args)
{
	PyObject *r;

	(void)args;
	r = watch_close(self, NULL);
	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

static PyObject *watch_source(PyObject *self, void *closure)
{
	const char *name;

	(void)closure;
	if (check_open(W(self)) < 0)
		return NULL;
	name = mntkit_watch_source_name(mntkit_watch_get_source(W(self)->w));
	return PyUnicode_FromString(name ? name : "unknown");
}

static PyObject *watch_skipped(PyObject *self, void *closure)
{
	(void)closure;
	if (check_open(W(self)) < 0)
		return NULL;
	return PyLong_FromSsize_t(mntkit_watch_ns_skipped(W(self)->w));
}

static PyObject *watch_closed(PyObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!is_open(W(self)));
}

static PyObject *watch_repr(PyObject *self)
{
	const char *name;

	if (!is_open(W(self)))
		return PyUnicode_FromString("<mntkit.Watch closed>");
	name = mntkit_watch_source_name(mntkit_watch_get_source(W(self)->w));
	return PyUnicode_FromFormat("<mntkit.Watch fd=%d source=%s>",
				    W(self)->fd, name ? name : "unknown");
}

/* ---- the asyncio form (aio.c) ---- */

static int aio_is_open(PyObject *self)
{
	return is_open(W(self));
}

static int aio_fd(PyObject *self)
{
	return W(self)->fd;
}

static int aio_next(PyObject *self, PyObject **out)
{
	int r;

	if (watch_enter(W(self)) < 0)
		return -1;
	r = read_one(W(self), out);
	watch_leave(W(self));
	return r;
}

static void aio_release(PyObject *self)
{
	struct mkpy_watch *wt = W(self);

	if (wt->closing && !wt->busy && !wt->aio.waiting)
		watch_end(wt);
}

static const struct mkpy_aio_ops watch_aio = {
	.what = "Watch",
	.offset = offsetof(struct mkpy_watch, aio),
	.is_open = aio_is_open,
	.fd = aio_fd,
	.next = aio_next,
	.release = aio_release,
};

static PyObject *watch_anext(PyObject *self)
{
	return mkpy_aio_anext(self, &watch_aio);
}

static PyMethodDef watch_methods[] = {
	{"read", MKPY_METH(watch_read), METH_VARARGS | METH_KEYWORDS,
	 "read(timeout=0)\n--\n\n"
	 "The next event, or None when none comes within timeout seconds "
	 "(0: do not wait; None: wait for one) or the watch is closed "
	 "meanwhile. ValueError on a closed watch."},
	{"fileno", watch_fileno, METH_NOARGS,
	 "fileno()\n--\n\n"
	 "An fd that polls readable when events may be ready, for selectors "
	 "and event loops; then read() until it returns None. The watch's "
	 "own: do not close it."},
	{"close", watch_close, METH_NOARGS,
	 "close()\n--\n\n"
	 "End the watch. From any thread; a next() or read() waiting in "
	 "another thread returns (the iteration stops), an async iteration "
	 "stops. Closing a closed watch does nothing."},
	{"rescan", watch_rescan, METH_NOARGS,
	 "rescan()\n--\n\n"
	 "Compare the watch's view with a fresh snapshot now and queue the "
	 "events of the differences (changes the kernel does not signal, "
	 "such as propagation)."},
	{"__enter__", watch_enter_ctx, METH_NOARGS, NULL},
	{"__exit__", watch_exit_ctx, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef watch_getset[] = {
	{"source", watch_source, NULL,
	 "Where the events come from: 'fanotify' (mount notifications, "
	 "Linux 6.15+) or 'poll' (mountinfo's POLLPRI).",
	 NULL},
	{"skipped", watch_skipped, NULL,
	 "An all-namespace watch: how many namespaces it cannot watch now; "
	 "else 0.",
	 NULL},
	{"closed", watch_closed, NULL, "True once close() was called.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyAsyncMethods watch_as_async = {
	.am_aiter = PyObject_SelfIter,
	.am_anext = watch_anext,
};

PyTypeObject mkpy_watch_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "mntkit.Watch",
	.tp_basicsize = sizeof(struct mkpy_watch),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc =
		"Watch(ns=None, *, all_namespaces=False, initial=False, "
		"cheap_ids=False)\n--\n\n"
		"The mount events of a namespace (ns as for mounts()), or of "
		"every namespace a process is in (all_namespaces=True), "
		"starting with an attach event for every mount with "
		"initial=True. cheap_ids=True is refused (ValueError): a "
		"watch compares the IDs of many loads.\n\n"
		"Iterate it (each next() waits for an event), read() it with "
		"a timeout, poll fileno(), or iterate it with async for on an "
		"asyncio loop. A context manager; close() ends it.\n\n"
		"One thread at a time: a call while another thread's call "
		"runs raises RuntimeError; close() works from any thread.",
	.tp_new = watch_new,
	.tp_dealloc = watch_dealloc,
	.tp_repr = watch_repr,
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = watch_next,
	.tp_methods = watch_methods,
	.tp_getset = watch_getset,
	.tp_as_async = &watch_as_async,
};

int mkpy_watch_ready(void)
{
	if (PyType_Ready(&mkpy_event_type) < 0 || mkpy_aio_ready() < 0)
		return -1;
	return PyType_Ready(&mkpy_watch_type);
}
