/*
 * The exact tail of a goodness-of-fit statistic of a multinomial sample
 * (randqa/battery/_multinomial.py explains the method and its bounds).
 *
 * A multinomial (N; p_1..p_K) is the chain o_1 ~ Bin(N, q_1), o_2 ~
 * Bin(N - o_1, q_2), ..., q_i = p_i / (p_i + ... + p_K).  The statistic is
 * T = sum_i D_i(o_i) with every D_i >= 0 (Pearson's (o - e)^2 / e, or the
 * Bregman form of Cressie and Read's lambda = 2/3 term, which sums to the
 * same T).  The chain's state after the first K - 2 cells is (r, t): the
 * count left and the part of T so far, t rounded down onto a lattice of
 * step delta; the last two cells, o_a ~ Bin(r, q) and o_b = r - o_a, are
 * summed exactly for every state.  Rounding down K - 2 times puts the true
 * t in [j delta, (j + K - 2) delta), which brackets the tail: the kernel
 * returns a lower and an upper bound of P(T >= x) (or of P(T <= x)).
 * States whose t already reaches x (upper tail) are counted at once; for
 * the lower tail they are dropped.  Every number added is a probability,
 * so no cancellation loses the far tail.
 */
#include "../_module.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { PEARSON = 0, CRESSIE_READ = 1, PEARSON_ABOUT_CENTRE = 2 };

/* D(o) for a cell expecting e: >= 0, and 0 at o = e. */
static inline double
divergence(int kind, double o, double e)
{
    if (kind == PEARSON)
        return (o - e) * (o - e) / e;
    if (kind == PEARSON_ABOUT_CENTRE) { /* (o - m)^2 / e about the nearest integer m: for equal cells, a lattice */
        double m = floor(e + 0.5);
        return (o - m) * (o - m) / e;
    }
    /* 9/5 (o (o/e)^(2/3) - o) - 6/5 (o - e): Cressie-Read's term less its tangent at e */
    double power = o > 0 ? o * cbrt((o / e) * (o / e)) : 0.0;
    double d = 1.8 * (power - o) - 1.2 * (o - e);
    return d > 0 ? d : 0.0;
}

/* log of the Bin(r, q) probability of o (0 <= o <= r, 0 < q < 1) */
static inline double
log_binomial(double r, double o, double log_q, double log_p)
{
    return lgamma(r + 1) - lgamma(o + 1) - lgamma(r - o + 1) + o * log_q + (r - o) * log_p;
}

/* P(o < lo) + P(o > hi) for o ~ Bin(r, q), summed outward from the window's
 * edges (each term is a probability: nothing cancels). */
static double
binomial_outside(long r, long lo, long hi, double q)
{
    double log_q = log(q), log_p = log1p(-q), total = 0.0;
    for (int side = 0; side < 2; side++) {
        long o = side == 0 ? lo - 1 : hi + 1;
        long step = side == 0 ? -1 : 1;
        if (o < 0 || o > r)
            continue;
        double term = exp(log_binomial((double)r, (double)o, log_q, log_p));
        double sum = 0.0;
        while (o >= 0 && o <= r) {
            sum += term;
            if (term <= sum * 1e-17 || term < 1e-320)
                break;
            /* ratio of neighbours: pmf(o-1)/pmf(o) = o (1-q) / ((r-o+1) q), pmf(o+1)/pmf(o) = (r-o) q / ((o+1)(1-q)) */
            if (step < 0)
                term *= (double)o * (1 - q) / ((double)(r - o + 1) * q);
            else
                term *= (double)(r - o) * q / ((double)(o + 1) * (1 - q));
            o += step;
        }
        total += sum;
    }
    return total;
}

typedef struct {
    long first; /* count r of row 0 */
    long rows;
    long width; /* lattice cells per row */
    double *mass;
} States;

static int
states_alloc(States *s, long first, long rows, long width)
{
    s->first = first;
    s->rows = rows;
    s->width = width;
    s->mass = calloc((size_t)rows * (size_t)width, sizeof(double));
    return s->mass != NULL ? 0 : -1;
}

/* The window [lo, hi] of counts o of a cell expecting e whose divergence
 * stays below `limit` (strictly, or not above it for `inclusive`), within [0, r_max]. */
static void
cell_window(int kind, double e, double limit, int inclusive, long r_max, long *lo, long *hi)
{
    long centre = (long)floor(e);
    if (centre > r_max)
        centre = r_max;
    if (divergence(kind, (double)centre + 1, e) < divergence(kind, (double)centre, e) && centre + 1 <= r_max)
        centre += 1;
#define INSIDE(o) (inclusive ? divergence(kind, (double)(o), e) <= limit : divergence(kind, (double)(o), e) < limit)
    if (!INSIDE(centre)) { /* empty */
        *lo = 1;
        *hi = 0;
        return;
    }
    long a = centre, b = centre;
    while (a > 0 && INSIDE(a - 1))
        a--;
    while (b < r_max && INSIDE(b + 1))
        b++;
#undef INSIDE
    *lo = a;
    *hi = b;
}

/* One cell of the chain: `from` -> `to` (allocated here); the mass that
 * reaches x for sure is added to *settled (upper tail) and dropped for the lower. */
static int
chain_step(const States *from, States *to, int kind, double e, double q, double x, double delta, int upper,
           double *settled, int *inexact)
{
    long width = from->width;
    long last = from->first + from->rows - 1;
    long lo, hi;
    cell_window(kind, e, x, !upper, last, &lo, &hi);
    if (lo > hi) { /* no count of this cell keeps T below x */
        if (upper)
            for (long i = 0; i < from->rows * width; i++)
                *settled += from->mass[i];
        return states_alloc(to, 0, 1, width);
    }
    long first = from->first - hi;
    if (first < 0)
        first = 0;
    long to_last = last - lo;
    if (to_last < first)
        to_last = first;
    if (states_alloc(to, first, to_last - first + 1, width) < 0)
        return -1;
    long span = hi - lo + 1;
    long *shift = malloc((size_t)span * sizeof(long));
    double *suffix = malloc((size_t)(width + 1) * sizeof(double));
    if (shift == NULL || suffix == NULL) {
        free(shift);
        free(suffix);
        return -1;
    }
    for (long k = 0; k < span; k++) {
        double d = divergence(kind, (double)(lo + k), e) / delta;
        double nearest = floor(d + 0.5);
        if (fabs(d - nearest) <= 1e-9 * (nearest > 1 ? nearest : 1))
            d = nearest; /* a lattice point: no rounding */
        else
            *inexact = 1;
        shift[k] = d >= (double)width ? width : (long)floor(d);
    }
    double log_q = log(q), log_p = log1p(-q);
    for (long row = 0; row < from->rows; row++) {
        const double *src = from->mass + row * width;
        suffix[width] = 0.0;
        for (long j = width - 1; j >= 0; j--)
            suffix[j] = suffix[j + 1] + src[j];
        double row_mass = suffix[0];
        if (row_mass == 0.0)
            continue;
        long r = from->first + row;
        long top = hi < r ? hi : r;
        if (lo > top) {
            if (upper)
                *settled += row_mass;
            continue;
        }
        if (upper)
            *settled += row_mass * binomial_outside(r, lo, top, q);
        double w = exp(log_binomial((double)r, (double)lo, log_q, log_p));
        for (long o = lo; o <= top; o++) {
            if (o > lo)
                w *= (double)(r - o + 1) * q / ((double)o * (1 - q));
            long s = shift[o - lo];
            if (w > 0) {
                if (upper && s > 0)
                    *settled += w * suffix[width - s];
                if (s < width) {
                    double *dst = to->mass + (r - o - to->first) * width + s;
                    for (long j = 0; j < width - s; j++)
                        dst[j] += w * src[j];
                }
            }
        }
    }
    free(shift);
    free(suffix);
    return 0;
}

/* The last two cells, summed exactly for every state: adds the lower and
 * upper bound of the tail to *low and *high.  `rounded` is the number of
 * cells whose divergence was rounded down. */
static int
finish(const States *s, int kind, double ea, double eb, double q, double x, double delta, int upper, long rounded,
       double *low, double *high)
{
    long width = s->width;
    long longest = s->first + s->rows; /* counts of o_a up to r <= longest - 1 */
    double *pmf = malloc((size_t)(longest + 1) * sizeof(double));
    double *g = malloc((size_t)(longest + 1) * sizeof(double));
    double *cum = malloc((size_t)(longest + 2) * sizeof(double));
    double *rcum = malloc((size_t)(longest + 2) * sizeof(double));
    if (pmf == NULL || g == NULL || cum == NULL || rcum == NULL) {
        free(pmf);
        free(g);
        free(cum);
        free(rcum);
        return -1;
    }
    double log_q = log(q), log_p = log1p(-q);
    for (long row = 0; row < s->rows; row++) {
        const double *m = s->mass + row * width;
        double row_mass = 0.0;
        for (long j = 0; j < width; j++)
            row_mass += m[j];
        if (row_mass == 0.0)
            continue;
        long r = s->first + row;
        /* the window where g = D_a(o) + D_b(r - o) stays below x: outside it every state counts (upper) */
        long centre = (long)floor(q * (double)r);
        long best = centre;
        double gbest = divergence(kind, (double)centre, ea) + divergence(kind, (double)(r - centre), eb);
        for (long o = centre - 1; o <= centre + 1; o++) {
            if (o < 0 || o > r)
                continue;
            double v = divergence(kind, (double)o, ea) + divergence(kind, (double)(r - o), eb);
            if (v < gbest) {
                gbest = v;
                best = o;
            }
        }
        long lo = best, hi = best;
        double limit = x;
#define GVAL(o) (divergence(kind, (double)(o), ea) + divergence(kind, (double)(r - (o)), eb))
        if (GVAL(best) <= limit) {
            while (lo > 0 && GVAL(lo - 1) <= limit)
                lo--;
            while (hi < r && GVAL(hi + 1) <= limit)
                hi++;
        } else {
            lo = best + 1;
            hi = best; /* empty window */
        }
        double outside;
        if (lo > hi)
            outside = 1.0;
        else {
            outside = binomial_outside(r, lo, hi, q);
            double w = exp(log_binomial((double)r, (double)lo, log_q, log_p));
            cum[0] = 0.0;
            for (long o = lo; o <= hi; o++) {
                if (o > lo)
                    w *= (double)(r - o + 1) * q / ((double)o * (1 - q));
                pmf[o - lo] = w;
                g[o - lo] = GVAL(o);
                cum[o - lo + 1] = cum[o - lo] + w;
            }
            /* rcum[c]: the last c counts of the window, summed from the far end (no cancellation) */
            rcum[0] = 0.0;
            for (long c = 1; c <= hi - lo + 1; c++)
                rcum[c] = rcum[c - 1] + pmf[hi - lo + 1 - c];
        }
#undef GVAL
        /* per lattice cell j, the tail for the two values of t that bracket the true one.  g is
         * convex: it falls on [lo, best] and rises on [best + 1, hi], so the counts with g >= need
         * are the first `left` and the last `right` of the window, fewer as need grows (j falls) */
        long left_all = lo <= hi ? best - lo + 1 : 0, right_all = lo <= hi ? hi - best : 0;
        for (int bound = 0; bound < 2; bound++) {
            /* upper tail: the lower bound takes t = j delta, the upper t = (j + rounded) delta;
             * lower tail: the lower bound takes t = (j + rounded) delta, the upper t = j delta */
            int far = upper ? bound == 1 : bound == 0;
            long left = left_all, right = right_all;
            double total = 0.0;
            for (long j = width - 1; j >= 0; j--) {
                double need = x - ((double)j + (far ? (double)rounded : 0.0)) * delta;
                if (upper) {
                    while (left > 0 && g[left - 1] < need)
                        left--;
                    while (right > 0 && g[hi - lo - right + 1] < need)
                        right--;
                } else {
                    while (left > 0 && g[left - 1] <= need)
                        left--;
                    while (right > 0 && g[hi - lo - right + 1] <= need)
                        right--;
                }
                if (m[j] == 0.0)
                    continue;
                double p;
                if (lo > hi)
                    p = upper ? 1.0 : 0.0;
                else if (upper) /* the first `left` counts, the last `right`, and all outside */
                    p = outside + cum[left] + rcum[right];
                else /* the counts between them */
                    p = cum[hi - lo + 1 - right] - cum[left];
                total += m[j] * p;
            }
            if (bound == 0)
                *low += total;
            else
                *high += total;
        }
    }
    free(pmf);
    free(g);
    free(cum);
    free(rcum);
    return 0;
}

static const char tail_doc[] =
    "multinomial_tail(expected, conditional, n, x, delta, upper, kind) -> (low, high)\n\n"
    "Bounds of P(T >= x) (upper) or P(T <= x) for T = sum of the cells' divergences\n"
    "(kind 0: Pearson, 1: Cressie-Read lambda = 2/3) of a multinomial sample of n,\n"
    "the cells in chain order: expected[i] = n p_i, conditional[i] = p_i / (p_i + ... + p_K).";

static PyObject *
multinomial_tail(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer expected_buf, conditional_buf;
    long long n;
    double x, delta;
    int upper, kind;
    if (!PyArg_ParseTuple(args, "y*y*Lddpi", &expected_buf, &conditional_buf, &n, &x, &delta, &upper, &kind))
        return NULL;
    PyObject *result = NULL;
    long cells = (long)(expected_buf.len / (Py_ssize_t)sizeof(double));
    const double *expected = expected_buf.buf, *conditional = conditional_buf.buf;
    if (expected_buf.len % (Py_ssize_t)sizeof(double) || conditional_buf.len != expected_buf.len || cells < 2) {
        PyErr_SetString(PyExc_ValueError, "expected and conditional must be float64 arrays of one length >= 2");
        goto done;
    }
    if (n < 0 || n > (1LL << 40) || !(delta > 0) || !isfinite(x) || (kind < PEARSON || kind > PEARSON_ABOUT_CENTRE)) {
        PyErr_SetString(PyExc_ValueError, "need 0 <= n <= 2^40, delta > 0, a finite x and kind 0, 1 or 2");
        goto done;
    }
    for (long i = 0; i < cells; i++)
        if (!(expected[i] > 0) || !(conditional[i] > 0 && conditional[i] <= 1)) {
            PyErr_SetString(PyExc_ValueError, "every cell needs expected > 0 and 0 < conditional <= 1");
            goto done;
        }
    double width_real = upper ? ceil(x / delta) : floor(x / delta) + 1;
    if (x < 0) {
        /* T >= 0 always */
        result = Py_BuildValue("dd", upper ? 1.0 : 0.0, upper ? 1.0 : 0.0);
        goto done;
    }
    if (width_real < 1)
        width_real = 1;
    if (width_real > 1e6) {
        PyErr_SetString(PyExc_ValueError, "x / delta is over 10^6 lattice cells");
        goto done;
    }
    long width = (long)width_real;
    double low = 0.0, high = 0.0, settled = 0.0;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    States s;
    if (states_alloc(&s, (long)n, 1, width) < 0)
        failed = 1;
    else {
        s.mass[0] = 1.0;
        long rounded = 0;
        for (long i = 0; i + 2 < cells && !failed; i++) {
            States next;
            int inexact = 0;
            if (chain_step(&s, &next, kind, expected[i], conditional[i], x, delta, upper, &settled, &inexact) < 0)
                failed = 1;
            else {
                free(s.mass);
                s = next;
                rounded += inexact;
            }
        }
        if (!failed && finish(&s, kind, expected[cells - 2], expected[cells - 1], conditional[cells - 2], x, delta,
                              upper, rounded, &low, &high) < 0)
            failed = 1;
        free(s.mass);
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("dd", settled + low, settled + high);
done:
    PyBuffer_Release(&expected_buf);
    PyBuffer_Release(&conditional_buf);
    return result;
}

static PyMethodDef methods[] = {
    {"multinomial_tail", multinomial_tail, METH_VARARGS, tail_doc},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_tails, "randqa.battery._tails", "Exact tails of multinomial goodness-of-fit statistics.", methods);
