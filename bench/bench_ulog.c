/* The ULog reader on logs of many formats (issue 33, item 2).
 *
 * A log of N formats ("fK:uint8_t a") and N subscriptions naming formats
 * near the end of the list, then battery_status and 3 samples: the shape
 * of the hostile-input round's reproducer (mkquad.py), built here in memory for N = 37,500,
 * 75,000 and 150,000 (4.8 MB). Baseline in the same run: a log of the same
 * size made of battery_status samples only (one format), whose reading is
 * linear by construction. Figures: seconds (best of 3), seconds per MB
 * against the baseline's, and the growth from N/2 to N (2 when the reading
 * is linear in the log's size, 4 when quadratic).
 */
#include "util.h"

#include "src/flight/ulog.h"
#include "tests/ulog_build.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A log of samples only, at least bytes long. */
static void samples_only(ulog_buf *u, size_t bytes)
{
    ulog_head(u);
    ulog_sub(u, 5, "battery_status");
    for (uint64_t k = 0; u->n < bytes; k++)
        ulog_sample(u, 5, 1000000 + k * 1000, 16.0f, 5.0f);
}

static double best_s(const ulog_buf *u)
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
    ulog_buf u = {0}, base = {0};
    double s[3];

    printf("ULog reader, a log of N formats and N subscriptions (best of 3)\n");
    for (size_t k = 0; k < 3; k++) {
        double b_s, mb;
        ulog_many_formats(&u, ns[k]);
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
