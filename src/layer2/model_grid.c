/* The grid files of the plotted surfaces: the .dat files under RESULTS/model/, with the
 * 90 % band beside each value. */
#include "model_internal.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { LINE = 200, SIDE = 60 };

/* dir/model/<metric>[__<a>__<b>][.g<g>].dat, the names checked by
 * pp_path_fmt (a name that cannot be part of a file name gets no grid). */
static int grid_path(char *buf, size_t cap, const char *dir, const char *metric, const char *a,
                     const char *b, size_t g)
{
    if (a && g > 0)
        return pp_path_fmt(buf, cap, dir, "model/%s__%s__%s.g%zu.dat", metric, a, b, g);
    if (a)
        return pp_path_fmt(buf, cap, dir, "model/%s__%s__%s.dat", metric, a, b);
    if (g > 0)
        return pp_path_fmt(buf, cap, dir, "model/%s.g%zu.dat", metric, g);
    return pp_path_fmt(buf, cap, dir, "model/%s.dat", metric);
}

/* Values at the grid points xs[n x d] (normalized): value, lo, hi each. The
 * weighted average's fast grid is not needed at these sizes: every
 * estimator goes through pp_est_predict, the path of every prediction. */
static void evaluate(const pp_model_fit *f, const double *xs, size_t n, size_t d, double *out)
{
    for (size_t i = 0; i < n; i++) {
        const double *xn = xs + i * d;
        out[3 * i] = pp_est_predict(&f->est, xn);
        pp_band(&f->choice, out[3 * i], xn, &out[3 * i + 1], &out[3 * i + 2]);
    }
}

/* A line over dimension a (the one that varies), or a surface over a and
 * b, the others at their middle. */
static int write_one(const pp_model *m, size_t g, size_t k, size_t a, size_t b, int line,
                     const char *dir, double *xs, double *out)
{
    const pp_model_group *gr = &m->groups[g];
    const pp_surface *s = &gr->surf;
    size_t n = line ? LINE : SIDE * SIDE, d = s->d ? s->d : 1;
    const char *pa = m->sum.params[m->num[a]], *pb = line ? NULL : m->sum.params[m->num[b]];
    char path[4400];
    pp_atomic_file af; /* whole or not at all: a full disk leaves no grid cut short */
    FILE *fp;
    int rc;

    if (grid_path(path, sizeof path, dir, m->sum.metrics[k], line ? NULL : pa, pb, g) < 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < s->d; j++)
            xs[i * d + j] = 0.5;
        xs[i * d + a] = line ? (double)i / (LINE - 1.0) : (double)(i / SIDE) / (SIDE - 1.0);
        if (!line)
            xs[i * d + b] = (double)(i % SIDE) / (SIDE - 1.0);
    }
    evaluate(&gr->fits[k], xs, n, d, out);
    if ((rc = pp_atomic_file_open(&af, path)) < 0)
        return rc; /* said with the file and the reason */
    fp = af.fp;
    fprintf(fp, "# %s%s%s %s, lo, hi: predicted (%s) with its 90 %% band%s\n", pa,
            line ? "" : " ", line ? "" : pb, m->sum.metrics[k],
            pp_method_name(gr->fits[k].choice.spec.method),
            !line && s->d > 2 ? "; other parameters at their middle" : "");
    for (size_t i = 0; i < n; i++) {
        fprintf(fp, "%.10g ", pp_surface_denormalize(s, a, xs[i * d + a]));
        if (!line)
            fprintf(fp, "%.10g ", pp_surface_denormalize(s, b, xs[i * d + b]));
        fprintf(fp, "%.10g %.10g %.10g\n", out[3 * i], out[3 * i + 1], out[3 * i + 2]);
        if (!line && i % SIDE == SIDE - 1)
            fputc('\n', fp);
    }
    return pp_atomic_file_commit(&af); /* a failed write said with the file and the reason */
}

static int write_group(const pp_model *m, size_t g, const char *dir, double *xs, double *out)
{
    const pp_surface *s = &m->groups[g].surf;
    size_t vary[PP_SURFACE_MAX_DIMS], n_vary = 0;
    int rc = 0;

    for (size_t j = 0; j < s->d; j++)
        if (s->k[j] > 1)
            vary[n_vary++] = j;
    for (size_t k = 0; k < m->sum.n_metrics && rc == 0; k++) {
        if (m->groups[g].fits[k].n_values < 2)
            continue;
        if (n_vary == 1)
            rc = write_one(m, g, k, vary[0], vary[0], 1, dir, xs, out);
        for (size_t a = 0; n_vary > 1 && a < n_vary && rc == 0; a++)
            for (size_t b = a + 1; b < n_vary && rc == 0; b++)
                rc = write_one(m, g, k, vary[a], vary[b], 0, dir, xs, out);
    }
    return rc;
}

int pp_model_write_grids(const pp_model *m, const char *dir)
{
    char path[PP_PATH_MAX];
    size_t d = m->n_num ? m->n_num : 1;
    double *xs = malloc(SIDE * SIDE * d * sizeof *xs), *out = malloc(3 * SIDE * SIDE * sizeof *out);
    int rc = -ENOMEM;

    pp_fmt(path, sizeof path, "%s/model", dir);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        rc = -errno;
        pp_log_error("%s: cannot create: %s", path, strerror(errno));
    } else if (xs && out) {
        rc = 0;
        for (size_t g = 0; g < m->n_groups && rc == 0; g++)
            rc = write_group(m, g, dir, xs, out);
    }
    free(xs);
    free(out);
    return rc;
}
