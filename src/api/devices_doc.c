/* devices_doc.c - the power sources and the clocks, as `powprof devices`
 * answers (devices_doc.h). */
#include "devices_doc.h"

#include "src/base/clock.h"
#include "src/results/run_json.h"

#include "devices/clocks.h"
#include "devices/nvpmodel.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct source_report {
    const pp_device_ops *ops;
    int probe_rc;
    int read_rc;
    char why[512];
    pp_device *dev;
    double power_w[PP_DEVICE_MAX_RAILS];
} source_report;

static void examine(source_report *r, const pp_device_options *opts)
{
    r->probe_rc = r->ops->probe(opts, r->why, sizeof r->why);
    r->dev = NULL;
    r->read_rc = 0;
    if (r->probe_rc < 0)
        return;
    r->read_rc = pp_device_open_with(r->ops->name, opts, &r->dev);
    if (r->read_rc < 0)
        return;
    if (r->ops->flags & PP_DEVICE_INTERVAL) { /* a mean needs an interval */
        int64_t t0 = pp_clock_now_ns(&pp_clock_monotonic);
        r->read_rc = pp_device_read(r->dev, t0, r->power_w);
        if (r->read_rc == 0) {
            pp_clock_monotonic.sleep_until_ns(NULL, t0 + 250000000);
            r->read_rc = pp_device_read(r->dev, pp_clock_now_ns(&pp_clock_monotonic), r->power_w);
        }
    } else {
        r->read_rc = pp_device_read(r->dev, pp_clock_now_ns(&pp_clock_monotonic), r->power_w);
    }
}

static void print_text(FILE *fp, const source_report *reps, size_t n, const char *pick)
{
    for (size_t i = 0; i < n; i++) {
        const source_report *r = &reps[i];
        fprintf(fp, "%-9s ", r->ops->name);
        if (r->probe_rc == -ENODEV) {
            fprintf(fp, "absent   %s\n", r->why);
            continue;
        }
        if (r->probe_rc < 0) {
            fprintf(fp, "unusable %s\n", r->why);
            continue;
        }
        if (r->read_rc < 0) {
            fprintf(fp, "error    %s (see the message above)\n", strerror(-r->read_rc));
            continue;
        }
        fprintf(fp, "present  %s\n", r->ops->summary);
        for (size_t k = 0; k < r->dev->n_rails; k++) {
            const pp_rail *rail = &r->dev->rails[k];
            fprintf(fp, "            %-20s %10.3f W", rail->name, r->power_w[k]);
            if (rail->flags & PP_RAIL_ESTIMATED)
                fprintf(fp, "  estimated");
            if (rail->flags & PP_RAIL_BOARD_INPUT)
                fprintf(fp, "  board input");
            if (rail->parent >= 0)
                fprintf(fp, "  (inside %s)", r->dev->rails[rail->parent].name);
            fputc('\n', fp);
        }
        if (r->dev->n_rails > 1)
            fprintf(fp, "            %-20s %10.3f W  (sum of the rails no other rail contains)\n",
                   "total", pp_device_total_w(r->dev, r->power_w));
    }
    fprintf(fp, "auto      %s\n", pick ? pick : "(none)");
}

static json_t *rails_json(const source_report *r)
{
    json_t *rails = json_array();

    for (size_t k = 0; r->dev && r->read_rc == 0 && k < r->dev->n_rails; k++) {
        const pp_rail *rail = &r->dev->rails[k];
        json_array_append_new(
            rails, json_pack("{s:s, s:o, s:b, s:b, s:o}", "name", rail->name, "power_w",
                             pp_run_json_number(r->power_w[k]), "estimated",
                             (rail->flags & PP_RAIL_ESTIMATED) != 0, "board_input",
                             (rail->flags & PP_RAIL_BOARD_INPUT) != 0, "inside",
                             rail->parent >= 0 ? json_string(r->dev->rails[rail->parent].name)
                                               : json_null()));
    }
    return rails;
}

static json_t *sources_json(const source_report *reps, size_t n, const char *pick)
{
    json_t *sources = json_array();

    for (size_t i = 0; i < n; i++) {
        const source_report *r = &reps[i];
        const char *status = r->probe_rc == -ENODEV ? "absent"
                             : r->probe_rc < 0      ? "unusable"
                             : r->read_rc < 0       ? "error"
                                                    : "present";
        json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:o}", "name", r->ops->name, "status", status,
                              "summary", r->ops->summary, "reason",
                              r->probe_rc < 0  ? json_string(r->why)
                              : r->read_rc < 0 ? json_string(strerror(-r->read_rc))
                                               : json_null(),
                              "rails", rails_json(r));
        if (r->dev && r->read_rc == 0)
            json_object_set_new(o, "total_w",
                                pp_run_json_number(pp_device_total_w(r->dev, r->power_w)));
        json_array_append_new(sources, o);
    }
    return json_pack("{s:o, s:o}", "sources", sources, "auto",
                     pick ? json_string(pick) : json_null());
}

/* Every source examined with o into reps (pp_device_backend_count), and
 * the one auto picks (NULL: none). */
static const char *examine_all(const pp_device_options *o, source_report *reps)
{
    const pp_device_ops *pick = NULL;

    for (size_t i = 0; i < pp_device_backend_count; i++) {
        reps[i].ops = pp_device_backends[i];
        examine(&reps[i], o);
    }
    return pp_device_auto(o, &pick) == 0 && pick ? pick->name : NULL;
}

static void close_all(source_report *reps)
{
    for (size_t i = 0; i < pp_device_backend_count; i++)
        pp_device_close(reps[i].dev);
}

json_t *pp_devices_doc(const pp_device_options *o)
{
    source_report reps[16];
    const char *pick = examine_all(o, reps);
    json_t *doc = sources_json(reps, pp_device_backend_count, pick);

    close_all(reps);
    return doc;
}

void pp_devices_text(const pp_device_options *o, FILE *fp)
{
    source_report reps[16];
    const char *pick = examine_all(o, reps);

    print_text(fp, reps, pp_device_backend_count, pick);
    close_all(reps);
}

/* How powprof sets domain k of c, in words. */
static const char *method(const pp_clocks *c, pp_clock_kind k)
{
    if (k == PP_CLOCK_EMC)
        return "mrq_rate_locked = 1, rate (BPMP debugfs, as jetson_clocks)";
    if (k == PP_CLOCK_GPU)
        return "min_freq = max_freq (devfreq)";
    return c->dom[k].has_userspace ? "governor userspace, scaling_setspeed"
                                   : "scaling_min_freq = scaling_max_freq";
}

static void print_domain(FILE *fp, const pp_clocks *c, pp_clock_kind k)
{
    const pp_clock_domain *d = &c->dom[k];
    char table[2048], why[PP_PATH_MAX + 512];
    double now = 0;

    if (!d->present) {
        fprintf(fp, "%-4s absent\n", pp_clock_kind_name(k));
        return;
    }
    pp_clocks_table_text(d, table, sizeof table);
    fprintf(fp, "%-4s %s", pp_clock_kind_name(k), d->name);
    if (d->governor[0])
        fprintf(fp, "  governor %s", d->governor);
    if (pp_clocks_read_mhz(c, k, &now) == 0)
        fprintf(fp, "  now %g MHz", now);
    fprintf(fp, "\n     %s: %s MHz\n", d->n_freqs ? "available" : "range", table);
    fprintf(fp, "     set by %s: %s\n", method(c, k),
           pp_clocks_writable(c, k, why, sizeof why) == 0 ? "writable" : why);
}

static json_t *domain_json(const pp_clocks *c, pp_clock_kind k)
{
    const pp_clock_domain *d = &c->dom[k];
    char why[PP_PATH_MAX + 512];
    json_t *freqs;
    double now = 0;
    int w;

    if (!d->present)
        return json_pack("{s:s, s:b}", "clock", pp_clock_kind_name(k), "present", 0);
    freqs = json_array();
    for (size_t i = 0; i < d->n_freqs; i++)
        json_array_append_new(freqs, json_real(d->freqs_mhz[i]));
    w = pp_clocks_writable(c, k, why, sizeof why) == 0;
    return json_pack("{s:s, s:b, s:s, s:s, s:o, s:o, s:f, s:f, s:s, s:b, s:o}", "clock",
                     pp_clock_kind_name(k), "present", 1, "name", d->name, "governor",
                     d->governor, "now_mhz",
                     pp_run_json_number(pp_clocks_read_mhz(c, k, &now) == 0 ? now : NAN),
                     "available_mhz", freqs, "min_mhz", d->min_mhz, "max_mhz", d->max_mhz,
                     "method", method(c, k), "writable", w, "needs",
                     w ? json_null() : json_string(why));
}

/* The clocks of c and the power modes as one document. */
static json_t *clocks_json(const pp_clocks *c, const pp_nvpmodel_mode *modes, int n)
{
    json_t *doms = json_array(), *ms = json_array();

    for (int k = 0; k < PP_CLOCK_KINDS; k++)
        json_array_append_new(doms, domain_json(c, (pp_clock_kind)k));
    for (int i = 0; i < n; i++)
        json_array_append_new(ms, json_pack("{s:i, s:s}", "id", modes[i].id, "name", modes[i].name));
    return json_pack("{s:o, s:o}", "clocks", doms, "nvpmodel_modes", ms);
}

static void clocks_text(FILE *fp, const pp_clocks *c, const pp_nvpmodel_mode *modes, int n)
{
    for (int k = 0; k < PP_CLOCK_KINDS; k++)
        print_domain(fp, c, (pp_clock_kind)k);
    fprintf(fp, "nvpmodel %s", n > 0 ? "" : "absent (no " PP_NVPMODEL_CONF ")");
    for (int i = 0; i < n; i++)
        fprintf(fp, "%s%d %s", i ? ", " : "modes ", modes[i].id, modes[i].name);
    fprintf(fp, "\n");
}

int pp_clocks_doc(const char *root, json_t **doc, FILE *fp)
{
    pp_nvpmodel_mode modes[PP_NVPMODEL_MAX_MODES];
    pp_clocks *c = malloc(sizeof *c);
    int n, rc;

    if (!c)
        return -ENOMEM;
    if ((rc = pp_clocks_probe(root, c)) < 0) {
        free(c);
        return rc;
    }
    n = pp_nvpmodel_modes(root, modes, PP_NVPMODEL_MAX_MODES);
    if (doc)
        *doc = clocks_json(c, modes, n);
    else
        clocks_text(fp, c, modes, n);
    free(c);
    return doc && !*doc ? -ENOMEM : 0;
}
