/*
 * R's uniform generators as runif() gives them (randqa.sources.runtimes):
 * unif_rand() under RNGkind "Wichmann-Hill", "Marsaglia-Multicarry",
 * "Super-Duper", "Knuth-TAOCP-2002" and "L'Ecuyer-CMRG", after
 * set.seed(seed, kind), and "Mersenne-Twister" (R's default), whose runif
 * values are MT19937's 32-bit outputs over 2^32 from the state set.seed
 * fills.
 *
 * Written from R 4.2's src/main/RNG.c: RNG_Init (50 rounds of
 * seed = 69069 seed + 1, then one more per state word; Knuth's ran_start
 * for TAOCP-2002; L'Ecuyer's words redrawn until below m2), FixupSeeds,
 * unif_rand and fixup (which maps 0 and 1 inside (0, 1)).  The state words
 * are R's Int32, an unsigned int.
 *
 * The stream: the 32 bits floor(u * 2^32) of each runif value u, as 4
 * little-endian bytes (R's generators give at most 32 bits), except for
 * Knuth-TAOCP-2002, whose values are 30-bit integers over 2^30: its 30 bits
 * floor(u * 2^30), eight values packed into 30 bytes (pack8).  The doubles
 * are computed with the same IEEE operations in the same order as R, so
 * the integers are R's bit for bit (the module is built without
 * floating-point contraction).
 */
#include "../_module.h"
#include <stdint.h>
#include <string.h>

#include "_mt19937.h"

#define KT_KK 100     /* the long lag */
#define KT_LL 37      /* the short lag */
#define KT_MM (1u << 30)
#define KT_TT 70
#define KT_QUALITY 1009

typedef struct { uint32_t i[3]; } wichmann_hill_state;
typedef struct { uint32_t i[2]; } two_word_state;      /* Marsaglia-Multicarry, Super-Duper */
typedef struct { uint32_t ran_x[KT_KK]; int pos; } knuth_taocp_state;
typedef struct { uint32_t i[6]; } lecuyer_state;

typedef union {
    mt_state mt;
    wichmann_hill_state wh;
    two_word_state two;
    knuth_taocp_state kt;
    lecuyer_state le;
} generator_state;

#define GENERATOR_TYPE_NAME "randqa.sources._runtime_generators_r.Generator"
#include "_generator_object.h"
#include "_runtime_module.h"

#define I2_32M1 2.328306437080797e-10 /* = 1/(2^32 - 1) */
#define KT_SCALE 9.31322574615479e-10 /* R's literal for 2^-30 (two ulps above it) */

/* R's fixup(): never 0 or 1 */
static inline double
fixup(double x)
{
    if (x <= 0.0)
        return 0.5 * I2_32M1;
    if ((1.0 - x) <= 0.0)
        return 1.0 - 0.5 * I2_32M1;
    return x;
}

/* floor(u * 2^bits) of a u in (0, 1) */
static inline uint64_t
top_bits(double u, int bits)
{
    return (uint64_t)(u * (double)(1ULL << bits));
}

/* ------------------------------------------------------------------ */
/* set.seed(seed): RNG_Init's initial scrambling */

static inline uint32_t lcg69069(uint32_t s) { return 69069u * s + 1u; }

static uint32_t
scrambled(uint32_t seed)
{
    for (int j = 0; j < 50; j++)
        seed = lcg69069(seed);
    return seed;
}

/* the n state words RNG_Init draws for Wichmann-Hill, Marsaglia-Multicarry and Super-Duper */
static void
draw_words(uint32_t seed, uint32_t *words, int n)
{
    seed = scrambled(seed);
    for (int j = 0; j < n; j++)
        words[j] = seed = lcg69069(seed);
}

/* ------------------------------------------------------------------ */
/* Mersenne-Twister: MT19937 whose 624 words are the 2nd to 625th words
 * RNG_Init draws (the 1st is the position, which FixupSeeds sets to 624) */

static void
mersenne_twister_init(mt_state *m, uint32_t seed)
{
    uint32_t words[MT_N + 1];
    draw_words(seed, words, MT_N + 1);
    memcpy(m->mt, words + 1, sizeof m->mt);
    m->idx = MT_N;
}

static inline uint64_t mersenne_twister_next(mt_state *m) { return mt_next(m); }

/* ------------------------------------------------------------------ */
/* Wichmann-Hill (AS 183): three Lehmer generators, the fractional part of their sum */

static inline double
wichmann_hill_next_u(wichmann_hill_state *w)
{
    w->i[0] = w->i[0] * 171 % 30269;
    w->i[1] = w->i[1] * 172 % 30307;
    w->i[2] = w->i[2] * 170 % 30323;
    double value = w->i[0] / 30269.0 + w->i[1] / 30307.0 + w->i[2] / 30323.0;
    return fixup(value - (int)value);
}

static void
wichmann_hill_init(wichmann_hill_state *w, uint32_t seed)
{
    static const uint32_t moduli[3] = {30269, 30307, 30323};
    draw_words(seed, w->i, 3);
    for (int j = 0; j < 3; j++) {
        w->i[j] %= moduli[j];
        if (w->i[j] == 0)
            w->i[j] = 1;
    }
}

/* ------------------------------------------------------------------ */
/* Marsaglia-Multicarry: two 16-bit multiply-with-carry generators */

static inline double
multicarry_next_u(two_word_state *m)
{
    m->i[0] = 36969 * (m->i[0] & 0177777) + (m->i[0] >> 16);
    m->i[1] = 18000 * (m->i[1] & 0177777) + (m->i[1] >> 16);
    return fixup(((m->i[0] << 16) ^ (m->i[1] & 0177777)) * I2_32M1);
}

static void
multicarry_init(two_word_state *m, uint32_t seed)
{
    draw_words(seed, m->i, 2);
    for (int j = 0; j < 2; j++)
        if (m->i[j] == 0)
            m->i[j] = 1;
}

/* ------------------------------------------------------------------ */
/* Super-Duper (Reeds et al. 1984, unsigned): a Tausworthe shift register
 * xor the 69069 congruential generator */

static inline double
super_duper_next_u(two_word_state *m)
{
    m->i[0] ^= (m->i[0] >> 15) & 0377777;
    m->i[0] ^= m->i[0] << 17;
    m->i[1] *= 69069;
    return fixup((m->i[0] ^ m->i[1]) * I2_32M1);
}

static void
super_duper_init(two_word_state *m, uint32_t seed)
{
    draw_words(seed, m->i, 2);
    if (m->i[0] == 0)
        m->i[0] = 1;
    m->i[1] |= 1; /* the congruential word must be odd */
}

/* ------------------------------------------------------------------ */
/* Knuth-TAOCP-2002: Knuth's ran_array (TAOCP vol. 2, 3.6, 9th printing),
 * lags 100 and 37 mod 2^30.  R calls ran_array(buf, 1009) once per 100
 * values and returns the 100 words of ran_x it leaves, scaled by 2^-30. */

static inline uint32_t kt_mod_diff(uint32_t x, uint32_t y) { return (x - y) & (KT_MM - 1); }

static void
kt_ran_array(uint32_t *ran_x, uint32_t *aa, int n)
{
    int i, j;
    for (j = 0; j < KT_KK; j++)
        aa[j] = ran_x[j];
    for (; j < n; j++)
        aa[j] = kt_mod_diff(aa[j - KT_KK], aa[j - KT_LL]);
    for (i = 0; i < KT_LL; i++, j++)
        ran_x[i] = kt_mod_diff(aa[j - KT_KK], aa[j - KT_LL]);
    for (; i < KT_KK; i++, j++)
        ran_x[i] = kt_mod_diff(aa[j - KT_KK], ran_x[i - KT_LL]);
}

/* Knuth's ran_start(seed), 2002 version */
static void
kt_ran_start(uint32_t *ran_x, uint32_t seed)
{
    uint32_t x[KT_KK + KT_KK - 1];
    uint32_t ss = (seed + 2) & (KT_MM - 2);
    int t, j;
    for (j = 0; j < KT_KK; j++) {
        x[j] = ss; /* bootstrap the buffer */
        ss <<= 1;
        if (ss >= KT_MM)
            ss -= KT_MM - 2; /* cyclic shift 29 bits */
    }
    x[1]++; /* make x[1] (and only x[1]) odd */
    for (ss = seed & (KT_MM - 1), t = KT_TT - 1; t;) {
        for (j = KT_KK - 1; j > 0; j--) /* "square" */
            x[j + j] = x[j], x[j + j - 1] = 0;
        for (j = KT_KK + KT_KK - 2; j >= KT_KK; j--)
            x[j - (KT_KK - KT_LL)] = kt_mod_diff(x[j - (KT_KK - KT_LL)], x[j]), x[j - KT_KK] = kt_mod_diff(x[j - KT_KK], x[j]);
        if (ss & 1) { /* "multiply by z" */
            for (j = KT_KK; j > 0; j--)
                x[j] = x[j - 1];
            x[0] = x[KT_KK]; /* shift the buffer cyclically */
            x[KT_LL] = kt_mod_diff(x[KT_LL], x[KT_KK]);
        }
        if (ss)
            ss >>= 1;
        else
            t--;
    }
    for (j = 0; j < KT_LL; j++)
        ran_x[j + KT_KK - KT_LL] = x[j];
    for (; j < KT_KK; j++)
        ran_x[j - KT_LL] = x[j];
    for (j = 0; j < 10; j++)
        kt_ran_array(ran_x, x, KT_KK + KT_KK - 1); /* warm things up */
}

static inline uint64_t
knuth_taocp_next(knuth_taocp_state *s)
{
    if (s->pos >= KT_KK) {
        uint32_t buf[KT_QUALITY];
        kt_ran_array(s->ran_x, buf, KT_QUALITY);
        s->pos = 0;
    }
    return top_bits(fixup(s->ran_x[s->pos++] * KT_SCALE), 30);
}

static void
knuth_taocp_init(knuth_taocp_state *s, uint32_t seed)
{
    kt_ran_start(s->ran_x, scrambled(seed) % 1073741821u);
    s->pos = KT_KK;
}

/* ------------------------------------------------------------------ */
/* L'Ecuyer-CMRG: MRG32k3a (L'Ecuyer 1999) as R computes it, in 64-bit
 * integers; no fixup (the value is in [normc, m1 normc]) */

#define LE_M1 4294967087LL
#define LE_M2 4294944443LL
#define LE_NORMC 2.328306549295727688e-10

/* One of MRG32k3a's two recurrences: p = sum mod m (R reduces through an
 * int quotient), shifted into the component's three words x. */
static inline int64_t
lecuyer_component(uint32_t *x, int64_t sum, int64_t m)
{
    int64_t p = sum - (int64_t)(int)(sum / m) * m;
    if (p < 0)
        p += m;
    x[0] = x[1];
    x[1] = x[2];
    x[2] = (uint32_t)p;
    return p;
}

static inline double
lecuyer_next_u(lecuyer_state *s)
{
    int64_t p1 = lecuyer_component(s->i, 1403580LL * s->i[1] - 810728LL * s->i[0], LE_M1);
    int64_t p2 = lecuyer_component(s->i + 3, 527612LL * s->i[5] - 1370589LL * s->i[3], LE_M2);
    return (double)((p1 > p2) ? (p1 - p2) : (p1 - p2 + LE_M1)) * LE_NORMC;
}

static void
lecuyer_init(lecuyer_state *s, uint32_t seed)
{
    seed = scrambled(seed);
    for (int j = 0; j < 6; j++) {
        seed = lcg69069(seed);
        while (seed >= LE_M2)
            seed = lcg69069(seed);
        s->i[j] = seed;
    }
}

/* the 32 bits of the next runif value of a generator whose unif_rand() is NAME##_u */
#define RUNIF_32(NAME, STATE) \
    static inline uint64_t NAME(STATE *s) { return top_bits(NAME##_u(s), 32); }

RUNIF_32(wichmann_hill_next, wichmann_hill_state)
RUNIF_32(multicarry_next, two_word_state)
RUNIF_32(super_duper_next, two_word_state)
RUNIF_32(lecuyer_next, lecuyer_state)

PACKED_FILL(mersenne_twister_fill, mt, mersenne_twister_next, 32)
PACKED_FILL(wichmann_hill_fill, wh, wichmann_hill_next, 32)
PACKED_FILL(multicarry_fill, two, multicarry_next, 32)
PACKED_FILL(super_duper_fill, two, super_duper_next, 32)
PACKED_FILL(lecuyer_fill, le, lecuyer_next, 32)
PACKED_FILL(knuth_taocp_fill, kt, knuth_taocp_next, 30)

/* ------------------------------------------------------------------ */
/* Constructors: the seed is set.seed's integer as R's Int32 (unsigned) */

SEEDED_CONSTRUCTOR(mersenne_twister, 32, mersenne_twister_fill, 32, "R Mersenne-Twister",
                   mersenne_twister_init(&g->st.mt, (uint32_t)seed))
SEEDED_CONSTRUCTOR(wichmann_hill, 32, wichmann_hill_fill, 32, "R Wichmann-Hill", wichmann_hill_init(&g->st.wh, (uint32_t)seed))
SEEDED_CONSTRUCTOR(marsaglia_multicarry, 32, multicarry_fill, 32, "R Marsaglia-Multicarry",
                   multicarry_init(&g->st.two, (uint32_t)seed))
SEEDED_CONSTRUCTOR(super_duper, 32, super_duper_fill, 32, "R Super-Duper", super_duper_init(&g->st.two, (uint32_t)seed))
SEEDED_CONSTRUCTOR(knuth_taocp_2002, 32, knuth_taocp_fill, 30, "R Knuth-TAOCP-2002",
                   knuth_taocp_init(&g->st.kt, (uint32_t)seed))
SEEDED_CONSTRUCTOR(lecuyer_cmrg, 32, lecuyer_fill, 32, "R L'Ecuyer-CMRG", lecuyer_init(&g->st.le, (uint32_t)seed))

RUNTIME_GENERATOR_MODULE(_runtime_generators_r,
                         "R's runif() generators after set.seed: the 32 (Knuth-TAOCP-2002: 30) bits of each value.",
                         GENERATOR_FUNCTION(mersenne_twister,
                                            "mersenne_twister(seed): runif after set.seed(seed, kind = \"Mersenne-Twister\")."),
                         GENERATOR_FUNCTION(wichmann_hill,
                                            "wichmann_hill(seed): runif after set.seed(seed, kind = \"Wichmann-Hill\")."),
                         GENERATOR_FUNCTION(marsaglia_multicarry,
                                            "marsaglia_multicarry(seed): runif after set.seed(seed, kind = \"Marsaglia-Multicarry\")."),
                         GENERATOR_FUNCTION(super_duper,
                                            "super_duper(seed): runif after set.seed(seed, kind = \"Super-Duper\")."),
                         GENERATOR_FUNCTION(knuth_taocp_2002,
                                            "knuth_taocp_2002(seed): runif after set.seed(seed, kind = \"Knuth-TAOCP-2002\")."),
                         GENERATOR_FUNCTION(lecuyer_cmrg,
                                            "lecuyer_cmrg(seed): runif after set.seed(seed, kind = \"L'Ecuyer-CMRG\")."))
