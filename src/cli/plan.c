/* powprof plan: parse the options, plan with the library (plan.h), print. */
#include "cli.h"

#include "src/api/answer.h"
#include "src/api/pipeline.h"
#include "src/base/util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char plan_head[] =
    "usage: powprof plan RESULTS --mission-s S [--maximize NAME] [--min-soc F]\n"
    "                    [--base-power-w W | --base-trace FILE] [-c CONFIG]\n"
    "                    [--risk upper|mean] [--tolerance F] [--resolution NAME=STEP]...\n"
    "                    [--fix NAME=VALUE]... [--schedule] [--min-rate R | --work N]\n"
    "                    [--node NAME | --across-nodes mean|worst]\n"
    "                    [--layer-model MODEL.json --measured CFG --network CFG...]\n"
    "                    [--json]\n"
    "\n"
    "Find the configuration, anywhere in the modelled space (not only the\n"
    "measured ones), with the highest quality of service NAME such that the\n"
    "battery, drained by the computer's predicted total power and the constant\n"
    "base load beside it (motors), completes a mission of S seconds with a state\n"
    "of charge of at least F and no cutoff event. Predictions come from the model\n"
    "of RESULTS (`powprof model`; RESULTS/model.json when it matches summary.csv).\n"
    "\n"
    "Quality of service: where summary.csv has a component's achieved rate\n"
    "(<component>.achieved_fps beside <component>.fps), the achieved rate is\n"
    "maximized, and a configuration whose achieved rate falls short of the\n"
    "requested one by more than the tolerance is never recommended (said so).\n"
    "Power: the upper end of the prediction's 90 % band by default (--risk\n"
    "mean: the prediction itself). Settings: each parameter's values follow its\n"
    "sweep (a linear range's step; integers stay integers) or --resolution.\n"
    "Which objective for which component: one paced by a rate (fps: darknet, a\n"
    "camera loop) is planned on its achieved rate, its cost the power; one that\n"
    "does units of work (exec run to completion or for N iterations: files,\n"
    "batches) is costed per unit: each choice prints its energy per unit of work\n"
    "and the rate it keeps up, and --min-rate R or --work N leave out what cannot\n"
    "keep up (planned by mean power alone, a slow setting that draws less while\n"
    "taking longer per unit would win: xz -9 takes 3.5x longer per file); an\n"
    "idle or constant load has a power only.\n"
    "When nothing completes the mission, says so and how long the most frugal\n"
    "configuration lasts. --schedule: start at the highest quality the charge\n"
    "allows and step down to the best plan (never below it), with the time of\n"
    "each switch; its end is one battery run over the whole schedule.\n"
    "\n"
    "Missions in phases (--mission FILE, FILE's mission group: phases with a\n"
    "duration, a base load each, a constant or a recorded flight's power, and\n"
    "bounds per phase, e.g. min = { det = { fps = 15.0; }; }; its fixed list\n"
    "[\"NAME=VALUE\", ...] held in every phase, as --fix; see powprof(1)):\n"
    "a configuration per phase maximizing the time-weighted quality while one\n"
    "battery run over the whole mission (each phase's computer power plus its\n"
    "base load) ends above the reserve; phases whose bounds no configuration\n"
    "meets are said, with the settings there are; the gain against the best\n"
    "single configuration held throughout. --base-trace FILE with --mission-s:\n"
    "one phase whose base load is FILE's total power (a trace, a flight log:\n"
    "a .ulg or its ulog2csv battery_status CSV, or a folder of `powprof\n"
    "import`), cut or repeated to S.\n"
    "\n"
    "Networks never run: with a layer model (`powprof layers model`), each\n"
    "--network CFG is planned as if it ran in the place of the --measured one\n"
    "(how: man powprof, plan).\n"
    "CFG: a name in /usr/share/darknet/cfg (\".cfg\" optional) or a path.\n";

#define MAX_NETWORKS PP_SWAP_MAX_NETWORKS

/* Which board the plan is for, and the mission asked for. */
typedef struct plan_target {
    const char *node; /* --node NAME */
    int worst;        /* --across-nodes worst */
    int json;
    const char *layer_model, *measured; /* networks never run */
    size_t n_networks;
    const char *network[MAX_NETWORKS];
    pp_mission_ask ask;      /* the options of the mission */
    pp_mission_resolved res; /* resolved by the library */
} plan_target;

/* --fix NAME=VALUE: the parameter held at that value. */
static int fix_option(const pp_opt *row, const char *arg, const char *cmd)
{
    pp_plan_options *o = row->value;
    const char *eq = strchr(arg, '=');
    pp_plan_fixed *f = &o->fixed[o->n_fixed];

    if (!eq || eq == arg || !eq[1] || o->n_fixed == PP_SUMMARY_MAX_PARAMS ||
        pp_fmt(f->name, sizeof f->name, "%.*s", (int)(eq - arg), arg) < 0 ||
        pp_fmt(f->value, sizeof f->value, "%s", eq + 1) < 0) {
        fprintf(stderr, "powprof %s: --fix %s: NAME=VALUE expected (a number, or a label)\n",
                cmd, arg);
        return -1;
    }
    o->n_fixed++;
    return 0;
}

static int network_option(const pp_opt *row, const char *arg, const char *cmd)
{
    plan_target *t = row->value;

    if (t->n_networks == MAX_NETWORKS) {
        fprintf(stderr, "powprof %s: --network %s: at most %d networks\n", cmd, arg, MAX_NETWORKS);
        return -1;
    }
    t->network[t->n_networks++] = arg;
    return 0;
}

/* --across-nodes mean|worst into an int (1: worst). */
static int across_parse(const char *arg, void *worst)
{
    *(int *)worst = strcmp(arg, "worst") == 0;
    return *(int *)worst || strcmp(arg, "mean") == 0 ? 0 : -1;
}

/* Options that do not go together: said, and 1. */
static int options_conflict(const plan_target *t)
{
    const pp_mission_ask *q = &t->ask;

    if (t->node && t->worst) {
        fputs("powprof plan: --node and --across-nodes worst: give one\n", stderr);
        return 1;
    }
    if ((t->n_networks > 0) != (t->layer_model != NULL) ||
        (t->n_networks > 0) != (t->measured != NULL)) {
        fputs("powprof plan: --network, --layer-model and --measured go together\n", stderr);
        return 1;
    }
    if (q->file && (q->given.mission_s > 0 || q->base_trace)) {
        fputs("powprof plan: --mission FILE has its phases: no --mission-s or --base-trace\n",
              stderr);
        return 1;
    }
    if ((q->file || q->base_trace) && (t->n_networks || q->given.base_power_w >= 0)) {
        fputs("powprof plan: --mission and --base-trace go without --network and "
              "--base-power-w (the phases say their base load)\n", stderr);
        return 1;
    }
    return 0;
}

/* The options, as the table of plan_parse says them. */
static int plan_options(int argc, char **argv, pp_plan_options *o, plan_target *t)
{
    pp_mission_settings *mi = &t->ask.given;
    const pp_opt opts[] = {
        PP_CLI_MISSION_S_ROW(mi, "mission length: seconds, or 10min, 1h30m, 1 s to 1e7 s\n"
                             "(required unless RESULTS/profile.cfg has a mission)"),
        PP_OPT_STRING(0, "mission", &t->ask.file, "FILE", "a mission in phases: FILE's "
                      "mission group (and its\nbattery group, read over -c's)"),
        PP_OPT_STRING(0, "base-trace", &t->ask.base_trace, "FILE", "base load: a recorded power "
                      "trace or flight log (one phase)"),
        PP_OPT_STRING(0, "maximize", &o->maximize, "NAME", "the parameter to maximize (default: "
                      "a *fps\nparameter, else the first numeric one)"),
        PP_CLI_MIN_SOC_ROW(mi, "state of charge to keep at the end, 0.2 or 20%\n(default: the "
                           "battery's soc_cutoff)"),
        PP_CLI_BASE_POWER_ROW(mi, "constant load beside the computer (motors, ...)"),
        PP_OPT_STRING('c', "config", &mi->config, "FILE", "battery parameters (its 'battery' "
                      "group; default\nRESULTS/profile.cfg's, else drone-4s-3200); what\nis not "
                      "given (duration, base load, reserve,\nmaximize) comes\nfrom "
                      "RESULTS/profile.cfg's mission group"),
        PP_OPT_CALLBACK(0, "fix", o, "NAME=VALUE", "hold parameter NAME at VALUE (a number "
                        "within the\nmeasured range, or a label): an input that is not\na knob; "
                        "repeat for several", fix_option),
        PP_CLI_RISK_ROW(mi, "plan with the band's upper end (default) or the\nprediction"),
        PP_OPT_RANGE(0, "tolerance", &o->tolerance_frac, "F", "achieved rate may fall short by "
                     "this fraction (0.05)", 0, 1, PP_OPT_HI_OPEN, "a fraction in [0, 1)"),
        PP_OPT_RANGE(0, "min-rate", &o->min_rate_per_s, "R", "leave out what keeps up fewer "
                     "than R units of work a\nsecond (power / energy_per_iteration_j)", 0,
                     HUGE_VAL, PP_OPT_LO_OPEN, "a number of units per second > 0"),
        PP_OPT_RANGE(0, "work", &t->ask.work_units, "N", "N units of work to finish within the "
                     "mission: a\n--min-rate of N / the mission's seconds", 0, HUGE_VAL,
                     PP_OPT_LO_OPEN, "a number of units > 0"),
        PP_OPT_CALLBACK(0, "resolution", o, "NAME=STEP", "the step of parameter NAME in the plan "
                        "(repeatable)", pp_cli_opt_resolution),
        PP_OPT_BOOL(0, "schedule", &o->schedule, "a step-down schedule (a constant base load: "
                    "not with\n--mission or --base-trace, which plan per phase)"),
        PP_OPT_STRING(0, "node", &t->node, "NAME", "plan for one board of a merged folder "
                      "(powprof merge):\nevery prediction times that node's factor (its value\n"
                      "over the mean of the nodes, on the configurations\nmeasured on several); "
                      "see powprof model"),
        PP_OPT_PARSE(0, "across-nodes", &t->worst, "WHICH", "mean: the fleet's mean board "
                     "(default); worst: the most\npower-hungry board measured (the highest "
                     "power factor)", across_parse, "mean or worst"),
        PP_OPT_STRING(0, "layer-model", &t->layer_model, "FILE", "a layer model (powprof layers "
                      "model -o FILE)"),
        PP_OPT_STRING(0, "measured", &t->measured, "CFG", "the network RESULTS ran"),
        PP_OPT_CALLBACK(0, "network", t, "CFG", "a network to plan for in its place "
                        "(repeatable;\none plan each, then a table side by side)", network_option),
        PP_OPT_BOOL(0, "json", &t->json, "one JSON object on stdout"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"plan", plan_head, "exit status: 0 with a plan, 3 when no "
                          "configuration completes the mission.\n", opts, NULL, 0};

    return pp_opt_parse(&c, argc, argv);
}

static int parse(int argc, char **argv, pp_plan_options *o, plan_target *t)
{
    const pp_mission_ask *q = &t->ask;
    int rc;

    pp_plan_options_init(o);
    pp_mission_ask_init(&t->ask);
    if ((rc = plan_options(argc, argv, o, t)) != 0)
        return rc;
    if (options_conflict(t))
        return PP_EXIT_USAGE;
    t->ask.results = optind == argc - 1 ? argv[optind] : NULL;
    if (pp_mission_settle(q, &t->res) < 0)
        return PP_EXIT_USAGE; /* said with the file */
    if (o->schedule && (t->res.file || q->base_trace)) {
        fprintf(stderr, "powprof plan: --schedule steps one configuration down over a constant "
                "base load; %s plans a configuration per phase instead: leave --schedule out "
                "(or cut the mission into phases)\n",
                q->base_trace ? "--base-trace" : t->res.folder_phases
                                                     ? "the results' mission in phases"
                                                     : "--mission");
        return PP_EXIT_USAGE;
    }
    if (optind != argc - 1 || (rc = pp_mission_apply(q, &t->res, o)) == -ENOENT) {
        fputs("powprof plan: a results folder and --mission-s S (or --mission FILE, or a "
              "mission group in the folder's profile.cfg) are needed\n", stderr);
        return PP_EXIT_USAGE;
    }
    return rc == -ENOMEM ? PP_EXIT_FAILURE : rc < 0 ? PP_EXIT_USAGE : 0;
}

static void print_json(json_t *root)
{
    json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
    printf("\n");
    json_decref(root);
}

/* The measured network's plan, then each --network's in its place. */
static int plan_networks(const pp_model *m, const pp_plan_options *o, const plan_target *t)
{
    pp_swap_plans *sp = malloc(sizeof *sp);
    int rc = sp ? pp_swap_plan_networks(m, o, t->layer_model, t->measured, t->network,
                                        t->n_networks, sp)
                : -ENOMEM;

    if (rc == 0 && t->json)
        print_json(pp_networks_plan_json(m, o, t->layer_model, t->measured, sp));
    else if (rc == 0)
        pp_networks_plan_text(stdout, m, o, t->measured, sp);
    if (rc == 0)
        rc = sp->any_feasible ? 0 : 3;
    else
        rc = rc == -ENOMEM ? PP_EXIT_FAILURE : PP_EXIT_USAGE;
    if (sp)
        pp_swap_plans_free(sp);
    free(sp);
    return rc;
}

/* The plan per phase of mi on m, printed (json: one object): an exit status
 * (3: no schedule keeps the reserve). */
static int plan_phases(const pp_model *m, const pp_plan_options *o, const pp_mission_spec *mi,
                       int json)
{
    pp_phases_plan *r = malloc(sizeof *r);
    int rc;

    if (!r)
        return PP_EXIT_FAILURE;
    if ((rc = pp_plan_phases(m, o, mi, r)) < 0) {
        free(r);
        return rc == -ENOMEM ? PP_EXIT_FAILURE : PP_EXIT_USAGE;
    }
    if (json)
        print_json(pp_phases_plan_json(m, o, mi, r));
    else
        pp_phases_plan_text(stdout, m, o, mi, r);
    rc = r->res.feasible ? 0 : 3;
    pp_phases_plan_free(r);
    free(r);
    return rc;
}

/* --maximize, --fix, --resolution name parameters of m: 0, or PP_EXIT_USAGE (said). */
static int check_names(const pp_model *m, const pp_plan_options *o)
{
    char why[1024];

    if (pp_plan_names_check(m, o, why, sizeof why) == 0)
        return 0;
    fprintf(stderr, "powprof plan: %s\n", why);
    return PP_EXIT_USAGE;
}

/* The plan of one board in words or JSON: an exit status. */
static int plan_one(const pp_model *m, const pp_plan_options *o, const plan_target *t)
{
    pp_plan_result *r = malloc(sizeof *r);
    int rc = r ? pp_plan(m, o, r) : -ENOMEM;

    if (rc == 0 && t->json)
        print_json(pp_plan_json(m, o, r));
    else if (rc == 0) {
        pp_cli_mission_say(&t->res.mi, &o->battery, stdout);
        pp_plan_node_text(stdout, m, t->worst);
        pp_plan_text(stdout, m, o, r);
    }
    rc = rc == -ENOMEM ? PP_EXIT_FAILURE : rc < 0 ? PP_EXIT_USAGE : r->feasible ? 0 : 3;
    free(r);
    return rc;
}

int pp_cmd_plan(int argc, char **argv)
{
    pp_plan_options o;
    plan_target t = {0};
    pp_model m;
    int rc;

    if ((rc = parse(argc, argv, &o, &t)) == 0 &&
        (rc = pp_pipeline_plan_model(argv[optind], o.maximize, t.node, t.worst, &m)) < 0)
        rc = rc == -ENOMEM ? PP_EXIT_FAILURE : PP_EXIT_USAGE;
    else if (rc == 0) {
        if ((rc = check_names(&m, &o)) == 0 && t.res.spec)
            rc = plan_phases(&m, &o, t.res.spec, t.json);
        else if (rc == 0)
            rc = t.n_networks ? plan_networks(&m, &o, &t) : plan_one(&m, &o, &t);
        pp_model_free(&m);
    }
    pp_mission_resolved_free(&t.res);
    return rc == 1 ? 0 : rc;
}

