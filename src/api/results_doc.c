/* The answers of import, merge, plot and ulog info (results_doc.h). */
#include "results_doc.h"

#include "src/base/util.h"
#include "src/config/battery_config.h"
#include "src/flight/flight.h"
#include "src/flight/flight_log.h"
#include "src/flight/ulog.h"
#include "src/flight/ulog_trace.h"
#include "src/results/import.h"
#include "src/results/import_ulog.h"
#include "src/results/json_file.h"
#include "src/results/run_json.h"
#include "src/results/tmpdir.h"
#include "plots/plot_plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* doc on stdout with flags, then a newline; doc released. */
static void print_json(json_t *doc, size_t flags)
{
    json_dumpf(doc, stdout, flags);
    putchar('\n');
    json_decref(doc);
}

/* ---- import ------------------------------------------------------------- */

int pp_import_param_add(pp_import_request *rq, const char *arg, char *why, size_t cap)
{
    const char *eq = strchr(arg, '=');
    char *name;

    why[0] = '\0';
    if (rq->n_fixed == PP_IMPORT_MAX_PARAMS) {
        pp_text(why, cap, "more than %d --param", PP_IMPORT_MAX_PARAMS);
        return -EINVAL;
    }
    name = rq->fixed_names[rq->n_fixed];
    if (!eq || pp_parse_double(eq + 1, &rq->fixed_values[rq->n_fixed]) < 0) {
        pp_text(why, cap, "--param %s: NAME=NUMBER expected", arg);
        return -EINVAL;
    }
    if (pp_fmt(name, sizeof rq->fixed_names[0], "%.*s", (int)(eq - arg), arg) < 0) {
        pp_text(why, cap, "--param %s: NAME is at most 63 characters", arg);
        return -EINVAL;
    }
    if (pp_name_check(name, "--param") < 0)
        return -EINVAL;
    rq->n_fixed++;
    return 0;
}

/* One of names (NULL-ended): its scale into *out (watts or seconds). */
static int scale_of(const char *arg, const char *const *names, double *out)
{
    static const double scale[4] = {1.0, 1e-3, 1e-6, 1e-9};

    for (int i = 0; i < 4 && names[i]; i++)
        if (strcmp(arg, names[i]) == 0)
            return *out = scale[i], 0;
    return -1;
}

int pp_import_unit_parse(const char *arg, void *out)
{
    return scale_of(arg, (const char *const[]){"W", "mW", "uW", NULL}, out);
}

int pp_import_time_unit_parse(const char *arg, void *out)
{
    return scale_of(arg, (const char *const[]){"s", "ms", "us", "ns"}, out);
}

/* After an import of logs: per battery, its samples and the charge drawn
 * from the logged current beside the log's own discharged_mah. */
static void ulog_report(const char *const *files, size_t n_files)
{
    for (size_t i = 0; i < n_files; i++) {
        const pp_ulog_flight *f = pp_import_ulog_flight(files[i]); /* read by the import */
        char left[512];
        if (!f)
            continue;
        pp_flight_log_left_out(f, left, sizeof left);
        if (left[0])
            printf("%s: %s\n", files[i], left);
        for (size_t b = 0; b < f->n_batteries; b++) {
            const pp_ulog_battery *bat = &f->bat[b];
            double q, logged;
            pp_ulog_charge_mah(bat, &q, &logged);
            printf("%s: battery %d: %zu samples over %.1f s (one every %.2f s); charge drawn "
                   "from the logged current %.2f mAh, by the log's discharged_mah %.2f mAh",
                   files[i], bat->instance, bat->n, bat->t_s[bat->n - 1] - bat->t_s[0],
                   pp_ulog_interval_s(bat), q, logged);
            if (isfinite(logged) && logged > 0 && fabs(q / logged - 1) > 0.02)
                printf(" (%+.0f %%: the topic is logged at a lower rate than the autopilot "
                       "integrates the current)", 100 * (q / logged - 1));
            printf("\n");
        }
    }
}

json_t *pp_import_json(const char *out, size_t n_files, const pp_results_layout *layout)
{
    json_t *rails = json_array(), *params = json_array();

    for (size_t r = 0; r < layout->n_rails; r++)
        json_array_append_new(rails, json_string(layout->rail_names[r]));
    for (size_t k = 0; k < layout->n_params; k++)
        json_array_append_new(params, json_string(layout->param_names[k]));
    return json_pack("{s:s, s:i, s:o, s:o}", "output", out, "files", (int)n_files, "rails", rails,
                     "params", params);
}

/* import ulog without -c: the pack of the first log's BAT_* parameters
 * when it has them (issue 32, item 8), said. */
static void log_pack(pp_import_request *rq, const char *config_path)
{
    const pp_ulog_flight *f;
    pp_battery_params pk;

    if (config_path || strcmp(rq->format, "ulog") != 0 || rq->n_files == 0)
        return;
    f = pp_import_ulog_flight(rq->files[0]); /* read once for the import */
    if (f && f->n_batteries && pp_flight_pack_for(f, &f->bat[0], &pk)) {
        rq->battery = pk;
        fprintf(stderr, "powprof import: the summary's battery: the autopilot's BAT_* parameters "
                "of %s (thevenin, %d cells, %.3g Ah, R0 %.4g ohm; %s); -c for another\n",
                rq->files[0], pk.cells, pk.capacity_ah, pk.r_int_ohm, f->n_batteries > 1
                    ? "battery 0's: each battery instance drains its own pack" : "");
    }
}

int pp_import_answer(pp_import_request *rq, const char *config_path, int json)
{
    pp_results_layout *layout = calloc(1, sizeof *layout);
    pp_battery_choice bc;
    int rc = layout ? 0 : -ENOMEM;

    pp_battery_choice_init(&bc);
    bc.file = config_path;
    if (rc == 0 && pp_battery_choose(&bc, &rq->battery) < 0)
        rc = -EINVAL;
    if (rc == 0) {
        rq->battery_given = config_path != NULL;
        log_pack(rq, config_path);
        pp_tmpdir_guard_signals(1);
        rc = pp_results_import(rq, layout);
        pp_tmpdir_guard_signals(0);
    }
    if (rc == 0 && json)
        print_json(pp_import_json(rq->out, rq->n_files, layout), JSON_COMPACT);
    else if (rc == 0)
        printf("%zu files imported into %s (%zu rails, %zu parameters)\n", rq->n_files, rq->out,
               layout->n_rails, layout->n_params);
    if (rc == 0 && !json && strcmp(rq->format, "ulog") == 0)
        ulog_report(rq->files, rq->n_files);
    pp_import_ulog_forget();
    free(layout);
    return rc;
}

/* ---- merge -------------------------------------------------------------- */

json_t *pp_merge_json(const pp_merge_report *r, int n_src, const char *out)
{
    return json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}", "output", out,
                     "sources", n_src, "rows", (json_int_t)r->n_rows, "duplicates",
                     (json_int_t)r->n_duplicates, "nodes", (json_int_t)r->n_nodes, "traces",
                     (json_int_t)r->n_traces, "traces_missing", (json_int_t)r->n_traces_missing,
                     "configurations", (json_int_t)r->n_configurations,
                     "configurations_missing", (json_int_t)r->n_missing, "config_hash",
                     r->config_hash);
}

static void print_report(const pp_merge_report *r, int n_src, const char *out, int json)
{
    if (json) {
        print_json(pp_merge_json(r, n_src, out), JSON_COMPACT);
        return;
    }
    printf("merged %zu rows of %d folders (%zu node%s) into %s", r->n_rows, n_src, r->n_nodes,
           r->n_nodes == 1 ? "" : "s", out);
    if (r->n_duplicates)
        printf("; %zu duplicate row%s kept once", r->n_duplicates, r->n_duplicates == 1 ? "" : "s");
    printf("\n");
    if (r->n_traces_missing)
        printf("%zu rows have no trace in their folder\n", r->n_traces_missing);
    if (r->n_missing)
        fprintf(stderr, "powprof merge: warning: %llu of the profile's %llu configurations have "
                        "no row (a shard not merged yet?)\n", (unsigned long long)r->n_missing,
                (unsigned long long)r->n_configurations);
}

int pp_merge_answer(const char *const *dirs, size_t n, const char *out, int json)
{
    pp_merge_report r;
    int rc;

    pp_tmpdir_guard_signals(1);
    rc = pp_merge(dirs, n, out, &r);
    pp_tmpdir_guard_signals(0);
    if (rc < 0)
        return rc;
    print_report(&r, (int)n, out, json);
    return 0;
}

/* ---- plot --------------------------------------------------------------- */

int pp_plot_format_parse(const char *arg, void *value)
{
    pp_plot_options *o = value;

    o->png = strcmp(arg, "png") == 0 || strcmp(arg, "both") == 0;
    o->svg = strcmp(arg, "svg") == 0 || strcmp(arg, "both") == 0;
    return o->png || o->svg ? 0 : -1;
}

int pp_plot_request(pp_plot_options *o, const char *plan_path, const char *config,
                    pp_plot_plan *plan, char *why, size_t cap)
{
    pp_battery_choice bc;

    why[0] = '\0';
    if (config && !plan_path) {
        pp_text(why, cap, "-c CONFIG is the battery of a plan: give --plan PLAN.json");
        return -EINVAL;
    }
    pp_battery_choice_init(&bc);
    bc.file = config;
    if (config && pp_battery_choose(&bc, &o->battery) < 0)
        return -EINVAL;
    if (!config && plan_path && pp_run_json_battery_load(plan_path, &o->battery) < 0)
        return -EINVAL;
    if (plan_path && pp_plot_plan_load(plan_path, plan) < 0)
        return -EINVAL;
    o->plan = plan_path ? plan : NULL;
    return 0;
}

/* A file of the plots folder, by name and extension. */
static json_t *file_json(const pp_plot_result *r, const char *name, const char *ext)
{
    char path[4400];

    if (pp_path_fmt(path, sizeof path, r->plots_dir, "%s.%s", name, ext) < 0)
        return json_null();
    return json_string(path);
}

static json_t *script_json(const pp_plot_options *o, const pp_plot_result *r,
                           const pp_plot_script *sc)
{
    json_t *images = json_array();

    if (sc->rendered && o->png)
        json_array_append_new(images, file_json(r, sc->name, "png"));
    if (sc->rendered && o->svg)
        json_array_append_new(images, file_json(r, sc->name, "svg"));
    return json_pack("{s:s, s:o, s:o, s:o, s:b, s:o, s:o}", "name", sc->name, "script",
                     file_json(r, sc->name, "gp"), "data",
                     sc->has_data ? file_json(r, sc->name, "dat") : json_null(), "images", images,
                     "rendered", sc->rendered, "error",
                     sc->error[0] ? json_string(sc->error) : json_null(), "warnings",
                     sc->warnings[0] ? json_string(sc->warnings) : json_null());
}

json_t *pp_plot_json(const char *dir, const pp_plot_options *o, const pp_plot_result *r)
{
    json_t *scripts = json_array(), *formats = json_array();

    for (size_t i = 0; i < r->n_scripts; i++)
        json_array_append_new(scripts, script_json(o, r, &r->scripts[i]));
    if (o->png)
        json_array_append_new(formats, json_string("png"));
    if (o->svg)
        json_array_append_new(formats, json_string("svg"));
    return json_pack("{s:s, s:s, s:b, s:o, s:o, s:I, s:I, s:I}", "results", dir, "plots_dir",
                     r->plots_dir, "gnuplot", !r->gnuplot_missing, "formats", formats, "scripts",
                     scripts, "rendered", (json_int_t)r->n_rendered, "failed",
                     (json_int_t)r->n_failed, "warned", (json_int_t)r->n_warned);
}

void pp_plot_text(const pp_plot_result *r)
{
    for (size_t i = 0; i < r->n_scripts; i++)
        if (!r->gnuplot_missing && r->scripts[i].error[0])
            fprintf(stderr, "powprof plot: %s/%s.gp: %s\n", r->plots_dir, r->scripts[i].name,
                    r->scripts[i].error);
    if (r->gnuplot_missing) {
        printf("%zu gnuplot scripts in %s; gnuplot is not installed: render them with\n"
               "  cd %s && for f in *.gp; do gnuplot \"$f\"; done\n",
               r->n_scripts, r->plots_dir, r->plots_dir);
        return;
    }
    printf("%zu plots rendered in %s (%zu scripts)\n", r->n_rendered, r->plots_dir, r->n_scripts);
    if (r->n_warned)
        printf("gnuplot warned on %zu of them (`powprof plot --json` lists what it said)\n",
               r->n_warned);
}

/* ---- ulog info ---------------------------------------------------------- */

/* The rate of a topic's messages, Hz (NaN: untimed or one message). */
static double rate_hz(const pp_ulog_topic *t)
{
    return t->timed && t->n > 1 && t->t1_s > t->t0_s ? (double)(t->n - 1) / (t->t1_s - t->t0_s)
                                                     : NAN;
}

/* The log's length: from the header's start to the last timestamp of a
 * topic logged more than once (a lone message, such as a mission's, may
 * carry a time of its own: 1,194 s in a 6-s bench log). */
static double span_s(const pp_ulog_flight *f)
{
    double hi = -INFINITY;

    for (size_t i = 0; i < f->topics.n; i++)
        if (f->topics.topic[i].timed && f->topics.topic[i].n > 1)
            hi = fmax(hi, f->topics.topic[i].t1_s);
    return hi >= (double)f->start_us / 1e6 ? hi - (double)f->start_us / 1e6 : NAN;
}

static void range(const double *v, size_t n, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            *lo = fmin(*lo, v[i]);
            *hi = fmax(*hi, v[i]);
        }
}

static json_t *battery_json(const pp_ulog_flight *f, size_t b)
{
    const pp_ulog_battery *bat = &f->bat[b];
    double vlo, vhi, ilo, ihi;

    range(bat->voltage_v, bat->n, &vlo, &vhi);
    range(bat->current_a, bat->n, &ilo, &ihi);
    return json_pack("{s:i,s:I,s:o,s:o,s:o,s:o,s:o,s:i,s:o}", "instance", bat->instance,
                     "samples", (json_int_t)bat->n,
                     "duration_s", pp_json_num(bat->t_s[bat->n - 1] - bat->t_s[0]),
                     "voltage_min_v", pp_json_num(vlo), "voltage_max_v", pp_json_num(vhi),
                     "current_min_a", pp_json_num(ilo), "current_max_a", pp_json_num(ihi),
                     "cell_count", bat->cell_count,
                     "capacity_mah", bat->capacity_mah > 0 ? pp_json_num(bat->capacity_mah)
                                                           : json_null());
}

json_t *pp_ulog_info_doc(const char *path, const pp_ulog_flight *f)
{
    json_t *topics = json_array(), *bats = json_array();

    for (size_t i = 0; i < f->topics.n; i++) {
        const pp_ulog_topic *t = &f->topics.topic[i];
        json_array_append_new(topics, json_pack("{s:s,s:i,s:I,s:o,s:o,s:o}", "name", t->name,
                                                "instance", t->instance, "messages",
                                                (json_int_t)t->n, "rate_hz",
                                                pp_json_num(rate_hz(t)), "first_s",
                                                t->timed && t->n ? pp_json_num(t->t0_s)
                                                                 : json_null(),
                                                "last_s", t->timed && t->n ? pp_json_num(t->t1_s)
                                                                           : json_null()));
    }
    for (size_t b = 0; b < f->n_batteries; b++)
        json_array_append_new(bats, battery_json(f, b));
    return json_pack("{s:s,s:i,s:I,s:o,s:o,s:o}", "file", path, "version", f->version,
                     "messages", (json_int_t)f->n_messages, "duration_s",
                     pp_json_num(span_s(f)), "topics", topics, "batteries", bats);
}

static void print_batteries(const pp_ulog_flight *f)
{
    if (f->n_batteries == 0) {
        printf("no battery_status samples: nothing for `powprof import ulog` or `battery fit`\n");
        return;
    }
    printf("battery_status: %zu instance%s, each a rail of `powprof import ulog` and a flight "
           "of `powprof battery fit`:\n", f->n_batteries, f->n_batteries == 1 ? "" : "s");
    for (size_t b = 0; b < f->n_batteries; b++) {
        const pp_ulog_battery *bat = &f->bat[b];
        const pp_ulog_battery_params *pa = &f->params[b];
        double vlo, vhi, ilo, ihi;
        range(bat->voltage_v, bat->n, &vlo, &vhi);
        range(bat->current_a, bat->n, &ilo, &ihi);
        printf("  instance %d: %zu samples over %.1f s, %.2f .. %.2f V, %.2f .. %.2f A",
               bat->instance, bat->n, bat->t_s[bat->n - 1] - bat->t_s[0], vlo, vhi, ilo, ihi);
        if (bat->cell_count)
            printf(", %d cells", bat->cell_count);
        if (bat->capacity_mah > 0)
            printf(", %.0f mAh", bat->capacity_mah);
        if (pa->any)
            printf("; parameters BAT%d_*: %g cells, %g mAh", bat->instance + 1, pa->n_cells,
                   pa->capacity_mah);
        printf("\n");
    }
}

static void print_text(const char *path, const pp_ulog_flight *f)
{
    printf("%s: ULog version %d, %zu messages over %.1f s; %zu topics\n", path, f->version,
           f->n_messages, span_s(f), f->topics.n);
    printf("  %-36s %8s %9s %9s\n", "topic", "instance", "messages", "rate Hz");
    for (size_t i = 0; i < f->topics.n; i++) {
        const pp_ulog_topic *t = &f->topics.topic[i];
        double r = rate_hz(t);
        printf("  %-36s %8d %9zu ", t->name, t->instance, t->n);
        if (isnan(r))
            printf("%9s\n", "-");
        else
            printf("%9.3g\n", r);
    }
    print_batteries(f);
}

int pp_ulog_info(const char *path, int json)
{
    pp_ulog_flight f;
    int rc = pp_ulog_read_battery(path, &f);

    if (rc == 0 && json)
        print_json(pp_ulog_info_doc(path, &f), PP_ULOG_INFO_JSON_FLAGS);
    else if (rc == 0)
        print_text(path, &f);
    pp_ulog_flight_free(&f);
    return rc;
}
