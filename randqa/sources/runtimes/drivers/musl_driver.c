/*
 * randqa's driver for musl's rand() and random(), built with musl-gcc:
 *
 *   musl_driver stream BACKEND SEED        seeds with srand/srandom(SEED) and
 *                                          writes the 31-bit values to stdout,
 *                                          eight packed into 31 bytes (the first
 *                                          value in the lowest bits), until the
 *                                          reader closes the pipe
 *   musl_driver time BACKEND SEED CALLS    CALLS calls in a plain loop; prints
 *                                          the seconds they took
 *
 * BACKEND is musl-rand (rand()) or musl-random (random()).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BITS 31

static int usage(void)
{
    fputs("usage: musl_driver stream BACKEND SEED | time BACKEND SEED CALLS\n", stderr);
    return 2;
}

static uint32_t call(int use_random) { return use_random ? (uint32_t)random() : (uint32_t)rand(); }

int main(int argc, char **argv)
{
    if (argc < 4)
        return usage();
    int use_random;
    if (!strcmp(argv[2], "musl-rand"))
        use_random = 0;
    else if (!strcmp(argv[2], "musl-random"))
        use_random = 1;
    else
        return usage();
    unsigned seed = (unsigned)strtoul(argv[3], NULL, 10);
    if (use_random)
        srandom(seed);
    else
        srand(seed);

    if (!strcmp(argv[1], "stream") && argc == 4) {
        static unsigned char buf[BITS * 2048];
        for (;;) {
            unsigned char *out = buf;
            for (int w = 0; w < 2048; w++) {
                uint64_t acc = 0;
                unsigned have = 0;
                for (int k = 0; k < 8; k++) {
                    acc |= (uint64_t)call(use_random) << have;
                    have += BITS;
                    while (have >= 8) {
                        *out++ = (unsigned char)acc;
                        acc >>= 8;
                        have -= 8;
                    }
                }
            }
            if (fwrite(buf, 1, sizeof buf, stdout) != sizeof buf)
                return 0;
        }
    }
    if (!strcmp(argv[1], "time") && argc == 5) {
        unsigned long long calls = strtoull(argv[4], NULL, 10), sum = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (unsigned long long k = 0; k < calls; k++)
            sum += call(use_random);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("%.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        volatile unsigned long long sink = sum; /* keeps the calls observable */
        (void)sink;
        return 0;
    }
    return usage();
}
