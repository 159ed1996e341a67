#include "mission.h"
#include "battery_config.h"

#include "src/base/duration.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const mission_keys[] = {"duration_s", "base_power_w", "maximize", "min_soc",
                                           "phases", "fixed", NULL};
static const char *const phase_keys[] = {"name", "duration", "duration_s", "base_power_w",
                                         "base_trace", "base_trace_from_s", "weight", "min",
                                         "max", "fixed", "work", "overrun", NULL};

void pp_mission_init(pp_mission_spec *m)
{
    memset(m, 0, sizeof *m);
    m->min_soc_frac = -1;
}

static void phase_init(pp_mission_phase *ph)
{
    memset(ph, 0, sizeof *ph);
    ph->base_power_w = -1;
    ph->weight = 1;
}

int pp_mission_one_phase(pp_mission_spec *m, double duration_s, double base_power_w)
{
    if (!(duration_s >= PP_DURATION_S_MIN && duration_s <= PP_DURATION_S_MAX)) {
        pp_log_error("mission: a duration of %g s is not in [%g, %g] s", duration_s,
                     PP_DURATION_S_MIN, PP_DURATION_S_MAX);
        return -EINVAL;
    }
    m->n_phases = 1;
    m->shorthand = 1;
    phase_init(&m->phase[0]);
    memcpy(m->phase[0].name, "mission", sizeof "mission"); /* fits: PP_MISSION_NAME_MAX */
    m->phase[0].duration_s = duration_s;
    m->phase[0].base_power_w = base_power_w;
    return 0;
}

double pp_mission_duration_s(const pp_mission_spec *m)
{
    double s = 0;

    for (size_t i = 0; i < m->n_phases; i++)
        s += m->phase[i].duration_s;
    return s;
}

int pp_mission_parse_duration(const char *text, double *s, char *why, size_t cap)
{
    return pp_parse_duration_range(text, s, why, cap); /* the command line's parser and range */
}

/* The bound of param in ph, added when new. */
static pp_mission_bound *bound_of(pp_mission_phase *ph, const char *param, int line)
{
    pp_mission_bound *b;

    for (size_t i = 0; i < ph->n_bounds; i++)
        if (strcmp(ph->bound[i].param, param) == 0)
            return &ph->bound[i];
    if (ph->n_bounds == PP_MISSION_MAX_BOUNDS)
        return NULL;
    b = &ph->bound[ph->n_bounds];
    memset(b, 0, sizeof *b);
    if (pp_strlcpy(b->param, param, sizeof b->param) < 0)
        return NULL; /* never: add_bound refused a longer name */
    ph->n_bounds++;
    b->min = -INFINITY;
    b->max = INFINITY;
    b->line = line;
    return b;
}

/* One bound: which is "min", "max" or "fixed"; node a number (or, fixed,
 * a label). */
static int add_bound(const pp_config *cfg, const pp_config_setting *node, const char *which,
                     const char *param, pp_mission_phase *ph)
{
    char what[PP_MISSION_PARAM_MAX + 16];
    pp_mission_bound *b;
    const char *label = pp_config_string(node);
    double v = NAN;

    pp_text(what, sizeof what, "%s.%s", which, param);
    if (strlen(param) >= PP_MISSION_PARAM_MAX)
        return pp_config_node_error(cfg, node, what, "a parameter of %zu characters, at most %d",
                                    strlen(param), PP_MISSION_PARAM_MAX - 1);
    if (!(b = bound_of(ph, param, pp_config_line(node))))
        return pp_config_node_error(cfg, node, what, "more than %d bounded parameters",
                                    PP_MISSION_MAX_BOUNDS);
    if (label && strcmp(which, "fixed") == 0) {
        if (!pp_label_ok(label) || pp_strlcpy(b->label, label, sizeof b->label) < 0)
            return pp_config_node_error(cfg, node, what, "\"%s\" is not a label (letters, "
                                        "digits and _ . - + / :)", label);
    } else if (pp_config_number(node, &v) < 0 || !isfinite(v)) {
        return pp_config_node_error(cfg, node, what, "a number expected%s",
                                    strcmp(which, "fixed") == 0 ? " (or a label)" : "");
    }
    if (strcmp(which, "fixed") == 0 ? (b->min != -INFINITY || b->max != INFINITY)
                                    : (b->label[0] || (b->min == b->max)))
        return pp_config_node_error(cfg, node, what, "%s is both fixed and bounded: give one",
                                    param);
    if (strcmp(which, "min") == 0)
        b->min = v;
    else if (strcmp(which, "max") == 0)
        b->max = v;
    else if (!label)
        b->min = b->max = v;
    if (b->min > b->max)
        return pp_config_node_error(cfg, node, what, "the minimum %g is above the maximum %g",
                                    b->min, b->max);
    return 0;
}

/* min / max / fixed = { comp = { param = v; }; param = v; }. */
static int parse_bounds(const pp_config *cfg, const pp_config_setting *ph_node, const char *which,
                        pp_mission_phase *ph)
{
    const pp_config_setting *g = pp_config_member(ph_node, which);
    char param[PP_MISSION_PARAM_MAX];
    int rc = 0;

    if (!g)
        return 0;
    if (pp_config_kind_of(g) != PP_CONFIG_GROUP)
        return pp_config_node_error(cfg, g, which, "a group expected, e.g. %s = { det = { fps = "
                                    "15.0; }; }", which);
    for (size_t i = 0; i < pp_config_length(g) && rc == 0; i++) {
        const pp_config_setting *e = pp_config_elem(g, i);
        if (pp_config_kind_of(e) != PP_CONFIG_GROUP) {
            rc = add_bound(cfg, e, which, pp_config_name(e), ph);
            continue;
        }
        for (size_t j = 0; j < pp_config_length(e) && rc == 0; j++) {
            const pp_config_setting *f = pp_config_elem(e, j);
            if (pp_fmt(param, sizeof param, "%s.%s", pp_config_name(e), pp_config_name(f)) < 0)
                return pp_config_node_error(cfg, f, which, "the name is too long");
            rc = add_bound(cfg, f, which, param, ph);
        }
    }
    return rc;
}

/* base_trace: relative to the folder of the file. */
static int parse_trace(const pp_config *cfg, const pp_config_setting *g, pp_mission_phase *ph)
{
    char name[PP_PATH_MAX];
    const char *path = pp_config_path(cfg), *slash = strrchr(path, '/');
    int rc = pp_config_get_string(cfg, g, "base_trace", name, sizeof name);

    if (rc != 0)
        return rc < 0 ? rc : 0;
    if (name[0] == '\0')
        return pp_config_error(cfg, g, "base_trace", "an empty path");
    if (name[0] == '/' || !slash) {
        rc = pp_strlcpy(ph->base_trace, name, sizeof ph->base_trace);
    } else { /* the file's folder, then the path as written (not a name: no pp_path_fmt) */
        size_t len = (size_t)(slash - path) + 1;
        rc = len + strlen(name) < sizeof ph->base_trace ? 0 : -ENAMETOOLONG;
        if (rc == 0) {
            memcpy(ph->base_trace, path, len);
            rc = pp_strlcpy(ph->base_trace + len, name, sizeof ph->base_trace - len);
        }
    }
    if (rc < 0)
        return pp_config_error(cfg, g, "base_trace", "the path is too long");
    if (pp_config_member(g, "base_power_w"))
        return pp_config_error(cfg, g, "base_trace", "give base_trace or base_power_w, not both");
    if (pp_config_get_double(cfg, g, "base_trace_from_s", &ph->base_trace_from_s) < 0)
        return -EINVAL;
    if (!(ph->base_trace_from_s >= 0))
        return pp_config_error(cfg, g, "base_trace_from_s", "must be >= 0 (got %g)",
                               ph->base_trace_from_s);
    return 0;
}

/* The duration: "duration" with its units, or "duration_s". */
static int parse_phase_duration(const pp_config *cfg, const pp_config_setting *g,
                                pp_mission_phase *ph)
{
    const pp_config_setting *d = pp_config_member(g, "duration");
    char why[256];

    if (d && pp_config_member(g, "duration_s"))
        return pp_config_error(cfg, g, "duration", "give duration or duration_s, not both");
    if (d) {
        if (!pp_config_string(d))
            return pp_config_node_error(cfg, d, "duration", "a text with its unit expected, e.g. "
                                        "\"90s\" or \"12min\" (or duration_s = 90.0)");
        if (pp_mission_parse_duration(pp_config_string(d), &ph->duration_s, why, sizeof why) < 0)
            return pp_config_node_error(cfg, d, "duration", "phase '%s': %s", ph->name, why);
        return 0;
    }
    if (pp_config_get_double(cfg, g, "duration_s", &ph->duration_s) != 0)
        return pp_config_error(cfg, g, NULL, "phase '%s' has no duration (duration = \"90s\")",
                               ph->name);
    if (!(ph->duration_s >= PP_DURATION_S_MIN && ph->duration_s <= PP_DURATION_S_MAX))
        return pp_config_error(cfg, g, "duration_s", "phase '%s': %g s is not in [%g, %g] s",
                               ph->name, ph->duration_s, PP_DURATION_S_MIN, PP_DURATION_S_MAX);
    return 0;
}

static int parse_phase(const pp_config *cfg, const pp_config_setting *g, size_t index,
                       pp_mission_phase *ph)
{
    char why[160];

    phase_init(ph);
    ph->line = pp_config_line(g);
    if (pp_config_kind_of(g) != PP_CONFIG_GROUP)
        return pp_config_node_error(cfg, g, "phases", "element %zu is not a group { name = ...; "
                                    "duration = ...; }", index + 1);
    if (pp_config_check_keys(cfg, g, phase_keys) < 0)
        return -EINVAL;
    if (pp_config_get_string(cfg, g, "name", ph->name, sizeof ph->name) != 0)
        return pp_config_error(cfg, g, NULL, "phase %zu has no name (or one too long)", index + 1);
    if (pp_name_why(ph->name, why, sizeof why) != 0 || strchr(ph->name, '/'))
        return pp_config_error(cfg, g, "name", "'%s': %s", ph->name,
                               strchr(ph->name, '/') ? "no '/' in a phase's name" : why);
    if (parse_phase_duration(cfg, g, ph) < 0 || parse_trace(cfg, g, ph) < 0 ||
        pp_config_get_double(cfg, g, "base_power_w", &ph->base_power_w) < 0 ||
        pp_config_get_double(cfg, g, "weight", &ph->weight) < 0 ||
        pp_config_get_double(cfg, g, "work", &ph->work_units) < 0 ||
        pp_config_get_double(cfg, g, "overrun", &ph->overrun_frac) < 0)
        return -EINVAL;
    if (!(ph->overrun_frac >= 0 && ph->overrun_frac <= PP_MISSION_OVERRUN_MAX))
        return pp_config_error(cfg, g, "overrun", "a fraction in [0, %g]: 0.3 for a phase that "
                               "may run 30 %% longer (got %g)", PP_MISSION_OVERRUN_MAX,
                               ph->overrun_frac);
    if (!(ph->work_units >= 0 && ph->work_units < 1e15))
        return pp_config_error(cfg, g, "work", "units of work to finish in the phase, >= 0 "
                               "(got %g)", ph->work_units);
    if (pp_config_member(g, "base_power_w") &&
        !(ph->base_power_w >= 0 && ph->base_power_w <= PP_BATTERY_POWER_W_MAX))
        return pp_config_error(cfg, g, "base_power_w", "must be in [0, %g] W (got %g)",
                               PP_BATTERY_POWER_W_MAX, ph->base_power_w);
    if (!(ph->weight > 0 && ph->weight <= 1e6))
        return pp_config_error(cfg, g, "weight", "must be in (0, 1e6] (got %g)", ph->weight);
    if (parse_bounds(cfg, g, "fixed", ph) < 0 || parse_bounds(cfg, g, "min", ph) < 0 ||
        parse_bounds(cfg, g, "max", ph) < 0)
        return -EINVAL;
    return 0;
}

static int parse_phases(const pp_config *cfg, const pp_config_setting *list, pp_mission_spec *m)
{
    if (pp_config_kind_of(list) != PP_CONFIG_LIST || pp_config_length(list) == 0)
        return pp_config_node_error(cfg, list, "mission.phases",
                                    "a non-empty list ( { name = ...; duration = ...; }, ... )");
    if (pp_config_length(list) > PP_MISSION_MAX_PHASES)
        return pp_config_node_error(cfg, list, "mission.phases", "more than %d phases",
                                    PP_MISSION_MAX_PHASES);
    for (size_t i = 0; i < pp_config_length(list); i++) {
        if (parse_phase(cfg, pp_config_elem(list, i), i, &m->phase[i]) < 0)
            return -EINVAL;
        for (size_t j = 0; j < i; j++)
            if (strcmp(m->phase[j].name, m->phase[i].name) == 0)
                return pp_config_node_error(cfg, pp_config_elem(list, i), "name",
                                            "two phases are called '%s'", m->phase[i].name);
        m->n_phases = i + 1;
    }
    if (pp_mission_duration_s(m) > PP_BATTERY_SPAN_S_MAX)
        return pp_config_node_error(cfg, list, "mission.phases", "%g s in all: over %g s",
                                    pp_mission_duration_s(m), PP_BATTERY_SPAN_S_MAX);
    return 0;
}

/* The one-phase form: duration_s, base_power_w. */
static int parse_shorthand(const pp_config *cfg, const pp_config_setting *g, pp_mission_spec *m)
{
    double d = -1, base = -1;

    if (pp_config_member(g, "phases"))
        return pp_config_error(cfg, g, "duration_s", "give phases or duration_s (one phase), "
                               "not both");
    if (pp_config_get_double(cfg, g, "duration_s", &d) != 0 || !(d > 0))
        return pp_config_error(cfg, g, "duration_s", "a mission needs duration_s > 0 or phases");
    if (pp_config_get_double(cfg, g, "base_power_w", &base) < 0)
        return -EINVAL;
    if (pp_config_member(g, "base_power_w") && !(base >= 0 && base <= PP_BATTERY_POWER_W_MAX))
        return pp_config_error(cfg, g, "base_power_w", "must be in [0, %g] W (got %g)",
                               PP_BATTERY_POWER_W_MAX, base);
    return pp_mission_one_phase(m, d, base);
}

int pp_mission_from_config(const pp_config *cfg, pp_mission_spec *m)
{
    const pp_config_setting *g = NULL;
    int rc;

    pp_mission_init(m);
    if (pp_strlcpy(m->path, pp_config_path(cfg), sizeof m->path) < 0)
        return -ENAMETOOLONG; /* never: pp_config_load refused a longer path */
    if ((rc = pp_config_get_group(cfg, pp_config_root(cfg), "mission", &g)) != 0)
        return rc < 0 ? -EINVAL : 1;
    if (pp_config_check_keys(cfg, g, mission_keys) < 0 ||
        pp_config_get_double(cfg, g, "min_soc", &m->min_soc_frac) < 0 ||
        pp_config_get_string(cfg, g, "maximize", m->maximize, sizeof m->maximize) < 0 ||
        pp_mission_fixed_from_config(cfg, g, m->fixed, &m->n_fixed) < 0)
        return -EINVAL;
    if (pp_config_member(g, "min_soc") && !(m->min_soc_frac >= 0 && m->min_soc_frac < 1))
        return pp_config_error(cfg, g, "min_soc", "must be in [0, 1) (got %g)", m->min_soc_frac);
    if (pp_config_member(g, "phases") && !pp_config_member(g, "duration_s")) {
        if (pp_config_member(g, "base_power_w"))
            return pp_config_error(cfg, g, "base_power_w", "with phases, each phase has its own "
                                   "base_power_w or base_trace");
        return parse_phases(cfg, pp_config_member(g, "phases"), m) < 0 ? -EINVAL : 0;
    }
    return parse_shorthand(cfg, g, m) < 0 ? -EINVAL : 0;
}

int pp_mission_load(const char *path, pp_mission_spec *m, pp_battery_params *b)
{
    pp_config *cfg;
    int rc = pp_config_load(path, &cfg);

    if (rc < 0)
        return rc;
    rc = pp_mission_from_config(cfg, m);
    if (rc == 1) {
        pp_log_error("%s: no mission = { phases = ( ... ); } group", path);
        rc = -ENOENT;
    }
    if (rc == 0 && pp_battery_params_from_config(cfg, b) < 0)
        rc = -EINVAL;
    pp_config_free(cfg);
    return rc;
}

/* The bounds of a phase as text ("det.fps >= 15, size = 512"). */
void pp_mission_bounds_text(const pp_mission_phase *ph, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t j = 0; j < ph->n_bounds && len < cap; j++) {
        const pp_mission_bound *b = &ph->bound[j];
        const char *sep = j ? ", " : "";
        if (b->label[0])
            len += (size_t)snprintf(buf + len, cap - len, "%s%s = %s", sep, b->param, b->label);
        else if (b->min == b->max)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s = %g", sep, b->param, b->min);
        else if (isfinite(b->min) && isfinite(b->max))
            len += (size_t)snprintf(buf + len, cap - len, "%s%g <= %s <= %g", sep, b->min,
                                    b->param, b->max);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%s %s %g", sep, b->param,
                                    isfinite(b->min) ? ">=" : "<=",
                                    isfinite(b->min) ? b->min : b->max);
    }
    if (ph->work_units > 0 && len < cap)
        snprintf(buf + len, cap - len, "%swork = %g units in %.1f min", len ? ", " : "",
                 ph->work_units, ph->duration_s / 60);
}
