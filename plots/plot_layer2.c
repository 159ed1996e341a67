/* Layer-2 plots (plot.h): lines over one varying numeric parameter,
 * surfaces over each pair of them, for the total and for every rail, with
 * the 90 % band and the measured configurations. Called by plot.c; calls
 * gnuplot.c (scripts, ranges), nothing of plot.c. */
#include "plot_layer2.h"

#include "src/base/log.h"
#include "src/plan/derived.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LINE_POINTS 200
#define SIDE 41
#define MAX_CURVES 24
#define MAX_TICKS 12
#define ESTIMATED_NOTE "power ESTIMATED from CPU utilization, not measured"

/* Where a plot is taken: its axes, its group (labels) and the values of
 * every other parameter. */
typedef struct slice {
    size_t g;
    size_t a, b;              /* the axes' parameters (b == a for a line) */
    int line;
    pp_model_point base;      /* every parameter: labels, and the others' values */
    double lo[2], hi[2];      /* the axes' measured ranges in the group */
    int others;               /* another numeric parameter varies: fixed here */
} slice;

static double cell(const pp_summary *s, size_t row, size_t k) { return s->x[row * s->n_params + k]; }
static double value(const pp_summary *s, size_t row, size_t m) { return s->y[row * s->n_metrics + m]; }

/* The numeric parameters whose values differ between rows. */
static size_t varying_numeric(const pp_summary *s, size_t *out)
{
    size_t n = 0;

    for (size_t k = 0; k < s->n_params; k++) {
        size_t i = 1;
        if (s->param[k].kind == PP_PARAM_CATEGORICAL)
            continue;
        while (i < s->n_rows && cell(s, i, k) == cell(s, 0, k))
            i++;
        if (i < s->n_rows)
            out[n++] = k;
    }
    return n;
}

/* Parameter k's measured range in group g. */
static void group_range(const pp_model *m, size_t g, size_t k, double *lo, double *hi)
{
    const pp_model_group *gr = &m->groups[g];

    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < gr->n_rows; i++) {
        *lo = fmin(*lo, cell(&m->sum, gr->rows[i], k));
        *hi = fmax(*hi, cell(&m->sum, gr->rows[i], k));
    }
}

/* The measured value of k in group g nearest the middle of its range (on
 * its scale): where the other parameters are held. */
static double middle_value(const pp_model *m, size_t g, size_t k)
{
    const pp_model_group *gr = &m->groups[g];
    double lo, hi, mid, best = NAN;

    group_range(m, g, k, &lo, &hi);
    mid = m->sum.log_scale[k] && lo > 0 ? sqrt(lo * hi) : 0.5 * (lo + hi);
    for (size_t i = 0; i < gr->n_rows; i++) {
        double v = cell(&m->sum, gr->rows[i], k);
        if (isnan(best) || fabs(v - mid) < fabs(best - mid) ||
            (fabs(v - mid) == fabs(best - mid) && v > best))
            best = v;
    }
    return best;
}

static void slice_init(const pp_model *m, size_t g, size_t a, size_t b, slice *sl)
{
    const pp_summary *s = &m->sum;
    size_t vary[PP_SUMMARY_MAX_PARAMS], n_vary = varying_numeric(s, vary);

    memset(sl, 0, sizeof *sl);
    sl->g = g;
    sl->a = a;
    sl->b = b;
    sl->line = a == b;
    for (size_t k = 0; k < s->n_params; k++)
        sl->base.raw[k] = s->param[k].kind == PP_PARAM_CATEGORICAL ? m->groups[g].label[k]
                                                                    : middle_value(m, g, k);
    sl->others = n_vary > (sl->line ? 1u : 2u);
    group_range(m, g, a, &sl->lo[0], &sl->hi[0]);
    group_range(m, g, b, &sl->lo[1], &sl->hi[1]);
}

/* Row i lies on the slice: every parameter but the axes' as held. */
static int on_slice(const pp_model *m, const slice *sl, size_t row)
{
    for (size_t k = 0; k < m->sum.n_params; k++)
        if (k != sl->a && k != sl->b && cell(&m->sum, row, k) != sl->base.raw[k])
            return 0;
    return 1;
}

/* Where the slice is held, in words: "darknet.fps=1 matrix.size=512". */
static void slice_words(const pp_model *m, const slice *sl, int labels_only, char *buf, size_t cap)
{
    const pp_summary *s = &m->sum;
    size_t vary[PP_SUMMARY_MAX_PARAMS], n_vary = varying_numeric(s, vary), len = 0;

    buf[0] = '\0';
    for (size_t k = 0; k < s->n_params && len < cap; k++) {
        char text[PP_SUMMARY_LABEL_MAX];
        int held = 0;
        for (size_t v = 0; v < n_vary; v++)
            held |= vary[v] == k && k != sl->a && k != sl->b;
        if (s->param[k].kind == PP_PARAM_CATEGORICAL ? m->n_groups < 2 : labels_only || !held)
            continue;
        pp_summary_value_text(s, k, sl->base.raw[k], text, sizeof text);
        len += (size_t)snprintf(buf + len, cap - len, "%s%s=%s", len ? " " : "", s->params[k], text);
    }
}

/* Axis t (0: x, 1: y) of the slice at fraction f of its range, on its scale. */
static double axis_at(const pp_model *m, const slice *sl, int t, double f)
{
    size_t k = t ? sl->b : sl->a;
    double lo = sl->lo[t], hi = sl->hi[t];

    if (m->sum.log_scale[k] && lo > 0)
        return lo * pow(hi / lo, f);
    return lo + (hi - lo) * f;
}

/* The prediction of metric at pt, times factor: value, lo, hi (the band's
 * ends the value itself where there is no band). 0, or -1 without one. */
static int predict(const pp_model *m, size_t metric, const pp_model_point *pt, double factor,
                   double out[3])
{
    pp_prediction p;

    if (pp_model_predict_derived(m, metric, pt, &p) < 0 || !isfinite(p.value))
        return -1;
    out[0] = factor * p.value;
    out[1] = factor * (isnan(p.lo) ? p.value : p.lo);
    out[2] = factor * (isnan(p.hi) ? p.value : p.hi);
    return 0;
}

/* A log scale for a parameter swept by a factor; ticks at the measured
 * values where they are few (at most MAX_TICKS on a log scale, 6 on a
 * linear one), else gnuplot's own. */
static void axis_ticks(FILE *fp, const pp_model *m, const slice *sl, int t)
{
    const pp_summary *s = &m->sum;
    size_t k = t ? sl->b : sl->a, n = 0, most = s->log_scale[k] ? MAX_TICKS : 6;
    double seen[MAX_TICKS];

    if (s->log_scale[k])
        pp_gp_printf(fp, "set logscale %c\n", t ? 'y' : 'x');
    for (size_t i = 0; i < s->n_rows; i++) {
        size_t j = 0;
        while (j < n && seen[j] != cell(s, i, k))
            j++;
        if (j == n && n == most)
            return;
        if (j == n)
            seen[n++] = cell(s, i, k);
    }
    pp_gp_printf(fp, "set %ctics (", t ? 'y' : 'x');
    for (size_t j = 0; j < n; j++)
        pp_gp_printf(fp, j ? ", %.10g" : "%.10g", seen[j]);
    pp_gp_printf(fp, ")\n");
}

/* The x range of a line: the measured range and a little more, so that
 * the points at its ends show whole. */
static void x_range(FILE *fp, const pp_model *m, const slice *sl)
{
    double lo = sl->lo[0], hi = sl->hi[0];

    if (m->sum.log_scale[sl->a] && lo > 0) {
        double f = pow(hi / lo, 0.02);
        lo /= f;
        hi *= f;
    } else {
        pp_plot_range(lo, hi, 0.02, &lo, &hi);
    }
    pp_gp_printf(fp, "set xrange [%.10g:%.10g]\n", lo, hi);
}

/* ---- lines over one parameter ----------------------------------------------- */

typedef struct curve_set {
    size_t n;
    size_t metric[MAX_CURVES], group[MAX_CURVES];
    size_t n_measured[MAX_CURVES];
    double ylo, yhi;
} curve_set;

/* One curve's grid block and its measured block into fp; its values
 * widen the y range. -1, nothing written, when it has no prediction. */
static int write_curve(FILE *fp, const pp_model *m, size_t k, size_t metric, size_t g,
                       double factor, curve_set *cs)
{
    double x[LINE_POINTS], v[LINE_POINTS][3];
    size_t n = 0;
    slice sl;

    slice_init(m, g, k, k, &sl);
    for (size_t i = 0; i < LINE_POINTS; i++) {
        pp_model_point pt = sl.base;
        pt.raw[k] = x[i] = axis_at(m, &sl, 0, (double)i / (LINE_POINTS - 1.0));
        if (predict(m, metric, &pt, factor, v[i]) < 0)
            return -1;
    }
    for (size_t i = 0; i < LINE_POINTS; i++) {
        fprintf(fp, "%.10g %.10g %.10g %.10g\n", x[i], v[i][0], v[i][1], v[i][2]);
        cs->ylo = fmin(cs->ylo, v[i][1]);
        cs->yhi = fmax(cs->yhi, v[i][2]);
    }
    fprintf(fp, "\n\n");
    for (size_t i = 0; i < m->groups[g].n_rows; i++) {
        size_t row = m->groups[g].rows[i];
        double y = factor * value(&m->sum, row, metric);
        if (isnan(y))
            continue;
        fprintf(fp, "%.10g %.10g\n", cell(&m->sum, row, k), y);
        cs->ylo = fmin(cs->ylo, y);
        cs->yhi = fmax(cs->yhi, y);
        n++;
    }
    fprintf(fp, n ? "\n\n" : "NaN NaN\n\n\n"); /* a block either way: the indices stay */
    cs->n_measured[cs->n] = n;
    return 0;
}

/* The predicted state of charge after one run, the last block. */
static void write_soc(FILE *fp, const pp_model *m, size_t k, int soc, double *lo, double *hi)
{
    slice sl;
    double v[3];

    slice_init(m, 0, k, k, &sl);
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < LINE_POINTS; i++) {
        pp_model_point pt = sl.base;
        pt.raw[k] = axis_at(m, &sl, 0, (double)i / (LINE_POINTS - 1.0));
        if (predict(m, (size_t)soc, &pt, 100, v) == 0) {
            fprintf(fp, "%.10g %.10g\n", pt.raw[k], v[0]);
            *lo = fmin(*lo, v[0]);
            *hi = fmax(*hi, v[0]);
        }
    }
}

/* "VDD_SYS_GPU" of VDD_SYS_GPU_mean_w, "total" of total_energy_j. */
static void rail_of(const char *metric, char *buf, size_t cap)
{
    size_t n = strlen(metric);
    size_t cut = pp_plot_ends_with(metric, "_mean_w")     ? 7
                 : pp_plot_ends_with(metric, "_energy_j") ? 9
                                                          : 0;
    pp_text(buf, cap, "%.*s", (int)(n - cut), metric);
}

/* A curve's key: its rail (when there are several), its labels (when
 * there are several groups), else the estimator. */
static void curve_title(const pp_model *m, const curve_set *cs, int by_rail, size_t c,
                        char *buf, size_t cap)
{
    char labels[512], rail[PP_NAME_MAX];
    slice sl;

    slice_init(m, cs->group[c], 0, 0, &sl);
    slice_words(m, &sl, 1, labels, sizeof labels);
    rail_of(m->sum.metrics[cs->metric[c]], rail, sizeof rail);
    if (by_rail)
        pp_text(buf, cap, "%s%s%s", rail, labels[0] ? " " : "", labels);
    else if (labels[0])
        pp_text(buf, cap, "%s", labels);
    else
        pp_text(buf, cap, "predicted (%s)",
                pp_method_name(pp_model_fit_of(m, cs->group[c], cs->metric[c])->choice.spec.method));
}

typedef struct line_spec {
    const char *name;   /* the script's */
    const char *words;  /* the y axis: "total mean power [W]" */
    double factor;      /* metric units to shown ones */
    int by_rail;        /* a curve per rail */
    int soc;            /* soc_end's metric on the second axis, or -1 */
    double soc_lo, soc_hi;
} line_spec;

/* The line type of curve c: the total of every rail in black (7), the
 * others in gnuplot's first six colours. */
static int curve_lt(const pp_model *m, const curve_set *cs, const line_spec *ls, size_t c)
{
    return ls->by_rail && m->n_groups == 1 &&
                   strncmp(m->sum.metrics[cs->metric[c]], "total_", 6) == 0
               ? 7
               : (int)(c % 6) + 1;
}

static void line_script(pp_plotter *pl, const pp_model *m, size_t k, const line_spec *ls,
                        const curve_set *cs)
{
    char title[1024], text[512];
    double lo, hi;
    FILE *fp;
    slice sl;

    pp_text(title, sizeof title, "layer 2: %s%s against %s%s%s", ls->words,
            ls->by_rail ? " of every rail" : "", m->sum.params[k], pl->estimated ? "\n" : "",
            pl->estimated ? ESTIMATED_NOTE : "");
    if (!(fp = pp_plot_script_open(pl, ls->name, title)))
        return;
    slice_init(m, 0, k, k, &sl);
    pp_plot_range(cs->ylo, cs->yhi, 0.06, &lo, &hi);
    if (cs->ylo >= 0 && lo < 0)
        lo = 0;
    pp_gp_printf(fp, "set key below horizontal Left reverse width 1 height 1.5\n"
                     "set xlabel %s noenhanced\nset ylabel %s noenhanced\nset yrange [%.10g:%.10g]\n",
                 m->sum.params[k], ls->words, lo, hi);
    x_range(fp, m, &sl);
    axis_ticks(fp, m, &sl, 0);
    if (ls->soc >= 0) {
        pp_plot_range(ls->soc_lo, ls->soc_hi, 0.06, &lo, &hi);
        if (hi - lo < 1e-6 * fmax(1, fabs(hi))) { /* one value at 10 digits: gnuplot's empty range */
            lo -= 5e-7 * fmax(1, fabs(hi));
            hi = lo + 1e-6 * fmax(1, fabs(hi));
        }
        pp_gp_printf(fp, "set y2label 'charge left after one run, computer + battery group''s "
                         "base load [%%]'\nset y2tics\n"
                         "set ytics nomirror\nset y2range [%.10g:%.10g]\n", lo, hi);
    }
    pp_plot_script_output(pl, fp, ls->name);
    pp_gp_printf(fp, "plot");
    for (size_t c = 0; c < cs->n; c++) {
        int lt = curve_lt(m, cs, ls, c);
        curve_title(m, cs, ls->by_rail, c, text, sizeof text);
        pp_gp_printf(fp, "%c %s.'.dat' index %zu using 1:3:4 with filledcurves fs transparent solid "
                         "0.18 noborder lt %d notitle, '' index %zu using 1:2 with lines lt %d title %s",
                     c ? ',' : ' ', ls->name, 2 * c, lt, 2 * c, lt, text);
        if (cs->n_measured[c])
            pp_gp_printf(fp, ", '' index %zu using 1:2 with points pt 7 ps 1.3 lt %d notitle", 2 * c + 1, lt);
    }
    /* the key's swatches in the first curve's colour (the band is drawn in
     * each curve's: a grey swatch beside a blue band read as another thing) */
    pp_gp_printf(fp, ", keyentry with points pt 7 ps 1.3 lt %d title %s"
                     ", keyentry with filledcurves fs transparent solid 0.18 noborder lt %d "
                     "title %s", curve_lt(m, cs, ls, 0),
                 cs->n > 1 ? "measured (each curve's colour)" : "measured",
                 curve_lt(m, cs, ls, 0),
                 cs->n > 1 ? "90 % band (each curve's colour)" : "90 % band");
    if (ls->soc >= 0)
        pp_gp_printf(fp, ", '' index %zu using 1:2 axes x1y2 with lines dt 2 lw 2 lc rgb '#666666' "
                         "title 'state of charge after one run (predicted, right axis)'", 2 * cs->n);
    pp_gp_printf(fp, "\n");
    pp_plot_script_close(pl, fp, ls->name);
}

/* The curves of metrics (one per group) over parameter k into ls->name's
 * data and script. */
static int line_plot(pp_plotter *pl, const pp_model *m, size_t k, line_spec *ls,
                     const size_t *metrics, size_t n_metrics)
{
    curve_set cs = {.ylo = INFINITY, .yhi = -INFINITY};
    FILE *fp;

    if (!(fp = pp_plot_data_open(pl, ls->name)))
        return 0;
    fprintf(fp, "# %s: per curve a block of x, predicted, band lo, hi, then one of x, measured%s\n",
            m->sum.params[k], ls->soc >= 0 ? "; last, x and the state of charge after one run [%]" : "");
    for (size_t j = 0; j < n_metrics; j++)
        for (size_t g = 0; g < m->n_groups && cs.n < MAX_CURVES; g++) {
            cs.metric[cs.n] = metrics[j];
            cs.group[cs.n] = g;
            if (write_curve(fp, m, k, metrics[j], g, ls->factor, &cs) == 0)
                cs.n++;
        }
    if (ls->soc >= 0)
        write_soc(fp, m, k, ls->soc, &ls->soc_lo, &ls->soc_hi);
    if (pp_plot_data_close(pl, fp, ls->name) < 0)
        return -EIO;
    if (ls->soc >= 0 && !(ls->soc_lo <= ls->soc_hi))
        ls->soc = -1;
    if (cs.n)
        line_script(pl, m, k, ls, &cs);
    return 0;
}

/* ---- surfaces over two parameters --------------------------------------------- */

typedef struct surface_data {
    double zlo, zhi;
    size_t n_measured;
} surface_data;

static int write_surface(FILE *fp, const pp_model *m, const slice *sl, size_t metric,
                         double factor, surface_data *sd)
{
    double v[3];

    sd->zlo = INFINITY;
    sd->zhi = -INFINITY;
    fprintf(fp, "# %s %s %s: predicted, band lo, hi; then the measured configurations of this "
                "slice: x y measured predicted lo hi\n", m->sum.params[sl->a], m->sum.params[sl->b],
            m->sum.metrics[metric]);
    for (size_t i = 0; i < SIDE; i++) {
        for (size_t j = 0; j < SIDE; j++) {
            pp_model_point pt = sl->base;
            pt.raw[sl->a] = axis_at(m, sl, 0, (double)i / (SIDE - 1.0));
            pt.raw[sl->b] = axis_at(m, sl, 1, (double)j / (SIDE - 1.0));
            if (predict(m, metric, &pt, factor, v) < 0)
                return -1;
            fprintf(fp, "%.10g %.10g %.10g %.10g %.10g\n", pt.raw[sl->a], pt.raw[sl->b], v[0], v[1], v[2]);
            sd->zlo = fmin(sd->zlo, v[0]);
            sd->zhi = fmax(sd->zhi, v[0]);
        }
        fprintf(fp, "\n");
    }
    fprintf(fp, "\n");
    sd->n_measured = 0;
    for (size_t i = 0; i < m->groups[sl->g].n_rows; i++) {
        size_t row = m->groups[sl->g].rows[i];
        pp_model_point pt = sl->base;
        double y = factor * value(&m->sum, row, metric);
        pt.raw[sl->a] = cell(&m->sum, row, sl->a);
        pt.raw[sl->b] = cell(&m->sum, row, sl->b);
        if (!on_slice(m, sl, row) || isnan(y) || predict(m, metric, &pt, factor, v) < 0)
            continue;
        fprintf(fp, "%.10g %.10g %.10g %.10g %.10g %.10g\n", pt.raw[sl->a], pt.raw[sl->b], y, v[0],
                v[1], v[2]);
        sd->zlo = fmin(sd->zlo, fmin(y, v[1]));
        sd->zhi = fmax(sd->zhi, fmax(y, v[2]));
        sd->n_measured++;
    }
    return 0;
}

static void surface_script(pp_plotter *pl, const pp_model *m, const slice *sl, size_t metric,
                           const char *name, const surface_data *sd)
{
    char title[1024], words[512], held[512];
    double factor, lo, hi, step;
    FILE *fp;

    pp_plot_metric_words(m->sum.metrics[metric], words, sizeof words, &factor);
    slice_words(m, sl, 0, held, sizeof held);
    pp_text(title, sizeof title, "layer 2: %s against %s and %s%s%s%s%s%s", words,
            m->sum.params[sl->a], m->sum.params[sl->b], held[0] ? "\nat " : "", held,
            sl->others ? " (held at the measured value nearest the middle of its range)" : "",
            pl->estimated ? "\n" : "", pl->estimated ? ESTIMATED_NOTE : "");
    if (!(fp = pp_plot_script_open(pl, name, NULL)))
        return;
    /* the title as a label at the top: a 3-D plot's own title moves with
     * the plot, over the back of the box */
    pp_gp_printf(fp, "set label 100 %s at screen 0.5,0.965 center front noenhanced\n", title);
    pp_plot_range(sd->zlo, sd->zhi, 0.04, &lo, &hi);
    if (sd->zlo >= 0 && lo < 0) /* powers, energies, charge: never below 0 */
        lo = 0;
    step = pp_plot_tick_step(lo, hi, 5);
    /* The labels and ticks moved apart where the axes meet, the key in the
     * empty corner above the surface. */
    pp_gp_printf(fp, "set xlabel %s noenhanced offset -1,-1.5\nset ylabel %s noenhanced offset 3,-1\n"
                     "set zlabel %s noenhanced rotate parallel offset -1.5,0\n"
                     "set xtics offset -0.5,-0.6\nset ytics offset 1.2,-0.2\nset lmargin 6\n"
                     "set xrange [%.10g:%.10g]\nset yrange [%.10g:%.10g]\n"
                     "set zrange [%.10g:%.10g]\nset cbrange [%.10g:%.10g]\n"
                     "set ztics %.10g\nset cbtics %.10g\nset format z '%%g'\nset format cb '%%g'\n",
                 m->sum.params[sl->a], m->sum.params[sl->b], words, sl->lo[0], sl->hi[0], sl->lo[1],
                 sl->hi[1], lo, hi, lo, hi, step, step);
    axis_ticks(fp, m, sl, 0);
    axis_ticks(fp, m, sl, 1);
    pp_gp_printf(fp, "set pm3d\nset view 56,36,0.92,1.05\nset border 4095\nset xyplane relative 0\n"
                     "set palette rgbformulae 33,13,10\nset key at screen 0.98,0.86 right top Right\n"
                     "set colorbox user origin 0.92,0.3 size 0.025,0.45\n");
    pp_plot_script_output(pl, fp, name);
    pp_gp_printf(fp, "splot %s.'.dat' index 0 using 1:2:3 with pm3d notitle", name);
    if (sd->n_measured)
        pp_gp_printf(fp, ", '' index 1 using 1:2:5:(0):(0):($6-$5) with vectors nohead lc rgb '#222222' lw 2 "
                         "title '90 %% band of the prediction', '' index 1 using 1:2:3 with "
                         "points pt 7 ps 1.4 lc rgb '#D55E00' title 'measured'");
    pp_gp_printf(fp, "\n");
    pp_plot_script_close(pl, fp, name);
}

/* The same surface seen from above: a heat map with contour lines, the
 * measured configurations as points (values are read off a map more
 * easily than off a 3-D view). Its data is the surface's (name.dat). */
static void heatmap_script(pp_plotter *pl, const pp_model *m, const slice *sl, const char *name,
                           const char *words, const surface_data *sd)
{
    char map[PP_NAME_MAX + 8], title[1024], held[512];
    double lo, hi;
    FILE *fp;

    if (pp_fmt(map, sizeof map, "%s-map", name) < 0)
        return;
    pp_plot_range(sd->zlo, sd->zhi, 0.04, &lo, &hi); /* as the surface's: never empty */
    slice_words(m, sl, 0, held, sizeof held); /* the parameters held, as the 3-D plot says */
    pp_text(title, sizeof title, "layer 2: %s (colour and contours) against %s and %s\n"
            "%s%s%sdots: the measured configurations%s%s", words, m->sum.params[sl->a],
            m->sum.params[sl->b], held[0] ? "at " : "", held,
            held[0] ? (sl->others ? " (held near the middle of its range); " : "; ") : "",
            pl->estimated ? "\n" : "", pl->estimated ? ESTIMATED_NOTE : "");
    if (!(fp = pp_plot_script_open(pl, map, NULL)))
        return;
    /* the title as a label at the top, the frame below its lines (a map's
     * own title sits on the frame) */
    pp_gp_printf(fp, "set label 100 %s at screen 0.5,0.955 center front noenhanced\n"
                     "set tmargin at screen %g\n", title, pl->estimated ? 0.88 : 0.91);
    pp_gp_printf(fp, "set view map\nset pm3d map\nset contour base\nset cntrparam levels auto 8\n"
                     "set cntrlabel onecolor format '%%g' font ',9' start 2 interval 40\n"
                     "set palette rgbformulae 33,13,10\nunset key\n"
                     "set xlabel %s noenhanced\nset ylabel %s noenhanced\n"
                     "set cblabel %s noenhanced\nset xrange [%.10g:%.10g]\n"
                     "set yrange [%.10g:%.10g]\nset cbrange [%.10g:%.10g]\nset format cb '%%g'\n",
                 m->sum.params[sl->a], m->sum.params[sl->b], words, sl->lo[0], sl->hi[0],
                 sl->lo[1], sl->hi[1], lo, hi);
    axis_ticks(fp, m, sl, 0);
    axis_ticks(fp, m, sl, 1);
    pp_plot_script_output(pl, fp, map);
    pp_gp_printf(fp, "splot %s.'.dat' index 0 using 1:2:3 with pm3d notitle, '' index 0 using "
                     "1:2:3 with lines nosurface lc rgb '#202020' lw 1 title 'contours', '' "
                     "index 0 using 1:2:3 with labels nosurface notitle", name);
    if (sd->n_measured)
        pp_gp_printf(fp, ", '' index 1 using 1:2:3 with points nocontour pt 7 ps 1.2 "
                         "lc rgb '#000000' title 'measured'");
    pp_gp_printf(fp, "\n");
    pp_plot_script_close(pl, fp, map);
}

static int surface_plot(pp_plotter *pl, const pp_model *m, size_t g, size_t a, size_t b,
                        size_t metric)
{
    char name[PP_NAME_MAX];
    double factor;
    char words[512];
    surface_data sd;
    slice sl;
    FILE *fp;
    int rc;

    slice_init(m, g, a, b, &sl);
    if ((m->n_groups > 1 ? pp_fmt(name, sizeof name, "layer2-%s-%s-%s-g%zu", m->sum.metrics[metric],
                                  m->sum.params[a], m->sum.params[b], g)
                         : pp_fmt(name, sizeof name, "layer2-%s-%s-%s", m->sum.metrics[metric],
                                  m->sum.params[a], m->sum.params[b])) < 0) {
        pp_log_error("plot: %s over %s and %s: the name is too long for a file", m->sum.metrics[metric],
                     m->sum.params[a], m->sum.params[b]);
        return 0;
    }
    pp_plot_metric_words(m->sum.metrics[metric], words, sizeof words, &factor);
    if (!(fp = pp_plot_data_open(pl, name)))
        return 0;
    rc = write_surface(fp, m, &sl, metric, factor, &sd);
    if (pp_plot_data_close(pl, fp, name) < 0)
        return -EIO;
    if (rc == 0) {
        surface_script(pl, m, &sl, metric, name, &sd);
        heatmap_script(pl, m, &sl, name, words, &sd);
    }
    return 0;
}

/* ---- what is plotted ------------------------------------------------------------ */

/* Metric k repeats metric j in every row. */
static int repeats(const pp_summary *s, size_t k, size_t j)
{
    for (size_t i = 0; i < s->n_rows; i++) {
        double a = value(s, i, k), b = value(s, i, j);
        if (!(a == b || (isnan(a) && isnan(b))))
            return 0;
    }
    return 1;
}

/* The total (total<suffix>) then every rail's <rail><suffix> that does not
 * repeat it. */
static size_t rails(const pp_summary *s, const char *suffix, size_t *out, size_t cap)
{
    char total[64];
    int t;
    size_t n = 0;

    if (pp_fmt(total, sizeof total, "total%s", suffix) < 0 || /* never: the suffixes are short */
        (t = pp_summary_metric(s, total)) < 0)
        return 0;
    out[n++] = (size_t)t;
    for (size_t k = 0; k < s->n_metrics && n < cap; k++)
        if ((int)k != t && pp_plot_ends_with(s->metrics[k], suffix) && !repeats(s, k, (size_t)t))
            out[n++] = k;
    return n;
}

/* name = "layer2-" metric: 0, or -1 and said (the plot left out) when
 * that is longer than a plot's name. */
static int plot_name(char *name, size_t cap, const char *metric)
{
    if (pp_fmt(name, cap, "layer2-%s", metric) == 0)
        return 0;
    pp_log_warn("layer2-%.40s...: a plot's name longer than %zu characters: not drawn", metric,
                cap - 1);
    return -1;
}

static int lines(pp_plotter *pl, const pp_model *m, size_t k)
{
    static const char *const suffixes[] = {"_mean_w", "_energy_j"};
    static const char *const names[] = {"layer2-rails_mean_w", "layer2-rails_energy_j"};
    static const char *const words[] = {"mean power [W]", "energy [J]"};
    size_t metrics[MAX_CURVES], n;
    char name[PP_NAME_MAX], total_words[512];
    int rc = 0;

    for (size_t i = 0; i < 2 && rc == 0; i++) {
        line_spec total = {name, total_words, 1, 0, -1, NAN, NAN}, each;
        if (!(n = rails(&m->sum, suffixes[i], metrics, MAX_CURVES)) ||
            plot_name(name, sizeof name, m->sum.metrics[metrics[0]]) < 0)
            continue;
        pp_plot_metric_words(m->sum.metrics[metrics[0]], total_words, sizeof total_words,
                             &total.factor);
        total.soc = m->n_groups == 1 ? pp_summary_metric(&m->sum, "soc_end") : -1;
        rc = line_plot(pl, m, k, &total, metrics, 1);
        each = (line_spec){names[i], words[i], 1, 1, -1, NAN, NAN};
        if (rc == 0 && n > 1)
            rc = line_plot(pl, m, k, &each, metrics, n);
    }
    return rc;
}

/* --metric: that metric alone against parameter k. */
static int line_one(pp_plotter *pl, const pp_model *m, size_t k, size_t metric)
{
    char name[PP_NAME_MAX], words[512];
    line_spec ls = {name, words, 1, 0, -1, NAN, NAN};

    if (plot_name(name, sizeof name, m->sum.metrics[metric]) < 0)
        return 0;
    pp_plot_metric_words(m->sum.metrics[metric], words, sizeof words, &ls.factor);
    return line_plot(pl, m, k, &ls, &metric, 1);
}

static int surfaces(pp_plotter *pl, const pp_model *m, const size_t *vary, size_t n_vary,
                    int only)
{
    size_t metrics[MAX_CURVES + 3], n = 0;
    int rc = 0, k;

    if (only >= 0)
        metrics[n++] = (size_t)only;
    else if ((k = pp_summary_metric(&m->sum, "total_mean_w")) >= 0)
        metrics[n++] = (size_t)k;
    if (only < 0 && (k = pp_summary_metric(&m->sum, "total_energy_j")) >= 0)
        metrics[n++] = (size_t)k;
    if (only < 0 && (k = pp_summary_metric(&m->sum, "soc_drain")) >= 0)
        metrics[n++] = (size_t)k;
    if (only < 0) {
        size_t r[MAX_CURVES], n_r = rails(&m->sum, "_mean_w", r, MAX_CURVES);
        for (size_t i = 1; i < n_r; i++)
            metrics[n++] = r[i];
    }
    for (size_t g = 0; g < m->n_groups; g++)
        for (size_t a = 0; a < n_vary; a++)
            for (size_t b = a + 1; b < n_vary; b++)
                for (size_t i = 0; i < n && rc == 0; i++)
                    rc = surface_plot(pl, m, g, vary[a], vary[b], metrics[i]);
    return rc;
}

int pp_plot_layer2(pp_plotter *pl, const pp_model *m)
{
    size_t vary[PP_SUMMARY_MAX_PARAMS], n_vary = varying_numeric(&m->sum, vary);
    int only = -1;

    if (pl->o->metric && (only = pp_summary_metric(&m->sum, pl->o->metric)) < 0) {
        pp_log_error("plot: --metric %s: the results have no such metric (powprof model "
                     "lists them)", pl->o->metric);
        return -EINVAL;
    }
    if (n_vary == 1)
        return only >= 0 ? line_one(pl, m, vary[0], (size_t)only) : lines(pl, m, vary[0]);
    if (n_vary >= 2)
        return surfaces(pl, m, vary, n_vary, only);
    return 0;
}
