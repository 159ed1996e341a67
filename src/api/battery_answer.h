/* battery_answer.h - `powprof battery`'s answers as library calls (issue
 * 40: the CLI parses, calls, prints): a trace drained through the battery
 * (the run, -o's rows, the text or the document), a flight log against the
 * model, a pack fitted to flight logs (printed, written, plotted). Each
 * returns the command's exit status: 0, PP_BATTERY_EXIT_USAGE (said why on
 * stderr: a file, a value), PP_BATTERY_EXIT_FAILURE (powprof failed). */
#ifndef PP_BATTERY_ANSWER_H
#define PP_BATTERY_ANSWER_H

#include "src/config/battery_config.h"
#include "src/flight/flight_fit.h"

#include <stddef.h>

#define PP_BATTERY_EXIT_USAGE 2
#define PP_BATTERY_EXIT_FAILURE 125

/* What `powprof battery TRACE|FLIGHT` was asked. */
typedef struct pp_battery_ask {
    const char *trace, *out_path, *rail, *plot_dir;
    double rtol;  /* 0: the default */
    int json, until;
    pp_battery_choice choice;
} pp_battery_ask;

/* The answer to a: a trace drained (the pack of a results folder's trace
 * when none is asked for: said on stderr), or a flight log against the
 * model; printed on stdout (a->json: one JSON object). */
int pp_battery_answer(pp_battery_ask *a);

/* What `powprof battery fit LOG...` was asked. */
typedef struct pp_battery_fit_ask {
    const char *out, *plot_dir;
    const char *const *logs;
    size_t n_logs;
    int json, force;
    pp_battery_choice choice;
    pp_flight_fit_options o;
} pp_battery_fit_ask;

/* The pack fitted to a's logs: printed on stdout (or its document),
 * written to a->out unless refused (pp_flight_fit_write), plotted. */
int pp_battery_fit_answer(pp_battery_fit_ask *a);

/* The pack a fit starts from, c's (pp_battery_choose), into o: whether one
 * was asked (-c, --preset) and whether it states its capacity (else the
 * default's, no one's word: capacity_guessed can refuse). The CLI's and
 * the C API's one rule: 0, or a negative errno (logged). */
int pp_battery_fit_start(const pp_battery_choice *c, pp_flight_fit_options *o);

#endif
