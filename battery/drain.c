/* drain.c - pp_battery_run: one pass of the trace, or the run until cutoff, and the
 * time to cutoff with the trace repeated, whole periods skipped (repeat.h).
 * The integration itself is solver.c's. */
#include "repeat.h"
#include "solver.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* One whole period from its start (or to t_end): 0 with its statistics in
 * *ps, 1 at an event, -errno. */
static int measure_period(pp_solver *s, double t_end, pp_period *ps)
{
    double y0[PP_N_STATES];
    int rc;

    memcpy(y0, s->y, sizeof y0);
    ps->k = s->walk.cur.k;
    s->vmin = s->dmin = INFINITY;
    rc = pp_solver_span(s, fmin(t_end, (s->walk.cur.k + 1) * s->walk.period_s));
    for (int i = 0; i < PP_N_STATES; i++)
        ps->dy[i] = s->y[i] - y0[i];
    ps->vmin_v = s->vmin;
    ps->dmin_v2 = s->dmin;
    return rc;
}

/* Skip n whole periods after period b (repeat.h); the next is integrated
 * quietly and becomes b. A skip that runs into an event is undone: 3, to
 * try fewer. Else 0 or -errno. */
static int skip(pp_solver *s, double n, pp_period *b, double t_end)
{
    pp_battery_result saved = *s->r;
    pp_cursor at = s->walk.cur;
    double y0[PP_N_STATES];
    pp_period c;
    int rc;

    memcpy(y0, s->y, sizeof y0);
    pp_skip_predict(s->p, n, b, s->walk.period_s, s->y);
    s->walk.cur.k += n;
    s->quiet = 1;
    rc = measure_period(s, t_end, &c);
    s->quiet = 0;
    if (rc > 0) {
        *s->r = saved;
        s->walk.cur = at;
        memcpy(s->y, y0, sizeof y0);
        return 3;
    }
    if (rc == 0)
        s->r->skip_error_frac += pp_skip_correct(s->p, n, b, &c, s->walk.period_s, s->y);
    *b = c;
    return rc;
}

/* The trace repeated from the cursor to t_end, whole periods skipped after
 * two measured (h[0], h[1]): 0 there, 1 at an event, -errno. */
static int run_repeated(pp_solver *s, double t_end)
{
    pp_period h[2];
    int have = 0, rc = 0;
    double most = INFINITY, n = 0; /* most: periods a skip may take, halved at each undo */

    if (s->walk.uniform) { /* one window to the end: exact */
        s->walk.cur = (pp_cursor){0, 0, pp_walk_now_s(&s->walk)};
        s->walk.constant = 1;
        return pp_solver_span(s, t_end);
    }
    memset(h, 0, sizeof h);
    while (rc == 0 && !pp_walk_reached(&s->walk, t_end)) {
        int whole = s->walk.cur.j == 0 && s->walk.cur.x == 0;
        double left = floor((t_end - pp_walk_now_s(&s->walk)) / s->walk.period_s);
        if (whole && have == 2 && !s->o->every_period)
            n = fmin(most, pp_skip_periods(s->p, s->y, &h[0], &h[1], s->walk.period_s, left));
        if (whole && have == 2 && n >= 1) {
            pp_period c = h[1];
            rc = skip(s, n, &c, t_end);
            if (rc == 3)
                most = floor(n / 2), rc = 0;
            else
                h[0] = h[1], h[1] = c;
        } else {
            h[0] = h[1];
            rc = measure_period(s, t_end, &h[1]);
            have = whole ? have + (have < 2) : 0;
        }
    }
    return rc;
}

static int check_run(const pp_battery_params *p, const pp_battery_load *l,
                     const pp_battery_options *o)
{
    const char *key = NULL;
    char why[256];
    size_t bad;

    if (pp_battery_params_check(p, &key, why, sizeof why) < 0 ||
        pp_battery_options_check(o, &key, why, sizeof why) < 0)
        pp_log_error("battery: %s: %s", key, why);
    else if (pp_battery_load_check(l, &bad, why, sizeof why) < 0)
        pp_log_error("battery: sample %zu: %s", bad + 1, why);
    else
        return 0;
    return -EINVAL;
}

int pp_battery_run(const pp_battery_params *p, const pp_battery_load *load,
                   const pp_battery_options *o, pp_battery_result *r)
{
    double horizon = o->max_time_s > 0 ? o->max_time_s : PP_BATTERY_HORIZON_S;
    pp_solver s = {0};
    int rc;

    memset(r, 0, sizeof *r);
    r->cutoff_kind = -1;
    r->time_to_cutoff_s = NAN;
    r->min_voltage_v = INFINITY;
    r->soc_start_frac = p->soc_start_frac;
    rc = check_run(p, load, o);
    if (rc == 0)
        rc = pp_solver_init(&s, p, load, o, r);
    if (rc < 0)
        goto out;
    pp_solver_output(&s, 0.0, load->p_w[0]);
    /* the reported run: one pass, or until cutoff; then on to the cutoff */
    rc = o->until_cutoff ? run_repeated(&s, horizon) : pp_solver_span(&s, fmin(s.walk.pass_s, horizon));
    r->duration_s = rc == 1 ? r->time_to_cutoff_s : pp_walk_now_s(&s.walk);
    r->soc_end_frac = fmin(1.0, fmax(0.0, s.y[0]));
    r->soc_drained_frac = r->soc_start_frac - r->soc_end_frac;
    r->energy_j = s.y[2];
    r->load_energy_j = s.y[3];
    if (rc == 0 && o->time_to_cutoff && !o->until_cutoff) {
        s.record = 0;
        rc = run_repeated(&s, horizon);
    }
    rc = rc < 0 ? rc : 0;
out:
    pp_solver_free(&s);
    return rc;
}
