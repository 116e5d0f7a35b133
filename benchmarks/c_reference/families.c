/*
 * Generator families randqa's suites were not built against, for
 * benchmarks/bench_families_vs_practrand.py.
 *
 * randqa's tests were chosen and calibrated on the generators it ships; a
 * fair test of them is generators nobody tuned them on.  Each one here is
 * written from its published description (cited beside it), and the ones with
 * published outputs are checked against them by `families check`, so the
 * bytes both testers read are the generator's, not a slip of this file.
 *
 * usage: families NAME SEED   write NAME's output to stdout until the reader
 *                             closes the pipe (then exit 0)
 *        families list        one line per generator: name, bits per value
 *        families check       one line per known-answer check; exit 1 if any fails
 *
 * Values are written little-endian in their own width (16, 32 or 64 bits),
 * in 64 KiB blocks; the two ranlux bases write their 24- or 48-bit values as
 * 3 or 6 bytes.  Unless noted, a generator's state is drawn from SplitMix64
 * seeded with SEED.
 *
 * build: cc -O2 -o families families.c
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t u32;
typedef uint64_t u64;
typedef unsigned __int128 u128;

#define BLOCK 65536

static inline u32 rotl32(u32 x, int k) { return (x << k) | (x >> (32 - k)); }

/* SplitMix64 (Steele, Lea, Flood, OOPSLA 2014; Vigna's splitmix64.c): seeds the others */
static u64 sm_state;
static u64 splitmix64(void)
{
    u64 z = (sm_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* ---- subtract-with-borrow, ISO C++ [rand.eng.sub]: x_i = (x_{i-s} - x_{i-r} - c) mod 2^w, w < 64 ---- */
static struct { u64 x[64], c, mask; int w, s, r, i; } swc;
static void swc_init(int w, int s, int r)
{
    swc.w = w; swc.s = s; swc.r = r; swc.i = 0;
    swc.mask = (1ULL << w) - 1;
}
/* the standard's seed(value): words from linear_congruential_engine<40014, 0, 2147483563>(value or 19780503) */
static void swc_std_seed(int w, int s, int r, u64 value)
{
    const u64 m = 2147483563ULL;
    u64 e = (value == 0 ? 19780503ULL : value) % m;
    if (e == 0) e = 1;
    swc_init(w, s, r);
    for (int j = 0; j < r; j++) {
        u64 sum = 0;
        for (int t = 0; t < (w + 31) / 32; t++) {
            e = 40014ULL * e % m;
            sum += e << (32 * t);
        }
        swc.x[j] = sum & swc.mask;
    }
    swc.c = swc.x[r - 1] == 0;
}
static u64 swc_next(void)
{
    int i = swc.i, ps = i - swc.s < 0 ? i - swc.s + swc.r : i - swc.s;
    u64 xs = swc.x[ps], xr = swc.x[i], y;  /* x_{i-s}, x_{i-r} (the ring's oldest word) */
    if (xs >= xr + swc.c) { y = xs - xr - swc.c; swc.c = 0; }
    else { y = (xs - xr - swc.c) & swc.mask; swc.c = 1; }
    swc.x[i] = y;
    swc.i = i + 1 == swc.r ? 0 : i + 1;
    return y;
}
/* std::ranlux24_base, subtract_with_carry_engine<uint_fast32_t, 24, 10, 24>, the standard's seeding */
static void ranlux24_seed(u64 seed) { swc_std_seed(24, 10, 24, seed); }
/* std::ranlux48_base, subtract_with_carry_engine<uint_fast64_t, 48, 5, 12> */
static void ranlux48_seed(u64 seed) { swc_std_seed(48, 5, 12, seed); }
/* SWB base 2^32, lags 37/24: subtract_with_carry_engine<uint32_t, 32, 24, 37>, seeded by SplitMix64 */
static void swb37_24_seed(u64 seed)
{
    (void)seed;
    swc_init(32, 24, 37);
    for (int j = 0; j < 37; j++) swc.x[j] = (u32)splitmix64();
    swc.c = 0;
}

/* Marsaglia & Zaman, Ann. Appl. Probab. 1 (1991): SWB base 2^32 - 5, x_n = x_{n-22} - x_{n-43} - c */
#define SWBM_B 4294967291LL
static u32 swbm_x[43];
static int swbm_i, swbm_c;
static void swb43_22_seed(u64 seed)
{
    (void)seed;
    for (int j = 0; j < 43; j++) swbm_x[j] = (u32)(splitmix64() % (u64)SWBM_B);
    swbm_i = 0; swbm_c = 0;
}
static u64 swb43_22_next(void)
{
    int i = swbm_i, ps = i - 22 < 0 ? i - 22 + 43 : i - 22;
    int64_t t = (int64_t)swbm_x[ps] - (int64_t)swbm_x[i] - swbm_c;
    if (t < 0) { t += SWBM_B; swbm_c = 1; } else swbm_c = 0;
    swbm_x[i] = (u32)t;
    swbm_i = i + 1 == 43 ? 0 : i + 1;
    return (u32)t;
}

/* Marsaglia, "Random numbers for C: The END?", sci.stat.math, 20 Jan 1999: KISS, its parts, SWB and LFIB4 */
static u32 k_z, k_w, k_jsr, k_jcong;
static u32 m99_t[256], m99_x, m99_y, m99_bro;
static unsigned char m99_c;
static inline u32 mwc99(void)
{
    k_z = 36969 * (k_z & 65535) + (k_z >> 16);
    k_w = 18000 * (k_w & 65535) + (k_w >> 16);
    return (k_z << 16) + k_w;
}
static inline u32 shr3(void) { k_jsr ^= k_jsr << 17; k_jsr ^= k_jsr >> 13; k_jsr ^= k_jsr << 5; return k_jsr; }
static inline u32 cong(void) { return k_jcong = 69069 * k_jcong + 1234567; }
static inline u32 kiss(void) { u32 m = mwc99(), c = cong(); return (m ^ c) + shr3(); }
/* SWB: 256-word table, x_n = x_{n-222} - x_{n-237} - borrow mod 2^32 */
static inline u32 swb99(void)
{
    m99_c++;
    m99_bro = m99_x < m99_y;
    m99_x = m99_t[(unsigned char)(m99_c + 34)];
    m99_y = m99_t[(unsigned char)(m99_c + 19)] + m99_bro;
    return m99_t[m99_c] = m99_x - m99_y;
}
static inline u32 lfib4(void)
{
    m99_c++;
    return m99_t[m99_c] = m99_t[m99_c] + m99_t[(unsigned char)(m99_c + 58)] +
                          m99_t[(unsigned char)(m99_c + 119)] + m99_t[(unsigned char)(m99_c + 178)];
}
static u64 kiss99_next(void) { return kiss(); }
static u64 mwc99_next(void) { return mwc99(); }
static u64 swb99_next(void) { return swb99(); }
static u64 lfib4_next(void) { return lfib4(); }  /* LFIB4, CONG, SHR3: for the check only */
static u64 cong_next(void) { return cong(); }
static u64 shr3_next(void) { return shr3(); }
static void kiss99_seed(u64 seed)
{
    u64 a = splitmix64(), b = splitmix64();
    (void)seed;
    k_z = (u32)a; k_w = (u32)(a >> 32); k_jsr = (u32)b; k_jcong = (u32)(b >> 32);
    if (!k_jsr) k_jsr = 123456789;  /* the zero state SHR3 and each MWC would stay in */
    if (!k_z) k_z = 362436069;
    if (!k_w) k_w = 521288629;
}
static void mwc99_seed(u64 seed)
{
    u64 a = splitmix64();
    (void)seed;
    k_z = (u32)a; k_w = (u32)(a >> 32);
    if (!k_z) k_z = 362436069;
    if (!k_w) k_w = 521288629;
}
static void swb99_seed(u64 seed)
{
    (void)seed;
    for (int j = 0; j < 256; j++) m99_t[j] = (u32)splitmix64();
    m99_c = 0; m99_x = m99_y = m99_bro = 0;
}

/* WELL512a: Panneton, L'Ecuyer, Matsumoto, ACM TOMS 32 (2006), their WELL512a.c */
static u32 well[16];
static unsigned well_i;
static void well512a_seed(u64 seed)
{
    (void)seed;
    for (int j = 0; j < 16; j++) well[j] = (u32)splitmix64();
    well_i = 0;
}
static u64 well512a_next(void)
{
    u32 v0 = well[well_i], vm1 = well[(well_i + 13) & 15], vm2 = well[(well_i + 9) & 15];
    u32 z0 = well[(well_i + 15) & 15];
    u32 z1 = (v0 ^ (v0 << 16)) ^ (vm1 ^ (vm1 << 15));
    u32 z2 = vm2 ^ (vm2 >> 11);
    u32 nv1 = z1 ^ z2;
    well[well_i] = nv1;
    well[(well_i + 15) & 15] = (z0 ^ (z0 << 2)) ^ (z1 ^ (z1 << 18)) ^ (z2 << 28) ^ (nv1 ^ ((nv1 << 5) & 0xda442d24U));
    well_i = (well_i + 15) & 15;
    return well[well_i];
}

/* TinyMT32: Saito & Matsumoto (2011), tinymt32.c with the default parameters; seeded with (u32)SEED by
 * its own tinymt32_init */
static u32 tmt[4];
static const u32 TMT_MAT1 = 0x8f7011eeU, TMT_MAT2 = 0xfc78ff1fU, TMT_TMAT = 0x3793fdffU;
static void tmt_next_state(void)
{
    u32 x = (tmt[0] & 0x7fffffffU) ^ tmt[1] ^ tmt[2], y = tmt[3];
    x ^= x << 1;
    y ^= (y >> 1) ^ x;
    tmt[0] = tmt[1]; tmt[1] = tmt[2]; tmt[2] = x ^ (y << 10); tmt[3] = y;
    u32 mask = -(y & 1);
    tmt[1] ^= mask & TMT_MAT1;
    tmt[2] ^= mask & TMT_MAT2;
}
static void tinymt32_seed(u64 seed)
{
    tmt[0] = (u32)seed; tmt[1] = TMT_MAT1; tmt[2] = TMT_MAT2; tmt[3] = TMT_TMAT;
    for (u32 i = 1; i < 8; i++)
        tmt[i & 3] ^= i + 1812433253U * (tmt[(i - 1) & 3] ^ (tmt[(i - 1) & 3] >> 30));
    if ((tmt[0] & 0x7fffffffU) == 0 && tmt[1] == 0 && tmt[2] == 0 && tmt[3] == 0) {
        tmt[0] = 'T'; tmt[1] = 'I'; tmt[2] = 'N'; tmt[3] = 'Y';
    }
    for (int i = 0; i < 8; i++) tmt_next_state();
}
static u64 tinymt32_next(void)
{
    tmt_next_state();
    u32 t0 = tmt[3], t1 = tmt[0] + (tmt[2] >> 8);
    t0 ^= t1;
    return t0 ^ (-(t1 & 1) & TMT_TMAT);
}

/* xorshift64* (Vigna, ACM TOMS 42 (2016)), only the low 32 bits of each output, the weak half */
static u64 xs64s;
static void xorshift64star_seed(u64 seed) { (void)seed; do xs64s = splitmix64(); while (!xs64s); }
static u64 xorshift64star_lo32_next(void)
{
    xs64s ^= xs64s >> 12; xs64s ^= xs64s << 25; xs64s ^= xs64s >> 27;
    return (u32)(xs64s * 0x2545F4914F6CDD1DULL);
}

/* xorshift128+ (Vigna, J. Comput. Appl. Math. 315 (2017)), shifts 23/18/5 */
static u64 xs128p[2];
static void xorshift128plus_seed(u64 seed)
{
    (void)seed;
    do { xs128p[0] = splitmix64(); xs128p[1] = splitmix64(); } while (!(xs128p[0] | xs128p[1]));
}
static u64 xorshift128plus_next(void)
{
    u64 s1 = xs128p[0];
    const u64 s0 = xs128p[1], result = s0 + s1;
    xs128p[0] = s0;
    s1 ^= s1 << 23;
    xs128p[1] = s1 ^ s0 ^ (s1 >> 18) ^ (s0 >> 5);
    return result;
}

/* xoroshiro64* (Blackman & Vigna, ACM TOMS 47 (2021), xoroshiro64star.c) */
static u32 xr64s[2];
static void xoroshiro64star_seed(u64 seed)
{
    (void)seed;
    do { u64 v = splitmix64(); xr64s[0] = (u32)v; xr64s[1] = (u32)(v >> 32); } while (!(xr64s[0] | xr64s[1]));
}
static u64 xoroshiro64star_next(void)
{
    const u32 s0 = xr64s[0], result = s0 * 0x9E3779BBU;
    u32 s1 = xr64s[1] ^ s0;
    xr64s[0] = rotl32(s0, 26) ^ s1 ^ (s1 << 9);
    xr64s[1] = rotl32(s1, 13);
    return result;
}

/* xoshiro128+ (Blackman & Vigna, ACM TOMS 47 (2021), xoshiro128plus.c) */
static u32 xo128p[4];
static void xoshiro128plus_seed(u64 seed)
{
    u64 a = splitmix64(), b = splitmix64();
    (void)seed;
    xo128p[0] = (u32)a; xo128p[1] = (u32)(a >> 32); xo128p[2] = (u32)b; xo128p[3] = (u32)(b >> 32);
    if (!(a | b)) xo128p[0] = 1;
}
static u64 xoshiro128plus_next(void)
{
    const u32 result = xo128p[0] + xo128p[3], t = xo128p[1] << 9;
    xo128p[2] ^= xo128p[0]; xo128p[3] ^= xo128p[1]; xo128p[1] ^= xo128p[2]; xo128p[0] ^= xo128p[3];
    xo128p[2] ^= t;
    xo128p[3] = rotl32(xo128p[3], 11);
    return result;
}

/* lfsr88 (taus88): L'Ecuyer, "Maximally equidistributed combined Tausworthe generators", Math. Comp. 65
 * (1996); each component's seed must exceed 1, 7 and 15 */
static u32 t88[3];
static void lfsr88_seed(u64 seed)
{
    (void)seed;
    do t88[0] = (u32)splitmix64(); while (t88[0] < 2);
    do t88[1] = (u32)splitmix64(); while (t88[1] < 8);
    do t88[2] = (u32)splitmix64(); while (t88[2] < 16);
}
static u64 lfsr88_next(void)
{
    u32 b;
    b = ((t88[0] << 13) ^ t88[0]) >> 19; t88[0] = ((t88[0] & 4294967294U) << 12) ^ b;
    b = ((t88[1] << 2) ^ t88[1]) >> 25;  t88[1] = ((t88[1] & 4294967288U) << 4) ^ b;
    b = ((t88[2] << 3) ^ t88[2]) >> 11;  t88[2] = ((t88[2] & 4294967280U) << 17) ^ b;
    return t88[0] ^ t88[1] ^ t88[2];
}

/* MRG32k3a: L'Ecuyer, Oper. Res. 47 (1999), integer form; writes floor(u * 2^32) of u = z / (m1 + 1) */
#define MRG_M1 4294967087LL
#define MRG_M2 4294944443LL
static int64_t mrg_s1[3], mrg_s2[3];
static u64 mrg_z(void)  /* z in [1, m1] */
{
    int64_t p1 = (1403580LL * mrg_s1[1] - 810728LL * mrg_s1[0]) % MRG_M1;
    if (p1 < 0) p1 += MRG_M1;
    mrg_s1[0] = mrg_s1[1]; mrg_s1[1] = mrg_s1[2]; mrg_s1[2] = p1;
    int64_t p2 = (527612LL * mrg_s2[2] - 1370589LL * mrg_s2[0]) % MRG_M2;
    if (p2 < 0) p2 += MRG_M2;
    mrg_s2[0] = mrg_s2[1]; mrg_s2[1] = mrg_s2[2]; mrg_s2[2] = p2;
    return (u64)(p1 <= p2 ? p1 - p2 + MRG_M1 : p1 - p2);
}
static void mrg32k3a_seed(u64 seed)
{
    (void)seed;
    for (int j = 0; j < 3; j++) {
        mrg_s1[j] = (int64_t)(splitmix64() % MRG_M1);
        mrg_s2[j] = (int64_t)(splitmix64() % MRG_M2);
    }
    if (!(mrg_s1[0] | mrg_s1[1] | mrg_s1[2])) mrg_s1[0] = 12345;
    if (!(mrg_s2[0] | mrg_s2[1] | mrg_s2[2])) mrg_s2[0] = 12345;
}
static u64 mrg32k3a_next(void) { return (u32)(((u128)mrg_z() << 32) / (u64)(MRG_M1 + 1)); }

/* lehmer64: Lehmer's multiplicative LCG mod 2^128, multiplier 0xda942042e4dd58b5 (L'Ecuyer, Math. Comp. 68
 * (1999) tables; Lemire's lehmer64), writing the top 64 bits */
static u128 lehmer;
static void lehmer64_seed(u64 seed)
{
    u64 hi = splitmix64(), lo = splitmix64();
    (void)seed;
    lehmer = ((u128)hi << 64 | lo) | 1;
}
static u64 lehmer64_next(void) { lehmer *= 0xda942042e4dd58b5ULL; return (u64)(lehmer >> 64); }

/* multiplicative LCG mod 2^64, multiplier 0xd1342543de82ef95 (Steele & Vigna, Softw. Pract. Exp. 52 (2022)),
 * writing the top 32 bits */
static u64 mcg64;
static void mcg64_seed(u64 seed) { (void)seed; mcg64 = splitmix64() | 1; }
static u64 mcg64_hi32_next(void) { mcg64 *= 0xd1342543de82ef95ULL; return (u32)(mcg64 >> 32); }

/* additive lagged Fibonacci x_n = x_{n-s} + x_{n-r} mod 2^32 (Knuth, TAOCP vol. 2, 3.2.2; lags 55/24 of
 * Mitchell and Moore, 17/5 from Knuth's table) */
static u32 alf_x[55];
static int alf_r, alf_s, alf_i;
static void alf_seed(int r, int s)
{
    alf_r = r; alf_s = s; alf_i = 0;
    for (int j = 0; j < r; j++) alf_x[j] = (u32)splitmix64();
    alf_x[0] |= 1;  /* an odd word: the low bit's own recurrence needs a nonzero state */
}
static void alfib55_24_seed(u64 seed) { (void)seed; alf_seed(55, 24); }
static void alfib17_5_seed(u64 seed) { (void)seed; alf_seed(17, 5); }
static u64 alfib_next(void)
{
    int i = alf_i, ps = i - alf_s < 0 ? i - alf_s + alf_r : i - alf_s;
    u32 y = alf_x[ps] + alf_x[i];
    alf_x[i] = y;
    alf_i = i + 1 == alf_r ? 0 : i + 1;
    return y;
}

/* Marsaglia's multiply-with-carry, lag 1, base 2^32, a = 4294957665: the MWC part of Press et al.,
 * Numerical Recipes 3rd ed. (2007), 7.1, alone; carry in [1, a - 1] */
static u64 mwc1_x, mwc1_c;
static void mwc1_seed(u64 seed)
{
    (void)seed;
    mwc1_x = (u32)splitmix64();
    mwc1_c = splitmix64() % 4294957664ULL + 1;
}
static u64 mwc1_next(void)
{
    u64 t = 4294957665ULL * mwc1_x + mwc1_c;
    mwc1_x = t & 0xffffffffULL;
    mwc1_c = t >> 32;
    return mwc1_x;
}

/* CMWC4096: Marsaglia, "Random number generators", J. Mod. Appl. Stat. Methods 2 (2003); carry below a */
static u32 cmwc_q[4096], cmwc_c, cmwc_i;
static void cmwc4096_seed(u64 seed)
{
    (void)seed;
    for (int j = 0; j < 4096; j++) cmwc_q[j] = (u32)splitmix64();
    cmwc_c = (u32)(splitmix64() % 18781);
    cmwc_i = 4095;
}
static u64 cmwc4096_next(void)
{
    cmwc_i = (cmwc_i + 1) & 4095;
    u64 t = 18782ULL * cmwc_q[cmwc_i] + cmwc_c;
    cmwc_c = (u32)(t >> 32);
    u32 x = (u32)(t + cmwc_c);
    if (x < cmwc_c) { x++; cmwc_c++; }
    return cmwc_q[cmwc_i] = 0xfffffffeU - x;
}

/* middle-square Weyl sequence: Widynski, arXiv:1704.00358 (2017); the Weyl constant s odd (from SplitMix64,
 * not Widynski's seed table) */
static u64 ms_x, ms_w, ms_s;
static void msws_seed(u64 seed) { (void)seed; ms_x = 0; ms_w = 0; ms_s = splitmix64() | 1; }
static u64 msws_next(void)
{
    ms_x *= ms_x;
    ms_x += (ms_w += ms_s);
    ms_x = (ms_x >> 32) | (ms_x << 32);
    return (u32)ms_x;
}

/* two controls of no published source: a Weyl sequence (SplitMix64's increment) under a mixer too weak
 * (x ^ x >> 32), and under SplitMix64's first multiply round only */
static u64 weyl;
static void weyl_seed(u64 seed) { (void)seed; weyl = splitmix64(); }
static u64 weyl_xorshift32_next(void) { weyl += 0x9E3779B97F4A7C15ULL; return weyl ^ (weyl >> 32); }
static u64 weyl_splitmix1_next(void)
{
    weyl += 0x9E3779B97F4A7C15ULL;
    u64 z = (weyl ^ (weyl >> 30)) * 0xBF58476D1CE4E5B9ULL;
    return z ^ (z >> 31);
}

/* xorshift32 (13, 17, 5) plus a Weyl sequence d += 362437: Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8
 * (2003), the xorwow construction on a one-word xorshift */
static u32 xw_y, xw_d;
static void xorshift32_weyl_seed(u64 seed)
{
    (void)seed;
    do xw_y = (u32)splitmix64(); while (!xw_y);
    xw_d = (u32)splitmix64();
}
static u64 xorshift32_weyl_next(void)
{
    xw_y ^= xw_y << 13; xw_y ^= xw_y >> 17; xw_y ^= xw_y << 5;
    return xw_y + (xw_d += 362437U);
}

/* xorwow: Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8 (2003) */
static u32 xwx[5], xwd;
static void xorwow_seed(u64 seed)
{
    (void)seed;
    for (int j = 0; j < 5; j++) xwx[j] = (u32)splitmix64();
    if (!(xwx[0] | xwx[1] | xwx[2] | xwx[3] | xwx[4])) xwx[0] = 1;
    xwd = (u32)splitmix64();
}
static u64 xorwow_next(void)
{
    u32 t = xwx[0] ^ (xwx[0] >> 2);
    xwx[0] = xwx[1]; xwx[1] = xwx[2]; xwx[2] = xwx[3]; xwx[3] = xwx[4];
    xwx[4] = (xwx[4] ^ (xwx[4] << 4)) ^ (t ^ (t << 1));
    return (xwd += 362437U) + xwx[4];
}

/* java.util.Random.nextInt() (Java SE API specification; Knuth's 48-bit LCG), seeded as new Random(SEED) */
static u64 jr;
static void java_random_seed(u64 seed) { jr = (seed ^ 0x5DEECE66DULL) & ((1ULL << 48) - 1); }
static u64 java_random_next(void)
{
    jr = (jr * 0x5DEECE66DULL + 0xB) & ((1ULL << 48) - 1);
    return (u32)(jr >> 16);
}

/* PCG XSH RR 32/16: O'Neill, HMC-CS-2014-0905 (2014), pcg_variants.h, seeded as pcg32_srandom_r */
static u32 pcg16_s, pcg16_inc;
static void pcg16_xshrr_seed(u64 seed)
{
    (void)seed;
    pcg16_s = 0;
    pcg16_inc = ((u32)splitmix64() << 1) | 1;
    pcg16_s = pcg16_s * 747796405U + pcg16_inc;
    pcg16_s += (u32)splitmix64();
    pcg16_s = pcg16_s * 747796405U + pcg16_inc;
}
static u64 pcg16_xshrr_next(void)
{
    u32 old = pcg16_s;
    pcg16_s = old * 747796405U + pcg16_inc;
    uint16_t x = (uint16_t)(((old >> 10u) ^ old) >> 12u);
    unsigned rot = old >> 28u;
    return (uint16_t)((x >> rot) | (x << ((16 - rot) & 15)));
}

/* ---- the families: bits is the width written per value ---- */
static const struct family {
    const char *name;
    int bits;
    void (*seed)(u64);
    u64 (*next)(void);
} families[] = {
    /* the values alone, 3 or 6 bytes each: in 32- or 64-bit words their always-zero top bits fail any test at once */
    {"ranlux24_base", 24, ranlux24_seed, swc_next},
    {"ranlux48_base", 48, ranlux48_seed, swc_next},
    {"swb43_22", 32, swb43_22_seed, swb43_22_next},
    {"swb37_24", 32, swb37_24_seed, swc_next},
    {"swb99", 32, swb99_seed, swb99_next},
    {"well512a", 32, well512a_seed, well512a_next},
    {"tinymt32", 32, tinymt32_seed, tinymt32_next},
    {"xorshift64star_lo32", 32, xorshift64star_seed, xorshift64star_lo32_next},
    {"xorshift128plus", 64, xorshift128plus_seed, xorshift128plus_next},
    {"xoroshiro64star", 32, xoroshiro64star_seed, xoroshiro64star_next},
    {"xoshiro128plus", 32, xoshiro128plus_seed, xoshiro128plus_next},
    {"lfsr88", 32, lfsr88_seed, lfsr88_next},
    {"mrg32k3a", 32, mrg32k3a_seed, mrg32k3a_next},
    {"lehmer64", 64, lehmer64_seed, lehmer64_next},
    {"mcg64_hi32", 32, mcg64_seed, mcg64_hi32_next},
    {"alfib55_24", 32, alfib55_24_seed, alfib_next},
    {"alfib17_5", 32, alfib17_5_seed, alfib_next},
    {"mwc1", 32, mwc1_seed, mwc1_next},
    {"cmwc4096", 32, cmwc4096_seed, cmwc4096_next},
    {"kiss99", 32, kiss99_seed, kiss99_next},
    {"msws", 32, msws_seed, msws_next},
    {"weyl_xorshift32", 64, weyl_seed, weyl_xorshift32_next},
    {"xorshift32_weyl", 32, xorshift32_weyl_seed, xorshift32_weyl_next},
    {"xorwow", 32, xorwow_seed, xorwow_next},
    {"java_random", 32, java_random_seed, java_random_next},
    {"mwc99", 32, mwc99_seed, mwc99_next},
    {"pcg16_xshrr", 16, pcg16_xshrr_seed, pcg16_xshrr_next},
    {"weyl_splitmix1", 64, weyl_seed, weyl_splitmix1_next},
};
#define N_FAMILIES ((int)(sizeof families / sizeof families[0]))

/* ---- known answers: published outputs, or a reference implementation's ---- */
static int failures;
static void check_u64(const char *what, const u64 *got, const u64 *want, int n)
{
    int ok = 1;
    printf("%s:", what);
    for (int i = 0; i < n; i++) { printf(" %llu", (unsigned long long)got[i]); ok &= got[i] == want[i]; }
    if (!ok) {
        printf(" (expected");
        for (int i = 0; i < n; i++) printf(" %llu", (unsigned long long)want[i]);
        printf(")");
    }
    printf(" %s\n", ok ? "OK" : "WRONG");
    failures += !ok;
}
static void check_nth(const char *what, u64 (*next)(void), long nth, u64 want)
{
    u64 v = 0;
    for (long i = 0; i < nth; i++) v = next();
    check_u64(what, &v, &want, 1);
}
static void check_first(const char *what, u64 (*next)(void), const u64 *want, int n)
{
    u64 got[8];
    for (int i = 0; i < n; i++) got[i] = next();
    check_u64(what, got, want, n);
}

static int check(void)
{
    /* ISO C++ [rand.predef]: the 10000th value of a default-constructed engine */
    swc_std_seed(24, 10, 24, 0);
    check_nth("ranlux24_base() 10000th ([rand.predef])", swc_next, 10000, 7937952);
    swc_std_seed(48, 5, 12, 0);
    check_nth("ranlux48_base() 10000th ([rand.predef])", swc_next, 10000, 61839128582725ULL);
    /* the standard's seeding from a seed, as libstdc++ gives it */
    swc_std_seed(24, 10, 24, 1);
    check_first("ranlux24_base(1) first 3 (libstdc++)", swc_next, (const u64[]){8871692, 3740959, 5241959}, 3);
    swc_std_seed(32, 24, 37, 1);
    check_nth("subtract_with_carry_engine<uint32_t,32,24,37>(1) 10000th (libstdc++)", swc_next, 10000, 2302802139ULL);

    /* L'Ecuyer's RngStreams: from seeds 12345 x 6 the first uniforms are 0.12701112204657714, 0.3185275653967945 */
    for (int j = 0; j < 3; j++) mrg_s1[j] = mrg_s2[j] = 12345;
    {
        const double norm = 2.328306549295727688e-10, want[2] = {0.12701112204657714, 0.3185275653967945};
        double u[2];
        int ok = 1;
        for (int i = 0; i < 2; i++) {
            u[i] = (double)mrg_z() * norm;
            ok &= u[i] - want[i] < 1e-16 && want[i] - u[i] < 1e-16;
        }
        printf("mrg32k3a seeds 12345 x 6, first 2 uniforms (RngStreams): %.17g %.17g %s\n", u[0], u[1], ok ? "OK" : "WRONG");
        failures += !ok;
    }

    /* TinyMT's check32.out.txt */
    tinymt32_seed(1);
    check_first("tinymt32 seed 1 first 5 (check32.out.txt)", tinymt32_next,
                (const u64[]){2545341989U, 981918433U, 3715302833U, 2387538352U, 3591001365U}, 5);

    /* the state and value of an independent Java implementation's unit test (js42721/fastrandom) */
    {
        static const int32_t state[16] = {123456789, -59172568, -423908753, -928090592, 68836822, 1269219612,
                                          -77824293, 1060662926, -480941754, -1907295641, -1075035823, 292129001,
                                          -146556871, 1240875097, -120842159, 551407414};
        for (int j = 0; j < 16; j++) well[j] = (u32)state[j];
        well_i = 0;
        check_nth("well512a test state, 11th (fastrandom)", well512a_next, 11, 108509171);
    }

    /* values of Vigna's reference C, as the rand_xoshiro crate and others test them */
    xo128p[0] = 0; xo128p[1] = 1; xo128p[2] = 2; xo128p[3] = 3;
    check_first("xoshiro128+ state {0,1,2,3} first 5 (reference C)", xoshiro128plus_next,
                (const u64[]){3, 4098, 8398849, 22028806, 2160079882U}, 5);
    xr64s[0] = 1; xr64s[1] = 2;
    check_first("xoroshiro64* state {1,2} first 4 (reference C)", xoroshiro64star_next,
                (const u64[]){2654435771U, 327208753, 4063491769U, 4259754937U}, 4);

    /* the check value of taus88 implementations: seeds 12345 x 3, the 1,000,000th output */
    t88[0] = t88[1] = t88[2] = 12345;
    check_nth("lfsr88 seeds 12345 x 3, 1000000th", lfsr88_next, 1000000, 3639585634U);

    /* Marsaglia's 1999 post: settable(12345,65435,34221,12345,...) fills the table with KISS, then
     * 10^6 calls of each macro in turn; each line's value follows from all before it */
    k_z = 12345; k_w = 65435; k_jsr = 34221; k_jcong = 12345;
    for (int i = 0; i < 256; i++) m99_t[i] = kiss();
    m99_c = 0; m99_x = m99_y = m99_bro = 0;
    check_nth("Marsaglia 1999 LFIB4 1000000th", lfib4_next, 1000000, 1064612766U);
    check_nth("Marsaglia 1999 SWB 1000000th", swb99_next, 1000000, 627749721U);
    check_nth("Marsaglia 1999 KISS 1000000th", kiss99_next, 1000000, 1372460312U);
    check_nth("Marsaglia 1999 CONG 1000000th", cong_next, 1000000, 1529210297U);
    check_nth("Marsaglia 1999 SHR3 1000000th", shr3_next, 1000000, 2642725982U);
    check_nth("Marsaglia 1999 MWC 1000000th", mwc99_next, 1000000, 904977562U);

    /* new java.util.Random(0).nextInt(), three times: -1155484576, -723955400, 1033096058 */
    java_random_seed(0);
    check_first("java.util.Random(0) nextInt() first 3", java_random_next,
                (const u64[]){(u32)-1155484576, (u32)-723955400, 1033096058}, 3);
    return failures ? 1 : 0;
}
/* write values little-endian, bits / 8 bytes each, in 64 KiB blocks until the reader goes away */
static int stream(const struct family *f)
{
    static unsigned char buf[BLOCK];
    const int width = f->bits / 8;
    u64 v = 0;
    int left = 0;  /* bytes of v not yet written: a 3- or 6-byte value may straddle two blocks */
    for (;;) {
        for (size_t i = 0; i < BLOCK; i++) {
            if (left == 0) { v = f->next(); left = width; }
            buf[i] = (unsigned char)v;
            v >>= 8;
            left--;
        }
        if (fwrite(buf, 1, BLOCK, stdout) != BLOCK) {
            if (errno == EPIPE) return 0;
            perror("families: write");
            return 1;
        }
    }
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);  /* a closed pipe is a failed write (EPIPE): the reader has what it wanted */
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (int g = 0; g < N_FAMILIES; g++) printf("%s %d\n", families[g].name, families[g].bits);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "check")) return check();
    if (argc != 3) {
        fprintf(stderr, "usage: %s NAME SEED | list | check\n", argv[0]);
        return 2;
    }
    const struct family *f = NULL;
    for (int g = 0; g < N_FAMILIES; g++)
        if (!strcmp(argv[1], families[g].name)) f = &families[g];
    if (f == NULL) {
        fprintf(stderr, "%s: unknown generator %s (%s list)\n", argv[0], argv[1], argv[0]);
        return 2;
    }
    char *end;
    errno = 0;
    u64 seed = strtoull(argv[2], &end, 0);
    if (errno || end == argv[2] || *end || argv[2][0] == '-') {
        fprintf(stderr, "%s: SEED %s: not a whole number from 0 to 2^64 - 1\n", argv[0], argv[2]);
        return 2;
    }
    sm_state = seed;
    f->seed(seed);
    return stream(f);
}
