/* A battery group written for every command to read (battery_config.h). */
#include "battery_config.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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
