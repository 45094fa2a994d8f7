// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The asyncio form of an object whose fd polls readable when items may
 * be ready (a Watch, a LiveTable): an async iterator whose steps take
 * the next item without waiting and, when there is none, wait for the
 * fd on the running loop (add_reader) without blocking it.
 *
 * What __anext__() returns is an awaitable whose iterator is itself
 * (struct awaiter): each step takes an item (ops->next); when there is
 * none it registers the fd with the running loop and yields a future the
 * reader's callback completes, as asyncio's own futures do
 * (_asyncio_future_blocking). The result is the item (StopIteration),
 * the end (the owner closed) is StopAsyncIteration.
 *
 * One iteration waits on an owner at a time (struct mkpy_aio.waiting):
 * another one's step meanwhile raises RuntimeError. The owner is not
 * ended while an iteration waits (its fd is registered with the loop):
 * close() marks it and wakes the iteration through the loop
 * (mkpy_aio_wake(), call_soon_threadsafe), whose next step removes the
 * reader, ends the iteration and lets the owner end (ops->release).
 * Cancelling the task (throw()) or dropping the awaitable removes the
 * reader.
 */
#include "mntkit-py.h"

struct awaiter {
	PyObject_HEAD
	PyObject *owner;
	const struct mkpy_aio_ops *ops;
	PyObject *loop;
	PyObject *fut;
	int fd;         /* registered with add_reader() on @loop; -1: not */
};

/* what an async iterator of events() is: __anext__() of @owner */
struct aiter {
	PyObject_HEAD
	PyObject *owner;
	const struct mkpy_aio_ops *ops;
};

static PyTypeObject awaiter_type, aiter_type;

static struct mkpy_aio *state(PyObject *owner,
			      const struct mkpy_aio_ops *ops)
{
	return (struct mkpy_aio *)((char *)owner + ops->offset);
}

static int awaiter_unregister(struct awaiter *aw)
{
	struct mkpy_aio *a = state(aw->owner, aw->ops);
	PyObject *r;
	int fd = aw->fd;

	if (fd < 0)
		return 0;
	aw->fd = -1;
	if (a->waiting == aw)
		a->waiting = NULL;
	Py_CLEAR(aw->fut);
	r = PyObject_CallMethod(aw->loop, "remove_reader", "i", fd);
	Py_XDECREF(r);
	return r ? 0 : -1;
}

static int awaiter_register(struct awaiter *aw)
{
	PyObject *asyncio, *wake, *r;
	int fd = aw->ops->fd(aw->owner);

	if (!aw->loop) {
		asyncio = PyImport_ImportModule("asyncio");
		if (!asyncio)
			return -1;
		aw->loop = PyObject_CallMethod(asyncio, "get_running_loop",
					       NULL);
		Py_DECREF(asyncio);
		if (!aw->loop)
			return -1;
	}
	aw->fut = PyObject_CallMethod(aw->loop, "create_future", NULL);
	if (!aw->fut || PyObject_SetAttrString(aw->fut,
					       "_asyncio_future_blocking",
					       Py_True) < 0)
		return -1;
	wake = PyObject_GetAttrString((PyObject *)aw, "_wake");
	if (!wake)
		return -1;
	r = PyObject_CallMethod(aw->loop, "add_reader", "iO", fd, wake);
	Py_DECREF(wake);
	if (!r)
		return -1;
	Py_DECREF(r);
	aw->fd = fd;
	state(aw->owner, aw->ops)->waiting = aw;
	return 0;
}

/* the end of the async iteration, letting an owner closed meanwhile end */
static PyObject *awaiter_stop(struct awaiter *aw)
{
	aw->ops->release(aw->owner);
	PyErr_SetNone(PyExc_StopAsyncIteration);
	return NULL;
}

static PyObject *awaiter_next(PyObject *self)
{
	struct awaiter *aw = (struct awaiter *)self;
	PyObject *item = NULL, *stop;
	int r;

	if (awaiter_unregister(aw) < 0)
		return NULL;
	if (!aw->ops->is_open(aw->owner))
		return awaiter_stop(aw);
	if (state(aw->owner, aw->ops)->waiting) {
		PyErr_Format(PyExc_RuntimeError,
			     "the %s is awaited by another task",
			     aw->ops->what);
		return NULL;
	}
	r = aw->ops->next(aw->owner, &item);
	if (r < 0)
		return NULL;
	if (r > 0) {
		stop = PyObject_CallOneArg(PyExc_StopIteration, item);
		Py_DECREF(item);
		if (stop) {
			PyErr_SetObject(PyExc_StopIteration, stop);
			Py_DECREF(stop);
		}
		return NULL;
	}
	if (!aw->ops->is_open(aw->owner))
		return awaiter_stop(aw);
	if (awaiter_register(aw) < 0) {
		awaiter_unregister(aw);
		return NULL;
	}
	return Py_NewRef(aw->fut);
}

static PyObject *awaiter_wake(PyObject *self, PyObject *unused)
{
	struct awaiter *aw = (struct awaiter *)self;
	PyObject *done, *r;

	(void)unused;
	if (!aw->fut)
		Py_RETURN_NONE;
	done = PyObject_CallMethod(aw->fut, "done", NULL);
	if (!done)
		return NULL;
	r = done == Py_False ? PyObject_CallMethod(aw->fut, "set_result", "O",
						   Py_None)
			     : Py_NewRef(Py_None);
	Py_DECREF(done);
	return r;
}

static PyObject *awaiter_send(PyObject *self, PyObject *value)
{
	(void)value;
	return awaiter_next(self);
}

static PyObject *awaiter_throw(PyObject *self, PyObject *args)
{
	PyObject *type, *value = NULL, *tb = NULL;

	if (!PyArg_ParseTuple(args, "O|OO:throw", &type, &value, &tb))
		return NULL;
	if (awaiter_unregister((struct awaiter *)self) < 0)
		return NULL;
	if (PyExceptionInstance_Check(type))
		PyErr_SetObject((PyObject *)Py_TYPE(type), type);
	else if (PyExceptionClass_Check(type))
		PyErr_SetObject(type, value);
	else
		PyErr_SetString(PyExc_TypeError,
				"throw: an exception class or instance");
	return NULL;
}

static PyObject *awaiter_close(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (awaiter_unregister((struct awaiter *)self) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static void awaiter_dealloc(PyObject *self)
{
	struct awaiter *aw = (struct awaiter *)self;
	PyObject *type, *value, *tb;

	PyErr_Fetch(&type, &value, &tb);
	if (awaiter_unregister(aw) < 0)
		PyErr_WriteUnraisable(self);
	PyErr_Restore(type, value, tb);
	aw->ops->release(aw->owner);
	Py_XDECREF(aw->loop);
	Py_DECREF(aw->owner);
	PyObject_Free(self);
}

static PyMethodDef awaiter_methods[] = {
	{"_wake", awaiter_wake, METH_NOARGS, NULL},
	{"send", awaiter_send, METH_O, NULL},
	{"throw", awaiter_throw, METH_VARARGS, NULL},
	{"close", awaiter_close, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyAsyncMethods awaiter_as_async = {
	.am_await = PyObject_SelfIter,
};

static PyTypeObject awaiter_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "mntkit._Awaitable",
	.tp_basicsize = sizeof(struct awaiter),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = awaiter_dealloc,
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = awaiter_next,
	.tp_methods = awaiter_methods,
	.tp_as_async = &awaiter_as_async,
};

PyObject *mkpy_aio_anext(PyObject *owner, const struct mkpy_aio_ops *ops)
{
	struct awaiter *aw;

	aw = PyObject_New(struct awaiter, &awaiter_type);
	if (!aw)
		return NULL;
	aw->owner = Py_NewRef(owner);
	aw->ops = ops;
	aw->loop = NULL;
	aw->fut = NULL;
	aw->fd = -1;
	return (PyObject *)aw;
}

int mkpy_aio_wake(struct mkpy_aio *a)
{
	PyObject *wake, *r;

	if (!a->waiting)
		return 0;
	/* the loop may run in another thread: the step it runs ends it */
	wake = PyObject_GetAttrString((PyObject *)a->waiting, "_wake");
	r = wake ? PyObject_CallMethod(a->waiting->loop,
				       "call_soon_threadsafe", "O", wake)
		 : NULL;
	Py_XDECREF(wake);
	Py_XDECREF(r);
	return r ? 0 : -1;
}

/* ---- an async iterator of an owner (LiveTable.events()) ---- */

static PyObject *aiter_anext(PyObject *self)
{
	struct aiter *it = (struct aiter *)self;

	return mkpy_aio_anext(it->owner, it->ops);
}

static void aiter_dealloc(PyObject *self)
{
	Py_DECREF(((struct aiter *)self)->owner);
	PyObject_Free(self);
}

static PyAsyncMethods aiter_as_async = {
	.am_aiter = PyObject_SelfIter,
	.am_anext = aiter_anext,
};

static PyTypeObject aiter_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "mntkit._AsyncIterator",
	.tp_basicsize = sizeof(struct aiter),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = aiter_dealloc,
	.tp_as_async = &aiter_as_async,
};

PyObject *mkpy_aio_iter(PyObject *owner, const struct mkpy_aio_ops *ops)
{
	struct aiter *it;

	it = PyObject_New(struct aiter, &aiter_type);
	if (!it)
		return NULL;
	it->owner = Py_NewRef(owner);
	it->ops = ops;
	return (PyObject *)it;
}

int mkpy_aio_ready(void)
{
	if (PyType_Ready(&awaiter_type) < 0)
		return -1;
	return PyType_Ready(&aiter_type);
}
