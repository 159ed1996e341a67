/* window.h - the load as the solver walks it (internal to battery/).
 *
 * The load of pp_battery_load is a polyline through its samples (or steps,
 * for interval means), repeated with its period: vertex 0 to vertex
 * n_vertices - 1 make one period. A window is a stretch of it summarized
 * for the solver (solver.c): its mean and variance, its lowest and highest
 * power.
 */
#ifndef PP_BATTERY_WINDOW_H
#define PP_BATTERY_WINDOW_H

#include "battery.h"

/* Of the charge a window draws, the most its summary may lose. */
#define PP_WINDOW_REL_ERR 1e-7

typedef struct pp_cursor {
    double k; /* period (an integer) */
    size_t j; /* piece j, from vertex j to j + 1 */
    double x; /* time in the period, s; for a constant load the time itself */
} pp_cursor;

typedef struct pp_walk {
    const pp_battery_params *p;
    const pp_battery_load *l;
    double pass_s;    /* one pass of the trace */
    double period_s;  /* of the repetition */
    double w_max_s;   /* longest window (but constant ones) */
    size_t n_vertices;
    int uniform;      /* one power throughout */
    int constant;     /* walked as one window to any time (the solver sets it for the
                       * repetition of a uniform load): the cursor's x is the time */
    pp_cursor cur;    /* where the walk is */
} pp_walk;

typedef struct pp_window {
    pp_cursor start;
    double t0, t1;          /* s since the start of the run */
    int pieces;             /* of positive length */
    double p0_w, p1_w;      /* traced power at t0 and t1 (one piece: linear between) */
    double mean_w, var_w2;  /* mean and variance of the traced power */
    double lo_w, hi_w;      /* its lowest and highest */
} pp_window;

/* Set up the walk of load (checked) at t = 0. */
void pp_walk_init(pp_walk *w, const pp_battery_params *p, const pp_battery_load *l);

/* Vertex j of a period: its time in the period and traced power. */
static inline void pp_walk_vertex(const pp_walk *w, size_t j, double *x_s, double *p_w)
{
    const pp_battery_load *l = w->l;

    if (l->interval_means) { /* sample i holds over (t_{i-1}, t_i]: vertices 2i, 2i + 1 */
        size_t i = j / 2;
        *x_s = j % 2 ? l->t_s[i] : i ? l->t_s[i - 1] : 0.0;
        *p_w = l->p_w[i];
    } else if (j < l->n) {
        *x_s = l->t_s[j] - l->t_s[0];
        *p_w = l->p_w[j];
    } else { /* the period closes back to the first sample */
        *x_s = w->period_s;
        *p_w = l->p_w[0];
    }
}

/* The time of the cursor, s. */
double pp_walk_now_s(const pp_walk *w);

/* Whether the cursor has reached t_s. */
int pp_walk_reached(const pp_walk *w, double t_s);

/* Load power for traced power (efficiency, base load). */
double pp_walk_load_w(const pp_walk *w, double traced_w);

/* The window from the cursor, ending at t_end_s at the latest, for a battery
 * at u_v (open-circuit less RC voltage): whole pieces while its summary
 * keeps within PP_WINDOW_REL_ERR and w_max_s, the first piece cut at
 * w_max_s if longer; it ends with the period (but for a constant load).
 * single: one piece. Moves the cursor to the window's end. */
void pp_walk_window(pp_walk *w, double u_v, double t_end_s, int single, pp_window *win);

#endif
