/* devices_doc.h - what `powprof devices` answers: the power sources and
 * the clocks of this machine, as one document each (--json) or in words.
 *
 * Sources: {sources: [{name, status (present, absent, unusable, error),
 * summary, reason (null when present), rails [{name, power_w, estimated,
 * board_input, inside}], total_w (present only)}], auto (the source
 * '-d auto' picks, null: none)}; one reading of each present source's
 * rails (a mean over 250 ms for a source that needs an interval). An
 * ODROID's INA231 sensors that are off are switched on, as for any
 * measurement (said on stderr).
 *
 * Clocks: {clocks: [{clock, present, name, governor, now_mhz,
 * available_mhz, min_mhz, max_mhz, method, writable, needs}],
 * nvpmodel_modes: [{id, name}]}: per CPU, GPU and memory-controller
 * clock how powprof sets it and whether this user may.
 */
#ifndef PP_API_DEVICES_DOC_H
#define PP_API_DEVICES_DOC_H

#include "devices/device.h"

#include <jansson.h>
#include <stdio.h>

/* The power sources with options o: the document (a new reference, NULL
 * without memory), or in words on fp. */
json_t *pp_devices_doc(const pp_device_options *o);
void pp_devices_text(const pp_device_options *o, FILE *fp);

/* The clock domains and power modes under root (NULL: /): the document
 * into *doc (a new reference), or with doc NULL in words on fp. 0, or
 * -errno when the tree cannot be read (logged). */
int pp_clocks_doc(const char *root, json_t **doc, FILE *fp);

#endif
