#include "cli.h"

#include "src/api/pipeline.h"
#include "src/base/util.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

int pp_cli_parse_double(const char *cmd, const char *name, const char *arg, double *out)
{
    if (pp_parse_double(arg, out) < 0) {
        fprintf(stderr, "powprof %s: %s '%s' is not a number\n", cmd, name, arg);
        return -1;
    }
    return 0;
}

int pp_cli_refused(const char *cmd, const char *name, const char *arg, int rc, const char *why)
{
    if (rc >= 0)
        return 0;
    fprintf(stderr, "powprof %s: %s %s: %s\n", cmd, name, arg, why);
    return -1;
}

int pp_cli_opt_mission_s(const pp_opt *row, const char *arg, const char *cmd)
{
    return pp_mission_s_parse(cmd, arg, row->value);
}

int pp_cli_opt_min_soc(const pp_opt *row, const char *arg, const char *cmd)
{
    if (pp_parse_fraction(arg, row->value) < 0) {
        fprintf(stderr, "powprof %s: --min-soc %s: a fraction in [0, 1) or a percentage "
                "(20%%)\n", cmd, arg);
        return -1;
    }
    return pp_plan_check_min_soc(*(double *)row->value); /* the library's words */
}

int pp_cli_risk_parse(const char *arg, void *mean)
{
    *(int *)mean = strcmp(arg, "mean") == 0;
    return *(int *)mean || strcmp(arg, "upper") == 0 ? 0 : -1;
}

int pp_cli_opt_resolution(const pp_opt *row, const char *arg, const char *cmd)
{
    char why[160];

    return pp_cli_refused(cmd, "--resolution", arg,
                          pp_plan_resolution_parse(arg, row->value, why, sizeof why), why);
}

void pp_cli_mission_say(const pp_mission_settings *m, const pp_battery_params *b, FILE *fp)
{
    const char *file = m->battery_from_folder ? m->folder_cfg : m->config;

    fprintf(fp, "battery: %s%s (%s, %d cells, %.4g Ah); base load %.4g W (%s)\n",
            file ? file : "the default pack, drone-4s-3200",
            m->config ? "'s battery group" : "", pp_battery_model_name(b->model), b->cells,
            b->capacity_ah, b->base_power_w,
            m->base_from_folder ? "the results' mission group"
            : m->base_power_w >= 0 ? "--base-power-w"
            : m->config ? "its battery group" : "the pack's");
}

