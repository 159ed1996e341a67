/* flight_fit_doc.h - a battery fit (src/flight/flight_fit.h) as a
 * document and a pack file: the JSON of `battery fit --json`, the C API and
 * Python's fit_battery, and the battery group written. Here in src/results,
 * not beside the fit: it writes with json_file (src/results), which comes
 * after src/flight.
 */
#ifndef PP_FLIGHT_FIT_DOC_H
#define PP_FLIGHT_FIT_DOC_H

#include "src/flight/flight_fit.h"

#include <jansson.h>
#include <stdio.h>

/* The name of the pack a fit replaces: config's, preset's, else "battery
 * LOG's" (the one `battery LOG` uses). */
const char *pp_flight_fit_replaces(const char *config, const char *preset);

/* r as `battery fit --json` prints it (replaces: the pack replaced's name;
 * output: the pack file written, NULL none). NULL on no memory. */
json_t *pp_flight_fit_json(const pp_flight_fit *r, const char *replaces, const char *output);

/* r as `battery fit` prints it, on fp: the pack with its +-, each flight's
 * held-out check beside the pack replaced (before: its name), the
 * warnings (train_s: the fitted parts were given in seconds). */
void pp_flight_fit_print(FILE *fp, const pp_flight_fit *r, const char *before, int train_s);

/* Write r's pack to path as a battery group (its soc_start 1, the logs and
 * figures as a comment). Refused where pp_flight_fit_refusal says why, unless
 * force: -EPERM, logged ("PATH not written: WHY; --force ..."). 0, -EINVAL,
 * -EIO, -ENOMEM (logged). */
int pp_flight_fit_write(const pp_flight_fit *r, const char *replaces, const char *path, int force);

#endif
