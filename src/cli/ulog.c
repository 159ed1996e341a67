/* powprof ulog info LOG: what a PX4 flight log holds before it is imported
 * (its topics, their rates, the battery instances powprof can use), as
 * pyulog's ulog_info lists it. Parses, calls the library, prints. */
#include "cli.h"
#include "opt.h"

#include "src/flight/ulog.h"
#include "src/base/util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char ulog_head[] =
    "usage: powprof ulog info LOG [--json]\n"
    "\n"
    "What a PX4 flight log (.ulg) holds: its version and length, every topic\n"
    "with its instance, messages and rate, and the battery_status instances\n"
    "that `powprof import ulog` makes rails of and `powprof battery fit` fits\n"
    "(samples, voltage and current ranges, cells, capacity, the autopilot's\n"
    "BATn_* parameters), before anything is imported.\n";

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

static void print_json(const char *path, const pp_ulog_flight *f)
{
    json_t *topics = json_array(), *bats = json_array(), *root;

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
    root = json_pack("{s:s,s:i,s:I,s:o,s:o,s:o}", "file", path, "version", f->version,
                     "messages", (json_int_t)f->n_messages, "duration_s",
                     pp_json_num(span_s(f)), "topics", topics, "batteries", bats);
    json_dumpf(root, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
    printf("\n");
    json_decref(root);
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

int pp_cmd_ulog(int argc, char **argv)
{
    pp_ulog_flight f;
    int json = 0, rc;
    const pp_opt rows[] = {
        PP_OPT_BOOL(0, "json", &json, "one JSON object: file, version, messages, duration_s, "
                    "topics\n[{name, instance, messages, rate_hz, first_s, last_s}] (the\nlog's "
                    "timestamps, s), batteries [...]"),
        PP_OPT_HELP_END,
    };
    const pp_command c = {"ulog", ulog_head, NULL, rows, NULL, 10};

    if ((rc = pp_opt_parse(&c, argc, argv)) != 0)
        return rc == 1 ? 0 : rc;
    if (argc - optind != 2 || strcmp(argv[optind], "info") != 0) {
        fputs("powprof ulog: 'info LOG' expected (powprof ulog --help)\n", stderr);
        return PP_EXIT_USAGE;
    }
    rc = pp_ulog_read_battery(argv[optind + 1], &f);
    if (rc == 0) {
        if (json)
            print_json(argv[optind + 1], &f);
        else
            print_text(argv[optind + 1], &f);
    }
    pp_ulog_flight_free(&f);
    return rc < 0 ? PP_EXIT_USAGE : 0;
}
