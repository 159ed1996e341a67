#include "profile.h"

#include "config.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_component_types[] = {"idle",       "exec",          "matrix-cpu",
                                          "darknet",    "matrix-gpu",    "nvidia-matrix",
                                          "nvidia-quicksort", NULL};

static const char *const top_keys[] = {"profile", "battery", "components", "mission", NULL};
static const char *const mission_keys[] = {"duration_s", "base_power_w", "maximize", "min_soc",
                                           NULL};
static const char *const profile_keys[] = {"name", "device", "rate_hz", "warmup_s", "mode",
                                           "sysfs_root", NULL};
static const char *const component_keys[] = {
    "name", "type", "command", "params", "until", "duration_s", "iterations", "fps",
    "sleep_s", "timeout_s", "op", "cfg", "weights", "images", NULL,
};

/* A name from the file follows the rule of util.h (pp_name_why), and has
 * no '.' where it is one half of "<component>.<param>". 1 when it does
 * not, with the reason in why. */
static int bad_name(const char *name, int dot_ok, char *why, size_t cap)
{
    if (pp_name_why(name, why, cap) < 0)
        return 1;
    if (!dot_ok && strchr(name, '.')) {
        pp_fmt(why, cap, "no '.' (it joins component and parameter names in the outputs)");
        return 1;
    }
    return 0;
}

static int is_type(const char *t)
{
    for (const char *const *k = pp_component_types; *k; k++)
        if (strcmp(*k, t) == 0)
            return 1;
    return 0;
}

/* The values of a range, snapped so that 0.1 + 2 * 0.2 prints as 0.5. */
static double snap(double v)
{
    char buf[64];
    pp_fmt(buf, sizeof buf, "%.12g", v);
    return strtod(buf, NULL);
}

static int parse_range(const pp_config *cfg, const pp_config_node *node, const char *what,
                       pp_param_spec *ps)
{
    static const char *const range_keys[] = {"from", "to", "step", "factor", NULL};
    double from, to, step = 0, factor = 0;
    int has_step, has_factor;

    if (pp_config_check_keys(cfg, node, range_keys) < 0)
        return -EINVAL;
    if (pp_config_get_double(cfg, node, "from", &from) != 0)
        return pp_config_node_error(cfg, node, what, "a range needs 'from' (a number)");
    if (pp_config_get_double(cfg, node, "to", &to) != 0)
        return pp_config_node_error(cfg, node, what, "a range needs 'to' (a number)");
    has_step = pp_config_get_double(cfg, node, "step", &step);
    has_factor = pp_config_get_double(cfg, node, "factor", &factor);
    if (has_step < 0 || has_factor < 0)
        return -EINVAL;
    if ((has_step == 0) == (has_factor == 0))
        return pp_config_node_error(cfg, node, what, "a range needs either 'step' or 'factor'");
    if (from > to)
        return pp_config_node_error(cfg, node, what, "inverted range: from %g is above to %g",
                                    from, to);
    if (has_step == 0) {
        double n;
        if (!(step > 0))
            return pp_config_node_error(cfg, node, what, "step must be > 0 (got %g)", step);
        n = floor((to - from) / step + 1e-9) + 1;
        if (n > PP_PROFILE_MAX_VALUES)
            return pp_config_node_error(cfg, node, what, "%.0f values, at most %d", n,
                                        PP_PROFILE_MAX_VALUES);
        ps->kind = PP_RANGE_LINEAR;
        ps->n_values = (size_t)n;
        for (size_t i = 0; i < ps->n_values; i++)
            ps->values[i] = snap(from + (double)i * step);
    } else {
        if (!(from > 0))
            return pp_config_node_error(cfg, node, what,
                                        "an exponential range needs from > 0 (got %g)", from);
        if (!(factor > 1))
            return pp_config_node_error(cfg, node, what, "factor must be > 1 (got %g)", factor);
        ps->kind = PP_RANGE_EXPONENTIAL;
        ps->n_values = 0;
        for (double v = from; v <= to * (1 + 1e-9); v *= factor) {
            if (ps->n_values == PP_PROFILE_MAX_VALUES)
                return pp_config_node_error(cfg, node, what, "more than %d values",
                                            PP_PROFILE_MAX_VALUES);
            ps->values[ps->n_values++] = snap(v);
        }
    }
    return 0;
}

static int parse_param(const pp_config *cfg, const pp_config_node *node, const char *comp,
                       pp_param_spec *ps)
{
    const char *name = pp_config_name(node);
    char what[160];

    char why[256] = "no name";

    pp_fmt(what, sizeof what, "%s.params.%s", comp, name ? name : "?");
    if (!name || bad_name(name, 0, why, sizeof why))
        return pp_config_node_error(cfg, node, what, "a bad parameter name: %s", why);
    pp_strlcpy(ps->name, name, sizeof ps->name);
    switch (pp_config_kind_of(node)) {
    case PP_CONFIG_NUMBER:
        ps->kind = PP_RANGE_FIXED;
        ps->n_values = 1;
        pp_config_number(node, &ps->values[0]);
        return 0;
    case PP_CONFIG_LIST: {
        size_t n = pp_config_length(node);
        if (n == 0)
            return pp_config_node_error(cfg, node, what, "empty list");
        if (n > PP_PROFILE_MAX_VALUES)
            return pp_config_node_error(cfg, node, what, "%zu values, at most %d", n,
                                        PP_PROFILE_MAX_VALUES);
        ps->kind = PP_RANGE_LIST;
        ps->n_values = n;
        for (size_t i = 0; i < n; i++)
            if (pp_config_number(pp_config_elem(node, i), &ps->values[i]) < 0)
                return pp_config_node_error(cfg, node, what, "value %zu is not a number", i + 1);
        return 0;
    }
    case PP_CONFIG_GROUP:
        return parse_range(cfg, node, what, ps);
    default:
        return pp_config_node_error(cfg, node, what,
                                    "must be a number, a list [a, b] or a range {from; to; step "
                                    "or factor}");
    }
}

static const pp_param_spec *find_param(const pp_component_spec *c, const char *name, size_t len)
{
    for (size_t i = 0; i < c->n_params; i++)
        if (strlen(c->params[i].name) == len && strncmp(c->params[i].name, name, len) == 0)
            return &c->params[i];
    return NULL;
}

/* Every {placeholder} of the command names a parameter of the component. */
static int check_placeholders(const pp_config *cfg, const pp_config_node *g,
                              const pp_component_spec *c)
{
    for (size_t a = 0; a < c->n_args; a++) {
        for (const char *s = strchr(c->args[a], '{'); s; s = strchr(s + 1, '{')) {
            const char *end = strchr(s, '}');
            if (!end)
                return pp_config_error(cfg, g, "command", "argument %zu '%s': '{' without '}'",
                                       a + 1, c->args[a]);
            if (!find_param(c, s + 1, (size_t)(end - s - 1)))
                return pp_config_error(cfg, g, "command",
                                       "argument %zu: {%.*s} is not a parameter of %s", a + 1,
                                       (int)(end - s - 1), s + 1, c->name);
        }
    }
    return 0;
}

static int parse_component(const pp_config *cfg, const pp_config_node *g, size_t index,
                           pp_component_spec *c)
{
    char until[32] = "", why[256];
    const pp_config_node *node;
    int rc, has_duration, has_iterations;
    double iterations = 0;

    if (pp_config_kind_of(g) != PP_CONFIG_GROUP)
        return pp_config_node_error(cfg, g, "components", "element %zu must be a group { ... }",
                                    index + 1);
    if (pp_config_check_keys(cfg, g, component_keys) < 0)
        return -EINVAL;
    rc = pp_config_get_string(cfg, g, "type", c->type, sizeof c->type);
    if (rc != 0)
        return rc < 0 ? rc
                      : pp_config_node_error(cfg, g, "components", "element %zu has no type",
                                             index + 1);
    if (!is_type(c->type))
        return pp_config_error(cfg, g, "type",
                               "unknown component type '%s' (known: idle, exec, matrix-cpu, "
                               "darknet, matrix-gpu, nvidia-matrix, nvidia-quicksort)",
                               c->type);
    rc = pp_config_get_string(cfg, g, "name", c->name, sizeof c->name);
    if (rc < 0)
        return rc;
    if (rc == 1)
        pp_strlcpy(c->name, c->type, sizeof c->name);
    if (bad_name(c->name, 0, why, sizeof why))
        return pp_config_error(cfg, g, "name", "'%s': %s", c->name, why);

    node = pp_config_member(g, "command");
    if (strcmp(c->type, "exec") == 0) {
        if (!node)
            return pp_config_node_error(cfg, g, c->name, "an exec component needs a command "
                                                         "[\"program\", \"arg\", ...]");
        if (pp_config_kind_of(node) != PP_CONFIG_LIST || pp_config_length(node) == 0)
            return pp_config_error(cfg, g, "command", "must be a non-empty list of strings");
        c->n_args = pp_config_length(node);
        if (c->n_args > PP_PROFILE_MAX_ARGS)
            return pp_config_error(cfg, g, "command", "more than %d arguments",
                                   PP_PROFILE_MAX_ARGS);
        for (size_t i = 0; i < c->n_args; i++) {
            const char *arg = pp_config_string(pp_config_elem(node, i));
            if (!arg)
                return pp_config_error(cfg, g, "command", "argument %zu is not a string", i + 1);
            if (pp_strlcpy(c->args[i], arg, sizeof c->args[i]) < 0)
                return pp_config_error(cfg, g, "command", "argument %zu is too long", i + 1);
        }
        if (!c->args[0][0])
            return pp_config_error(cfg, g, "command", "the program name is empty");
    } else if (node) {
        return pp_config_error(cfg, g, "command", "only exec components take a command");
    }
    if (pp_config_get_string(cfg, g, "op", c->op, sizeof c->op) < 0 ||
        pp_config_get_string(cfg, g, "cfg", c->cfg, sizeof c->cfg) < 0 ||
        pp_config_get_string(cfg, g, "weights", c->weights, sizeof c->weights) < 0 ||
        pp_config_get_string(cfg, g, "images", c->images, sizeof c->images) < 0)
        return -EINVAL;
    if (c->op[0] && strcmp(c->op, "multiply") != 0 && strcmp(c->op, "exponentiate") != 0)
        return pp_config_error(cfg, g, "op", "'%s': multiply or exponentiate", c->op);
    if (c->op[0] && strstr(c->type, "matrix") == NULL)
        return pp_config_error(cfg, g, "op", "only matrix components take an op");
    if ((c->cfg[0] || c->weights[0] || c->images[0]) && strcmp(c->type, "darknet") != 0)
        return pp_config_error(cfg, g, c->cfg[0] ? "cfg" : c->weights[0] ? "weights" : "images",
                               "only darknet components take cfg, weights and images");

    node = pp_config_member(g, "params");
    if (node) {
        if (pp_config_kind_of(node) != PP_CONFIG_GROUP)
            return pp_config_error(cfg, g, "params", "must be a group { name = ...; }");
        c->n_params = pp_config_length(node);
        if (c->n_params > PP_PROFILE_MAX_PARAMS)
            return pp_config_error(cfg, g, "params", "more than %d parameters",
                                   PP_PROFILE_MAX_PARAMS);
        for (size_t i = 0; i < c->n_params; i++) {
            rc = parse_param(cfg, pp_config_elem(node, i), c->name, &c->params[i]);
            if (rc < 0)
                return rc;
        }
    }
    if (strcmp(c->type, "exec") == 0 && (rc = check_placeholders(cfg, g, c)) < 0)
        return rc;

    rc = pp_config_get_string(cfg, g, "until", until, sizeof until);
    if (rc < 0)
        return rc;
    if (rc == 0 && strcmp(until, "completion") != 0)
        return pp_config_error(cfg, g, "until",
                               "'%s': \"completion\" (or give duration_s or iterations instead)",
                               until);
    has_duration = pp_config_get_double(cfg, g, "duration_s", &c->duration_s);
    has_iterations = pp_config_get_double(cfg, g, "iterations", &iterations);
    if (has_duration < 0 || has_iterations < 0)
        return -EINVAL;
    if (has_duration == 0 && has_iterations == 0)
        return pp_config_error(cfg, g, "iterations", "give duration_s or iterations, not both");
    if (until[0] && (has_duration == 0 || has_iterations == 0))
        return pp_config_error(cfg, g, "until",
                               "\"completion\" contradicts duration_s / iterations");
    c->until = PP_UNTIL_COMPLETION;
    if (has_duration == 0) {
        if (!(c->duration_s > 0) || !isfinite(c->duration_s))
            return pp_config_error(cfg, g, "duration_s", "must be > 0 (got %g)", c->duration_s);
        c->until = PP_UNTIL_DURATION;
    } else if (has_iterations == 0) {
        if (!(iterations >= 1) || iterations != floor(iterations) || iterations > 1e9)
            return pp_config_error(cfg, g, "iterations", "must be a whole number >= 1 (got %g)",
                                   iterations);
        c->iterations = (long)iterations;
        c->until = PP_UNTIL_ITERATIONS;
    }
    if (pp_config_get_double(cfg, g, "fps", &c->fps) < 0 ||
        pp_config_get_double(cfg, g, "sleep_s", &c->sleep_s) < 0 ||
        pp_config_get_double(cfg, g, "timeout_s", &c->timeout_s) < 0)
        return -EINVAL;
    if (!(c->fps >= 0 && c->fps <= 10000))
        return pp_config_error(cfg, g, "fps", "must be in [0, 10000] (got %g)", c->fps);
    if (!(c->sleep_s >= 0 && c->sleep_s <= 86400))
        return pp_config_error(cfg, g, "sleep_s", "must be in [0, 86400] (got %g)", c->sleep_s);
    if (!(c->timeout_s >= 0 && isfinite(c->timeout_s)))
        return pp_config_error(cfg, g, "timeout_s", "must be >= 0 (got %g)", c->timeout_s);
    for (size_t i = 0; i < c->n_params; i++) {
        const pp_param_spec *ps = &c->params[i];
        int pacing = strcmp(ps->name, "fps") == 0 || strcmp(ps->name, "sleep_s") == 0;
        for (size_t k = 0; pacing && k < ps->n_values; k++)
            if (ps->values[k] < 0)
                return pp_config_node_error(cfg, pp_config_member(node, ps->name), ps->name,
                                            "pacing values must be >= 0 (got %g)", ps->values[k]);
    }
    return 0;
}

static void default_name(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    size_t len;

    base = base ? base + 1 : path;
    len = strcspn(base, ".");
    pp_fmt(out, cap, "%.*s", (int)len, base);
    if (!out[0])
        pp_strlcpy(out, "profile", cap);
}

int pp_profile_load(const char *path, pp_profile *p)
{
    pp_config *cfg;
    const pp_config_node *root, *g = NULL, *list;
    char mode[32] = "parallel";
    int rc;

    memset(p, 0, sizeof *p);
    pp_strlcpy(p->path, path, sizeof p->path);
    default_name(path, p->name, sizeof p->name);
    pp_strlcpy(p->device, "auto", sizeof p->device);
    p->rate_hz = 20.0;
    pp_battery_params_default(&p->battery);
    rc = pp_config_load(path, &cfg);
    if (rc < 0)
        return rc;
    root = pp_config_root(cfg);
    rc = -EINVAL;
    if (pp_config_check_keys(cfg, root, top_keys) < 0)
        goto out;
    if (pp_config_get_group(cfg, root, "profile", &g) < 0)
        goto out;
    if (g) {
        if (pp_config_check_keys(cfg, g, profile_keys) < 0 ||
            pp_config_get_string(cfg, g, "name", p->name, sizeof p->name) < 0 ||
            pp_config_get_string(cfg, g, "device", p->device, sizeof p->device) < 0 ||
            pp_config_get_double(cfg, g, "rate_hz", &p->rate_hz) < 0 ||
            pp_config_get_double(cfg, g, "warmup_s", &p->warmup_s) < 0 ||
            pp_config_get_string(cfg, g, "mode", mode, sizeof mode) < 0 ||
            pp_config_get_string(cfg, g, "sysfs_root", p->sysfs_root, sizeof p->sysfs_root) < 0)
            goto out;
        char why[256];
        if (bad_name(p->name, 1, why, sizeof why)) {
            pp_config_error(cfg, g, "name", "'%s': %s", p->name, why);
            goto out;
        }
        if (!(p->rate_hz >= 0.01 && p->rate_hz <= 10000)) {
            pp_config_error(cfg, g, "rate_hz", "must be in [0.01, 10000] Hz (got %g)", p->rate_hz);
            goto out;
        }
        if (!(p->warmup_s >= 0 && p->warmup_s < 3600)) {
            pp_config_error(cfg, g, "warmup_s", "must be in [0, 3600) s (got %g)", p->warmup_s);
            goto out;
        }
        if (strcmp(mode, "parallel") != 0 && strcmp(mode, "sequential") != 0) {
            pp_config_error(cfg, g, "mode", "'%s': \"parallel\" or \"sequential\"", mode);
            goto out;
        }
        p->sequential = strcmp(mode, "sequential") == 0;
    }
    if (pp_battery_params_from_config(cfg, &p->battery) < 0)
        goto out;
    g = NULL;
    if (pp_config_get_group(cfg, root, "mission", &g) < 0)
        goto out;
    p->mission_base_power_w = p->mission_min_soc = -1;
    if (g) {
        p->has_mission = 1;
        if (pp_config_check_keys(cfg, g, mission_keys) < 0 ||
            pp_config_get_double(cfg, g, "base_power_w", &p->mission_base_power_w) < 0 ||
            pp_config_get_double(cfg, g, "min_soc", &p->mission_min_soc) < 0 ||
            pp_config_get_string(cfg, g, "maximize", p->mission_maximize,
                                 sizeof p->mission_maximize) < 0)
            goto out;
        if (pp_config_get_double(cfg, g, "duration_s", &p->mission_s) != 0 || !(p->mission_s > 0)) {
            pp_config_error(cfg, g, "duration_s", "a mission needs duration_s > 0");
            goto out;
        }
        if (pp_config_member(g, "base_power_w") && !(p->mission_base_power_w >= 0)) {
            pp_config_error(cfg, g, "base_power_w", "must be >= 0 (got %g)", p->mission_base_power_w);
            goto out;
        }
        if (pp_config_member(g, "min_soc") && !(p->mission_min_soc >= 0 && p->mission_min_soc < 1)) {
            pp_config_error(cfg, g, "min_soc", "must be in [0, 1) (got %g)", p->mission_min_soc);
            goto out;
        }
    }
    list = pp_config_member(root, "components");
    if (!list) {
        pp_log_error("%s: no components = ( { name = ...; type = ...; } ) list", path);
        goto out;
    }
    if (pp_config_kind_of(list) != PP_CONFIG_LIST || pp_config_length(list) == 0) {
        pp_config_node_error(cfg, list, "components", "must be a non-empty list ( { ... }, ... )");
        goto out;
    }
    p->n_components = pp_config_length(list);
    if (p->n_components > PP_PROFILE_MAX_COMPONENTS) {
        pp_config_node_error(cfg, list, "components", "more than %d components",
                             PP_PROFILE_MAX_COMPONENTS);
        goto out;
    }
    for (size_t i = 0; i < p->n_components; i++) {
        if (parse_component(cfg, pp_config_elem(list, i), i, &p->components[i]) < 0)
            goto out;
        for (size_t k = 0; k < i; k++)
            if (strcmp(p->components[k].name, p->components[i].name) == 0) {
                pp_config_node_error(cfg, pp_config_elem(list, i), "name",
                                     "two components are called '%s'", p->components[i].name);
                goto out;
            }
    }
    rc = 0;
out:
    pp_config_free(cfg);
    return rc;
}

uint64_t pp_profile_count(const pp_profile *p)
{
    uint64_t n = 1;

    for (size_t c = 0; c < p->n_components; c++)
        for (size_t k = 0; k < p->components[c].n_params; k++) {
            uint64_t v = p->components[c].params[k].n_values;
            if (v && n > UINT64_MAX / v)
                return UINT64_MAX;
            n *= v;
        }
    return n;
}

size_t pp_profile_n_params(const pp_profile *p)
{
    size_t n = 0;

    for (size_t c = 0; c < p->n_components; c++)
        n += p->components[c].n_params;
    return n;
}

void pp_profile_values(const pp_profile *p, uint64_t id, double *values)
{
    size_t n = pp_profile_n_params(p), k = n;

    for (size_t c = p->n_components; c-- > 0;)
        for (size_t j = p->components[c].n_params; j-- > 0;) {
            const pp_param_spec *ps = &p->components[c].params[j];
            values[--k] = ps->values[id % ps->n_values];
            id /= ps->n_values;
        }
}

void pp_profile_param_name(const pp_profile *p, size_t k, char *buf, size_t cap)
{
    for (size_t c = 0; c < p->n_components; c++) {
        if (k < p->components[c].n_params) {
            pp_fmt(buf, cap, "%s.%s", p->components[c].name, p->components[c].params[k].name);
            return;
        }
        k -= p->components[c].n_params;
    }
    pp_strlcpy(buf, "?", cap);
}

double pp_profile_estimate_s(const pp_profile *p, const double *values)
{
    double total = 0.0;
    size_t k = 0;

    for (size_t c = 0; c < p->n_components; c++) {
        const pp_component_spec *cs = &p->components[c];
        double fps = cs->fps, sleep_s = cs->sleep_s, t = 0.0;
        for (size_t j = 0; j < cs->n_params; j++, k++) {
            if (strcmp(cs->params[j].name, "fps") == 0)
                fps = values[k];
            else if (strcmp(cs->params[j].name, "sleep_s") == 0)
                sleep_s = values[k];
        }
        if (cs->until == PP_UNTIL_DURATION)
            t = cs->duration_s;
        else if (cs->until == PP_UNTIL_ITERATIONS)
            t = fps > 0 ? (double)cs->iterations / fps : (double)cs->iterations * sleep_s;
        total = p->sequential ? total + t : (t > total ? t : total);
    }
    return total;
}
