/* mission_settings.c - which mission settings win (mission_settings.h). */
#include "mission_settings.h"

#include "config.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <unistd.h>

void pp_mission_settings_init(pp_mission_settings *m)
{
    *m = (pp_mission_settings){.mission_s = -1, .min_soc_frac = -1, .base_power_w = -1};
}

void pp_mission_settings_choice(const pp_mission_settings *m, pp_battery_choice *c)
{
    pp_battery_choice_init(c);
    c->file = m->config;
    c->base_given = m->base_power_w >= 0;
    c->base_power_w = m->base_power_w;
    c->min_soc_frac = m->min_soc_frac;
}

int pp_mission_settings_battery(const pp_mission_settings *m, pp_battery_params *b)
{
    pp_battery_choice c;

    pp_mission_settings_choice(m, &c);
    return pp_battery_choose(&c, b) < 0 ? -1 : 0;
}

/* Member key of the mission group g into *out when there and *out is
 * not given (< 0); 1 when taken, 0 when not, -1 when bad. */
static int folder_number(const pp_config *cfg, const pp_config_setting *g, const char *key,
                         double *out)
{
    double v;

    if (*out >= 0 || !g || !pp_config_member(g, key))
        return 0;
    if (pp_config_get_double(cfg, g, key, &v) < 0)
        return -1;
    *out = v;
    return 1;
}

int pp_mission_settings_from_results(pp_mission_settings *m, const char *dir)
{
    const pp_config_setting *g = NULL;
    pp_config *cfg;
    int rc = 0;

    if (pp_fmt(m->folder_cfg, sizeof m->folder_cfg, "%s/profile.cfg", dir) < 0) {
        pp_log_error("%.80s...: a results folder's path too long (at most %d characters)", dir,
                     PP_PATH_MAX - 20);
        m->folder_cfg[0] = '\0';
        return -1;
    }
    if (access(m->folder_cfg, F_OK) != 0) {
        m->folder_cfg[0] = '\0';
        return 0;
    }
    if (pp_config_load(m->folder_cfg, &cfg) < 0)
        return -1;
    if (!m->config) {
        m->config = m->folder_cfg;
        m->battery_from_folder = 1;
    }
    if (pp_config_get_group(cfg, pp_config_root(cfg), "mission", &g) < 0)
        rc = -1;
    else if (g && pp_config_member(g, "phases"))
        m->folder_phases = 1;
    else if (folder_number(cfg, g, "duration_s", &m->mission_s) < 0 ||
             folder_number(cfg, g, "min_soc", &m->min_soc_frac) < 0 ||
             (m->base_from_folder = folder_number(cfg, g, "base_power_w", &m->base_power_w)) < 0 ||
             (g && pp_config_get_string(cfg, g, "maximize", m->maximize, sizeof m->maximize) < 0))
        rc = -1;
    pp_config_free(cfg);
    return rc;
}
