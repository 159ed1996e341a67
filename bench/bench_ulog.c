/* The ULog reader on logs of many formats (issue 33, item 2).
 *
 * A log of N formats ("fK:uint8_t a") and N subscriptions naming formats
 * near the end of the list, then battery_status and 3 samples: the shape
 * of ../shared/repro-t4/mkquad.py, built here in memory for N = 37,500,
 * 75,000 and 150,000 (4.8 MB). Baseline in the same run: a log of the same
 * size made of battery_status samples only (one format), whose reading is
 * linear by construction. Figures: seconds (best of 3), seconds per MB
 * against the baseline's, and the growth from N/2 to N (2 when the reading
 * is linear in the log's size, 4 when quadratic).
 */
#include "util.h"

#include "src/traces/ulog.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    uint8_t *b;
    size_t n, cap;
} buf;

static void put(buf *u, const void *d, size_t n)
{
    if (u->n + n > u->cap) {
        u->cap = 2 * (u->n + n);
        if (!(u->b = realloc(u->b, u->cap)))
            abort();
    }
    memcpy(u->b + u->n, d, n);
    u->n += n;
}

static void msg(buf *u, char type, const void *d, size_t n)
{
    uint8_t h[3] = {(uint8_t)(n & 0xFF), (uint8_t)(n >> 8), (uint8_t)type};

    put(u, h, 3);
    put(u, d, n);
}

static void sub(buf *u, int id, const char *name)
{
    uint8_t d[64] = {0, (uint8_t)(id & 0xFF), (uint8_t)(id >> 8)};
    size_t n = strlen(name);

    memcpy(d + 3, name, n);
    msg(u, 'A', d, 3 + n);
}

static void sample(buf *u, int id, uint64_t t_us)
{
    uint8_t d[2 + 8 + 8];
    float v = 16.0f, i = 5.0f;

    d[0] = (uint8_t)id;
    d[1] = 0;
    memcpy(d + 2, &t_us, 8);
    memcpy(d + 10, &v, 4);
    memcpy(d + 14, &i, 4);
    msg(u, 'D', d, sizeof d);
}

static void head(buf *u)
{
    static const uint8_t h[16] = {'U', 'L', 'o', 'g', 0x01, 0x12, 0x35, 1};
    static const char bat[] = "battery_status:uint64_t timestamp;float voltage_v;float current_a;";

    u->n = 0;
    put(u, h, sizeof h);
    msg(u, 'F', bat, strlen(bat));
}

/* The many-formats log of n formats. */
static void many_formats(buf *u, size_t n)
{
    char f[64];

    head(u);
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(f, sizeof f, "f%zu:uint8_t a", i);
        msg(u, 'F', f, (size_t)len);
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(f, sizeof f, "f%zu", n - 1 - i % 1000);
        sub(u, (int)(i % 60000 + 10), f);
    }
    sub(u, 5, "battery_status");
    for (int k = 0; k < 3; k++)
        sample(u, 5, 1000000 + (uint64_t)k * 100000);
}

/* A log of samples only, at least bytes long. */
static void samples_only(buf *u, size_t bytes)
{
    head(u);
    sub(u, 5, "battery_status");
    for (uint64_t k = 0; u->n < bytes; k++)
        sample(u, 5, 1000000 + k * 1000);
}

static double best_s(const buf *u)
{
    double best = 1e30;

    for (int r = 0; r < 3; r++) {
        pp_ulog_flight f;
        double t0 = pp_bench_now_s(), dt;
        if (pp_ulog_parse_battery(u->b, u->n, "bench.ulg", &f) != 0 || f.n_batteries != 1) {
            fprintf(stderr, "bench_ulog: the log did not read\n");
            exit(1);
        }
        dt = pp_bench_now_s() - t0;
        pp_ulog_flight_free(&f);
        best = dt < best ? dt : best;
    }
    return best;
}

int main(void)
{
    static const size_t ns[] = {37500, 75000, 150000};
    buf u = {0}, base = {0};
    double s[3];

    printf("ULog reader, a log of N formats and N subscriptions (best of 3)\n");
    for (size_t k = 0; k < 3; k++) {
        double b_s, mb;
        many_formats(&u, ns[k]);
        mb = (double)u.n / 1e6;
        s[k] = best_s(&u);
        samples_only(&base, u.n);
        b_s = best_s(&base);
        printf("  N %6zu: %.2f MB in %.4f s (%.4f s/MB); samples-only log of the same size "
               "%.4f s (%.4f s/MB): ratio %.2f\n", ns[k], mb, s[k], s[k] / mb, b_s, b_s / mb,
               s[k] / b_s);
    }
    printf("  growth N/2 -> N: %.2f and %.2f (2 linear, 4 quadratic)\n", s[1] / s[0], s[2] / s[1]);
    free(u.b);
    free(base.b);
    return 0;
}
