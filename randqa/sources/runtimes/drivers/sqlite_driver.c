/*
 * randqa's SQLite driver: sqlite_driver stream sqlite-random SEED
 *                         sqlite_driver time sqlite-random SEED CALLS
 *                         sqlite_driver version
 * stream: random()'s values, each as 8 little-endian bytes, until the
 *         reader closes the pipe.
 * time:   CALLS rows of SELECT random(); prints the seconds.
 * The seed goes in through sqlite3_test_control(SQLITE_TESTCTRL_PRNG_SEED),
 * what the sqlite3 shell's `.testctrl prng_seed` calls.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

/* every row calls random() once; the rows never end (LIMIT bounds a timing) */
static const char ROWS[] =
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c%s) SELECT random() FROM c";

static void
usage(void)
{
    fputs("usage: sqlite_driver stream sqlite-random SEED | time sqlite-random SEED CALLS | version\n", stderr);
    exit(2);
}

static void
fail(sqlite3 *db, const char *what)
{
    fprintf(stderr, "sqlite_driver: error: %s: %s\n", what, db ? sqlite3_errmsg(db) : "out of memory");
    exit(1);
}

static sqlite3_stmt *
seeded_rows(sqlite3 **db, unsigned seed, const char *limit)
{
    char sql[256];
    sqlite3_stmt *stmt;
    if (sqlite3_open(":memory:", db) != SQLITE_OK)
        fail(*db, "open");
    /* an int seed: its 32 bits become word 4 of the ChaCha20 state */
    if (sqlite3_test_control(SQLITE_TESTCTRL_PRNG_SEED, (int)seed, (sqlite3 *)0) != SQLITE_OK)
        fail(*db, "SQLITE_TESTCTRL_PRNG_SEED (a library built with SQLITE_UNTESTABLE cannot be seeded)");
    snprintf(sql, sizeof sql, ROWS, limit);
    if (sqlite3_prepare_v2(*db, sql, -1, &stmt, 0) != SQLITE_OK)
        fail(*db, "prepare");
    return stmt;
}

static void
write_all(const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(1, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            exit(0); /* the reader closed the pipe: it has what it wanted */
        }
        p += w;
        n -= (size_t)w;
    }
}

int
main(int argc, char **argv)
{
    sqlite3 *db = 0;
    if (argc == 2 && strcmp(argv[1], "version") == 0) {
        printf("SQLite %s\n", sqlite3_libversion());
        return 0;
    }
    if (argc < 4 || strcmp(argv[2], "sqlite-random") != 0)
        usage();
    char *end;
    unsigned long long seed = strtoull(argv[3], &end, 10);
    if (*end || seed == 0 || seed > 0xffffffffULL)
        usage();
    if (strcmp(argv[1], "stream") == 0 && argc == 4) {
        sqlite3_stmt *stmt = seeded_rows(&db, (unsigned)seed, "");
        static unsigned char buf[1 << 16];
        for (;;) {
            for (size_t off = 0; off < sizeof buf; off += 8) {
                if (sqlite3_step(stmt) != SQLITE_ROW)
                    fail(db, "step");
                uint64_t v = (uint64_t)sqlite3_column_int64(stmt, 0);
                for (int b = 0; b < 8; b++)
                    buf[off + (size_t)b] = (unsigned char)(v >> (8 * b));
            }
            write_all(buf, sizeof buf);
        }
    }
    if (strcmp(argv[1], "time") == 0 && argc == 5) {
        unsigned long long calls = strtoull(argv[4], &end, 10);
        if (*end)
            usage();
        char limit[64];
        snprintf(limit, sizeof limit, " LIMIT %llu", calls);
        sqlite3_stmt *stmt = seeded_rows(&db, (unsigned)seed, limit);
        struct timespec t0, t1;
        uint64_t sum = 0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (sqlite3_step(stmt) == SQLITE_ROW)
            sum += (uint64_t)sqlite3_column_int64(stmt, 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (sum == 42)
            fprintf(stderr, "%llu\n", (unsigned long long)sum); /* keeps the loop's work observable */
        printf("%.9f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
        return 0;
    }
    usage();
    return 2;
}
