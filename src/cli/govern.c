/* powprof govern: the plan per phase kept up in flight from a source of
 * readings (the library's pp_gov_fly, src/api/governor_doc.h), one JSON
 * line per decision, the state file rewritten atomically; or --simulate
 * (pp_sim_simulate). Parses, calls the library, prints. */
#include "cli.h"
#include "opt.h"

#include "src/api/answer.h"
#include "src/api/governor_doc.h"
#include "src/api/pipeline.h"
#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const char govern_head[] =
    "usage: powprof govern RESULTS [--mission FILE | --mission-s S [--base-power-w W]]\n"
    "                      [-c CONFIG] [--min-soc F] [--risk upper|mean] [--maximize NAME]\n"
    "                      [--resolution NAME=STEP|NAME=measured]...\n"
    "                      --source SRC [--every 5s] [--speed X] [--state FILE]\n"
    "                      [--margin F] [--ignore-soc] [--sysfs-root DIR] [--text]\n"
    "       powprof govern RESULTS --mission FILE --simulate ACTUAL [--scale-after T:F]\n"
    "                      [--pack-scale F] [--stretch PHASE:F]\n"
    "                      [--every 5s] [--measure soc|vi] [--plot DIR] [--json]\n"
    "\n"
    "Keep the plan per phase (powprof plan --mission) up in flight: at each reading\n"
    "of the battery, the rest of the mission is planned again from the charge that\n"
    "is actually left (floors kept, the reserve kept with the band's upper end),\n"
    "and the setting to run now is said. A plan is held unless the new one is\n"
    "better by more than the margin (--margin, 0.02) or the held one no longer\n"
    "ends above the reserve. When nothing keeps the reserve, the cheapest settings\n"
    "are set and the time they reach the reserve is said (tell the autopilot).\n"
    "The charge: the source's state of charge (unless --ignore-soc), else an\n"
    "extended Kalman filter over the pack's model from voltage and current\n"
    "(coulomb counting with rint); each decision says which. A reading that\n"
    "jumps back up is not believed (a pack in flight does not charge).\n"
    "\n"
    "Sources (--source):\n"
    "  stdin                one reading per line: 't_s soc_frac', 't_s voltage_v\n"
    "                       current_a', or JSON {\"t_s\":..,\"soc\":..,\"voltage_v\":..,\n"
    "                       \"current_a\":..,\"phase\":..}; a line that does not read\n"
    "                       is refused on stderr (with its number) and the loop goes on\n"
    "  power_supply[:NAME]  the Linux battery (/sys/class/power_supply/BAT*: capacity,\n"
    "                       voltage_now, current_now) read every --every\n"
    "  FLIGHT[:N]           a PX4 flight's battery_status (a ULog, or ulog2csv's\n"
    "                       battery_status CSV) replayed at its own pace times\n"
    "                       --speed (0: at once)\n"
    "  FILE                 any other file or named pipe: lines as stdin's\n"
    "Every decision is one JSON line on stdout (the library's decision document,\n"
    "the keys Python's Governor.update returns): time, phase, the measured and the\n"
    "estimated charge and which estimate, the setting, the held plan's end, why it\n"
    "changed. --state FILE is rewritten atomically (a temporary file renamed) with\n"
    "the current setting at each decision; SIGTERM or SIGINT stop the loop and\n"
    "leave the last state in place.\n"
    "\n"
    "--simulate ACTUAL: the mission flown in virtual time against the modelled\n"
    "battery, with an actual propulsion load: 'planned' (the mission's own base\n"
    "loads) or a trace (a file, or a folder of powprof import), scaled by F from T\n"
    "s on with --scale-after T:F. A flight log (a PX4 .ulg or ulog2csv's\n"
    "battery_status CSV) is a trace of its battery power (voltage x current), and\n"
    "the pack flown is then a thevenin pack fitted from the same log (battery fit;\n"
    "the plan's pack must have its cells). Side by side: the static plan made before\n"
    "take-off and held, the governed run (an update every --every) and the oracle\n"
    "(the plan made knowing the actual load): end charge, reserve and floors held,\n"
    "time-weighted quality. The computer draws the power each setting was planned\n"
    "with. --plot DIR: the charge and the setting over time of the three runs\n"
    "(gnuplot script, data and PNG when gnuplot is installed).\n";

static const char govern_tail[] =
    "exit status: 0; 3 when the last decision found no schedule keeping the\n"
    "reserve (--simulate: when the governed run ended below it); 2 usage; 125\n"
    "when nothing was governed (no reading read), the source failed or the\n"
    "state file could not be written.\n";

typedef struct govern_args {
    const char *results, *source, *state, *simulate, *plot, *root;
    double every_s, speed, scale_t_s, scale_f;
    int json, text, ignore_soc;
    pp_sim_options sim;
    pp_mission_ask ask;      /* the options of the mission */
    pp_mission_resolved res; /* resolved by the library */
} govern_args;

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }

/* "T:F" of --scale-after. */
static int scale_option(const pp_opt *row, const char *arg, const char *cmd)
{
    govern_args *a = row->value;
    const char *colon = strchr(arg, ':');
    char t[64];
    char why[128];

    if (!colon || pp_fmt(t, sizeof t, "%.*s", (int)(colon - arg), arg) < 0) {
        fprintf(stderr, "powprof %s: --scale-after %s: T:F expected (600:1.15, 10min:0.85)\n",
                cmd, arg);
        return -1;
    }
    if ((pp_parse_double(t, &a->scale_t_s) < 0 &&
         pp_mission_parse_duration(t, &a->scale_t_s, why, sizeof why) < 0) ||
        pp_parse_double(colon + 1, &a->scale_f) < 0 || !(a->scale_t_s >= 0) ||
        !(a->scale_f >= 0 && a->scale_f <= 100)) {
        fprintf(stderr, "powprof %s: --scale-after %s: a time >= 0 and a factor in [0, 100]\n",
                cmd, arg);
        return -1;
    }
    return 0;
}

/* "PHASE:F" of --stretch (PHASE from 1): its ranges are the library's. */
static int stretch_option(const pp_opt *row, const char *arg, const char *cmd)
{
    govern_args *a = row->value;
    char *end;
    long k = strtol(arg, &end, 10);

    if (end == arg || *end != ':' || k < 1 || k > PP_MISSION_MAX_PHASES ||
        pp_parse_double(end + 1, &a->sim.stretch_f) < 0) {
        fprintf(stderr, "powprof %s: --stretch %s: PHASE:F expected (2:1.3: the second "
                        "phase 30 %% longer)\n", cmd, arg);
        return -1;
    }
    a->sim.stretch_phase = (int)k - 1;
    return 0;
}

static int every_option(const pp_opt *row, const char *arg, const char *cmd)
{
    char why[160];

    return pp_cli_refused(cmd, "--every", arg, pp_gov_parse_every(arg, row->value, why, sizeof why),
                          why);
}

/* --measure soc|vi into an int (1: soc). */
static int measure_parse(const char *arg, void *soc)
{
    *(int *)soc = strcmp(arg, "soc") == 0;
    return *(int *)soc || strcmp(arg, "vi") == 0 ? 0 : -1;
}

/* The mission (the library's one rule, as plan's): an exit status. */
static int mission_of(govern_args *a, pp_plan_options *o)
{
    int rc;

    a->ask.results = a->results;
    a->ask.phases = 1; /* --mission-s flies as one phase */
    if ((rc = pp_mission_resolve(&a->ask, &a->res, o)) == -ENOENT)
        fputs("powprof govern: a mission is needed: --mission FILE, --mission-s S, or a mission "
              "group in RESULTS/profile.cfg\n", stderr);
    return rc == -ENOMEM ? PP_EXIT_FAILURE : rc < 0 ? PP_EXIT_USAGE : 0;
}

/* The options, as the table says them: 0, 1 (--help), PP_EXIT_USAGE. */
static int govern_options(int argc, char **argv, govern_args *a, pp_plan_options *o)
{
    pp_mission_settings *m = &a->ask.given;
    const pp_opt opts[] = {
        PP_OPT_STRING(0, "source", &a->source, "SRC", "the readings (above)"),
        PP_OPT_STRING('c', "config", &m->config, "FILE", "the battery (a fitted pack is an "
                      "ordinary battery group)"),
        PP_OPT_STRING(0, "mission", &a->ask.file, "FILE", "the mission in phases (its "
                      "mission group; its battery\ngroup over -c's)"),
        PP_CLI_MISSION_S_ROW(m, "one phase of S (10min, 1h) at --base-power-w W"),
        PP_CLI_BASE_POWER_ROW(m, "--mission-s: the phase's base load"),
        PP_CLI_MIN_SOC_ROW(m, "the reserve (0.2 or 20%)"),
        PP_CLI_RISK_ROW(m, "plan with the band's upper end (default) or the prediction"),
        PP_OPT_STRING(0, "maximize", &o->maximize, "NAME", "the parameter to maximize"),
        PP_OPT_CALLBACK(0, "resolution", o, "NAME=STEP|NAME=measured", "the settings a "
                        "parameter may take, as\nplan's: a step, or the levels measured (a "
                        "camera's rates)", pp_cli_opt_resolution),
        PP_OPT_CALLBACK(0, "every", &a->every_s, "T", "a decision per T of the readings' time "
                        "(5s, 500ms; in\n[0.05 s, 1 h]): the readings between feed the "
                        "estimate\nonly; power_supply's reading period; --simulate's updates",
                        every_option),
        PP_OPT_NUMBER(0, "speed", &a->speed, "X", "a log replayed X times faster (1; 0: at once)"),
        PP_OPT_STRING(0, "state", &a->state, "FILE", "the current setting, rewritten atomically"),
        PP_OPT_RANGE(0, "margin", &a->sim.gov.margin_frac, "F", "a held plan gives way to one "
                     "better by more than F (0.02)", 0, 10, PP_OPT_HI_OPEN,
                     "a fraction in [0, 10)"),
        PP_OPT_BOOL(0, "ignore-soc", &a->ignore_soc, "estimate the charge from voltage and "
                    "current only"),
        PP_OPT_STRING(0, "simulate", &a->simulate, "ACTUAL", "fly the mission in virtual time "
                      "against this load (above)"),
        PP_OPT_CALLBACK(0, "scale-after", a, "T:F", "--simulate: the actual load times F from T "
                        "on", scale_option),
        PP_OPT_NUMBER(0, "pack-scale", &a->sim.pack_scale, "F", "--simulate: the pack flown has "
                      "F times the capacity\nplanned with (0.8: 20 % smaller), unknown to the "
                      "governor"),
        PP_OPT_CALLBACK(0, "stretch", a, "PHASE:F", "--simulate: phase PHASE (from 1) lasts F "
                        "times as long as\nplanned (2:1.3), unknown to the governor",
                        stretch_option),
        PP_OPT_PARSE(0, "measure", &a->sim.measure_soc, "soc|vi", "--simulate: the governor "
                     "reads the charge (soc) or only\nvoltage and current (vi: the filter)",
                     measure_parse, "soc or vi"),
        PP_OPT_STRING(0, "plot", &a->plot, "DIR", "--simulate: the three runs plotted in DIR"),
        PP_OPT_STRING(0, "sysfs-root", &a->root, "DIR", "read /sys under DIR (tests)"),
        PP_OPT_BOOL(0, "json", &a->json, "--simulate: one JSON object"),
        PP_OPT_BOOL(0, "text", &a->text, "a line for a person per change (what, why, the "
                    "charge,\nthe time to the reserve) instead of the JSON lines"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"govern", govern_head, govern_tail, opts, NULL, 20};

    return pp_opt_parse(&c, argc, argv);
}

/* 0, 1 (--help), or an exit status. */
static int parse(int argc, char **argv, govern_args *a, pp_plan_options *o)
{
    int rc;

    pp_plan_options_init(o);
    pp_mission_ask_init(&a->ask);
    pp_sim_options_init(&a->sim);
    a->every_s = 5;
    a->speed = 1;
    a->scale_f = 1;
    if ((rc = govern_options(argc, argv, a, o)) != 0)
        return rc;
    if (a->ignore_soc)
        a->sim.gov.trust_soc = 0;
    if (optind != argc - 1 || (!a->source == !a->simulate)) {
        fputs("powprof govern: a results folder and either --source SRC or --simulate ACTUAL "
              "are needed (powprof govern --help)\n", stderr);
        return PP_EXIT_USAGE;
    }
    if (!a->simulate && (a->sim.pack_scale != 1 || a->sim.stretch_phase >= 0)) {
        fputs("powprof govern: --pack-scale and --stretch are surprises of --simulate: a real "
              "source flies the real pack\n", stderr);
        return PP_EXIT_USAGE;
    }
    if (a->ask.file && a->ask.given.mission_s > 0) {
        fputs("powprof govern: --mission FILE has its phases: no --mission-s\n", stderr);
        return PP_EXIT_USAGE;
    }
    a->results = argv[optind];
    a->sim.every_s = a->every_s;
    a->sim.step_s = fmin(a->sim.step_s, a->every_s);
    return mission_of(a, o);
}

static void print_doc(json_t *doc)
{
    json_dumpf(doc, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
    printf("\n");
    json_decref(doc);
}

static void catch_stop(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: a wait or a read ends with EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

/* What a decision leaves: the --text line's memory, the state file. */
typedef struct decision_sink {
    const govern_args *a;
    double prev;       /* the value set before (NaN: none) */
    int prev_feasible;
    int written;       /* the state file written once */
} decision_sink;

/* The state file rewritten: 0, or -1 when it was never written (nothing
 * stays there: said, the loop ends). */
static int save_state(const char *path, const json_t *o, int *written)
{
    if (pp_gov_state_save(path, o) == 0) {
        *written = 1;
        return 0;
    }
    if (!*written) {
        fprintf(stderr, "powprof govern: --state %s cannot be written: nothing governed\n", path);
        return -1;
    }
    fprintf(stderr, "powprof govern: the last state stays in %s\n", path);
    return 0;
}

/* A decision on stdout: its JSON line, or with --text a line for a person
 * when the setting or the feasibility changed (and the first); then the
 * state file. 0, or -1 (the flight stops). */
static int on_decision(void *ctx, const json_t *o, int first)
{
    decision_sink *k = ctx;
    int feasible = json_is_true(json_object_get(o, "feasible"));
    char line[512];

    if (!k->a->text) {
        json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
        printf("\n");
    } else if (first || json_is_true(json_object_get(o, "changed")) || feasible != k->prev_feasible) {
        pp_gov_decision_text(o, k->prev, line, sizeof line);
        printf("%s\n", line);
    }
    k->prev = json_number_value(json_object_get(o, "value"));
    k->prev_feasible = feasible;
    fflush(stdout);
    return k->a->state ? save_state(k->a->state, o, &k->written) : 0;
}

/* Readings to decisions until the source ends or a signal: an exit status
 * (PP_EXIT_FAILURE when the source failed, the state could not be
 * written, or nothing was governed). */
static int govern_loop(const pp_model *m, const pp_phases_plan *r, const govern_args *a,
                       pp_gov *g, pp_gov_source *src)
{
    decision_sink k = {a, NAN, 1, 0};
    pp_gov_flight f;

    catch_stop();
    if (a->state)
        pp_gov_state_stale_remove(a->state);
    pp_gov_fly(m, r, a->res.spec, g, src, &stop_signal, on_decision, &k, &f);
    fprintf(stderr, "powprof govern: %zu decisions, %zu readings refused, %zu taken%s\n",
            f.decisions, f.refused, f.taken,
            stop_signal ? (stop_signal == SIGTERM ? "; stopped by SIGTERM, the last state kept"
                                                  : "; stopped by SIGINT, the last state kept")
                        : f.decisions == 0 && !f.failed ? ": nothing governed" : "");
    if (f.failed || (f.decisions == 0 && !stop_signal))
        return PP_EXIT_FAILURE;
    return f.feasible ? 0 : 3;
}

/* --simulate: the plan r flown in virtual time against the actual load,
 * printed (json: one object) and plotted: an exit status (3: the governed
 * run ended below the reserve). */
static int simulate(const pp_model *m, const pp_phases_plan *r, const govern_args *a)
{
    pp_sim_options so = a->sim;
    pp_battery_params pack;
    pp_plot_result pr;
    pp_sim_result s;
    int rc, held = 0;

    if (!r->res.feasible) {
        fprintf(stderr, "powprof govern: the plan made before take-off does not keep the reserve "
                        "(powprof plan --mission says more): nothing to hold\n");
        return 3;
    }
    if ((rc = pp_sim_pack(a->simulate, &pack, &held)) < 0)
        return PP_EXIT_USAGE;
    if (rc == 1) {
        fprintf(stderr, "powprof govern: the pack flown: thevenin fitted from %s: %d cells, "
                        "%.3g Ah, R0 %.3g ohm%s\n", a->simulate, pack.cells, pack.capacity_ah,
                pack.r_int_ohm, held ? " (the capacity the log's: the flight covers too little "
                                       "of the charge)" : "");
        so.pack = &pack;
    }
    if ((rc = pp_sim_simulate(r, a->simulate, a->scale_t_s, a->scale_f, &so, &s)) < 0)
        return rc == -EINVAL ? PP_EXIT_USAGE : PP_EXIT_FAILURE;
    if (a->json)
        print_doc(pp_sim_json(r, &s, a->simulate, a->scale_t_s, a->scale_f, &so));
    else
        pp_sim_text(stdout, m, r, &s, &so);
    if (a->plot && pp_sim_plot(a->plot, m, r, &s, &pr) == 0)
        fprintf(stderr, "powprof govern: plot %s/governor.%s\n", a->plot,
                pr.gnuplot_missing ? "gp (gnuplot is not installed: not rendered)"
                : pr.n_rendered ? "png" : "gp (gnuplot failed on it)");
    if (a->plot)
        pp_plot_result_free(&pr);
    rc = s.run[PP_SIM_GOVERNED].reserve_held ? 0 : 3;
    pp_sim_result_free(&s);
    return rc;
}

int pp_cmd_govern(int argc, char **argv)
{
    govern_args a;
    pp_plan_options o;
    pp_phases_plan *r = NULL;
    pp_gov_source src;
    pp_gov *g = NULL;
    pp_model m;
    int rc, have_model = 0, have_src = 0;

    memset(&a, 0, sizeof a);
    if ((rc = parse(argc, argv, &a, &o)) != 0)
        goto out;
    rc = PP_EXIT_USAGE;
    if (pp_pipeline_plan_model(a.results, o.maximize, NULL, 0, &m) < 0)
        goto out;
    have_model = 1;
    if (!(r = malloc(sizeof *r)) || pp_plan_phases(&m, &o, a.res.spec, r) < 0) {
        free(r);
        r = NULL;
        goto out;
    }
    if (a.simulate) {
        rc = simulate(&m, r, &a);
        goto out;
    }
    if (pp_gov_source_open(a.source, stdin, a.root, a.every_s, a.speed, &src) < 0)
        goto out;
    have_src = 1;
    a.sim.gov.every_s = a.every_s; /* a decision per --every of the readings' time */
    if (pp_gov_new(&r->problem, &a.sim.gov, &g) < 0)
        goto out;
    rc = govern_loop(&m, r, &a, g, &src);
out:
    pp_gov_free(g);
    if (have_src)
        pp_gov_source_close(&src);
    if (r)
        pp_phases_plan_free(r);
    free(r);
    if (have_model)
        pp_model_free(&m);
    pp_mission_resolved_free(&a.res);
    return rc == 1 ? 0 : rc;
}
