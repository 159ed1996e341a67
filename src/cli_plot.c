/* powprof plot: gnuplot scripts and data under RESULTS/plots/, rendered when
 * gnuplot is installed. */
#include "cli.h"

#include "log.h"
#include "proc.h"
#include "summary.h"
#include "trace.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char plot_help[] =
    "usage: powprof plot RESULTS [--format png|svg|both]\n"
    "\n"
    "Write gnuplot scripts under RESULTS/plots/ and render them (when gnuplot is\n"
    "installed): layer 1, power over time of the configurations (all rails of\n"
    "each of up to 24, and the total of up to 8 together); layer 2 (the surface\n"
    "of `powprof model`, built first if missing): with one varying parameter a\n"
    "line through the measured points with the state of charge on a second\n"
    "axis, with two or more pm3d surfaces of mean power, energy and battery\n"
    "drained over each pair, the others at their middle.\n"
    "\n"
    "options:\n"
    "  --format FMT           png (default), svg or both\n"
    "  -h, --help             this help\n";

enum { OPT_FORMAT = 6000 };

typedef struct plotter {
    const char *dir;
    char plots[4200];
    int png, svg;
    size_t n_scripts;
    char scripts[512][128];
} plotter;

/* Open plots/<name>.gp and write the terminal lines. */
static FILE *script_open(plotter *pl, const char *name)
{
    char path[4400];
    FILE *fp;

    if (pl->n_scripts == 512)
        return NULL;
    pp_fmt(path, sizeof path, "%s/%s.gp", pl->plots, name);
    fp = fopen(path, "w");
    if (!fp) {
        pp_log_error("%s: cannot write: %s", path, strerror(errno));
        return NULL;
    }
    pp_fmt(pl->scripts[pl->n_scripts++], 128, "%s.gp", name);
    fprintf(fp, "# powprof plot: %s (paths relative to this folder)\n", name);
    fprintf(fp, "set datafile separator ','\nset grid\nset key outside right top noenhanced\n");
    return fp;
}

/* The output lines: png, then svg of the same plot (replot). */
static void script_outputs(const plotter *pl, FILE *fp, const char *name, const char *plot_cmd)
{
    if (pl->png) {
        fprintf(fp, "set terminal pngcairo size 1000,620 font 'sans,11'\nset output '%s.png'\n",
                name);
        fprintf(fp, "%s\n", plot_cmd);
    }
    if (pl->svg) {
        fprintf(fp, "set terminal svg size 1000,620 font 'sans,11'\nset output '%s.svg'\n", name);
        fprintf(fp, "%s\n", pl->png ? "replot" : plot_cmd);
    }
    fprintf(fp, "unset output\n");
}

static const char *unit_of(const char *metric)
{
    size_t n = strlen(metric);
    if (n > 2 && strcmp(metric + n - 2, "_w") == 0)
        return "W";
    if (n > 2 && strcmp(metric + n - 2, "_j") == 0)
        return "J";
    if (n > 2 && strcmp(metric + n - 2, "_s") == 0)
        return "s";
    if (strncmp(metric, "soc", 3) == 0)
        return "% of the battery";
    return "";
}

/* The trace's total: a gnuplot expression over its top-level columns. */
static void total_expr(const char *trace_path, char *buf, size_t cap, int *estimated)
{
    pp_trace t;
    size_t len = 0;

    pp_strlcpy(buf, "($2)", cap);
    *estimated = 0;
    if (pp_trace_read_csv(trace_path, &t) < 0)
        return;
    len += (size_t)snprintf(buf, cap, "(0");
    for (size_t r = 0; r < t.n_rails; r++) {
        if (strstr(t.names[r], "_est"))
            *estimated = 1;
        if (!pp_trace_rail_is_inside(&t, r) && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "+$%zu", r + 2);
    }
    if (len < cap)
        snprintf(buf + len, cap - len, ")");
    pp_trace_free(&t);
}

static void config_label(const pp_summary *s, size_t row, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "id %ld:", s->ids[row]);
    for (size_t k = 0; k < s->n_params && len < cap; k++)
        len += (size_t)snprintf(buf + len, cap - len, " %s=%g", s->params[k],
                                s->x[row * s->n_params + k]);
}

static void layer1(plotter *pl, const pp_summary *s)
{
    int mw = pp_summary_metric(s, "total_mean_w");
    size_t n = s->n_rows, picks[8], n_picks = 0, *order;
    char path[4400], expr[512], label[512], plot[8192], name[64];
    int estimated = 0;
    FILE *fp;

    /* every rail of up to 24 configurations */
    for (size_t i = 0; i < n && i < 24; i++) {
        pp_trace t;
        size_t len;
        pp_fmt(path, sizeof path, "%s/traces/%ld.csv", pl->dir, s->ids[i]);
        if (pp_trace_read_csv(path, &t) < 0)
            continue;
        pp_fmt(name, sizeof name, "trace-%ld", s->ids[i]);
        if (!(fp = script_open(pl, name))) {
            pp_trace_free(&t);
            continue;
        }
        config_label(s, i, label, sizeof label);
        estimated = strstr(t.names[0], "_est") != NULL;
        fprintf(fp, "set title \"layer 1: power over time, %s%s\" noenhanced\n", label,
                estimated ? " (ESTIMATED from CPU utilization)" : "");
        fprintf(fp, "set xlabel 'time since the start of the configuration [s]'\n"
                    "set ylabel 'power [W]'\nset yrange [0:*]\n");
        len = (size_t)snprintf(plot, sizeof plot, "plot");
        for (size_t r = 0; r < t.n_rails && len < sizeof plot; r++)
            len += (size_t)snprintf(plot + len, sizeof plot - len,
                                    "%s '../traces/%ld.csv' skip 1 using 1:%zu with lines lw 2 "
                                    "title '%s'", r ? "," : "", s->ids[i], r + 2, t.names[r]);
        script_outputs(pl, fp, name, plot);
        fclose(fp);
        pp_trace_free(&t);
    }
    /* the total of up to 8, spread over the range of mean power */
    order = malloc(n * sizeof *order);
    if (!order)
        return;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    if (mw >= 0)
        for (size_t i = 1; i < n; i++) /* insertion sort by mean power */
            for (size_t j = i; j > 0 && s->y[order[j - 1] * s->n_metrics + mw] >
                                            s->y[order[j] * s->n_metrics + mw]; j--) {
                size_t t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
    for (size_t k = 0; k < 8 && k < n; k++) {
        size_t pick = n <= 8 ? k : (size_t)llround((double)k * (double)(n - 1) / 7.0);
        if (n_picks == 0 || picks[n_picks - 1] != order[pick])
            picks[n_picks++] = order[pick];
    }
    free(order);
    pp_fmt(path, sizeof path, "%s/traces/%ld.csv", pl->dir, s->ids[picks[0]]);
    total_expr(path, expr, sizeof expr, &estimated);
    if (!(fp = script_open(pl, "layer1-total")))
        return;
    fprintf(fp, "set title \"layer 1: total power over time%s\" noenhanced\n",
            estimated ? " (ESTIMATED from CPU utilization)" : "");
    fprintf(fp, "set xlabel 'time since the start of the configuration [s]'\n"
                "set ylabel 'total power [W]'\nset yrange [0:*]\n");
    {
        size_t len = (size_t)snprintf(plot, sizeof plot, "plot");
        for (size_t k = 0; k < n_picks && len < sizeof plot; k++) {
            config_label(s, picks[k], label, sizeof label);
            len += (size_t)snprintf(plot + len, sizeof plot - len,
                                    "%s '../traces/%ld.csv' skip 1 using 1:%s with lines lw 2 "
                                    "title '%s'", k ? "," : "", s->ids[picks[k]], expr, label);
        }
    }
    script_outputs(pl, fp, "layer1-total", plot);
    fclose(fp);
}

static void layer2(plotter *pl, const pp_summary *s)
{
    static const char *const metrics[] = {"total_mean_w", "total_energy_j", "soc_drain"};
    size_t vary[PP_SUMMARY_MAX_PARAMS], n_vary = 0;
    char path[4400], name[600], plot[2048];
    FILE *fp;

    for (size_t k = 0; k < s->n_params; k++) {
        size_t i = 1;
        while (i < s->n_rows && s->x[i * s->n_params + k] == s->x[k])
            i++;
        if (i < s->n_rows)
            vary[n_vary++] = k;
    }
    int estimated = 0;

    for (size_t m = 0; m < s->n_metrics; m++)
        estimated |= strstr(s->metrics[m], "_est_") != NULL;
    if (n_vary == 0)
        return;
    if (n_vary == 1) {
        size_t k = vary[0];
        int soc = pp_summary_metric(s, "soc_end");
        for (size_t m = 0; m < 2; m++) {
            int col = pp_summary_metric(s, metrics[m]);
            if (col < 0)
                continue;
            /* the measured points, whitespace separated like the model's grid */
            pp_fmt(path, sizeof path, "%s/measured-%s.dat", pl->plots, metrics[m]);
            if (!(fp = fopen(path, "w")))
                continue;
            fprintf(fp, "# %s %s (measured)\n", s->params[k], metrics[m]);
            for (size_t i = 0; i < s->n_rows; i++)
                fprintf(fp, "%.10g %.10g\n", s->x[i * s->n_params + k],
                        s->y[i * s->n_metrics + (size_t)col]);
            fclose(fp);
            pp_fmt(name, sizeof name, "layer2-%s", metrics[m]);
            if (!(fp = script_open(pl, name)))
                continue;
            fprintf(fp, "set datafile separator whitespace\n");
            fprintf(fp, "set title \"layer 2: %s against %s%s%s\" noenhanced\n", metrics[m],
                    s->params[k], soc >= 0 ? ", and the state of charge after one run" : "",
                    estimated ? "\\n(power ESTIMATED from CPU utilization, not measured)" : "");
            fprintf(fp, "set xlabel '%s' noenhanced\nset ylabel '%s [%s]' noenhanced\n",
                    s->params[k], metrics[m], unit_of(metrics[m]));
            if (soc >= 0)
                fprintf(fp, "set y2label 'state of charge after one run [%%]'\nset y2tics\n"
                            "set ytics nomirror\n");
            if (s->log_scale[k])
                fprintf(fp, "set logscale x 2\n");
            pp_fmt(plot, sizeof plot,
                   "plot '../model/%s.dat' using 1:3:4 with filledcurves fs transparent solid 0.2 "
                   "noborder title '90 %% band', '' using 1:2 with lines lw 2 title 'predicted', "
                   "'measured-%s.dat' using 1:2 with points pt 7 ps 1.3 title 'measured'%s",
                   metrics[m], metrics[m],
                   soc >= 0 ? ", '../model/soc_end.dat' using 1:($2*100) axes x1y2 with lines "
                              "dt 2 lw 2 title 'state of charge (predicted)'"
                            : "");
            script_outputs(pl, fp, name, plot);
            fclose(fp);
        }
        return;
    }
    for (size_t a = 0; a < n_vary; a++)
        for (size_t b = a + 1; b < n_vary; b++)
            for (size_t m = 0; m < 3; m++) {
                size_t ka = vary[a], kb = vary[b];
                pp_fmt(path, sizeof path, "%s/model/%s__%s__%s.dat", pl->dir, metrics[m],
                       s->params[ka], s->params[kb]);
                if (access(path, R_OK) != 0)
                    continue;
                pp_fmt(name, sizeof name, "layer2-%s-%s-%s", metrics[m], s->params[ka],
                       s->params[kb]);
                if (!(fp = script_open(pl, name)))
                    continue;
                fprintf(fp, "set datafile separator whitespace\n");
                fprintf(fp, "set title \"layer 2: %s%s%s\" noenhanced\n", metrics[m],
                        n_vary > 2 ? " (the other parameters at their middle)" : "",
                        estimated ? "\\n(power ESTIMATED from CPU utilization, not measured)"
                                  : "");
                fprintf(fp, "set xlabel '%s' noenhanced\nset ylabel '%s' noenhanced\n"
                            "set zlabel '%s [%s]' rotate noenhanced\n",
                        s->params[ka], s->params[kb], metrics[m], unit_of(metrics[m]));
                if (s->log_scale[ka])
                    fprintf(fp, "set logscale x 2\n");
                if (s->log_scale[kb])
                    fprintf(fp, "set logscale y 2\n");
                fprintf(fp, "set pm3d\nset view 60,30\nset palette rgbformulae 33,13,10\n"
                            "unset key\n");
                pp_fmt(plot, sizeof plot, "splot '../model/%s__%s__%s.dat' using 1:2:(%s) with pm3d",
                       metrics[m], s->params[ka], s->params[kb],
                       strncmp(metrics[m], "soc", 3) == 0 ? "$3*100" : "$3");
                script_outputs(pl, fp, name, plot);
                fclose(fp);
            }
}

int pp_cmd_plot(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"format", required_argument, NULL, OPT_FORMAT},
        {NULL, 0, NULL, 0},
    };
    plotter pl;
    pp_summary s;
    char path[4400];
    int opt, rendered = 0, failed = 0;

    memset(&pl, 0, sizeof pl);
    pl.png = 1;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (opt == 'h') {
            fputs(plot_help, stdout);
            return 0;
        }
        if (opt == OPT_FORMAT) {
            pl.png = strcmp(optarg, "png") == 0 || strcmp(optarg, "both") == 0;
            pl.svg = strcmp(optarg, "svg") == 0 || strcmp(optarg, "both") == 0;
            if (!pl.png && !pl.svg) {
                fprintf(stderr, "powprof plot: --format %s: png, svg or both\n", optarg);
                return PP_EXIT_USAGE;
            }
            continue;
        }
        fputs("Try 'powprof plot --help'.\n", stderr);
        return PP_EXIT_USAGE;
    }
    if (optind != argc - 1) {
        fputs("powprof plot: one results folder expected\n", stderr);
        return PP_EXIT_USAGE;
    }
    pl.dir = argv[optind];
    if (pp_summary_read(pl.dir, &s) < 0)
        return PP_EXIT_USAGE;
    pp_fmt(path, sizeof path, "%s/model.json", pl.dir);
    if (s.n_params > 0 && access(path, R_OK) != 0 && pp_model_build(pl.dir, 0, 0, 1) != 0) {
        pp_summary_free(&s);
        return PP_EXIT_FAILURE;
    }
    pp_fmt(pl.plots, sizeof pl.plots, "%s/plots", pl.dir);
    mkdir(pl.plots, 0755);
    layer1(&pl, &s);
    if (s.n_params > 0)
        layer2(&pl, &s);
    pp_summary_free(&s);
    for (size_t i = 0; i < pl.n_scripts; i++) {
        char cd[4400];
        char *args[] = {"gnuplot", "-e", cd, pl.scripts[i], NULL};
        pid_t pid;
        int st = 0, rc;
        if (strchr(pl.plots, '\'')) {
            failed = -1;
            break;
        }
        pp_fmt(cd, sizeof cd, "cd '%s'", pl.plots);
        rc = pp_proc_spawn(args, 0, &pid);
        if (rc == -ENOENT) {
            failed = -1;
            break;
        }
        if (rc < 0 || pp_proc_wait(pid, &st) < 0 || st != 0) {
            fprintf(stderr, "powprof plot: gnuplot failed on %s/%s\n", pl.plots, pl.scripts[i]);
            failed++;
            continue;
        }
        rendered++;
    }
    if (failed < 0) {
        printf("%zu gnuplot scripts in %s; gnuplot is not installed: render them with\n"
               "  cd %s && for f in *.gp; do gnuplot \"$f\"; done\n",
               pl.n_scripts, pl.plots, pl.plots);
        return 0;
    }
    printf("%d plots rendered in %s (%zu scripts)\n", rendered, pl.plots, pl.n_scripts);
    return failed ? PP_EXIT_FAILURE : 0;
}
