/* gnuplot.c - the scripts and data files of the plots and the words and
 * ranges of their axes (gnuplot.h). Called by plot.c, plot_layer2.c and
 * plot_plan.c; calls none of them. */
#include "gnuplot.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

void pp_plot_range(double lo, double hi, double pad, double *out_lo, double *out_hi)
{
    double span;

    if (isnan(lo) || isnan(hi)) {
        lo = isnan(lo) ? hi : lo;
        hi = isnan(hi) ? lo : hi;
    }
    if (isnan(lo)) {
        *out_lo = 0;
        *out_hi = 1;
        return;
    }
    span = hi - lo;
    if (!(span > 1e-12 * fmax(fabs(lo), fabs(hi)))) {
        span = fabs(lo) > 0 ? 0.2 * fabs(lo) : 2;
        lo -= span / 2;
        hi += span / 2;
        pad = 0;
    }
    *out_lo = lo - pad * span;
    *out_hi = hi + pad * span;
}

double pp_plot_tick_step(double lo, double hi, int n)
{
    double raw = (hi - lo) / (n > 1 ? n : 1), mag;

    if (!(raw > 0) || !isfinite(raw))
        return 1;
    mag = pow(10, floor(log10(raw)));
    return raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
}

int pp_plot_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

void pp_plot_metric_words(const char *metric, char *buf, size_t cap, double *factor)
{
    size_t n = strlen(metric);

    *factor = 1;
    if (strcmp(metric, "soc_drain") == 0) {
        *factor = 100;
        pp_text(buf, cap, "%s", "battery drained by one run, computer + battery group's base load [%]");
    } else if (strcmp(metric, "soc_end") == 0) {
        *factor = 100;
        pp_text(buf, cap, "%s", "charge left after one run, computer + battery group's base load [%]");
    } else if (pp_plot_ends_with(metric, "_mean_w")) {
        pp_text(buf, cap, "%.*s mean power [W]", (int)(n - 7), metric);
    } else if (pp_plot_ends_with(metric, "_energy_j")) {
        pp_text(buf, cap, "%.*s energy [J]", (int)(n - 9), metric);
    } else if (pp_plot_ends_with(metric, "_j")) {
        pp_text(buf, cap, "%s [J]", metric);
    } else if (pp_plot_ends_with(metric, "_s")) {
        pp_text(buf, cap, "%s [s]", metric);
    } else if (pp_plot_ends_with(metric, "_w")) {
        pp_text(buf, cap, "%s [W]", metric);
    } else {
        pp_text(buf, cap, "%s", metric);
    }
}

static pp_plot_script *add_script(pp_plot_result *r, const char *name)
{
    if (r->n_scripts == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        pp_plot_script *s = realloc(r->scripts, cap * sizeof *s);
        if (!s)
            return NULL;
        r->scripts = s;
        r->cap = cap;
    }
    memset(&r->scripts[r->n_scripts], 0, sizeof r->scripts[0]);
    if (pp_strlcpy(r->scripts[r->n_scripts].name, name, PP_NAME_MAX) < 0)
        return NULL; /* never: its file was opened, so the name was checked */
    return &r->scripts[r->n_scripts++];
}

/* plots/<name>.<ext> (into path) and the temporary file it is written as
 * (into tmp), so that a file cut short by a full disk is never left
 * under its name. 0 or -errno (logged). */
static int plot_paths(const pp_plotter *pl, const char *name, const char *ext, char *path,
                      char *tmp, size_t cap)
{
    int rc;

    if ((rc = pp_path_fmt(path, cap, pl->r->plots_dir, "%s.%s", name, ext)) < 0 ||
        (rc = pp_path_fmt(tmp, cap, pl->r->plots_dir, ".%s.%s.tmp", name, ext)) < 0)
        return rc;
    return 0;
}

/* plots/<name>.<ext> for writing (as its temporary file); NULL (logged,
 * recorded) when it cannot be. */
static FILE *open_in_plots(pp_plotter *pl, const char *name, const char *ext)
{
    char path[4400], tmp[4400];
    FILE *fp = NULL;
    int rc = plot_paths(pl, name, ext, path, tmp, sizeof path);

    if (rc == 0 && !(fp = fopen(tmp, "w"))) {
        rc = -errno;
        pp_log_error("%s: cannot write: %s", path, strerror(errno));
    }
    if (rc < 0 && pl->write_error == 0)
        pl->write_error = rc;
    return fp;
}

/* Close fp, written as plots/<name>.<ext>: renamed to it when whole; on a
 * write error removed, the error logged with the file and recorded. 0 or
 * -errno. */
/* The reason a stream failed when an earlier buffered write set its error
 * flag and errno no longer says why: a full file system, else EIO. */
static int stream_errno(FILE *fp)
{
    struct statvfs st;

    if (fstatvfs(fileno(fp), &st) == 0 && st.f_bavail == 0)
        return ENOSPC;
    return EIO;
}

static int close_in_plots(pp_plotter *pl, FILE *fp, const char *name, const char *ext)
{
    char path[4400], tmp[4400];
    int rc = plot_paths(pl, name, ext, path, tmp, sizeof path);

    errno = 0;
    if (fflush(fp) != 0 || ferror(fp))
        rc = rc ? rc : -(errno ? errno : stream_errno(fp));
    if (fclose(fp) != 0 && rc == 0)
        rc = -(errno ? errno : EIO);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc < 0) {
        pp_log_error("%s: cannot write: %s", path, strerror(-rc));
        unlink(tmp);
        if (pl->write_error == 0)
            pl->write_error = rc;
    }
    return rc;
}

int pp_plotter_in_dir(const char *dir, const pp_plot_options *o, pp_plotter *pl,
                      pp_plot_result *r)
{
    int rc;

    memset(r, 0, sizeof *r);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        rc = -errno;
        pp_log_error("%s: cannot create: %s", dir, strerror(errno));
        return rc;
    }
    if (pp_strlcpy(r->plots_dir, dir, sizeof r->plots_dir) < 0) {
        pp_log_error("%.80s...: a folder name too long", dir);
        return -ENAMETOOLONG;
    }
    memset(pl, 0, sizeof *pl);
    pl->dir = dir;
    pl->o = o;
    pl->r = r;
    return 0;
}

FILE *pp_plot_script_open(pp_plotter *pl, const char *name, const char *title)
{
    FILE *fp = open_in_plots(pl, name, "gp");

    if (!fp)
        return NULL;
    if (!add_script(pl->r, name)) {
        fclose(fp);
        return NULL;
    }
    pl->r->scripts[pl->r->n_scripts - 1].has_data = strcmp(pl->data, name) == 0;
    /* Colours that stay apart for colour-blind readers (Okabe and Ito),
     * without their yellow, which vanishes on white. */
    pp_gp_printf(fp, "# powprof plot (paths relative to this folder)\n"
                     "set datafile separator whitespace\nset grid\nset key noenhanced\n"
                     "set linetype 1 lc rgb '#0072B2' lw 2\nset linetype 2 lc rgb '#D55E00' lw 2\n"
                     "set linetype 3 lc rgb '#009E73' lw 2\nset linetype 4 lc rgb '#CC79A7' lw 2\n"
                     "set linetype 5 lc rgb '#E69F00' lw 2\nset linetype 6 lc rgb '#56B4E9' lw 2\n"
                     "set linetype 7 lc rgb '#000000' lw 2\nset linetype 8 lc rgb '#999999' lw 2\n"
                     "set linetype cycle 8\n");
    if (title)
        pp_gp_printf(fp, "set title %s noenhanced\n", title);
    return fp;
}

void pp_plot_script_output(const pp_plotter *pl, FILE *fp, const char *name)
{
    if (pl->o->png)
        pp_gp_printf(fp, "set terminal pngcairo size 1000,680 font 'sans,11'\n"
                         "set output %s.'.png'\n", name);
    else
        pp_gp_printf(fp, "set terminal svg size 1000,680 font 'sans,11'\n"
                         "set output %s.'.svg'\n", name);
}

int pp_plot_script_close(pp_plotter *pl, FILE *fp, const char *name)
{
    if (pl->o->png && pl->o->svg)
        pp_gp_printf(fp, "set terminal svg size 1000,680 font 'sans,11'\n"
                         "set output %s.'.svg'\nreplot\n", name);
    pp_gp_printf(fp, "unset output\n");
    if (close_in_plots(pl, fp, name, "gp") < 0) {
        pl->r->n_scripts--;
        return -EIO;
    }
    return 0;
}

FILE *pp_plot_data_open(pp_plotter *pl, const char *name)
{
    FILE *fp = open_in_plots(pl, name, "dat");

    if (fp && pp_strlcpy(pl->data, name, sizeof pl->data) < 0) {
        fclose(fp); /* never: its file was opened, so the name was checked */
        return NULL;
    }
    return fp;
}

int pp_plot_data_close(pp_plotter *pl, FILE *fp, const char *name)
{
    return close_in_plots(pl, fp, name, "dat");
}
