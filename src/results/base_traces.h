/* base_traces.h - the base traces of a results folder's mission, as the
 * run resolved them. A results folder keeps a copy of its profile
 * (profile.cfg); a phase's relative base_trace ("flight") is taken from the
 * original file's folder, which the copy is not in. So when the results
 * are written, each phase's trace is recorded in DIR/base_traces.json: its
 * absolute path and a hash of its content (FNV-1a 64), and a plan of the
 * folder's own mission reads the recorded trace, warning when its content
 * changed since. */
#ifndef PP_RESULTS_BASE_TRACES_H
#define PP_RESULTS_BASE_TRACES_H

#include "src/config/mission.h"

#define PP_BASE_TRACES_FILE "base_traces.json"

/* Record the base traces of config_path's mission (none: nothing written)
 * into dir/base_traces.json. 0, or -errno (logged with the file and the
 * reason; the results stay valid: a plan then says the trace is not found). */
int pp_results_base_traces_record(const char *dir, const char *config_path);

/* When the folder of cfg_path (m's file, a results folder's profile.cfg)
 * has base_traces.json, each recorded phase's base_trace becomes the
 * recorded path. 0 (also without a record), or -EINVAL (logged: a record
 * that does not parse, a recorded trace that is gone). A trace whose
 * content changed since is read with a warning. */
int pp_results_base_traces_apply(const char *cfg_path, pp_mission_spec *m);

#endif
