/* The near-miss alignment of the quote scan (claimledger.checks.quote_scan.nearest_spans), compiled.
 *
 * nearest(quotes, text, starts) -> list: for each quote, the passage of `text` nearest to it as
 * (score, start, end), or None. starts[i] None: the whole text is aligned (quote_scan._align over
 * 0 .. len(text)); else the list of candidate starts voted by the seeds (quote_scan._seed_candidates),
 * tried in order as nearest_spans tries them: a place whose bound (_place_bound) cannot beat the best
 * so far is skipped, the rough passage (_rough), skipped when already tried or when its bound
 * (_refine_bound) cannot beat the best, then its edges refined (_refine). The whole search runs without
 * the GIL: in a cold run the near misses are searched on the reading threads while the main thread
 * scans in Python, and rapidfuzz's calls hold the GIL (docs/benchmarks.md, eighteenth session).
 *
 * The rough passage is rapidfuzz's fuzz.partial_ratio_alignment(q, text[lo:hi]) (its destination),
 * re-implemented here as rapidfuzz 3.14 computes it (rapidfuzz-cpp, fuzz_impl.hpp: partial_ratio_impl;
 * MIT licence): for a needle shorter than the window, the windows of the needle's length are scored
 * by Indel distance, the range of window starts halved while a better distance can lie inside it
 * (known from its two ends); then the window's prefixes and suffixes shorter than the needle whose
 * edge character is in the needle; for a needle as long as the window, the same with the two swapped
 * too. Every score is computed with the same floating-point operations in the same order, and ties go
 * the same way (the first found); partial_alignment exposes it for the differential test against
 * rapidfuzz (tests/test_near_miss_compiled.py). fuzz.ratio is 100 (1 - d / (m + n)) with the Indel
 * distance d = m + n - 2 LCS; the LCS is the bit-parallel count of Hyyro (2004).
 *
 * best_cell(q, text, s_lo, s_hi, e_first, last): the refine grid of quote_scan._refine (see below).
 *
 * The pure-Python path (quote_scan.nearest_spans with rapidfuzz) stays the fallback and the oracle:
 * the test runs both on generated texts and quotes on every CI run.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline long long zeros(uint64_t x) { /* the zero bits of x (portable: no popcnt instruction assumed) */
    x = ~x;
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (long long)((x * 0x0101010101010101ull) >> 56);
}

/* ---------------------------------------------------------------- match masks of a pattern */

typedef struct {
    uint32_t cp;
    Py_ssize_t row; /* -1: empty slot */
} Slot;

/* The match mask of each distinct code point of a pattern p[0 .. n): pm + row holds `words` words,
 * bit i set where p[i] is that code point; rpm the same for the reversed pattern (bit i: p[n-1-i]).
 * Allocated with malloc: built without the GIL. */
typedef struct {
    Py_ssize_t n, words;
    size_t size;
    int bits;
    Slot *slots;
    uint64_t *pm, *rpm;
} Masks;

static inline size_t slot_of(const Masks *m, uint32_t c) {
    size_t h = (size_t)(((uint64_t)c * 0x9E3779B97F4A7C15ull) >> (64 - m->bits));
    while (m->slots[h].row >= 0 && m->slots[h].cp != c) h = (h + 1) & (m->size - 1);
    return h;
}

/* the offset in pm (and rpm) of c's mask, -1: c is not in the pattern */
static inline Py_ssize_t mask_row(const Masks *m, uint32_t c) { return m->slots[slot_of(m, c)].row; }

static void masks_free(Masks *m) {
    free(m->slots), free(m->pm), free(m->rpm);
    m->slots = NULL, m->pm = m->rpm = NULL;
}

static int masks_init(Masks *m, const uint32_t *p, Py_ssize_t n, int reversed) { /* 0: out of memory */
    m->n = n;
    m->words = n / 64 + 1;
    m->size = 8, m->bits = 3;
    while (m->size < (size_t)n * 2) m->size <<= 1, m->bits++;
    m->pm = m->rpm = NULL;
    m->slots = malloc(m->size * sizeof(Slot));
    if (!m->slots) return 0;
    for (size_t i = 0; i < m->size; i++) m->slots[i].row = -1;
    Py_ssize_t distinct = 0; /* a row for each distinct code point only (a long quote has few) */
    for (Py_ssize_t i = 0; i < n; i++) {
        size_t h = slot_of(m, p[i]);
        if (m->slots[h].row < 0) m->slots[h].cp = p[i], m->slots[h].row = distinct++ * m->words;
    }
    m->pm = calloc((size_t)(distinct + 1) * (size_t)m->words, sizeof(uint64_t));
    m->rpm = reversed ? calloc((size_t)(distinct + 1) * (size_t)m->words, sizeof(uint64_t)) : NULL;
    if (!m->pm || (reversed && !m->rpm)) {
        masks_free(m);
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t row = m->slots[slot_of(m, p[i])].row;
        m->pm[row + i / 64] |= (uint64_t)1 << (i % 64);
        if (reversed) m->rpm[row + (n - 1 - i) / 64] |= (uint64_t)1 << ((n - 1 - i) % 64);
    }
    return 1;
}

/* One step of the bit-parallel LCS: V = (V + (V & M)) | (V & ~M) over `words` words */
static inline void lcs_step(uint64_t *restrict v, const uint64_t *restrict mask, Py_ssize_t words) {
    uint64_t carry = 0;
    for (Py_ssize_t w = 0; w < words; w++) {
        uint64_t u = v[w] & mask[w];
        uint64_t x = v[w] + u;
        uint64_t c1 = x < u;
        uint64_t y = x + carry;
        carry = c1 | (y < carry);
        v[w] = y | (v[w] & ~u);
    }
}

static inline long long lcs_count(const uint64_t *v, Py_ssize_t words) {
    long long lcs = 0;
    for (Py_ssize_t w = 0; w < words; w++) lcs += zeros(v[w]);
    return lcs;
}

/* LCS of the pattern with t[0 .. len) (v: `words` words of scratch) */
static long long lcs_of(const Masks *m, const uint32_t *t, Py_ssize_t len, uint64_t *v) {
    for (Py_ssize_t w = 0; w < m->words; w++) v[w] = ~(uint64_t)0;
    for (Py_ssize_t i = 0; i < len; i++) {
        Py_ssize_t r = mask_row(m, t[i]);
        if (r >= 0) lcs_step(v, m->pm + r, m->words);
    }
    return lcs_count(v, m->words);
}

/* ---------------------------------------------------------------- rapidfuzz's scores */

/* rapidfuzz's CachedRatio::similarity of a pattern against a text, from their exact Indel distance
 * `dist` and `maximum` (the sum of their lengths), with its score_cutoff (0 .. 100): the operations of
 * NormalizedMetricBase::_normalized_similarity. A distance above rapidfuzz's cutoff distance is not
 * computed exactly there; any value above it gives the same answer (0). */
static double ratio_of(size_t dist, size_t maximum, double score_cutoff) {
    double c = score_cutoff / 100;
    double cutoff_score = fmin(1.0, 1.0 - c + 0.00001);
    size_t cutoff_distance = (size_t)ceil((double)maximum * cutoff_score);
    if (dist > cutoff_distance) dist = cutoff_distance + 1;
    double norm_dist = maximum != 0 ? (double)dist / (double)maximum : 0.0;
    if (!(norm_dist <= cutoff_score)) norm_dist = 1.0;
    double norm_sim = 1.0 - norm_dist;
    return (norm_sim >= c ? norm_sim : 0.0) * 100;
}

typedef struct {
    double score;
    Py_ssize_t start, end; /* in the longer sequence */
} Alignment;

/* rapidfuzz-cpp's fuzz_detail::partial_ratio_impl(s1, s2, cutoff), len(s1) <= len(s2), s1 non-empty:
 * its score and destination. `m` the masks of s1 with the reversed ones; scratch: `v` of m->words words,
 * `scores` of n2 - n1 entries, `win` of 4 (n2 - n1 + 1), `suf` of len(s1). */
static Alignment partial_impl(const Masks *m, const uint32_t *s2, Py_ssize_t n2, double score_cutoff, uint64_t *v,
                              size_t *scores, size_t *win, long long *suf) {
    const Py_ssize_t n1 = m->n, words = m->words;
    Alignment res = {0.0, 0, n1};
    if (n2 > n1) {
        const size_t none = SIZE_MAX, maximum = (size_t)n1 * 2;
        double norm_cutoff_sim = fmin(1.0, 1.0 - score_cutoff / 100 + 0.00001);
        size_t cutoff_dist = (size_t)ceil((double)maximum * norm_cutoff_sim);
        size_t best_dist = none;
        size_t nw = (size_t)(n2 - n1);
        for (size_t i = 0; i < nw; i++) scores[i] = none;
        /* the windows of this round and of the next, as (first, second) pairs */
        size_t *windows = win, *next = win + 2 * (nw + 1), count = 1, fresh = 0;
        windows[0] = 0, windows[1] = nw - 1;
        while (count) {
            for (size_t k = 0; k < count; k++) {
                size_t ends[2] = {windows[2 * k], windows[2 * k + 1]};
                for (int j = 0; j < 2; j++) {
                    size_t at = ends[j];
                    if (scores[at] != none) continue;
                    scores[at] = maximum - 2 * (size_t)lcs_of(m, s2 + at, n1, v);
                    if (scores[at] < cutoff_dist) {
                        cutoff_dist = best_dist = scores[at];
                        res.start = (Py_ssize_t)at, res.end = (Py_ssize_t)at + n1;
                        if (best_dist == 0) {
                            res.score = 100;
                            return res;
                        }
                    }
                }
                size_t first = ends[0], second = ends[1];
                size_t cell_diff = second - first;
                if (cell_diff == 1) continue;
                size_t a = scores[first], b = scores[second];
                size_t known_edits = a > b ? a - b : b - a;
                size_t max_score_improvement = (cell_diff - known_edits / 2) / 2 * 2;
                ptrdiff_t min_score = (ptrdiff_t)(a < b ? a : b) - (ptrdiff_t)max_score_improvement;
                if (min_score < (ptrdiff_t)cutoff_dist) {
                    size_t center = cell_diff / 2;
                    next[2 * fresh] = first, next[2 * fresh + 1] = first + center, fresh++;
                    next[2 * fresh] = first + center, next[2 * fresh + 1] = second, fresh++;
                }
            }
            size_t *swap = windows;
            windows = next, next = swap, count = fresh, fresh = 0;
        }
        double score = 1.0 - ((double)best_dist / (double)maximum);
        score *= 100;
        if (score >= score_cutoff) score_cutoff = res.score = score;
    }
    /* the prefixes s2[:i], 1 <= i < n1, whose last character is in s1: one pass reads them all */
    for (Py_ssize_t w = 0; w < words; w++) v[w] = ~(uint64_t)0;
    for (Py_ssize_t i = 1; i < n1; i++) {
        Py_ssize_t r = mask_row(m, s2[i - 1]);
        if (r < 0) continue; /* (V is unchanged by a character not in s1) */
        lcs_step(v, m->pm + r, words);
        size_t lcs = (size_t)lcs_count(v, words);
        double ls_ratio = ratio_of((size_t)(n1 + i) - 2 * lcs, (size_t)(n1 + i), score_cutoff);
        if (ls_ratio > res.score) {
            score_cutoff = res.score = ls_ratio;
            res.start = 0, res.end = i;
            if (res.score == 100.0) return res;
        }
    }
    /* the suffixes s2[i:], n2 - n1 <= i < n2, whose first character is in s1: LCS(s1, s2[i:]) is that of
     * the reversed s1 with s2 read backwards from its end down to i, so one pass gives them all (kept
     * in suf, then tried from the longest, as rapidfuzz tries them) */
    for (Py_ssize_t w = 0; w < words; w++) v[w] = ~(uint64_t)0;
    for (Py_ssize_t i = n2 - 1; i >= n2 - n1; i--) {
        Py_ssize_t r = mask_row(m, s2[i]);
        if (r >= 0) lcs_step(v, m->rpm + r, words);
        suf[i - (n2 - n1)] = r >= 0 ? lcs_count(v, words) : -1;
    }
    for (Py_ssize_t i = n2 - n1; i < n2; i++) {
        long long lcs = suf[i - (n2 - n1)];
        if (lcs < 0) continue;
        size_t maximum = (size_t)(n1 + n2 - i);
        double ls_ratio = ratio_of(maximum - 2 * (size_t)lcs, maximum, score_cutoff);
        if (ls_ratio > res.score) {
            score_cutoff = res.score = ls_ratio;
            res.start = i, res.end = n2;
            if (res.score == 100.0) return res;
        }
    }
    return res;
}

/* fuzz.partial_ratio_alignment(q, w) for a non-empty q (its masks `qm`, with the reversed ones) and a
 * non-empty w of m code points: its score and destination in w. As rapidfuzz: a needle longer than
 * the window swaps them (the destination is then the whole window); one as long as the window is
 * tried both ways. Scratch as partial_impl's for the longer of the two (v, scores, win, suf).
 * 0, or -1 when out of memory. */
static int alignment(const Masks *qm, const uint32_t *q, const uint32_t *w, Py_ssize_t m, uint64_t *v,
                     size_t *scores, size_t *win, long long *suf, Alignment *out) {
    Py_ssize_t n = qm->n;
    if (n <= m) {
        *out = partial_impl(qm, w, m, 0.0, v, scores, win, suf);
        if (out->score == 100 || n != m) return 0;
    }
    Masks wm; /* the window as the needle */
    if (!masks_init(&wm, w, m, 1)) return -1;
    Alignment b = partial_impl(&wm, q, n, n > m ? 0.0 : (out->score > 0 ? out->score : 0), v, scores, win, suf);
    masks_free(&wm);
    if (n > m || b.score > out->score) out->score = b.score, out->start = 0, out->end = m; /* its source: all of w */
    return 0;
}

/* ---------------------------------------------------------------- texts as code points */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t len;
} Text;

static Text text_of(PyObject *s) {
    Text t = {PyUnicode_KIND(s), PyUnicode_DATA(s), PyUnicode_GET_LENGTH(s)};
    return t;
}

/* t[lo:hi] (clamped as a Python slice of non-negative bounds) into out; its length */
static Py_ssize_t copy_span(const Text *t, Py_ssize_t lo, Py_ssize_t hi, uint32_t *out) {
    if (lo < 0) lo = 0;
    if (hi > t->len) hi = t->len;
    if (hi <= lo) return 0;
    Py_ssize_t n = hi - lo;
    switch (t->kind) {
    case PyUnicode_1BYTE_KIND:
        for (Py_ssize_t i = 0; i < n; i++) out[i] = ((const Py_UCS1 *)t->data)[lo + i];
        break;
    case PyUnicode_2BYTE_KIND:
        for (Py_ssize_t i = 0; i < n; i++) out[i] = ((const Py_UCS2 *)t->data)[lo + i];
        break;
    default:
        memcpy(out, (const Py_UCS4 *)t->data + lo, (size_t)n * sizeof(uint32_t));
    }
    return n;
}

/* ---------------------------------------------------------------- the refine grid */

typedef struct {
    Py_ssize_t s, e;
    long long lcs, len; /* the cell's LCS with q, and len(q) + e - s */
} Cell;

/* The rows of best_cell: v holds `words` words (any values: each row sets it), pm the masks, at[p - s_lo]
 * the offset in pm of the mask of text[p] (-1: not in q). Inlined with a constant `words`, the loops over
 * the words unroll and V lives in registers. */
static inline __attribute__((always_inline)) void grid_rows(Cell *best, const Py_ssize_t words, uint64_t *v,
                                                            const uint64_t *restrict pm, const Py_ssize_t *restrict at,
                                                            Py_ssize_t n, Py_ssize_t s_lo, Py_ssize_t s_hi,
                                                            Py_ssize_t e_first, Py_ssize_t last) {
    uint64_t local[4];
    uint64_t *restrict vv = words <= 4 ? local : v;
    for (Py_ssize_t s = s_lo; s <= s_hi; s++) {
        Py_ssize_t e0 = e_first > s + 1 ? e_first : s + 1;
        if (e0 > last) continue;
        for (Py_ssize_t w = 0; w < words; w++) vv[w] = ~(uint64_t)0;
        for (Py_ssize_t p = s; p < last; p++) {
            Py_ssize_t m = at[p - s_lo];
            if (m >= 0) {
                uint64_t carry = 0;
                for (Py_ssize_t w = 0; w < words; w++) {
                    uint64_t u = vv[w] & pm[m + w];
                    uint64_t x = vv[w] + u;
                    uint64_t c1 = x < u;
                    uint64_t y = x + carry;
                    carry = c1 | (y < carry);
                    vv[w] = y | (vv[w] & ~u);
                }
            }
            Py_ssize_t e = p + 1;
            if (e < e0) continue; /* the LCS is counted only for the row's cells */
            long long lcs = 0;
            for (Py_ssize_t w = 0; w < words; w++) lcs += zeros(vv[w]);
            long long d = (long long)(n + e - s);
            if (best->s < 0 || lcs * best->len > best->lcs * d) best->s = s, best->e = e, best->lcs = lcs, best->len = d;
        }
    }
}

/* The grid's best cell (best->s < 0: none); `at` scratch of last - s_lo entries, v of m->words words */
static void grid_best(Cell *best, const Masks *m, const Text *t, Py_ssize_t s_lo, Py_ssize_t s_hi, Py_ssize_t e_first,
                      Py_ssize_t last, Py_ssize_t *at, uint32_t *buf, uint64_t *v) {
    best->s = -1, best->e = -1, best->lcs = 0, best->len = 1;
    if (s_hi < s_lo || last <= s_lo) return;
    Py_ssize_t span = copy_span(t, s_lo, last, buf);
    for (Py_ssize_t p = 0; p < span; p++) at[p] = mask_row(m, buf[p]);
    const uint64_t *pm = m->pm;
    Py_ssize_t n = m->n;
    switch (m->words) { /* a constant number of words keeps V in registers */
    case 1: grid_rows(best, 1, v, pm, at, n, s_lo, s_hi, e_first, last); break;
    case 2: grid_rows(best, 2, v, pm, at, n, s_lo, s_hi, e_first, last); break;
    case 3: grid_rows(best, 3, v, pm, at, n, s_lo, s_hi, e_first, last); break;
    case 4: grid_rows(best, 4, v, pm, at, n, s_lo, s_hi, e_first, last); break;
    default: grid_rows(best, m->words, v, pm, at, n, s_lo, s_hi, e_first, last);
    }
}

/* ---------------------------------------------------------------- one quote's search */

/* What one quote's search needs, allocated once for its largest window or the quote, the longer (malloc: no GIL) */
typedef struct {
    const Text *t;
    const uint32_t *q;
    Py_ssize_t n, k; /* k: the refine grid's reach, max(1, min(8, n // 4)) */
    Masks m;
    uint32_t *buf;   /* a window of the text */
    Py_ssize_t *at;  /* the grid's mask offsets */
    uint64_t *v;
    size_t *scores, *win;
    long long *suf;
} Search;

typedef struct {
    double score;
    Py_ssize_t start, end;
    int found;
} Span;

static void search_free(Search *s) {
    masks_free(&s->m);
    free(s->buf), free(s->at), free(s->v), free(s->scores), free(s->win), free(s->suf);
}

static int search_init(Search *s, const Text *t, const uint32_t *q, Py_ssize_t n, Py_ssize_t widest) {
    memset(s, 0, sizeof *s);
    s->t = t, s->q = q, s->n = n;
    s->k = n / 4 < 8 ? n / 4 : 8;
    if (s->k < 1) s->k = 1;
    size_t room = (size_t)widest + 2 * (size_t)s->k + 2;
    if (!masks_init(&s->m, q, n, 1)) return 0;
    s->buf = malloc(room * sizeof(uint32_t));
    s->at = malloc(room * sizeof(Py_ssize_t));
    s->v = malloc((size_t)s->m.words * sizeof(uint64_t));
    s->scores = malloc(room * sizeof(size_t));
    s->win = malloc(4 * (room + 1) * sizeof(size_t));
    s->suf = malloc(((size_t)n + 1) * sizeof(long long));
    if (!s->buf || !s->at || !s->v || !s->scores || !s->win || !s->suf) {
        search_free(s);
        return 0;
    }
    return 1;
}

/* fuzz.ratio(q, text[a:b]) */
static double ratio_at(Search *s, Py_ssize_t a, Py_ssize_t b) {
    Py_ssize_t len = copy_span(s->t, a, b, s->buf);
    size_t maximum = (size_t)(s->n + len);
    return ratio_of(maximum - 2 * (size_t)lcs_of(&s->m, s->buf, len, s->v), maximum, 0.0);
}

/* LCSseq.similarity(q, text[a:b]) */
static long long lcs_at(Search *s, Py_ssize_t a, Py_ssize_t b) {
    Py_ssize_t len = copy_span(s->t, a, b, s->buf);
    return lcs_of(&s->m, s->buf, len, s->v);
}

/* quote_scan._rough: the destination of fuzz.partial_ratio_alignment(q, text[lo:hi]); 0: none */
static int rough(Search *s, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t *start, Py_ssize_t *end) {
    if (lo < 0) lo = 0;
    if (hi > s->t->len) hi = s->t->len;
    if (hi <= lo) return 0;
    Py_ssize_t m = copy_span(s->t, lo, hi, s->buf);
    Alignment a;
    if (alignment(&s->m, s->q, s->buf, m, s->v, s->scores, s->win, s->suf, &a) < 0) return -1;
    *start = lo + a.start, *end = lo + a.end;
    return 1;
}

/* quote_scan._refine */
static Span refine(Search *s, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t k = s->k, tn = s->t->len;
    Py_ssize_t last = end + k < tn ? end + k : tn;
    double initial = ratio_at(s, start, end);
    Cell c;
    Py_ssize_t s_lo = start - k > 0 ? start - k : 0, s_hi = start + k < last ? start + k : last;
    grid_best(&c, &s->m, s->t, s_lo, s_hi, end - k, last, s->at, s->buf, s->v);
    if (c.s >= 0) {
        double score = ratio_at(s, c.s, c.e);
        if (score > initial) return (Span){score, c.s, c.e, 1};
    }
    return (Span){initial, start, end, 1};
}

/* quote_scan._place_bound */
static double place_bound(Search *s, Py_ssize_t lo, Py_ssize_t hi) {
    Py_ssize_t k = s->k, tn = s->t->len;
    if (lo < 0) lo = 0;
    if (hi > tn) hi = tn;
    long long common = hi > lo ? lcs_at(s, lo - k > 0 ? lo - k : 0, hi + k < tn ? hi + k : tn) : 0;
    return common ? 200.0 * (double)common / (double)(s->n + common) : 0.0;
}

/* quote_scan._refine_bound */
static double refine_bound(Search *s, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t k = s->k, tn = s->t->len;
    long long common = lcs_at(s, start - k > 0 ? start - k : 0, end + k < tn ? end + k : tn);
    Py_ssize_t len = end - start - 2 * k;
    return 200.0 * (double)common / (double)(s->n + (len > 1 ? len : 1));
}

/* One quote's nearest passage: starts NULL, the whole text (quote_scan._align); else nearest_spans'
 * loop over its candidate starts. -1: out of memory. */
static int nearest_one(const Text *t, const uint32_t *q, Py_ssize_t n, const Py_ssize_t *starts, Py_ssize_t count,
                       Span *out) {
    out->found = 0;
    Search s;
    Py_ssize_t widest = starts ? n + 2 * (n / 2) + 2 * 8 + 2 : (t->len > n ? t->len : n);
    if (!search_init(&s, t, q, n, widest)) return -1;
    int rc = 0;
    if (!starts) {
        Py_ssize_t a, b;
        int got = rough(&s, 0, t->len, &a, &b);
        if (got < 0) rc = -1;
        else if (got) *out = refine(&s, a, b);
        search_free(&s);
        return rc;
    }
    Py_ssize_t *tried = malloc(((size_t)count + 1) * 2 * sizeof(Py_ssize_t)), ntried = 0; /* rough passages */
    if (!tried) {
        search_free(&s);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t lo = starts[i] - n / 2, hi = starts[i] + n + n / 2;
        if (out->found && place_bound(&s, lo, hi) < out->score - 1e-6) continue;
        Py_ssize_t a, b;
        int got = rough(&s, lo, hi, &a, &b);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (!got) continue;
        int seen = 0;
        for (Py_ssize_t j = 0; j < ntried; j++) seen |= tried[2 * j] == a && tried[2 * j + 1] == b;
        if (seen) continue;
        tried[2 * ntried] = a, tried[2 * ntried + 1] = b, ntried++;
        if (out->found && refine_bound(&s, a, b) < out->score - 1e-6) continue;
        Span al = refine(&s, a, b);
        if (!out->found || al.score > out->score) *out = al;
    }
    free(tried);
    search_free(&s);
    return rc;
}

/* ---------------------------------------------------------------- Python */

static uint32_t *code_points(PyObject *s) { /* a str's code points (PyMem_RawMalloc: freed without the GIL) */
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    uint32_t *out = PyMem_RawMalloc(((size_t)n + 1) * sizeof(uint32_t));
    if (!out) return NULL;
    Text t = text_of(s);
    copy_span(&t, 0, n, out);
    return out;
}

/* nearest(quotes, text, starts) -> list of (score, start, end) or None */
static PyObject *py_nearest(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *quotes, *text_obj, *starts_obj;
    if (!PyArg_ParseTuple(args, "O!UO!", &PyList_Type, &quotes, &text_obj, &PyList_Type, &starts_obj)) return NULL;
    Py_ssize_t nq = PyList_GET_SIZE(quotes);
    if (PyList_GET_SIZE(starts_obj) != nq) {
        PyErr_SetString(PyExc_ValueError, "starts must hold one entry (a list of int, or None) per quote");
        return NULL;
    }
    uint32_t **qs = PyMem_Calloc((size_t)nq + 1, sizeof(uint32_t *));
    Py_ssize_t *qn = PyMem_Calloc((size_t)nq + 1, sizeof(Py_ssize_t));
    Py_ssize_t **st = PyMem_Calloc((size_t)nq + 1, sizeof(Py_ssize_t *));
    Py_ssize_t *sn = PyMem_Calloc((size_t)nq + 1, sizeof(Py_ssize_t));
    Span *spans = PyMem_Calloc((size_t)nq + 1, sizeof(Span));
    PyObject *result = NULL;
    int failed = 0;
    if (!qs || !qn || !st || !sn || !spans) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nq; i++) {
        PyObject *q = PyList_GET_ITEM(quotes, i), *cand = PyList_GET_ITEM(starts_obj, i);
        if (!PyUnicode_Check(q)) {
            PyErr_SetString(PyExc_TypeError, "quotes must be a list of str");
            goto done;
        }
        qn[i] = PyUnicode_GET_LENGTH(q);
        if (!(qs[i] = code_points(q))) {
            PyErr_NoMemory();
            goto done;
        }
        sn[i] = -1; /* None: the whole text */
        if (cand == Py_None) continue;
        if (!PyList_Check(cand)) {
            PyErr_SetString(PyExc_TypeError, "each entry of starts must be a list of int or None");
            goto done;
        }
        sn[i] = PyList_GET_SIZE(cand);
        if (!(st[i] = PyMem_RawMalloc(((size_t)sn[i] + 1) * sizeof(Py_ssize_t)))) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t j = 0; j < sn[i]; j++) {
            st[i][j] = PyLong_AsSsize_t(PyList_GET_ITEM(cand, j));
            if (st[i][j] == -1 && PyErr_Occurred()) goto done;
        }
    }
    Text t = text_of(text_obj);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < nq && !failed; i++) {
        spans[i].found = 0;
        if (qn[i] == 0 || t.len == 0) continue; /* an empty quote has no passage (nor has an empty text) */
        failed = nearest_one(&t, qs[i], qn[i], sn[i] < 0 ? NULL : st[i], sn[i] < 0 ? 0 : sn[i], &spans[i]) < 0;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyList_New(nq);
    if (!result) goto done;
    for (Py_ssize_t i = 0; i < nq; i++) {
        PyObject *item = spans[i].found ? Py_BuildValue("(dnn)", spans[i].score, spans[i].start, spans[i].end)
                                        : Py_NewRef(Py_None);
        if (!item) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, item);
    }
done:
    if (qs)
        for (Py_ssize_t i = 0; i < nq; i++) PyMem_RawFree(qs[i]);
    if (st)
        for (Py_ssize_t i = 0; i < nq; i++) PyMem_RawFree(st[i]);
    PyMem_Free(qs), PyMem_Free(qn), PyMem_Free(st), PyMem_Free(sn), PyMem_Free(spans);
    return result;
}

/* partial_alignment(q, s) -> (score, start, end): fuzz.partial_ratio_alignment(q, s)'s score and
 * destination, both non-empty (for the differential test) */
static PyObject *py_partial_alignment(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *q_obj, *s_obj;
    if (!PyArg_ParseTuple(args, "UU", &q_obj, &s_obj)) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(q_obj), m = PyUnicode_GET_LENGTH(s_obj);
    if (!n || !m) {
        PyErr_SetString(PyExc_ValueError, "both strings must be non-empty");
        return NULL;
    }
    uint32_t *q = code_points(q_obj), *w = code_points(s_obj);
    Py_ssize_t room = (n > m ? n : m) + 1;
    size_t *scores = PyMem_RawMalloc((size_t)room * sizeof(size_t)), *win = PyMem_RawMalloc(4 * ((size_t)room + 1) * sizeof(size_t));
    long long *suf = PyMem_RawMalloc((size_t)room * sizeof(long long));
    uint64_t *v = PyMem_RawMalloc(((size_t)room / 64 + 1) * sizeof(uint64_t));
    Masks qm = {0};
    PyObject *result = NULL;
    if (!q || !w || !scores || !win || !suf || !v || !masks_init(&qm, q, n, 1)) {
        PyErr_NoMemory();
        goto done;
    }
    Alignment a;
    if (alignment(&qm, q, w, m, v, scores, win, suf, &a) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("(dnn)", a.score, a.start, a.end);
done:
    masks_free(&qm);
    PyMem_RawFree(q), PyMem_RawFree(w), PyMem_RawFree(scores), PyMem_RawFree(win), PyMem_RawFree(suf), PyMem_RawFree(v);
    return result;
}

/* best_cell(q, text, s_lo, s_hi, e_first, last) -> (s, e) or None: the near-miss edge search
 * (claimledger.checks.quote_scan._refine). The grid: starts s_lo .. s_hi, and for each start the ends
 * max(e_first, s + 1) .. last (a start with none is left out). Its cell text[s:e] whose
 * LCS(q, text[s:e]) / (len(q) + e - s) is largest, the first in grid order (starts ascending, then
 * ends) among equal ones; None when the grid is empty. That fraction is rapidfuzz's fuzz.ratio
 * over 200, so the cell is the one of the best ratio (the caller scores it with fuzz.ratio; see
 * _refine for why equal fractions give equal ratios and unequal ones unequal ratios).
 *
 * Each row is one bit-parallel LCS pass (Hyyro 2004: one bit per code point of q; after reading a
 * text character c, V = (V + (V & M[c])) | (V & ~M[c]), and the LCS of q with the text read so far is
 * the number of zero bits of V), read from s to last: after text[s:e] it holds the LCS of every cell
 * of the row. A text character not in q leaves V unchanged. */
static PyObject *py_best_cell(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *q_obj, *text_obj;
    Py_ssize_t s_lo, s_hi, e_first, last;
    if (!PyArg_ParseTuple(args, "UUnnnn", &q_obj, &text_obj, &s_lo, &s_hi, &e_first, &last)) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(q_obj), tn = PyUnicode_GET_LENGTH(text_obj);
    if (s_lo < 0 || last > tn || s_hi > tn) {
        PyErr_SetString(PyExc_ValueError, "the grid must lie inside the text");
        return NULL;
    }
    if (s_hi < s_lo || last <= s_lo) Py_RETURN_NONE;
    Text t = text_of(text_obj);
    uint32_t *q = code_points(q_obj);
    Py_ssize_t span = last - s_lo;
    uint32_t *buf = PyMem_RawMalloc(((size_t)span + 1) * sizeof(uint32_t));
    Py_ssize_t *at = PyMem_RawMalloc(((size_t)span + 1) * sizeof(Py_ssize_t));
    uint64_t *v = PyMem_RawMalloc(((size_t)n / 64 + 1) * sizeof(uint64_t));
    Masks m = {0};
    if (!q || !buf || !at || !v || !masks_init(&m, q, n, 0)) {
        PyMem_RawFree(q), PyMem_RawFree(buf), PyMem_RawFree(at), PyMem_RawFree(v), masks_free(&m);
        return PyErr_NoMemory();
    }
    Cell best;
    grid_best(&best, &m, &t, s_lo, s_hi, e_first, last, at, buf, v);
    PyMem_RawFree(q), PyMem_RawFree(buf), PyMem_RawFree(at), PyMem_RawFree(v), masks_free(&m);
    if (best.s < 0) Py_RETURN_NONE;
    return Py_BuildValue("(nn)", best.s, best.e);
}

static PyMethodDef methods[] = {
    {"nearest", py_nearest, METH_VARARGS,
     "nearest(quotes, text, starts): for each quote, (score, start, end) of its nearest passage in text, or "
     "None; starts[i]: the candidate starts of quotes[i] (a list of int) or None for the whole text. "
     "claimledger.checks.quote_scan.nearest_spans' search, without the GIL."},
    {"partial_alignment", py_partial_alignment, METH_VARARGS,
     "partial_alignment(q, s): (score, start, end), the score and destination of "
     "rapidfuzz.fuzz.partial_ratio_alignment(q, s) for two non-empty strings."},
    {"best_cell", py_best_cell, METH_VARARGS,
     "best_cell(q, text, s_lo, s_hi, e_first, last): the cell (s, e) of the grid s_lo <= s <= s_hi, "
     "max(e_first, s + 1) <= e <= last whose LCS with q over len(q) + e - s is largest, the first in grid "
     "order among equal ones; None when the grid is empty."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cnear",
                                    "The near-miss alignment of the quote scan (claimledger.checks.quote_scan).",
                                    -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cnear(void) { return PyModule_Create(&module); }
