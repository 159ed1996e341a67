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

/* Every string that goes into a script (titles, labels, file names) is
 * written through pp_gp_printf, which quotes and escapes it, and every
 * file name built from a name through pp_path_fmt (util.h). */
typedef struct plotter {
    const char *dir;
    char plots[4200];
    int png, svg;
    size_t n_scripts;
    char scripts[512][PP_NAME_MAX]; /* base names: <name>.gp in plots */
} plotter;

/* Open plots/<name>.gp and write the first lines. */
static FILE *script_open(plotter *pl, const char *name)
{
    char path[4400];
    FILE *fp;

    if (pl->n_scripts == 512 || pp_path_fmt(path, sizeof path, pl->plots, "%s.gp", name) < 0)
        return NULL;
    fp = fopen(path, "w");
    if (!fp) {
        pp_log_error("%s: cannot write: %s", path, strerror(errno));
        return NULL;
    }
    pp_strlcpy(pl->scripts[pl->n_scripts++], name, PP_NAME_MAX);
    pp_gp_printf(fp, "# powprof plot (paths relative to this folder)\n"
                     "set datafile separator ','\nset grid\nset key outside right top noenhanced\n");
    return fp;
}

/* Before the plot command: the first format's terminal and output. */
static void script_output(const plotter *pl, FILE *fp, const char *name)
{
    if (pl->png)
        pp_gp_printf(fp, "set terminal pngcairo size 1000,620 font 'sans,11'\n"
                         "set output %s.'.png'\n", name);
    else
        pp_gp_printf(fp, "set terminal svg size 1000,620 font 'sans,11'\n"
                         "set output %s.'.svg'\n", name);
}

/* After the plot command: the svg of the same plot when both are asked. */
static void script_close(const plotter *pl, FILE *fp, const char *name)
{
    if (pl->png && pl->svg)
        pp_gp_printf(fp, "set terminal svg size 1000,620 font 'sans,11'\n"
                         "set output %s.'.svg'\nreplot\n", name);
    pp_gp_printf(fp, "unset output\n");
    fclose(fp);
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

/* The trace's total as a gnuplot expression over its top-level columns,
 * written after "using 1:". */
static void total_expr(FILE *fp, const pp_trace *t)
{
    if (!t) {
        pp_gp_printf(fp, "2");
        return;
    }
    pp_gp_printf(fp, "(0");
    for (size_t r = 0; r < t->n_rails; r++)
        if (!pp_trace_rail_is_inside(t, r))
            pp_gp_printf(fp, "+$%zu", r + 2);
    pp_gp_printf(fp, ")");
}

static void config_label(const pp_summary *s, size_t row, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "id %ld:", s->ids[row]);
    for (size_t k = 0; k < s->n_params && len < cap; k++)
        len += (size_t)snprintf(buf + len, cap - len, " %s=%g", s->params[k],
                                s->x[row * s->n_params + k]);
}

static int is_estimated(const pp_trace *t)
{
    for (size_t r = 0; r < t->n_rails; r++)
        if (strstr(t->names[r], "_est"))
            return 1;
    return 0;
}

/* Every rail of configuration row i over time. */
static void layer1_trace(plotter *pl, const pp_summary *s, size_t i)
{
    char path[4400], name[64], label[512];
    pp_trace t;
    FILE *fp;

    pp_fmt(path, sizeof path, "%s/traces/%ld.csv", pl->dir, s->ids[i]);
    if (pp_trace_read_csv(path, &t) < 0)
        return;
    pp_fmt(name, sizeof name, "trace-%ld", s->ids[i]);
    if ((fp = script_open(pl, name))) {
        size_t len = (size_t)snprintf(label, sizeof label, "layer 1: power over time, ");
        config_label(s, i, label + len, sizeof label - len);
        if (is_estimated(&t) && strlen(label) + 40 < sizeof label)
            strcat(label, " (ESTIMATED from CPU utilization)");
        pp_gp_printf(fp, "set title %s noenhanced\n", label);
        pp_gp_printf(fp, "set xlabel 'time since the start of the configuration [s]'\n"
                         "set ylabel 'power [W]'\nset yrange [0:*]\n");
        script_output(pl, fp, name);
        pp_gp_printf(fp, "plot");
        for (size_t r = 0; r < t.n_rails; r++)
            pp_gp_printf(fp, "%c '../traces/%ld.csv' skip 1 using 1:%zu with lines lw 2 title %s",
                         r ? ',' : ' ', s->ids[i], r + 2, t.names[r]);
        pp_gp_printf(fp, "\n");
        script_close(pl, fp, name);
    }
    pp_trace_free(&t);
}

/* Up to 8 configurations spread over the range of mean power (rows). */
static size_t pick_spread(const pp_summary *s, size_t *picks)
{
    int mw = pp_summary_metric(s, "total_mean_w");
    size_t n = s->n_rows, n_picks = 0, *order = malloc(n * sizeof *order);

    if (!order)
        return 0;
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
    return n_picks;
}

static void layer1(plotter *pl, const pp_summary *s)
{
    size_t picks[8], n_picks;
    char path[4400], label[512];
    pp_trace t;
    int have_t;
    FILE *fp;

    for (size_t i = 0; i < s->n_rows && i < 24; i++)
        layer1_trace(pl, s, i);
    if (!(n_picks = pick_spread(s, picks)))
        return;
    pp_fmt(path, sizeof path, "%s/traces/%ld.csv", pl->dir, s->ids[picks[0]]);
    have_t = pp_trace_read_csv(path, &t) == 0;
    if ((fp = script_open(pl, "layer1-total"))) {
        pp_gp_printf(fp, "set title %s noenhanced\n",
                     have_t && is_estimated(&t)
                         ? "layer 1: total power over time (ESTIMATED from CPU utilization)"
                         : "layer 1: total power over time");
        pp_gp_printf(fp, "set xlabel 'time since the start of the configuration [s]'\n"
                         "set ylabel 'total power [W]'\nset yrange [0:*]\n");
        script_output(pl, fp, "layer1-total");
        pp_gp_printf(fp, "plot");
        for (size_t k = 0; k < n_picks; k++) {
            config_label(s, picks[k], label, sizeof label);
            pp_gp_printf(fp, "%c '../traces/%ld.csv' skip 1 using 1:", k ? ',' : ' ',
                         s->ids[picks[k]]);
            total_expr(fp, have_t ? &t : NULL);
            pp_gp_printf(fp, " with lines lw 2 title %s", label);
        }
        pp_gp_printf(fp, "\n");
        script_close(pl, fp, "layer1-total");
    }
    if (have_t)
        pp_trace_free(&t);
}

/* The measured points of metric col against parameter k into
 * plots/measured-<metric>.dat, whitespace separated like the model's grid. */
static int write_measured(const plotter *pl, const pp_summary *s, size_t k, const char *metric,
                          int col)
{
    char path[4400];
    FILE *fp;

    if (pp_path_fmt(path, sizeof path, pl->plots, "measured-%s.dat", metric) < 0 ||
        !(fp = fopen(path, "w")))
        return -EIO;
    fprintf(fp, "# %s %s (measured)\n", s->params[k], metric);
    for (size_t i = 0; i < s->n_rows; i++)
        fprintf(fp, "%.10g %.10g\n", s->x[i * s->n_params + k],
                s->y[i * s->n_metrics + (size_t)col]);
    return fclose(fp) == 0 ? 0 : -EIO;
}

#define ESTIMATED_NOTE "\n(power ESTIMATED from CPU utilization, not measured)"

/* One varying parameter k: a line through the measured points, with the
 * state of charge on a second axis. */
static void layer2_line(plotter *pl, const pp_summary *s, size_t k, const char *metric,
                        int estimated)
{
    int col = pp_summary_metric(s, metric), soc = pp_summary_metric(s, "soc_end");
    char name[PP_NAME_MAX], text[1024];
    FILE *fp;

    if (col < 0 || write_measured(pl, s, k, metric, col) < 0)
        return;
    pp_fmt(name, sizeof name, "layer2-%s", metric);
    if (!(fp = script_open(pl, name)))
        return;
    pp_fmt(text, sizeof text, "layer 2: %s against %s%s%s", metric, s->params[k],
           soc >= 0 ? ", and the state of charge after one run" : "",
           estimated ? ESTIMATED_NOTE : "");
    pp_gp_printf(fp, "set datafile separator whitespace\nset title %s noenhanced\n", text);
    pp_fmt(text, sizeof text, "%s [%s]", metric, unit_of(metric));
    pp_gp_printf(fp, "set xlabel %s noenhanced\nset ylabel %s noenhanced\n", s->params[k], text);
    if (soc >= 0)
        pp_gp_printf(fp, "set y2label 'state of charge after one run [%%]'\nset y2tics\n"
                         "set ytics nomirror\n");
    if (s->log_scale[k])
        pp_gp_printf(fp, "set logscale x 2\n");
    script_output(pl, fp, name);
    pp_gp_printf(fp, "plot '../model/'.%s.'.dat' using 1:3:4 with filledcurves fs transparent "
                     "solid 0.2 noborder title '90 %% band', '' using 1:2 with lines lw 2 title "
                     "'predicted', "
                     "'measured-'.%s.'.dat' using 1:2 with points pt 7 ps 1.3 title 'measured'",
                 metric, metric);
    if (soc >= 0)
        pp_gp_printf(fp, ", '../model/soc_end.dat' using 1:($2*100) axes x1y2 with lines dt 2 "
                         "lw 2 title 'state of charge (predicted)'");
    pp_gp_printf(fp, "\n");
    script_close(pl, fp, name);
}

/* Two varying parameters ka, kb: the pm3d surface of the model's grid. */
static void layer2_surface(plotter *pl, const pp_summary *s, size_t ka, size_t kb,
                           const char *metric, int estimated, int others)
{
    char path[4400], name[PP_NAME_MAX], text[1024];
    FILE *fp;

    if (pp_path_fmt(path, sizeof path, pl->dir, "model/%s__%s__%s.dat", metric, s->params[ka],
                    s->params[kb]) < 0 ||
        access(path, R_OK) != 0)
        return;
    if (pp_fmt(name, sizeof name, "layer2-%s-%s-%s", metric, s->params[ka], s->params[kb]) < 0 ||
        !(fp = script_open(pl, name)))
        return;
    pp_fmt(text, sizeof text, "layer 2: %s%s%s", metric,
           others ? " (the other parameters at their middle)" : "",
           estimated ? ESTIMATED_NOTE : "");
    pp_gp_printf(fp, "set datafile separator whitespace\nset title %s noenhanced\n", text);
    pp_fmt(text, sizeof text, "%s [%s]", metric, unit_of(metric));
    pp_gp_printf(fp, "set xlabel %s noenhanced\nset ylabel %s noenhanced\n"
                     "set zlabel %s rotate noenhanced\n", s->params[ka], s->params[kb], text);
    if (s->log_scale[ka])
        pp_gp_printf(fp, "set logscale x 2\n");
    if (s->log_scale[kb])
        pp_gp_printf(fp, "set logscale y 2\n");
    pp_gp_printf(fp, "set pm3d\nset view 60,30\nset palette rgbformulae 33,13,10\nunset key\n");
    script_output(pl, fp, name);
    pp_gp_printf(fp, "splot '../model/'.%s.'__'.%s.'__'.%s.'.dat' using 1:2:($3*%d) with pm3d\n",
                 metric, s->params[ka], s->params[kb], strncmp(metric, "soc", 3) == 0 ? 100 : 1);
    script_close(pl, fp, name);
}

static void layer2(plotter *pl, const pp_summary *s)
{
    static const char *const metrics[] = {"total_mean_w", "total_energy_j", "soc_drain"};
    size_t vary[PP_SUMMARY_MAX_PARAMS], n_vary = 0;
    int estimated = 0;

    for (size_t k = 0; k < s->n_params; k++) {
        size_t i = 1;
        while (i < s->n_rows && s->x[i * s->n_params + k] == s->x[k])
            i++;
        if (i < s->n_rows)
            vary[n_vary++] = k;
    }
    for (size_t m = 0; m < s->n_metrics; m++)
        estimated |= strstr(s->metrics[m], "_est_") != NULL;
    if (n_vary == 1)
        for (size_t m = 0; m < 2; m++)
            layer2_line(pl, s, vary[0], metrics[m], estimated);
    for (size_t a = 0; n_vary > 1 && a < n_vary; a++)
        for (size_t b = a + 1; b < n_vary; b++)
            for (size_t m = 0; m < 3; m++)
                layer2_surface(pl, s, vary[a], vary[b], metrics[m], estimated, n_vary > 2);
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
    char path[4400], quoted[9000], cd[9100];
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
    if (pp_gp_quote(quoted, sizeof quoted, pl.plots) < 0)
        return PP_EXIT_USAGE;
    pp_fmt(cd, sizeof cd, "cd %s", quoted);
    for (size_t i = 0; i < pl.n_scripts; i++) {
        char script[PP_NAME_MAX + 8];
        char *args[] = {"gnuplot", "-e", cd, script, NULL};
        pid_t pid;
        int st = 0, rc;
        if (pp_path_fmt(script, sizeof script, ".", "%s.gp", pl.scripts[i]) < 0)
            continue;
        rc = pp_proc_spawn(args, 0, &pid);
        if (rc == -ENOENT) {
            failed = -1;
            break;
        }
        if (rc < 0 || pp_proc_wait(pid, &st) < 0 || st != 0) {
            fprintf(stderr, "powprof plot: gnuplot failed on %s/%s\n", pl.plots, script + 2);
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
