/*
 * Berlekamp-Massey over GF(2) on bit-packed sequences, shared by the NIST
 * linear complexity test and the long single-bit-position one (both in
 * battery/_linear.c) and by the GF(2) predictor (predict/_gf2_recurrence.c).
 * Include after _module.h (RANDQA_CLONES, RESTRICT).
 */
#ifndef RANDQA_GF2_H
#define RANDQA_GF2_H

#include <stdint.h>
#include <string.h>

/*
 * The sequence s_0..s_{n-1} is stored with s_k at bit k&63 of word k>>6.
 * Step N needs the discrepancy sum_i c_i s_{N-i}; with R the bit-reversed
 * sequence (R_j = s_{n-1-j}) that is the parity of C AND (R >> (n-1-N)),
 * so each step costs (L/64 + 1) word operations.  deg C <= L always holds
 * (Massey 1969), which bounds every loop by the current complexity.
 */

static inline uint64_t
bit_reverse64(uint64_t x)
{
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return __builtin_bswap64(x);
}

/* Vector versions chosen when the module loads (RANDQA_CLONES in _module.h):
 * the loops of a step are funnel shifts, ANDs and XORs over the words,
 * which compilers vectorise; popcnt for the parity.  No AVX-512 version:
 * its longer vector loops cost more than they gain on the typical
 * sequences of 256 to 4096 bits (1.1-1.2x slower), and gain only 10% from
 * 80,000 bits. */
#define GF2_CLONES RANDQA_CLONES("arch=x86-64-v3", "popcnt", "default")

/* C ^= x^s B over words 0..bwords, as one pass that writes each word of C
 * once (vectorisable); B[-1] = 0 and B is 0 from word bwords on */
static inline void
add_shifted(uint64_t *RESTRICT C, const uint64_t *RESTRICT B, int bwords, int s)
{
    /* (x >> 1) >> (63 - s) is 0 when s = 0 */
    for (int w = 0; w <= bwords; w++)
        C[w] ^= (B[w] << s) | ((B[w - 1] >> 1) >> (63 - s));
}

static inline void
copy_words(uint64_t *RESTRICT dst, const uint64_t *RESTRICT src, int words)
{
    for (int w = 0; w < words; w++)
        dst[w] = src[w];
}

/* The linear complexity of s_0..s_{n-1}, given R with R_j = s_{n-1-j} (bit
 * j&63 of word j>>6) and zero-padded to ceil(n/64) + 3 words.  `work` must
 * hold 3 * (ceil(n/64) + 3) words; C is left in its first ceil(n/64) + 3. */
GF2_CLONES static int
berlekamp_massey_reversed(const uint64_t *R, int n, uint64_t *work)
{
    int stride = (n + 63) / 64 + 3;
    /* B and T (the next B) start one word into their areas, so that word -1
     * stays 0 for add_shifted; they swap when L changes.  Each is 0 from word
     * cwords on whenever it becomes B: what it held before lies below the
     * bwords of that time, which is at most cwords, and C was copied over it. */
    uint64_t *C = work, *B = work + stride + 1, *T = work + 2 * stride + 1;
    memset(work, 0, (size_t)3 * stride * 8);
    C[0] = B[0] = 1;
    int L = 0, m = 1, bwords = 1;
    for (int N = 0; N < n; N++) {
        int off = n - 1 - N, r = off & 63, cwords = (L >> 6) + 1;
        const uint64_t *Rq = R + (off >> 6);
        /* word w of R >> off; (x << 1) << (63 - r) is 0 when r = 0 */
        uint64_t acc = 0;
        for (int w = 0; w < cwords; w++)
            acc ^= C[w] & ((Rq[w] >> r) | ((Rq[w + 1] << 1) << (63 - r)));
        if (!__builtin_parityll(acc)) {
            m++;
            continue;
        }
        if (2 * L <= N) {
            /* L changes: the old C becomes B (pointers swap instead of a second copy) */
            copy_words(T, C, cwords);
            add_shifted(C + (m >> 6), B, bwords, m & 63);
            uint64_t *old = B;
            B = T;
            T = old;
            bwords = cwords;
            L = N + 1 - L;
            m = 1;
        } else {
            add_shifted(C + (m >> 6), B, bwords, m & 63);
            m++;
        }
    }
    return L;
}

#endif
