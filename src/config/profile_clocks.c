/* profile_clocks.c - the clocks of a profile (profile_clocks.h). */
#include "profile_clocks.h"

#include "devices/clocks.h"
#include "devices/nvpmodel.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const clock_keys[] = {"cpu_mhz", "gpu_mhz", "emc_mhz", "nvpmodel",
                                         "nvpmodel_command", NULL};

/* "available": the board's table of domain sets (or its modes). */
static int fill_available(const pp_config *cfg, const pp_config_setting *node, const char *root,
                          int sets, pp_param_spec *ps)
{
    pp_nvpmodel_mode modes[PP_NVPMODEL_MAX_MODES];
    pp_clocks *c;
    const pp_clock_domain *d;
    int n;

    ps->kind = PP_RANGE_LIST;
    if (sets == PP_PROFILE_NVPMODEL) {
        if ((n = pp_nvpmodel_modes(root, modes, PP_NVPMODEL_MAX_MODES)) <= 0)
            return pp_config_node_error(cfg, node, "clocks.nvpmodel", "\"available\": no mode "
                                        "in %s under %s", PP_NVPMODEL_CONF, root ? root : "/");
        for (int i = 0; i < n; i++)
            ps->values[i] = modes[i].id;
        ps->n_values = (size_t)n;
        return 0;
    }
    if (!(c = malloc(sizeof *c)))
        return -ENOMEM;
    d = &c->dom[sets];
    n = pp_clocks_probe(root, c) == 0 && d->present && d->n_freqs > 0;
    for (size_t i = 0; n && i < d->n_freqs; i++)
        ps->values[i] = d->freqs_mhz[i];
    ps->n_values = n ? d->n_freqs : 0;
    free(c);
    if (!n)
        return pp_config_node_error(cfg, node, clock_keys[sets], "\"available\": this machine "
                                    "(root %s) has no table of %s frequencies",
                                    root && *root ? root : "/", pp_clock_kind_name((pp_clock_kind)sets));
    return 0;
}

/* Every value of ps fits what it sets: above 0 MHz, a mode >= 0 whole. */
static int check_values(const pp_config *cfg, const pp_config_setting *node, int sets,
                        const pp_param_spec *ps)
{
    if (ps->kind == PP_RANGE_CATEGORICAL)
        return pp_config_node_error(cfg, node, clock_keys[sets], "a number, a list of numbers, a "
                                    "range or \"available\" (not a label)");
    for (size_t i = 0; i < ps->n_values; i++) {
        double v = ps->values[i];
        if (sets == PP_PROFILE_NVPMODEL && !(v >= 0 && v == floor(v) && v < 1000))
            return pp_config_node_error(cfg, node, "nvpmodel", "%g is not a power mode (a whole "
                                        "number >= 0, as nvpmodel -m takes)", v);
        if (sets != PP_PROFILE_NVPMODEL && !(v > 0 && v < 1e6))
            return pp_config_node_error(cfg, node, clock_keys[sets], "%g MHz is not a frequency",
                                        v);
    }
    return 0;
}

static int parse_one(const pp_config *cfg, const pp_config_setting *node, const char *root,
                     pp_profile_param_parser parse, int sets, pp_profile_clocks *out)
{
    pp_param_spec *ps = &out->params[out->n_params];
    const char *text = pp_config_string(node);
    int rc;

    if (text && strcmp(text, "available") == 0)
        rc = fill_available(cfg, node, root, sets, ps);
    else
        rc = parse(cfg, node, "clocks", ps);
    if (rc < 0 || (rc = check_values(cfg, node, sets, ps)) < 0)
        return rc;
    if (pp_strlcpy(ps->name, clock_keys[sets], sizeof ps->name) < 0)
        return -ENAMETOOLONG; /* never: the keys are short */
    out->sets[out->n_params++] = sets;
    return 0;
}

int pp_profile_parse_clocks(const pp_config *cfg, const pp_config_setting *root,
                            const char *sysfs_root, pp_profile_param_parser parse,
                            const pp_component_spec *comps, size_t n, pp_profile_clocks *out)
{
    const pp_config_setting *g = NULL, *top = pp_config_member(root, "nvpmodel");
    int rc;

    memset(out, 0, sizeof *out);
    if (pp_strlcpy(out->nvpmodel_command, PP_NVPMODEL_COMMAND, sizeof out->nvpmodel_command) < 0)
        return -ENAMETOOLONG; /* never: a path of PP_PATH_MAX */
    if (pp_config_get_group(cfg, root, "clocks", &g) < 0 ||
        (g && (pp_config_check_keys(cfg, g, clock_keys) < 0 ||
               pp_config_get_string(cfg, g, "nvpmodel_command", out->nvpmodel_command,
                                    sizeof out->nvpmodel_command) < 0)))
        return -EINVAL;
    if (out->nvpmodel_command[0] != '/')
        return pp_config_error(cfg, g, "nvpmodel_command", "'%s': an absolute path",
                               out->nvpmodel_command);
    for (int sets = 0; sets < PP_PROFILE_CLOCK_PARAMS; sets++) {
        const pp_config_setting *node = g ? pp_config_member(g, clock_keys[sets]) : NULL;
        if (sets == PP_PROFILE_NVPMODEL && top && node)
            return pp_config_node_error(cfg, top, "nvpmodel", "given twice: at the top and in "
                                        "clocks = { ... }");
        if (sets == PP_PROFILE_NVPMODEL && top)
            node = top;
        if (node && (rc = parse_one(cfg, node, sysfs_root, parse, sets, out)) < 0)
            return rc;
    }
    for (size_t c = 0; out->n_params && c < n; c++)
        if (strcmp(comps[c].name, "clocks") == 0)
            return pp_config_error(cfg, g ? g : root, g ? NULL : "nvpmodel", "a component is "
                                   "called 'clocks' too: its parameters would be named as "
                                   "these (clocks.<name>); rename it");
    return 0;
}
