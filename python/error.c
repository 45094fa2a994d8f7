// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The exceptions of the module, and the library's reason for an error.
 *
 * mntkit.Error is an OSError. A failure is raised as the subclass of
 * mntkit.Error and of the OSError subclass Python gives its errno
 * (FileNotFoundError for ENOENT, PermissionError for EPERM, ...), so that
 * both "except mntkit.Error" and "except FileNotFoundError" catch it.
 *
 * The reason: the library says why it refused a caller's mistake in one
 * line at warn level to its print function (mntkit_set_print()). Around
 * each call (mkpy_call_begin() .. mkpy_call_end()) the module's print
 * function is installed - once, for as many threads as are in calls - and
 * keeps the last warn-level line of the calling thread's call in a
 * thread-local buffer; every other line goes to the function it replaced
 * (the library's own: stderr, as MNTKIT_DEBUG asks).
 */
#include "mntkit-py.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static PyObject *error_type;
/* errno-specific subclasses, made at the first error of each kind:
 * a dict {OSError subclass: subclass of it and of mntkit.Error} */
static PyObject *error_kinds;

static __thread struct {
	int on;
	char reason[256];
} capture;

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int print_users;
static _Atomic(mntkit_print_fn) saved_print;

static int capture_print(enum mntkit_print_level level, const char *fmt,
			 va_list ap)
{
	mntkit_print_fn next = atomic_load(&saved_print);
	va_list copy;

	if (capture.on && level == MNTKIT_PRINT_WARN) {
		va_copy(copy, ap);
		vsnprintf(capture.reason, sizeof(capture.reason), fmt, copy);
		va_end(copy);
	}
	return next ? next(level, fmt, ap) : 0;
}

void mkpy_call_begin(void)
{
	capture.reason[0] = '\0';
	capture.on = 1;
	pthread_mutex_lock(&print_lock);
	if (print_users++ == 0)
		atomic_store(&saved_print, mntkit_set_print(capture_print));
	pthread_mutex_unlock(&print_lock);
}

void mkpy_call_end(void)
{
	capture.on = 0;
	pthread_mutex_lock(&print_lock);
	if (--print_users == 0)
		mntkit_set_print(atomic_load(&saved_print));
	pthread_mutex_unlock(&print_lock);
}

/* the subclass of mntkit.Error for the OSError subclass of @err */
static PyObject *error_kind(int err)
{
	PyObject *probe, *base, *kind;

	probe = PyObject_CallFunction(PyExc_OSError, "is", err, "");
	if (!probe)
		return NULL;
	base = (PyObject *)Py_TYPE(probe);
	if (base == PyExc_OSError) {
		Py_DECREF(probe);
		return Py_NewRef(error_type);
	}
	kind = PyDict_GetItemWithError(error_kinds, base);
	if (kind) {
		Py_DECREF(probe);
		return Py_NewRef(kind);
	}
	if (!PyErr_Occurred())
		kind = PyObject_CallFunction(
			(PyObject *)&PyType_Type, "s(OO){ssss}",
			((PyTypeObject *)base)->tp_name, error_type, base,
			"__module__", "mntkit", "__doc__",
			"mntkit.Error for this errno");
	if (kind && PyDict_SetItem(error_kinds, base, kind) < 0)
		Py_CLEAR(kind);
	Py_DECREF(probe);
	return kind;
}

PyObject *mkpy_raise(int err, PyObject *filename)
{
	PyObject *kind, *exc, *msg, *reason;

	if (err < 0)
		err = -err;
	if (capture.reason[0])
		msg = PyUnicode_FromFormat("%s (%s)", strerror(err),
					   capture.reason);
	else
		msg = PyUnicode_FromString(strerror(err));
	reason = capture.reason[0] ? PyUnicode_FromString(capture.reason)
				   : Py_NewRef(Py_None);
	kind = msg && reason ? error_kind(err) : NULL;
	exc = kind ? PyObject_CallFunction(kind, "iOO", err, msg,
					   filename ? filename : Py_None)
		   : NULL;
	if (exc && PyObject_SetAttrString(exc, "reason", reason) == 0)
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_XDECREF(exc);
	Py_XDECREF(kind);
	Py_XDECREF(msg);
	Py_XDECREF(reason);
	return NULL;
}

int mkpy_errors_init(PyObject *module)
{
	error_type = PyErr_NewExceptionWithDoc(
		"mntkit.Error",
		"A call of the library failed: an OSError whose errno is the "
		"library's, and whose reason attribute is the line the library "
		"gave for it (a caller's mistake), or None. Raised as the "
		"subclass of the OSError subclass of the errno too "
		"(FileNotFoundError, PermissionError, ...).",
		PyExc_OSError, NULL);
	if (!error_type)
		return -1;
	error_kinds = PyDict_New();
	if (!error_kinds)
		return -1;
	return PyModule_AddObjectRef(module, "Error", error_type);
}
