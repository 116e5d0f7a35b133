/*
 * RC4 / ARC4 keystream and its two keyings: RC4's own key schedule, and
 * libdnet's rand.c (rand_set: identity state, the key mixed in twice by
 * rand_addrandom, which continues from the current (i, j) over all 256
 * positions and leaves j = i).  Shared by the generator backends
 * (_generators.c) and nmap's benchmark harness (randqa/speed/_as_called.c),
 * so both run the same code.  Header-only: every function is static inline.
 * Include after _module.h (RESTRICT).
 */
#ifndef RANDQA_RC4_H
#define RANDQA_RC4_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct { uint8_t s[256]; uint8_t i, j; } rc4_state;

/* The next n keystream bytes.  The permutation is copied to the stack so
 * the compiler knows `out` cannot alias it. */
static inline void
rc4_keystream(rc4_state *r, uint8_t *RESTRICT out, size_t n)
{
    uint8_t s[256];
    memcpy(s, r->s, 256);
    uint8_t i = r->i, j = r->j;
    for (size_t k = 0; k < n; k++) {
        i = (uint8_t)(i + 1);
        uint8_t si = s[i];
        j = (uint8_t)(j + si);
        uint8_t sj = s[j];
        s[i] = sj;
        s[j] = si;
        out[k] = s[(uint8_t)(si + sj)];
    }
    memcpy(r->s, s, 256);
    r->i = i;
    r->j = j;
}

/* The identity permutation with i = j = 0, where both keyings start */
static inline void
rc4_identity(rc4_state *r)
{
    for (int k = 0; k < 256; k++)
        r->s[k] = (uint8_t)k;
    r->i = r->j = 0;
}

/* RC4's key schedule (KSA); len is 1..256 */
static inline void
rc4_key(rc4_state *r, const uint8_t *key, size_t len)
{
    rc4_identity(r);
    uint8_t j = 0;
    for (int k = 0; k < 256; k++) {
        uint8_t t = r->s[k];
        j = (uint8_t)(j + t + key[k % len]);
        r->s[k] = r->s[j];
        r->s[j] = t;
    }
}

/* libdnet's key mixing step: continue from the current (i, j) rather than
 * from 0, over all 256 positions, and leave j equal to i afterwards. */
static inline void
dnet_addrandom(rc4_state *r, const uint8_t *key, size_t len)
{
    uint8_t i = (uint8_t)(r->i - 1), j = r->j;
    for (int k = 0; k < 256; k++) {
        i = (uint8_t)(i + 1);
        uint8_t si = r->s[i];
        j = (uint8_t)(j + si + key[k % len]);
        r->s[i] = r->s[j];
        r->s[j] = si;
    }
    r->i = i;
    r->j = i;
}

/* rand_set(): identity permutation, then the key mixed in twice */
static inline void
dnet_rand_set(rc4_state *r, const uint8_t *key, size_t len)
{
    rc4_identity(r);
    dnet_addrandom(r, key, len);
    dnet_addrandom(r, key, len);
}

#endif /* RANDQA_RC4_H */
