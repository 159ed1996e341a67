/* solver.h - CVODE over the windows of the load (internal to battery/).
 *
 * solver.c integrates a stretch of the load with CVODE and finds the events;
 * battery.c's pp_battery_run drives it: one pass, until cutoff, periods
 * skipped (repeat.h). Only solver.c sees SUNDIALS.
 */
#ifndef PP_BATTERY_SOLVER_H
#define PP_BATTERY_SOLVER_H

#include "battery.h"
#include "window.h"

#define PP_N_STATES 4 /* SoC, RC voltage V1, energy drawn, energy delivered */

struct pp_cvode; /* solver.c's */

typedef struct pp_solver {
    const pp_battery_params *p;
    const pp_battery_options *o;
    pp_battery_result *r; /* events, lowest voltage, solver statistics go here */
    pp_walk walk;         /* the load, and where the run is on it */
    double *y;            /* the states, PP_N_STATES */
    int record;           /* keep events and the lowest voltage in r */
    int quiet;            /* no output */
    double vmin, dmin;    /* lowest voltage and u^2 - 4 R0 P at the windows' peaks, since reset */
    struct pp_cvode *cv;
} pp_solver;

/* Set up s for load (checked) from the start state: 0, or -ENOMEM, -EIO
 * (logged); free with pp_solver_free in any case. */
int pp_solver_init(pp_solver *s, const pp_battery_params *p, const pp_battery_load *load,
                   const pp_battery_options *o, pp_battery_result *r);
void pp_solver_free(pp_solver *s);

/* Integrate from the cursor to t_end_s: 0 there, 1 at an event (the run's
 * first cutoff in r), -errno. */
int pp_solver_span(pp_solver *s, double t_end_s);

/* A row of output (and the lowest voltage) at t_s for traced power traced_w. */
void pp_solver_output(pp_solver *s, double t_s, double traced_w);

#endif
