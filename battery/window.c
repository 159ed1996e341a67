/* The load as the solver walks it: vertices, the cursor, windows
 * (window.h). No solver here.
 *
 * A window of one linear piece is exact (solver.c integrates its mean
 * current in closed form). A longer one stands for its load by its mean
 * power P and variance v, the current being I(P) + I''(P) v / 2 (solver.c).
 * What that leaves out, and what a window grows only while it stays within
 * PP_WINDOW_REL_ERR of the charge drawn (at least P len / u):
 *  - the third-order remainder of I about P, at most
 *        I'''/6 x range x integral (p - P)^2 dt,  I'''/6 = 2 R0^2 / d^(5/2),
 *    d = u^2 - 4 R0 P at the window's peak (nothing when R0 = 0: I is then
 *    linear in P);
 *  - thevenin: the RC voltage follows the load inside the window, which the
 *    mean does not; to first order that changes the charge by
 *        I M1 / (e d C1),  M1 = integral (s - len / 2) (p - P) ds,
 *    s the time into the window.
 * A constant stretch is exact at any length; others end after w_max_s
 * (1 s, and a tenth of the RC time constant).
 */
#include "window.h"

#include <float.h>
#include <math.h>
#include <string.h>

void pp_walk_init(pp_walk *w, const pp_battery_params *p, const pp_battery_load *l)
{
    double tau_s = p->r1_ohm * p->c1_f;

    memset(w, 0, sizeof *w);
    w->p = p;
    w->l = l;
    w->n_vertices = l->interval_means ? 2 * l->n : l->n + 1;
    w->pass_s = l->t_s[l->n - 1] - (l->interval_means ? 0.0 : l->t_s[0]);
    w->period_s = l->interval_means || l->n == 1 ? w->pass_s
                                                 : w->pass_s * (double)l->n / (double)(l->n - 1);
    w->uniform = 1;
    for (size_t i = 1; i < l->n && w->uniform; i++)
        w->uniform = l->p_w[i] == l->p_w[0];
    if (!(w->period_s > 0)) {
        w->period_s = 1.0; /* any will do */
        w->uniform = 1;
    }
    w->w_max_s = p->model == PP_BATTERY_THEVENIN && tau_s / 10 < 1.0 ? tau_s / 10 : 1.0;
}

double pp_walk_now_s(const pp_walk *w) { return w->cur.k * w->period_s + w->cur.x; }

int pp_walk_reached(const pp_walk *w, double t_s)
{
    return !(t_s - w->cur.k * w->period_s > w->cur.x); /* as pp_walk_window clips */
}

double pp_walk_load_w(const pp_walk *w, double traced_w)
{
    return traced_w / w->p->efficiency + w->p->base_power_w;
}

static double piece_w(const pp_walk *w, size_t j, double x)
{
    double xa, pa, xb, pb;

    pp_walk_vertex(w, j, &xa, &pa);
    pp_walk_vertex(w, j + 1, &xb, &pb);
    return xb > xa ? pa + (pb - pa) * (x - xa) / (xb - xa) : pb;
}

/* What a window is summed up by so far: its length, the integrals of
 * q = p - ref, q^2 and s q (s the time into it; ref its first power, against
 * cancellation), its lowest and highest power. */
typedef struct sums {
    double len, q1, q2, q1s, lo, hi;
} sums;

typedef struct bound {
    double u, k3, d, d_hi; /* I'''/6 per traced W^3 and u^2 - 4 R0 P at d_hi >= the peak */
    double per_q, per_s;   /* the most to lose: (ref len + q1) per_q + len per_s, C */
} bound;

/* The tests of the header, multiplied through by the length (no division). */
static int fits(const pp_walk *w, bound *b, const sums *s, double ref)
{
    const pp_battery_params *p = w->p;
    double r0 = p->r_int_ohm, e = p->efficiency, len = s->len;
    double most = (ref * len + s->q1) * b->per_q + len * b->per_s;

    if (s->hi == s->lo)
        return 1; /* constant: exact at any length */
    if (len > w->w_max_s)
        return 0;
    if (r0 == 0)
        return 1; /* I is linear in P */
    if (s->hi > b->d_hi) { /* at a little more, not to do it again at each new peak */
        b->d_hi = s->hi + 1e-3 * (fabs(s->hi) + 1e-3);
        b->d = b->u * b->u - 4.0 * r0 * pp_walk_load_w(w, b->d_hi);
        b->k3 = 2.0 * r0 * r0 / (e * e * e * b->d * b->d * sqrt(b->d));
    }
    return b->d > 0 && b->k3 * (s->hi - s->lo) * (s->q2 * len - s->q1 * s->q1) <= most * len &&
           (p->model == PP_BATTERY_RINT ||
            fabs(s->q1s - s->q1 * len / 2) <= PP_WINDOW_REL_ERR * e * b->d * p->c1_f * len);
}

void pp_walk_window(pp_walk *w, double u_v, double t_end, int single, pp_window *win)
{
    pp_cursor c = w->cur; /* a copy, kept in registers through the loop */
    double base = c.k * w->period_s, ref = piece_w(w, c.j, c.x), pa = ref, lim;
    sums s = {0, 0, 0, 0, ref, ref};
    bound b = {u_v, 0, 0, -INFINITY, PP_WINDOW_REL_ERR / (w->p->efficiency * u_v),
               PP_WINDOW_REL_ERR * w->p->base_power_w / u_v};
    int pieces = 0;

    memset(win, 0, sizeof *win);
    win->start = c;
    win->t0 = base + c.x;
    win->p0_w = win->p1_w = win->lo_w = win->hi_w = win->mean_w = ref;
    if (w->constant) { /* one window to t_end (the cursor's x is then the time) */
        win->t1 = w->cur.x = t_end;
        win->pieces = 1;
        return;
    }
    /* t_end on a vertex but for rounding (a period's end as k T) is on it */
    lim = t_end - base + 8 * DBL_EPSILON * fabs(t_end);
    for (;;) {
        double xb, pb, end, h, a, bq;
        sums next;
        pp_walk_vertex(w, c.j + 1, &xb, &pb);
        end = xb <= lim ? xb : t_end - base;
        if (pieces == 0 && pb != pa && end - c.x > w->w_max_s)
            end = c.x + w->w_max_s; /* a long ramp, in parts */
        pb = end < xb ? pa + (pb - pa) * (end - c.x) / (xb - c.x) : pb;
        h = end - c.x;
        a = pa - ref;
        bq = pb - ref;
        next = (sums){s.len + h, s.q1 + h * (a + bq) / 2, s.q2 + h * (a * a + a * bq + bq * bq) / 3,
                      s.q1s + h * (s.len * (2 * a + bq) + (s.len + h) * (a + 2 * bq)) / 6,
                      pb < s.lo ? pb : s.lo, pb > s.hi ? pb : s.hi};
        if (h > 0 && pieces > 0 && !fits(w, &b, &next, ref))
            break;
        if (h > 0 && pieces++ == 0) {
            win->p0_w = pa;
            win->p1_w = pb;
        }
        s = next;
        pa = pb;
        c.x = end;
        if (end == xb && ++c.j == w->n_vertices - 1) { /* the period ends */
            c = (pp_cursor){c.k + 1, 0, 0.0};
            break;
        }
        if (end >= t_end - base || (single && h > 0))
            break;
    }
    w->cur = c;
    win->pieces = pieces;
    win->t1 = pp_walk_now_s(w);
    win->lo_w = s.lo;
    win->hi_w = s.hi;
    if (s.len > 0) {
        double m = s.q1 / s.len, v = s.q2 / s.len - m * m;
        win->mean_w = ref + m;
        win->var_w2 = v > 0 && isfinite(v) ? v : 0.0; /* overflows only far past brown-out */
    }
}
