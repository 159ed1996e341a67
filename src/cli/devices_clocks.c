/* devices_clocks.c - `powprof devices --clocks` (devices_clocks.h). */
#include "devices_clocks.h"

#include "src/results/run_json.h"

#include "devices/clocks.h"
#include "devices/nvpmodel.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void print_domain(const pp_clocks *c, pp_clock_kind k)
{
    const pp_clock_domain *d = &c->dom[k];
    char table[2048], why[PP_PATH_MAX + 512];
    double now = 0;

    if (!d->present) {
        printf("%-4s absent\n", pp_clock_kind_name(k));
        return;
    }
    pp_clocks_table_text(d, table, sizeof table);
    printf("%-4s %s", pp_clock_kind_name(k), d->name);
    if (d->governor[0])
        printf("  governor %s", d->governor);
    if (pp_clocks_read_mhz(c, k, &now) == 0)
        printf("  now %g MHz", now);
    printf("\n     %s: %s MHz\n", d->n_freqs ? "available" : "range", table);
    printf("     set by %s: %s\n", method(c, k),
           pp_clocks_writable(c, k, why, sizeof why) == 0 ? "writable" : why);
}

static json_t *domain_json(const pp_clocks *c, pp_clock_kind k)
{
    const pp_clock_domain *d = &c->dom[k];
    char why[PP_PATH_MAX + 512];
    json_t *freqs = json_array();
    double now = 0;
    int w;

    if (!d->present)
        return json_pack("{s:s, s:b}", "clock", pp_clock_kind_name(k), "present", 0);
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

int pp_cli_devices_clocks(const char *root, int json)
{
    pp_nvpmodel_mode modes[PP_NVPMODEL_MAX_MODES];
    pp_clocks *c = malloc(sizeof *c);
    json_t *doms, *ms, *root_json;
    int n;

    if (!c || pp_clocks_probe(root, c) < 0) {
        free(c);
        return 1;
    }
    n = pp_nvpmodel_modes(root, modes, PP_NVPMODEL_MAX_MODES);
    if (!json) {
        for (int k = 0; k < PP_CLOCK_KINDS; k++)
            print_domain(c, (pp_clock_kind)k);
        printf("nvpmodel %s", n > 0 ? "" : "absent (no " PP_NVPMODEL_CONF ")");
        for (int i = 0; i < n; i++)
            printf("%s%d %s", i ? ", " : "modes ", modes[i].id, modes[i].name);
        printf("\n");
        free(c);
        return 0;
    }
    doms = json_array();
    ms = json_array();
    for (int k = 0; k < PP_CLOCK_KINDS; k++)
        json_array_append_new(doms, domain_json(c, (pp_clock_kind)k));
    for (int i = 0; i < n; i++)
        json_array_append_new(ms, json_pack("{s:i, s:s}", "id", modes[i].id, "name", modes[i].name));
    root_json = json_pack("{s:o, s:o}", "clocks", doms, "nvpmodel_modes", ms);
    json_dumpf(root_json, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
    putchar('\n');
    json_decref(root_json);
    free(c);
    return 0;
}
