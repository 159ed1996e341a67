/* sweep_progress.c - the progress of a sweep and its time left
 * (sweep_progress.h). Called by sweep.c; calls nothing of the sweep. */
#include "sweep_progress.h"

#include "src/base/clock.h"
#include "src/base/util.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

/* A failure's reason without what changes from one configuration to the
 * next (numbers, this configuration's labels: each becomes '#'), so that
 * the same failure repeated is recognized. */
static void reason_key(const pp_profile *p, const double *values, const char *reason, char *key,
                       size_t cap)
{
    size_t len = 0, n = pp_profile_n_params(p);

    while (*reason && len + 1 < cap) {
        size_t skip = isdigit((unsigned char)*reason) ? strspn(reason, "0123456789") : 0;
        for (size_t k = 0; k < n && !skip; k++) {
            const char *label = pp_profile_label(p, k, values[k]);
            if (label && strncmp(reason, label, strlen(label)) == 0)
                skip = strlen(label);
        }
        key[len++] = skip ? '#' : *reason;
        reason += skip ? skip : 1;
    }
    key[len] = '\0';
}

static double elapsed_s(const pp_sweep_state *r)
{
    return pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic) - r->t_start);
}

/* What is left: the estimates still to run at the pace seen so far against
 * the estimates of those finished (when nothing has an estimate, the mean
 * time of a configuration), less what the running one has done. NAN when
 * nothing is known yet. */
static double time_left_s(const pp_sweep_state *r, double elapsed, double running_s)
{
    double finished_s = elapsed - running_s, t;
    uint64_t left = r->st->total - r->st->skipped - r->st->ran;

    if (r->est_total > 0)
        t = (r->est_done > 0 ? finished_s / r->est_done : 1.0) * (r->est_total - r->est_done);
    else if (r->st->ran > 0)
        t = finished_s / (double)r->st->ran * (double)left;
    else
        return NAN;
    return t > running_s ? t - running_s : 0.0;
}

/* Progress while a configuration runs (ticker callback). */
void pp_sweep_tick(void *ctx, double running_s)
{
    pp_sweep_state *r = ctx;

    r->pr.running = 1;
    r->pr.config_elapsed_s = running_s;
    r->pr.config_estimate_s = r->est_running;
    r->pr.elapsed_s = elapsed_s(r);
    r->pr.left_s = time_left_s(r, r->pr.elapsed_s, running_s);
    r->o->progress(r->o->progress_ctx, &r->pr);
}

/* Count the failures in a row with the same reason: the count, 0 after a
 * success. */
unsigned pp_sweep_streak(pp_sweep_state *r, const double *values, const pp_run_result *res)
{
    char key[512];

    if (res->status == PP_RUN_OK)
        return r->pr.failures_in_row = 0;
    reason_key(r->p, values, res->reason, key, sizeof key);
    if (r->pr.failures_in_row && strcmp(key, r->streak_key) == 0)
        return ++r->pr.failures_in_row;
    pp_text(r->streak_key, sizeof r->streak_key, "%s", key); /* compared with a key of its size */
    return r->pr.failures_in_row = 1;
}

/* Steps per second over duration_s, each step counted as at least one
 * period of fps (when paced by it): a run that keeps up reads fps, not the
 * more that rounding up the frames of a short duration would give. */
static double achieved_fps(long steps, double duration_s, double fps)
{
    double span_s = fps > 0 ? fmax(duration_s, (double)steps / fps) : duration_s;

    return span_s > 0 ? (double)steps / span_s : NAN;
}

/* Each component's pace in configuration values. */
static void pace_of(pp_sweep_state *r, const double *values, const pp_sweep_measured *m)
{
    size_t k = 0;

    for (size_t c = 0; c < r->p->n_components; c++) {
        const pp_component_spec *cs = &r->p->components[c];
        pp_sweep_component_progress *cp = &r->comps[c];
        int i = pp_component_param_index(cs, "fps");
        cp->name = cs->name;
        cp->fps = i >= 0 ? values[k + (size_t)i] : cs->fps;
        cp->iterations = m->each[c].iterations;
        cp->late_frames = m->each[c].late_frames;
        cp->achieved_fps = achieved_fps(cp->iterations, m->each[c].duration_s, cp->fps);
        k += cs->n_params;
    }
}

/* Progress: configuration id has just been saved. */
void pp_sweep_report_done(pp_sweep_state *r, uint64_t id, const double *values,
                          const pp_sweep_measured *m, double mean_w, int saturated)
{
    pp_sweep_progress *pr = &r->pr;
    double d = m->cpu.span_s;

    r->est_done += r->est_running;
    pp_text(r->reason, sizeof r->reason, "%s",
            m->overall.status == PP_RUN_OK ? "" : m->overall.reason);
    pace_of(r, values, m);
    pr->running = 0;
    pr->done = r->st->ran;
    pr->total = r->st->total - r->st->skipped;
    pr->id = id;
    pr->status = pp_run_status_name(m->overall.status);
    pr->reason = r->reason;
    pr->duration_s = m->overall.duration_s;
    pr->total_mean_w = mean_w;
    pr->cpu_share = d > 0 ? m->cpu.cpu_s / d : NAN;
    pr->machine_cpu_share = d > 0 ? m->cpu.machine_busy_s / d : NAN;
    pr->saturated = saturated;
    pr->n_components = r->p->n_components;
    pr->components = r->comps;
    pr->elapsed_s = elapsed_s(r);
    pr->left_s = time_left_s(r, pr->elapsed_s, 0.0);
    if (r->o->progress)
        r->o->progress(r->o->progress_ctx, pr);
}
