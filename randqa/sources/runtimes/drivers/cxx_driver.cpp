// randqa's driver for libstdc++'s <random> engines, built with g++:
//
//   cxx_driver stream BACKEND SEED        constructs the engine with SEED and
//                                         writes its b-bit values to stdout,
//                                         eight packed into b bytes (the first
//                                         value in the lowest bits), until the
//                                         reader closes the pipe
//   cxx_driver time BACKEND SEED CALLS    CALLS calls of the engine in a plain
//                                         loop; prints the seconds they took
//
// BACKEND: cxx-minstd-rand0, cxx-minstd-rand, cxx-knuth-b (b = 31),
// cxx-mt19937-64 (64), cxx-ranlux24 (24), cxx-ranlux48 (48).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

template <class Engine>
static int stream(Engine engine, unsigned bits)
{
    static unsigned char buf[64 * 2048];
    const size_t size = (size_t)bits * 2048;
    for (;;) {
        unsigned char *out = buf;
        for (int w = 0; w < 2048; w++) {
            if (bits == 64) {
                for (int k = 0; k < 8; k++) {
                    uint64_t v = engine();
                    for (int b = 0; b < 8; b++)
                        *out++ = (unsigned char)(v >> (8 * b));
                }
                continue;
            }
            uint64_t acc = 0;
            unsigned have = 0;
            for (int k = 0; k < 8; k++) {
                acc |= (uint64_t)engine() << have;
                have += bits;
                while (have >= 8) {
                    *out++ = (unsigned char)acc;
                    acc >>= 8;
                    have -= 8;
                }
            }
        }
        if (std::fwrite(buf, 1, size, stdout) != size)
            return 0;
    }
}

template <class Engine>
static int time(Engine engine, unsigned long long calls)
{
    uint64_t sum = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (unsigned long long k = 0; k < calls; k++)
        sum += engine();
    auto t1 = std::chrono::steady_clock::now();
    volatile uint64_t sink = sum;  // keeps the calls observable
    (void)sink;
    std::printf("%.9f\n", std::chrono::duration<double>(t1 - t0).count());
    return 0;
}

template <class Engine>
static int run(int argc, char **argv, unsigned bits)
{
    Engine engine(std::strtoull(argv[3], nullptr, 10));
    if (!std::strcmp(argv[1], "stream") && argc == 4)
        return stream(engine, bits);
    if (!std::strcmp(argv[1], "time") && argc == 5)
        return time(engine, std::strtoull(argv[4], nullptr, 10));
    std::fputs("usage: cxx_driver stream BACKEND SEED | time BACKEND SEED CALLS\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc >= 4) {
        const char *b = argv[2];
        if (!std::strcmp(b, "cxx-minstd-rand0")) return run<std::minstd_rand0>(argc, argv, 31);
        if (!std::strcmp(b, "cxx-minstd-rand")) return run<std::minstd_rand>(argc, argv, 31);
        if (!std::strcmp(b, "cxx-mt19937-64")) return run<std::mt19937_64>(argc, argv, 64);
        if (!std::strcmp(b, "cxx-ranlux24")) return run<std::ranlux24>(argc, argv, 24);
        if (!std::strcmp(b, "cxx-ranlux48")) return run<std::ranlux48>(argc, argv, 48);
        if (!std::strcmp(b, "cxx-knuth-b")) return run<std::knuth_b>(argc, argv, 31);
    }
    std::fputs("usage: cxx_driver stream BACKEND SEED | time BACKEND SEED CALLS\n", stderr);
    return 2;
}
