#include "profile.h"
#include "profile_check.h"
#include "battery_config.h"

#include "config.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include "components/registry.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_profile_component_keys[] = {
    "name", "type", "params", "until", "duration_s", "iterations", "fps", "sleep_s", "timeout_s",
    NULL,
};

static const char *const top_keys[] = {"profile", "battery", "components", "mission", "clocks",
                                       "nvpmodel", NULL};
static const char *const profile_keys[] = {"name", "device", "rate_hz", "warmup_s", "mode",
                                           "sysfs_root", "adaptive", NULL};

/* A name from the file follows the rule of util.h (pp_name_why), and has
 * no '.' where it is one half of "<component>.<param>". 1 when it does
 * not, with the reason in why. */
static int bad_name(const char *name, int dot_ok, char *why, size_t cap)
{
    if (pp_name_why(name, why, cap) < 0)
        return 1;
    if (!dot_ok && strchr(name, '.')) {
        pp_text(why, cap, "no '.' (it joins component and parameter names in the outputs)");
        return 1;
    }
    return 0;
}

/* The values of a range, snapped so that 0.1 + 2 * 0.2 prints as 0.5. */
static double snap(double v)
{
    char buf[64];
    return pp_fmt(buf, sizeof buf, "%.12g", v) < 0 ? v : strtod(buf, NULL); /* fits: 64 */
}

static int parse_range(const pp_config *cfg, const pp_config_setting *node, const char *what,
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

/* Label i of a categorical parameter from a string node. */
static int parse_label(const pp_config *cfg, const pp_config_setting *node, const char *what,
                       const char *text, size_t i, pp_param_spec *ps)
{
    if (!pp_label_ok(text) || pp_strlcpy(ps->labels[i], text, sizeof ps->labels[i]) < 0)
        return pp_config_node_error(cfg, node, what,
                                    "label '%.40s': 1 to %d letters, digits and _ . - + / : only",
                                    text, PP_LABEL_MAX - 1);
    for (size_t k = 0; k < i; k++)
        if (strcmp(ps->labels[k], text) == 0)
            return pp_config_node_error(cfg, node, what, "label '%s' is given twice", text);
    ps->values[i] = (double)i;
    return 0;
}

/* [a, b, ...]: all numbers, or all labels (categorical). */
static int parse_list(const pp_config *cfg, const pp_config_setting *node, const char *what,
                      pp_param_spec *ps)
{
    size_t n = pp_config_length(node);
    int labels = n > 0 && pp_config_kind_of(pp_config_elem(node, 0)) == PP_CONFIG_STRING;

    if (n == 0)
        return pp_config_node_error(cfg, node, what, "empty list");
    if (n > (labels ? PP_PARAM_MAX_LABELS : PP_PROFILE_MAX_VALUES))
        return pp_config_node_error(cfg, node, what, "%zu values, at most %d", n,
                                    labels ? PP_PARAM_MAX_LABELS : PP_PROFILE_MAX_VALUES);
    ps->kind = labels ? PP_RANGE_CATEGORICAL : PP_RANGE_LIST;
    ps->n_values = n;
    for (size_t i = 0; i < n; i++) {
        const pp_config_setting *e = pp_config_elem(node, i);
        const char *text = pp_config_string(e);
        if (labels && !text)
            return pp_config_node_error(cfg, node, what, "value %zu is not a label: a list is all "
                                        "labels [\"a\", \"b\"] or all numbers", i + 1);
        if (labels && parse_label(cfg, node, what, text, i, ps) < 0)
            return -EINVAL;
        if (!labels && pp_config_number(e, &ps->values[i]) < 0)
            return pp_config_node_error(cfg, node, what, "value %zu is not a number: a list is "
                                        "all numbers or all labels", i + 1);
        for (size_t k = 0; !labels && k < i; k++)
            if (ps->values[k] == ps->values[i])
                return pp_config_node_error(cfg, node, what, "value %zu (%g) is value %zu again: "
                                            "each configuration once (--repeat measures one "
                                            "again)", i + 1, ps->values[i], k + 1);
    }
    return 0;
}

static int parse_param(const pp_config *cfg, const pp_config_setting *node, const char *comp,
                       pp_param_spec *ps)
{
    const char *name = pp_config_name(node);
    char what[160], why[256] = "no name";

    pp_text(what, sizeof what, "%s.params.%s", comp, name ? name : "?");
    if (!name || bad_name(name, 0, why, sizeof why))
        return pp_config_node_error(cfg, node, what, "a bad parameter name: %s", why);
    if (pp_strlcpy(ps->name, name, sizeof ps->name) < 0) /* never: bad_name checked its length */
        return pp_config_node_error(cfg, node, what, "a parameter name too long");
    switch (pp_config_kind_of(node)) {
    case PP_CONFIG_NUMBER:
        ps->kind = PP_RANGE_FIXED;
        ps->n_values = 1;
        pp_config_number(node, &ps->values[0]);
        return 0;
    case PP_CONFIG_STRING:
        ps->kind = PP_RANGE_CATEGORICAL;
        ps->n_values = 1;
        return parse_label(cfg, node, what, pp_config_string(node), 0, ps);
    case PP_CONFIG_LIST:
        return parse_list(cfg, node, what, ps);
    case PP_CONFIG_GROUP:
        return parse_range(cfg, node, what, ps);
    default:
        return pp_config_node_error(cfg, node, what,
                                    "must be a number, a label, a list [a, b] or a range {from; "
                                    "to; step or factor}");
    }
}

static int has_param(const pp_component_spec *c, const char *name, size_t len)
{
    for (size_t i = 0; i < c->n_params; i++)
        if (strlen(c->params[i].name) == len && strncmp(c->params[i].name, name, len) == 0)
            return 1;
    return 0;
}

/* Every {placeholder} of a string setting names a parameter of the component. */
static int check_placeholders(const pp_config *cfg, const pp_config_setting *g,
                              const pp_component_spec *c, const pp_setting *st)
{
    for (size_t a = 0; a < st->n; a++) {
        const char *text = c->strings[st->first + a];
        for (const char *s = strchr(text, '{'); s; s = strchr(s + 1, '{')) {
            const char *end = strchr(s, '}');
            if (!end)
                return pp_config_error(cfg, g, st->key, "string %zu '%s': '{' without '}'", a + 1,
                                       text);
            if (!has_param(c, s + 1, (size_t)(end - s - 1)))
                return pp_config_error(cfg, g, st->key, "string %zu: {%.*s} is not a parameter "
                                       "of %s", a + 1, (int)(end - s - 1), s + 1, c->name);
        }
    }
    return 0;
}

/* One key the type declares, when given, into c->settings. */
static int parse_setting(const pp_config *cfg, const pp_config_setting *g, const pp_component_key *k,
                         pp_component_spec *c)
{
    const pp_config_setting *node = pp_config_member(g, k->name);
    const char *text[PP_COMPONENT_MAX_STRINGS];
    size_t n = 0;
    double number = 0;
    int rc;

    if (!node) {
        if (k->required)
            return pp_config_node_error(cfg, g, c->name, "needs %s (%s)", k->name,
                                        k->doc ? k->doc : "");
        return 0;
    }
    if (k->kind == PP_KEY_NUMBER && pp_config_number(node, &number) < 0)
        return pp_config_error(cfg, g, k->name, "must be a number");
    if (k->kind == PP_KEY_STRING && !(text[n++] = pp_config_string(node)))
        return pp_config_error(cfg, g, k->name, "must be a string");
    if (k->kind == PP_KEY_STRINGS) {
        if (pp_config_kind_of(node) != PP_CONFIG_LIST || pp_config_length(node) == 0)
            return pp_config_error(cfg, g, k->name, "must be a non-empty list [\"a\", ...]");
        for (; n < pp_config_length(node) && n < PP_COMPONENT_MAX_STRINGS; n++)
            if (!(text[n] = pp_config_string(pp_config_elem(node, n))))
                return pp_config_error(cfg, g, k->name, "element %zu is not a string", n + 1);
        if (!text[0][0])
            return pp_config_error(cfg, g, k->name, "the first element is empty");
    }
    for (size_t i = 0; k->choices && n == 1 && !strchr(text[0], '{'); i++) {
        if (!k->choices[i])
            return pp_config_error(cfg, g, k->name, "'%s' is not one of its choices", text[0]);
        if (strcmp(k->choices[i], text[0]) == 0)
            break;
    }
    rc = pp_component_spec_set(c, k->name, k->kind, text, n, number);
    if (rc == -ENOSPC || n < pp_config_length(node))
        return pp_config_error(cfg, g, k->name, "more than %d strings in one component",
                               PP_COMPONENT_MAX_STRINGS);
    if (rc < 0)
        return pp_config_error(cfg, g, k->name, "a string is longer than %d",
                               PP_COMPONENT_STRING_MAX - 1);
    return 0;
}

/* The type, its module loaded, and the keys this component may have. */
static int parse_type(const pp_config *cfg, const pp_config_setting *g, size_t index,
                      pp_component_spec *c)
{
    const char *allowed[32];
    char why[2048];
    size_t n = 0;
    int rc = pp_config_get_string(cfg, g, "type", c->type, sizeof c->type);

    if (rc != 0)
        return rc < 0 ? rc
                      : pp_config_node_error(cfg, g, "components", "element %zu has no type",
                                             index + 1);
    if (pp_component_lookup(c->type, &c->ops, why, sizeof why) < 0)
        return pp_config_error(cfg, g, "type", "%s", why);
    for (const char *const *k = pp_profile_component_keys; *k; k++)
        allowed[n++] = *k;
    for (const pp_component_key *k = c->ops->keys; k && k->name && n + 1 < 32; k++)
        allowed[n++] = k->name;
    allowed[n] = NULL;
    return pp_config_check_keys(cfg, g, allowed);
}

/* A parameter standing for a key with choices takes labels among them. */
static int check_choices(const pp_config *cfg, const pp_config_setting *node,
                         const pp_component_key *k, const pp_param_spec *ps)
{
    for (size_t v = 0; k->choices && v < ps->n_values; v++) {
        size_t i = 0;
        while (k->choices[i] && (ps->kind != PP_RANGE_CATEGORICAL ||
                                 strcmp(k->choices[i], ps->labels[v]) != 0))
            i++;
        if (!k->choices[i])
            return pp_config_node_error(cfg, node, ps->name, "value %zu is not one of its "
                                        "choices", v + 1);
    }
    return 0;
}

/* The type's keys, then the parameters; a parameter named like a string
 * key stands for it. */
static int parse_settings_params(const pp_config *cfg, const pp_config_setting *g,
                                 pp_component_spec *c)
{
    const pp_config_setting *node;
    int rc;

    for (const pp_component_key *k = c->ops->keys; k && k->name; k++)
        if ((rc = parse_setting(cfg, g, k, c)) < 0)
            return rc;
    node = pp_config_member(g, "params");
    if (node) {
        if (pp_config_kind_of(node) != PP_CONFIG_GROUP)
            return pp_config_error(cfg, g, "params", "must be a group { name = ...; }");
        c->n_params = pp_config_length(node);
        if (c->n_params > PP_PROFILE_MAX_PARAMS)
            return pp_config_error(cfg, g, "params", "more than %d parameters",
                                   PP_PROFILE_MAX_PARAMS);
        for (size_t i = 0; i < c->n_params; i++) {
            const pp_param_spec *ps = &c->params[i];
            const pp_component_key *k;
            if ((rc = parse_param(cfg, pp_config_elem(node, i), c->name, &c->params[i])) < 0)
                return rc;
            if (!(k = pp_component_key_find(c->ops, ps->name)))
                continue;
            if (k->kind != PP_KEY_STRING)
                return pp_config_node_error(cfg, pp_config_elem(node, i), ps->name,
                                            "%s is a setting of %s, not a parameter", ps->name,
                                            c->type);
            if (pp_component_setting(c, ps->name))
                return pp_config_node_error(cfg, pp_config_elem(node, i), ps->name,
                                            "given both as a setting and as a parameter");
            if ((rc = check_choices(cfg, pp_config_elem(node, i), k, ps)) < 0)
                return rc;
        }
    }
    for (size_t i = 0; i < c->n_settings; i++)
        if (c->settings[i].kind != PP_KEY_NUMBER &&
            (rc = check_placeholders(cfg, g, c, &c->settings[i])) < 0)
            return rc;
    return 0;
}

/* until, duration_s, iterations: how long the steps go on. */
static int parse_until(const pp_config *cfg, const pp_config_setting *g, pp_component_spec *c)
{
    char until[32] = "";
    double iterations = 0;
    int rc = pp_config_get_string(cfg, g, "until", until, sizeof until), has_duration,
        has_iterations;

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
    return 0;
}

/* Pacing that contradicts itself: fps and sleep_s both (as keys or
 * parameters, each given once), or either on a component that runs one
 * step to completion. The error names the line of the key at fault. */
static int check_pacing_conflicts(const pp_config *cfg, const pp_config_setting *g,
                                  const pp_component_spec *c)
{
    static const char *const keys[] = {"fps", "sleep_s"};
    const pp_config_setting *params = pp_config_member(g, "params"), *given[2];

    for (int i = 0; i < 2; i++) {
        const pp_config_setting *param = params ? pp_config_member(params, keys[i]) : NULL;
        given[i] = pp_config_member(g, keys[i]);
        if (given[i] && param)
            return pp_config_node_error(cfg, param, keys[i], "given both as a key and as a "
                                        "parameter: give one");
        if (!given[i])
            given[i] = param;
    }
    if (given[0] && given[1])
        return pp_config_node_error(cfg, given[1], "sleep_s", "fps and sleep_s both pace the "
                                    "steps: give one (fps starts a step every 1/fps s, deadline "
                                    "based; sleep_s pauses after each step)");
    for (int i = 0; i < 2; i++)
        if (given[i] && c->until == PP_UNTIL_COMPLETION)
            return pp_config_node_error(cfg, given[i], keys[i], "paces repeated steps, but %s "
                                        "runs one step to completion: give duration_s or "
                                        "iterations", c->name);
    return 0;
}

/* fps, sleep_s, timeout_s; fps and sleep_s parameters must be numbers >= 0. */
static int parse_pacing(const pp_config *cfg, const pp_config_setting *g, pp_component_spec *c)
{
    const pp_config_setting *params = pp_config_member(g, "params");

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
        const pp_config_setting *node = pp_config_member(params, ps->name);
        if (strcmp(ps->name, "fps") != 0 && strcmp(ps->name, "sleep_s") != 0)
            continue;
        if (ps->kind == PP_RANGE_CATEGORICAL)
            return pp_config_node_error(cfg, node, ps->name, "pacing values must be numbers");
        for (size_t k = 0; k < ps->n_values; k++)
            if (ps->values[k] < 0)
                return pp_config_node_error(cfg, node, ps->name,
                                            "pacing values must be >= 0 (got %g)", ps->values[k]);
    }
    return check_pacing_conflicts(cfg, g, c);
}

static int parse_component(const pp_config *cfg, const pp_config_setting *g, size_t index,
                           pp_component_spec *c)
{
    char why[256];
    int rc;

    if (pp_config_kind_of(g) != PP_CONFIG_GROUP)
        return pp_config_node_error(cfg, g, "components", "element %zu must be a group { ... }",
                                    index + 1);
    if ((rc = parse_type(cfg, g, index, c)) < 0)
        return rc;
    rc = pp_config_get_string(cfg, g, "name", c->name, sizeof c->name);
    if (rc < 0)
        return rc;
    if (rc == 1 && pp_strlcpy(c->name, c->type, sizeof c->name) < 0)
        return pp_config_error(cfg, g, "type", "'%.40s...': too long for a name", c->type);
    if (bad_name(c->name, 0, why, sizeof why))
        return pp_config_error(cfg, g, "name", "'%s': %s", c->name, why);
    if ((rc = parse_settings_params(cfg, g, c)) < 0 || (rc = parse_until(cfg, g, c)) < 0)
        return rc;
    return parse_pacing(cfg, g, c);
}

/* The name of a profile that gives none: its file's, to the first '.'; 0 or -ENAMETOOLONG. */
static int default_name(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    size_t len;

    base = base ? base + 1 : path;
    len = strcspn(base, ".");
    if (pp_fmt(out, cap, "%.*s", (int)len, base) < 0)
        return -ENAMETOOLONG;
    return out[0] ? 0 : pp_strlcpy(out, "profile", cap);
}

/* The group "profile" (optional). */
static int parse_profile_group(const pp_config *cfg, const pp_config_setting *root, pp_profile *p)
{
    const pp_config_setting *g = NULL;
    char mode[32] = "parallel", why[256];

    if (pp_config_get_group(cfg, root, "profile", &g) < 0)
        return -EINVAL;
    if (!g)
        return 0;
    if (pp_config_check_keys(cfg, g, profile_keys) < 0 ||
        pp_config_get_string(cfg, g, "name", p->name, sizeof p->name) < 0 ||
        pp_config_get_string(cfg, g, "device", p->device, sizeof p->device) < 0 ||
        pp_config_get_double(cfg, g, "rate_hz", &p->rate_hz) < 0 ||
        pp_config_get_double(cfg, g, "warmup_s", &p->warmup_s) < 0 ||
        pp_config_get_string(cfg, g, "mode", mode, sizeof mode) < 0 ||
        pp_config_get_string(cfg, g, "sysfs_root", p->sysfs_root, sizeof p->sysfs_root) < 0 ||
        pp_profile_parse_adaptive(cfg, g, &p->adaptive) < 0)
        return -EINVAL;
    if (bad_name(p->name, 1, why, sizeof why))
        return pp_config_error(cfg, g, "name", "'%s': %s", p->name, why);
    if (!(p->rate_hz >= 0.01 && p->rate_hz <= 10000))
        return pp_config_error(cfg, g, "rate_hz", "must be in [0.01, 10000] Hz (got %g)",
                               p->rate_hz);
    if (!(p->warmup_s >= 0 && p->warmup_s < 3600))
        return pp_config_error(cfg, g, "warmup_s", "must be in [0, 3600) s (got %g)",
                               p->warmup_s);
    if (strcmp(mode, "parallel") != 0 && strcmp(mode, "sequential") != 0)
        return pp_config_error(cfg, g, "mode", "'%s': \"parallel\" or \"sequential\"", mode);
    p->sequential = strcmp(mode, "sequential") == 0;
    return 0;
}

/* The group "mission" (optional: mission.h); the fields of the one-phase
 * form kept for `powprof run`. */
static int parse_mission(const pp_config *cfg, pp_profile *p)
{
    int rc = pp_mission_from_config(cfg, &p->mission);

    p->mission_s = p->mission_base_power_w = p->mission_min_soc = -1;
    if (rc != 0)
        return rc < 0 ? rc : 0;
    p->has_mission = 1;
    p->mission_s = pp_mission_duration_s(&p->mission);
    if (p->mission.shorthand)
        p->mission_base_power_w = p->mission.phase[0].base_power_w;
    p->mission_min_soc = p->mission.min_soc_frac;
    if (pp_strlcpy(p->mission_maximize, p->mission.maximize, sizeof p->mission_maximize) < 0)
        return -ENAMETOOLONG; /* never: the same size */
    return 0;
}

/* The list "components", each with a name of its own. */
static int parse_components(const pp_config *cfg, const pp_config_setting *root, pp_profile *p)
{
    const pp_config_setting *list = pp_config_member(root, "components");

    if (!list) {
        pp_log_error("%s: no components = ( { name = ...; type = ...; } ) list", p->path);
        return -EINVAL;
    }
    if (pp_config_kind_of(list) != PP_CONFIG_LIST || pp_config_length(list) == 0)
        return pp_config_node_error(cfg, list, "components",
                                    "must be a non-empty list ( { ... }, ... )");
    p->n_components = pp_config_length(list);
    if (p->n_components > PP_PROFILE_MAX_COMPONENTS)
        return pp_config_node_error(cfg, list, "components", "more than %d components",
                                    PP_PROFILE_MAX_COMPONENTS);
    for (size_t i = 0; i < p->n_components; i++) {
        if (parse_component(cfg, pp_config_elem(list, i), i, &p->components[i]) < 0)
            return -EINVAL;
        for (size_t k = 0; k < i; k++)
            if (strcmp(p->components[k].name, p->components[i].name) == 0)
                return pp_config_node_error(cfg, pp_config_elem(list, i), "name",
                                            "two components are called '%s'",
                                            p->components[i].name);
    }
    return 0;
}

int pp_profile_load(const char *path, pp_profile *p)
{
    pp_config *cfg;
    const pp_config_setting *root;
    char cut[PP_PROFILE_NAME_MAX] = "";
    int rc;

    memset(p, 0, sizeof *p);
    if (pp_path_copy(p->path, path, sizeof p->path) < 0)
        return -ENAMETOOLONG;
    if (default_name(path, p->name, sizeof p->name) < 0)
        memcpy(cut, p->name, sizeof cut);
    memcpy(p->device, "auto", sizeof "auto"); /* fits: 32 */
    p->rate_hz = 20.0;
    pp_battery_params_default(&p->battery);
    rc = pp_config_load(path, &cfg);
    if (rc < 0)
        return rc;
    root = pp_config_root(cfg);
    rc = -EINVAL;
    if (pp_config_check_keys(cfg, root, top_keys) < 0 || parse_profile_group(cfg, root, p) < 0)
        goto out;
    if (pp_battery_params_from_config(cfg, &p->battery) < 0)
        goto out;
    if (parse_mission(cfg, p) < 0 || parse_components(cfg, root, p) < 0 ||
        pp_profile_check_warmup(cfg, root, p->warmup_s, p->sequential, p->components,
                                p->n_components) < 0 ||
        pp_profile_parse_clocks(cfg, root, p->sysfs_root, parse_param, p->components,
                                p->n_components, &p->clocks) < 0)
        goto out;
    if (cut[0] && strcmp(p->name, cut) == 0) /* the name of the file, cut */
        pp_log_error("%s: a file's name longer than a profile's name (%d characters): give "
                     "profile.name", path, PP_PROFILE_NAME_MAX - 1);
    else
        rc = 0;
out:
    pp_config_free(cfg);
    return rc;
}

/* Parameter group g: the components' (g < n_components), then the clocks'
 * (profile_clocks.h) last. */
static size_t group_n(const pp_profile *p, size_t g)
{
    return g < p->n_components ? p->components[g].n_params : p->clocks.n_params;
}

static const pp_param_spec *group_param(const pp_profile *p, size_t g, size_t k)
{
    return g < p->n_components ? &p->components[g].params[k] : &p->clocks.params[k];
}

uint64_t pp_profile_count(const pp_profile *p)
{
    uint64_t n = 1;

    for (size_t c = 0; c <= p->n_components; c++)
        for (size_t k = 0; k < group_n(p, c); k++) {
            uint64_t v = group_param(p, c, k)->n_values;
            if (v && n > UINT64_MAX / v)
                return UINT64_MAX;
            n *= v;
        }
    return n;
}

size_t pp_profile_n_params(const pp_profile *p)
{
    size_t n = 0;

    for (size_t c = 0; c <= p->n_components; c++)
        n += group_n(p, c);
    return n;
}

void pp_profile_values(const pp_profile *p, uint64_t id, double *values)
{
    size_t n = pp_profile_n_params(p), k = n;

    for (size_t c = p->n_components + 1; c-- > 0;)
        for (size_t j = group_n(p, c); j-- > 0;) {
            const pp_param_spec *ps = group_param(p, c, j);
            values[--k] = ps->values[id % ps->n_values];
            id /= ps->n_values;
        }
}

void pp_profile_param_name(const pp_profile *p, size_t k, char *buf, size_t cap)
{
    for (size_t c = 0; c <= p->n_components; c++) {
        if (k < group_n(p, c)) {
            pp_text(buf, cap, "%s.%s", c < p->n_components ? p->components[c].name : "clocks",
                    group_param(p, c, k)->name);
            return;
        }
        k -= group_n(p, c);
    }
    pp_text(buf, cap, "?");
}

const pp_param_spec *pp_profile_param(const pp_profile *p, size_t k)
{
    for (size_t c = 0; c <= p->n_components; c++) {
        if (k < group_n(p, c))
            return group_param(p, c, k);
        k -= group_n(p, c);
    }
    return NULL;
}

const char *pp_profile_label(const pp_profile *p, size_t k, double v)
{
    const pp_param_spec *ps = pp_profile_param(p, k);

    if (!ps || ps->kind != PP_RANGE_CATEGORICAL || !(v >= 0 && v < (double)ps->n_values))
        return NULL;
    return ps->labels[(size_t)v];
}

void pp_profile_value_text(const pp_profile *p, size_t k, double v, char *buf, size_t cap)
{
    const char *label = pp_profile_label(p, k, v);

    if (label)
        pp_text(buf, cap, "%s", label);
    else
        pp_text(buf, cap, "%.10g", v);
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
