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
 * {from, to, factor}, a list [a, b, ...], a fixed value, or categorical:
 * labels ["yolov3-tiny", "yolov2-tiny"] (or one "label"), usable wherever a
 * parameter is ({param} in a command or any string key; a parameter named
 * like a string key of the type, e.g. darknet's cfg, stands for that key).
 * In outputs it is named "<component>.<param>"; a categorical value is
 * written as its label.
 */
#ifndef PP_PROFILE_H
#define PP_PROFILE_H

#include "profile_adaptive.h"
#include "profile_clocks.h"

#include "src/base/util.h"
#include "mission.h"

#include "battery/battery.h"
#include "components/component.h"

#include <stddef.h>
#include <stdint.h>

#define PP_PROFILE_NAME_MAX 64
#define PP_PROFILE_MAX_COMPONENTS 8
#define PP_PROFILE_MAX_PARAMS PP_COMPONENT_MAX_PARAMS
#define PP_PROFILE_MAX_VALUES PP_COMPONENT_MAX_VALUES
#define PP_PROFILE_CONFIRM_ABOVE 10000

typedef struct pp_profile {
    char path[PP_PATH_MAX];
    char name[PP_PROFILE_NAME_MAX];
    char device[32];
    double rate_hz;
    double warmup_s;
    int sequential;    /* 0: components of a configuration run together */
    char sysfs_root[1024];
    pp_battery_params battery;
    /* mission = { ... } (optional, mission.h): `powprof run` plans it. The
     * one-phase form's figures below (mission_s: the phases' total) */
    int has_mission;
    pp_mission_spec mission;
    double mission_s, mission_base_power_w, mission_min_soc; /* < 0: not given */
    char mission_maximize[160];
    pp_profile_adaptive adaptive; /* profile = { adaptive = { ... }; } */
    size_t n_components;
    pp_component_spec components[PP_PROFILE_MAX_COMPONENTS];
    pp_profile_clocks clocks; /* clocks = { ... }: parameters after the components' */
} pp_profile;

/* The keys every component accepts, whatever its type (NULL-ended); a type
 * adds its own (pp_component_ops.keys). */
extern const char *const pp_profile_component_keys[];

/* Read path. Every error (syntax, unknown key, wrong type, empty or
 * inverted range, zero step, a label outside letters, digits and
 * _ . - + / :, unknown component type, a module or library missing,
 * missing command) is logged with the file, the line and the key; returns
 * -EINVAL then. Loads the modules of the component types it names. p is
 * heap-sized (about 6 MB): allocate it, do not put it on a small stack. */
int pp_profile_load(const char *path, pp_profile *p);

/* Number of configurations: the product of every parameter's value count,
 * saturating at UINT64_MAX. */
uint64_t pp_profile_count(const pp_profile *p);

/* Number of parameters over all components. */
size_t pp_profile_n_params(const pp_profile *p);

/* Configuration id (0 .. count-1) as one value per parameter, components in
 * order, parameters in order; the last parameter varies fastest. A
 * categorical parameter's value is the index of its label. */
void pp_profile_values(const pp_profile *p, uint64_t id, double *values);

/* The output name "<component>.<param>" of parameter k. */
void pp_profile_param_name(const pp_profile *p, size_t k, char *buf, size_t cap);

/* Parameter k (over all components), or NULL past the last. */
const pp_param_spec *pp_profile_param(const pp_profile *p, size_t k);

/* The label of value v of parameter k when it is categorical, else NULL. */
const char *pp_profile_label(const pp_profile *p, size_t k, double v);

/* Value v of parameter k as text: its label, or the number as %.10g. */
void pp_profile_value_text(const pp_profile *p, size_t k, double v, char *buf, size_t cap);

/* A lower bound of the time a configuration takes in seconds (duration,
 * iterations over fps, iterations x sleep), 0 when nothing is known. */
double pp_profile_estimate_s(const pp_profile *p, const double *values);

#endif
