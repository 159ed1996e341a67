/* derived.h - the metrics the battery model derives from power
 * (time_to_cutoff_s, soc_drain, soc_end) predicted through it (derived.c),
 * not by a surface of their own: a surface fitted to them extrapolated
 * 6,169 s with a band of 319 .. 6,873 s where the pack and the predicted
 * 16.1 W give 8,460 s (issue 45). */
#ifndef PP_PLAN_DERIVED_H
#define PP_PLAN_DERIVED_H

#include "src/layer2/model.h"

/* Read dir/run.json's battery into m (m->has_battery) when it records one:
 * 1 read, 0 none, -EINVAL (logged). */
int pp_model_read_battery(pp_model *m, const char *dir);

/* The prediction of metric k at pt: for time_to_cutoff_s, soc_drain and
 * soc_end with m->has_battery, the battery under the predicted total power
 * (its band's ends give the band's, its typical error theirs) and the
 * predicted duration; else pp_model_predict's. 0 or -errno as it. */
int pp_model_predict_derived(const pp_model *m, size_t k, const pp_model_point *pt,
                             pp_prediction *p);

#endif
