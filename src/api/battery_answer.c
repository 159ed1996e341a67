/* battery_answer.c - `powprof battery`'s answers (battery_answer.h): a
 * trace drained, a flight log against the model, a pack fitted to flight
 * logs; the CLI parses and calls. */
#include "battery_answer.h"

#include "src/base/util.h"
#include "src/flight/flight.h"
#include "src/flight/flight_log.h"
#include "src/results/battery_doc.h"
#include "src/results/flight_fit_doc.h"
#include "src/results/json_file.h"
#include "src/traces/trace.h"
#include "plots/plot_fit.h"
#include "plots/plot_flight.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct soc_writer {
    FILE *fp;
} soc_writer;

static void write_row(void *ctx, double t_s, double soc, double v, double i)
{
    soc_writer *w = ctx;
    fprintf(w->fp, "%.6f,%.9f,%.6f,%.6f\n", t_s, soc, v, i);
}

/* A bad sample (a time not after the one before, ...): -EINVAL, printed
 * with the file's line (the header is line 1; gap rows, skipped, would
 * shift it: then the sample's number). */
static int load_error(const char *path, const pp_battery_load *load, size_t n_gaps)
{
    size_t bad;
    char why[256];

    if (pp_battery_load_check(load, &bad, why, sizeof why) == 0)
        return 0;
    if (n_gaps == 0)
        fprintf(stderr, "powprof battery: %s:%zu: %s\n", path, bad + 2, why);
    else
        fprintf(stderr, "powprof battery: %s: sample %zu: %s\n", path, bad + 1, why);
    return -EINVAL;
}

/* Drain battery p with the load of a->trace; the result into *res, the
 * state of charge at each sample into -o's file. An exit status. */
static int drain(const pp_battery_ask *a, const pp_battery_params *p, pp_battery_result *res)
{
    pp_trace_load trace = {0};
    pp_atomic_file af = {0};
    pp_battery_options bo;
    pp_battery_load load;
    soc_writer w;
    int rc, status = PP_BATTERY_EXIT_FAILURE;

    /* Time and load only (16 bytes a sample); a trace that will not fit in
     * memory is refused with its size before anything is allocated. */
    if ((rc = pp_trace_read_load(a->trace, a->rail, 0, &trace)) < 0)
        return rc == -ENOMEM ? PP_BATTERY_EXIT_FAILURE : PP_BATTERY_EXIT_USAGE;
    load = (pp_battery_load){.t_s = trace.t_s, .p_w = trace.p_w, .n = trace.n};
    if (load_error(a->trace, &load, trace.n_gaps) < 0) {
        status = PP_BATTERY_EXIT_USAGE;
        goto out;
    }
    pp_battery_options_init(&bo);
    bo.until_cutoff = a->until;
    if (a->rtol > 0)
        bo.rtol = a->rtol;
    if (a->out_path) {
        if (pp_atomic_file_open(&af, a->out_path) < 0)
            goto out;
        fputs("t_s,soc_frac,voltage_v,current_a\n", af.fp);
        w.fp = af.fp;
        bo.output = write_row;
        bo.output_ctx = &w;
    }
    if ((rc = pp_battery_run(p, &load, &bo, res)) < 0)
        status = rc == -EINVAL ? PP_BATTERY_EXIT_USAGE : PP_BATTERY_EXIT_FAILURE;
    else if (!a->out_path || pp_atomic_file_commit(&af) == 0)
        status = 0;
out:
    pp_atomic_file_abort(&af);
    pp_trace_load_free(&trace);
    return status;
}

/* A trace of a results folder (DIR/traces/ID.csv) with no battery asked
 * for flies the folder's own (DIR/profile.cfg, copied there by the sweep):
 * its path into buf, said on stderr. */
static void folder_battery(pp_battery_ask *a, char *buf, size_t cap)
{
    const char *slash = strrchr(a->trace, '/');
    pp_battery_choice *c = &a->choice;
    size_t len;

    if (c->file || c->preset || c->preset_or_file || !slash)
        return;
    len = (size_t)(slash - a->trace);
    if (len < 6 || strncmp(slash - 6, "traces", 6) != 0 || (len > 6 && slash[-7] != '/'))
        return;
    if (pp_fmt(buf, cap, "%.*sprofile.cfg", (int)(len - 6), a->trace) < 0 ||
        access(buf, F_OK) != 0)
        return;
    c->file = buf;
    fprintf(stderr, "powprof battery: the results folder's battery: %s's battery group (-c or "
            "--preset for another)\n", buf);
}

/* A plot written and rendered, said on stderr (stdout may be JSON): 0, or
 * -1 when it failed. */
static int plot_said(const char *cmd, const char *dir, const char *name, int rc,
                     pp_plot_result *r)
{
    int failed = rc < 0 || (!r->gnuplot_missing && r->n_rendered == 0);

    if (rc == 0 && r->gnuplot_missing)
        fprintf(stderr, "powprof %s: no gnuplot: %s/%s.gp written, not rendered\n", cmd, dir,
                name);
    else if (rc == 0 && r->n_rendered == 0)
        fprintf(stderr, "powprof %s: gnuplot failed on %s/%s.gp: %s\n", cmd, dir, name,
                r->n_scripts ? r->scripts[0].error : "?");
    else if (rc == 0)
        fprintf(stderr, "powprof %s: plot %s/%s.png\n", cmd, dir, name);
    pp_plot_result_free(r);
    return failed ? -1 : 0;
}

/* -o: one row per logged sample the model reached. */
typedef struct sample_writer {
    FILE *fp;
    int instance;
} sample_writer;

static void write_sample(void *ctx, double t_s, double soc, double v_model, double v_logged,
                         double current_a)
{
    sample_writer *w = ctx;

    fprintf(w->fp, "%d,%.6f,%.6f,%.6f,%.6f,%.6f\n", w->instance, t_s, soc, v_model, v_logged,
            current_a);
}

/* Battery b against pack pk into c, its samples into af when open. */
static int check_one(const pp_ulog_battery *b, const pp_battery_params *pk, int user_pack,
                     pp_atomic_file *af, pp_flight_check *c)
{
    pp_flight_check_options co;
    sample_writer w = {af->fp, b->instance};

    pp_flight_check_options_init(&co);
    co.keep_capacity = user_pack; /* -c's pack as given (the log's cells where it must) */
    if (af->fp) {
        co.sample = write_sample;
        co.sample_ctx = &w;
    }
    return pp_flight_check_with(b, pk, &co, c);
}

/* The pack for battery b: the one asked for, else the log's (flight.h). */
static const char *pack_for(const pp_ulog_flight *f, const pp_ulog_battery *b,
                            const pp_battery_params *asked, int user_pack, pp_battery_params *p)
{
    if (user_pack) {
        *p = *asked;
        return "";
    }
    return pp_flight_pack_for(f, b, p) ? " (with the autopilot's BAT_* parameters of the "
                                         "log)"
                                       : " (thevenin: a lithium pack's curve; -c, --preset or "
                                         "--model for another)";
}

/* A flight log against the model: each battery of it flown with its pack. */
static int flight_answer(const char *path, const pp_battery_params *asked, int user_pack,
                         int json, const char *out_path, const char *plot_dir)
{
    pp_atomic_file af = {0};
    pp_battery_params pk, flown[PP_ULOG_MAX_BATTERIES];
    const char *from;
    char left[512];
    pp_ulog_flight f;
    pp_flight_check c;
    json_t *arr = json_array();
    int status = 0;

    if (pp_flight_log_read(path, &f) < 0) {
        pp_ulog_flight_free(&f);
        json_decref(arr);
        return PP_BATTERY_EXIT_USAGE;
    }
    if (f.n_batteries == 0) {
        fprintf(stderr, "powprof battery: %s: %s\n", path,
                f.battery_defined && (f.n_skipped || f.n_unmeasured) ? "the log defines battery_status but every sample of it was left out (see above): no flight to compare with"
                : f.battery_defined ? "the log defines battery_status but holds no sample of it: "
                                    "no flight to compare with"
                                  : "the log has no battery_status topic: no flight to compare "
                                    "with");
        status = PP_BATTERY_EXIT_USAGE;
    }
    if (status == 0 && out_path && pp_atomic_file_open(&af, out_path) < 0)
        status = PP_BATTERY_EXIT_FAILURE;
    if (af.fp)
        fputs("battery,t_s,soc_frac,voltage_model_v,voltage_logged_v,current_a\n", af.fp);
    if (!json && status == 0)
        printf("flight %s: the model driven by the logged power (voltage_v x current_a)\n", path);
    pp_flight_log_left_out(&f, left, sizeof left);
    if (!json && status == 0 && left[0])
        printf("%s\n", left);
    for (size_t b = 0; b < f.n_batteries && status == 0; b++) {
        from = pack_for(&f, &f.bat[b], asked, user_pack, &pk);
        if (check_one(&f.bat[b], &pk, user_pack, &af, &c) < 0) {
            status = PP_BATTERY_EXIT_USAGE;
            continue;
        }
        flown[b] = c.pack; /* as compared: the log's cells, capacity and start */
        if (json)
            json_array_append_new(arr, pp_flight_check_json(&c));
        else
            pp_flight_check_print(stdout, &c, from);
    }
    if (json && status == 0) {
        json_t *root = json_pack("{s:s,s:o}", "flight", path, "batteries", arr);
        json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(12));
        printf("\n");
        json_decref(root);
    } else {
        json_decref(arr);
    }
    if (plot_dir && status == 0) { /* the series beside each other, as Flight Review */
        pp_plot_result pr;
        if (plot_said("battery", plot_dir, "battery-flight",
                             pp_plot_flight(plot_dir, &f, flown, &pr), &pr) < 0)
            status = PP_BATTERY_EXIT_FAILURE;
    }
    if (status == 0 && af.fp) {
        if (pp_atomic_file_commit(&af) < 0)
            status = PP_BATTERY_EXIT_FAILURE;
        else if (!json)
            printf("wrote %s: per sample, the model beside the log\n", out_path);
    }
    pp_atomic_file_abort(&af);
    pp_ulog_flight_free(&f);
    return status;
}

/* The name of the pack the fit replaces. */
static const char *before_name(const pp_battery_fit_ask *a)
{
    return pp_flight_fit_replaces(a->choice.file, a->choice.preset);
}

/* --plot DIR: written and rendered, said on stderr (stdout may be JSON). */
static int plot(const pp_battery_fit_ask *a, const pp_flight_fit *r)
{
    pp_plot_result pr;
    int rc = pp_plot_fit(a->plot_dir, r, &pr);

    return plot_said("battery fit", a->plot_dir, "battery-fit", rc, &pr);
}

int pp_battery_answer(pp_battery_ask *a)
{
    pp_battery_params params;
    pp_battery_result res;
    char folder_cfg[PP_PATH_MAX];
    int rc;

    folder_battery(a, folder_cfg, sizeof folder_cfg);
    if (pp_battery_choose(&a->choice, &params) < 0)
        return PP_BATTERY_EXIT_USAGE;
    if (pp_flight_log_is(a->trace) && (a->until || a->rail)) {
        fprintf(stderr, "powprof battery: %s: %s on a flight log: %s\n", a->trace,
                a->until ? "--until-cutoff" : "--rail", a->until
                    ? "the model follows the flight to its end, it does not repeat it to a "
                      "cutoff (powprof import ulog, then plan, for how long a pack lasts)"
                    : "battery_status is the pack's own power, it has no rails to choose");
        return PP_BATTERY_EXIT_USAGE;
    }
    if (pp_flight_log_is(a->trace)) /* a recorded flight: the model against it */
        return flight_answer(a->trace, &params,
                             a->choice.file || a->choice.preset || a->choice.model, a->json,
                             a->out_path, a->plot_dir);
    if (a->plot_dir) {
        fputs("powprof battery: --plot draws a flight log beside the model; a trace's run is "
              "written with -o\n", stderr);
        return PP_BATTERY_EXIT_USAGE;
    }
    if ((rc = drain(a, &params, &res)) != 0)
        return rc;
    if (a->json) {
        json_t *doc = pp_battery_drain_json(a->trace, &params, &res);
        json_dumpf(doc, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
        fputc('\n', stdout);
        json_decref(doc);
    } else
        pp_battery_drain_print(stdout, a->trace, &params, &res);
    return 0;
}

int pp_battery_fit_start(const pp_battery_choice *c, pp_flight_fit_options *o)
{
    int rc = pp_battery_choose(c, &o->start);

    if (rc < 0)
        return rc;
    o->start_given = c->file || c->preset;
    if (o->start_given && (rc = pp_battery_choice_capacity_given(c)) < 0)
        return rc;
    o->capacity_unstated = o->start_given && rc == 0;
    return 0;
}

int pp_battery_fit_answer(pp_battery_fit_ask *a)
{
    pp_flight_fit r;
    int rc;

    if (pp_battery_fit_start(&a->choice, &a->o) < 0)
        return PP_BATTERY_EXIT_USAGE;
    rc = pp_flight_fit_run(a->logs, a->n_logs, &a->o, &r);
    if (rc < 0) {
        pp_flight_fit_free(&r);
        return rc == -EINVAL ? PP_BATTERY_EXIT_USAGE : PP_BATTERY_EXIT_FAILURE;
    }
    if (a->json) {
        json_t *doc = pp_flight_fit_json(&r, before_name(a), a->out);
        json_dumpf(doc, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
        fputc('\n', stdout);
        json_decref(doc);
    } else
        pp_flight_fit_print(stdout, &r, before_name(a), a->o.train_s > 0);
    if (a->out && pp_flight_fit_write(&r, before_name(a), a->out, a->force) < 0)
        rc = -1;
    if (rc == 0 && a->out && !a->json)
        printf("wrote %s: the fitted pack as a battery group (battery -c, plan -c)\n", a->out);
    if (rc == 0 && a->plot_dir)
        rc = plot(a, &r);
    pp_flight_fit_free(&r);
    return rc < 0 ? PP_BATTERY_EXIT_FAILURE : 0;
}
