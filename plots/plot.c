/* plot.c - the plots of a results folder (plot.h): layer 1 and the whole.
 * It calls plot_layer2.c (layer 2), plot_plan.c (the plan) and gnuplot.c
 * (scripts, ranges), which call nothing of it; then renders them (gnuplot,
 * never through a shell). */
#include "plot.h"
#include "gnuplot.h"
#include "plot_layer2.h"
#include "plot_plan.h"

#include "src/base/log.h"
#include "src/base/proc.h"
#include "src/plan/derived.h"
#include "src/results/summary.h"
#include "src/traces/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MAX_TRACE_PLOTS 24
#define MAX_TOTAL_LINES 8

void pp_plot_options_init(pp_plot_options *o)
{
    memset(o, 0, sizeof *o);
    o->png = 1;
    pp_battery_params_default(&o->battery);
}

/* ---- layer 1 -------------------------------------------------------------- */

/* Whether parameter k takes more than one value. */
void pp_plot_result_free(pp_plot_result *r)
{
    free(r->scripts);
    r->scripts = NULL;
    r->n_scripts = r->cap = 0;
}

static int varies(const pp_summary *s, size_t k)
{
    for (size_t i = 1; i < s->n_rows; i++)
        if (s->x[i * s->n_params + k] != s->x[k])
            return 1;
    return 0;
}

/* "id 3: a=1 b=yolov3-tiny", every parameter, or only those that vary. */
static void config_label(const pp_summary *s, size_t row, int only_varying, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "id %ld:", s->ids[row]);

    for (size_t k = 0; k < s->n_params && len < cap; k++) {
        char text[PP_SUMMARY_LABEL_MAX];
        if (only_varying && !varies(s, k))
            continue;
        pp_summary_value_text(s, k, s->x[row * s->n_params + k], text, sizeof text);
        len += (size_t)snprintf(buf + len, cap - len, " %s=%s", s->params[k], text);
    }
}

static int trace_estimated(const pp_trace *t)
{
    for (size_t r = 0; r < t->n_rails; r++)
        if (strstr(t->names[r], "_est"))
            return 1;
    return 0;
}

/* The largest power of the trace, every rail and the total. */
static double trace_max_w(const pp_trace *t, const double *total)
{
    double max = 0;

    for (size_t i = 0; i < t->n_samples; i++) {
        for (size_t r = 0; r < t->n_rails; r++)
            max = fmax(max, pp_trace_at(t, i, r));
        max = fmax(max, total[i]);
    }
    return max;
}

/* A configuration's trace. What reading it says of its gaps and cut
 * lines was said when it was measured: held back here, and why it does
 * not read into why (when not NULL). */
static int read_trace(const pp_plotter *pl, long id, pp_trace *t, char *why, size_t cap)
{
    char path[4400], said[1024] = "";
    int rc;

    if (pp_fmt(path, sizeof path, "%s/traces/%ld.csv", pl->dir, id) < 0) {
        if (why)
            pp_text(why, cap, "%.80s...: a results folder's path too long", pl->dir);
        return -ENAMETOOLONG;
    }
    pp_log_hold_begin(said, sizeof said);
    rc = pp_trace_read_csv(path, t);
    pp_log_hold_end();
    if (rc < 0 && why)
        pp_text(why, cap, "%s", said[0] ? said : path);
    return rc;
}

/* The trace's total as a gnuplot expression of its columns (after
 * "using 1:"): the rails that no other rail contains. */
static void total_expr(FILE *fp, const pp_trace *t)
{
    pp_gp_printf(fp, "(0");
    for (size_t r = 0; r < t->n_rails; r++)
        if (!pp_trace_rail_is_inside(t, r))
            pp_gp_printf(fp, "+$%zu", r + 2);
    pp_gp_printf(fp, ")");
}

static size_t top_rails(const pp_trace *t)
{
    size_t n = 0;
    for (size_t r = 0; r < t->n_rails; r++)
        n += !pp_trace_rail_is_inside(t, r);
    return n;
}

/* " with lines lt N", points too on a short trace, dashed for a rail
 * inside the total. */
static void line_style(FILE *fp, size_t n_samples, size_t lt, int dashed)
{
    if (n_samples <= 30)
        pp_gp_printf(fp, " with linespoints pt 7 ps 0.8 lt %zu", lt);
    else
        pp_gp_printf(fp, " with lines lt %zu", lt);
    if (dashed)
        pp_gp_printf(fp, " dt 2");
}

/* The x range of a trace: from 0 to its last time (never empty). */
static void trace_xrange(FILE *fp, const pp_trace *t)
{
    double end = t->n_samples ? t->t_s[t->n_samples - 1] : 1;
    pp_gp_printf(fp, "set xrange [0:%.10g]\n", end > 0 ? end : 1);
}

static void write_trace_script(pp_plotter *pl, const pp_summary *s, size_t row, const pp_trace *t)
{
    char name[64], title[1024], label[800];
    double *total = malloc((t->n_samples ? t->n_samples : 1) * sizeof *total), ymax;
    FILE *fp;

    if (!total)
        return;
    pp_trace_total_series(t, total);
    ymax = trace_max_w(t, total);
    config_label(s, row, 0, label, sizeof label);
    if (pp_fmt(name, sizeof name, "trace-%ld", s->ids[row]) < 0) {
        free(total); /* never: "trace-" and a number fit */
        return;
    }
    pp_text(title, sizeof title, "layer 1: every rail over time%s\n%s",
            trace_estimated(t) ? " (ESTIMATED from CPU utilization)" : "", label);
    if ((fp = pp_plot_script_open(pl, name, title))) {
        pp_gp_printf(fp, "set datafile separator ','\nset key below horizontal Left reverse height 1.5\n"
                         "set xlabel 'time since the start of the configuration [s]'\n"
                         "set ylabel 'power [W]'\nset yrange [0:%.10g]\n",
                     ymax > 0 ? 1.08 * ymax : 1);
        trace_xrange(fp, t);
        pp_plot_script_output(pl, fp, name);
        pp_gp_printf(fp, "plot");
        for (size_t r = 0; r < t->n_rails; r++) {
            int inside = pp_trace_rail_is_inside(t, r);
            pp_text(label, sizeof label, "%s%s", t->names[r], inside ? " (inside the total)" : "");
            pp_gp_printf(fp, "%c '../traces/%ld.csv' skip 1 using 1:%zu", r ? ',' : ' ', s->ids[row],
                         r + 2);
            line_style(fp, t->n_samples, r % 6 + 1, inside);
            pp_gp_printf(fp, " title %s", label);
        }
        if (top_rails(t) > 1) {
            pp_gp_printf(fp, ", '../traces/%ld.csv' skip 1 using 1:", s->ids[row]);
            total_expr(fp, t);
            line_style(fp, t->n_samples, 7, 0);
            pp_gp_printf(fp, " lw 2.5 title 'total'");
        }
        pp_gp_printf(fp, "\n");
        pp_plot_script_close(pl, fp, name);
    }
    free(total);
}

/* Up to 8 configurations spread over the range of mean power (rows, by
 * increasing mean power). */
static size_t pick_spread(const pp_summary *s, size_t *picks)
{
    int mw = pp_summary_metric(s, "total_mean_w");
    size_t n = s->n_rows, n_picks = 0, *order = malloc((n ? n : 1) * sizeof *order);

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
    for (size_t k = 0; k < MAX_TOTAL_LINES && k < n; k++) {
        size_t pick = n <= MAX_TOTAL_LINES ? k
                                           : (size_t)llround((double)k * (double)(n - 1) /
                                                             (MAX_TOTAL_LINES - 1.0));
        if (n_picks == 0 || picks[n_picks - 1] != order[pick])
            picks[n_picks++] = order[pick];
    }
    free(order);
    return n_picks;
}

/* The x and y ranges of the picked traces. 0, or -1 when none reads. */
static int spread_ranges(const pp_plotter *pl, const pp_summary *s, const size_t *picks,
                         size_t n, double *t_end, double *ymax, int *estimated)
{
    int any = -1;

    *t_end = 0;
    *ymax = 0;
    for (size_t k = 0; k < n; k++) {
        pp_trace t;
        double *total;
        if (read_trace(pl, s->ids[picks[k]], &t, NULL, 0) < 0)
            continue;
        if ((total = malloc((t.n_samples ? t.n_samples : 1) * sizeof *total))) {
            pp_trace_total_series(&t, total);
            for (size_t i = 0; i < t.n_samples; i++)
                *ymax = fmax(*ymax, total[i]);
            *t_end = fmax(*t_end, t.n_samples ? t.t_s[t.n_samples - 1] : 0);
            *estimated |= trace_estimated(&t);
            any = 0;
        }
        free(total);
        pp_trace_free(&t);
    }
    return any;
}

/* A configuration's key in layer1-total: its parameters that vary and
 * its mean power. Returns the length. */
static size_t spread_label(const pp_summary *s, size_t row, char *buf, size_t cap)
{
    int mw = pp_summary_metric(s, "total_mean_w");
    char label[800];

    config_label(s, row, 1, label, sizeof label);
    if (mw >= 0)
        pp_text(buf, cap, "%s (%.3g W)", label, s->y[row * s->n_metrics + (size_t)mw]);
    else
        pp_text(buf, cap, "%s", label);
    return strlen(buf);
}

static void write_total_script(pp_plotter *pl, const pp_summary *s)
{
    size_t picks[MAX_TOTAL_LINES], n_picks = pick_spread(s, picks), longest = 0;
    char title[512], text[MAX_TOTAL_LINES][900];
    double t_end, ymax;
    int estimated = 0;
    FILE *fp;

    if (!n_picks || spread_ranges(pl, s, picks, n_picks, &t_end, &ymax, &estimated) < 0)
        return;
    for (size_t k = 0; k < n_picks; k++) {
        size_t n = spread_label(s, picks[k], text[k], sizeof text[k]);
        longest = n > longest ? n : longest;
    }
    pp_text(title, sizeof title, "layer 1: total power over time%s\n%zu of %zu configurations, "
            "spread over the range of mean power", estimated ? " (ESTIMATED from CPU utilization)" : "",
            n_picks, s->n_rows);
    if (!(fp = pp_plot_script_open(pl, "layer1-total", title)))
        return;
    /* the key below in two columns where they fit the width, else one */
    pp_gp_printf(fp, "set datafile separator ','\nset key below vertical maxrows %d Left reverse height 1.5\n"
                     "set xlabel 'time since the start of the configuration [s]'\n"
                     "set ylabel 'total power [W]'\nset yrange [0:%.10g]\nset xrange [0:%.10g]\n",
                 longest <= 52 ? 4 : MAX_TOTAL_LINES, ymax > 0 ? 1.08 * ymax : 1, t_end > 0 ? t_end : 1);
    pp_plot_script_output(pl, fp, "layer1-total");
    pp_gp_printf(fp, "plot");
    for (size_t k = 0, written = 0; k < n_picks; k++) {
        pp_trace t;
        if (read_trace(pl, s->ids[picks[k]], &t, NULL, 0) < 0)
            continue; /* no trace (merge keeps rows without): the comma follows what is written */
        pp_gp_printf(fp, "%c '../traces/%ld.csv' skip 1 using 1:", written++ ? ',' : ' ',
                     s->ids[picks[k]]);
        total_expr(fp, &t);
        line_style(fp, t.n_samples, k + 1, 0);
        pp_gp_printf(fp, " title %s", text[k]);
        pp_trace_free(&t);
    }
    pp_gp_printf(fp, "\n");
    pp_plot_script_close(pl, fp, "layer1-total");
}

/* The traces that do not read are left out, said once. */
static void layer1(pp_plotter *pl, const pp_summary *s)
{
    char why[1024] = "";
    size_t missing = 0, n = s->n_rows < MAX_TRACE_PLOTS ? s->n_rows : MAX_TRACE_PLOTS;

    for (size_t i = 0; i < n; i++) {
        pp_trace t;
        if (read_trace(pl, s->ids[i], &t, missing ? NULL : why, sizeof why) < 0) {
            missing++;
            continue;
        }
        pl->estimated |= trace_estimated(&t);
        write_trace_script(pl, s, i, &t);
        pp_trace_free(&t);
    }
    if (missing)
        pp_log_warn("plot: %zu of %zu traces left out of layer 1 (%s)", missing, n, why);
    write_total_script(pl, s);
}

/* ---- the whole ------------------------------------------------------------ */

int pp_plot_write(const char *results, const pp_plot_options *o, pp_plot_result *r)
{
    pp_plotter pl = {results, o, r, 0, "", 0};
    pp_model m;
    int rc;

    memset(r, 0, sizeof *r);
    if (pp_fmt(r->plots_dir, sizeof r->plots_dir, "%s/plots", results) < 0)
        return -ENAMETOOLONG;
    memset(&m, 0, sizeof m);
    if ((rc = pp_summary_read(results, &m.sum)) < 0)
        return rc;
    if (m.sum.n_params > 0) { /* layer 2: the model, its choices read from model.json */
        pp_summary_free(&m.sum);
        if ((rc = pp_model_read(results, NULL, 1, &m)) < 0)
            return rc;
        if ((rc = pp_model_read_battery(&m, results)) < 0) { /* the metrics it derives */
            pp_model_free(&m);
            return rc;
        }
    }
    if (mkdir(r->plots_dir, 0755) != 0 && errno != EEXIST) {
        pp_log_error("%s: cannot create: %s", r->plots_dir, strerror(errno));
        rc = -errno;
    } else {
        rc = 0;
        layer1(&pl, &m.sum);
        for (size_t k = 0; k < m.sum.n_metrics; k++)
            pl.estimated |= strstr(m.sum.metrics[k], "_est_") != NULL;
        if (m.n_groups)
            rc = pp_plot_layer2(&pl, &m);
        if (rc == 0 && o->plan)
            rc = pp_plot_plan_soc(&pl, o->plan, &o->battery);
        if (rc == 0 && pl.write_error) /* said with its file */
            rc = pl.write_error;
    }
    pp_model_free(&m);
    return rc;
}

/* Rendering the plots: gnuplot on each script, never through a shell,
 * with what it says captured, so that nothing of it reaches the terminal:
 * its errors are reported, its warnings recorded. */

#define OUTPUT_MAX 16384

/* Whether gnuplot is in PATH (looked for first, so that a machine without
 * it gets a word of advice rather than an error). */
static int have_gnuplot(void)
{
    const char *path = getenv("PATH");
    char dir[PP_PATH_MAX], file[PP_PATH_MAX];

    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        if (n > 0 && n < sizeof dir) {
            memcpy(dir, p, n);
            dir[n] = '\0';
            if (pp_path_fmt(file, sizeof file, dir, "gnuplot") == 0 && access(file, X_OK) == 0)
                return 1;
        }
        p += n + (p[n] == ':');
    }
    return 0;
}

/* Lines that are not about the script: the font configuration and GLib
 * of the cairo terminals. */
static int noise(const char *line)
{
    return strncmp(line, "Fontconfig", 10) == 0 || strstr(line, "-WARNING **") ||
           strstr(line, "-CRITICAL **") || strstr(line, "-Message") || line[0] == '\0';
}

/* What gnuplot said, joined by "; " into out: its messages, which name
 * the script and line ("\"x.gp\" line 3: ..."), or, when none does, every
 * line that is not noise (the echo of the command and the caret under it
 * left out when there are messages). */
static void keep_lines(const char *said, char *out, size_t cap)
{
    size_t len = 0, size = strlen(said) + 1;
    char *text = malloc(size), *save = NULL;
    int located = strstr(said, "\" line ") != NULL;

    out[0] = '\0';
    if (!text)
        return;
    memcpy(text, said, size);
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
            line[--n] = '\0';
        if (noise(line) || len + 3 >= cap || (located && !strstr(line, "\" line ")))
            continue;
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? "; " : "", line);
        if (len >= cap)
            len = cap - 1;
    }
    free(text);
}

/* Run gnuplot on one script: its exit status, what it said in out. */
static int run_gnuplot(const char *cd, const char *name, char *out, size_t cap, int *status)
{
    char script[PP_NAME_MAX + 8];
    char *argv[] = {"gnuplot", "-e", (char *)cd, script, NULL};
    int fds[2], null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC), rc;
    size_t len = 0;
    ssize_t n;
    pid_t pid;

    if (pp_path_fmt(script, sizeof script, ".", "%s.gp", name) < 0 || null_fd < 0 ||
        pipe2(fds, O_CLOEXEC) != 0) {
        rc = -errno;
        if (null_fd >= 0)
            close(null_fd);
        return rc ? rc : -EINVAL;
    }
    rc = pp_proc_spawn_io(argv, 0, &(pp_proc_io){null_fd, fds[1], fds[1], NULL}, &pid);
    close(fds[1]);
    close(null_fd);
    while (rc == 0 && ((n = read(fds[0], out + len, cap - 1 - len)) > 0 || (n < 0 && errno == EINTR))) {
        len += n > 0 ? (size_t)n : 0;
        if (len == cap - 1) { /* keep the first part, drain the rest */
            char drain[4096];
            while ((n = read(fds[0], drain, sizeof drain)) > 0 || (n < 0 && errno == EINTR))
                ;
            break;
        }
    }
    out[len] = '\0';
    close(fds[0]);
    if (rc == 0)
        rc = pp_proc_wait(pid, status);
    return rc;
}

/* Each image of a script that rendered is there and not empty. */
static int images_there(const pp_plot_options *o, const pp_plot_result *r, const char *name,
                        char *why, size_t cap)
{
    static const char *const ext[] = {"png", "svg"};
    const int want[] = {o->png, o->svg};
    char path[4400];
    struct stat st;

    for (size_t i = 0; i < 2; i++)
        if (want[i] && (pp_path_fmt(path, sizeof path, r->plots_dir, "%s.%s", name, ext[i]) < 0 ||
                        stat(path, &st) != 0 || st.st_size == 0)) {
            struct statvfs fs; /* gnuplot writes the image: say why it could not */
            int full = statvfs(r->plots_dir, &fs) == 0 && fs.f_bavail == 0;
            pp_text(why, cap, "gnuplot succeeded but wrote no %s.%s%s", name, ext[i],
                    full ? ": No space left on device (the folder's disk is full)" : "");
            return 0;
        }
    return 1;
}

int pp_plot_render(const pp_plot_options *o, pp_plot_result *r)
{
    char quoted[9000], cd[9100], *out = malloc(OUTPUT_MAX);

    if (!out)
        return -ENOMEM;
    if (!have_gnuplot() || pp_gp_quote(quoted, sizeof quoted, r->plots_dir) < 0) {
        r->gnuplot_missing = 1;
        free(out);
        return 0;
    }
    _Static_assert(sizeof cd >= sizeof quoted + 3, "cd and the quoted folder fit");
    if (pp_fmt(cd, sizeof cd, "cd %s", quoted) < 0) {
        free(out);
        return -ENAMETOOLONG;
    }
    for (size_t i = 0; i < r->n_scripts; i++) {
        pp_plot_script *sc = &r->scripts[i];
        int status = -1, rc = run_gnuplot(cd, sc->name, out, OUTPUT_MAX, &status);
        if (rc < 0) {
            pp_text(sc->error, sizeof sc->error, "gnuplot could not be run: %s", strerror(-rc));
        } else if (status != 0) {
            keep_lines(out, sc->error, sizeof sc->error);
            if (!sc->error[0])
                pp_text(sc->error, sizeof sc->error, "gnuplot exited with status %d", status);
        } else {
            keep_lines(out, sc->warnings, sizeof sc->warnings);
            sc->rendered = images_there(o, r, sc->name, sc->error, sizeof sc->error);
        }
        if (sc->warnings[0]) {
            r->n_warned++;
            pp_log_debug("gnuplot on %s/%s.gp: %s", r->plots_dir, sc->name, sc->warnings);
        }
        r->n_rendered += sc->rendered;
        r->n_failed += !sc->rendered;
    }
    free(out);
    return 0;
}
