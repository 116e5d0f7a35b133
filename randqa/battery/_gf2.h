/*
 * Berlekamp-Massey over GF(2) on bit-packed sequences, shared by the NIST
 * linear complexity test and the long single-bit-position one (both in
 * battery/_linear.c) and by the GF(2) predictor (predict/_gf2_recurrence.c).
 * Include after _module.h (POPCNT_CLONES).
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

/* C ^= x^shift * B, B having `bwords` possibly non-zero words */
static inline void
xor_shifted(uint64_t *C, const uint64_t *B, int bwords, int shift)
{
    int q = shift >> 6, r = shift & 63;
    if (r == 0) {
        for (int w = 0; w < bwords; w++)
            C[w + q] ^= B[w];
    } else {
        for (int w = 0; w < bwords; w++) {
            C[w + q] ^= B[w] << r;
            C[w + q + 1] ^= B[w] >> (64 - r);
        }
    }
}

/* The linear complexity of s_0..s_{n-1}, given R with R_j = s_{n-1-j} (bit
 * j&63 of word j>>6) and zero-padded to ceil(n/64) + 3 words.  `work` must
 * hold 3 * (ceil(n/64) + 3) words. */
POPCNT_CLONES static int
berlekamp_massey_reversed(const uint64_t *R, int n, uint64_t *work)
{
    int stride = (n + 63) / 64 + 3;
    uint64_t *C = work, *B = work + stride, *T = work + 2 * stride;
    memset(C, 0, (size_t)stride * 8);
    memset(B, 0, (size_t)stride * 8);
    C[0] = B[0] = 1;
    int L = 0, m = 1, bwords = 1;
    for (int N = 0; N < n; N++) {
        int off = n - 1 - N, q = off >> 6, r = off & 63, cwords = (L >> 6) + 1;
        uint64_t acc = 0;
        if (r == 0) {
            for (int w = 0; w < cwords; w++)
                acc ^= C[w] & R[q + w];
        } else {
            for (int w = 0; w < cwords; w++)
                acc ^= C[w] & ((R[q + w] >> r) | (R[q + w + 1] << (64 - r)));
        }
        if (!__builtin_parityll(acc)) {
            m++;
            continue;
        }
        if (2 * L <= N) {
            memcpy(T, C, (size_t)cwords * 8);
            xor_shifted(C, B, bwords, m);
            L = N + 1 - L;
            memcpy(B, T, (size_t)cwords * 8);
            for (int w = cwords; w < bwords; w++)
                B[w] = 0;
            bwords = cwords;
            m = 1;
        } else {
            xor_shifted(C, B, bwords, m);
            m++;
        }
    }
    return L;
}

#endif
