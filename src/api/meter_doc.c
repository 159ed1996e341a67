/* meter_doc.c - the report of `powprof meter` (meter_doc.h). */
#include "meter_doc.h"

#include "src/base/util.h"
#include "src/results/json_file.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *signal_name(int sig, char *buf, size_t cap)
{
    const char *abbrev = sigabbrev_np(sig);

    if (abbrev)
        snprintf(buf, cap, "SIG%s", abbrev);
    else
        snprintf(buf, cap, "signal %d", sig);
    return buf;
}

/* ---- Text ------------------------------------------------------------------ */

static void print_run_head(FILE *fp, const pp_meter_result *res)
{
    const pp_sampler_stats *st = &res->stats;

    fprintf(fp, "   exit status  %d\n", res->exit_status);
    fprintf(fp, "   duration     %.3f s\n", res->duration_s);
    fprintf(fp, "   samples      %llu at %.2f Hz (requested %g Hz), %llu deadlines missed, "
                "lateness p50 %.0f us p99 %.0f us max %.0f us\n",
            (unsigned long long)st->n_samples, st->achieved_hz, st->requested_hz,
            (unsigned long long)st->n_missed, st->jitter_p50_us, st->jitter_p99_us,
            st->jitter_max_us);
    fprintf(fp, "   sampler CPU  %.3f s (%.2f%% of one core)\n", st->cpu_s, 100.0 * st->cpu_share);
    if (st->n_failed)
        fprintf(fp, "   gaps         %llu: %llu readings failed; the samples on either side of a "
                    "gap are joined (longest %.3f s)\n", (unsigned long long)st->n_gaps,
                (unsigned long long)st->n_failed, st->longest_gap_s);
}

static void print_trace_line(FILE *fp, const pp_meter_result *res, const char *path)
{
    const pp_trace_stream_stats *w = &res->write;

    if (!res->traced)
        return;
    fprintf(fp, "   trace        %s, %llu rows", path, (unsigned long long)w->rows);
    if (w->dropped)
        fprintf(fp, ", %llu samples left out (the disk was too slow; gap rows mark them)",
                (unsigned long long)w->dropped);
    if (w->error)
        fprintf(fp, ", INCOMPLETE: %s", strerror(-w->error));
    fputc('\n', fp);
}

static void print_rails(FILE *fp, const pp_device *dev, const pp_trace_sums *s)
{
    fprintf(fp, "\n   %-24s %12s %12s %12s %12s\n", "rail", "mean power", "energy", "min",
            "max");
    for (size_t r = 0; r <= s->n_rails; r++) {
        const pp_rail *rail = r < s->n_rails ? &dev->rails[r] : NULL;
        if (!rail && s->n_rails == 1)
            break;
        fprintf(fp, "   %-24s %10.3f W %10.3f J %10.3f W %10.3f W%s%s\n",
                rail ? rail->name : "total", pp_trace_sums_mean_w(s, r), s->energy_j[r],
                s->n_samples ? s->min_w[r] : 0.0, s->n_samples ? s->max_w[r] : 0.0,
                rail && rail->flags & PP_RAIL_ESTIMATED ? "  estimated" : "",
                rail && rail->flags & PP_RAIL_BOARD_INPUT ? "  board input" : "");
    }
}

static void print_error(FILE *fp, const pp_meter_result *res, int rc)
{
    char name[32];

    if (res->signal)
        fprintf(fp, "   signal       %s during the run: the command got it too; what was "
                    "measured is reported\n", signal_name(res->signal, name, sizeof name));
    if (rc >= 0)
        return;
    if (res->stats.error)
        fprintf(fp, "   error        sampling incomplete (%s): the trace and the figures cover "
                    "what was read\n", strerror(-res->stats.error));
    else if (!res->write.error)
        fprintf(fp, "   error        %s\n", strerror(-rc));
}

static void print_header(FILE *fp, const pp_meter_ask *a, const pp_device *dev, size_t n_done)
{
    fprintf(fp, "\n powprof meter:");
    for (char *const *c = a->cmd; *c; c++)
        fprintf(fp, " %s", *c);
    if (a->repeat)
        fprintf(fp, "   (%zu of %d runs)", n_done, a->repeat);
    fprintf(fp, "\n\n   device       %s%s\n", dev->ops->name,
            pp_device_is_estimated(dev) ? "  (rails ESTIMATED from a model, not measured)" : "");
}

static void print_checks(FILE *fp, const pp_device *dev, const pp_meter_result *res)
{
    int saturated, short_run;
    double ceiling_w = NAN;

    pp_meter_checks(dev, res, &saturated, &short_run, &ceiling_w);
    if (saturated)
        fprintf(fp, "   warning      the estimate sat at its ceiling (%.3f W, every core busy): it "
                    "measured the machine, not this command; measure on an idle machine or with "
                    "a power sensor\n", ceiling_w);
    if (short_run)
        fprintf(fp, "   warning      too short to measure: %llu samples in %.3f s at %g Hz (fewer "
                    "than 5 samples or 5 sampling periods); the energy is quantized: make it run "
                    "longer, sample faster (--rate) or repeat it (--repeat)\n",
                (unsigned long long)res->stats.n_samples, res->duration_s,
                res->stats.requested_hz);
}

static void print_one(FILE *fp, const pp_meter_ask *a, const pp_device *dev,
                      const pp_meter_result *res, int rc)
{
    print_header(fp, a, dev, 1);
    print_run_head(fp, res);
    print_trace_line(fp, res, a->trace);
    print_error(fp, res, rc);
    print_checks(fp, dev, res);
    print_rails(fp, dev, &res->sums);
    fputc('\n', fp);
}

static void print_spread(FILE *fp, const char *what, const pp_meter_spread *s, const char *unit)
{
    fprintf(fp, "   %-24s %10.3f %s +- %8.3f %s   (%.3f .. %.3f)\n", what, s->mean, unit, s->sd,
            unit, s->min, s->max);
}

static void print_repeat_text(FILE *fp, const pp_meter_ask *a, const pp_device *dev,
                              const pp_meter_result *runs, size_t n, int rc)
{
    pp_meter_summary sum;
    char path[PP_PATH_MAX];

    pp_meter_summarize(runs, n, &sum);
    print_header(fp, a, dev, n);
    fprintf(fp, "\n   %4s %5s %12s %12s %12s %9s %9s\n", "run", "exit", "duration", "power",
            "energy", "samples", "p99 late");
    for (size_t k = 0; k < n; k++) {
        size_t t = runs[k].sums.n_rails;
        fprintf(fp, "   %4zu %5d %10.3f s %10.3f W %10.3f J %9llu %6.0f us\n", k + 1,
                runs[k].exit_status, runs[k].duration_s, pp_trace_sums_mean_w(&runs[k].sums, t),
                runs[k].sums.energy_j[t], (unsigned long long)runs[k].stats.n_samples,
                runs[k].stats.jitter_p99_us);
    }
    for (size_t k = 0; k < n && a->trace; k++)
        if (n == 1 || pp_meter_trace_path(a->trace, k + 1, path, sizeof path) == 0)
            print_trace_line(fp, &runs[k], n == 1 ? a->trace : path);
    print_error(fp, &runs[n - 1], rc);
    print_checks(fp, dev, &runs[n - 1]);
    fprintf(fp, "\n   over %zu runs: mean +- standard deviation (min .. max)\n", sum.n_runs);
    print_spread(fp, "duration", &sum.duration_s, "s");
    for (size_t r = 0; r < sum.n_rails; r++) {
        char what[64];
        snprintf(what, sizeof what, "%s power", dev->rails[r].name);
        print_spread(fp, what, &sum.mean_w[r], "W");
        snprintf(what, sizeof what, "%s energy", dev->rails[r].name);
        print_spread(fp, what, &sum.energy_j[r], "J");
    }
    if (sum.n_rails > 1) {
        print_spread(fp, "total power", &sum.total_mean_w, "W");
        print_spread(fp, "total energy", &sum.total_energy_j, "J");
    }
    fputc('\n', fp);
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *rails_json(const pp_device *dev, const pp_trace_sums *s)
{
    json_t *rails = json_array();

    for (size_t r = 0; r < s->n_rails; r++) {
        const pp_rail *rail = &dev->rails[r];
        json_array_append_new(
            rails, json_pack("{s:s, s:o, s:o, s:o, s:o, s:b, s:b}", "name", rail->name,
                             "mean_w", pp_json_num(pp_trace_sums_mean_w(s, r)), "energy_j",
                             pp_json_num(s->energy_j[r]), "min_w", pp_json_num(s->n_samples ? s->min_w[r] : 0),
                             "max_w", pp_json_num(s->n_samples ? s->max_w[r] : 0), "estimated",
                             (rail->flags & PP_RAIL_ESTIMATED) != 0, "board_input",
                             (rail->flags & PP_RAIL_BOARD_INPUT) != 0));
    }
    return rails;
}

static json_t *error_json(const pp_meter_result *res, int rc)
{
    if (res->stats.error)
        return json_string(strerror(-res->stats.error));
    if (res->write.error)
        return json_string(strerror(-res->write.error));
    return rc < 0 ? json_string(strerror(-rc)) : json_null();
}

static json_t *run_json(const pp_device *dev, const pp_meter_result *res, const char *trace,
                        int rc)
{
    const pp_sampler_stats *st = &res->stats;
    const pp_trace_sums *s = &res->sums;
    char name[32];
    json_t *o = json_object();

    json_object_set_new(o, "exit_status", json_integer(res->exit_status));
    json_object_set_new(o, "duration_s", pp_json_num(res->duration_s));
    json_object_set_new(o, "trace_span_s", pp_json_num(pp_trace_sums_duration_s(s)));
    json_object_set_new(o, "samples", json_integer((json_int_t)st->n_samples));
    json_object_set_new(o, "requested_hz", pp_json_num(st->requested_hz));
    json_object_set_new(o, "achieved_hz", pp_json_num(st->achieved_hz));
    json_object_set_new(o, "expected_samples", json_integer((json_int_t)st->n_expected));
    json_object_set_new(o, "missed_deadlines", json_integer((json_int_t)st->n_missed));
    json_object_set_new(o, "failed_readings", json_integer((json_int_t)st->n_failed));
    json_object_set_new(o, "retried_readings", json_integer((json_int_t)st->n_retried));
    json_object_set_new(o, "gaps", json_integer((json_int_t)st->n_gaps));
    json_object_set_new(o, "longest_gap_s", pp_json_num(st->longest_gap_s));
    json_object_set_new(o, "jitter_p50_us", pp_json_num(st->jitter_p50_us));
    json_object_set_new(o, "jitter_p99_us", pp_json_num(st->jitter_p99_us));
    json_object_set_new(o, "jitter_max_us", pp_json_num(st->jitter_max_us));
    json_object_set_new(o, "sampler_cpu_s", pp_json_num(st->cpu_s));
    json_object_set_new(o, "rails", rails_json(dev, s));
    json_object_set_new(o, "total_energy_j", pp_json_num(s->energy_j[s->n_rails]));
    json_object_set_new(o, "total_mean_w", pp_json_num(pp_trace_sums_mean_w(s, s->n_rails)));
    json_object_set_new(o, "total_min_w", pp_json_num(s->n_samples ? s->min_w[s->n_rails] : 0));
    json_object_set_new(o, "total_max_w", pp_json_num(s->n_samples ? s->max_w[s->n_rails] : 0));
    json_object_set_new(o, "trace", res->traced ? json_string(trace) : json_null());
    json_object_set_new(o, "trace_rows", json_integer((json_int_t)res->write.rows));
    json_object_set_new(o, "trace_dropped", json_integer((json_int_t)res->write.dropped));
    json_object_set_new(o, "trace_longest_write_s", pp_json_num(res->write.longest_write_s));
    json_object_set_new(o, "signal", res->signal ? json_string(signal_name(res->signal, name,
                                                                           sizeof name))
                                                 : json_null());
    json_object_set_new(o, "error", error_json(res, rc));
    {
        int saturated, short_run;
        double ceiling_w = NAN;
        pp_meter_checks(dev, res, &saturated, &short_run, &ceiling_w);
        json_object_set_new(o, "saturated", json_boolean(saturated));
        json_object_set_new(o, "short_run", json_boolean(short_run));
    }
    return o;
}

static json_t *spread_json(const pp_meter_spread *s)
{
    return json_pack("{s:o, s:o, s:o, s:o}", "mean", pp_json_num(s->mean), "sd", pp_json_num(s->sd), "min",
                     pp_json_num(s->min), "max", pp_json_num(s->max));
}

static json_t *statistics_json(const pp_device *dev, const pp_meter_result *runs, size_t n)
{
    pp_meter_summary sum;
    json_t *rails = json_array();

    pp_meter_summarize(runs, n, &sum);
    for (size_t r = 0; r < sum.n_rails; r++)
        json_array_append_new(rails, json_pack("{s:s, s:o, s:o}", "name", dev->rails[r].name,
                                               "mean_w", spread_json(&sum.mean_w[r]), "energy_j",
                                               spread_json(&sum.energy_j[r])));
    return json_pack("{s:I, s:o, s:o, s:o, s:o}", "runs", (json_int_t)sum.n_runs, "duration_s",
                     spread_json(&sum.duration_s), "total_mean_w",
                     spread_json(&sum.total_mean_w), "total_energy_j",
                     spread_json(&sum.total_energy_j), "rails", rails);
}

json_t *pp_meter_doc(const pp_device *dev, const pp_meter_ask *a, const pp_meter_result *runs,
                     size_t n, int rc)
{
    json_t *o = json_object(), *cmd = json_array(), *list;
    char path[PP_PATH_MAX];

    if (!o || !cmd) {
        json_decref(o);
        json_decref(cmd);
        return NULL;
    }
    for (char *const *c = a->cmd; *c; c++)
        json_array_append_new(cmd, json_string(*c));
    json_object_set_new(o, "command", cmd);
    json_object_set_new(o, "device", json_string(dev->ops->name));
    json_object_set_new(o, "estimated", json_boolean(pp_device_is_estimated(dev)));
    if (!a->repeat) {
        json_t *run = run_json(dev, &runs[0], a->trace, rc);
        json_object_update(o, run);
        json_decref(run);
    } else {
        list = json_array();
        for (size_t k = 0; k < n; k++) {
            int named = a->trace && a->repeat > 1 &&
                        pp_meter_trace_path(a->trace, k + 1, path, sizeof path) == 0;
            json_array_append_new(list, run_json(dev, &runs[k], named ? path : a->trace,
                                                 k + 1 == n ? rc : 0));
        }
        json_object_set_new(o, "repeat", json_integer(a->repeat));
        json_object_set_new(o, "exit_status", json_integer(runs[n - 1].exit_status));
        json_object_set_new(o, "runs", list);
        json_object_set_new(o, "statistics", statistics_json(dev, runs, n));
    }
    return o;
}


void pp_meter_text(FILE *fp, const pp_device *dev, const pp_meter_ask *a,
                   const pp_meter_result *runs, size_t n, int rc)
{
    if (a->repeat)
        print_repeat_text(fp, a, dev, runs, n, rc);
    else
        print_one(fp, a, dev, &runs[0], rc);
}

int pp_meter_exit_status(const pp_meter_result *runs, size_t n, int rc, int *report)
{
    *report = n > 0 && runs[n - 1].measured;
    if (!*report) /* the command never ran: nothing to report */
        return n && runs[n - 1].exit_status ? runs[n - 1].exit_status : 125;
    return rc < 0 ? 125 : runs[n - 1].exit_status;
}
