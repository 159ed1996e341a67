/* ulog_build.h - PX4 ULog logs built in memory (the header, formats,
 * subscriptions, battery_status samples of a timestamp, a voltage and a
 * current), for the tests (test_ulog.c, test_battery_fit.c) and the benchmark of the
 * reader (bench/bench_ulog.c). Header-only: each includer gets its own
 * static copies. */
#ifndef PP_TESTS_ULOG_BUILD_H
#define PP_TESTS_ULOG_BUILD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ulog_buf {
    uint8_t *b;
    size_t n, cap;
} ulog_buf;

static inline void ulog_put(ulog_buf *u, const void *d, size_t n)
{
    if (u->n + n > u->cap) {
        u->cap = 2 * (u->n + n);
        if (!(u->b = realloc(u->b, u->cap)))
            abort();
    }
    memcpy(u->b + u->n, d, n);
    u->n += n;
}

static inline void ulog_msg(ulog_buf *u, char type, const void *d, size_t n)
{
    uint8_t h[3] = {(uint8_t)(n & 0xFF), (uint8_t)(n >> 8), (uint8_t)type};

    ulog_put(u, h, 3);
    ulog_put(u, d, n);
}

static inline void ulog_sub(ulog_buf *u, int id, const char *name)
{
    uint8_t d[64] = {0, (uint8_t)(id & 0xFF), (uint8_t)(id >> 8)};
    size_t n = strlen(name);

    memcpy(d + 3, name, n);
    ulog_msg(u, 'A', d, 3 + n);
}

static inline void ulog_sample(ulog_buf *u, int id, uint64_t t_us, float v, float i)
{
    uint8_t d[18] = {(uint8_t)id, 0};

    memcpy(d + 2, &t_us, 8);
    memcpy(d + 10, &v, 4);
    memcpy(d + 14, &i, 4);
    ulog_msg(u, 'D', d, sizeof d);
}

/* u emptied, then the header and battery_status's format. */
static inline void ulog_head(ulog_buf *u)
{
    static const uint8_t h[16] = {'U', 'L', 'o', 'g', 0x01, 0x12, 0x35, 1};
    static const char bat[] = "battery_status:uint64_t timestamp;float voltage_v;float current_a;";

    u->n = 0;
    ulog_put(u, h, sizeof h);
    ulog_msg(u, 'F', bat, strlen(bat));
}

/* The log of the round-4 reproducer (mkquad.py): n formats "fK:uint8_t a",
 * n subscriptions naming formats near the end of the list, then
 * battery_status (msg id 5) and 3 samples of 16 V, 5 A. */
static inline void ulog_many_formats(ulog_buf *u, size_t n)
{
    char f[64];

    ulog_head(u);
    for (size_t i = 0; i < n; i++)
        ulog_msg(u, 'F', f, (size_t)snprintf(f, sizeof f, "f%zu:uint8_t a", i));
    for (size_t i = 0; i < n; i++) {
        snprintf(f, sizeof f, "f%zu", n - 1 - i % 1000);
        ulog_sub(u, (int)(i % 60000 + 10), f);
    }
    ulog_sub(u, 5, "battery_status");
    for (int k = 0; k < 3; k++)
        ulog_sample(u, 5, 1000000 + (uint64_t)k * 100000, 16.0f, 5.0f);
}

#endif
