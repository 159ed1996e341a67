/* target_api.c - the "api" fuzz target (issue 46 item 2): the public API's
 * entry points given, in the order the input says, handles of every kind,
 * closed ones, NULL and a stray pointer; closed with the right function or
 * another kind's. The handle registry (src/api/handle.c) must refuse every
 * wrong one before it is read: ASan sees a use after free, a double free
 * or a leak. Every C entry point the Python package calls is among the
 * operations (pp_trace_open and the meter's aside: a file, a command). */
#include "targets.h"

#include "include/powprof/governor.h"
#include "include/powprof/plan.h"
#include "include/powprof/trace.h"
#include "src/base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { API_MODEL, API_BATTERY, API_TRACE, API_GOVERNOR, API_NONE };
enum { API_SLOTS = 8 };
#define API_MISSION "tests/fixtures/governor/mission-tx2.cfg" /* from the repository's root */

typedef struct api_slot {
    void *h;
    int kind, live;
} api_slot;

static pp_model *g_api_model; /* one for every input: building a model takes seconds */

/* The shared model, of power 2 + fps / 2 at fps 1..5. */
static pp_model *api_model_once(void)
{
    static const char summary[] = "id,fps,status,duration_s,total_mean_w\n0,1,ok,10,2.5\n"
                                  "1,2,ok,10,3.0\n2,3,ok,10,3.5\n3,4,ok,10,4.0\n4,5,ok,10,4.5\n";
    char dir[] = "/tmp/powprof-fuzz-api.XXXXXX", path[64];
    FILE *fp;

    if (g_api_model || !mkdtemp(dir))
        return g_api_model;
    pp_fmt(path, sizeof path, "%s/summary.csv", dir);
    if ((fp = fopen(path, "w"))) {
        fputs(summary, fp);
        fclose(fp);
        if (pp_model_open(dir, &g_api_model) < 0)
            g_api_model = NULL;
    }
    unlink(path);
    rmdir(dir);
    return g_api_model;
}

/* The pool: the shared model, a battery, a trace, a governor, a battery
 * and a trace closed at once, NULL and a stray pointer. */
static void api_pool_make(api_slot *s, int *stray)
{
    static const char *const rail[] = {"a"};
    static const double t[] = {0, 1, 2}, w[] = {1, 2, 3};
    pp_governor_options o;

    s[0] = (api_slot){api_model_once(), API_MODEL, 0};
    s[1].kind = s[4].kind = API_BATTERY;
    s[2].kind = s[5].kind = API_TRACE;
    s[3].kind = API_GOVERNOR;
    s[1].live = pp_battery_new(NULL, (pp_battery_params **)&s[1].h) == 0;
    s[2].live = pp_trace_new(1, rail, 3, t, w, (pp_trace **)&s[2].h) == 0;
    pp_governor_options_init(&o);
    o.duration_s = 600;
    s[3].live = s[0].h && s[1].live &&
                pp_governor_new(s[0].h, s[1].h, &o, (pp_governor **)&s[3].h) == 0;
    if (pp_battery_new(NULL, (pp_battery_params **)&s[4].h) == 0)
        pp_battery_close(s[4].h);
    if (pp_trace_new(1, rail, 3, t, w, (pp_trace **)&s[5].h) == 0)
        pp_trace_close(s[5].h);
    s[6] = (api_slot){NULL, API_NONE, 0};
    s[7] = (api_slot){stray, API_NONE, 0};
}

/* Close s with the function of kind (another kind's: refused). */
static void api_close_as(api_slot *s, int kind)
{
    if (kind == API_MODEL && s->h == g_api_model)
        return; /* the shared one stays */
    if (kind == API_MODEL)
        pp_model_close(s->h);
    else if (kind == API_BATTERY)
        pp_battery_close(s->h);
    else if (kind == API_TRACE)
        pp_trace_close(s->h);
    else
        pp_governor_close(s->h);
    if (kind == s->kind)
        s->live = 0;
}

/* Operation op on slots a and b (v: a value from the input). */
static void api_apply(api_slot *s, unsigned op, api_slot *a, api_slot *b, double v)
{
    pp_mission mission = {600, NULL, -1, 0};
    pp_governor_reading r = {v, 0.9, -1, -1, -1};
    const char *names[] = {"fps"}, *values[] = {"3"}, *metrics[] = {"total_mean_w"};
    static const double t[] = {0, 1, 2}, w[] = {1, 2, 3};
    pp_governor_options o;
    pp_governor_decision d;
    pp_battery_summary sum;
    pp_model_estimate e;
    pp_governor *g;
    char *json = NULL;

    switch (op % 13) {
    case 0: (void)pp_model_param_count(a->h); (void)pp_model_metric_name(a->h, 0); break;
    case 1: if (pp_model_json(a->h, &json) == 0) pp_free(json); break;
    case 2: if (pp_mission_plan_json(a->h, b->h, &mission, &json) == 0) pp_free(json); break;
    case 3: (void)pp_battery_set_base_power(a->h, v); break;
    case 4: (void)pp_battery_drain_trace(a->h, b->h, &sum); break;
    case 5: (void)pp_governor_update(a->h, &r, &d); break;
    case 6: (void)pp_trace_sample_count(a->h); (void)pp_trace_power_w(a->h, 0, 0); break;
    case 7: api_close_as(a, (int)(op / 13) % 4); break;
    case 8:
        pp_governor_options_init(&o);
        o.duration_s = 600;
        if (pp_governor_new(a->h, b->h, &o, &g) == 0)
            pp_governor_close(g);
        break;
    case 9: (void)pp_model_estimate_at(a->h, "total_mean_w", 1, names, values, 0, &e); break;
    case 10: if (pp_governor_update_json(a->h, &r, &json) == 0) pp_free(json); break;
    case 11:
        (void)pp_model_metric_count(a->h);
        (void)pp_model_param_name(a->h, 0);
        (void)pp_model_estimate_rows(a->h, 1, metrics, 1, names, 1, values, 0, &e);
        (void)pp_battery_drain(b->h, t, w, 3, &sum);
        break;
    default: /* a mission file, or a folder (libconfig's scanner would exit) */
        if (pp_mission_plan_file_json(a->h, b->h, v < 0 ? "/tmp" : API_MISSION, &mission,
                                      &json) == 0)
            pp_free(json);
        break;
    }
    (void)s;
}

int pp_fuzz_api(const uint8_t *data, size_t size)
{
    api_slot s[API_SLOTS];
    int stray = 0;

    api_pool_make(s, &stray);
    for (size_t i = 0; i + 2 < size && i < 96; i += 3)
        api_apply(s, data[i], &s[data[i + 1] % API_SLOTS], &s[data[i + 2] % API_SLOTS], data[i + 2] - 8.0);
    for (int k = 3; k >= 1; k--) /* the governor before its battery's api_slot */
        if (s[k].live)
            api_close_as(&s[k], s[k].kind);
    return 0;
}
