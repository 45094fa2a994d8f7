// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the types share for IDs: an int argument checked (TypeError,
 * ValueError), and hashing and comparing by an ID.
 */
#include "mntkit-py.h"

int mkpy_u64_arg(PyObject *arg, const char *what, uint64_t min, uint64_t max,
		 uint64_t *out)
{
	unsigned long long v;
	int outside = 0;

	if (!PyLong_Check(arg) || PyBool_Check(arg)) {
		PyErr_Format(PyExc_TypeError, "%s is an int, not %.100s", what,
			     Py_TYPE(arg)->tp_name);
		return -1;
	}
	v = PyLong_AsUnsignedLongLong(arg);
	if (v == (unsigned long long)-1 && PyErr_Occurred()) {
		PyErr_Clear(); /* negative, or above 2**64-1 */
		outside = 1;
	}
	if (outside || v < min || v > max) {
		PyErr_Format(PyExc_ValueError, "%s is an int from %llu to %llu",
			     what, (unsigned long long)min,
			     (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

Py_hash_t mkpy_id_hash(uint64_t id)
{
	PyObject *o = PyLong_FromUnsignedLongLong(id);
	Py_hash_t h;

	if (!o)
		return -1;
	h = PyObject_Hash(o);
	Py_DECREF(o);
	return h;
}

PyObject *mkpy_id_compare(PyObject *a, PyObject *b, int op,
			  uint64_t (*id_of)(PyObject *))
{
	if (!PyObject_TypeCheck(b, Py_TYPE(a)) || (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	return PyBool_FromLong((id_of(a) == id_of(b)) == (op == Py_EQ));
}
