/* The compiled seed search of the near-miss search (claimledger/checks/seed_hits.py) and the matching
 * blocks of the word diff shown for a near miss (matching_blocks, below: claimledger.checks.diff); the
 * alignment of a near miss is claimledger/_cnear.c.
 *
 * first_hits(text, seeds, cap) -> list of lists: for each seed (a str of at least 8 code points),
 * the start of its first `cap` occurrences in `text`, overlapping occurrences included, in text
 * order (a Wu-Manber pass that skips windows where a sample of the text shows it pays, see skip_ucs1
 * below; first_hits(..., 0): the rolled pass over every window, described at the end of this
 * comment; first_hits(..., 2): always skipping). That is exactly what the
 * pure-Python path (an Aho-Corasick automaton, every match of a seed counted until its cap) records,
 * which stays the fallback and the test oracle (tests/test_near_miss_index.py compares the two on
 * every CI run).
 *
 * prepare(seeds, k=8) -> an opaque table; first_starts(table, text) -> dict: {i: first start of
 * seeds[i]} for the seeds that occur (the verbatim scan of every quote in every source,
 * claimledger.checks.quote_scan.PatternSet): the same pass with cap 1, the table built once for all
 * texts (100,000 seeds take ~20 ms to table), no list for every seed, and windows of k code points
 * (seeds at least k long): with 100,000 quotes most 8-character windows of a text begin some quote
 * (quotes start at words), 16-character ones rarely do. The table holds the seeds (a tuple) and is
 * only read by a pass, so passes may run in several threads at once. first_starts(table, text, skip)
 * leaves out the seeds whose byte in `skip` (one per seed) is nonzero: the scan no longer needs them
 * (a quote already found where each of its claims cites it), so they are neither compared nor reported.
 *
 * prepare(seeds, k, stride) with stride > 1 (every seed at least k + stride - 1 long) tables the k-character
 * windows of each seed at its offsets 0 .. stride - 1, and first_starts then hashes only the windows that
 * start at multiples of `stride`: an occurrence of a seed at t holds, at its offset j = (-t) mod stride,
 * the window that starts at t + j, a multiple of stride, and that window lies inside the seed because
 * j + k <= stride - 1 + k <= the seed's length. So every occurrence is seen (at t + j) and the smallest
 * start seen is the first one; a pass reads `stride` times fewer windows. Those windows are hashed with
 * independent lanes (the sum of each code point times its own odd constant), not rolled.
 *
 * One pass over the text: a rolling hash of the 8 code points starting at each position is tested
 * against a bitmap of the seeds' hashes, then looked up in a small open-addressing table of the
 * seeds' first 8 code points; a hit is confirmed by comparing the seed's code points with the text. Text and seeds may be of any string kind. The
 * pass runs without the GIL (both strings are immutable and referenced for its whole length).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define K 8      /* the window of first_hits, and the shortest of first_starts */
#define MAX_K 64 /* the longest window of first_starts */
#define BASE 0x100000001B3ull /* any odd multiplier; equal windows always hash equal */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} Str;

/* A slot of the seeds' table: the top 32 bits of a hash (its low bits pick the slot) and the first entry
 * of the seeds whose window has a hash of that tag there. Two hashes that share a tag and a probe run
 * share a chain: every entry of a chain is compared with the text in full, so that costs a comparison,
 * never an answer. Eight bytes a slot (and four an entry of next[]) keep a table of 160,000 windows at
 * 4 MB, which the strided pass probes at random. */
typedef struct {
    uint32_t tag;
    int32_t head; /* first entry with this tag (chained by next[]); -1: empty slot */
} Slot;

static inline uint32_t tag_of(uint64_t h) { return (uint32_t)(h >> 32); }

static inline uint64_t window_hash(const Str *s, Py_ssize_t at, int k) {
    uint64_t h = 0;
    for (int j = 0; j < k; j++) h = h * BASE + (uint64_t)PyUnicode_READ(s->kind, s->data, at + j);
    return h;
}

/* The hash of the strided windows: the sum of code point j times LANE[j] (odd constants, splitmix64 of j):
 * the products are independent, so a window costs a few cycles, whatever the string kind. */
static uint64_t LANE[MAX_K];

static void lanes_init(void) {
    for (int j = 0; j < MAX_K; j++) {
        uint64_t z = (uint64_t)(j + 1) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        LANE[j] = (z ^ (z >> 31)) | 1;
    }
}

static inline uint64_t lane_hash(const Str *s, Py_ssize_t at, int k) {
    uint64_t h = 0;
    for (int j = 0; j < k; j++) h += (uint64_t)PyUnicode_READ(s->kind, s->data, at + j) * LANE[j];
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

#define FILTER_BITS 20 /* a bitmap of 2^20 bits (128 KB) rejects most windows before the table */
/* the bit is taken from the hash multiplied by a 64-bit odd constant (Fibonacci hashing): the top bits
   of the polynomial hash alone are poorly mixed, and with 10,000 seeds most windows passed the filter */

typedef struct {
    const Slot *table;
    size_t mask;
    const uint8_t *filter;
    const Str *seeds;
    const int32_t *next;
    Py_ssize_t **pos;
    Py_ssize_t *found;
    Py_ssize_t *room;
    Py_ssize_t cap;
    int k; /* the window length: every seed is at least this long */
} Scan;

static inline size_t filter_bit(uint64_t h) { return (size_t)((h * 0x9E3779B97F4A7C15ull) >> (64 - FILTER_BITS)); }
/* 1 when the filter may hold a window of hash h (its bit is set), 0 when no seed has that hash */
static inline int filter_has(const uint8_t *filter, uint64_t h) {
    size_t bit = filter_bit(h);
    return (filter[bit >> 3] >> (bit & 7)) & 1;
}

/* The window at `at` hashes to h and passed the filter: confirm the seeds of that hash there.
 * Returns 0 when out of memory. */
static int probe(const Scan *sc, const Str *text, Py_ssize_t at, uint64_t h) {
    size_t slot = slot_of(h, sc->mask);
    while (sc->table[slot].head >= 0) {
        if (sc->table[slot].tag == tag_of(h)) {
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

/* The windows that the second half of a pass holds and that passed the filter, probed after the first half's. */
typedef struct {
    Py_ssize_t at;
    uint64_t hash;
} Later;

static int later_push(Later **buf, Py_ssize_t *len, Py_ssize_t *room, Py_ssize_t at, uint64_t h) {
    if (*len == *room) {
        Py_ssize_t grow = *room ? *room * 2 : 64;
        Later *p = PyMem_RawRealloc(*buf, (size_t)grow * sizeof(Later));
        if (!p) return 0;
        *buf = p;
        *room = grow;
    }
    (*buf)[(*len)++] = (Later){at, h};
    return 1;
}

/* One pass over a text of one string kind (T: its code unit). Returns 0 when out of memory.
 * A rolled hash waits for the one before it (a multiplication and two additions a window): the pass
 * takes the windows SCAN_CHUNK at a time and rolls two hashes over each chunk, one from its start and
 * one from its middle, side by side, so the processor overlaps them. The first half's windows that
 * pass the filter are probed at once, the second half's once the first half is done: every window is
 * probed in text order, as one hash rolled from the start would. The chunk bounds what is kept for
 * later (at most SCAN_CHUNK / 2 windows, 512 KB, even in a text whose every window passes). */
#define SCAN_CHUNK ((Py_ssize_t)1 << 16)
#define DEFINE_SCAN(NAME, T)                                                                        \
    static int NAME(const Scan *sc, const Str *text) {                                              \
        const T *d = (const T *)text->data;                                                         \
        const int k = sc->k;                                                                        \
        const Py_ssize_t last = text->n - k; /* the last window's start (the caller has n >= k) */  \
        uint64_t top = 1;                                                                           \
        for (int j = 1; j < k; j++) top *= BASE;                                                    \
        Later *later = NULL;                                                                        \
        Py_ssize_t nl = 0, rl = 0;                                                                  \
        int ok = 1;                                                                                 \
        for (Py_ssize_t c0 = 0; ok && c0 <= last; c0 += SCAN_CHUNK) {                               \
            const Py_ssize_t end = c0 + SCAN_CHUNK - 1 < last ? c0 + SCAN_CHUNK - 1 : last; /* its last window */\
            const Py_ssize_t half = (end - c0 + 1) / 2; /* first half: windows c0 .. c0 + half - 1 */\
            const Py_ssize_t mid = c0 + half;                                                       \
            uint64_t ha = 0, hb = 0;                                                                \
            for (int j = 0; j < k; j++) {                                                           \
                ha = ha * BASE + d[c0 + j];                                                         \
                hb = hb * BASE + d[mid + j];                                                        \
            }                                                                                       \
            nl = 0;                                                                                 \
            for (Py_ssize_t i = 0; i < half; i++) {                                                 \
                if (filter_has(sc->filter, ha) && !probe(sc, text, c0 + i, ha)) {                   \
                    ok = 0;                                                                         \
                    break;                                                                          \
                }                                                                                   \
                if (filter_has(sc->filter, hb) && !later_push(&later, &nl, &rl, mid + i, hb)) {     \
                    ok = 0;                                                                         \
                    break;                                                                          \
                }                                                                                   \
                ha = (ha - top * d[c0 + i]) * BASE + d[c0 + i + k];                                 \
                if (mid + i < end) hb = (hb - top * d[mid + i]) * BASE + d[mid + i + k];            \
            }                                                                                       \
            for (Py_ssize_t c = 0; ok && c < nl; c++) ok = probe(sc, text, later[c].at, later[c].hash);\
            /* the second half holds one window more when the chunk's number is odd: hb is its hash */\
            if (ok && mid + half <= end) {                                                          \
                if (filter_has(sc->filter, hb)) ok = probe(sc, text, mid + half, hb);               \
            }                                                                                       \
        }                                                                                           \
        PyMem_RawFree(later);                                                                       \
        return ok;                                                                                  \
    }

DEFINE_SCAN(scan_ucs1, Py_UCS1)
DEFINE_SCAN(scan_ucs2, Py_UCS2)
DEFINE_SCAN(scan_ucs4, Py_UCS4)

/* The pass of first_hits and first_starts. starts_only: a dict {seed index: first start} of the seeds
 * that occur (cap 1), instead of a list of every seed's starts. */
/* The seeds' table: built once per call of first_hits, once per prepare() for first_starts. */
typedef struct {
    PyObject *owner; /* a tuple holding the seeds (they must outlive the table) */
    Py_ssize_t ns;
    int k;
    int stride; /* 1: every window, rolled; more: the windows at multiples of stride (see the top) */
    Str *seeds;
    int32_t *next;
    Slot *table;
    size_t mask;
    uint8_t *filter;
} Table;

static void table_free(Table *t) {
    if (!t) return;
    PyMem_Free(t->seeds);
    PyMem_Free(t->next);
    PyMem_Free(t->table);
    PyMem_Free(t->filter);
    Py_XDECREF(t->owner);
    PyMem_Free(t);
}

/* A table of `seeds` (a list or tuple of str, each at least k + stride - 1 code points); NULL with an
 * exception set. With stride 1 it holds each seed's first window (rolling hash); with more, the windows
 * at the seed's offsets 0 .. stride - 1 (lane hash), entry e standing for seed e / stride at e % stride. */
static Table *table_new(PyObject *seeds_obj, int k, int stride) {
    PyObject *owner = PySequence_Tuple(seeds_obj);
    if (!owner) return NULL;
    Table *t = PyMem_Calloc(1, sizeof(Table));
    if (!t) {
        Py_DECREF(owner);
        PyErr_NoMemory();
        return NULL;
    }
    t->owner = owner;
    t->k = k;
    t->stride = stride;
    Py_ssize_t ns = t->ns = PyTuple_GET_SIZE(owner);
    if (ns > INT32_MAX / stride) { /* entries are int32 (next[], Slot.head) */
        table_free(t);
        PyErr_NoMemory();
        return NULL;
    }
    Py_ssize_t m = ns ? ns : 1, entries = m * stride;
    size_t size = 16;
    while (size < (size_t)entries * 2) size <<= 1;
    t->mask = size - 1;
    t->seeds = PyMem_Calloc(m, sizeof(Str));
    t->next = PyMem_Calloc(entries, sizeof(int32_t));
    t->table = PyMem_Malloc(size * sizeof(Slot));
    t->filter = PyMem_Calloc((size_t)1 << (FILTER_BITS - 3), 1);
    if (!t->seeds || !t->next || !t->table || !t->filter) {
        table_free(t);
        PyErr_NoMemory();
        return NULL;
    }
    for (size_t i = 0; i < size; i++) t->table[i].head = -1;
    /* entries are chained in reverse, so walk them from the last: a chain lists them in list order */
    for (Py_ssize_t i = ns - 1; i >= 0; i--) {
        PyObject *s = PyTuple_GET_ITEM(owner, i);
        if (!PyUnicode_Check(s) || PyUnicode_GET_LENGTH(s) < k + stride - 1) {
            PyErr_Format(PyExc_ValueError, "every seed must be a str of at least %d characters", k + stride - 1);
            table_free(t);
            return NULL;
        }
        t->seeds[i] = (Str){PyUnicode_KIND(s), PyUnicode_DATA(s), PyUnicode_GET_LENGTH(s)};
        for (int j = stride - 1; j >= 0; j--) {
            Py_ssize_t e = i * stride + j;
            uint64_t h = stride == 1 ? window_hash(&t->seeds[i], 0, k) : lane_hash(&t->seeds[i], j, k);
            size_t slot = slot_of(h, t->mask);
            while (t->table[slot].head >= 0 && t->table[slot].tag != tag_of(h)) slot = (slot + 1) & t->mask;
            t->next[e] = t->table[slot].head; /* -1 for the first entry of this tag */
            t->table[slot].tag = tag_of(h);
            t->table[slot].head = (int32_t)e;
            t->filter[filter_bit(h) >> 3] |= (uint8_t)(1u << (filter_bit(h) & 7));
        }
    }
    return t;
}

/* The window at p (a multiple of the stride) hashes to h and passed the filter: each entry of that hash
 * names a seed and an offset j, so a seed that starts at p - j; keep the smallest confirmed start. */
static void probe_strided(const Table *t, const Str *text, Py_ssize_t p, uint64_t h, Py_ssize_t *best,
                          const uint8_t *skip) {
    size_t slot = slot_of(h, t->mask);
    while (t->table[slot].head >= 0) {
        if (t->table[slot].tag == tag_of(h)) {
            for (Py_ssize_t e = t->table[slot].head; e >= 0; e = t->next[e]) {
                Py_ssize_t si = e / t->stride, at = p - e % t->stride;
                const Str *s = &t->seeds[si];
                if (at < 0 || at + s->n > text->n || (best[si] >= 0 && best[si] <= at) || (skip && skip[si])) continue;
                Py_ssize_t j = 0;
                while (j < s->n && PyUnicode_READ(s->kind, s->data, j) == PyUnicode_READ(text->kind, text->data, at + j))
                    j++;
                if (j == s->n) best[si] = at;
            }
            return;
        }
        slot = (slot + 1) & t->mask;
    }
}

/* The windows are taken BLOCK at a time: first their hashes and filter bits, with no branch on the filter's
 * answer (the loads of the filter are independent and the processor overlaps them; window by window, a pass
 * waited on each), keeping the windows that passed; then their table slots are prefetched; then they are
 * probed in window order (probe_strided keeps the smallest start: the same answer as one window at a time).
 * 10,000 quotes over 100 MB: 0.39 -> 0.24 s (docs/benchmarks.md, issue 19, fourteenth session). */
#define BLOCK 64
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)0)
#endif
/* The window's length is a constant in the pass of the only length the scan uses (PatternSet's 16): the
 * hash's loop is unrolled and its loads and products scheduled together. 10,000 quotes over 100 MB with
 * the scan's muting: 0.235 -> 0.183 s (docs/benchmarks.md, issue 19, twentieth session). */
#define STRIDED_K 16
#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif
#define DEFINE_STRIDED(NAME, T)                                                                     \
    static ALWAYS_INLINE void NAME##_k(const Table *t, const Str *text, Py_ssize_t *best,          \
                                       const uint8_t *skip, const int k) {                          \
        const T *d = (const T *)text->data;                                                         \
        const int stride = t->stride;                                                               \
        Py_ssize_t at[BLOCK];                                                                       \
        uint64_t hs[BLOCK];                                                                         \
        for (Py_ssize_t p = 0; p + k <= text->n;) {                                                 \
            int passed = 0;                                                                         \
            for (int b = 0; b < BLOCK && p + k <= text->n; b++, p += stride) {                      \
                uint64_t h = 0;                                                                     \
                for (int j = 0; j < k; j++) h += (uint64_t)d[p + j] * LANE[j];                      \
                at[passed] = p;                                                                     \
                hs[passed] = h;                                                                     \
                passed += filter_has(t->filter, h);                                                 \
            }                                                                                       \
            for (int c = 0; c < passed; c++) PREFETCH(&t->table[slot_of(hs[c], t->mask)]);          \
            for (int c = 0; c < passed; c++) probe_strided(t, text, at[c], hs[c], best, skip);      \
        }                                                                                           \
    }                                                                                               \
    static void NAME(const Table *t, const Str *text, Py_ssize_t *best, const uint8_t *skip) {      \
        if (t->k == STRIDED_K)                                                                      \
            NAME##_k(t, text, best, skip, STRIDED_K);                                               \
        else                                                                                        \
            NAME##_k(t, text, best, skip, t->k);                                                    \
    }

DEFINE_STRIDED(strided_ucs1, Py_UCS1)
DEFINE_STRIDED(strided_ucs2, Py_UCS2)
DEFINE_STRIDED(strided_ucs4, Py_UCS4)

/* first_starts with a strided table: {seed index: first start} of the seeds that occur. */
static PyObject *strided_starts(const Table *t, PyObject *text_obj, const uint8_t *skip) {
    Str text = {PyUnicode_KIND(text_obj), PyUnicode_DATA(text_obj), PyUnicode_GET_LENGTH(text_obj)};
    Py_ssize_t ns = t->ns;
    Py_ssize_t *best = PyMem_Malloc((ns ? ns : 1) * sizeof(Py_ssize_t));
    if (!best) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < ns; i++) best[i] = -1;
    if (ns > 0 && text.n >= t->k) {
        Py_BEGIN_ALLOW_THREADS
        if (text.kind == PyUnicode_1BYTE_KIND)
            strided_ucs1(t, &text, best, skip);
        else if (text.kind == PyUnicode_2BYTE_KIND)
            strided_ucs2(t, &text, best, skip);
        else
            strided_ucs4(t, &text, best, skip);
        Py_END_ALLOW_THREADS
    }
    PyObject *result = PyDict_New();
    for (Py_ssize_t i = 0; result && i < ns; i++) {
        if (best[i] < 0) continue;
        PyObject *k = PyLong_FromSsize_t(i), *v = PyLong_FromSsize_t(best[i]);
        if (!k || !v || PyDict_SetItem(result, k, v) < 0) Py_CLEAR(result);
        Py_XDECREF(k);
        Py_XDECREF(v);
    }
    PyMem_Free(best);
    return result;
}

/* first_hits skips: a Wu-Manber pass (Wu and Manber 1994) over the seeds' first m code points (m: the
 * shortest seed). SHIFT[h] is, over every seed and every three code points of its first m whose hash
 * is h, the least distance from those three to the end of the m; TRIGRAMS absent from every seed's
 * first m shift by m - 2. The pass looks at the three code points that end at e: with a shift s > 0 no
 * seed's first m can end at e .. e + s - 1 (it would hold those three nearer its end than s), so e moves
 * on by s; with 0, the window of the first m that ends at e is probed as the rolled pass probes it (the
 * hash of its first K code points looked up in the seeds' table, then each seed compared in full) and
 * e moves on by one. Every start of a seed is so probed, in text order: the same answer as the rolled
 * pass (tests/test_near_miss_index.py), which reads every window. On the seeds of the near-miss search
 * (tens of pieces of quotes, 8-24 code points) the pass reads a few windows in ten. */
#define SHIFT_BITS 15
typedef struct {
    uint8_t *shift; /* 1 << SHIFT_BITS entries */
    int m;          /* the shortest seed's length, at most MAX_K */
} Shift;

static inline uint32_t trigram(uint32_t a, uint32_t b, uint32_t c) {
    return (a * 0x9E3779B1u + b * 0x85EBCA77u + c * 0xC2B2AE3Du) >> (32 - SHIFT_BITS);
}

/* the shift table of a Table's seeds; 0 with the table left unset when out of memory (NoMemory set) */
static int shift_new(const Table *t, Shift *sh) {
    Py_ssize_t m = MAX_K;
    for (Py_ssize_t i = 0; i < t->ns; i++)
        if (t->seeds[i].n < m) m = t->seeds[i].n;
    sh->m = (int)m;
    sh->shift = PyMem_Malloc((size_t)1 << SHIFT_BITS);
    if (!sh->shift) {
        PyErr_NoMemory();
        return 0;
    }
    memset(sh->shift, (int)(m - 2), (size_t)1 << SHIFT_BITS);
    for (Py_ssize_t i = 0; i < t->ns; i++) {
        const Str *sd = &t->seeds[i];
        for (Py_ssize_t j = 0; j + 2 < m; j++) {
            uint32_t h = trigram(PyUnicode_READ(sd->kind, sd->data, j), PyUnicode_READ(sd->kind, sd->data, j + 1),
                                 PyUnicode_READ(sd->kind, sd->data, j + 2));
            uint8_t d = (uint8_t)(m - 3 - j); /* from the trigram's last code point to the end of the m */
            if (d < sh->shift[h]) sh->shift[h] = d;
        }
    }
    return 1;
}

#define DEFINE_SKIP(NAME, T)                                                                        \
    static int NAME(const Scan *sc, const Str *text, const Shift *sh) {                             \
        const T *d = (const T *)text->data;                                                         \
        const Py_ssize_t m = sh->m, n = text->n;                                                    \
        const uint8_t *shift = sh->shift;                                                           \
        for (Py_ssize_t e = m - 1; e < n;) {                                                        \
            uint8_t s = shift[trigram(d[e - 2], d[e - 1], d[e])];                                   \
            if (s) {                                                                                \
                e += s;                                                                             \
                continue;                                                                           \
            }                                                                                       \
            const Py_ssize_t p = e - m + 1;                                                         \
            uint64_t h = 0;                                                                         \
            for (int j = 0; j < K; j++) h = h * BASE + d[p + j];                                    \
            if (filter_has(sc->filter, h) && !probe(sc, text, p, h)) return 0;                      \
            e++;                                                                                    \
        }                                                                                           \
        return 1;                                                                                   \
    }

DEFINE_SKIP(skip_ucs1, Py_UCS1)
DEFINE_SKIP(skip_ucs2, Py_UCS2)
DEFINE_SKIP(skip_ucs4, Py_UCS4)

/* How far the skipping pass moves on average over a sample of the text (SKIP_SAMPLE code points from
 * its middle), its shifts only: with many seeds most trigrams of a text are in some seed and the pass
 * moves on by one or two, where the rolled pass is faster (2,000 seeds of 8-10 code points: twice as
 * slow). Below SKIP_MIN_SHIFT the rolled pass runs (measured on the bench's sources: the two break
 * even at an average shift of 4 to 5). Either pass gives the same starts. */
#define SKIP_SAMPLE 4096
#define SKIP_MIN_SHIFT 5.0
#define DEFINE_SAMPLE(NAME, T)                                                                      \
    static double NAME(const Str *text, const Shift *sh) {                                          \
        const T *d = (const T *)text->data;                                                         \
        const Py_ssize_t m = sh->m;                                                                 \
        Py_ssize_t lo = text->n > 2 * SKIP_SAMPLE ? text->n / 2 : 0;                                \
        Py_ssize_t hi = lo + SKIP_SAMPLE < text->n ? lo + SKIP_SAMPLE : text->n;                    \
        Py_ssize_t steps = 0;                                                                       \
        for (Py_ssize_t e = lo + m - 1; e < hi; steps++) {                                          \
            uint8_t s = sh->shift[trigram(d[e - 2], d[e - 1], d[e])];                               \
            e += s ? s : 1;                                                                         \
        }                                                                                           \
        return steps ? (double)(hi - lo) / (double)steps : (double)m;                               \
    }

DEFINE_SAMPLE(sample_ucs1, Py_UCS1)
DEFINE_SAMPLE(sample_ucs2, Py_UCS2)
DEFINE_SAMPLE(sample_ucs4, Py_UCS4)

/* the skipping pass's average shift over the sample of this text (0 for a text shorter than m) */
static double sampled_shift(PyObject *text_obj, const Shift *sh) {
    Str text = {PyUnicode_KIND(text_obj), PyUnicode_DATA(text_obj), PyUnicode_GET_LENGTH(text_obj)};
    if (text.n < sh->m) return 0;
    return text.kind == PyUnicode_1BYTE_KIND   ? sample_ucs1(&text, sh)
           : text.kind == PyUnicode_2BYTE_KIND ? sample_ucs2(&text, sh)
                                               : sample_ucs4(&text, sh);
}

/* whether the skipping pass pays on this text (see above) */
static int skip_pays(PyObject *text_obj, const Shift *sh) { return sampled_shift(text_obj, sh) >= SKIP_MIN_SHIFT; }

/* One pass of `text` against a table. starts_only: a dict {seed index: first start} of the seeds that
 * occur (cap 1), instead of a list of every seed's starts. */
static PyObject *hits(const Table *t, PyObject *text_obj, Py_ssize_t cap, int starts_only, const uint8_t *skip,
                      const Shift *sh) {
    Py_ssize_t ns = t->ns;
    if (cap < 0) cap = 0;
    Str text = {PyUnicode_KIND(text_obj), PyUnicode_DATA(text_obj), PyUnicode_GET_LENGTH(text_obj)};
    Py_ssize_t m = ns ? ns : 1;
    Py_ssize_t *found = PyMem_Calloc(m, sizeof(Py_ssize_t));
    Py_ssize_t *room = PyMem_Calloc(m, sizeof(Py_ssize_t));
    Py_ssize_t **pos = PyMem_Calloc(m, sizeof(Py_ssize_t *));
    PyObject *result = NULL;
    int oom = 0;
    if (!found || !room || !pos) {
        PyErr_NoMemory();
        goto done;
    }
    if (skip)  /* a skipped seed counts as found up to its cap: never compared, never reported */
        for (Py_ssize_t i = 0; i < ns; i++)
            if (skip[i]) found[i] = cap;
    if (ns > 0 && cap > 0 && text.n >= t->k) {
        Scan sc = {t->table, t->mask, t->filter, t->seeds, t->next, pos, found, room, cap, t->k};
        Py_BEGIN_ALLOW_THREADS
        int ok;
        if (sh) /* first_hits: the seeds' first m code points, skipping (the same starts) */
            ok = text.kind == PyUnicode_1BYTE_KIND   ? skip_ucs1(&sc, &text, sh)
                 : text.kind == PyUnicode_2BYTE_KIND ? skip_ucs2(&sc, &text, sh)
                                                     : skip_ucs4(&sc, &text, sh);
        else
            ok = text.kind == PyUnicode_1BYTE_KIND   ? scan_ucs1(&sc, &text)
                 : text.kind == PyUnicode_2BYTE_KIND ? scan_ucs2(&sc, &text)
                                                     : scan_ucs4(&sc, &text);
        oom = !ok;
        Py_END_ALLOW_THREADS
    }
    if (oom) {
        PyErr_NoMemory();
        goto done;
    }
    if (starts_only) {
        result = PyDict_New();
        if (!result) goto done;
        for (Py_ssize_t i = 0; i < ns; i++) {
            if (!found[i] || (skip && skip[i])) continue;
            PyObject *k = PyLong_FromSsize_t(i), *v = PyLong_FromSsize_t(pos[i][0]);
            int bad = !k || !v || PyDict_SetItem(result, k, v) < 0;
            Py_XDECREF(k);
            Py_XDECREF(v);
            if (bad) {
                Py_CLEAR(result);
                goto done;
            }
        }
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
    return result;
}

static PyObject *py_first_hits(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text_obj, *seeds_obj;
    Py_ssize_t cap;
    int skipping = 1; /* 0: the rolled pass; 1: the skipping pass where it pays (skip_pays); 2: always skipping */
    if (!PyArg_ParseTuple(args, "UO!n|i", &text_obj, &PyList_Type, &seeds_obj, &cap, &skipping)) return NULL;
    Table *t = table_new(seeds_obj, K, 1);
    if (!t) return NULL;
    Shift sh = {NULL, 0};
    PyObject *result = NULL;
    if (!skipping || t->ns == 0)
        result = hits(t, text_obj, cap, 0, NULL, NULL);
    else if (shift_new(t, &sh))
        result = hits(t, text_obj, cap, 0, NULL, skipping == 2 || skip_pays(text_obj, &sh) ? &sh : NULL);
    PyMem_Free(sh.shift);
    table_free(t);
    return result;
}

/* skip_shift(text, seeds) -> float: the average shift first_hits's skipping pass would make over its
 * sample of text (what decides between the passes; for tests and measurements) */
static PyObject *py_skip_shift(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text_obj, *seeds_obj;
    if (!PyArg_ParseTuple(args, "UO!", &text_obj, &PyList_Type, &seeds_obj)) return NULL;
    Table *t = table_new(seeds_obj, K, 1);
    if (!t) return NULL;
    Shift sh = {NULL, 0};
    PyObject *result = NULL;
    if (t->ns == 0) result = PyFloat_FromDouble(0);
    else if (shift_new(t, &sh)) result = PyFloat_FromDouble(sampled_shift(text_obj, &sh));
    PyMem_Free(sh.shift);
    table_free(t);
    return result;
}

#define CAPSULE "claimledger._cseeds.Seeds"

static void capsule_free(PyObject *capsule) { table_free(PyCapsule_GetPointer(capsule, CAPSULE)); }

static PyObject *py_prepare(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *seeds_obj;
    int k = K, stride = 1;
    if (!PyArg_ParseTuple(args, "O!|ii", &PyList_Type, &seeds_obj, &k, &stride)) return NULL;
    if (k < K || k > MAX_K) {
        PyErr_Format(PyExc_ValueError, "the window length must be between %d and %d", K, MAX_K);
        return NULL;
    }
    if (stride < 1 || stride > MAX_K) {
        PyErr_Format(PyExc_ValueError, "the stride must be between 1 and %d", MAX_K);
        return NULL;
    }
    Table *t = table_new(seeds_obj, k, stride);
    if (!t) return NULL;
    PyObject *capsule = PyCapsule_New(t, CAPSULE, capsule_free);
    if (!capsule) table_free(t);
    return capsule;
}

static PyObject *py_first_starts(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *capsule, *text_obj, *skip_obj = Py_None;
    if (!PyArg_ParseTuple(args, "OU|O", &capsule, &text_obj, &skip_obj)) return NULL;
    Table *t = PyCapsule_GetPointer(capsule, CAPSULE); /* a foreign object: TypeError-like ValueError */
    if (!t) return NULL;
    Py_buffer skip = {0};
    if (skip_obj != Py_None) { /* one byte per seed, nonzero: not looked for (held for the whole call) */
        if (PyObject_GetBuffer(skip_obj, &skip, PyBUF_SIMPLE) < 0) return NULL;
        if (skip.len != t->ns) {
            PyBuffer_Release(&skip);
            PyErr_Format(PyExc_ValueError, "the skip mask must hold one byte per seed (%zd), not %zd", t->ns, skip.len);
            return NULL;
        }
    }
    const uint8_t *mask = skip_obj != Py_None ? (const uint8_t *)skip.buf : NULL;
    PyObject *result = t->stride > 1 ? strided_starts(t, text_obj, mask) : hits(t, text_obj, 1, 1, mask, NULL);
    if (skip_obj != Py_None) PyBuffer_Release(&skip);
    return result;
}

/* matching_blocks(a, b) -> list of (i, j, n): what difflib.SequenceMatcher(None, a, b, autojunk=False)
 * .get_matching_blocks() returns for two lists of str (the word diff of a near miss,
 * claimledger.checks.diff): the longest matching block of the whole ranges, then of the ranges left of
 * it and right of it, and so on; sorted, adjacent blocks merged, and (len(a), len(b), 0) last. The
 * longest block of two ranges is found as difflib finds it without junk: for i ascending, for each j
 * ascending with a[i] == b[j], the block ending there is one longer than the one ending at (i-1, j-1),
 * and replaces the best only when strictly longer (so: the longest, the first in a, then the first in
 * b; (alo, blo, 0) when none). Tokens are numbered first (equal strings, equal numbers). */
typedef struct {
    Py_ssize_t i, j, k;
} Block;

static int block_order(const void *x, const void *y) {
    const Block *p = x, *q = y;
    return (p->i > q->i) - (p->i < q->i); /* blocks never share an i (they do not overlap) */
}

static int number_tokens(PyObject *a, PyObject *b, Py_ssize_t *ia, Py_ssize_t *ib) {
    Py_ssize_t la = PyList_GET_SIZE(a), lb = PyList_GET_SIZE(b);
    size_t size = 8;
    while (size < (size_t)(la + lb) * 2) size <<= 1;
    PyObject **keys = PyMem_Calloc(size, sizeof(PyObject *));
    Py_hash_t *hashes = PyMem_Malloc(size * sizeof(Py_hash_t));
    Py_ssize_t *ids = PyMem_Malloc(size * sizeof(Py_ssize_t));
    if (!keys || !hashes || !ids) {
        PyMem_Free(keys), PyMem_Free(hashes), PyMem_Free(ids);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t next = 0;
    for (Py_ssize_t t = 0; t < la + lb; t++) {
        PyObject *tok = t < la ? PyList_GET_ITEM(a, t) : PyList_GET_ITEM(b, t - la);
        if (!PyUnicode_Check(tok)) {
            PyErr_SetString(PyExc_TypeError, "tokens must be str");
            next = -1;
            break;
        }
        Py_hash_t h = PyObject_Hash(tok);
        if (h == -1) {
            next = -1;
            break;
        }
        size_t slot = (size_t)(((uint64_t)h * 0x9E3779B97F4A7C15ull) >> 20) & (size - 1);
        Py_ssize_t id = -1;
        while (keys[slot]) {
            if (hashes[slot] == h && PyUnicode_Compare(keys[slot], tok) == 0) {
                id = ids[slot];
                break;
            }
            slot = (slot + 1) & (size - 1);
        }
        if (id < 0) keys[slot] = tok, hashes[slot] = h, ids[slot] = id = next++;
        if (t < la) ia[t] = id;
        else ib[t - la] = id;
    }
    PyMem_Free(keys), PyMem_Free(hashes), PyMem_Free(ids);
    return next < 0 ? -1 : 0;
}

static Block longest_block(const Py_ssize_t *ia, const Py_ssize_t *ib, Py_ssize_t alo, Py_ssize_t ahi,
                           Py_ssize_t blo, Py_ssize_t bhi, Py_ssize_t *prev, Py_ssize_t *cur) {
    Block best = {alo, blo, 0};
    Py_ssize_t m = bhi - blo;
    for (Py_ssize_t jj = 0; jj <= m; jj++) prev[jj] = 0;
    cur[0] = 0;
    for (Py_ssize_t i = alo; i < ahi; i++) {
        Py_ssize_t x = ia[i];
        for (Py_ssize_t jj = 0; jj < m; jj++) {
            Py_ssize_t k = ib[blo + jj] == x ? prev[jj] + 1 : 0; /* prev[jj]: the block ending at (i-1, j-1) */
            cur[jj + 1] = k;
            if (k > best.k) best.i = i - k + 1, best.j = blo + jj - k + 1, best.k = k;
        }
        Py_ssize_t *swap = prev;
        prev = cur, cur = swap;
    }
    return best;
}

/* The merged matching blocks of two numbered token lists, and (la, lb, 0) last, into out (room for
 * min(la, lb) + 1 blocks); their number, or -1 (memory error set). */
static Py_ssize_t merged_blocks(const Py_ssize_t *ia, Py_ssize_t la, const Py_ssize_t *ib, Py_ssize_t lb, Block *out) {
    Py_ssize_t most = (la < lb ? la : lb) + 1; /* blocks never overlap: at most one per token of the shorter */
    Py_ssize_t *rows = PyMem_Malloc((size_t)(lb + 1) * 2 * sizeof(Py_ssize_t));
    Block *queue = PyMem_Malloc((size_t)(most + 1) * 2 * sizeof(Block)); /* ranges: (alo, ahi), (blo, bhi) */
    Block *blocks = PyMem_Malloc((size_t)most * sizeof(Block));
    if (!rows || !queue || !blocks) {
        PyMem_Free(rows), PyMem_Free(queue), PyMem_Free(blocks);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t nq = 0, nb = 0, n = 0;
    queue[0] = (Block){0, la, 0}, queue[1] = (Block){0, lb, 0}, nq = 1;
    while (nq) {
        nq--;
        Py_ssize_t alo = queue[2 * nq].i, ahi = queue[2 * nq].j, blo = queue[2 * nq + 1].i, bhi = queue[2 * nq + 1].j;
        Block x = longest_block(ia, ib, alo, ahi, blo, bhi, rows, rows + lb + 1);
        if (!x.k) continue;
        blocks[nb++] = x;
        if (alo < x.i && blo < x.j) queue[2 * nq] = (Block){alo, x.i, 0}, queue[2 * nq + 1] = (Block){blo, x.j, 0}, nq++;
        if (x.i + x.k < ahi && x.j + x.k < bhi)
            queue[2 * nq] = (Block){x.i + x.k, ahi, 0}, queue[2 * nq + 1] = (Block){x.j + x.k, bhi, 0}, nq++;
    }
    qsort(blocks, (size_t)nb, sizeof(Block), block_order);
    Py_ssize_t i1 = 0, j1 = 0, k1 = 0;
    for (Py_ssize_t t = 0; t < nb; t++) {
        Block x = blocks[t];
        if (i1 + k1 == x.i && j1 + k1 == x.j) {
            k1 += x.k;
            continue;
        }
        if (k1) out[n++] = (Block){i1, j1, k1};
        i1 = x.i, j1 = x.j, k1 = x.k;
    }
    if (k1) out[n++] = (Block){i1, j1, k1};
    out[n++] = (Block){la, lb, 0};
    PyMem_Free(rows), PyMem_Free(queue), PyMem_Free(blocks);
    return n;
}

static PyObject *py_matching_blocks(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &a, &PyList_Type, &b)) return NULL;
    Py_ssize_t la = PyList_GET_SIZE(a), lb = PyList_GET_SIZE(b);
    Py_ssize_t *ia = PyMem_Malloc((size_t)(la + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *ib = PyMem_Malloc((size_t)(lb + 1) * sizeof(Py_ssize_t));
    Block *blocks = PyMem_Malloc((size_t)((la < lb ? la : lb) + 2) * sizeof(Block));
    PyObject *out = NULL;
    if (!ia || !ib || !blocks) {
        PyErr_NoMemory();
        goto done;
    }
    if (number_tokens(a, b, ia, ib) < 0) goto done;
    Py_ssize_t n = merged_blocks(ia, la, ib, lb, blocks);
    if (n < 0) goto done;
    out = PyList_New(n);
    if (!out) goto done;
    for (Py_ssize_t t = 0; t < n; t++) {
        PyObject *item = Py_BuildValue("(nnn)", blocks[t].i, blocks[t].j, blocks[t].k);
        if (!item) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, t, item);
    }
done:
    PyMem_Free(ia), PyMem_Free(ib), PyMem_Free(blocks);
    return out;
}

/* word_diff(quote, passage, cjk) -> str: claimledger.checks.diff.word_diff in one call. Tokens as
 * diff.tokens cuts them (one character that is whitespace, Py_UNICODE_ISSPACE, or CJK, in one of the
 * inclusive code point ranges of `cjk`, a buffer of uint32 pairs; or a run of other characters),
 * numbered by content, their merged matching blocks (merged_blocks, difflib's), and the blocks read as
 * word_diff reads them: what the quote skips before a block as [-...-], what the passage skips as
 * {+...+}, then the block. Every character is in one token, so a run of tokens is a substring. */
typedef struct {
    Py_ssize_t start, end;
    uint64_t hash;
} Tok;

static inline int single_char(Py_UCS4 c, const uint32_t *cjk, Py_ssize_t ncjk) {
    if (Py_UNICODE_ISSPACE(c)) return 1;
    for (Py_ssize_t r = 0; r < ncjk; r++)
        if (cjk[2 * r] <= c && c <= cjk[2 * r + 1]) return 1;
    return 0;
}

static Py_ssize_t split_tokens(PyObject *str, const uint32_t *cjk, Py_ssize_t ncjk, Tok *out) {
    int kind = PyUnicode_KIND(str);
    const void *data = PyUnicode_DATA(str);
    Py_ssize_t n = PyUnicode_GET_LENGTH(str), nt = 0, p = 0;
    while (p < n) {
        Py_ssize_t q = p + 1;
        if (!single_char(PyUnicode_READ(kind, data, p), cjk, ncjk))
            while (q < n && !single_char(PyUnicode_READ(kind, data, q), cjk, ncjk)) q++;
        uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a over the code points */
        for (Py_ssize_t r = p; r < q; r++) h = (h ^ PyUnicode_READ(kind, data, r)) * 0x100000001b3ull;
        out[nt++] = (Tok){p, q, h ^ (uint64_t)(q - p)};
        p = q;
    }
    return nt;
}

static int same_token(PyObject *x, const Tok *tx, PyObject *y, const Tok *ty) {
    if (tx->hash != ty->hash || tx->end - tx->start != ty->end - ty->start) return 0;
    int kx = PyUnicode_KIND(x), ky = PyUnicode_KIND(y);
    const void *dx = PyUnicode_DATA(x), *dy = PyUnicode_DATA(y);
    for (Py_ssize_t r = 0; r < tx->end - tx->start; r++)
        if (PyUnicode_READ(kx, dx, tx->start + r) != PyUnicode_READ(ky, dy, ty->start + r)) return 0;
    return 1;
}

static int append_piece(PyObject *pieces, PyObject *str, Py_ssize_t start, Py_ssize_t end, const char *open,
                        const char *close) {
    PyObject *part = PyUnicode_Substring(str, start, end);
    if (!part) return -1;
    if (open) {
        PyObject *marked = PyUnicode_FromFormat("%s%U%s", open, part, close);
        Py_DECREF(part);
        if (!marked) return -1;
        part = marked;
    }
    int rc = PyList_Append(pieces, part);
    Py_DECREF(part);
    return rc;
}

static PyObject *py_word_diff(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *a, *b;
    Py_buffer ranges;
    if (!PyArg_ParseTuple(args, "UUy*", &a, &b, &ranges)) return NULL;
    const uint32_t *cjk = ranges.buf;
    Py_ssize_t ncjk = ranges.len / (Py_ssize_t)(2 * sizeof(uint32_t));
    Py_ssize_t na = PyUnicode_GET_LENGTH(a), nb = PyUnicode_GET_LENGTH(b);
    Tok *ta = PyMem_Malloc((size_t)(na + nb + 1) * sizeof(Tok)), *tb = ta ? ta + na : NULL;
    Py_ssize_t *ids = PyMem_Malloc((size_t)(na + nb + 1) * sizeof(Py_ssize_t));
    size_t size = 8;
    while (size < (size_t)(na + nb) * 2) size <<= 1;
    Py_ssize_t *slots = PyMem_Malloc(size * sizeof(Py_ssize_t)); /* token index (a then b), -1: empty */
    Block *blocks = NULL;
    PyObject *pieces = NULL, *out = NULL;
    if (!ta || !ids || !slots) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t la = split_tokens(a, cjk, ncjk, ta), lb = split_tokens(b, cjk, ncjk, tb), next = 0;
    for (size_t i = 0; i < size; i++) slots[i] = -1;
    for (Py_ssize_t t = 0; t < la + lb; t++) { /* equal tokens, equal numbers */
        PyObject *s = t < la ? a : b;
        const Tok *tok = t < la ? &ta[t] : &tb[t - la];
        size_t h = (size_t)((tok->hash * 0x9E3779B97F4A7C15ull) >> 20) & (size - 1);
        Py_ssize_t id = -1;
        while (slots[h] >= 0) {
            Py_ssize_t o = slots[h];
            if (same_token(o < la ? a : b, o < la ? &ta[o] : &tb[o - la], s, tok)) {
                id = ids[o];
                break;
            }
            h = (h + 1) & (size - 1);
        }
        if (id < 0) slots[h] = t, id = next++;
        ids[t] = id;
    }
    blocks = PyMem_Malloc((size_t)((la < lb ? la : lb) + 2) * sizeof(Block));
    if (!blocks) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n = merged_blocks(ids, la, ids + la, lb, blocks);
    if (n < 0 || !(pieces = PyList_New(0))) goto done;
    Py_ssize_t i = 0, j = 0;
    for (Py_ssize_t t = 0; t < n; t++) {
        Block x = blocks[t];
        if (x.i > i && append_piece(pieces, a, ta[i].start, ta[x.i - 1].end, "[-", "-]") < 0) goto done;
        if (x.j > j && append_piece(pieces, b, tb[j].start, tb[x.j - 1].end, "{+", "+}") < 0) goto done;
        if (x.k && append_piece(pieces, a, ta[x.i].start, ta[x.i + x.k - 1].end, NULL, NULL) < 0) goto done;
        i = x.i + x.k, j = x.j + x.k;
    }
    PyObject *empty = PyUnicode_New(0, 0);
    if (!empty) goto done;
    out = PyUnicode_Join(empty, pieces);
    Py_DECREF(empty);
done:
    Py_XDECREF(pieces);
    PyMem_Free(ta), PyMem_Free(ids), PyMem_Free(slots), PyMem_Free(blocks);
    PyBuffer_Release(&ranges);
    return out;
}

/* count_newlines(text, bounds): the number of "\n" in text[bounds[2i]:bounds[2i+1]] for each i
 * (bounds: a list of ints, 0 <= start <= end <= len(text)); the counting runs without the GIL only when
 * the spans are very long (Source.locations: a source's evidence lines counted in one pass). It is
 * called on the run's main thread, which must take the GIL back afterwards: while the reading threads
 * run Python that waits up to the switch interval (5 ms), against ~0.1 ms to count a 400 kB source. */
#define COUNT_NOGIL_MIN ((Py_ssize_t)1 << 24)
/* the newlines of u[a:b], counted in blocks short enough for a narrow counter, so the compiler keeps
 * many characters per vector instruction (a 64-bit sum of one comparison a character did not) */
#define COUNT_NL_BLOCK(T)                                                                                      \
    do {                                                                                                       \
        const T *u = (const T *)data;                                                                          \
        Py_ssize_t i = a;                                                                                      \
        while (i < b) {                                                                                        \
            Py_ssize_t stop = b - i > 65535 ? i + 65535 : b;                                                   \
            uint16_t c = 0;                                                                                    \
            for (; i < stop; i++) c += (uint16_t)(u[i] == '\n');                                               \
            n += c;                                                                                            \
        }                                                                                                      \
    } while (0)

static Py_ssize_t count_nl(int kind, const void *data, Py_ssize_t a, Py_ssize_t b) {
    Py_ssize_t n = 0;
    if (kind == PyUnicode_1BYTE_KIND) COUNT_NL_BLOCK(Py_UCS1);
    else if (kind == PyUnicode_2BYTE_KIND) COUNT_NL_BLOCK(Py_UCS2);
    else COUNT_NL_BLOCK(Py_UCS4);
    return n;
}

static PyObject *py_count_newlines(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text, *bounds;
    if (!PyArg_ParseTuple(args, "UO!", &text, &PyList_Type, &bounds)) return NULL;
    Py_ssize_t nb = PyList_GET_SIZE(bounds), len = PyUnicode_GET_LENGTH(text);
    if (nb % 2) {
        PyErr_SetString(PyExc_ValueError, "count_newlines: bounds must hold pairs (start, end)");
        return NULL;
    }
    Py_ssize_t *b = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(nb ? nb : 1));
    if (!b) return PyErr_NoMemory();
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < nb; i++) {
        b[i] = PyLong_AsSsize_t(PyList_GET_ITEM(bounds, i));
        if (b[i] == -1 && PyErr_Occurred()) {
            PyMem_Free(b);
            return NULL;
        }
        if (b[i] < 0 || b[i] > len || (i % 2 && b[i] < b[i - 1])) {
            PyMem_Free(b);
            PyErr_SetString(PyExc_ValueError, "count_newlines: each span must be 0 <= start <= end <= len(text)");
            return NULL;
        }
        if (i % 2) total += b[i] - b[i - 1];
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyThreadState *ts = total >= COUNT_NOGIL_MIN ? PyEval_SaveThread() : NULL;
    for (Py_ssize_t i = 0; i < nb; i += 2) b[i] = count_nl(kind, data, b[i], b[i + 1]);
    if (ts) PyEval_RestoreThread(ts);
    PyObject *out = PyList_New(nb / 2);
    for (Py_ssize_t i = 0; out && i < nb; i += 2) {
        PyObject *v = PyLong_FromSsize_t(b[i]);
        if (!v) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i / 2, v);
    }
    PyMem_Free(b);
    return out;
}

/* line_columns(text, offsets): for each offset o of the list, (1 + text.count("\n", 0, o),
 * o - text.rfind("\n", 0, o)) when 0 <= o <= len(text), else None (Source.locations, the 1-based line
 * and column of each evidence of a plain-text source). The offsets are sorted here and the text read
 * once, up to the last of them; that reading runs without the GIL only when it is very long (see
 * count_newlines). An offset too large for a C integer is out of range; one that is not an int raises
 * TypeError. */
typedef struct {
    Py_ssize_t off, idx;
} OffIdx;

static int cmp_offidx(const void *pa, const void *pb) {
    const OffIdx *a = pa, *b = pb;
    if (a->off != b->off) return a->off < b->off ? -1 : 1;
    return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

/* the newlines of text[a:b]: their number added to *count (count_nl), the last one's index put in
 * *last (read back from b: a line's length, not the span's) */
static void scan_nl(int kind, const void *data, Py_ssize_t a, Py_ssize_t b, Py_ssize_t *count, Py_ssize_t *last) {
    Py_ssize_t n = count_nl(kind, data, a, b);
    if (!n) return;
    *count += n;
    Py_ssize_t i = b - 1;
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *u = (const Py_UCS1 *)data;
        while (u[i] != '\n') i--;
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *u = (const Py_UCS2 *)data;
        while (u[i] != '\n') i--;
    } else {
        const Py_UCS4 *u = (const Py_UCS4 *)data;
        while (u[i] != '\n') i--;
    }
    *last = i;
}

static PyObject *py_line_columns(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text, *offsets;
    if (!PyArg_ParseTuple(args, "UO!", &text, &PyList_Type, &offsets)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(offsets), len = PyUnicode_GET_LENGTH(text), m = 0;
    OffIdx *v = PyMem_Malloc(sizeof(OffIdx) * (size_t)(n ? n : 1));
    Py_ssize_t *lc = PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (size_t)(n ? n : 1));
    if (!v || !lc) {
        PyMem_Free(v), PyMem_Free(lc);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(offsets, i);
        if (!PyLong_Check(item)) {
            PyMem_Free(v), PyMem_Free(lc);
            PyErr_Format(PyExc_TypeError, "line_columns: offsets must be ints, not %.100s", Py_TYPE(item)->tp_name);
            return NULL;
        }
        int overflow = 0;
        long long o = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (o == -1 && PyErr_Occurred()) {
            PyMem_Free(v), PyMem_Free(lc);
            return NULL;
        }
        if (!overflow && o >= 0 && o <= (long long)len) v[m].off = (Py_ssize_t)o, v[m].idx = i, m++;
    }
    qsort(v, (size_t)m, sizeof(OffIdx), cmp_offidx);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyThreadState *ts = m && v[m - 1].off >= COUNT_NOGIL_MIN ? PyEval_SaveThread() : NULL;
    Py_ssize_t pos = 0, count = 0, last = -1;
    for (Py_ssize_t k = 0; k < m; k++) {
        scan_nl(kind, data, pos, v[k].off, &count, &last);
        pos = v[k].off;
        lc[2 * k] = count + 1;
        lc[2 * k + 1] = pos - last;
    }
    if (ts) PyEval_RestoreThread(ts);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        Py_INCREF(Py_None);
        PyList_SET_ITEM(out, i, Py_None);
    }
    for (Py_ssize_t k = 0; out && k < m; k++) {
        PyObject *t = Py_BuildValue("(nn)", lc[2 * k], lc[2 * k + 1]);
        if (!t) {
            Py_CLEAR(out);
            break;
        }
        PyList_SetItem(out, v[k].idx, t); /* drops the None */
    }
    PyMem_Free(v), PyMem_Free(lc);
    return out;
}

/* The last segment i with ns[i] <= x (bisect.bisect_right(ns, x) - 1; -1 when none). */
static Py_ssize_t segment_of(const int64_t *ns, Py_ssize_t nseg, int64_t x) {
    Py_ssize_t lo = 0, hi = nseg; /* the first index with ns[index] > x lies in [lo, hi] */
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (ns[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

/* spans_to_original(ns, os, oe, linear, spans) -> list: claimledger.normalize.Normalized.to_original(a, b)
 * for each (a, b) of spans (a list of pairs of ints), the segment map given as its four buffers (three
 * of int64, one of bytes); None for a span this does not map (b <= a, a before the first segment, an
 * int too large), which the caller maps in Python. The matches of a source's quotes, mapped back at
 * once: 17,000 spans on 100 MB x 10k, each a method call and two bisections in Python before. */
static PyObject *py_spans_to_original(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer b[4];
    PyObject *spans;
    if (!PyArg_ParseTuple(args, "y*y*y*y*O!", &b[0], &b[1], &b[2], &b[3], &PyList_Type, &spans)) return NULL;
    PyObject *out = NULL;
    Py_ssize_t nseg = b[3].len;
    if (b[0].len != nseg * 8 || b[1].len != nseg * 8 || b[2].len != nseg * 8) {
        PyErr_SetString(PyExc_ValueError, "spans_to_original: the segment map's buffers differ in length");
        goto done;
    }
    const int64_t *ns = b[0].buf, *os = b[1].buf, *oe = b[2].buf;
    const uint8_t *lin = b[3].buf;
    Py_ssize_t n = PyList_GET_SIZE(spans);
    out = PyList_New(n);
    for (Py_ssize_t k = 0; out && k < n; k++) {
        PyObject *span = PyList_GET_ITEM(spans, k), *item = NULL;
        long long a = 0, e = 0;
        int ok = PyTuple_Check(span) && PyTuple_GET_SIZE(span) == 2 && PyLong_Check(PyTuple_GET_ITEM(span, 0)) &&
                 PyLong_Check(PyTuple_GET_ITEM(span, 1));
        if (ok) {
            int o1 = 0, o2 = 0;
            a = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(span, 0), &o1);
            e = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(span, 1), &o2);
            ok = !o1 && !o2 && nseg > 0 && e > a && a >= ns[0];
        }
        if (ok) {
            Py_ssize_t i = segment_of(ns, nseg, a), j = segment_of(ns, nseg, e - 1);
            long long start = lin[i] ? os[i] + (a - ns[i]) : os[i];
            long long end = lin[j] ? os[j] + (e - ns[j]) : oe[j];
            item = Py_BuildValue("(LL)", start, end);
            if (!item) Py_CLEAR(out);
        } else {
            item = Py_None;
            Py_INCREF(item);
        }
        if (out) PyList_SET_ITEM(out, k, item);
    }
done:
    for (int i = 0; i < 4; i++) PyBuffer_Release(&b[i]);
    return out;
}

static PyMethodDef methods[] = {
    {"first_hits", py_first_hits, METH_VARARGS,
     "first_hits(text, seeds, cap, skipping=1): for each seed (at least 8 characters), the starts of its "
     "first cap occurrences in text, overlapping ones included, in text order. skipping 1: the Wu-Manber pass "
     "over the seeds' first m characters where a sample of the text shows it pays, else the rolled pass over "
     "every window; 0: always rolled; 2: always skipping (the same answer)."},
    {"skip_shift", py_skip_shift, METH_VARARGS,
     "skip_shift(text, seeds): the average shift of first_hits's skipping pass over its sample of text, which "
     "decides between the passes (at least 5: skipping)."},
    {"prepare", py_prepare, METH_VARARGS,
     "prepare(seeds, k=8, stride=1): the table of seeds (a list of str, each at least k + stride - 1 characters; "
     "8 <= k <= 64, 1 <= stride <= 64) for first_starts, built once for many texts; with stride 1 the first k "
     "characters of each seed are hashed, with more the k-character windows at its first stride offsets."},
    {"first_starts", py_first_starts, METH_VARARGS,
     "first_starts(prepared, text, skip=None): {i: start of the first occurrence of seeds[i]} for the seeds that "
     "occur in text; skip: a bytes-like object of one byte per seed, the seeds whose byte is nonzero are not "
     "looked for."},
    {"matching_blocks", py_matching_blocks, METH_VARARGS,
     "matching_blocks(a, b): for two lists of str, what difflib.SequenceMatcher(None, a, b, autojunk=False)"
     ".get_matching_blocks() returns, as a list of (i, j, n) tuples."},
    {"count_newlines", py_count_newlines, METH_VARARGS,
     "count_newlines(text, bounds): for each pair (bounds[2i], bounds[2i+1]), text.count('\\n', start, end); "
     "long spans are counted without the GIL."},
    {"line_columns", py_line_columns, METH_VARARGS,
     "line_columns(text, offsets): for each offset o, (1 + text.count('\\n', 0, o), o - text.rfind('\\n', 0, o)) "
     "when 0 <= o <= len(text), else None; the text is read once, up to the largest offset."},
    {"spans_to_original", py_spans_to_original, METH_VARARGS,
     "spans_to_original(ns, os, oe, linear, spans): Normalized.to_original(a, b) of each (a, b) of spans, the "
     "segment map as its four buffers; None for a span with b <= a or before the first segment."},
    {"word_diff", py_word_diff, METH_VARARGS,
     "word_diff(quote, passage, cjk): claimledger.checks.diff.word_diff, cjk the CJK code point ranges "
     "(inclusive) as a buffer of uint32 pairs."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cseeds",
                                    "The seed search of the near-miss search (claimledger.checks.seed_hits).",
                                    -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cseeds(void) {
    lanes_init();
    return PyModule_Create(&module);
}
