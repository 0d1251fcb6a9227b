/* The compiled seed search of the near-miss search (claimledger/checks/seed_hits.py).
 *
 * first_hits(text, seeds, cap) -> list of lists: for each seed (a str of at least 8 code points),
 * the start of its first `cap` occurrences in `text`, overlapping occurrences included, in text
 * order. That is exactly what the pure-Python path (an Aho-Corasick automaton, every match of a
 * seed counted until its cap) records, which stays the fallback and the test oracle
 * (tests/test_near_miss_index.py compares the two on every CI run).
 *
 * One pass over the text: a rolling hash of the 8 code points starting at each position is tested
 * against a bitmap of the seeds' hashes, then looked up in a small open-addressing table of the
 * seeds' first 8 code points; a hit is confirmed by comparing the seed's code points with the text. Text and seeds may be of any string kind. The
 * pass runs without the GIL (both strings are immutable and referenced for its whole length).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define K 8
#define BASE 0x100000001B3ull /* any odd multiplier; equal windows always hash equal */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} Str;

typedef struct {
    uint64_t hash;
    Py_ssize_t head; /* first seed with this hash (chained by next[]); -1: empty slot */
} Slot;

static inline uint64_t window_hash(const Str *s, Py_ssize_t at) {
    uint64_t h = 0;
    for (int j = 0; j < K; j++) h = h * BASE + (uint64_t)PyUnicode_READ(s->kind, s->data, at + j);
    return h;
}

static inline size_t slot_of(uint64_t h, size_t mask) { return (size_t)(h ^ (h >> 29) ^ (h >> 47)) & mask; }

/* Record a start for seed si: the list grows by doubling up to cap (no GIL needed: raw allocator).
 * Returns 0 when out of memory. */
static int record(Py_ssize_t **pos, Py_ssize_t *found, Py_ssize_t *room, Py_ssize_t si, Py_ssize_t at, Py_ssize_t cap) {
    if (found[si] == room[si]) {
        Py_ssize_t grow = room[si] ? room[si] * 2 : 4;
        if (grow > cap) grow = cap;
        Py_ssize_t *p = PyMem_RawRealloc(pos[si], (size_t)grow * sizeof(Py_ssize_t));
        if (!p) return 0;
        pos[si] = p;
        room[si] = grow;
    }
    pos[si][found[si]++] = at;
    return 1;
}

#define FILTER_BITS 16 /* a bitmap of 2^16 bits (8 KB, in L1) rejects most windows before the table */
/* the bit is taken from the hash multiplied by a 64-bit odd constant (Fibonacci hashing): the top bits
   of the polynomial hash alone are poorly mixed, and with 10,000 seeds most windows passed the filter */

typedef struct {
    const Slot *table;
    size_t mask;
    const uint8_t *filter;
    const Str *seeds;
    const Py_ssize_t *next;
    Py_ssize_t **pos;
    Py_ssize_t *found;
    Py_ssize_t *room;
    Py_ssize_t cap;
} Scan;

static inline size_t filter_bit(uint64_t h) { return (size_t)((h * 0x9E3779B97F4A7C15ull) >> (64 - FILTER_BITS)); }

/* The window at `at` hashes to h and passed the filter: confirm the seeds of that hash there.
 * Returns 0 when out of memory. */
static int probe(const Scan *sc, const Str *text, Py_ssize_t at, uint64_t h) {
    size_t slot = slot_of(h, sc->mask);
    while (sc->table[slot].head >= 0) {
        if (sc->table[slot].hash == h) {
            for (Py_ssize_t si = sc->table[slot].head; si >= 0; si = sc->next[si]) {
                const Str *s = &sc->seeds[si];
                if (sc->found[si] >= sc->cap || at + s->n > text->n) continue;
                Py_ssize_t j = 0;
                while (j < s->n && PyUnicode_READ(s->kind, s->data, j) == PyUnicode_READ(text->kind, text->data, at + j))
                    j++;
                if (j == s->n && !record(sc->pos, sc->found, sc->room, si, at, sc->cap)) return 0;
            }
            return 1;
        }
        slot = (slot + 1) & sc->mask;
    }
    return 1;
}

/* One pass over a text of one string kind (T: its code unit). Returns 0 when out of memory. */
#define DEFINE_SCAN(NAME, T)                                                                        \
    static int NAME(const Scan *sc, const Str *text) {                                              \
        const T *d = (const T *)text->data;                                                         \
        Py_ssize_t n = text->n;                                                                     \
        uint64_t top = 1, h = 0;                                                                    \
        for (int j = 1; j < K; j++) top *= BASE;                                                    \
        for (int j = 0; j < K; j++) h = h * BASE + d[j];                                            \
        for (Py_ssize_t at = 0;; at++) {                                                            \
            size_t bit = filter_bit(h);                                                             \
            if ((sc->filter[bit >> 3] >> (bit & 7)) & 1)                                            \
                if (!probe(sc, text, at, h)) return 0;                                              \
            if (at + K >= n) return 1;                                                              \
            h = (h - top * d[at]) * BASE + d[at + K];                                               \
        }                                                                                           \
    }

DEFINE_SCAN(scan_ucs1, Py_UCS1)
DEFINE_SCAN(scan_ucs2, Py_UCS2)
DEFINE_SCAN(scan_ucs4, Py_UCS4)

static PyObject *py_first_hits(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text_obj, *seeds_obj;
    Py_ssize_t cap;
    if (!PyArg_ParseTuple(args, "UO!n", &text_obj, &PyList_Type, &seeds_obj, &cap)) return NULL;
    Py_ssize_t ns = PyList_GET_SIZE(seeds_obj);
    if (cap < 0) cap = 0;
    Str text = {PyUnicode_KIND(text_obj), PyUnicode_DATA(text_obj), PyUnicode_GET_LENGTH(text_obj)};
    Py_ssize_t m = ns ? ns : 1;
    Str *seeds = PyMem_Calloc(m, sizeof(Str));
    uint64_t *hashes = PyMem_Calloc(m, sizeof(uint64_t));
    Py_ssize_t *next = PyMem_Calloc(m, sizeof(Py_ssize_t));
    Py_ssize_t *found = PyMem_Calloc(m, sizeof(Py_ssize_t));
    Py_ssize_t *room = PyMem_Calloc(m, sizeof(Py_ssize_t));
    Py_ssize_t **pos = PyMem_Calloc(m, sizeof(Py_ssize_t *));
    Slot *table = NULL;
    uint8_t *filter = PyMem_Calloc((size_t)1 << (FILTER_BITS - 3), 1);
    PyObject *result = NULL;
    int oom = 0;
    if (!seeds || !hashes || !next || !found || !room || !pos || !filter) {
        PyErr_NoMemory();
        goto done;
    }
    size_t size = 16;
    while (size < (size_t)m * 4) size <<= 1;
    table = PyMem_Malloc(size * sizeof(Slot));
    if (!table) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < size; i++) table[i].head = -1;
    /* seeds are chained in reverse, so walk them from the last: a chain lists them in list order */
    for (Py_ssize_t i = ns - 1; i >= 0; i--) {
        PyObject *s = PyList_GET_ITEM(seeds_obj, i);
        if (!PyUnicode_Check(s) || PyUnicode_GET_LENGTH(s) < K) {
            PyErr_SetString(PyExc_ValueError, "every seed must be a str of at least 8 characters");
            goto done;
        }
        seeds[i] = (Str){PyUnicode_KIND(s), PyUnicode_DATA(s), PyUnicode_GET_LENGTH(s)};
        uint64_t h = window_hash(&seeds[i], 0);
        hashes[i] = h;
        size_t slot = slot_of(h, size - 1);
        while (table[slot].head >= 0 && table[slot].hash != h) slot = (slot + 1) & (size - 1);
        next[i] = table[slot].head; /* -1 for the first seed of this hash */
        table[slot].hash = h;
        table[slot].head = i;
        filter[filter_bit(h) >> 3] |= (uint8_t)(1u << (filter_bit(h) & 7));
    }
    if (ns > 0 && cap > 0 && text.n >= K) {
        Scan sc = {table, size - 1, filter, seeds, next, pos, found, room, cap};
        Py_BEGIN_ALLOW_THREADS
        int ok = text.kind == PyUnicode_1BYTE_KIND   ? scan_ucs1(&sc, &text)
                 : text.kind == PyUnicode_2BYTE_KIND ? scan_ucs2(&sc, &text)
                                                     : scan_ucs4(&sc, &text);
        oom = !ok;
        Py_END_ALLOW_THREADS
    }
    if (oom) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyList_New(ns);
    if (!result) goto done;
    for (Py_ssize_t i = 0; i < ns; i++) {
        PyObject *lst = PyList_New(found[i]);
        if (!lst) {
            Py_CLEAR(result);
            goto done;
        }
        for (Py_ssize_t j = 0; j < found[i]; j++) {
            PyObject *v = PyLong_FromSsize_t(pos[i][j]);
            if (!v) {
                Py_DECREF(lst);
                Py_CLEAR(result);
                goto done;
            }
            PyList_SET_ITEM(lst, j, v);
        }
        PyList_SET_ITEM(result, i, lst);
    }
done:
    if (pos)
        for (Py_ssize_t i = 0; i < ns; i++) PyMem_RawFree(pos[i]);
    PyMem_Free(pos);
    PyMem_Free(room);
    PyMem_Free(found);
    PyMem_Free(next);
    PyMem_Free(hashes);
    PyMem_Free(seeds);
    PyMem_Free(table);
    PyMem_Free(filter);
    return result;
}

static PyMethodDef methods[] = {
    {"first_hits", py_first_hits, METH_VARARGS,
     "first_hits(text, seeds, cap): for each seed (at least 8 characters), the starts of its first cap "
     "occurrences in text, overlapping ones included, in text order."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cseeds",
                                    "The seed search of the near-miss search (claimledger.checks.seed_hits).",
                                    -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cseeds(void) { return PyModule_Create(&module); }
