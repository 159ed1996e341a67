/* Battery parameters from a configuration file, and a battery group
 * written for every command to read (battery_config.h). */
#include "battery_config.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const battery_keys[] = {
    "preset", "model",     "cells",      "capacity_ah", "voltage_v",    "r_int_ohm",
    "r1_ohm", "c1_f",      "ocv_soc",    "ocv_v",       "soc_start",    "soc_cutoff",
    "cutoff_v", "base_power_w", "efficiency", NULL,
};

int pp_battery_params_from_config(const pp_config *cfg, pp_battery_params *p)
{
    const pp_config_setting *g = NULL;
    char text[64], why[256];
    const char *bad_key = NULL;
    size_t n_soc = 0, n_v = 0;
    int rc = pp_config_get_group(cfg, pp_config_root(cfg), "battery", &g);

    if (rc != 0)
        return rc < 0 ? rc : 0;
    if (pp_config_check_keys(cfg, g, battery_keys) < 0)
        return -EINVAL;
    rc = pp_config_get_string(cfg, g, "preset", text, sizeof text);
    if (rc < 0)
        return rc;
    if (rc == 0 && pp_battery_preset(text, p) < 0)
        return pp_config_error(cfg, g, "preset", "unknown preset '%s' (known: drone-4s-3200, "
                                                 "drone-3s-2200, drone-6s-10000)", text);
    rc = pp_config_get_string(cfg, g, "model", text, sizeof text);
    if (rc < 0)
        return rc;
    if (rc == 0 && pp_battery_model_parse(text, &p->model) < 0)
        return pp_config_error(cfg, g, "model", "unknown model '%s' (rint or thevenin)", text);
    if (pp_config_get_int(cfg, g, "cells", &p->cells) < 0 ||
        pp_config_get_double(cfg, g, "capacity_ah", &p->capacity_ah) < 0 ||
        pp_config_get_double(cfg, g, "voltage_v", &p->voltage_v) < 0 ||
        pp_config_get_double(cfg, g, "r_int_ohm", &p->r_int_ohm) < 0 ||
        pp_config_get_double(cfg, g, "r1_ohm", &p->r1_ohm) < 0 ||
        pp_config_get_double(cfg, g, "c1_f", &p->c1_f) < 0 ||
        pp_config_get_double(cfg, g, "soc_start", &p->soc_start_frac) < 0 ||
        pp_config_get_double(cfg, g, "soc_cutoff", &p->soc_cutoff_frac) < 0 ||
        pp_config_get_double(cfg, g, "cutoff_v", &p->cutoff_v) < 0 ||
        pp_config_get_double(cfg, g, "base_power_w", &p->base_power_w) < 0 ||
        pp_config_get_double(cfg, g, "efficiency", &p->efficiency) < 0)
        return -EINVAL;
    rc = pp_config_get_doubles(cfg, g, "ocv_soc", p->ocv_soc, PP_BATTERY_OCV_MAX, &n_soc);
    if (rc < 0)
        return rc;
    rc = pp_config_get_doubles(cfg, g, "ocv_v", p->ocv_v, PP_BATTERY_OCV_MAX, &n_v);
    if (rc < 0)
        return rc;
    if (n_soc || n_v) {
        if (n_soc != n_v)
            return pp_config_error(cfg, g, n_soc ? "ocv_soc" : "ocv_v",
                                   "ocv_soc has %zu values and ocv_v %zu: they must pair up",
                                   n_soc, n_v);
        p->ocv_n = n_soc;
    }
    if (pp_battery_params_check(p, &bad_key, why, sizeof why) < 0)
        return pp_config_error(cfg, g, bad_key, "%s", why);
    return 0;
}

int pp_battery_params_load(const char *path, pp_battery_params *p)
{
    pp_config *cfg;
    int rc = pp_config_load(path, &cfg);

    if (rc < 0)
        return rc;
    rc = pp_battery_params_from_config(cfg, p);
    pp_config_free(cfg);
    return rc;
}

void pp_battery_choice_init(pp_battery_choice *c)
{
    *c = (pp_battery_choice){.min_soc_frac = -1};
}

#define PRESETS "drone-4s-3200, drone-3s-2200, drone-6s-10000"

/* The pack named: a preset, a file, or either. */
static int choose_pack(const pp_battery_choice *c, pp_battery_params *p)
{
    int rc;

    if (c->preset && pp_battery_preset(c->preset, p) < 0) {
        pp_log_error("battery preset '%s': unknown (known: " PRESETS ")", c->preset);
        return -ENOENT;
    }
    if (c->preset_or_file && pp_battery_preset(c->preset_or_file, p) < 0) {
        if (access(c->preset_or_file, F_OK) != 0) {
            pp_log_error("battery '%s': neither a preset (" PRESETS ") nor a file",
                         c->preset_or_file);
            return -ENOENT;
        }
        if ((rc = pp_battery_params_load(c->preset_or_file, p)) < 0)
            return rc;
    }
    return c->file ? pp_battery_params_load(c->file, p) : 0;
}

int pp_battery_choose(const pp_battery_choice *c, pp_battery_params *p)
{
    const char *key;
    char why[256];
    int rc;

    pp_battery_params_default(p);
    if ((rc = choose_pack(c, p)) < 0)
        return rc;
    if (c->model && pp_battery_model_parse(c->model, &p->model) < 0) {
        pp_log_error("battery model '%s': rint or thevenin", c->model);
        return -EINVAL;
    }
    if (c->base_given)
        p->base_power_w = c->base_power_w;
    if (pp_battery_params_check(p, &key, why, sizeof why) < 0) {
        pp_log_error("battery: %s: %s", key, why);
        return -EINVAL;
    }
    if (c->min_soc_frac >= p->soc_start_frac) {
        pp_log_error("a reserve of %g is not below the battery's start (%g)", c->min_soc_frac,
                     p->soc_start_frac);
        return -EINVAL;
    }
    return 0;
}

/* 1 when path's battery group gives capacity_ah or a preset, 0 when not,
 * or a negative errno (logged). */
static int file_gives_capacity(const char *path)
{
    const pp_config_setting *g = NULL;
    pp_config *cfg;
    char text[64];
    double v;
    int rc = pp_config_load(path, &cfg);

    if (rc < 0)
        return rc;
    rc = pp_config_get_group(cfg, pp_config_root(cfg), "battery", &g);
    if (rc == 0)
        rc = pp_config_get_double(cfg, g, "capacity_ah", &v) == 0 ||
             pp_config_get_string(cfg, g, "preset", text, sizeof text) == 0;
    else if (rc == 1) /* no battery group */
        rc = 0;
    pp_config_free(cfg);
    return rc;
}

int pp_battery_choice_capacity_given(const pp_battery_choice *c)
{
    int rc = 0;

    if (c->preset)
        return 1;
    if (c->preset_or_file)
        rc = pp_battery_preset(c->preset_or_file, &(pp_battery_params){0}) == 0
                 ? 1 : file_gives_capacity(c->preset_or_file);
    return rc != 0 || !c->file ? rc : file_gives_capacity(c->file);
}

/* ---- a battery group written ---- */

/* Every line of text as a comment. */
static void comment(FILE *fp, const char *text)
{
    for (const char *s = text; s && *s;) {
        size_t len = strcspn(s, "\n");
        fprintf(fp, "# %.*s\n", (int)len, s);
        s += len + (s[len] == '\n');
    }
}

/* v as libconfig reads a float: with a point or an exponent (0 is an int). */
static void real(FILE *fp, double v)
{
    char buf[64];

    snprintf(buf, sizeof buf, "%.9g", v);
    fprintf(fp, "%s%s", buf, strpbrk(buf, ".eEn") ? "" : ".0");
}

static void list(FILE *fp, const char *key, const double *v, size_t n)
{
    fprintf(fp, "  %s = [", key);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", fp);
        real(fp, v[i]);
    }
    fprintf(fp, "];\n");
}

static void key_real(FILE *fp, const char *key, double v)
{
    fprintf(fp, "  %s = ", key);
    real(fp, v);
    fputs(";\n", fp);
}

int pp_battery_config_write(const char *path, const pp_battery_params *p, const char *text)
{
    pp_atomic_file af = {0};
    const char *key;
    char why[256];
    FILE *fp;

    if (pp_battery_params_check(p, &key, why, sizeof why) < 0) {
        pp_log_error("%s: not written: %s %s", path, key, why);
        return -EINVAL;
    }
    if (pp_atomic_file_open(&af, path) < 0)
        return -EIO;
    fp = af.fp;
    comment(fp, text);
    fprintf(fp, "battery = {\n  model = \"%s\";\n  cells = %d;\n", pp_battery_model_name(p->model),
            p->cells);
    key_real(fp, "capacity_ah", p->capacity_ah);
    key_real(fp, "voltage_v", p->voltage_v);
    key_real(fp, "r_int_ohm", p->r_int_ohm);
    key_real(fp, "r1_ohm", p->r1_ohm);
    key_real(fp, "c1_f", p->c1_f);
    fprintf(fp, "  # the RC time constant r1_ohm x c1_f: %.4g s\n", p->r1_ohm * p->c1_f);
    list(fp, "ocv_soc", p->ocv_soc, p->ocv_n);
    list(fp, "ocv_v", p->ocv_v, p->ocv_n);
    key_real(fp, "soc_start", p->soc_start_frac);
    key_real(fp, "soc_cutoff", p->soc_cutoff_frac);
    key_real(fp, "cutoff_v", p->cutoff_v);
    key_real(fp, "base_power_w", p->base_power_w);
    key_real(fp, "efficiency", p->efficiency);
    fputs("};\n", fp);
    return pp_atomic_file_commit(&af) == 0 ? 0 : -EIO;
}
