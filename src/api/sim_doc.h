/* sim_doc.h - govern --simulate's answer: the flight flown in virtual
 * time (static, governed, oracle), its document, words and plot. */
#ifndef PP_SIM_DOC_H
#define PP_SIM_DOC_H

#include "governor_doc.h"

/* The pack flown when actual is a flight log (a PX4 .ulg or ulog2csv's
 * battery_status CSV): a thevenin pack fitted from it (battery fit's
 * call, its defaults) into *pack, *capacity_held set when the log covers
 * too little of the charge to fit the capacity. 1 (fitted), 0 (actual is
 * "planned" or a trace: no pack of its own), or -EINVAL (logged). */
int pp_sim_pack(const char *actual, pp_battery_params *pack, int *capacity_held);

/* Plan r (feasible) flown in virtual time (governor_sim.h) against the
 * actual propulsion: "planned" (the phases' own base loads) or a trace,
 * times scale_f from scale_t_s on, with o (o->pack: pp_sim_pack's), into
 * s (free it with pp_sim_result_free). 0, -EINVAL (logged), -ENOMEM. */
int pp_sim_simulate(const pp_phases_plan *r, const char *actual, double scale_t_s, double scale_f,
               const pp_sim_options *o, pp_sim_result *s);

/* s as `govern --simulate --json` prints it: what was asked, the mission,
 * then static, governed and oracle {flown, soc_end, soc_min,
 * reserve_held, floors_held, quality, changes, cannot, brownout, the
 * times, timeline} and quality_vs_oracle. A new reference. */
json_t *pp_sim_json(const pp_phases_plan *r, const pp_sim_result *s, const char *actual,
                    double scale_t_s, double scale_f, const pp_sim_options *o);

/* The same side by side in words (m: the parameter maximized's name). */
void pp_sim_text(FILE *fp, const pp_model *m, const pp_phases_plan *r, const pp_sim_result *s,
                 const pp_sim_options *o);

/* The charge and the setting over time of the three runs plotted in dir
 * (plots/plot_governor.h) into *pr (free it with pp_plot_result_free). */
int pp_sim_plot(const char *dir, const pp_model *m, const pp_phases_plan *r, const pp_sim_result *s,
                pp_plot_result *pr);

#endif
