/* profile.h - a profile: the configuration space of a sweep, read from a
 * configuration file (libconfig syntax), and its expansion into
 * configurations (the cartesian product of every component's parameter
 * values).
 *
 *   profile = { name = "demo"; device = "auto"; rate_hz = 20.0;
 *               warmup_s = 0.0; mode = "parallel"; };
 *   battery = { ... };                       (battery/battery.h)
 *   components = ( { name = "sleeper"; type = "exec";
 *                    command = [ "/bin/sleep", "{t}" ];
 *                    params = { t = { from = 0.2; to = 0.6; step = 0.2; }; };
 *                    until = "completion"; } );
 *
 * A parameter is a linear range {from, to, step}, an exponential range
 * {from, to, factor}, a list [a, b, ...] or a fixed value. In outputs it is
 * named "<component>.<param>".
 */
#ifndef PP_PROFILE_H
#define PP_PROFILE_H

#include "../battery/battery.h"

#include <stddef.h>
#include <stdint.h>

#define PP_PROFILE_NAME_MAX 64
#define PP_PROFILE_MAX_COMPONENTS 8
#define PP_PROFILE_MAX_PARAMS 16
#define PP_PROFILE_MAX_VALUES 4096
#define PP_PROFILE_MAX_ARGS 64
#define PP_PROFILE_CONFIRM_ABOVE 10000

typedef enum pp_range_kind {
    PP_RANGE_FIXED = 0,
    PP_RANGE_LINEAR,
    PP_RANGE_EXPONENTIAL, /* normalized on a log scale in layer 2 */
    PP_RANGE_LIST,
} pp_range_kind;

typedef struct pp_param_spec {
    char name[PP_PROFILE_NAME_MAX];
    pp_range_kind kind;
    size_t n_values;
    double values[PP_PROFILE_MAX_VALUES];
} pp_param_spec;

typedef enum pp_until {
    PP_UNTIL_COMPLETION = 0, /* one step, run to its end */
    PP_UNTIL_DURATION,       /* steps repeated for duration_s */
    PP_UNTIL_ITERATIONS,     /* steps repeated iterations times */
} pp_until;

typedef struct pp_component_spec {
    char name[PP_PROFILE_NAME_MAX];
    char type[32];
    size_t n_args;                         /* exec: argv with {param} placeholders */
    char args[PP_PROFILE_MAX_ARGS][256];
    char op[32];                           /* matrix: "multiply" or "exponentiate" */
    char cfg[256], weights[256], images[256]; /* darknet */
    pp_until until;
    double duration_s;
    long iterations;
    double fps;        /* 0: unpaced; may be a parameter instead */
    double sleep_s;    /* after each step; may be a parameter instead */
    double timeout_s;  /* a step running longer is stopped (0: duration_s + 10 s, or none) */
    size_t n_params;
    pp_param_spec params[PP_PROFILE_MAX_PARAMS];
} pp_component_spec;

typedef struct pp_profile {
    char path[4096];
    char name[PP_PROFILE_NAME_MAX];
    char device[32];
    double rate_hz;
    double warmup_s;
    int sequential;    /* 0: components of a configuration run together */
    char sysfs_root[1024];
    pp_battery_params battery;
    /* mission = { duration_s; base_power_w; maximize; min_soc; } (optional):
     * `powprof run` plans it */
    int has_mission;
    double mission_s, mission_base_power_w, mission_min_soc; /* < 0: not given */
    char mission_maximize[160];
    size_t n_components;
    pp_component_spec components[PP_PROFILE_MAX_COMPONENTS];
} pp_profile;

/* The component types powprof knows. */
extern const char *const pp_component_types[];

/* Read path. Every error (syntax, unknown key, wrong type, empty or
 * inverted range, zero step, unknown component type, missing command) is
 * logged with the file, the line and the key; returns -EINVAL then. p is
 * heap-sized (about 1 MB): allocate it, do not put it on a small stack. */
int pp_profile_load(const char *path, pp_profile *p);

/* Number of configurations: the product of every parameter's value count,
 * saturating at UINT64_MAX. */
uint64_t pp_profile_count(const pp_profile *p);

/* Number of parameters over all components. */
size_t pp_profile_n_params(const pp_profile *p);

/* Configuration id (0 .. count-1) as one value per parameter, components in
 * order, parameters in order; the last parameter varies fastest. */
void pp_profile_values(const pp_profile *p, uint64_t id, double *values);

/* The output name "<component>.<param>" of parameter k. */
void pp_profile_param_name(const pp_profile *p, size_t k, char *buf, size_t cap);

/* A lower bound of the time a configuration takes in seconds (duration,
 * iterations over fps, iterations x sleep), 0 when nothing is known. */
double pp_profile_estimate_s(const pp_profile *p, const double *values);

#endif
