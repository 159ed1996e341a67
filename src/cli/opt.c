/* The option table's parser and usage printer (opt.h), over getopt_long. */
#include "opt.h"

#include "src/base/util.h"

#include <getopt.h>
#include <string.h>

#define MAX_ROWS 64

/* arg as a number into *v: 0, or -1 (said: not a number). */
static int read_number(const pp_opt *r, const char *arg, const char *cmd, double *v)
{
    if (pp_parse_double(arg, v) == 0)
        return 0;
    fprintf(stderr, "powprof %s: --%s '%s' is not a number\n", cmd, r->long_name, arg);
    return -1;
}

/* A number row's argument: 0, or -1 (said why: the option and the
 * argument, and the range's words when it lies outside). */
static int number(const pp_opt *r, const char *arg, const char *cmd)
{
    double v;

    if (read_number(r, arg, cmd, &v) < 0)
        return -1;
    if (r->why && !(isfinite(v) && ((r->open & PP_OPT_LO_OPEN) ? v > r->lo : v >= r->lo) &&
                    ((r->open & PP_OPT_HI_OPEN) ? v < r->hi : v <= r->hi))) {
        fprintf(stderr, "powprof %s: --%s %s: %s\n", cmd, r->long_name, arg, r->why);
        return -1;
    }
    *(double *)r->value = v;
    return 0;
}

/* A whole number row's argument: 0, or -1 (said why). */
static int whole(const pp_opt *r, const char *arg, const char *cmd)
{
    double v;

    if (read_number(r, arg, cmd, &v) < 0)
        return -1;
    if (!(v >= r->lo && v <= r->hi && v == floor(v))) {
        fprintf(stderr, "powprof %s: --%s %s: a whole number in [%.0f, %.0f]\n", cmd,
                r->long_name, arg, r->lo, r->hi);
        return -1;
    }
    *(int *)r->value = (int)v;
    return 0;
}

/* Row r given with arg: 0, 1 (--help printed), or -1 (said why). */
static int take(const pp_command *c, const pp_opt *r, const char *arg)
{
    switch (r->kind) {
    case PP_OPTK_HELP:
        pp_opt_usage(c, stdout);
        return 1;
    case PP_OPTK_BOOL:
        *(int *)r->value = 1;
        return 0;
    case PP_OPTK_STRING:
        *(const char **)r->value = arg;
        return 0;
    case PP_OPTK_DOUBLE:
        return number(r, arg, c->name);
    case PP_OPTK_INT:
        return whole(r, arg, c->name);
    case PP_OPTK_PARSE:
        if (r->parse(arg, r->value) >= 0)
            return 0;
        fprintf(stderr, "powprof %s: --%s %s: %s\n", c->name, r->long_name, arg, r->why);
        return -1;
    case PP_OPTK_CALLBACK:
        return r->fn(r, arg, c->name) < 0 ? -1 : 0;
    default:
        return -1;
    }
}

/* getopt_long's tables of c: long options answer 256 + their row. The
 * number of rows. */
static size_t tables(const pp_command *c, struct option *lo, char *so, size_t so_cap)
{
    size_t n = 0, nl = 0, ns = 0;

    if (c->flags && strlen(c->flags) < 4) { /* "+" */
        ns = strlen(c->flags);
        memcpy(so, c->flags, ns);
    }
    for (; c->opts[n].kind != PP_OPTK_END && n < MAX_ROWS; n++) {
        const pp_opt *r = &c->opts[n];
        if (r->long_name)
            lo[nl++] = (struct option){r->long_name, r->argh ? required_argument : no_argument,
                                       NULL, 256 + (int)n};
        if (r->short_name && ns + 3 < so_cap) {
            so[ns++] = (char)r->short_name;
            if (r->argh)
                so[ns++] = ':';
        }
    }
    so[ns] = '\0';
    lo[nl] = (struct option){NULL, 0, NULL, 0};
    return n;
}

int pp_opt_parse(const pp_command *c, int argc, char **argv)
{
    struct option lo[MAX_ROWS + 1];
    char so[2 * MAX_ROWS + 4];
    size_t n = tables(c, lo, so, sizeof so);
    int opt, rc;

    if (c->opts[n].kind != PP_OPTK_END) { /* a table longer than getopt's: a bug, said */
        fprintf(stderr, "powprof %s: more than %d options in its table\n", c->name, MAX_ROWS);
        return PP_EXIT_FAILURE;
    }
    optind = 1;
    while ((opt = getopt_long(argc, argv, so, lo, NULL)) != -1) {
        const pp_opt *r = NULL;
        if (opt >= 256 && (size_t)(opt - 256) < n)
            r = &c->opts[opt - 256];
        for (size_t i = 0; !r && opt != '?' && i < n; i++)
            r = c->opts[i].short_name == opt ? &c->opts[i] : NULL;
        if (!r) {
            fprintf(stderr, "Try 'powprof %s --help'.\n", c->name);
            return PP_EXIT_USAGE;
        }
        if ((rc = take(c, r, optarg)) != 0)
            return rc > 0 ? 1 : PP_EXIT_USAGE;
    }
    return 0;
}

/* Row r's line(s) of --help. */
static void usage_row(const pp_opt *r, int width, FILE *fp)
{
    char sh[5] = {0};
    const char *h = r->help ? r->help : "", *nl;
    int w;

    if (r->short_name) {
        sh[0] = '-';
        sh[1] = (char)r->short_name;
        if (r->long_name)
            memcpy(sh + 2, ", ", 3);
    }
    w = fprintf(fp, "  %s%s%s%s%s", sh, r->long_name ? "--" : "",
                r->long_name ? r->long_name : "", r->argh ? " " : "", r->argh ? r->argh : "") - 2;
    if (w > width)
        fprintf(fp, "\n  %*s ", width, "");
    else
        fprintf(fp, "%*s ", width - w, "");
    while ((nl = strchr(h, '\n'))) {
        fprintf(fp, "%.*s\n  %*s ", (int)(nl - h), h, width, "");
        h = nl + 1;
    }
    fprintf(fp, "%s\n", h);
}

void pp_opt_usage(const pp_command *c, FILE *fp)
{
    fputs(c->head, fp);
    fputs("\noptions:\n", fp);
    for (const pp_opt *r = c->opts; r->kind != PP_OPTK_END; r++)
        usage_row(r, c->width ? c->width : 22, fp);
    if (c->tail)
        fprintf(fp, "\n%s", c->tail);
}

int pp_opt_one_operand(const char *cmd, const char *what, int argc)
{
    if (optind == argc - 1)
        return 0;
    fprintf(stderr, "powprof %s: one %s expected\n", cmd, what);
    return PP_EXIT_USAGE;
}
