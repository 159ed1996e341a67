/* governor_load.h - the base loads the governor (governor.h) re-plans on:
 * a phase's load in bins, and the rest of one from the time reached. */
#ifndef PP_GOVERNOR_LOAD_H
#define PP_GOVERNOR_LOAD_H

#include "src/plan/phase_load.h"

/* l's mean over bins of PP_GOV_BIN_S (the last one shorter), at the bins'
 * middles, and at 0 and duration_s the first's and the last's: into c
 * (malloc'd). 0 or -ENOMEM. */
int pp_gov_coarsen(const pp_phase_load *l, double duration_s, pp_phase_load *c);

/* src from from_s over duration_s, its times from 0, into l (freed first,
 * then malloc'd). 0 or -ENOMEM. */
int pp_gov_cut_load(const pp_phase_load *src, double from_s, double duration_s, pp_phase_load *l);

#endif
