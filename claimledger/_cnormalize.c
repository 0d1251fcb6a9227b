/* The compiled core of claimledger.normalize: normalize() with its segment map, in one pass.
 *
 * A line-for-line port of the pure-Python normalizer (claimledger/normalize.py: normalize_py,
 * _emit_run, _emit_piece, _space_dropped, _Builder), which stays the fallback and the test oracle
 * (tests/test_normalize_core.py runs both on every CI run; scripts/normalize_differential.py runs
 * a million cases). No Unicode data is compiled in: the invisible characters and the CJK ranges
 * are handed over by claimledger/_normalize_core.py at first use, and each code point's fold is
 * asked of it the first time a text holds that code point (the table starts UNKNOWN: a process
 * pays for the characters it meets, not for the 65,536 of the Basic Multilingual Plane), computed
 * from the running interpreter's unicodedata and from normalize.py's own constants, so a Python
 * upgrade cannot desynchronise the two. Characters outside the Basic Multilingual Plane, and the
 * rare composition of a combining mark with its base, call back into Python.
 *
 * One shortcut is not a line of normalize.py: scan_run folds a run while it looks for the run's end
 * and commits the folded characters where _emit_run would have written the same ones (see there);
 * its lane (lane_<text width>_<builder width>, with SSE2 blocks of printable ASCII where the tables
 * allow) writes what scan_run's loop writes for the characters it takes, without the loop's tests;
 * anything else goes the line-for-line way. The differential tests cover all of them.
 *
 * The lazy tables and threads: an entry is only ever written with the GIL held, once (UNKNOWN to
 * its value; its data first, then the entry with release order), and read without the GIL by the
 * passes over long texts (acquire order where its data is read too). A pass that meets an UNKNOWN
 * entry takes the GIL, checks again and fills it. setup() starts the tables over: it must not run
 * while another thread normalizes (claimledger calls it once per process, before any pass).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_lazytable.h" /* SPECIAL, UNKNOWN, LOAD*, STORE_REL, lazy_resolve */

#if defined(__GNUC__)
#define FLATTEN __attribute__((flatten))
#define NOINLINE __attribute__((noinline))
#else
#define FLATTEN
#define NOINLINE
#endif

#define BMP 0x10000
#define NOGIL_MIN_CHARS 4096 /* shorter texts (quotes) keep the GIL: releasing it costs more */
#define NONE 0xFFFFFFFFu    /* no character (before the start / after the end) */

#define F_INVISIBLE 1
#define F_DROPS 2 /* whitespace next to it vanishes (normalize._SPACE_DROP_RANGES) */
#define F_FW_OPEN 4
#define F_FW_CLOSE 8
#define F_SPACE 32   /* str.isspace() (computed at setup with the interpreter's own Py_UNICODE_ISSPACE) */
#define F_TRIGGER 64 /* whitespace other than an ASCII space, or invisible: ends a plain run */
#define F_STOP 128   /* F_TRIGGER or the ASCII space: scan_run's one test per character */


static uint32_t g_fold[BMP];            /* code point -> its fold, SPECIAL, or UNKNOWN (filled lazily) */
static uint8_t g_flags[BMP];            /* F_* bits: set by setup(), never written afterwards */
static uint8_t g_combining[BMP];        /* unicodedata.combining != 0, valid once g_fold[c] != UNKNOWN */
static Py_UCS4 *g_spec_ptr[BMP];        /* SPECIAL entries: the fold as UCS4 (no Python needed) */
static uint8_t g_spec_len[BMP];
static PyObject *g_entry_fn = NULL;     /* code point -> (fold code point or -1, special fold or None, combining) */
static PyObject *g_fold_fn = NULL;      /* code point -> folded str (astral characters) */
static PyObject *g_combining_fn = NULL; /* unicodedata.combining */
static PyObject *g_nfkc_fn = NULL;      /* str -> NFKC str */
static uint32_t *g_drop_lo = NULL, *g_drop_hi = NULL; /* drop ranges, for astral characters */
static Py_ssize_t g_ndrop = 0;
static int g_ready = 0;

/* ---------------------------------------------------------------- the lazy fold table */

/* Fill code point c's entry (the GIL is held): _normalize_core.entry(c) says how it folds. */
static int fold_resolve(Py_UCS4 c) {
    if (LOAD_ACQ(&g_fold[c]) != UNKNOWN) return 0; /* another thread filled it meanwhile */
    PyObject *r = PyObject_CallFunction(g_entry_fn, "k", (unsigned long)c);
    if (!r) return -1;
    long code;
    PyObject *special;
    int comb;
    int rc = -1;
    if (!PyTuple_Check(r) || !PyArg_ParseTuple(r, "lOp:entry", &code, &special, &comb)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "entry must return a tuple");
        goto done;
    }
    uint32_t v;
    if (code >= 0) {
        if (code >= 0x110000) {
            PyErr_SetString(PyExc_ValueError, "entry: not a code point");
            goto done;
        }
        v = (uint32_t)code;
    } else {
        if (!PyUnicode_Check(special) || PyUnicode_GET_LENGTH(special) > 255) {
            PyErr_SetString(PyExc_ValueError, "entry: a special character needs a fold of at most 255 characters");
            goto done;
        }
        Py_ssize_t m = PyUnicode_GET_LENGTH(special);
        /* never freed: a pass in another thread may read it (at most one per BMP code point per setup) */
        Py_UCS4 *u = PyMem_RawMalloc((size_t)(m + 1) * sizeof(Py_UCS4));
        if (!u) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < m; i++) u[i] = PyUnicode_READ_CHAR(special, i);
        g_spec_ptr[c] = u;
        g_spec_len[c] = (uint8_t)m;
        v = SPECIAL;
    }
    g_combining[c] = comb ? 1 : 0;
    STORE_REL(&g_fold[c], v);
    rc = 0;
done:
    Py_DECREF(r);
    return rc;
}

/* ---------------------------------------------------------------- the text being read */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} Text;

static inline Py_UCS4 raw(const Text *t, Py_ssize_t i) { return PyUnicode_READ(t->kind, t->data, i); }

/* The working copy of normalize_py: a line break between two ASCII characters (not a hyphen,
 * not whitespace) reads as one space (_SIMPLE_BREAK). Its neighbours are never rewritten
 * themselves, so reading it on the fly gives the same text as the substitution. */
static inline Py_UCS4 tch(const Text *t, Py_ssize_t i) {
    Py_UCS4 c = raw(t, i);
    if (c == '\n' && i > 0 && i + 1 < t->n) {
        Py_UCS4 p = raw(t, i - 1), q = raw(t, i + 1);
        if (p >= 0x21 && p <= 0x7E && p != '-' && q >= 0x21 && q <= 0x7E) return ' ';
    }
    return c;
}

static inline int is_invisible(Py_UCS4 c) { return c < BMP && (g_flags[c] & F_INVISIBLE); }

static inline int drops_space(Py_UCS4 c) {
    if (c < BMP) return (g_flags[c] & F_DROPS) != 0;
    for (Py_ssize_t k = 0; k < g_ndrop; k++)
        if (g_drop_lo[k] <= c && c <= g_drop_hi[k]) return 1;
    return 0;
}

static inline int is_fullwidth_ascii(Py_UCS4 c) { return c >= 0xFF01 && c <= 0xFF5E; }

static inline int is_latin_side(Py_UCS4 c) {
    return c != NONE && (is_fullwidth_ascii(c) || (c >= '!' && c <= '~'));
}

static inline int is_space(Py_UCS4 c) { return c < BMP ? (g_flags[c] & F_SPACE) != 0 : Py_UNICODE_ISSPACE(c); }

static inline int is_blank(Py_UCS4 c) { return is_invisible(c) || is_space(c); }

/* normalize._space_dropped */
static int space_dropped(const Text *t, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t i = start - 1, j = end;
    while (i >= 0 && is_blank(tch(t, i))) i--;
    while (j < t->n && is_blank(tch(t, j))) j++;
    Py_UCS4 left = i >= 0 ? tch(t, i) : NONE;
    Py_UCS4 right = j < t->n ? tch(t, j) : NONE;
    if ((left != NONE && left < BMP && (g_flags[left] & F_FW_OPEN)) ||
        (right != NONE && right < BMP && (g_flags[right] & F_FW_CLOSE)))
        return 1;
    if (left != NONE && drops_space(left) && !(is_fullwidth_ascii(left) && is_latin_side(right))) return 1;
    if (right != NONE && drops_space(right) && !(is_fullwidth_ascii(right) && is_latin_side(left))) return 1;
    return 0;
}

/* ---------------------------------------------------------------- the builder */

typedef struct {
    int kind; /* 1, 2 or 4 bytes per character */
    void *buf; /* the characters: a raw buffer, or the data of `str` */
    Py_ssize_t len, cap;
    Py_UCS4 limit; /* the largest character buf can hold without widening */
    int obj;       /* build the output in `str`, a str object returned as it is (never copied) */
    PyObject *str; /* with obj: the str being built (refcount 1, never shared until it is done) */
    int recheck;   /* with obj: a character was taken back, the kind may be wider than the text needs */
    int64_t *ns, *os, *oe;
    uint8_t *lin;
    Py_ssize_t nseg, segcap;
    PyThreadState *ts; /* non-NULL while the pass runs without the GIL (gil_on/gil_off around Python) */
    int nomem;         /* an allocation failed (the MemoryError is raised once the GIL is held again) */
} B;

/* A long text is normalized without the GIL, so other threads run (claimledger reads the next
 * source while it scans this one). The builder allocates with the raw allocator, or (obj) builds
 * the output str object itself, so the result is never copied: a copy of a large source's
 * normalized text was the peak of a run's memory (issue 19); the rare calls into Python
 * (characters outside the BMP, composing a combining mark, a str allocated or resized) take the
 * GIL back. */
static inline void gil_on(B *b) {
    if (b->ts) PyEval_RestoreThread(b->ts);
}
static inline void gil_off(B *b) {
    if (b->ts) b->ts = PyEval_SaveThread();
}
static inline int nomem(B *b) {
    b->nomem = 1;
    return -1;
}

static inline Py_UCS4 b_get(const B *b, Py_ssize_t i) {
    if (b->kind == 1) return ((uint8_t *)b->buf)[i];
    if (b->kind == 2) return ((uint16_t *)b->buf)[i];
    return ((uint32_t *)b->buf)[i];
}

/* a new str of `cap` characters up to `limit` (taking the GIL for it); NULL: out of memory */
static PyObject *b_new_str(B *b, Py_ssize_t cap, Py_UCS4 limit) {
    gil_on(b);
    PyObject *s = PyUnicode_New(cap, limit);
    if (!s) PyErr_Clear(); /* reported as b->nomem */
    gil_off(b);
    return s;
}

/* the first n code units of `from` (of kind fk) into `to` (of kind tk >= fk): one loop per pair of
 * kinds, which the compiler vectorizes (a source's output widened late was copied a character at a
 * time, a test of the kind each) */
static void b_copy_wider(const void *from, int fk, void *to, int tk, Py_ssize_t n) {
#define COPY_WIDER(F, T)                                                                            \
    do {                                                                                            \
        const F *f = (const F *)from;                                                               \
        T *t = (T *)to;                                                                             \
        for (Py_ssize_t i = 0; i < n; i++) t[i] = (T)f[i];                                          \
    } while (0)
    if (fk == 1 && tk == 1) memcpy(to, from, (size_t)n);
    else if (fk == 1 && tk == 2) COPY_WIDER(uint8_t, uint16_t);
    else if (fk == 1) COPY_WIDER(uint8_t, uint32_t);
    else if (fk == 2 && tk == 2) memcpy(to, from, (size_t)n * 2);
    else if (fk == 2) COPY_WIDER(uint16_t, uint32_t);
    else memcpy(to, from, (size_t)n * 4);
#undef COPY_WIDER
}

/* room for `c`: the characters so far copied to a wider buffer (a str: the narrowest one that
 * holds c, as CPython requires of a str's kind) */
static int b_widen(B *b, Py_UCS4 c) {
    Py_UCS4 limit = c <= 0x7F ? 0x7F : c <= 0xFF ? 0xFF : c <= 0xFFFF ? 0xFFFF : 0x10FFFF;
    int kind = limit <= 0xFF ? 1 : limit == 0xFFFF ? 2 : 4;
    if (!b->obj && limit < 0xFF) limit = 0xFF;
    PyObject *ns = NULL;
    void *nb;
    if (b->obj) {
        ns = b_new_str(b, b->cap, limit);
        if (!ns) return nomem(b);
        nb = PyUnicode_DATA(ns);
    } else {
        nb = PyMem_RawMalloc((size_t)b->cap * (size_t)kind);
        if (!nb) return nomem(b);
    }
    b_copy_wider(b->buf, b->kind, nb, kind, b->len);
    if (b->obj) {
        gil_on(b);
        Py_XSETREF(b->str, ns);
        gil_off(b);
    } else {
        PyMem_RawFree(b->buf);
    }
    b->buf = nb;
    b->kind = kind;
    b->limit = limit;
    return 0;
}

static int b_reserve(B *b, Py_ssize_t extra) {
    if (b->len + extra <= b->cap) return 0;
    Py_ssize_t cap = b->cap + b->cap / 2 + extra + 16;
    if (b->obj) {
        if (!b->str) {
            b->str = b_new_str(b, cap, b->limit);
            if (!b->str) return nomem(b);
        } else {
            gil_on(b);
            int rc = PyUnicode_Resize(&b->str, cap); /* on failure b->str is left as it was */
            if (rc < 0) PyErr_Clear();
            gil_off(b);
            if (rc < 0) return nomem(b);
        }
        b->buf = PyUnicode_DATA(b->str);
        b->cap = cap;
        return 0;
    }
    void *nb = PyMem_RawRealloc(b->buf, (size_t)cap * (size_t)b->kind);
    if (!nb) return nomem(b);
    b->buf = nb;
    b->cap = cap;
    return 0;
}

/* append one character; room must have been reserved */
static inline int b_put(B *b, Py_UCS4 c) {
    if (c > b->limit && b_widen(b, c) < 0) return -1;
    if (b->kind == 1) ((uint8_t *)b->buf)[b->len++] = (uint8_t)c;
    else if (b->kind == 2) ((uint16_t *)b->buf)[b->len++] = (uint16_t)c;
    else ((uint32_t *)b->buf)[b->len++] = c;
    return 0;
}

static int seg_push(B *b, int64_t ns, int64_t os, int64_t oe, uint8_t lin) {
    if (b->nseg == b->segcap) {
        Py_ssize_t cap = b->segcap * 2 + 64;
        int64_t *a = PyMem_RawRealloc(b->ns, (size_t)cap * sizeof(int64_t));
        if (!a) return nomem(b);
        b->ns = a;
        a = PyMem_RawRealloc(b->os, (size_t)cap * sizeof(int64_t));
        if (!a) return nomem(b);
        b->os = a;
        a = PyMem_RawRealloc(b->oe, (size_t)cap * sizeof(int64_t));
        if (!a) return nomem(b);
        b->oe = a;
        uint8_t *l = PyMem_RawRealloc(b->lin, (size_t)cap);
        if (!l) return nomem(b);
        b->lin = l;
        b->segcap = cap;
    }
    b->ns[b->nseg] = ns;
    b->os[b->nseg] = os;
    b->oe[b->nseg] = oe;
    b->lin[b->nseg] = lin;
    b->nseg++;
    return 0;
}

/* _Builder.add's segment bookkeeping for an output of the current length */
static inline int b_segment(B *b, Py_ssize_t ostart, Py_ssize_t oend, int linear) {
    Py_ssize_t k = b->nseg - 1;
    if (linear && b->nseg && b->lin[k] && b->oe[k] == ostart && b->ns[k] + (b->oe[k] - b->os[k]) == b->len) {
        b->oe[k] = oend;
        return 0;
    }
    return seg_push(b, b->len, ostart, oend, linear ? 1 : 0);
}

/* _Builder._remap_last */
static int b_remap_last(B *b, int64_t oend) {
    int64_t last = b->len - 1;
    Py_ssize_t k = b->nseg - 1;
    if (b->lin[k]) {
        int64_t base = b->os[k] + (last - b->ns[k]);
        if (last > b->ns[k]) {
            b->oe[k] = base;
            return seg_push(b, last, base, oend, 0);
        }
        b->lin[k] = 0;
        b->oe[k] = oend;
    } else if (oend > b->oe[k]) {
        b->oe[k] = oend;
    }
    return 0;
}

static int combining_py(Py_UCS4 c) {
    PyObject *s = PyUnicode_FromOrdinal((int)c);
    if (!s) return -1;
    PyObject *r = PyObject_CallOneArg(g_combining_fn, s);
    Py_DECREF(s);
    if (!r) return -1;
    long v = PyLong_AsLong(r);
    Py_DECREF(r);
    if (v == -1 && PyErr_Occurred()) return -1;
    return v != 0;
}

/* g_fold[c] (c in the BMP) is known: filled now if it was UNKNOWN (taking the GIL for it) */
/* (never inlined, as the other rare paths of the passes below: one copy of each keeps the build quick) */
NOINLINE static int fold_known(B *b, Py_UCS4 c) {
    if (LOAD_ACQ(&g_fold[c]) != UNKNOWN) return 0;
    gil_on(b);
    int rc = fold_resolve(c);
    gil_off(b);
    return rc;
}

static int combining(B *b, Py_UCS4 c) {
    if (c < BMP) {
        if (fold_known(b, c) < 0) return -1;
        return g_combining[c];
    }
    gil_on(b);
    int v = combining_py(c);
    gil_off(b);
    return v;
}

/* NFKC(last + marks) into a raw buffer (*out, *len); the GIL is taken for the call */
static int compose(B *b, Py_UCS4 last, const Py_UCS4 *marks, Py_ssize_t j, Py_UCS4 **out, Py_ssize_t *len) {
    int rc = -1;
    gil_on(b);
    Py_UCS4 *tmp = PyMem_Malloc((size_t)(j + 1) * sizeof(Py_UCS4));
    if (!tmp) {
        PyErr_NoMemory();
        goto done;
    }
    tmp[0] = last;
    memcpy(tmp + 1, marks, (size_t)j * sizeof(Py_UCS4));
    PyObject *s = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, tmp, j + 1);
    PyMem_Free(tmp);
    if (!s) goto done;
    PyObject *merged = PyObject_CallOneArg(g_nfkc_fn, s);
    Py_DECREF(s);
    if (!merged) goto done;
    if (!PyUnicode_Check(merged) || PyUnicode_GET_LENGTH(merged) == 0) {
        Py_DECREF(merged);
        PyErr_SetString(PyExc_TypeError, "NFKC returned no text");
        goto done;
    }
    Py_ssize_t ml = PyUnicode_GET_LENGTH(merged);
    *out = PyMem_RawMalloc((size_t)ml * sizeof(Py_UCS4));
    if (!*out) {
        Py_DECREF(merged);
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < ml; i++) (*out)[i] = PyUnicode_READ_CHAR(merged, i);
    Py_DECREF(merged);
    *len = ml;
    rc = 0;
done:
    gil_off(b);
    return rc;
}

/* _Builder.add for a short output held in `out` (a special character's fold, "-", " ") */
NOINLINE static int b_add(B *b, const Py_UCS4 *out, Py_ssize_t m, Py_ssize_t ostart, Py_ssize_t oend, int linear) {
    if (m == 0) return 0;
    if (b->len > 0) {
        int cm = combining(b, out[0]);
        if (cm < 0) return -1;
        Py_UCS4 last = b_get(b, b->len - 1);
        if (cm && last != ' ') {
            /* a combining mark whose base was split off: compose it with the base */
            Py_ssize_t j = 1;
            while (j < m) {
                int c2 = combining(b, out[j]);
                if (c2 < 0) return -1;
                if (!c2) break;
                j++;
            }
            Py_UCS4 *merged = NULL;
            Py_ssize_t ml = 0;
            if (compose(b, last, out, j, &merged, &ml) < 0) return -1;
            if (b_remap_last(b, linear ? (int64_t)(ostart + j) : (int64_t)oend) < 0) {
                PyMem_RawFree(merged);
                return -1;
            }
            /* the character taken back may have been the one that widened the kind */
            if (last > (b->limit == 0x10FFFF ? 0xFFFF : b->limit == 0xFFFF ? 0xFF : 0x7F)) b->recheck = 1;
            b->len -= 1;
            if (b_reserve(b, ml) < 0) {
                PyMem_RawFree(merged);
                return -1;
            }
            for (Py_ssize_t i = 0; i < ml; i++) {
                if (b_put(b, merged[i]) < 0) {
                    PyMem_RawFree(merged);
                    return -1;
                }
            }
            PyMem_RawFree(merged);
            out += j;
            m -= j;
            if (linear) ostart += j;
            if (m == 0) return 0;
        }
    }
    if (out[0] == ' ' && (b->len == 0 || b_get(b, b->len - 1) == ' ')) {
        out += 1;
        m -= 1;
        if (m == 0) return 0;
        if (linear) ostart += 1;
    }
    if (b_segment(b, ostart, oend, linear) < 0) return -1;
    if (b_reserve(b, m) < 0) return -1;
    for (Py_ssize_t i = 0; i < m; i++)
        if (b_put(b, out[i]) < 0) return -1;
    return 0;
}

/* _Builder.add(text[a:b].translate(_FOLD), a, b, True) for characters that fold one to one
 * (never to a combining mark, so the composition branch cannot apply) */
static int b_add_span(B *b, const Text *t, Py_ssize_t a, Py_ssize_t e) {
    if (a >= e) return 0;
    if (LOAD(&g_fold[tch(t, a)]) == ' ' && (b->len == 0 || b_get(b, b->len - 1) == ' ')) {
        a += 1;
        if (a == e) return 0;
    }
    if (b_segment(b, a, e, 1) < 0) return -1;
    if (b_reserve(b, e - a) < 0) return -1;
    Py_ssize_t k = a;
    /* the common case, written with the builder's width fixed: each folded character that fits
     * the builder as it is goes straight in (what b_put does for it); the first one that does not
     * leaves the rest to b_put, which widens the builder */
    if (b->kind == 1) {
        uint8_t *out = (uint8_t *)b->buf + b->len;
        Py_UCS4 limit = b->limit;
        for (; k < e; k++) {
            Py_UCS4 v = LOAD(&g_fold[tch(t, k)]);
            if (v > limit) break;
            *out++ = (uint8_t)v;
        }
        b->len = out - (uint8_t *)b->buf;
    } else if (b->kind == 2) {
        uint16_t *out = (uint16_t *)b->buf + b->len;
        Py_UCS4 limit = b->limit;
        for (; k < e; k++) {
            Py_UCS4 v = LOAD(&g_fold[tch(t, k)]);
            if (v > limit) break;
            *out++ = (uint16_t)v;
        }
        b->len = out - (uint16_t *)b->buf;
    }
    for (; k < e; k++)
        if (b_put(b, LOAD(&g_fold[tch(t, k)])) < 0) return -1;
    return 0;
}

/* ---------------------------------------------------------------- the passes */

/* true for UNKNOWN entries too: the slow path fills them */
static inline int is_special(Py_UCS4 c) { return c >= BMP || (LOAD(&g_fold[c]) & SPECIAL); }

/* an astral character's fold, asked of Python (the GIL is held) */
static PyObject *fold_str(Py_UCS4 c) {
    PyObject *cp = PyLong_FromUnsignedLong(c);
    if (!cp) return NULL;
    PyObject *s = PyObject_CallOneArg(g_fold_fn, cp);
    Py_DECREF(cp);
    if (s && !PyUnicode_Check(s)) {
        Py_DECREF(s);
        PyErr_SetString(PyExc_TypeError, "fold must return str");
        return NULL;
    }
    return s;
}

/* the special character c at k (a fold other than one character for one, or unknown) */
NOINLINE static int emit_special(B *b, Py_ssize_t k, Py_UCS4 c) {
    if (c < BMP) return b_add(b, g_spec_ptr[c], g_spec_len[c], k, k + 1, g_spec_len[c] == 1);
    gil_on(b);
    PyObject *s = fold_str(c);
    Py_UCS4 *out = NULL;
    Py_ssize_t m = 0;
    if (s) {
        m = PyUnicode_GET_LENGTH(s);
        out = PyMem_RawMalloc((size_t)(m + 1) * sizeof(Py_UCS4));
        if (out)
            for (Py_ssize_t i = 0; i < m; i++) out[i] = PyUnicode_READ_CHAR(s, i);
        else
            PyErr_NoMemory();
        Py_DECREF(s);
    }
    gil_off(b);
    if (!out) return -1;
    int r = b_add(b, out, m, k, k + 1, m == 1);
    PyMem_RawFree(out);
    return r;
}

/* 1 when c is special (its fold filled now if it was unknown), 0 when it folds one to one */
static inline int special_now(B *b, Py_UCS4 c) {
    if (!is_special(c)) return 0;
    if (c < BMP) {
        if (fold_known(b, c) < 0) return -1;
        if (!(LOAD(&g_fold[c]) & SPECIAL)) return 0; /* it was UNKNOWN and folds one to one */
    }
    return 1;
}

/* normalize._emit_run (not ASCII) with normalize._emit_piece for each piece, in one pass: the
 * pieces are the stretches between the spaces _space_dropped drops; within a piece, each special
 * character ends a span of characters that fold one to one. The builder gets the same calls in the
 * same order as from the two loops of normalize.py (a space is never special). */
static int emit_pieces(B *b, const Text *t, Py_ssize_t a, Py_ssize_t e) {
    Py_ssize_t seg = a;
    for (Py_ssize_t k = a; k < e; k++) {
        Py_UCS4 c = tch(t, k);
        if (c == ' ') {
            if (space_dropped(t, k, k + 1)) { /* the piece ends; the next one starts after the space */
                if (b_add_span(b, t, seg, k) < 0) return -1;
                seg = k + 1;
            }
            continue;
        }
        int sp = special_now(b, c);
        if (sp < 0) return -1;
        if (!sp) continue;
        if (b_add_span(b, t, seg, k) < 0) return -1;
        if (emit_special(b, k, c) < 0) return -1;
        seg = k + 1;
    }
    return b_add_span(b, t, seg, e);
}

/* normalize._emit_run: [a, e) holds no whitespace but single ASCII spaces and no invisible
 * characters; a space there is dropped when _space_dropped says so (inner spaces of an ASCII
 * run never are: both their neighbours are ASCII) */
static int emit_run(B *b, const Text *t, Py_ssize_t a, Py_ssize_t e, int ascii) {
    if (a >= e) return 0;
    if (!ascii) { /* the caller saw a character from 0x80 on, maybe outside [a, e): look */
        ascii = 1;
        for (Py_ssize_t k = a; k < e; k++)
            if (tch(t, k) >= 0x80) {
                ascii = 0;
                break;
            }
    }
    if (ascii) {
        Py_ssize_t lo = a, hi = e;
        if (tch(t, a) == ' ' && space_dropped(t, a, a + 1)) lo++;
        if (hi > lo && tch(t, hi - 1) == ' ' && space_dropped(t, hi - 1, hi)) hi--;
        return b_add_span(b, t, lo, hi);
    }
    return emit_pieces(b, t, a, e);
}

/* _BREAK_TAIL: [ \t]*(?:\r\n|\r|\n)?[ \t]* */
static Py_ssize_t break_tail(const Text *t, Py_ssize_t p) {
    Py_ssize_t q = p, n = t->n;
    while (q < n && (tch(t, q) == ' ' || tch(t, q) == '\t')) q++;
    if (q < n && tch(t, q) == '\r') {
        q++;
        if (q < n && tch(t, q) == '\n') q++;
    } else if (q < n && tch(t, q) == '\n') {
        q++;
    }
    while (q < n && (tch(t, q) == ' ' || tch(t, q) == '\t')) q++;
    return q;
}

/* _line_breaks */
static Py_ssize_t line_breaks(const Text *t, Py_ssize_t a, Py_ssize_t e) {
    Py_ssize_t count = 0;
    for (Py_ssize_t k = a; k < e; k++) {
        Py_UCS4 c = tch(t, k);
        if (c == '\n') count++;
        else if (c == '\r') {
            count++;
            if (k + 1 < e && tch(t, k + 1) == '\n') k++;
        }
    }
    return count;
}

static inline int is_trigger(Py_UCS4 c) {
    return c < BMP ? (g_flags[c] & F_TRIGGER) != 0 : Py_UNICODE_ISSPACE(c);
}

/* b_add_span(b, t, a, e) for characters already folded into the builder's room, buf[len, len + e - a):
 * the same checks and segment, without writing them again. (Its first branch, a span that starts
 * with a space after a space, cannot be reached from scan_run with today's Unicode data: only
 * whitespace folds to a space and no special fold ends in one; it is kept so that the two stay
 * the same function.) */
static inline int commit_span(B *b, Py_ssize_t a, Py_ssize_t e) {
    if (a >= e) return 0;
    if (b_get(b, b->len) == ' ' && (b->len == 0 || b_get(b, b->len - 1) == ' ')) {
        a += 1;
        if (a == e) return 0;
        char *p = (char *)b->buf + b->len * b->kind;
        memmove(p, p + b->kind, (size_t)(e - a) * (size_t)b->kind);
    }
    if (b_segment(b, a, e, 1) < 0) return -1;
    b->len += e - a;
    return 0;
}

#define NEAR_DROP (F_DROPS | F_FW_OPEN | F_FW_CLOSE) /* a space next to it may be dropped */

/* The ASCII tables of scan_run's lane, set by setup() (0: not in the lane). g_lane[c]: the fold of a printable
 * ASCII character (U+0021..U+007E) that stops nothing, has no NEAR_DROP flag and folds to one ASCII
 * character. g_lane_space: the fold of the space, when it is one ASCII character. Between two lane
 * characters a single space, or a line break after anything but a hyphen (tch: it reads as a space),
 * is written as scan_run writes a space there: the space is neither a trigger nor at the run's start,
 * the next character is not a space, and neither neighbour has a NEAR_DROP flag. */
static uint8_t g_lane[0x80];
static uint8_t g_lane_space = 0;

/* scan_run's lane: from s (s > 0) up to end (end < the text's length), what scan_run's loop writes
 * into `out` (out[i - seg] for text position i) for the characters it folds one to one without a
 * test of theirs failing: a lane character (g_lane), a space or a wrapped line's break between two
 * lane characters (g_lane_space), a character from U+0080 that stops nothing and folds to one that
 * fits the builder (its fold at most `limit`; *wide or-ed with it, as scan_run's *seen). The first
 * position it does not write is returned: scan_run's own loop takes it from there. One function per
 * pair of character widths, not inlined: in the whole pass the compiler ran out of registers. */
/* one character of the lane at s: its value in v, or break */
#define LANE_STEP(in, a, v, wide)                                                                          \
    if (a < 0x80) {                                                                                         \
        v = g_lane[a];                                                                                      \
        if (__builtin_expect(!v, 0)) { /* a space or a wrapped line's break between two lane characters */ \
            Py_UCS4 left = in[s - 1], right = in[s + 1];                                                    \
            if ((a != ' ' && (a != '\n' || left == '-')) || left >= 0x80 || right >= 0x80 ||                \
                !g_lane[left] || !g_lane[right] || !g_lane_space)                                           \
                break;                                                                                      \
            v = g_lane_space;                                                                               \
        }                                                                                                   \
    } else {                                                                                                \
        if (a >= BMP || (g_flags[a] & F_STOP)) break;                                                       \
        v = LOAD(&g_fold[a]);                                                                               \
        if (v > limit) break; /* wider, special or unknown */                                               \
        wide |= a;                                                                                          \
    }
/* a lane function: BLOCK (the SSE2 blocks, or nothing) then LANE_STEP, character by character */
#define LANE_BODY(TK, TO, NAME, BLOCK)                                                                      \
    static NOINLINE Py_ssize_t NAME(const TK *in, TO *out, Py_ssize_t s, Py_ssize_t end, Py_ssize_t seg,    \
                                    Py_UCS4 limit, Py_UCS4 *wide_out) {                                     \
        Py_UCS4 wide = 0;                                                                                   \
        for (; s < end; s++) {                                                                              \
            BLOCK                                                                                           \
            Py_UCS4 a = in[s], v;                                                                           \
            LANE_STEP(in, a, v, wide)                                                                       \
            out[s - seg] = (TO)v;                                                                           \
        }                                                                                                   \
        *wide_out |= wide;                                                                                  \
        return s;                                                                                           \
    }
#define LANE_FN(TK, TO, NAME) LANE_BODY(TK, TO, NAME, )
LANE_FN(Py_UCS1, uint16_t, lane_1_2)
LANE_FN(Py_UCS1, uint32_t, lane_1_4)
LANE_FN(Py_UCS2, uint8_t, lane_2_1)
LANE_FN(Py_UCS2, uint32_t, lane_2_4)
LANE_FN(Py_UCS4, uint8_t, lane_4_1)

/* SSE2 blocks of the lane, where the tables allow them (g_lane_sse2, checked by setup(): every
 * printable ASCII character is a lane character folded to its ASCII lower case, and the space to a
 * space). A block of 16 / 8 / 4 characters (one, two, four bytes each) is taken at once when each is
 * printable ASCII, or a space or a wrapped line's break (not after a hyphen) between two printable
 * ASCII characters: LANE_STEP writes for each what the block writes, lower case and a space. Compares
 * are signed: from 0x80 (one byte) or 0x8000 (two bytes) on a character reads as negative, below 0x21;
 * a four-byte character is at most 0x10FFFF. The block reads one character before and one after it:
 * the lane runs from s > 0 to the text's last but one character at most. */
#if defined(__SSE2__)
#include <emmintrin.h>
static int g_lane_sse2 = 0;
#define LANE_BLOCK(W, SET1, GT, LT, EQ, ADD)                                                                \
    static inline int lane_block_##W(const void *at, __m128i *folded) {                                      \
        const char *p = (const char *)at;                                                                   \
        const __m128i lo = SET1(0x20), hi = SET1(0x7F);                                                     \
        __m128i x = _mm_loadu_si128((const __m128i *)p);                                                    \
        __m128i xl = _mm_loadu_si128((const __m128i *)(p - W));                                             \
        __m128i xr = _mm_loadu_si128((const __m128i *)(p + W));                                             \
        __m128i lx = _mm_and_si128(GT(x, lo), LT(x, hi));                                                   \
        __m128i ll = _mm_and_si128(GT(xl, lo), LT(xl, hi));                                                 \
        __m128i lr = _mm_and_si128(GT(xr, lo), LT(xr, hi));                                                 \
        __m128i sp = EQ(x, SET1(' '));                                                                      \
        __m128i nl = _mm_andnot_si128(EQ(xl, SET1('-')), EQ(x, SET1('\n')));                                \
        __m128i gap = _mm_and_si128(_mm_or_si128(sp, nl), _mm_and_si128(ll, lr));                           \
        if (_mm_movemask_epi8(_mm_or_si128(lx, gap)) != 0xFFFF) return 0;                                   \
        __m128i up = _mm_and_si128(GT(x, SET1('A' - 1)), LT(x, SET1('Z' + 1)));                             \
        __m128i y = ADD(x, _mm_and_si128(up, SET1(0x20)));                                                  \
        *folded = _mm_or_si128(_mm_andnot_si128(gap, y), _mm_and_si128(gap, SET1(' ')));                    \
        return 1;                                                                                           \
    }
LANE_BLOCK(1, _mm_set1_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_cmpeq_epi8, _mm_add_epi8)
LANE_BLOCK(2, _mm_set1_epi16, _mm_cmpgt_epi16, _mm_cmplt_epi16, _mm_cmpeq_epi16, _mm_add_epi16)
LANE_BLOCK(4, _mm_set1_epi32, _mm_cmpgt_epi32, _mm_cmplt_epi32, _mm_cmpeq_epi32, _mm_add_epi32)
/* the blocks of a lane while they pass, then its characters one at a time */
#define LANE_SSE2(K, N, STORE)                                                                              \
    if (g_lane_sse2) {                                                                                      \
        __m128i y;                                                                                          \
        while (s + N <= end && lane_block_##K(in + s, &y)) {                                                \
            STORE;                                                                                          \
            s += N;                                                                                         \
        }                                                                                                   \
    }                                                                                                       \
    if (s >= end) break;
#else
#define LANE_SSE2(K, N, STORE)
#endif
#define LANE_FN_SSE2(TK, TO, NAME, K, N, STORE) LANE_BODY(TK, TO, NAME, LANE_SSE2(K, N, STORE))
/* (as one-byte text: ASCII and Latin-1 documents; two-byte: most others; four-byte: a document
 * with an emoji, its output two bytes wide before the emoji, four after) */
LANE_FN_SSE2(Py_UCS1, uint8_t, lane_1_1, 1, 16, _mm_storeu_si128((__m128i *)(out + (s - seg)), y))
LANE_FN_SSE2(Py_UCS2, uint16_t, lane_2_2, 2, 8, _mm_storeu_si128((__m128i *)(out + (s - seg)), y))
LANE_FN_SSE2(Py_UCS4, uint32_t, lane_4_4, 4, 4, _mm_storeu_si128((__m128i *)(out + (s - seg)), y))
LANE_FN_SSE2(Py_UCS4, uint16_t, lane_4_2, 4, 4, _mm_storel_epi64((__m128i *)(out + (s - seg)), _mm_packs_epi32(y, y)))
/* lane_<text width>_<okind>(...) in scan_run (okind and, in each copy of the pass, the text's width are constants) */
#define LANE_CALL(K, TK)                                                                                    \
    (okind == 1   ? lane_##K##_1((const TK *)t->data, (uint8_t *)out, s, end, seg, limit, &seen)            \
     : okind == 2 ? lane_##K##_2((const TK *)t->data, (uint16_t *)out, s, end, seg, limit, &seen)           \
                  : lane_##K##_4((const TK *)t->data, (uint32_t *)out, s, end, seg, limit, &seen))

/* The end of the plain run from `pos` (the first double space, other whitespace or invisible
 * character), with *seen: its characters or-ed; -1 on an error. With `okind` (the builder's kind, 1,
 * 2 or 4; 0: none) the run is emitted meanwhile as emit_run would emit it: each character that folds
 * one to one into the builder as it is goes straight into the builder's room past its length, and
 * where emit_pieces ends a piece (a special character from U+0080 on, a space dropped between two
 * characters of the run, one of them not ASCII) the piece so far is committed (commit_span) and the
 * special character emitted. The run from *seg on is what is left to emit (emit_scanned), folded
 * already when *fast. At the first character that breaks this (a fold wider than the builder, a
 * space at the run's start or one whose neighbours are not both in the run, a hyphen, no room left)
 * the scan goes on without folding, and emit_run or emit_pieces emits the rest. Everything committed
 * is what emit_pieces commits for the same characters: it decides each piece from the text alone,
 * and two adjacent linear spans make one segment (b_segment), so where a piece is cut changes
 * nothing. */
static inline Py_ssize_t scan_run(B *b, const Text *t, Py_ssize_t pos, Py_UCS4 *seen_out, Py_ssize_t *seg_out,
                                  int *fast, const int okind) {
    Py_ssize_t s = pos, n = t->n, seg = pos;
    Py_UCS4 seen = 0;
    *fast = 0;
    if (okind == 1 || okind == 2 || okind == 4) {
        Py_ssize_t room_end = seg + (b->cap - b->len);
        Py_UCS4 limit = b->limit;
        void *out = (char *)b->buf + b->len * okind;
        for (; s < n; s++) {
            /* the lane (lane_<text width>_<okind>): what the loop below writes for the characters
             * it takes, without the loop's tests; it or-s into `seen` those from U+0080 on (an
             * ASCII character leaves `seen` below 0x80, its one use) */
            if (s > pos) { /* the character before is in the run */
                Py_ssize_t end = room_end < n - 1 ? room_end : n - 1; /* the character after is in the text */
                if (t->kind == PyUnicode_1BYTE_KIND) s = LANE_CALL(1, Py_UCS1);
                else if (t->kind == PyUnicode_2BYTE_KIND) s = LANE_CALL(2, Py_UCS2);
                else s = LANE_CALL(4, Py_UCS4);
            }
            if (s >= n) break;
            Py_UCS4 c = raw(t, s);
            if (c >= BMP) goto plain;
            if (!(g_flags[c] & F_STOP)) goto fold; /* the common case: one test ('\n' is a trigger) */
            c = tch(t, s);
            if (c != ' ') break; /* a trigger */
            if (s + 1 < n && tch(t, s + 1) == ' ') break;
            if (s == pos) goto plain; /* a run that starts with a space: emit_run may drop it */
            if (s + 1 < n) {
                Py_UCS4 left = tch(t, s - 1), right = tch(t, s + 1); /* left was folded: in the BMP */
                if (right >= BMP) goto plain;
                if ((g_flags[left] | g_flags[right]) & NEAR_DROP) {
                    if (is_trigger(right) || (left < 0x80 && right < 0x80)) goto plain;
                    if (space_dropped(t, s, s + 1)) { /* emit_pieces ends a piece here */
                        seen |= c;
                        if (commit_span(b, seg, s) < 0) return -1;
                        goto cut;
                    }
                }
            }
        fold:
            seen |= c;
            if (s >= room_end) goto plain;
            Py_UCS4 v = LOAD(&g_fold[c]);
            if (v > limit) {
                if (v == UNKNOWN) {
                    if (fold_known(b, c) < 0) return -1;
                    v = LOAD(&g_fold[c]);
                }
                if (v > limit) {
                    if (!(v & SPECIAL) || c < 0x80 || c == 0x2010) goto plain; /* wider, or a hyphen */
                    if (commit_span(b, seg, s) < 0 || emit_special(b, s, c) < 0) return -1;
                    if (b->kind != okind) { /* the special character widened the builder */
                        seg = ++s;
                        goto plain;
                    }
                    goto cut;
                }
            }
            if (okind == 1) ((uint8_t *)out)[s - seg] = (uint8_t)v;
            else if (okind == 2) ((uint16_t *)out)[s - seg] = (uint16_t)v;
            else ((uint32_t *)out)[s - seg] = v;
            continue;
        cut: /* a piece ended at s: the rest of the run is folded into the builder's room from s + 1 */
            seg = s + 1;
            limit = b->limit;
            room_end = seg + (b->cap - b->len);
            out = (char *)b->buf + b->len * okind;
        }
        *fast = 1;
        *seen_out = seen;
        *seg_out = seg;
        return s;
    }
plain:
    for (; s < n; s++) {
        Py_UCS4 c = tch(t, s);
        if (c == ' ') {
            if (s + 1 < n && tch(t, s + 1) == ' ') break;
        } else if (is_trigger(c)) {
            break;
        }
        seen |= c;
    }
    *seen_out = seen;
    *seg_out = seg;
    return s;
}

/* emit_run(b, t, pos, e, ascii) for the run scan_run scanned, of which [pos, seg) is emitted already
 * (seg > pos: the run holds a character from U+0080 on, and emit_pieces(seg, e) is the rest of
 * emit_pieces(pos, e)). With `fast`, [seg, e) is folded in the builder's room already, and unless it
 * ends with a space (which emit_run may drop) it is committed as it is. */
static inline int emit_scanned(B *b, const Text *t, Py_ssize_t pos, Py_ssize_t seg, Py_ssize_t e, int ascii, int fast) {
    if (fast && e > seg && tch(t, e - 1) != ' ') return commit_span(b, seg, e);
    if (seg == pos) return emit_run(b, t, pos, e, ascii);
    return emit_pieces(b, t, seg, e);
}

static inline int run_normalize(B *b, const Text *t, int keep) {
    static const Py_UCS4 hyphen[1] = {'-'};
    static const Py_UCS4 space[1] = {' '};
    Py_ssize_t pos = 0, n = t->n;
    while (pos < n) {
        Py_UCS4 seen; /* every character of [pos, s) or-ed: below 0x80 when all are ASCII */
        Py_ssize_t seg; /* [pos, seg) is emitted already (scan_run) */
        int fast;       /* [seg, s) is folded in the builder's room already (emit_scanned) */
        Py_ssize_t s = b->kind == 1   ? scan_run(b, t, pos, &seen, &seg, &fast, 1)
                       : b->kind == 2 ? scan_run(b, t, pos, &seen, &seg, &fast, 2)
                                      : scan_run(b, t, pos, &seen, &seg, &fast, 4);
        if (s < 0) return -1;
        int ascii = seen < 0x80;
        if (s >= n) return emit_scanned(b, t, pos, seg, n, ascii, fast);
        Py_UCS4 c = tch(t, s);
        if (c == 0xFFFE) { /* PDFium's hyphenation mark, maybe with the line break after it */
            if (emit_scanned(b, t, pos, seg, s, ascii, fast) < 0) return -1;
            if (keep && b_add(b, hyphen, 1, s, s + 1, 0) < 0) return -1;
            pos = break_tail(t, s + 1);
            continue;
        }
        if (is_invisible(c)) {
            Py_ssize_t e = s + 1;
            while (e < n && is_invisible(tch(t, e)) && tch(t, e) != 0xFFFE) e++;
            if (emit_scanned(b, t, pos, seg, s, ascii, fast) < 0) return -1;
            int soft = 0;
            for (Py_ssize_t k = s; k < e; k++)
                if (tch(t, k) == 0x00AD) soft = 1;
            if (soft) { /* a soft hyphen at a line break joins the word */
                Py_ssize_t tail = break_tail(t, e);
                if (line_breaks(t, e, tail) == 1) e = tail;
            }
            pos = e;
            continue;
        }
        Py_ssize_t e = s;
        while (e < n && is_space(tch(t, e))) e++;
        Py_ssize_t body = s;
        while (body > pos && tch(t, body - 1) == ' ') body--;
        if (body - pos >= 2 && (tch(t, body - 1) == '-' || tch(t, body - 1) == 0x2010) &&
            Py_UNICODE_ISALPHA(tch(t, body - 2)) && e < n && Py_UNICODE_ISALPHA(tch(t, e)) &&
            line_breaks(t, s, e) == 1) {
            int plain = 1;
            for (Py_ssize_t k = s; k < e; k++) {
                Py_UCS4 w = tch(t, k);
                if (w != ' ' && w != '\t' && w != '\r' && w != '\n') {
                    plain = 0;
                    break;
                }
            }
            if (plain) { /* a hyphenated line break: join the word (or keep the hyphen) */
                Py_ssize_t h = body - 1;
                if (emit_scanned(b, t, pos, seg, h, ascii, fast) < 0) return -1; /* seg <= h (scan_run) */
                if (keep && b_add(b, hyphen, 1, h, h + 1, 1) < 0) return -1;
                pos = e;
                continue;
            }
        }
        if (emit_scanned(b, t, pos, seg, s, ascii, fast) < 0) return -1;
        Py_UCS4 before = s ? tch(t, s - 1) : ' ';
        Py_UCS4 after = e < n ? tch(t, e) : ' ';
        if ((before >= '!' && before < 0x80 && after >= '!' && after < 0x80) || !space_dropped(t, s, e)) {
            if (b_add(b, space, 1, s, e, e - s == 1) < 0) return -1;
        }
        pos = e;
    }
    return 0;
}

/* One copy of the whole pass per string kind: with everything inlined the compiler reads the
 * text with a constant character width. */
FLATTEN static int run_normalize_1(B *b, const Text *t, int keep) {
    Text k = {PyUnicode_1BYTE_KIND, t->data, t->n};
    return run_normalize(b, &k, keep);
}
FLATTEN static int run_normalize_2(B *b, const Text *t, int keep) {
    Text k = {PyUnicode_2BYTE_KIND, t->data, t->n};
    return run_normalize(b, &k, keep);
}
FLATTEN static int run_normalize_4(B *b, const Text *t, int keep) {
    Text k = {PyUnicode_4BYTE_KIND, t->data, t->n};
    return run_normalize(b, &k, keep);
}

/* frees everything (the GIL is held) */
static void b_free(B *b) {
    if (b->obj) Py_CLEAR(b->str);
    else PyMem_RawFree(b->buf);
    b->buf = NULL;
    PyMem_RawFree(b->ns);
    PyMem_RawFree(b->os);
    PyMem_RawFree(b->oe);
    PyMem_RawFree(b->lin);
}

static PyObject *py_normalize(PyObject *self, PyObject *args) {
    PyObject *text;
    int keep = 0;
    if (!PyArg_ParseTuple(args, "U|p:normalize", &text, &keep)) return NULL;
    if (!g_ready) {
        PyErr_SetString(PyExc_RuntimeError, "claimledger._cnormalize: setup() was not called");
        return NULL;
    }
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    B b = {.kind = 1, .limit = 0x7F, .obj = 1}; /* the output str is built in place */
    if (b_reserve(&b, t.n + 16) < 0) return PyErr_NoMemory();
    if (t.n >= NOGIL_MIN_CHARS) b.ts = PyEval_SaveThread();
    int rc = t.kind == PyUnicode_1BYTE_KIND   ? run_normalize_1(&b, &t, keep)
             : t.kind == PyUnicode_2BYTE_KIND ? run_normalize_2(&b, &t, keep)
                                              : run_normalize_4(&b, &t, keep);
    if (b.ts) PyEval_RestoreThread(b.ts);
    b.ts = NULL;
    if (rc < 0) {
        if (b.nomem && !PyErr_Occurred()) PyErr_NoMemory();
        b_free(&b);
        return NULL;
    }
    /* _Builder.build: drop one trailing space */
    if (b.len > 0 && b_get(&b, b.len - 1) == ' ') {
        b.len -= 1;
        if (b.nseg && b.ns[b.nseg - 1] >= b.len) b.nseg -= 1;
    }
    PyObject *out = NULL;
    Py_UCS4 top = 0;
    if (b.recheck) /* rare: a wide character was taken back; is one left? */
        for (Py_ssize_t i = 0; i < b.len; i++) top = Py_MAX(top, b_get(&b, i));
    if (b.recheck && top <= (b.limit == 0x10FFFF ? 0xFFFF : b.limit == 0xFFFF ? 0xFF : 0x7F)) {
        /* no: copied to the narrowest kind that holds it, as CPython requires of a str */
        int kind = b.kind == 1 ? PyUnicode_1BYTE_KIND : b.kind == 2 ? PyUnicode_2BYTE_KIND : PyUnicode_4BYTE_KIND;
        out = PyUnicode_FromKindAndData(kind, b.buf, b.len);
    } else if (PyUnicode_Resize(&b.str, b.len) == 0) { /* the unused room given back, not copied */
        out = b.str;
        b.str = NULL;
    }
    Py_CLEAR(b.str);
    b.buf = NULL;
    /* each segment array freed once copied (a large text's arrays never exist three times) */
    Py_ssize_t segbytes = b.nseg * (Py_ssize_t)sizeof(int64_t);
    PyObject *ns = PyBytes_FromStringAndSize((const char *)b.ns, segbytes);
    PyMem_RawFree(b.ns);
    b.ns = NULL;
    PyObject *os = PyBytes_FromStringAndSize((const char *)b.os, segbytes);
    PyMem_RawFree(b.os);
    b.os = NULL;
    PyObject *oe = PyBytes_FromStringAndSize((const char *)b.oe, segbytes);
    PyMem_RawFree(b.oe);
    b.oe = NULL;
    PyObject *lin = PyByteArray_FromStringAndSize((const char *)b.lin, b.nseg);
    b_free(&b);
    if (!out || !ns || !os || !oe || !lin) {
        Py_XDECREF(out);
        Py_XDECREF(ns);
        Py_XDECREF(os);
        Py_XDECREF(oe);
        Py_XDECREF(lin);
        return NULL;
    }
    return Py_BuildValue("(NNNNN)", out, ns, os, oe, lin);
}

/* set flag bit `f` on every character of str `s` (each in the BMP) */
static int flag_chars(PyObject *s, uint8_t f, const char *what) {
    Py_ssize_t m = PyUnicode_GET_LENGTH(s);
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_UCS4 c = PyUnicode_READ_CHAR(s, i);
        if (c >= BMP) {
            PyErr_Format(PyExc_ValueError, "setup: a character of %s is outside the BMP", what);
            return -1;
        }
        g_flags[c] |= f;
    }
    return 0;
}

static PyObject *py_setup(PyObject *self, PyObject *args) {
    PyObject *entry_fn, *fold_fn, *combining_fn, *nfkc_fn, *invisible, *fw_open, *fw_close, *ranges;
    if (!PyArg_ParseTuple(args, "OOOOUUUO:setup", &entry_fn, &fold_fn, &combining_fn, &nfkc_fn, &invisible, &fw_open,
                          &fw_close, &ranges))
        return NULL;
    g_ready = 0;
    PyObject *seq = PySequence_Fast(ranges, "setup: ranges must be a sequence of (lo, hi)");
    if (!seq) return NULL;
    Py_ssize_t nr = PySequence_Fast_GET_SIZE(seq);
    uint32_t *lo = PyMem_Malloc((size_t)(nr + 1) * sizeof(uint32_t));
    uint32_t *hi = PyMem_Malloc((size_t)(nr + 1) * sizeof(uint32_t));
    if (!lo || !hi) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t k = 0; k < nr; k++) {
        unsigned long a, z;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, k), "kk", &a, &z)) goto fail;
        lo[k] = (uint32_t)a;
        hi[k] = (uint32_t)z;
    }
    /* the tables start over: every fold UNKNOWN (an earlier setup's special folds are never freed:
     * a pass running without the GIL in another thread may still read them) */
    for (Py_UCS4 c = 0; c < BMP; c++) {
        g_fold[c] = UNKNOWN;
        g_flags[c] = 0;
        g_combining[c] = 0;
        g_spec_ptr[c] = NULL;
        g_spec_len[c] = 0;
    }
    if (flag_chars(invisible, F_INVISIBLE, "invisible") < 0 || flag_chars(fw_open, F_FW_OPEN, "fw_open") < 0 ||
        flag_chars(fw_close, F_FW_CLOSE, "fw_close") < 0)
        goto fail;
    for (Py_ssize_t k = 0; k < nr; k++)
        for (uint32_t c = lo[k]; c <= hi[k] && c < BMP; c++) g_flags[c] |= F_DROPS;
    for (Py_UCS4 c = 0; c < BMP; c++) {
        if (Py_UNICODE_ISSPACE(c)) g_flags[c] |= F_SPACE;
        if ((c != ' ' && Py_UNICODE_ISSPACE(c)) || (g_flags[c] & F_INVISIBLE)) g_flags[c] |= F_TRIGGER;
        if (c == ' ' || (g_flags[c] & F_TRIGGER)) g_flags[c] |= F_STOP;
    }
    PyMem_Free(g_drop_lo);
    PyMem_Free(g_drop_hi);
    g_drop_lo = lo;
    g_drop_hi = hi;
    g_ndrop = nr;
    lo = hi = NULL;
    Py_INCREF(entry_fn);
    Py_XSETREF(g_entry_fn, entry_fn);
    Py_INCREF(fold_fn);
    Py_XSETREF(g_fold_fn, fold_fn);
    Py_INCREF(combining_fn);
    Py_XSETREF(g_combining_fn, combining_fn);
    Py_INCREF(nfkc_fn);
    Py_XSETREF(g_nfkc_fn, nfkc_fn);
    /* ASCII is read without a check for UNKNOWN (emit_run's ASCII runs): filled now */
    for (Py_UCS4 c = 0; c < 0x80; c++)
        if (fold_resolve(c) < 0) goto fail;
    for (Py_UCS4 c = 0; c < 0x80; c++) {
        uint32_t v = g_fold[c];
        g_lane[c] = (c >= 0x21 && c <= 0x7E && !(g_flags[c] & (F_STOP | NEAR_DROP)) && v >= 1 && v < 0x80)
                        ? (uint8_t)v : 0;
    }
    g_lane_space = (g_fold[' '] >= 1 && g_fold[' '] < 0x80) ? (uint8_t)g_fold[' '] : 0;
#if defined(__SSE2__)
    g_lane_sse2 = g_lane_space == ' ';
    for (Py_UCS4 c = 0x21; c <= 0x7E; c++)
        if (g_lane[c] != (c >= 'A' && c <= 'Z' ? c + 0x20 : c)) g_lane_sse2 = 0;
#endif
    Py_DECREF(seq);
    g_ready = 1;
    Py_RETURN_NONE;
fail:
    Py_DECREF(seq);
    PyMem_Free(lo);
    PyMem_Free(hi);
    return NULL;
}

/* ---------------------------------------------------------------- the skeleton (claimledger/skeleton.py)
 *
 * skeleton(text): per character the letters and digits of the NFKD of its fold, from a table
 * filled lazily like the fold table (UNKNOWN until a text holds the character; then 0: none, one
 * character, or SPECIAL: the string in g_skel_ptr), each entry asked of skeleton.py once; astral
 * characters call back into Python every time. window_hits(skel, width, hashes): which hashes some
 * window of `width` characters has one of the sorted 64-bit rolling hashes (skeleton.window_hash). */

static uint32_t g_skel[BMP];
static PyObject *g_skel_fn = NULL; /* code point -> its skeleton (str) */
static Py_UCS4 *g_skel_ptr[BMP];   /* SPECIAL entries as UCS4 (read without the GIL; never freed) */
static uint8_t g_skel_len[BMP];
static int g_skel_ready = 0;
#define SKEL_BASE 1000003ull

/* Fill a BMP code point's skeleton entry (the GIL is held). */
static int skel_resolve(Py_UCS4 c) { return lazy_resolve(g_skel, g_skel_ptr, g_skel_len, g_skel_fn, c, "skeleton"); }

static int skel_put(B *b, const Py_UCS4 *u, Py_ssize_t m, Py_ssize_t remaining) {
    /* room for this expansion and one character for every input character still to come */
    if (b_reserve(b, m + remaining + 16) < 0) return -1;
    for (Py_ssize_t k = 0; k < m; k++)
        if (b_put(b, u[k]) < 0) return -1;
    return 0;
}

/* an astral character's skeleton, asked of Python (with the GIL) */
static int skel_astral(B *b, Py_UCS4 c, Py_ssize_t remaining) {
    Py_UCS4 u[64];
    Py_ssize_t m = 0;
    int rc = 0;
    gil_on(b);
    PyObject *s = PyObject_CallFunction(g_skel_fn, "k", (unsigned long)c);
    if (!s) {
        rc = -1;
    } else if (!PyUnicode_Check(s) || PyUnicode_GET_LENGTH(s) > 64) {
        PyErr_SetString(PyExc_TypeError, "skeleton: an astral character's skeleton must be a short str");
        rc = -1;
    } else {
        m = PyUnicode_GET_LENGTH(s);
        for (Py_ssize_t k = 0; k < m; k++) u[k] = PyUnicode_READ_CHAR(s, k);
    }
    Py_XDECREF(s);
    gil_off(b);
    return rc < 0 ? -1 : skel_put(b, u, m, remaining);
}

static inline int skeleton_run(B *b, const Text *t) {
    Py_ssize_t n = t->n;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (b->kind == 1) {
            /* the common case, without a branch per character: one-byte output while every
             * character maps to at most one Latin-1 character (room for n was reserved) */
            uint8_t *o = (uint8_t *)b->buf;
            Py_ssize_t len = b->len;
            for (; i < n; i++) {
                Py_UCS4 c = raw(t, i);
                uint32_t v = c < BMP ? LOAD(&g_skel[c]) : SPECIAL;
                if (v > 0xFF) break;
                o[len] = (uint8_t)v;
                len += v != 0;
            }
            b->len = len;
            if (i >= n) break;
        }
        Py_UCS4 c = raw(t, i);
        if (c < BMP) {
            uint32_t v = LOAD_ACQ(&g_skel[c]);
            if (v == UNKNOWN) {
                gil_on(b);
                int rc = skel_resolve(c);
                gil_off(b);
                if (rc < 0) return -1;
                v = LOAD_ACQ(&g_skel[c]);
            }
            if (v == 0) continue;
            if (!(v & SPECIAL)) {
                if (b_put(b, v) < 0) return -1;
                continue;
            }
            if (skel_put(b, g_skel_ptr[c], g_skel_len[c], n - i) < 0) return -1;
        } else if (skel_astral(b, c, n - i) < 0) {
            return -1;
        }
    }
    return 0;
}

FLATTEN static int skeleton_run_1(B *b, const Text *t) {
    Text k = {PyUnicode_1BYTE_KIND, t->data, t->n};
    return skeleton_run(b, &k);
}
FLATTEN static int skeleton_run_2(B *b, const Text *t) {
    Text k = {PyUnicode_2BYTE_KIND, t->data, t->n};
    return skeleton_run(b, &k);
}
FLATTEN static int skeleton_run_4(B *b, const Text *t) {
    Text k = {PyUnicode_4BYTE_KIND, t->data, t->n};
    return skeleton_run(b, &k);
}

static PyObject *py_skeleton(PyObject *self, PyObject *args) {
    PyObject *text;
    if (!PyArg_ParseTuple(args, "U:skeleton", &text)) return NULL;
    if (!g_skel_ready) {
        PyErr_SetString(PyExc_RuntimeError, "claimledger._cnormalize: skeleton_setup() was not called");
        return NULL;
    }
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    B b = {.kind = 1, .limit = 0xFF}; /* a raw buffer (skeleton_run writes Latin-1 into it directly) */
    if (b_reserve(&b, t.n + 16) < 0) return PyErr_NoMemory();
    if (t.n >= NOGIL_MIN_CHARS) b.ts = PyEval_SaveThread();
    int rc = t.kind == PyUnicode_1BYTE_KIND   ? skeleton_run_1(&b, &t)
             : t.kind == PyUnicode_2BYTE_KIND ? skeleton_run_2(&b, &t)
                                              : skeleton_run_4(&b, &t);
    if (b.ts) PyEval_RestoreThread(b.ts);
    b.ts = NULL;
    PyObject *out = NULL;
    if (rc < 0 && b.nomem && !PyErr_Occurred()) PyErr_NoMemory();
    if (rc == 0) {
        int kind = b.kind == 1 ? PyUnicode_1BYTE_KIND : b.kind == 2 ? PyUnicode_2BYTE_KIND : PyUnicode_4BYTE_KIND;
        out = PyUnicode_FromKindAndData(kind, b.buf, b.len);
    }
    b_free(&b);
    return out;
}

/* the filter in front of the binary search: one bit per value of a hash's top BLOOM_BITS bits
 * (32 KiB, so it stays in the first-level cache; with a few thousand hashes under 1 % of the
 * windows of a text go on to the search) */
#define BLOOM_BITS 18

/* one window's hash h: marks it in hit[] when it is one of the sorted hashes; 1 once all are marked */
static inline int window_seen(uint64_t h, const uint64_t *bloom, const uint64_t *hs, Py_ssize_t nh, uint8_t *hit,
                              Py_ssize_t *left) {
    uint64_t top = h >> (64 - BLOOM_BITS);
    if (!((bloom[top >> 6] >> (top & 63)) & 1)) return 0;
    Py_ssize_t lo = 0, hi = nh; /* the first sorted hash >= h */
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (hs[mid] < h) lo = mid + 1;
        else hi = mid;
    }
    if (lo < nh && hs[lo] == h && !hit[lo]) {
        hit[lo] = 1;
        if (--*left == 0) return 1;
    }
    return 0;
}

/* the filter of window_seen for the sorted hashes hs[0..nh): NULL when out of memory (PyMem_Free it) */
static uint64_t *bloom_of(const uint64_t *hs, Py_ssize_t nh) {
    uint64_t *bloom = PyMem_Calloc(((size_t)1 << BLOOM_BITS) / 64, sizeof(uint64_t));
    if (!bloom) return NULL;
    for (Py_ssize_t k = 0; k < nh; k++) {
        uint64_t top = hs[k] >> (64 - BLOOM_BITS);
        bloom[top >> 6] |= 1ull << (top & 63);
    }
    return bloom;
}

#define STREAMS 4            /* independent rolling hashes advanced together (below) */
#define STREAMS_MIN 4096     /* windows from which the text is cut into STREAMS stretches */

/* marks in hit[] every sorted hash some window has; stops early once all are marked.
 * Each step of a rolling hash waits for the one before it (a multiplication), so a long text is
 * cut into STREAMS stretches of windows whose hashes are advanced side by side, independent of
 * one another (the processor overlaps them): every window is still hashed exactly once, with the
 * same hash, so the same hashes are marked. */
static inline void windows(int kind, const void *d, Py_ssize_t n, Py_ssize_t w, uint64_t pw, const uint64_t *bloom,
                           const uint64_t *hs, Py_ssize_t nh, uint8_t *hit) {
    Py_ssize_t left = nh;
    Py_ssize_t total = n - w + 1; /* windows: the one ending at e, for e in [w - 1, n) */
    Py_ssize_t from = w - 1;      /* the first window end not yet hashed */
    if (total >= STREAMS_MIN) {
        Py_ssize_t per = total / STREAMS;
        uint64_t h[STREAMS];
        Py_ssize_t e0[STREAMS];
        for (int j = 0; j < STREAMS; j++) { /* stream j: the windows ending in [e0[j], e0[j] + per) */
            e0[j] = w - 1 + (Py_ssize_t)j * per;
            uint64_t x = 0;
            for (Py_ssize_t i = e0[j] - w + 1; i <= e0[j]; i++) x = x * SKEL_BASE + PyUnicode_READ(kind, d, i);
            h[j] = x;
            if (window_seen(x, bloom, hs, nh, hit, &left)) return;
        }
        for (Py_ssize_t k = 1; k < per; k++) {
            for (int j = 0; j < STREAMS; j++) {
                Py_ssize_t e = e0[j] + k;
                h[j] = h[j] * SKEL_BASE + PyUnicode_READ(kind, d, e) - pw * PyUnicode_READ(kind, d, e - w);
            }
            for (int j = 0; j < STREAMS; j++)
                if (window_seen(h[j], bloom, hs, nh, hit, &left)) return;
        }
        from = e0[STREAMS - 1] + per; /* the windows left over at the end, hashed below */
    }
    uint64_t x = 0;
    for (Py_ssize_t i = from - w + 1; i < n; i++) {
        x = x * SKEL_BASE + PyUnicode_READ(kind, d, i);
        if (i >= from - w + 1 + w) x -= pw * PyUnicode_READ(kind, d, i - w);
        if (i >= from && window_seen(x, bloom, hs, nh, hit, &left)) return;
    }
}
#define WINDOWS(K, KIND)                                                                                       \
    FLATTEN static void windows_##K(const void *d, Py_ssize_t n, Py_ssize_t w, uint64_t pw, const uint64_t *bl, \
                                    const uint64_t *hs, Py_ssize_t nh, uint8_t *hit) {                         \
        windows(KIND, d, n, w, pw, bl, hs, nh, hit);                                                           \
    }
WINDOWS(1, PyUnicode_1BYTE_KIND)
WINDOWS(2, PyUnicode_2BYTE_KIND)
WINDOWS(4, PyUnicode_4BYTE_KIND)

static PyObject *py_window_hits(PyObject *self, PyObject *args) {
    PyObject *s;
    Py_ssize_t w;
    Py_buffer hb;
    if (!PyArg_ParseTuple(args, "Uny*:window_hits", &s, &w, &hb)) return NULL;
    Py_ssize_t nh = hb.len / (Py_ssize_t)sizeof(uint64_t);
    const uint64_t *hs = (const uint64_t *)hb.buf;
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    PyObject *out = PyBytes_FromStringAndSize(NULL, nh);
    if (!out) {
        PyBuffer_Release(&hb);
        return NULL;
    }
    uint8_t *hit = (uint8_t *)PyBytes_AS_STRING(out);
    memset(hit, 0, (size_t)nh);
    if (w > 0 && nh > 0 && n >= w) {
        uint64_t *bloom = bloom_of(hs, nh);
        if (!bloom) {
            PyBuffer_Release(&hb);
            Py_DECREF(out);
            return PyErr_NoMemory();
        }
        uint64_t pw = 1;
        for (Py_ssize_t k = 0; k < w; k++) pw *= SKEL_BASE;
        Py_BEGIN_ALLOW_THREADS
        if (kind == PyUnicode_1BYTE_KIND) windows_1(d, n, w, pw, bloom, hs, nh, hit);
        else if (kind == PyUnicode_2BYTE_KIND) windows_2(d, n, w, pw, bloom, hs, nh, hit);
        else windows_4(d, n, w, pw, bloom, hs, nh, hit);
        Py_END_ALLOW_THREADS
        PyMem_Free(bloom);
    }
    PyBuffer_Release(&hb);
    return out;
}

/* ---------------------------------------------------------------- strided windows
 *
 * strided_candidates(skel, width, stride, hashes, groups) -> list[int]: which groups may occur in
 * skel. Only the windows that start at a multiple of `stride` are hashed (one in `stride` of the
 * windows window_hits hashes): a skeleton of at least width + stride - 1 characters that occurs at
 * p holds the window of skel at the first multiple of stride at or after p, at offset j = -p mod
 * stride of the skeleton, and then the windows at j + stride, j + 2 stride, ... (those that fit):
 * all of them are strided windows of skel. `hashes` are the sorted hashes of every window of every
 * group's skeleton; `groups` (native int32) lists per group its phases j = 0 .. stride - 1, each as
 * the indices into `hashes` of its windows: [ngroups, then per group: nphases, then per phase: count,
 * index ...]. A group is a candidate when for some phase every window was seen: a necessary
 * condition for its skeleton to occur, never a sufficient one (the caller tests the substring). */

/* the hashes of the four windows of w characters at s, s + stride, s + 2 stride and s + 3 stride,
 * advanced side by side (independent multiplications the processor overlaps) */
static inline void hash4(int kind, const void *d, Py_ssize_t s, Py_ssize_t w, Py_ssize_t stride, uint64_t x[4]) {
    uint64_t x0 = 0, x1 = 0, x2 = 0, x3 = 0;
    for (Py_ssize_t i = 0; i < w; i++) {
        x0 = x0 * SKEL_BASE + PyUnicode_READ(kind, d, s + i);
        x1 = x1 * SKEL_BASE + PyUnicode_READ(kind, d, s + stride + i);
        x2 = x2 * SKEL_BASE + PyUnicode_READ(kind, d, s + 2 * stride + i);
        x3 = x3 * SKEL_BASE + PyUnicode_READ(kind, d, s + 3 * stride + i);
    }
    x[0] = x0;
    x[1] = x1;
    x[2] = x2;
    x[3] = x3;
}

static inline uint64_t window_hash_at(int kind, const void *d, Py_ssize_t at, Py_ssize_t w) {
    uint64_t x = 0;
    for (Py_ssize_t i = 0; i < w; i++) x = x * SKEL_BASE + PyUnicode_READ(kind, d, at + i);
    return x;
}

/* hashes of the windows starting at 0, stride, 2 stride, ...: four independent ones at a time */
static inline void strided(int kind, const void *d, Py_ssize_t n, Py_ssize_t w, Py_ssize_t stride,
                           const uint64_t *bloom, const uint64_t *hs, Py_ssize_t nh, uint8_t *hit) {
    Py_ssize_t left = nh;
    Py_ssize_t s = 0;
    for (; s + 3 * stride + w <= n; s += 4 * stride) {
        uint64_t x[4];
        hash4(kind, d, s, w, stride, x);
        if (window_seen(x[0], bloom, hs, nh, hit, &left) || window_seen(x[1], bloom, hs, nh, hit, &left) ||
            window_seen(x[2], bloom, hs, nh, hit, &left) || window_seen(x[3], bloom, hs, nh, hit, &left))
            return;
    }
    for (; s + w <= n; s += stride)
        if (window_seen(window_hash_at(kind, d, s, w), bloom, hs, nh, hit, &left)) return;
}
#define STRIDED(K, KIND)                                                                                     \
    FLATTEN static void strided_##K(const void *d, Py_ssize_t n, Py_ssize_t w, Py_ssize_t st, const uint64_t *bl, \
                                    const uint64_t *hs, Py_ssize_t nh, uint8_t *hit) {                       \
        strided(KIND, d, n, w, st, bl, hs, nh, hit);                                                         \
    }
STRIDED(1, PyUnicode_1BYTE_KIND)
STRIDED(2, PyUnicode_2BYTE_KIND)
STRIDED(4, PyUnicode_4BYTE_KIND)

/* the number of groups of a groups layout (0 for an empty one); -1 when it cannot be (each group
 * takes at least one int) */
static inline Py_ssize_t ngroups_of(const int32_t *g, Py_ssize_t ng) {
    Py_ssize_t k = ng > 0 ? g[0] : 0;
    return k < 0 || k > ng ? -1 : k;
}

/* cand[q] = 1 for each group q some phase of which has every window marked in hit[]; the layout is
 * read with bounds checks (it comes from Python): -1 when it is malformed */
static int candidates_of(const int32_t *g, Py_ssize_t ng, Py_ssize_t nh, const uint8_t *hit, uint8_t *cand) {
    Py_ssize_t at = 0;
    Py_ssize_t ngroups = ng > 0 ? g[at++] : 0;
    for (Py_ssize_t q = 0; q < ngroups; q++) {
        if (at >= ng) return -1;
        Py_ssize_t nphases = g[at++];
        int found = 0;
        for (Py_ssize_t ph = 0; ph < nphases; ph++) {
            if (at >= ng) return -1;
            Py_ssize_t count = g[at++];
            if (count < 0 || at + count > ng) return -1;
            int all = 1;
            for (Py_ssize_t k = 0; k < count; k++) {
                int32_t i = g[at + k];
                if (i < 0 || i >= nh) return -1;
                if (!hit[i]) {
                    all = 0;
                    break;
                }
            }
            at += count;
            found |= all;
        }
        cand[q] = (uint8_t)found;
    }
    return 0;
}

static PyObject *py_strided_candidates(PyObject *self, PyObject *args) {
    PyObject *s;
    Py_ssize_t w, stride;
    Py_buffer hb, gb;
    if (!PyArg_ParseTuple(args, "Unny*y*:strided_candidates", &s, &w, &stride, &hb, &gb)) return NULL;
    PyObject *out = NULL;
    uint8_t *hit = NULL, *cand = NULL;
    uint64_t *bloom = NULL;
    Py_ssize_t nh = hb.len / (Py_ssize_t)sizeof(uint64_t);
    const uint64_t *hs = (const uint64_t *)hb.buf;
    const int32_t *g = (const int32_t *)gb.buf;
    Py_ssize_t ng = gb.len / (Py_ssize_t)sizeof(int32_t);
    if (w <= 0 || stride <= 0) {
        PyErr_SetString(PyExc_ValueError, "strided_candidates: width and stride must be positive");
        goto done;
    }
    hit = PyMem_Calloc(nh ? (size_t)nh : 1, 1);
    bloom = bloom_of(hs, nh);
    if (!hit || !bloom) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    if (nh > 0 && n >= w) {
        Py_BEGIN_ALLOW_THREADS
        if (kind == PyUnicode_1BYTE_KIND) strided_1(d, n, w, stride, bloom, hs, nh, hit);
        else if (kind == PyUnicode_2BYTE_KIND) strided_2(d, n, w, stride, bloom, hs, nh, hit);
        else strided_4(d, n, w, stride, bloom, hs, nh, hit);
        Py_END_ALLOW_THREADS
    }
    Py_ssize_t ngroups = ngroups_of(g, ng);
    if (ngroups < 0) goto malformed;
    cand = PyMem_Calloc(ngroups ? (size_t)ngroups : 1, 1);
    if (!cand) {
        PyErr_NoMemory();
        goto done;
    }
    if (candidates_of(g, ng, nh, hit, cand) < 0) goto malformed;
    out = PyList_New(0);
    if (!out) goto done;
    for (Py_ssize_t q = 0; q < ngroups; q++) {
        if (!cand[q]) continue;
        PyObject *qi = PyLong_FromSsize_t(q);
        if (!qi || PyList_Append(out, qi) < 0) {
            Py_XDECREF(qi);
            Py_CLEAR(out);
            goto done;
        }
        Py_DECREF(qi);
    }
    goto done;
malformed:
    Py_CLEAR(out);
    PyErr_SetString(PyExc_ValueError, "strided_candidates: malformed groups");
done:
    PyMem_Free(hit);
    PyMem_Free(cand);
    PyMem_Free(bloom);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&gb);
    return out;
}

/* strided_search(skel, width, stride, hashes, groups, needles) -> bool: whether the needle of some
 * group strided_candidates would give occurs in skel: any(needles[q] in skel for q in candidates),
 * in one strided pass without the GIL. needles[q] is group q's skeleton (at least width + stride - 1
 * characters), whose windows' hashes the groups list.
 *
 * The pass hashes each strided window of skel once, marks the sorted hashes it finds (as
 * strided_candidates does) and keeps where each found one was. A candidate that occurs at p has,
 * for j = -p mod stride, its window at offset j at the strided position P = p + j (P + width <=
 * p + len(needle) <= len(skel): the pass hashed it, and its hash is one of `hashes`, so P was
 * kept). So only the kept positions are tested: each whose hash equals the hash of some
 * candidate's window at its offset j (j < stride) is compared with that candidate at P - j,
 * character by character; true only on a real match. On the 1 GB bench row most uncited sources
 * had a candidate (a quote with one word changed still has most of its windows elsewhere), and
 * confirming them with a second pass over the skeleton cost as much as the first. */
typedef struct {
    uint64_t h;
    Py_ssize_t needle, j; /* needle -1: an empty slot */
} Anchor;

typedef struct {
    Py_ssize_t *at; /* strided positions whose window's hash is one of the sorted hashes */
    Py_ssize_t len, cap;
    int nomem;
} Kept;

static inline void kept_add(Kept *k, Py_ssize_t at) {
    if (k->nomem) return;
    if (k->len == k->cap) {
        Py_ssize_t cap = k->cap ? 2 * k->cap : 256;
        Py_ssize_t *nb = PyMem_RawRealloc(k->at, (size_t)cap * sizeof(Py_ssize_t));
        if (!nb) {
            k->nomem = 1;
            return;
        }
        k->at = nb;
        k->cap = cap;
    }
    k->at[k->len++] = at;
}

/* The sorted hashes by value, for strided_search: open addressing, at most half full. A window's
 * hash that passes the filter is looked up with one probe or a few, not a binary search (whose
 * mispredicted branches were most of strided_search's time on the 1 GB bench row). */
typedef struct {
    uint64_t *keys;
    int32_t *at; /* index into the sorted hashes; -1: an empty slot */
    size_t mask;
} HashIndex;

static inline size_t hash_slot(uint64_t h, size_t mask) { return (size_t)((h * 0x9E3779B97F4A7C15ull) >> 32) & mask; }

static int hash_index(HashIndex *ix, const uint64_t *hs, Py_ssize_t nh) {
    size_t size = 16;
    while (size < (size_t)nh * 2) size *= 2;
    ix->keys = PyMem_Malloc(size * sizeof(uint64_t));
    ix->at = PyMem_Malloc(size * sizeof(int32_t));
    ix->mask = size - 1;
    if (!ix->keys || !ix->at) return -1;
    for (size_t i = 0; i < size; i++) ix->at[i] = -1;
    for (Py_ssize_t k = 0; k < nh; k++) {
        size_t slot = hash_slot(hs[k], ix->mask);
        while (ix->at[slot] >= 0) slot = (slot + 1) & ix->mask;
        ix->keys[slot] = hs[k];
        ix->at[slot] = (int32_t)k;
    }
    return 0;
}

/* window_seen's test, without its early stop: 1 when h is one of the sorted hashes (marked) */
static inline int window_found(uint64_t h, const uint64_t *bloom, const HashIndex *ix, uint8_t *hit) {
    uint64_t top = h >> (64 - BLOOM_BITS);
    if (!((bloom[top >> 6] >> (top & 63)) & 1)) return 0;
    for (size_t slot = hash_slot(h, ix->mask); ix->at[slot] >= 0; slot = (slot + 1) & ix->mask)
        if (ix->keys[slot] == h) {
            hit[ix->at[slot]] = 1;
            return 1;
        }
    return 0;
}

/* the strided windows of d[0..n): marks the hashes found and keeps their positions (four windows
 * hashed side by side, as strided()) */
static inline void strided_keep(int kind, const void *d, Py_ssize_t n, Py_ssize_t w, Py_ssize_t stride,
                                const uint64_t *bloom, const HashIndex *hs, uint8_t *hit, Kept *kept) {
    Py_ssize_t s = 0;
    for (; s + 3 * stride + w <= n; s += 4 * stride) {
        uint64_t x[4];
        hash4(kind, d, s, w, stride, x);
        for (int k = 0; k < 4; k++)
            if (window_found(x[k], bloom, hs, hit)) kept_add(kept, s + k * stride);
    }
    for (; s + w <= n; s += stride)
        if (window_found(window_hash_at(kind, d, s, w), bloom, hs, hit)) kept_add(kept, s);
}
#define STRIDED_KEEP(K, KIND)                                                                                \
    FLATTEN static void strided_keep_##K(const void *d, Py_ssize_t n, Py_ssize_t w, Py_ssize_t st,           \
                                         const uint64_t *bl, const HashIndex *hs, uint8_t *hit, Kept *kept) { \
        strided_keep(KIND, d, n, w, st, bl, hs, hit, kept);                                                  \
    }
STRIDED_KEEP(1, PyUnicode_1BYTE_KIND)
STRIDED_KEEP(2, PyUnicode_2BYTE_KIND)
STRIDED_KEEP(4, PyUnicode_4BYTE_KIND)

static int needle_at(int kind, const void *d, Py_ssize_t n, Py_ssize_t at, PyObject *needle) {
    Py_ssize_t m = PyUnicode_GET_LENGTH(needle);
    if (at < 0 || at + m > n) return 0;
    int nk = PyUnicode_KIND(needle);
    const void *nd = PyUnicode_DATA(needle);
    for (Py_ssize_t i = 0; i < m; i++)
        if (PyUnicode_READ(kind, d, at + i) != PyUnicode_READ(nk, nd, i)) return 0;
    return 1;
}

/* the candidates' windows at each offset j < stride, by hash (open addressing; size a power of two) */
static void anchors_of(Anchor *table, size_t size, PyObject *const *needles, const uint8_t *cand, Py_ssize_t k,
                       Py_ssize_t w, Py_ssize_t stride) {
    for (size_t i = 0; i < size; i++) table[i].needle = -1;
    for (Py_ssize_t q = 0; q < k; q++) {
        if (!cand[q]) continue;
        int nk = PyUnicode_KIND(needles[q]);
        const void *nd = PyUnicode_DATA(needles[q]);
        for (Py_ssize_t j = 0; j < stride; j++) {
            uint64_t x = window_hash_at(nk, nd, j, w);
            size_t slot = (size_t)(x ^ (x >> 29)) & (size - 1);
            while (table[slot].needle >= 0) slot = (slot + 1) & (size - 1);
            table[slot].h = x;
            table[slot].needle = q;
            table[slot].j = j;
        }
    }
}

/* whether some candidate occurs: only the kept positions are tested (see above) */
static int kept_match(int kind, const void *d, Py_ssize_t n, Py_ssize_t w, const Kept *kept, const Anchor *table,
                      size_t mask, PyObject *const *needles) {
    for (Py_ssize_t r = 0; r < kept->len; r++) {
        Py_ssize_t s = kept->at[r];
        uint64_t x = window_hash_at(kind, d, s, w);
        for (size_t slot = (size_t)(x ^ (x >> 29)) & mask; table[slot].needle >= 0; slot = (slot + 1) & mask)
            if (table[slot].h == x && needle_at(kind, d, n, s - table[slot].j, needles[table[slot].needle]))
                return 1;
    }
    return 0;
}

/* strided_prepare(hashes): the filter and the hash table of strided_search built once, for every text a
 * prefilter tests (built per call they cost ~0.3 ms with the GIL held, about as much as testing a 400 kB
 * source; the 1 GB bench row tests 1,500). Read only once built: threads share it. It keeps a reference
 * to the bytes it was built from, and strided_search accepts it only with that same object. */
#define PREPARED_CAPSULE "claimledger._cnormalize.strided_prepared"
typedef struct {
    PyObject *hashes;
    uint64_t *bloom;
    HashIndex index;
} Prepared;

static void prepared_free(Prepared *p) {
    if (!p) return;
    Py_XDECREF(p->hashes);
    PyMem_Free(p->bloom);
    PyMem_Free(p->index.keys);
    PyMem_Free(p->index.at);
    PyMem_Free(p);
}

static void prepared_capsule_free(PyObject *capsule) {
    prepared_free(PyCapsule_GetPointer(capsule, PREPARED_CAPSULE));
}

static PyObject *py_strided_prepare(PyObject *self, PyObject *args) {
    PyObject *hashes;
    if (!PyArg_ParseTuple(args, "O!:strided_prepare", &PyBytes_Type, &hashes)) return NULL;
    Py_ssize_t len = PyBytes_GET_SIZE(hashes);
    if (len % (Py_ssize_t)sizeof(uint64_t) || len / (Py_ssize_t)sizeof(uint64_t) > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "strided_prepare: hashes must be whole uint64 values, at most 2**31 - 1");
        return NULL;
    }
    Py_ssize_t nh = len / (Py_ssize_t)sizeof(uint64_t);
    const uint64_t *hs = (const uint64_t *)PyBytes_AS_STRING(hashes);
    Prepared *p = PyMem_Calloc(1, sizeof(Prepared));
    if (!p) return PyErr_NoMemory();
    p->bloom = bloom_of(hs, nh);
    if (!p->bloom || hash_index(&p->index, hs, nh) < 0) {
        prepared_free(p);
        return PyErr_NoMemory();
    }
    Py_INCREF(hashes);
    p->hashes = hashes;
    PyObject *capsule = PyCapsule_New(p, PREPARED_CAPSULE, prepared_capsule_free);
    if (!capsule) prepared_free(p);
    return capsule;
}

static PyObject *py_strided_search(PyObject *self, PyObject *args) {
    PyObject *s, *list, *capsule = NULL;
    Py_ssize_t w, stride;
    Py_buffer hb, gb;
    if (!PyArg_ParseTuple(args, "Unny*y*O!|O:strided_search", &s, &w, &stride, &hb, &gb, &PyList_Type, &list,
                          &capsule))
        return NULL;
    PyObject *out = NULL, **needles = NULL;
    uint8_t *hit = NULL, *cand = NULL;
    uint64_t *bloom = NULL; /* built here (freed at the end) or the prepared one's */
    Anchor *table = NULL;
    HashIndex index = {NULL, NULL, 0}, *ix = &index;
    Prepared *prepared = NULL;
    Kept kept = {NULL, 0, 0, 0};
    Py_ssize_t held = 0; /* needles INCREF'd (held while the GIL is released: the list may change) */
    Py_ssize_t nh = hb.len / (Py_ssize_t)sizeof(uint64_t);
    const uint64_t *hs = (const uint64_t *)hb.buf;
    const int32_t *g = (const int32_t *)gb.buf;
    Py_ssize_t ng = gb.len / (Py_ssize_t)sizeof(int32_t);
    Py_ssize_t k = PyList_GET_SIZE(list);
    Py_ssize_t ngroups = ngroups_of(g, ng);
    if (w <= 0 || stride <= 0 || w > 64 || stride > 64) {
        PyErr_SetString(PyExc_ValueError, "strided_search: width and stride must be between 1 and 64");
        goto done;
    }
    if (ngroups < 0) goto malformed;
    if (nh > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "strided_search: too many hashes");
        goto done;
    }
    if (ngroups != k) {
        PyErr_SetString(PyExc_ValueError, "strided_search: one needle per group");
        goto done;
    }
    if (capsule && capsule != Py_None) {
        prepared = PyCapsule_GetPointer(capsule, PREPARED_CAPSULE);
        if (!prepared) goto done; /* not a prepared table: the capsule's own error */
        if (prepared->hashes != hb.obj) {
            PyErr_SetString(PyExc_ValueError, "strided_search: prepared for another hashes object");
            goto done;
        }
        ix = &prepared->index;
    }
    needles = PyMem_Malloc((size_t)(k ? k : 1) * sizeof(PyObject *));
    hit = PyMem_Calloc(nh ? (size_t)nh : 1, 1);
    cand = PyMem_Calloc(k ? (size_t)k : 1, 1);
    if (!prepared) bloom = bloom_of(hs, nh);
    if (!needles || !hit || !cand || (!prepared && (!bloom || hash_index(&index, hs, nh) < 0))) {
        PyErr_NoMemory();
        goto done;
    }
    const uint64_t *filter = prepared ? prepared->bloom : bloom;
    for (; held < k; held++) {
        PyObject *needle = PyList_GET_ITEM(list, held);
        if (!PyUnicode_Check(needle) || PyUnicode_GET_LENGTH(needle) < w + stride - 1) {
            PyErr_SetString(PyExc_ValueError,
                            "strided_search: each needle must be a str of at least width + stride - 1 characters");
            goto done;
        }
        Py_INCREF(needle);
        needles[held] = needle;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    int found = 0, bad = 0, oom = 0;
    size_t size = 16;
    if (nh > 0 && n >= w) {
        Py_BEGIN_ALLOW_THREADS
        if (kind == PyUnicode_1BYTE_KIND) strided_keep_1(d, n, w, stride, filter, ix, hit, &kept);
        else if (kind == PyUnicode_2BYTE_KIND) strided_keep_2(d, n, w, stride, filter, ix, hit, &kept);
        else strided_keep_4(d, n, w, stride, filter, ix, hit, &kept);
        if (!kept.nomem) {
            bad = candidates_of(g, ng, nh, hit, cand) < 0;
            Py_ssize_t ncand = 0;
            for (Py_ssize_t q = 0; q < k; q++) ncand += cand[q];
            if (!bad && ncand > 0) {
                while (size < (size_t)(ncand * stride) * 4) size *= 2;
                table = PyMem_RawMalloc(size * sizeof(Anchor));
                if (table) {
                    anchors_of(table, size, needles, cand, k, w, stride);
                    found = kept_match(kind, d, n, w, &kept, table, size - 1, needles);
                } else {
                    oom = 1;
                }
            }
        }
        Py_END_ALLOW_THREADS
        if (bad) goto malformed;
        if (kept.nomem || oom) {
            PyErr_NoMemory();
            goto done;
        }
    } else if (candidates_of(g, ng, nh, hit, cand) < 0) {
        goto malformed;
    }
    out = PyBool_FromLong(found);
    goto done;
malformed:
    PyErr_SetString(PyExc_ValueError, "strided_search: malformed groups");
done:
    for (Py_ssize_t q = 0; q < held; q++) Py_DECREF(needles[q]);
    PyMem_Free(needles);
    PyMem_Free(hit);
    PyMem_Free(cand);
    PyMem_Free(bloom);
    PyMem_RawFree(table);
    PyMem_RawFree(kept.at);
    PyMem_Free(index.keys);
    PyMem_Free(index.at);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&gb);
    return out;
}

static PyObject *py_skeleton_setup(PyObject *self, PyObject *args) {
    PyObject *fn;
    if (!PyArg_ParseTuple(args, "O:skeleton_setup", &fn)) return NULL;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "skeleton_setup: the skeleton function must be callable");
        return NULL;
    }
    /* the table starts over (an earlier setup's strings are never freed: another thread may read them) */
    for (Py_UCS4 c = 0; c < BMP; c++) {
        g_skel[c] = UNKNOWN;
        g_skel_ptr[c] = NULL;
        g_skel_len[c] = 0;
    }
    Py_INCREF(fn);
    Py_XSETREF(g_skel_fn, fn);
    g_skel_ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup", py_setup, METH_VARARGS,
     "setup(entry_fn, fold_fn, combining_fn, nfkc_fn, invisible, fw_open, fw_close, drop_ranges): hand over\n"
     "the definitions; entry_fn(cp) -> (fold code point or -1, special fold or None, combining) fills\n"
     "the fold table lazily, once per BMP code point a text holds."},
    {"normalize", py_normalize, METH_VARARGS,
     "normalize(text, keep_break_hyphens=False) -> (text, ns, os, oe, linear): the segment map as\n"
     "native int64 bytes and a bytearray."},
    {"skeleton_setup", py_skeleton_setup, METH_VARARGS,
     "skeleton_setup(fn): fn(cp) -> str, claimledger.skeleton's skeleton of one raw character (asked\n"
     "once per BMP code point a text holds, every time for the others)."},
    {"skeleton", py_skeleton, METH_VARARGS, "skeleton(text) -> str: claimledger.skeleton.of_raw."},
    {"strided_candidates", py_strided_candidates, METH_VARARGS,
     "strided_candidates(skel, width, stride, hashes, groups) -> list[int]: the groups some phase of\n"
     "which has every window among the windows of skel that start at a multiple of stride (see the C\n"
     "source for the layout of groups)."},
    {"strided_prepare", py_strided_prepare, METH_VARARGS,
     "strided_prepare(hashes) -> capsule: strided_search's filter and hash table of these hashes, built once "
     "(pass it as strided_search's prepared argument with the same hashes object)."},
    {"strided_search", py_strided_search, METH_VARARGS,
     "strided_search(skel, width, stride, hashes, groups, needles, prepared=None) -> bool: whether the\n"
     "needle (needles[q], group q's skeleton) of some candidate strided_candidates would give occurs in\n"
     "skel, in one strided pass without the GIL; prepared: strided_prepare(hashes) of this same hashes\n"
     "object (else the filter and table are built for this call)."},
    {"window_hits", py_window_hits, METH_VARARGS,
     "window_hits(skel, width, hashes) -> bytes: per sorted uint64 rolling hash (claimledger.skeleton.\n"
     "window_hash), 1 when some window of width characters of skel has it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cnormalize",
                                    "The compiled core of claimledger.normalize.", -1, methods};

PyMODINIT_FUNC PyInit__cnormalize(void) { return PyModule_Create(&module); }
