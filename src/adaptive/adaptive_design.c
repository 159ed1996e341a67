/* adaptive_design.c - the candidates of an adaptive run (normalized over
 * the grid, grouped by labels) and the space-filling design of its first
 * round (adaptive.h). */
#include "adaptive_design.h"

#include "src/base/log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int pp_adaptive_space_init(pp_adaptive_space *s, size_t n_params, size_t n)
{
    memset(s, 0, sizeof *s);
    if (n_params > PP_ADAPTIVE_MAX_PARAMS || n == 0) {
        pp_log_error("adaptive: %zu parameters, %zu configurations: out of range", n_params, n);
        return -EINVAL;
    }
    s->n_params = n_params;
    s->n = n;
    s->raw = calloc(n * n_params + 1, sizeof *s->raw);
    s->xn = calloc(n * n_params + 1, sizeof *s->xn);
    s->ids = calloc(n, sizeof *s->ids);
    s->prior_s = calloc(n, sizeof *s->prior_s);
    s->group = calloc(n, sizeof *s->group);
    if (!s->raw || !s->xn || !s->ids || !s->prior_s || !s->group) {
        pp_adaptive_space_free(s);
        return -ENOMEM;
    }
    return 0;
}

int pp_adaptive_space_set_labels(pp_adaptive_space *s, size_t k, size_t n_labels,
                                 const char *const *labels)
{
    if (k >= s->n_params || n_labels == 0)
        return -EINVAL;
    free(s->labels[k]);
    s->labels[k] = calloc(n_labels, sizeof *s->labels[k]);
    if (!s->labels[k])
        return -ENOMEM;
    for (size_t i = 0; i < n_labels; i++)
        if (pp_strlcpy(s->labels[k][i], labels[i], sizeof s->labels[k][i]) < 0)
            return -ENAMETOOLONG; /* never: a profile's labels are PP_LABEL_MAX */
    s->n_labels[k] = n_labels;
    s->categorical[k] = 1;
    return 0;
}

void pp_adaptive_space_free(pp_adaptive_space *s)
{
    free(s->raw);
    free(s->xn);
    free(s->ids);
    free(s->prior_s);
    free(s->group);
    for (size_t k = 0; k < PP_ADAPTIVE_MAX_PARAMS; k++)
        free(s->labels[k]);
    memset(s, 0, sizeof *s);
}

long pp_adaptive_space_find(const pp_adaptive_space *s, uint64_t id)
{
    for (size_t c = 0; c < s->n; c++)
        if (s->ids[c] == id)
            return (long)c;
    return -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Parameter k's column normalized into s->xn; its levels. */
static int normalize_param(pp_adaptive_space *s, size_t k, double *tmp)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t lv = 0;

    for (size_t c = 0; c < s->n; c++) {
        double v = s->raw[c * s->n_params + k];
        if (s->log_scale[k] && !(v > 0)) {
            pp_log_error("adaptive: %s = %g on a log scale", s->names[k], v);
            return -EINVAL;
        }
        tmp[c] = s->log_scale[k] ? log10(v) : v;
        lo = fmin(lo, tmp[c]);
        hi = fmax(hi, tmp[c]);
    }
    for (size_t c = 0; c < s->n; c++)
        s->xn[c * s->n_params + k] = hi > lo ? (tmp[c] - lo) / (hi - lo) : 0.0;
    qsort(tmp, s->n, sizeof *tmp, cmp_double);
    for (size_t c = 0; c < s->n; c++)
        lv += c == 0 || tmp[c] != tmp[c - 1];
    s->levels[k] = lv;
    return 0;
}

/* The group of each candidate: its labels as one mixed-radix number,
 * renumbered in order of first appearance. */
static int make_groups(pp_adaptive_space *s)
{
    uint64_t *key = malloc(s->n * sizeof *key);

    if (!key)
        return -ENOMEM;
    s->n_groups = 0;
    for (size_t c = 0; c < s->n; c++) {
        size_t g = 0;
        key[c] = 0;
        for (size_t k = 0; k < s->n_params; k++)
            if (s->categorical[k])
                key[c] = key[c] * s->n_labels[k] + (uint64_t)s->raw[c * s->n_params + k];
        while (g < c && key[g] != key[c])
            g++;
        s->group[c] = g < c ? s->group[g] : s->n_groups++;
    }
    free(key);
    return 0;
}

int pp_adaptive_space_finish(pp_adaptive_space *s)
{
    double *tmp = malloc(s->n * sizeof *tmp), step = 1.0;
    int rc = tmp ? 0 : -ENOMEM;

    for (size_t k = 0; rc == 0 && k < s->n_params; k++) {
        if (!s->categorical[k]) {
            rc = normalize_param(s, k, tmp);
            if (s->levels[k] > 1)
                step = fmin(step, 1.0 / (double)(s->levels[k] - 1));
            continue;
        }
        s->levels[k] = s->n_labels[k];
        for (size_t c = 0; c < s->n && rc == 0; c++) {
            double v = s->raw[c * s->n_params + k];
            if (!(v >= 0 && v < (double)s->n_labels[k] && v == floor(v))) {
                pp_log_error("adaptive: %s: label index %g of %zu", s->names[k], v,
                             s->n_labels[k]);
                rc = -EINVAL;
            }
        }
    }
    free(tmp);
    s->rho = 1.5 * step;
    return rc == 0 ? make_groups(s) : rc;
}

/* ---- the design ---- */

/* splitmix64: the seed's stream. */
static uint64_t mix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Squared distance of two candidates over the numeric parameters; a label
 * that differs adds 1. */
static double dist2(const pp_adaptive_space *s, size_t a, size_t b)
{
    double d = 0;

    for (size_t k = 0; k < s->n_params; k++) {
        if (s->categorical[k]) {
            d += s->raw[a * s->n_params + k] != s->raw[b * s->n_params + k];
        } else {
            double u = s->xn[a * s->n_params + k] - s->xn[b * s->n_params + k];
            d += u * u;
        }
    }
    return d;
}

typedef struct design {
    const pp_adaptive_space *s;
    size_t *out;
    pp_adaptive_why *why;
    size_t n, cap;
    uint8_t *taken;
    const size_t *order; /* the seed's permutation: ties go to the earlier */
} design;

/* The candidate not taken nearest to target (normalized numeric values;
 * labels: the wanted index, or -1 for any), added with why. */
static void add_nearest(design *d, const double *target, const double *labels, pp_adaptive_why why)
{
    const pp_adaptive_space *s = d->s;
    double best = INFINITY;
    size_t pick = s->n;

    for (size_t i = 0; i < s->n && d->n < d->cap; i++) {
        size_t c = d->order[i];
        double g = 0;
        if (d->taken[c])
            continue;
        for (size_t k = 0; k < s->n_params; k++) {
            double u = s->xn[c * s->n_params + k] - target[k];
            if (s->categorical[k])
                g += labels[k] >= 0 && s->raw[c * s->n_params + k] != labels[k] ? 1e6 : 0;
            else
                g += u * u;
        }
        if (g < best) {
            best = g;
            pick = c;
        }
    }
    if (pick < s->n) {
        d->taken[pick] = 1;
        d->why[d->n] = why;
        d->out[d->n++] = pick;
    }
}

/* The varying numeric parameters into vary: how many. */
static size_t varying(const pp_adaptive_space *s, size_t *vary)
{
    size_t nv = 0;

    for (size_t k = 0; k < s->n_params; k++)
        if (!s->categorical[k] && s->levels[k] > 1)
            vary[nv++] = k;
    return nv;
}

/* The corners (of the varying numeric parameters, at most 2^4: above, the
 * seed picks which; none without one) or, with centre, the centre; labels
 * turn round over them. */
static void corners_or_centre(design *d, uint64_t *rng, int centre)
{
    const pp_adaptive_space *s = d->s;
    size_t vary[PP_ADAPTIVE_MAX_PARAMS], nv = varying(s, vary), nc;
    double target[PP_ADAPTIVE_MAX_PARAMS], labels[PP_ADAPTIVE_MAX_PARAMS];

    nc = (size_t)1 << (nv < PP_ADAPTIVE_MAX_CORNER_DIMS ? nv : PP_ADAPTIVE_MAX_CORNER_DIMS);
    nc = centre ? 1 : nv == 0 ? 0 : nc;
    for (size_t b = 0; b < nc; b++) {
        uint64_t bits = nv > PP_ADAPTIVE_MAX_CORNER_DIMS ? mix(rng) : b;
        for (size_t k = 0; k < s->n_params; k++) {
            target[k] = 0.5;
            labels[k] = s->categorical[k] ? (double)((b + k + centre) % s->n_labels[k]) : -1;
        }
        for (size_t j = 0; !centre && j < nv; j++)
            target[vary[j]] = (bits >> j) & 1 ? 1.0 : 0.0;
        add_nearest(d, target, labels, centre ? PP_WHY_CENTRE : PP_WHY_CORNER);
    }
}

/* Every label of every categorical parameter at least once: the missing
 * ones at the centre. */
static void cover_labels(design *d)
{
    const pp_adaptive_space *s = d->s;
    double target[PP_ADAPTIVE_MAX_PARAMS], labels[PP_ADAPTIVE_MAX_PARAMS];

    for (size_t k = 0; k < s->n_params; k++) {
        if (!s->categorical[k])
            continue;
        for (size_t l = 0; l < s->n_labels[k]; l++) {
            size_t i = 0;
            while (i < d->n && s->raw[d->out[i] * s->n_params + k] != (double)l)
                i++;
            if (i < d->n)
                continue;
            for (size_t j = 0; j < s->n_params; j++) {
                target[j] = 0.5;
                labels[j] = j == k ? (double)l : -1;
            }
            add_nearest(d, target, labels, PP_WHY_LABEL);
        }
    }
}

/* 1 when candidate c lies inside the grid: no varying numeric parameter
 * at its lowest or highest value. */
static int interior(const pp_adaptive_space *s, size_t c)
{
    for (size_t k = 0; k < s->n_params; k++) {
        double x = s->xn[c * s->n_params + k];
        if (!s->categorical[k] && s->levels[k] > 2 && (x <= 0 || x >= 1))
            return 0;
    }
    return 1;
}

/* n_fill maximin points inside the grid: each the candidate farthest from
 * the design. */
static void maximin(design *d, size_t n_fill)
{
    const pp_adaptive_space *s = d->s;

    for (size_t f = 0; f < n_fill && d->n < d->cap; f++) {
        double best = -1;
        size_t pick = s->n;
        for (size_t i = 0; i < s->n; i++) {
            size_t c = d->order[i];
            double near = INFINITY;
            if (d->taken[c] || !interior(s, c))
                continue;
            for (size_t j = 0; j < d->n; j++)
                near = fmin(near, dist2(s, c, d->out[j]));
            if (near > best) {
                best = near;
                pick = c;
            }
        }
        if (pick == s->n)
            break;
        d->taken[pick] = 1;
        d->why[d->n] = PP_WHY_MAXIMIN;
        d->out[d->n++] = pick;
    }
}

/* A permutation of 0 .. n-1 drawn from seed (Fisher-Yates). */
static size_t *permutation(size_t n, uint64_t seed)
{
    size_t *p = malloc((n + 1) * sizeof *p);
    uint64_t rng = seed;

    for (size_t i = 0; p && i < n; i++)
        p[i] = i;
    for (size_t i = n; p && i > 1; i--) {
        size_t j = (size_t)(mix(&rng) % i), t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
    return p;
}

/* The design's part (corners or the rest) into out. */
static size_t design_part(const pp_adaptive_space *s, uint64_t seed, const uint8_t *taken,
                          size_t *out, pp_adaptive_why *why, size_t cap, int corners)
{
    size_t *order = permutation(s->n, seed), vary[PP_ADAPTIVE_MAX_PARAMS];
    uint8_t *took = calloc(s->n, 1);
    uint64_t rng = seed ^ 0x5deece66dULL;
    design d = {s, out, why, 0, cap < s->n ? cap : s->n, took, order};
    size_t nv = varying(s, vary);

    if (order && took) {
        for (size_t c = 0; taken && c < s->n; c++)
            took[c] = taken[c];
        if (corners) {
            corners_or_centre(&d, &rng, 0);
        } else {
            corners_or_centre(&d, &rng, 1);
            cover_labels(&d);
            maximin(&d, nv > 1 ? nv - 1 : 0);
        }
    }
    free(order);
    free(took);
    return d.n;
}

size_t pp_adaptive_design(const pp_adaptive_space *s, uint64_t seed, size_t *out,
                          pp_adaptive_why *why, size_t cap)
{
    return design_part(s, seed, NULL, out, why, cap, 0);
}

size_t pp_adaptive_corners(const pp_adaptive_space *s, uint64_t seed, const uint8_t *taken,
                           size_t *out, size_t cap)
{
    pp_adaptive_why *why = malloc((cap + 1) * sizeof *why);
    size_t n = why ? design_part(s, seed, taken, out, why, cap, 1) : 0;

    free(why);
    return n;
}

const char *pp_adaptive_why_name(pp_adaptive_why w)
{
    static const char *const names[] = {"", "corner", "centre", "label", "maximin",
                                        "unseen-labels", "band", "resumed"};
    return w >= PP_WHY_CORNER && w <= PP_WHY_RESUMED ? names[w] : "?";
}

int pp_adaptive_why_parse(const char *name, pp_adaptive_why *w)
{
    for (int i = PP_WHY_CORNER; i <= PP_WHY_RESUMED; i++)
        if (strcmp(name, pp_adaptive_why_name((pp_adaptive_why)i)) == 0) {
            *w = (pp_adaptive_why)i;
            return 0;
        }
    return -EINVAL;
}
