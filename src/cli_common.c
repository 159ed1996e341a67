#include "cli.h"

#include "util.h"

#include <math.h>

int pp_cli_parse_double(const char *cmd, const char *name, const char *arg, double *out)
{
    if (pp_parse_double(arg, out) < 0) {
        fprintf(stderr, "powprof %s: %s '%s' is not a number\n", cmd, name, arg);
        return -1;
    }
    return 0;
}

int pp_cli_device_option(int opt, const char *arg, pp_device_options *o, const char *cmd)
{
    switch (opt) {
    case PP_OPT_SYSFS_ROOT:
        o->sysfs_root = arg;
        return 1;
    case PP_OPT_IDLE_W:
        return pp_cli_parse_double(cmd, "--procstat-idle-w", arg, &o->procstat_idle_w) < 0 ? -1 : 1;
    case PP_OPT_CORE_W:
        return pp_cli_parse_double(cmd, "--procstat-core-w", arg, &o->procstat_core_w) < 0 ? -1 : 1;
    case PP_OPT_REPLAY:
        o->replay_path = arg;
        return 1;
    case PP_OPT_NVML_LIB:
        o->nvml_library = arg;
        return 1;
    default:
        return 0;
    }
}

void pp_json_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", fp);
        else if (c == '\t')
            fputs("\\t", fp);
        else if (c < 0x20)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

void pp_json_number(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.9g", v);
    else
        fputs("null", fp);
}

void pp_json_field(FILE *fp, const char *key, double v)
{
    fprintf(fp, ",\"%s\":", key);
    pp_json_number(fp, v);
}
