/* A per-code-point table filled lazily from Python, shared by the compiled skeletons of
 * claimledger/_cnormalize.c (of text) and claimledger/_cutf8skel.c (of UTF-8 bytes).
 *
 * An entry is UNKNOWN until a text holds its code point; then it is asked of a Python function once
 * (the GIL held) and written once with release order: 0 (nothing), one character, or SPECIAL (the
 * string kept as UCS4 in a side array, never freed: another thread may read it without the GIL).
 */
#ifndef CLAIMLEDGER_LAZYTABLE_H
#define CLAIMLEDGER_LAZYTABLE_H

#include <Python.h>
#include <stdint.h>

#define SPECIAL 0x80000000u /* the entry is not one character: see the side arrays */
#define UNKNOWN 0xC0000000u /* the entry is not computed yet (its SPECIAL bit takes the slow path) */

#if defined(__GNUC__)
#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#else
#define LOAD(p) (*(p))
#define LOAD_ACQ(p) (*(volatile uint32_t *)(p))
#define STORE_REL(p, v) (*(volatile uint32_t *)(p) = (v))
#endif

/* Fill code point c's entry of `table` with fn(c), a str of at most 255 characters (the GIL is
 * held); `who` names the table in the error. 0 when filled (or filled meanwhile by another thread),
 * -1 with an exception set. */
static int lazy_resolve(uint32_t *table, Py_UCS4 **ptrs, uint8_t *lens, PyObject *fn, Py_UCS4 c, const char *who) {
    if (LOAD_ACQ(&table[c]) != UNKNOWN) return 0; /* another thread filled it meanwhile */
    PyObject *s = PyObject_CallFunction(fn, "k", (unsigned long)c);
    if (!s) return -1;
    if (!PyUnicode_Check(s) || PyUnicode_GET_LENGTH(s) > 255) {
        Py_DECREF(s);
        PyErr_Format(PyExc_TypeError, "%s: a character's skeleton must be a str of at most 255 characters", who);
        return -1;
    }
    Py_ssize_t m = PyUnicode_GET_LENGTH(s);
    uint32_t v = 0;
    if (m == 1) {
        v = PyUnicode_READ_CHAR(s, 0);
    } else if (m > 1) {
        Py_UCS4 *u = PyMem_RawMalloc((size_t)m * sizeof(Py_UCS4));
        if (!u) {
            Py_DECREF(s);
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < m; i++) u[i] = PyUnicode_READ_CHAR(s, i);
        ptrs[c] = u;
        lens[c] = (uint8_t)m;
        v = SPECIAL;
    }
    Py_DECREF(s);
    STORE_REL(&table[c], v);
    return 0;
}

#endif
