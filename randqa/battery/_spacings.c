/*
 * Birthday spacings: the number of repeated spacings in each block of points
 * (Marsaglia's test, Knuth TAOCP vol. 2, 3.3.2 J; randqa/battery/birthday_spacings.py).
 *
 * Per block of n points: sort the points, take the n spacings between
 * neighbours (the last one wrapping around), and count the spacings whose
 * value repeats an earlier one, that is n minus the number of distinct
 * spacings.  Instead of two LSD radix sorts (eight scatter passes) this does
 * about four passes, none with a branch that depends on the data, so it runs
 * more than twice as fast (benchmarks/bench_birthday_spacings.py):
 *
 * - The points are sorted by one counting pass on their top log2(n) - 1
 *   bits (about two points per bucket for random points), then odd-even
 *   transposition rounds: they only ever compare neighbours, and keys of
 *   different buckets are already in order, so each bucket is sorted on its
 *   own, a bucket of k keys after k rounds (Habermann, "Parallel
 *   neighbor-sort", CMU 1972; Knuth TAOCP vol. 3, 5.3.4).  The rounds are
 *   plain min/max loops that compilers vectorise.
 * - The spacings are not sorted.  Each is multiplied by an odd constant, a
 *   bijection, so the products repeat exactly where the spacings do and
 *   their top bits are spread evenly.  A value alone in its slot of a table
 *   indexed by those top bits (8n slots) repeats nothing and is repeated by
 *   nothing; only the values that share a slot (about 12% for random points)
 *   are kept.  The same filter on low bits leaves a handful, whose repeats
 *   are counted pair by pair.
 *
 * A block on which either step would be slow (many points in one bucket, many
 * spacings left after filtering: a generator whose points crowd together) is
 * counted with radix sorts instead, so the cost per block stays bounded and the
 * count is always the same exact number.  Blocks of more than 65,536 points
 * always take the radix path.
 */
#include "../_module.h"
#include "_buffers.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

/* Vector versions of the min/max rounds chosen when the module loads, where
 * the toolchain and C library support ifunc (RANDQA_CLONES in _module.h);
 * elsewhere the compiler's baseline vectorisation (SSE2, NEON) is used. */
#define VECTOR_CLONES RANDQA_CLONES("avx512f", "avx2", "default")

#define MAX_BUCKETED_POINTS 65536
/* more points than this in one bucket: odd-even rounds cost more than a radix sort */
#define MAX_BUCKET 48
/* more spacings than this left after both filters: sort them instead of comparing pairs */
#define MAX_PAIRWISE 64
#define SECOND_FILTER_BITS 14

/* One point: `dims` consecutive little-endian words of `word_bytes` bytes,
 * the top `bits_per_word` bits of each, the first word highest. */
static inline uint64_t
read_point(const uint8_t *q, int dims, int word_bytes, int bits_per_word)
{
    int drop = 8 * word_bytes - bits_per_word;
    uint64_t pt = 0;
    for (int d = 0; d < dims; d++, q += word_bytes)
        pt = (bits_per_word == 64 ? 0 : pt << bits_per_word) | (load_le(q, word_bytes) >> drop);
    return pt;
}

/* floor(log2(x)) for x >= 1 */
static int
floor_log2(Py_ssize_t x)
{
    int k = 0;
    while (x >>= 1)
        k++;
    return k;
}

/* Turns bucket counts into the positions where each bucket's keys start (a
 * power of two of buckets); returns the largest count. */
VECTOR_CLONES static uint32_t
bucket_offsets(uint32_t *restrict bucket, Py_ssize_t buckets)
{
    uint32_t most = 0;
    for (Py_ssize_t b = 0; b < buckets; b++)
        most = bucket[b] > most ? bucket[b] : most;
    if (buckets < 4) {
        uint32_t sum = 0;
        for (Py_ssize_t b = 0; b < buckets; b++) {
            uint32_t c = bucket[b];
            bucket[b] = sum;
            sum += c;
        }
        return most;
    }
    /* four independent running sums over the four quarters, then each quarter
     * shifted by the totals before it */
    Py_ssize_t q = buckets / 4;
    uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (Py_ssize_t b = 0; b < q; b++) {
        uint32_t c0 = bucket[b], c1 = bucket[b + q], c2 = bucket[b + 2 * q], c3 = bucket[b + 3 * q];
        bucket[b] = s0;
        bucket[b + q] = s1;
        bucket[b + 2 * q] = s2;
        bucket[b + 3 * q] = s3;
        s0 += c0;
        s1 += c1;
        s2 += c2;
        s3 += c3;
    }
    uint32_t a1 = s0, a2 = s0 + s1, a3 = s0 + s1 + s2;
    for (Py_ssize_t b = 0; b < q; b++) {
        bucket[b + q] += a1;
        bucket[b + 2 * q] += a2;
        bucket[b + 3 * q] += a3;
    }
    return most;
}

/* Everything below exists once per key type: 32-bit keys (points of up to
 * 32 bits) and 64-bit keys.  MIX is odd, so multiplying by it is a bijection. */
#define DEFINE_SPACINGS(T, SUFFIX, BITS, MIX)                                                            \
    /* LSD radix sort of key_bits-bit keys in 8-bit digits: one pass counts every                      \
     * digit, then one scatter per digit that the keys do not all share.                                \
     * Returns the buffer that holds the result (a or tmp). */                                          \
    static T *radix_sort_##SUFFIX(T *a, T *tmp, Py_ssize_t n, int key_bits)                              \
    {                                                                                                    \
        uint32_t count[BITS / 8][256];                                                                   \
        int digits = (key_bits + 7) / 8;                                                                 \
        memset(count, 0, sizeof count);                                                                  \
        for (Py_ssize_t i = 0; i < n; i++) /* digits above key_bits are all 0, and skipped below */     \
            for (int d = 0; d < BITS / 8; d++)                                                           \
                count[d][(a[i] >> (8 * d)) & 0xff]++;                                                    \
        for (int d = 0; d < digits; d++) {                                                               \
            uint32_t sum = 0, *c = count[d];                                                             \
            int shared = 0;                                                                              \
            for (int v = 0; v < 256; v++) {                                                              \
                shared |= c[v] == (uint32_t)n;                                                           \
                uint32_t t = c[v];                                                                       \
                c[v] = sum;                                                                              \
                sum += t;                                                                                \
            }                                                                                            \
            if (shared)                                                                                  \
                continue;                                                                                \
            for (Py_ssize_t i = 0; i < n; i++)                                                           \
                tmp[c[(a[i] >> (8 * d)) & 0xff]++] = a[i];                                               \
            T *t = a;                                                                                    \
            a = tmp;                                                                                     \
            tmp = t;                                                                                     \
        }                                                                                                \
        return a;                                                                                        \
    }                                                                                                    \
                                                                                                         \
    /* n minus the number of distinct values in a[0..n), by sorting (a and tmp are clobbered) */         \
    static long repeats_by_sort_##SUFFIX(T *a, T *tmp, Py_ssize_t n, int key_bits)                       \
    {                                                                                                    \
        T *s = radix_sort_##SUFFIX(a, tmp, n, key_bits);                                                 \
        long repeats = 0;                                                                                \
        for (Py_ssize_t j = 1; j < n; j++)                                                               \
            repeats += s[j] == s[j - 1];                                                                 \
        return repeats;                                                                                  \
    }                                                                                                    \
                                                                                                         \
    /* `rounds` pairs of odd-even transposition rounds over s[0..n) */                                   \
    VECTOR_CLONES static void odd_even_rounds_##SUFFIX(T *restrict s, Py_ssize_t n, int rounds)          \
    {                                                                                                    \
        for (int r = 0; r < rounds; r++)                                                                 \
            for (Py_ssize_t start = 0; start < 2; start++)                                               \
                for (Py_ssize_t i = start; i + 1 < n; i += 2) {                                          \
                    T a = s[i], b = s[i + 1];                                                            \
                    s[i] = a < b ? a : b;                                                                \
                    s[i + 1] = a < b ? b : a;                                                            \
                }                                                                                        \
    }                                                                                                    \
                                                                                                         \
    /* Sorts the n keys into out by their top bucket_bits (of key_bits) and odd-even                     \
     * rounds; returns -1, out unusable, when a bucket holds too many keys. */                           \
    static int bucket_sort_##SUFFIX(const T *keys, T *out, uint32_t *bucket, Py_ssize_t n, int key_bits, \
                                    int bucket_bits)                                                     \
    {                                                                                                    \
        int shift = key_bits - bucket_bits;                                                              \
        Py_ssize_t buckets = (Py_ssize_t)1 << bucket_bits;                                               \
        memset(bucket, 0, (size_t)buckets * sizeof *bucket);                                             \
        for (Py_ssize_t i = 0; i < n; i++)                                                               \
            bucket[keys[i] >> shift]++;                                                                  \
        uint32_t most = bucket_offsets(bucket, buckets);                                                 \
        if (shift > 0 && most > MAX_BUCKET)                                                              \
            return -1;                                                                                   \
        for (Py_ssize_t i = 0; i < n; i++)                                                               \
            out[bucket[keys[i] >> shift]++] = keys[i];                                                   \
        if (shift > 0) /* keys of different buckets are already in order and never swap */              \
            odd_even_rounds_##SUFFIX(out, n, (int)(most + 1) / 2);                                       \
        return 0;                                                                                        \
    }                                                                                                    \
                                                                                                         \
    /* Marks value h in a byte table of slots: 0, 1, then 3 for two or more (a                          \
     * saturating count, so it cannot wrap back to 1). */                                                \
    static inline void mark_##SUFFIX(uint8_t *table, size_t slot)                                        \
    {                                                                                                    \
        table[slot] = (uint8_t)(((table[slot] << 1) | 1) & 3);                                           \
    }                                                                                                    \
                                                                                                         \
    /* The slot of value v in a table of 2^bits: its top bits, or its low bits */                       \
    static inline size_t slot_##SUFFIX(T v, int bits, int top)                                           \
    {                                                                                                    \
        return (size_t)(top ? v >> (BITS - bits) : v & (((T)1 << bits) - 1));                           \
    }                                                                                                    \
                                                                                                         \
    /* Copies to kept the values of v[0..n) whose slot in table (marked by mark_)                        \
     * holds another value too; returns how many. */                                                     \
    static Py_ssize_t keep_shared_##SUFFIX(const T *v, Py_ssize_t n, T *kept, const uint8_t *table,     \
                                           int bits, int top)                                            \
    {                                                                                                    \
        Py_ssize_t k = 0;                                                                                \
        for (Py_ssize_t j = 0; j < n; j++) {                                                             \
            kept[k] = v[j];                                                                              \
            k += table[slot_##SUFFIX(v[j], bits, top)] != 1;                                             \
        }                                                                                                \
        return k;                                                                                        \
    }                                                                                                    \
                                                                                                         \
    /* The repeated spacings of the sorted points s[0..n) (key_bits-bit keys).                           \
     * Scratch: a, b of n keys each; two zeroed byte tables of 2^filter_bits and                         \
     * 2^SECOND_FILTER_BITS entries, left zero. */                                                       \
    static long repeated_spacings_##SUFFIX(const T *s, Py_ssize_t n, int key_bits, T *a, T *b,          \
                                           uint8_t *filter, int filter_bits, uint8_t *filter2)          \
    {                                                                                                    \
        T mask = key_bits == BITS ? (T)~(T)0 : (((T)1 << key_bits) - 1);                                 \
        for (Py_ssize_t j = 0; j < n; j++) {                                                             \
            T h = (T)((j + 1 < n ? s[j + 1] - s[j] : (s[0] - s[n - 1]) & mask) * MIX);                   \
            a[j] = h;                                                                                    \
            mark_##SUFFIX(filter, slot_##SUFFIX(h, filter_bits, 1));                                     \
        }                                                                                                \
        Py_ssize_t shared = keep_shared_##SUFFIX(a, n, b, filter, filter_bits, 1);                       \
        memset(filter, 0, (size_t)1 << filter_bits);                                                     \
        for (Py_ssize_t j = 0; j < shared; j++)                                                          \
            mark_##SUFFIX(filter2, slot_##SUFFIX(b[j], SECOND_FILTER_BITS, 0));                          \
        Py_ssize_t k = keep_shared_##SUFFIX(b, shared, a, filter2, SECOND_FILTER_BITS, 0);               \
        for (Py_ssize_t j = 0; j < shared; j++)                                                          \
            filter2[slot_##SUFFIX(b[j], SECOND_FILTER_BITS, 0)] = 0;                                     \
        if (k > MAX_PAIRWISE)                                                                            \
            return repeats_by_sort_##SUFFIX(a, b, k, BITS);                                              \
        long repeats = 0;                                                                                \
        for (Py_ssize_t i = 1; i < k; i++) {                                                             \
            int seen = 0;                                                                                \
            for (Py_ssize_t j = 0; j < i; j++)                                                           \
                seen |= a[j] == a[i];                                                                    \
            repeats += seen;                                                                             \
        }                                                                                                \
        return repeats;                                                                                  \
    }                                                                                                    \
                                                                                                         \
    /* The repeated spacings of the points pts[0..n) by two radix sorts (pts and a, b clobbered) */      \
    static long repeated_spacings_by_sort_##SUFFIX(T *pts, Py_ssize_t n, int key_bits, T *a, T *b)       \
    {                                                                                                    \
        T mask = key_bits == BITS ? (T)~(T)0 : (((T)1 << key_bits) - 1);                                 \
        T *s = radix_sort_##SUFFIX(pts, a, n, key_bits);                                                 \
        T *gaps = s == pts ? a : pts;                                                                    \
        for (Py_ssize_t j = 0; j + 1 < n; j++)                                                           \
            gaps[j] = s[j + 1] - s[j];                                                                   \
        gaps[n - 1] = (s[0] - s[n - 1]) & mask;                                                          \
        return repeats_by_sort_##SUFFIX(gaps, b, n, key_bits);                                           \
    }                                                                                                    \
                                                                                                         \
    /* The repeated spacings of one block whose keys are in pts (clobbered); scratch as above */         \
    static long block_repeats_##SUFFIX(const T *keys, T *pts, Py_ssize_t n, int key_bits, T *sorted, T *a,  \
                                       T *b, uint32_t *bucket, uint8_t *filter, int filter_bits,        \
                                       uint8_t *filter2, int bucket_bits)                                \
    {                                                                                                    \
        if (n <= MAX_BUCKETED_POINTS && bucket_sort_##SUFFIX(keys, sorted, bucket, n, key_bits, bucket_bits) == 0) \
            return repeated_spacings_##SUFFIX(sorted, n, key_bits, a, b, filter, filter_bits, filter2);  \
        if (keys != pts)                                                                                 \
            memcpy(pts, keys, (size_t)n * sizeof *pts);                                                  \
        return repeated_spacings_by_sort_##SUFFIX(pts, n, key_bits, a, b);                               \
    }

DEFINE_SPACINGS(uint32_t, u32, 32, 0x9E3779B1u)
DEFINE_SPACINGS(uint64_t, u64, 64, 0x9E3779B97F4A7C15ull)

/* Large blocks of wide points (the full-width test: millions of 64-bit
 * points, 50 MiB a block).  Radix sorts would make sixteen passes over the
 * block, each missing the cache; this makes about seven:
 *
 * 1. one pass counts the points' top bits, another scatters the points
 *    into buckets by them (about 2^11 points per bucket);
 * 2. each bucket, small enough for the cache, is sorted into a small buffer
 *    by a counting pass on its next bits and insertion sort (points that
 *    share those bits too are rare), and the spacing after each of its
 *    points, multiplied by an odd constant so that the top bits of equal
 *    spacings are equal and those of the others spread, is written where
 *    the bucket was and its top bits counted;
 * 3. the spacings are scattered into buckets by those top bits, and each
 *    bucket is sorted in the cache the same way: equal neighbours are the
 *    repeats.
 *
 * A block whose points or spacings crowd into one bucket (a generator whose
 * outputs cluster) is counted with radix sorts instead: the cost per block
 * stays bounded and the count is the same exact number. */
#define LARGE_BUCKET_BITS 11        /* about 2^11 keys per bucket */
#define LARGE_BUCKET_CAP (1 << 16)  /* more keys than this in one bucket: radix sorts */
#define LARGE_SLOT_BITS 14          /* at most 2^14 slots for a bucket's second counting pass */
#define MAX_SHARED_SLOT 16          /* more keys than this in one slot: radix sort the bucket */
#define SPACING_MIX 0x9E3779B97F4A7C15ull

/* top bits to bucket n keys of key_bits bits by */
static int
large_top_bits(Py_ssize_t n, int key_bits)
{
    int bits = floor_log2(n) - LARGE_BUCKET_BITS;
    bits = bits < 1 ? 1 : bits;
    return bits > key_bits ? key_bits : bits;
}

static void
insertion_sort_u64(uint64_t *s, Py_ssize_t n)
{
    for (Py_ssize_t i = 1; i < n; i++) {
        uint64_t v = s[i];
        Py_ssize_t j = i;
        for (; j > 0 && s[j - 1] > v; j--)
            s[j] = s[j - 1];
        s[j] = v;
    }
}

/* Sorts the k keys of src (clobbered), which differ only in their low
 * `low_bits` bits, into dst; slot holds 2^LARGE_SLOT_BITS counters. */
static void
sort_bucket_u64(uint64_t *src, uint64_t *dst, Py_ssize_t k, int low_bits, uint32_t *slot)
{
    int bits = floor_log2(k > 1 ? k : 1) + 1;
    bits = bits > LARGE_SLOT_BITS ? LARGE_SLOT_BITS : bits;
    bits = bits > low_bits ? low_bits : bits;
    int shift = low_bits - bits;
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    memset(slot, 0, sizeof(uint32_t) << bits);
    for (Py_ssize_t i = 0; i < k; i++)
        slot[(src[i] >> shift) & mask]++;
    uint32_t most = 0, sum = 0;
    for (uint64_t v = 0; v <= mask; v++) {
        uint32_t c = slot[v];
        most = c > most ? c : most;
        slot[v] = sum;
        sum += c;
    }
    if (most > MAX_SHARED_SLOT && shift > 0) {
        uint64_t *sorted = radix_sort_u64(src, dst, k, low_bits);
        if (sorted != dst)
            memcpy(dst, sorted, (size_t)k * sizeof *dst);
        return;
    }
    for (Py_ssize_t i = 0; i < k; i++)
        dst[slot[(src[i] >> shift) & mask]++] = src[i];
    if (shift > 0)
        insertion_sort_u64(dst, k);
}

/* Scattering keys to their buckets' places a line at a time: the keys bound
 * for one bucket wait in a buffer of one cache line (8 keys) and go out when
 * they complete an aligned line of the destination (64-byte aligned), with
 * non-temporal stores where the CPU has them (SSE2), which write the line
 * without first reading it: almost twice as fast as storing each key. */
typedef struct {
    uint64_t (*line)[8]; /* one per bucket */
    uint8_t *held;       /* keys in each bucket's line */
} line_buffers;

static inline void
write_line(uint64_t *dst, const uint64_t *line, unsigned count)
{
#if defined(__SSE2__) && defined(__x86_64__)
    if (count == 8) {
        for (int j = 0; j < 8; j++)
            _mm_stream_si64((long long *)dst + j, (long long)line[j]);
        return;
    }
#endif
    for (unsigned j = 0; j < count; j++)
        dst[j] = line[j];
}

/* key to its place in dst: cursor[bucket], which moves on */
static inline void
scatter_key(uint64_t *dst, uint32_t *cursor, const line_buffers *lb, size_t bucket, uint64_t key)
{
    uint32_t at = cursor[bucket]++;
    unsigned held = lb->held[bucket];
    lb->line[bucket][held++] = key;
    if (((at + 1) & 7) == 0) {
        write_line(dst + at + 1 - held, lb->line[bucket], held);
        held = 0;
    }
    lb->held[bucket] = (uint8_t)held;
}

/* the keys still held, after the last scatter_key of `buckets` buckets */
static void
scatter_finish(uint64_t *dst, const uint32_t *cursor, const line_buffers *lb, Py_ssize_t buckets)
{
    for (Py_ssize_t b = 0; b < buckets; b++) {
        write_line(dst + cursor[b] - lb->held[b], lb->line[b], lb->held[b]);
        lb->held[b] = 0;
    }
#if defined(__SSE2__) && defined(__x86_64__)
    _mm_sfence(); /* the non-temporal stores are seen before the keys are read back */
#endif
}

/* The repeated spacings of the n points of a block (read_point's layout,
 * key_bits > 32) by two radix sorts in a and b, n keys each */
static long
large_block_repeats_by_sort(const uint8_t *q, Py_ssize_t n, int dims, int word_bytes, int bits_per_word, uint64_t *a,
                            uint64_t *b)
{
    int key_bits = dims * bits_per_word;
    uint64_t mask = key_bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << key_bits) - 1);
    for (Py_ssize_t i = 0; i < n; i++)
        a[i] = read_point(q + i * dims * word_bytes, dims, word_bytes, bits_per_word);
    uint64_t *s = radix_sort_u64(a, b, n, key_bits), *gaps = s == a ? b : a;
    for (Py_ssize_t j = 0; j + 1 < n; j++)
        gaps[j] = s[j + 1] - s[j];
    gaps[n - 1] = (s[0] - s[n - 1]) & mask;
    return repeats_by_sort_u64(gaps, s, n, key_bits);
}

/* The scratch of large_block_repeats */
typedef struct {
    uint64_t *a, *b;     /* n keys each */
    uint64_t *small;     /* LARGE_BUCKET_CAP keys: one bucket, sorted */
    uint32_t *count;     /* 2^large_top_bits(n, key_bits) bucket counters */
    uint32_t *count2;    /* 2^large_top_bits(n, 64): the spacings' */
    uint32_t *slot;      /* 2^LARGE_SLOT_BITS */
    line_buffers lines;  /* for the larger of the two bucket counts */
} large_scratch;

/* The repeated spacings of the n points of one large block at q (read_point's layout, key_bits > 32) */
static long
large_block_repeats(const uint8_t *q, Py_ssize_t n, int dims, int word_bytes, int bits_per_word, const large_scratch *w)
{
    int key_bits = dims * bits_per_word, stride = dims * word_bytes;
    uint64_t mask = key_bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << key_bits) - 1);
    uint64_t *a = w->a, *b = w->b;
    /* 1. the points, into buckets by their top bits */
    int top = large_top_bits(n, key_bits), shift = key_bits - top;
    Py_ssize_t buckets = (Py_ssize_t)1 << top;
    memset(w->count, 0, (size_t)buckets * sizeof *w->count);
    for (Py_ssize_t i = 0; i < n; i++)
        w->count[read_point(q + i * stride, dims, word_bytes, bits_per_word) >> shift]++;
    if (bucket_offsets(w->count, buckets) > LARGE_BUCKET_CAP)
        return large_block_repeats_by_sort(q, n, dims, word_bytes, bits_per_word, a, b);
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t k = read_point(q + i * stride, dims, word_bytes, bits_per_word);
        scatter_key(a, w->count, &w->lines, k >> shift, k);
    }
    scatter_finish(a, w->count, &w->lines, buckets);
    /* 2. each bucket sorted; the spacing after each point, mixed, where the bucket was */
    int top2 = large_top_bits(n, 64), shift2 = 64 - top2;
    Py_ssize_t buckets2 = (Py_ssize_t)1 << top2;
    memset(w->count2, 0, (size_t)buckets2 * sizeof *w->count2);
    uint64_t first = 0, last = 0;
    Py_ssize_t last_at = -1; /* where the spacing after the latest point goes */
    for (Py_ssize_t bk = 0, start = 0; bk < buckets; start = w->count[bk], bk++) {
        Py_ssize_t k = (Py_ssize_t)w->count[bk] - start;
        if (k == 0)
            continue;
        uint64_t *s = w->small;
        sort_bucket_u64(a + start, s, k, shift, w->slot);
        if (last_at < 0)
            first = s[0];
        else {
            uint64_t h = (s[0] - last) * SPACING_MIX;
            a[last_at] = h;
            w->count2[h >> shift2]++;
        }
        for (Py_ssize_t j = 0; j + 1 < k; j++) {
            uint64_t h = (s[j + 1] - s[j]) * SPACING_MIX;
            a[start + j] = h;
            w->count2[h >> shift2]++;
        }
        last = s[k - 1];
        last_at = start + k - 1;
    }
    uint64_t wrap = ((first - last) & mask) * SPACING_MIX;
    a[last_at] = wrap;
    w->count2[wrap >> shift2]++;
    /* 3. the spacings, into buckets by their top bits: equal ones meet */
    if (bucket_offsets(w->count2, buckets2) > LARGE_BUCKET_CAP)
        return repeats_by_sort_u64(a, b, n, 64);
    for (Py_ssize_t i = 0; i < n; i++)
        scatter_key(b, w->count2, &w->lines, a[i] >> shift2, a[i]);
    scatter_finish(b, w->count2, &w->lines, buckets2);
    long repeats = 0;
    for (Py_ssize_t bk = 0, start = 0; bk < buckets2; start = w->count2[bk], bk++) {
        Py_ssize_t k = (Py_ssize_t)w->count2[bk] - start;
        if (k < 2)
            continue;
        sort_bucket_u64(b + start, w->small, k, shift2, w->slot);
        for (Py_ssize_t j = 1; j < k; j++)
            repeats += w->small[j] == w->small[j - 1];
    }
    return repeats;
}

/* A buffer of `bytes` for large_scratch, 64-byte aligned; on huge pages
 * where the system has them: fewer page faults to fill it and fewer TLB
 * misses to scatter into it */
static void *
large_alloc(size_t bytes)
{
    size_t align = 64;
#if defined(MADV_HUGEPAGE)
    align = (size_t)2 << 20;
    bytes = (bytes + align - 1) / align * align;
#endif
    void *p = NULL;
    if (posix_memalign(&p, align, bytes) != 0)
        return NULL;
#if defined(MADV_HUGEPAGE)
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

/* counts[blk] for large blocks of wide points (points > MAX_BUCKETED_POINTS,
 * key_bits > 32), as count_blocks.  Needs no GIL; -1 when out of memory. */
static int
count_large_blocks(const uint8_t *p, Py_ssize_t nblocks, Py_ssize_t stride, Py_ssize_t points, int word_bytes,
                   int bits_per_word, int dims, int64_t *counts)
{
    size_t buckets = (size_t)1 << large_top_bits(points, dims * bits_per_word);
    size_t buckets2 = (size_t)1 << large_top_bits(points, 64), most = buckets > buckets2 ? buckets : buckets2;
    size_t keys = ((size_t)points + 7) / 8 * 8; /* so that b starts on a line too */
    /* a, b, the line buffers (64-byte aligned: mem is), small, the counters */
    size_t bytes = 2 * keys * 8 + most * 64 + (size_t)LARGE_BUCKET_CAP * 8 + (buckets + buckets2) * 4 +
                   ((size_t)4 << LARGE_SLOT_BITS) + most;
    uint8_t *mem = large_alloc(bytes);
    if (!mem)
        return -1;
    large_scratch w;
    w.a = (uint64_t *)mem;
    w.b = w.a + keys;
    w.lines.line = (uint64_t(*)[8])(w.b + keys);
    w.small = (uint64_t *)(w.lines.line + most);
    w.count = (uint32_t *)(w.small + LARGE_BUCKET_CAP);
    w.count2 = w.count + buckets;
    w.slot = w.count2 + buckets2;
    w.lines.held = (uint8_t *)(w.slot + ((size_t)1 << LARGE_SLOT_BITS));
    memset(w.lines.held, 0, most);
    for (Py_ssize_t blk = 0; blk < nblocks; blk++)
        counts[blk] = large_block_repeats(p + blk * stride, points, dims, word_bytes, bits_per_word, &w);
    free(mem);
    return 0;
}

static int
valid_parameters(Py_ssize_t points, int word_bytes, int bits_per_word, int dims)
{
    if (points < 2 || points > (1 << 28) || (word_bytes != 1 && word_bytes != 2 && word_bytes != 4 && word_bytes != 8) ||
        bits_per_word < 1 || bits_per_word > 8 * word_bytes || dims < 1 || (long)dims * bits_per_word > 64) {
        PyErr_SetString(PyExc_ValueError, "invalid birthday spacings parameters");
        return 0;
    }
    return 1;
}

/* counts[blk] = the repeated spacings of each of the nblocks complete blocks
 * of p, block blk starting at p + blk * stride; bucketed = 0 counts with two
 * radix sorts.  Needs no GIL; returns -1 when out of memory. */
static int
count_blocks(const uint8_t *p, Py_ssize_t nblocks, Py_ssize_t stride, Py_ssize_t points, int word_bytes,
             int bits_per_word, int dims, int64_t *counts, int bucketed)
{
    int key_bits = dims * bits_per_word;
    if (bucketed && points > MAX_BUCKETED_POINTS && key_bits > 32)
        return count_large_blocks(p, nblocks, stride, points, word_bytes, bits_per_word, dims, counts);
    size_t key_size = key_bits > 32 ? 8 : 4;
    /* about two points per bucket: half the offsets to sum, a few more odd-even rounds */
    int bucket_bits = floor_log2(points) - 1;
    if (bucket_bits < 1 || points > MAX_BUCKETED_POINTS)
        bucket_bits = 1; /* larger blocks are radix-sorted */
    if (bucket_bits > key_bits)
        bucket_bits = key_bits;
    int filter_bits = floor_log2(points) + 3; /* 8n slots or more */
    if (points > MAX_BUCKETED_POINTS)
        filter_bits = 1;
    /* four key buffers (points, sorted, two scratch), bucket offsets, both filters */
    size_t table_bytes = ((size_t)4 << bucket_bits) + ((size_t)1 << filter_bits) + ((size_t)1 << SECOND_FILTER_BITS);
    uint8_t *scratch = malloc(4 * (size_t)points * key_size + table_bytes);
    if (!scratch)
        return -1;
    uint8_t *pts = scratch, *sorted = pts + points * key_size, *a = sorted + points * key_size, *b = a + points * key_size;
    uint32_t *bucket = (uint32_t *)(b + points * key_size);
    uint8_t *filter = (uint8_t *)bucket + ((size_t)4 << bucket_bits), *filter2 = filter + ((size_t)1 << filter_bits);
    memset(filter, 0, ((size_t)1 << filter_bits) + ((size_t)1 << SECOND_FILTER_BITS));
    int drop = 8 * word_bytes - bits_per_word;
    for (Py_ssize_t blk = 0; blk < nblocks; blk++) {
        const uint8_t *q = p + blk * stride;
        if (key_size == 4) {
            uint32_t *pt = (uint32_t *)pts;
            const uint32_t *keys = pt;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            if (dims == 1 && word_bytes == 4 && !drop && (uintptr_t)q % sizeof(uint32_t) == 0)
                keys = (const uint32_t *)q; /* the words themselves are the points */
            else if (dims == 1 && word_bytes == 4) {
                memcpy(pt, q, (size_t)points * 4);
                if (drop)
                    for (Py_ssize_t j = 0; j < points; j++)
                        pt[j] >>= drop;
            } else
#endif
                for (Py_ssize_t j = 0; j < points; j++)
                    pt[j] = (uint32_t)read_point(q + j * dims * word_bytes, dims, word_bytes, bits_per_word);
            if (bucketed)
                counts[blk] = block_repeats_u32(keys, pt, points, key_bits, (uint32_t *)sorted, (uint32_t *)a,
                                                (uint32_t *)b, bucket, filter, filter_bits, filter2, bucket_bits);
            else {
                if (keys != pt)
                    memcpy(pt, keys, (size_t)points * 4);
                counts[blk] = repeated_spacings_by_sort_u32(pt, points, key_bits, (uint32_t *)a, (uint32_t *)b);
            }
        } else {
            uint64_t *pt = (uint64_t *)pts;
            for (Py_ssize_t j = 0; j < points; j++)
                pt[j] = read_point(q + j * dims * word_bytes, dims, word_bytes, bits_per_word);
            counts[blk] = bucketed ? block_repeats_u64(pt, pt, points, key_bits, (uint64_t *)sorted, (uint64_t *)a, (uint64_t *)b,
                                                       bucket, filter, filter_bits, filter2, bucket_bits)
                                   : repeated_spacings_by_sort_u64(pt, points, key_bits, (uint64_t *)a, (uint64_t *)b);
        }
    }
    free(scratch);
    return 0;
}

/* spacing_collisions(data, points, word_bytes, bits_per_word, dims, counts[, stride]):
 * counts[b] = the repeated spacings of block b, for every complete block of
 * `points` points in data (counts: int64, exactly one item per complete
 * block).  A point is `dims` consecutive little-endian words of
 * `word_bytes` bytes, the top `bits_per_word` bits of each; trailing bytes
 * that do not fill a block are the caller's to keep for the next chunk.
 * With `stride` (at least a block's bytes) block b starts at b * stride and
 * the bytes between blocks are skipped: a test that counts one block in
 * several needs no copy of them. */
static PyObject *
spacing_collisions(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in, out;
    Py_ssize_t points, stride = 0;
    int word_bytes, bits_per_word, dims;
    PyObject *counts_obj;
    if (!PyArg_ParseTuple(args, "y*niiiO|n", &in, &points, &word_bytes, &bits_per_word, &dims, &counts_obj, &stride))
        return NULL;
    if (!valid_parameters(points, word_bytes, bits_per_word, dims)) {
        PyBuffer_Release(&in);
        return NULL;
    }
    Py_ssize_t block_bytes = points * dims * word_bytes;
    if (stride == 0)
        stride = block_bytes;
    if (stride < block_bytes)
        return reject_parameters(&in, "stride must be at least the bytes of one block");
    Py_ssize_t nblocks = in.len < block_bytes ? 0 : (in.len - block_bytes) / stride + 1;
    if (get_int64_out_or_release(counts_obj, &out, nblocks, "counts (one per complete block)", &in) < 0)
        return NULL;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = count_blocks((const uint8_t *)in.buf, nblocks, stride, points, word_bytes, bits_per_word, dims,
                          (int64_t *)out.buf, 1);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    if (status < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* birthday_collisions(data, points, word_bytes, bits_per_word, dims) -> list
 * of the repeated spacings of each complete block, counted with two radix
 * sorts per block: the straightforward method, kept as the reference. */
static PyObject *
birthday_collisions(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer in;
    Py_ssize_t points;
    int word_bytes, bits_per_word, dims;
    if (!PyArg_ParseTuple(args, "y*niii", &in, &points, &word_bytes, &bits_per_word, &dims))
        return NULL;
    if (!valid_parameters(points, word_bytes, bits_per_word, dims)) {
        PyBuffer_Release(&in);
        return NULL;
    }
    Py_ssize_t nblocks = in.len / (points * dims * word_bytes);
    int64_t *counts = malloc((size_t)(nblocks ? nblocks : 1) * sizeof *counts);
    PyObject *result = PyList_New(nblocks);
    int status = -1;
    if (counts && result) {
        Py_BEGIN_ALLOW_THREADS
        status = count_blocks((const uint8_t *)in.buf, nblocks, points * dims * word_bytes, points, word_bytes,
                              bits_per_word, dims, counts, 0);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&in);
    if (status < 0) {
        free(counts);
        Py_XDECREF(result);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t b = 0; b < nblocks; b++) {
        PyObject *item = PyLong_FromLongLong(counts[b]);
        if (!item) {
            free(counts);
            Py_DECREF(result);
            return NULL;
        }
        PyList_SET_ITEM(result, b, item);
    }
    free(counts);
    return result;
}

static PyMethodDef spacings_methods[] = {
    {"spacing_collisions", spacing_collisions, METH_VARARGS,
     "Write the repeated-spacing count of each complete block of points into an int64 array."},
    {"birthday_collisions", birthday_collisions, METH_VARARGS,
     "The repeated-spacing count of each complete block, by two radix sorts (the reference)."},
    {NULL, NULL, 0, NULL},
};

RANDQA_MODULE(_spacings, "randqa.battery._spacings",
              "Birthday spacings: repeated spacings per block of points.",
              spacings_methods);
