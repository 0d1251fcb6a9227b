/* The letter-and-digit skeleton (claimledger/skeleton.py) of UTF-8 bytes, without decoding them.
 *
 * skeleton_utf8(data) == skeleton.of_raw(data.decode("utf-8-sig")) when data is well-formed UTF-8,
 * else None; skeleton_utf8(data, stop) is None also when one of the characters of stop occurs (the caller then decodes as before: Shift_JIS, UTF-16, a broken file). The bytes are
 * validated exactly as CPython's strict UTF-8 decoder does (Unicode 3-7: no overlong forms, no
 * surrogates, nothing above U+10FFFF, no truncated sequence), so "not None" implies the decoder
 * accepts the bytes and gives the same code points. Each character's skeleton is asked of
 * claimledger.skeleton.raw_of_char (the running unicodedata): once per BMP code point, every time
 * for the others. Tested against the pure-Python definition in tests/test_skeleton_utf8.py and
 * scripts/fuzz_skeleton.py (--utf8).
 *
 * The misattribution search uses it to rule out an uncited plain-text source from its bytes: its
 * text is never built when no pending quote's skeleton occurs in the skeleton of its bytes.
 *
 * decode_utf8 and encode_utf8 are bytes.decode("utf-8-sig") / str.encode("utf-8") for long texts,
 * without the GIL (claimledger/load/utf8.py; see the comment above them).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_lazytable.h" /* SPECIAL, UNKNOWN, LOAD*, STORE_REL, lazy_resolve */

#define BMP 0x10000
#define NOGIL_MIN_BYTES 4096


/* The table is filled lazily, as _cnormalize.c's: a BMP code point's entry is asked of
 * skeleton.raw_of_char the first time some bytes hold it (0: no skeleton; one character; SPECIAL:
 * the string in g_ptr), written once under the GIL with release order and read without it. */
static uint32_t g_skel[BMP];
static Py_UCS4 *g_ptr[BMP]; /* SPECIAL entries as UCS4 (never freed: another thread may read them) */
static uint8_t g_len[BMP];
static PyObject *g_fn = NULL; /* code point -> str */
static int g_ascii_plain = 0; /* every ASCII entry is 0 or one Latin-1 character (all filled at setup) */
static int g_ready = 0;

typedef struct {
    int kind; /* 1, 2 or 4 bytes per character */
    void *buf;
    Py_ssize_t len, cap; /* characters written, and room for characters of this kind */
    size_t bytes;        /* the size of buf */
    int scratch;         /* buf was taken from this thread's slot (scratch_take): given back, not freed */
    PyThreadState *ts;
    int nomem;
} Out;

/* A reading thread's scratch buffer for the skeleton, kept from one source to the next (POSIX
 * threads; freed when the thread ends). Each source used to take a fresh buffer, widened into
 * another one for its first character above U+00FF: glibc hands a thread's freed memory back to
 * the system past its trim threshold, and the next source faulted every page in again, half of
 * the skeleton's time on the 1 GB bench row's uncited sources (docs/benchmarks.md, issue 19,
 * twentieth session). Sources whose skeleton needs more than SCRATCH_MAX bytes take their own
 * buffer, as before. A call takes the scratch out of its thread's slot while it works, so a call
 * that runs inside it (none does) would take a buffer of its own. */
#define SCRATCH_MAX ((size_t)8 << 20)
#if defined(_WIN32)
#define HAVE_SCRATCH 0
#else
#include <pthread.h>
#define HAVE_SCRATCH 1
typedef struct {
    void *buf; /* NULL while a call holds it */
    size_t bytes;
} Scratch;
static pthread_key_t g_scratch_key; /* each thread's Scratch, freed when the thread ends */
static int g_scratch_ok = 0;        /* the key was created (module init) */

static void scratch_free(void *p) {
    Scratch *sc = p;
    if (sc) {
        PyMem_RawFree(sc->buf);
        PyMem_RawFree(sc);
    }
}
#endif

/* This thread's scratch buffer, grown to at least `bytes` (its size in *got) and taken out of the
 * thread's slot; NULL when none can be had (no thread-specific data, over SCRATCH_MAX, no memory). */
static void *scratch_take(size_t bytes, size_t *got) {
#if HAVE_SCRATCH
    if (!g_scratch_ok || bytes > SCRATCH_MAX) return NULL;
    Scratch *sc = pthread_getspecific(g_scratch_key);
    if (!sc) {
        sc = PyMem_RawCalloc(1, sizeof(Scratch));
        if (!sc || pthread_setspecific(g_scratch_key, sc) != 0) {
            PyMem_RawFree(sc);
            return NULL;
        }
    }
    if (sc->bytes < bytes) {
        void *nb = PyMem_RawRealloc(sc->buf, bytes);
        if (!nb) return NULL;
        sc->buf = nb;
        sc->bytes = bytes;
    }
    void *buf = sc->buf;
    *got = sc->bytes;
    sc->buf = NULL; /* taken: a call inside this one would take a buffer of its own */
    sc->bytes = 0;
    return buf;
#else
    (void)bytes;
    (void)got;
    return NULL;
#endif
}

/* A taken buffer back into this thread's slot (freed when the slot holds one already). */
static void scratch_give(void *buf, size_t bytes) {
#if HAVE_SCRATCH
    Scratch *sc = g_scratch_ok ? pthread_getspecific(g_scratch_key) : NULL;
    if (sc && !sc->buf) {
        sc->buf = buf;
        sc->bytes = bytes;
        return;
    }
#else
    (void)bytes;
#endif
    PyMem_RawFree(buf);
}

/* Start o with room for `want` characters of kind 1: in this thread's scratch buffer when `bytes`
 * (at least 2 * want, so it widens to two bytes a character in place) fits in SCRATCH_MAX, else in
 * a buffer of its own; 0, or -1 when out of memory. */
static int o_start(Out *o, Py_ssize_t want, size_t bytes) {
    *o = (Out){1, NULL, 0, 0, 0, 0, NULL, 0};
    size_t got = 0;
    o->buf = scratch_take(bytes, &got);
    if (o->buf) {
        o->bytes = got;
        o->cap = (Py_ssize_t)(got / 2);
        o->scratch = 1;
        return 0;
    }
    o->buf = PyMem_RawMalloc((size_t)want);
    if (!o->buf) return -1;
    o->bytes = (size_t)want;
    o->cap = want;
    return 0;
}

/* Done with o's buffer: given back to the thread's slot, or freed. */
static void o_release(Out *o) {
    if (o->scratch) scratch_give(o->buf, o->bytes);
    else PyMem_RawFree(o->buf);
    o->buf = NULL;
    o->scratch = 0;
}

static int o_reserve(Out *o, Py_ssize_t extra) {
    if (o->len + extra <= o->cap) return 0;
    Py_ssize_t cap = o->cap + o->cap / 2 + extra + 16;
    size_t bytes = (size_t)cap * (size_t)o->kind;
    void *nb;
    if (o->scratch) { /* outgrown: a buffer of its own; the scratch goes back to the thread's slot */
        nb = PyMem_RawMalloc(bytes);
        if (nb) {
            memcpy(nb, o->buf, (size_t)o->len * (size_t)o->kind);
            o_release(o);
        }
    } else {
        nb = PyMem_RawRealloc(o->buf, bytes);
    }
    if (!nb) {
        o->nomem = 1;
        return -1;
    }
    o->buf = nb;
    o->bytes = bytes;
    o->cap = cap;
    return 0;
}

/* Wider characters: in place when the buffer holds the widened text and its room (read from the
 * end: character i of the wider kind starts at or after the end of character i - 1 of the narrower
 * one), else into a new buffer. */
static int o_widen(Out *o, int kind) {
    Py_ssize_t room = (Py_ssize_t)(o->bytes / (size_t)kind);
    if (room >= o->cap) {
        for (Py_ssize_t i = o->len - 1; i >= 0; i--) {
            Py_UCS4 c = o->kind == 1 ? ((uint8_t *)o->buf)[i] : ((uint16_t *)o->buf)[i];
            if (kind == 2) ((uint16_t *)o->buf)[i] = (uint16_t)c;
            else ((uint32_t *)o->buf)[i] = c;
        }
        o->kind = kind;
        o->cap = room;
        return 0;
    }
    void *nb = PyMem_RawMalloc((size_t)o->cap * (size_t)kind);
    if (!nb) {
        o->nomem = 1;
        return -1;
    }
    for (Py_ssize_t i = 0; i < o->len; i++) {
        Py_UCS4 c = o->kind == 1 ? ((uint8_t *)o->buf)[i] : ((uint16_t *)o->buf)[i];
        if (kind == 2) ((uint16_t *)nb)[i] = (uint16_t)c;
        else ((uint32_t *)nb)[i] = c;
    }
    o_release(o);
    o->buf = nb;
    o->bytes = (size_t)o->cap * (size_t)kind;
    o->kind = kind;
    return 0;
}

/* append one character; room must have been reserved */
static inline int o_put(Out *o, Py_UCS4 c) {
    if (c > 0xFF && o->kind == 1 && o_widen(o, c > 0xFFFF ? 4 : 2) < 0) return -1;
    if (c > 0xFFFF && o->kind == 2 && o_widen(o, 4) < 0) return -1;
    if (o->kind == 1) ((uint8_t *)o->buf)[o->len++] = (uint8_t)c;
    else if (o->kind == 2) ((uint16_t *)o->buf)[o->len++] = (uint16_t)c;
    else ((uint32_t *)o->buf)[o->len++] = c;
    return 0;
}

/* a run of ASCII bytes, each mapped to zero or one Latin-1 character (g_ascii_plain); room for
 * one character per input byte is always reserved */
/* eight bytes at a time while all eight are ASCII (one test for the eight), then byte by byte */
#define ASCII_RUN(T)                                                                                           \
    do {                                                                                                       \
        T *ob = (T *)o->buf;                                                                                   \
        while (i + 8 <= n) {                                                                                   \
            uint64_t w8;                                                                                       \
            memcpy(&w8, s + i, 8);                                                                             \
            if (w8 & 0x8080808080808080ull) break;                                                             \
            for (int k = 0; k < 8; k++) {                                                                      \
                uint32_t v = g_skel[s[i + k]];                                                                 \
                ob[len] = (T)v;                                                                                \
                len += v != 0;                                                                                 \
            }                                                                                                  \
            i += 8;                                                                                            \
        }                                                                                                      \
        while (i < n && s[i] < 0x80) {                                                                         \
            uint32_t v = g_skel[s[i++]];                                                                       \
            ob[len] = (T)v;                                                                                    \
            len += v != 0;                                                                                     \
        }                                                                                                      \
    } while (0)

static int o_put_run(Out *o, const Py_UCS4 *u, Py_ssize_t m, Py_ssize_t remaining) {
    /* room for this expansion and one character for every input byte still to come */
    if (o_reserve(o, m + remaining + 16) < 0) return -1;
    for (Py_ssize_t k = 0; k < m; k++)
        if (o_put(o, u[k]) < 0) return -1;
    return 0;
}

static int astral(Out *o, Py_UCS4 c, Py_ssize_t remaining) {
    Py_UCS4 u[64];
    Py_ssize_t m = 0;
    int rc = 0;
    if (o->ts) PyEval_RestoreThread(o->ts);
    PyObject *s = PyObject_CallFunction(g_fn, "k", (unsigned long)c);
    if (!s) {
        rc = -1;
    } else if (!PyUnicode_Check(s) || PyUnicode_GET_LENGTH(s) > 64) {
        PyErr_SetString(PyExc_TypeError, "skeleton_utf8: an astral character's skeleton must be a short str");
        rc = -1;
    } else {
        m = PyUnicode_GET_LENGTH(s);
        for (Py_ssize_t k = 0; k < m; k++) u[k] = PyUnicode_READ_CHAR(s, k);
    }
    Py_XDECREF(s);
    if (o->ts) o->ts = PyEval_SaveThread();
    return rc < 0 ? -1 : o_put_run(o, u, m, remaining);
}

/* Fill a BMP code point's entry (the GIL is held). */
static int resolve(Py_UCS4 c) { return lazy_resolve(g_skel, g_ptr, g_len, g_fn, c, "skeleton_utf8"); }

static inline int emit(Out *o, Py_UCS4 c, Py_ssize_t remaining) {
    if (c >= BMP) return astral(o, c, remaining);
    uint32_t v = LOAD_ACQ(&g_skel[c]);
    if (v == UNKNOWN) {
        if (o->ts) PyEval_RestoreThread(o->ts);
        int rc = resolve(c);
        if (o->ts) o->ts = PyEval_SaveThread();
        if (rc < 0) return -1;
        v = LOAD_ACQ(&g_skel[c]);
    }
    if (v == 0) return 0;
    if (!(v & SPECIAL)) return o_put(o, v);
    return o_put_run(o, g_ptr[c], g_len[c], remaining);
}

/* The code point of the well-formed UTF-8 sequence at s[i] (i < n) in *c, and its length in bytes;
 * 0 when the bytes there are not well-formed UTF-8 as CPython's strict decoder defines it (Unicode
 * 3-7: no overlong forms, no surrogates, nothing above U+10FFFF, no truncated sequence). */
static inline Py_ssize_t utf8_next(const uint8_t *s, Py_ssize_t n, Py_ssize_t i, Py_UCS4 *c) {
    uint8_t c0 = s[i];
    if (c0 < 0x80) {
        *c = c0;
        return 1;
    }
    if (c0 >= 0xC2 && c0 <= 0xDF) {
        if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80) return 0;
        *c = ((Py_UCS4)(c0 & 0x1F) << 6) | (s[i + 1] & 0x3F);
        return 2;
    }
    if (c0 >= 0xE0 && c0 <= 0xEF) {
        if (i + 2 >= n) return 0;
        uint8_t c1 = s[i + 1], c2 = s[i + 2];
        uint8_t lo = c0 == 0xE0 ? 0xA0 : 0x80, hi = c0 == 0xED ? 0x9F : 0xBF;
        if (c1 < lo || c1 > hi || (c2 & 0xC0) != 0x80) return 0;
        *c = ((Py_UCS4)(c0 & 0x0F) << 12) | ((Py_UCS4)(c1 & 0x3F) << 6) | (c2 & 0x3F);
        return 3;
    }
    if (c0 >= 0xF0 && c0 <= 0xF4) {
        if (i + 3 >= n) return 0;
        uint8_t c1 = s[i + 1], c2 = s[i + 2], c3 = s[i + 3];
        uint8_t lo = c0 == 0xF0 ? 0x90 : 0x80, hi = c0 == 0xF4 ? 0x8F : 0xBF;
        if (c1 < lo || c1 > hi || (c2 & 0xC0) != 0x80 || (c3 & 0xC0) != 0x80) return 0;
        *c = ((Py_UCS4)(c0 & 0x07) << 18) | ((Py_UCS4)(c1 & 0x3F) << 12) | ((Py_UCS4)(c2 & 0x3F) << 6) | (c3 & 0x3F);
        return 4;
    }
    return 0; /* a continuation byte, C0, C1 or F5..FF */
}

/* 0: done; 1: not well-formed UTF-8, or a character of stop[0..nstop) occurs; -1: error
 * (exception set, or o->nomem) */
static int run(Out *o, const uint8_t *s, Py_ssize_t n, const Py_UCS4 *stop, Py_ssize_t nstop) {
    Py_ssize_t i = 0;
    if (n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) i = 3; /* "utf-8-sig": one leading BOM */
    while (i < n) {
        if (g_ascii_plain) { /* the common case: a run of ASCII */
            Py_ssize_t len = o->len;
            if (o->kind == 1) ASCII_RUN(uint8_t);
            else if (o->kind == 2) ASCII_RUN(uint16_t);
            else ASCII_RUN(uint32_t);
            o->len = len;
            if (i >= n) break;
        }
        Py_UCS4 c;
        Py_ssize_t k = utf8_next(s, n, i, &c);
        if (k == 0) return 1;
        i += k;
        for (Py_ssize_t j = 0; j < nstop; j++)
            if (c == stop[j]) return 1;
        if (emit(o, c, n - i) < 0) return -1;
    }
    return 0;
}

static PyObject *py_skeleton_utf8(PyObject *self, PyObject *args) {
    PyObject *data, *stops = NULL;
    if (!PyArg_ParseTuple(args, "O!|U:skeleton_utf8", &PyBytes_Type, &data, &stops)) return NULL;
    Py_UCS4 stop[8];
    Py_ssize_t nstop = stops ? PyUnicode_GET_LENGTH(stops) : 0;
    if (nstop > 8) {
        PyErr_SetString(PyExc_ValueError, "skeleton_utf8: at most 8 stop characters");
        return NULL;
    }
    for (Py_ssize_t j = 0; j < nstop; j++) {
        stop[j] = PyUnicode_READ_CHAR(stops, j);
        if (stop[j] < 0x80) {
            PyErr_SetString(PyExc_ValueError, "skeleton_utf8: stop characters must not be ASCII");
            return NULL;
        }
    }
    if (!g_ready) {
        PyErr_SetString(PyExc_RuntimeError, "claimledger._cutf8skel: setup() was not called");
        return NULL;
    }
    const uint8_t *s = (const uint8_t *)PyBytes_AS_STRING(data);
    Py_ssize_t n = PyBytes_GET_SIZE(data);
    Out o;
    /* room for one character per byte, in one byte each, and to widen them to two in place */
    if (o_start(&o, n + 16, (size_t)(n + 16) * 2) < 0) return PyErr_NoMemory();
    if (n >= NOGIL_MIN_BYTES) o.ts = PyEval_SaveThread();
    int rc = run(&o, s, n, stop, nstop);
    if (o.ts) PyEval_RestoreThread(o.ts);
    PyObject *out = NULL;
    if (rc < 0) {
        if (o.nomem && !PyErr_Occurred()) PyErr_NoMemory();
    } else if (rc == 1) {
        Py_INCREF(Py_None);
        out = Py_None;
    } else {
        int kind = o.kind == 1 ? PyUnicode_1BYTE_KIND : o.kind == 2 ? PyUnicode_2BYTE_KIND : PyUnicode_4BYTE_KIND;
        out = PyUnicode_FromKindAndData(kind, o.buf, o.len);
    }
    o_release(&o);
    return out;
}

/* ---- UTF-8 decoding and encoding of long texts without the GIL --------------------------------
 * bytes.decode and str.encode hold the GIL for the whole text: a reading thread decoding a 5 MB
 * source stopped every other thread for milliseconds (issue 19: the GIL, not the cores, bounded
 * a cold run). decode_utf8 validates and counts the characters without the GIL (utf8_next: the
 * strict decoder's rules), allocates the str with the GIL (PyUnicode_New with the exact largest
 * character, so the str is the canonical one bytes.decode builds), then fills it without the GIL
 * (nobody else can see it yet). encode_utf8 does the same the other way. Each answers None where
 * the Python codec would raise or differ (not well-formed bytes, a lone surrogate): the caller
 * then calls the codec, which gives its own answer or error. */

static inline int all_ascii8(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return (w & 0x8080808080808080ull) == 0;
}
#define ALL_ASCII8(p) all_ascii8(p)

/* the number of characters of s[0..n), and the largest (0x7F at most for ASCII); -1: not UTF-8 */
static Py_ssize_t utf8_measure(const uint8_t *s, Py_ssize_t n, Py_UCS4 *largest) {
    Py_ssize_t i = 0, count = 0;
    Py_UCS4 top = 0;
    while (i < n) {
        while (i + 8 <= n && ALL_ASCII8(s + i)) {
            i += 8;
            count += 8;
        }
        if (i >= n) break;
        Py_UCS4 c;
        Py_ssize_t k = utf8_next(s, n, i, &c);
        if (k == 0) return -1;
        if (c > top) top = c;
        i += k;
        count++;
    }
    *largest = top < 0x80 ? 0x7F : top;
    return count;
}

#define UTF8_FILL(T)                                                                                           \
    do {                                                                                                       \
        T *o = (T *)out;                                                                                       \
        Py_ssize_t i = 0, j = 0;                                                                               \
        while (i < n) {                                                                                        \
            while (i + 8 <= n && ALL_ASCII8(s + i)) {                                                          \
                for (int k = 0; k < 8; k++) o[j + k] = (T)s[i + k];                                            \
                i += 8;                                                                                        \
                j += 8;                                                                                        \
            }                                                                                                  \
            if (i >= n) break;                                                                                 \
            Py_UCS4 c = 0xFFFD; /* (utf8_measure validated the bytes: never left so, the loop never stalls) */ \
            Py_ssize_t k = utf8_next(s, n, i, &c);                                                             \
            i += k ? k : 1;                                                                                    \
            o[j++] = (T)c;                                                                                     \
        }                                                                                                      \
    } while (0)

/* the characters of s[0..n) (validated) into a str's buffer of `kind` */
static void utf8_fill(const uint8_t *s, Py_ssize_t n, int kind, void *out) {
    if (kind == PyUnicode_1BYTE_KIND) UTF8_FILL(uint8_t);
    else if (kind == PyUnicode_2BYTE_KIND) UTF8_FILL(uint16_t);
    else UTF8_FILL(uint32_t);
}

static PyObject *py_decode_utf8(PyObject *self, PyObject *args) {
    PyObject *data;
    int sig = 1;
    if (!PyArg_ParseTuple(args, "O!|p:decode_utf8", &PyBytes_Type, &data, &sig)) return NULL;
    const uint8_t *s = (const uint8_t *)PyBytes_AS_STRING(data);
    Py_ssize_t n = PyBytes_GET_SIZE(data);
    if (sig && n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) { /* "utf-8-sig": one leading BOM */
        s += 3;
        n -= 3;
    }
    Py_UCS4 largest = 0;
    Py_ssize_t count;
    int nogil = n >= NOGIL_MIN_BYTES;
    PyThreadState *ts = nogil ? PyEval_SaveThread() : NULL;
    count = utf8_measure(s, n, &largest);
    if (ts) PyEval_RestoreThread(ts);
    if (count < 0) Py_RETURN_NONE;
    PyObject *out = PyUnicode_New(count, largest);
    if (!out) return NULL;
    if (count == 0) return out;
    int kind = PyUnicode_KIND(out);
    void *buf = PyUnicode_DATA(out);
    ts = nogil ? PyEval_SaveThread() : NULL;
    utf8_fill(s, n, kind, buf);
    if (ts) PyEval_RestoreThread(ts);
    return out;
}

/* the UTF-8 length of a str's buffer; -1: it holds a surrogate (str.encode raises) */
#define UTF8_SIZE(T)                                                                                           \
    do {                                                                                                       \
        const T *u = (const T *)in;                                                                            \
        for (Py_ssize_t i = 0; i < len; i++) {                                                                 \
            Py_UCS4 c = u[i];                                                                                  \
            if (c < 0x80) size += 1;                                                                           \
            else if (c < 0x800) size += 2;                                                                     \
            else if (c >= 0xD800 && c <= 0xDFFF) return -1;                                                    \
            else if (c < 0x10000) size += 3;                                                                   \
            else size += 4;                                                                                    \
        }                                                                                                      \
    } while (0)

static Py_ssize_t utf8_size(int kind, const void *in, Py_ssize_t len) {
    Py_ssize_t size = 0;
    if (kind == PyUnicode_1BYTE_KIND) UTF8_SIZE(uint8_t);
    else if (kind == PyUnicode_2BYTE_KIND) UTF8_SIZE(uint16_t);
    else UTF8_SIZE(uint32_t);
    return size;
}

#define UTF8_PUT(T)                                                                                            \
    do {                                                                                                       \
        const T *u = (const T *)in;                                                                            \
        for (Py_ssize_t i = 0; i < len; i++) {                                                                 \
            Py_UCS4 c = u[i];                                                                                  \
            if (c < 0x80) {                                                                                    \
                *o++ = (uint8_t)c;                                                                             \
            } else if (c < 0x800) {                                                                            \
                *o++ = (uint8_t)(0xC0 | (c >> 6));                                                             \
                *o++ = (uint8_t)(0x80 | (c & 0x3F));                                                           \
            } else if (c < 0x10000) {                                                                          \
                *o++ = (uint8_t)(0xE0 | (c >> 12));                                                            \
                *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));                                                    \
                *o++ = (uint8_t)(0x80 | (c & 0x3F));                                                           \
            } else {                                                                                           \
                *o++ = (uint8_t)(0xF0 | (c >> 18));                                                            \
                *o++ = (uint8_t)(0x80 | ((c >> 12) & 0x3F));                                                   \
                *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));                                                    \
                *o++ = (uint8_t)(0x80 | (c & 0x3F));                                                           \
            }                                                                                                  \
        }                                                                                                      \
    } while (0)

static void utf8_put(int kind, const void *in, Py_ssize_t len, uint8_t *o) {
    if (kind == PyUnicode_1BYTE_KIND) UTF8_PUT(uint8_t);
    else if (kind == PyUnicode_2BYTE_KIND) UTF8_PUT(uint16_t);
    else UTF8_PUT(uint32_t);
}

static PyObject *py_encode_utf8(PyObject *self, PyObject *args) {
    PyObject *text;
    if (!PyArg_ParseTuple(args, "U:encode_utf8", &text)) return NULL;
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_IS_ASCII(text)) return PyUnicode_AsUTF8String(text); /* a copy */
    int kind = PyUnicode_KIND(text);
    const void *in = PyUnicode_DATA(text);
    int nogil = len >= NOGIL_MIN_BYTES;
    PyThreadState *ts = nogil ? PyEval_SaveThread() : NULL;
    Py_ssize_t size = utf8_size(kind, in, len);
    if (ts) PyEval_RestoreThread(ts);
    if (size < 0) Py_RETURN_NONE;
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (!out) return NULL;
    uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
    ts = nogil ? PyEval_SaveThread() : NULL;
    utf8_put(kind, in, len, o);
    if (ts) PyEval_RestoreThread(ts);
    return out;
}

static PyObject *py_setup(PyObject *self, PyObject *args) {
    PyObject *fn;
    if (!PyArg_ParseTuple(args, "O:setup", &fn)) return NULL;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "setup: the skeleton function must be callable");
        return NULL;
    }
    /* the table starts over (an earlier setup's strings are never freed: another thread may read them) */
    g_ready = 0;
    for (Py_UCS4 c = 0; c < BMP; c++) {
        g_skel[c] = UNKNOWN;
        g_ptr[c] = NULL;
        g_len[c] = 0;
    }
    Py_INCREF(fn);
    Py_XSETREF(g_fn, fn);
    /* ASCII is filled now: its fast path reads the table without checking for UNKNOWN */
    int plain = 1;
    for (Py_UCS4 c = 0; c < 0x80; c++) {
        if (resolve(c) < 0) return NULL;
        if (g_skel[c] > 0xFF) plain = 0;
    }
    g_ascii_plain = plain;
    g_ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup", py_setup, METH_VARARGS,
     "setup(fn): fn(cp) -> str, claimledger.skeleton's skeleton of one raw character (asked once per\n"
     "BMP code point, the first time some bytes hold it; every time for the others)."},
    {"skeleton_utf8", py_skeleton_utf8, METH_VARARGS,
     "skeleton_utf8(data: bytes, stop: str = '') -> str | None: skeleton.of_raw(data.decode('utf-8-sig')),\n"
     "None when data is not well-formed UTF-8 or holds one of the (non-ASCII) stop characters."},
    {"decode_utf8", py_decode_utf8, METH_VARARGS,
     "decode_utf8(data: bytes, sig: bool = True) -> str | None: data.decode('utf-8-sig') (sig) or\n"
     "data.decode('utf-8'), long data decoded without the GIL; None when data is not well-formed UTF-8."},
    {"encode_utf8", py_encode_utf8, METH_VARARGS,
     "encode_utf8(text: str) -> bytes | None: text.encode('utf-8'), a long text encoded without the\n"
     "GIL; None when text holds a surrogate (str.encode raises)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cutf8skel",
                                    "The skeleton of UTF-8 bytes (claimledger.skeleton.of_utf8).", -1, methods};

PyMODINIT_FUNC PyInit__cutf8skel(void) {
#if HAVE_SCRATCH
    if (!g_scratch_ok) g_scratch_ok = pthread_key_create(&g_scratch_key, scratch_free) == 0;
#endif
    return PyModule_Create(&module);
}
