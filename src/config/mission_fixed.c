/* The mission group's top-level `fixed` (mission_fixed.h). */
#include "mission_fixed.h"

#include "src/base/util.h"

#include <errno.h>
#include <string.h>

/* One element "NAME=VALUE" into f. 0 or -EINVAL (logged: file:line). */
static int one(const pp_config *cfg, const pp_config_setting *e, pp_mission_fixed *f)
{
    const char *text = pp_config_string(e), *eq = text ? strchr(text, '=') : NULL;

    if (!text)
        return pp_config_node_error(cfg, e, "mission.fixed", "\"NAME=VALUE\" strings expected "
                                    "(an element is not a string)");
    if (!eq || eq == text || !eq[1])
        return pp_config_node_error(cfg, e, "mission.fixed", "\"NAME=VALUE\" expected (got "
                                    "\"%s\")", text);
    if (pp_fmt(f->name, sizeof f->name, "%.*s", (int)(eq - text), text) < 0 ||
        pp_fmt(f->value, sizeof f->value, "%s", eq + 1) < 0)
        return pp_config_node_error(cfg, e, "mission.fixed", "\"%s\" is too long", text);
    f->line = pp_config_line(e);
    return 0;
}

int pp_mission_fixed_from_config(const pp_config *cfg, const pp_config_setting *g,
                                 pp_mission_fixed *out, size_t *n)
{
    const pp_config_setting *list = pp_config_member(g, "fixed");

    *n = 0;
    if (!list)
        return 0;
    if (pp_config_kind_of(list) != PP_CONFIG_LIST)
        return pp_config_node_error(cfg, list, "mission.fixed",
                                    "a list [\"NAME=VALUE\", ...] expected");
    if (pp_config_length(list) > PP_MISSION_MAX_FIXED)
        return pp_config_node_error(cfg, list, "mission.fixed", "at most %d parameters",
                                    PP_MISSION_MAX_FIXED);
    for (size_t i = 0; i < pp_config_length(list); i++) {
        if (one(cfg, pp_config_elem(list, i), &out[i]) < 0)
            return -EINVAL;
        for (size_t j = 0; j < i; j++)
            if (strcmp(out[j].name, out[i].name) == 0)
                return pp_config_node_error(cfg, pp_config_elem(list, i), "mission.fixed",
                                            "%s is fixed twice", out[i].name);
        *n = i + 1;
    }
    return 0;
}
