/*
 * Plain C reference loops for randqa's compiled backends.
 *
 * Each generator is written the textbook way, one next() call per output
 * stored into a 1 MiB buffer, so benchmarks/bench_backends.py can compare
 * randqa's backend (the same algorithm behind the Python buffer protocol)
 * with what a C programmer would write.  Seeding follows the backends'
 * documented seeding, so the first bytes must agree too.
 *
 * usage: loops ALGORITHM SEED NBYTES REPEATS
 * prints: <median MB/s> <first 16 bytes of the first run in hex>
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF (1u << 20)

/* ---- glibc random_r TYPE_3, ring-buffer form as glibc runs it ---- */
static int32_t g_tab[31];
static int g_f, g_r;
static void glibc_srand(uint32_t seed)
{
    if (seed == 0) seed = 1;
    g_tab[0] = (int32_t)seed;
    for (int i = 1; i < 31; i++) {
        int64_t w = (16807 * (int64_t)g_tab[i - 1]) % 2147483647;
        if (w < 0) w += 2147483647;
        g_tab[i] = (int32_t)w;
    }
    g_f = 3; g_r = 0;
    for (int i = 0; i < 310; i++) {
        g_tab[g_f] = (int32_t)((uint32_t)g_tab[g_f] + (uint32_t)g_tab[g_r]);
        if (++g_f == 31) g_f = 0;
        if (++g_r == 31) g_r = 0;
    }
}
static inline uint32_t glibc_rand(void)
{
    uint32_t v = (uint32_t)g_tab[g_f] + (uint32_t)g_tab[g_r];
    g_tab[g_f] = (int32_t)v;
    if (++g_f == 31) g_f = 0;
    if (++g_r == 31) g_r = 0;
    return v >> 1;
}

/* ---- 15-bit LCGs ---- */
static uint32_t lcg_x;
static inline uint32_t msvc_rand(void) { lcg_x = lcg_x * 214013u + 2531011u; return (lcg_x >> 16) & 0x7fff; }
static inline uint32_t ansi_rand(void) { lcg_x = lcg_x * 1103515245u + 12345u; return (lcg_x / 65536) % 32768; }

/* ---- RANDU, MINSTD, xorshift32, splitmix64 ---- */
static uint32_t u32_x;
static uint64_t u64_x;
static inline uint32_t randu(void) { u32_x = (65539u * u32_x) % 2147483648u; return u32_x; }
static inline uint32_t minstd(void) { u32_x = (uint32_t)(((uint64_t)u32_x * 16807u) % 2147483647u); return u32_x; }
static inline uint32_t xorshift32(void) { u32_x ^= u32_x << 13; u32_x ^= u32_x >> 17; u32_x ^= u32_x << 5; return u32_x; }
static inline uint64_t splitmix64(void)
{
    uint64_t z = (u64_x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---- MT19937, genrand_int32 one word at a time ---- */
static uint32_t mt[624];
static int mti = 625;
static void init_genrand(uint32_t s)
{
    mt[0] = s;
    for (mti = 1; mti < 624; mti++) mt[mti] = 1812433253u * (mt[mti - 1] ^ (mt[mti - 1] >> 30)) + (uint32_t)mti;
}
static inline uint32_t genrand_int32(void)
{
    static const uint32_t mag01[2] = {0u, 0x9908b0dfu};
    uint32_t y;
    if (mti >= 624) {
        int kk;
        for (kk = 0; kk < 624 - 397; kk++) {
            y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
            mt[kk] = mt[kk + 397] ^ (y >> 1) ^ mag01[y & 1u];
        }
        for (; kk < 623; kk++) {
            y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
            mt[kk] = mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 1u];
        }
        y = (mt[623] & 0x80000000u) | (mt[0] & 0x7fffffffu);
        mt[623] = mt[396] ^ (y >> 1) ^ mag01[y & 1u];
        mti = 0;
    }
    y = mt[mti++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* ---- RC4 and libdnet's keying ---- */
static uint8_t S[256], ri, rj;
static void rc4_setup(const uint8_t *key, int len)
{
    for (int i = 0; i < 256; i++) S[i] = (uint8_t)i;
    uint8_t j = 0;
    for (int i = 0; i < 256; i++) {
        j = (uint8_t)(j + S[i] + key[i % len]);
        uint8_t t = S[i]; S[i] = S[j]; S[j] = t;
    }
    ri = rj = 0;
}
static inline uint8_t rc4_byte(void)
{
    ri++;
    uint8_t si = S[ri];
    rj = (uint8_t)(rj + si);
    uint8_t sj = S[rj];
    S[ri] = sj; S[rj] = si;
    return S[(uint8_t)(si + sj)];
}
static void dnet_mix(const uint8_t *key, int len)
{
    ri--;
    for (int k = 0; k < 256; k++) {
        ri++;
        uint8_t si = S[ri];
        rj = (uint8_t)(rj + si + key[k % len]);
        S[ri] = S[rj]; S[rj] = si;
    }
    rj = ri;
}
static void dnet_rand_set(const uint8_t *key, int len)
{
    for (int i = 0; i < 256; i++) S[i] = (uint8_t)i;
    ri = rj = 0;
    dnet_mix(key, len);
    dnet_mix(key, len);
}

/* ---- Linux prandom_u32_state ---- */
static uint32_t s1, s2, s3, s4;
static inline uint32_t prandom_u32_state(void)
{
#define TAUSWORTHE(s, a, b, c, d) ((s & c) << d) ^ (((s << a) ^ s) >> b)
    s1 = TAUSWORTHE(s1, 6U, 13U, 4294967294U, 18U);
    s2 = TAUSWORTHE(s2, 2U, 27U, 4294967288U, 2U);
    s3 = TAUSWORTHE(s3, 13U, 21U, 4294967280U, 7U);
    s4 = TAUSWORTHE(s4, 3U, 12U, 4294967168U, 13U);
    return s1 ^ s2 ^ s3 ^ s4;
}
static uint32_t seed_min(uint32_t x, uint32_t m) { return x < m ? x + m : x; }
static void prandom_seed_state(uint64_t seed)
{
    uint32_t i = (uint32_t)(((seed >> 32) ^ (seed << 10) ^ seed) & 0xffffffffu);
    s1 = seed_min(i, 2u); s2 = seed_min(i, 8u); s3 = seed_min(i, 16u); s4 = seed_min(i, 128u);
    for (int k = 0; k < 10; k++) prandom_u32_state();
}

/* ---- Linux 5.10 siprand_u32 ---- */
static uint64_t v0, v1, v2, v3;
#define ROL64(x, r) (((x) << (r)) | ((x) >> (64 - (r))))
static inline uint32_t siprand_u32(void)
{
    for (int round = 0; round < 2; round++) {
        v0 += v1; v1 = ROL64(v1, 13); v2 += v3; v3 = ROL64(v3, 16);
        v1 ^= v0; v0 = ROL64(v0, 32); v3 ^= v2;
        v0 += v3; v3 = ROL64(v3, 21); v2 += v1; v1 = ROL64(v1, 17);
        v3 ^= v0; v1 ^= v2; v2 = ROL64(v2, 32);
    }
    return (uint32_t)(v1 + v3);
}

static inline void put32(uint8_t *p, uint32_t v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }
static inline void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s ALGORITHM SEED NBYTES REPEATS\n", argv[0]);
        return 2;
    }
    const char *alg = argv[1];
    uint64_t seed = strtoull(argv[2], NULL, 10);
    size_t nbytes = strtoull(argv[3], NULL, 10);
    int repeats = atoi(argv[4]);
    uint8_t *buf = malloc(BUF);
    uint8_t first[16];
    double *rates = malloc(sizeof(double) * repeats);
    uint8_t key[8];
    for (int k = 0; k < 8; k++) key[k] = (uint8_t)(seed >> (8 * k));

    for (int run = 0; run < repeats; run++) {
        /* seed (not timed) */
        if (!strncmp(alg, "glibc-rand", 10)) glibc_srand((uint32_t)seed);
        else if (!strcmp(alg, "libc-rand-byte")) srand((unsigned)seed);
        else if (!strncmp(alg, "msvc-rand", 9) || !strcmp(alg, "ansi-c-rand")) lcg_x = (uint32_t)seed;
        else if (!strcmp(alg, "randu")) u32_x = ((uint32_t)seed & 0x7fffffffu) | 1u;
        else if (!strcmp(alg, "minstd")) { u32_x = (uint32_t)(seed % 2147483647u); if (!u32_x) u32_x = 1; }
        else if (!strcmp(alg, "xorshift32")) u32_x = seed ? (uint32_t)seed : 2463534242u;
        else if (!strcmp(alg, "splitmix64")) u64_x = seed;
        else if (!strcmp(alg, "mt19937")) init_genrand((uint32_t)seed);
        else if (!strcmp(alg, "arc4")) rc4_setup(key, 8);
        else if (!strcmp(alg, "arc4-drop")) { rc4_setup(key, 8); for (int k = 0; k < 3072; k++) rc4_byte(); }
        else if (!strcmp(alg, "dnet-arc4")) dnet_rand_set(key, 8);
        else if (!strcmp(alg, "lfsr113")) prandom_seed_state(seed);
        else if (!strcmp(alg, "siprand")) {
            v0 = seed; v1 = 0;
            v2 = v0 ^ (0x736f6d6570736575ULL ^ 0x6c7967656e657261ULL);
            v3 = v1 ^ (0x646f72616e646f6dULL ^ 0x7465646279746573ULL);
            if (!v0) v0 = ~0ULL;
            if (!v1) v1 = ~0ULL;
            if (!v2) v2 = ~0ULL;
            if (!v3) v3 = ~0ULL;
        } else {
            fprintf(stderr, "unknown algorithm %s\n", alg);
            return 2;
        }
        double start = now();
        for (size_t done = 0; done < nbytes; done += BUF) {
            size_t i;
            if (!strcmp(alg, "glibc-rand")) for (i = 0; i < BUF; i += 4) put32(buf + i, glibc_rand());
            else if (!strcmp(alg, "glibc-rand-byte")) for (i = 0; i < BUF; i++) buf[i] = (uint8_t)glibc_rand();
            else if (!strcmp(alg, "glibc-rand-short")) for (i = 0; i < BUF; i += 2) { uint32_t v = glibc_rand(); buf[i] = v; buf[i + 1] = v >> 8; }
            else if (!strcmp(alg, "libc-rand-byte")) for (i = 0; i < BUF; i++) buf[i] = (uint8_t)rand();
            else if (!strcmp(alg, "msvc-rand-byte")) for (i = 0; i < BUF; i++) buf[i] = (uint8_t)msvc_rand();
            else if (!strcmp(alg, "msvc-rand-short")) for (i = 0; i < BUF; i += 2) { uint32_t v = msvc_rand(); buf[i] = v; buf[i + 1] = v >> 8; }
            else if (!strcmp(alg, "ansi-c-rand")) for (i = 0; i < BUF; i += 2) { uint32_t v = ansi_rand(); buf[i] = v; buf[i + 1] = v >> 8; }
            else if (!strcmp(alg, "randu")) for (i = 0; i < BUF; i += 4) put32(buf + i, randu());
            else if (!strcmp(alg, "minstd")) for (i = 0; i < BUF; i += 4) put32(buf + i, minstd());
            else if (!strcmp(alg, "xorshift32")) for (i = 0; i < BUF; i += 4) put32(buf + i, xorshift32());
            else if (!strcmp(alg, "splitmix64")) for (i = 0; i < BUF; i += 8) put64(buf + i, splitmix64());
            else if (!strcmp(alg, "mt19937")) for (i = 0; i < BUF; i += 4) put32(buf + i, genrand_int32());
            else if (!strcmp(alg, "arc4") || !strcmp(alg, "arc4-drop") || !strcmp(alg, "dnet-arc4")) for (i = 0; i < BUF; i++) buf[i] = rc4_byte();
            else if (!strcmp(alg, "lfsr113")) for (i = 0; i < BUF; i += 4) put32(buf + i, prandom_u32_state());
            else if (!strcmp(alg, "siprand")) for (i = 0; i < BUF; i += 4) put32(buf + i, siprand_u32());
            if (run == 0 && done == 0) memcpy(first, buf, 16);
        }
        double elapsed = now() - start;
        rates[run] = (double)nbytes / elapsed / 1e6;
    }
    qsort(rates, repeats, sizeof(double), cmp);
    double median = repeats % 2 ? rates[repeats / 2] : 0.5 * (rates[repeats / 2 - 1] + rates[repeats / 2]);
    printf("%.1f ", median);
    for (int k = 0; k < 16; k++) printf("%02x", first[k]);
    printf("\n");
    free(buf);
    free(rates);
    return 0;
}
