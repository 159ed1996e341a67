/* summary_unique.h - a summary read as layer 2 reads it: a configuration measured
 * twice (two writers at once) refused. */
#ifndef PP_SUMMARY_UNIQUE_H
#define PP_SUMMARY_UNIQUE_H

#include "summary.h"

/* pp_summary_read, refusing two rows with status ok of one (id, node,
 * repeat) (logged with both lines): what layer 2 reads. 0, -EINVAL or
 * -ENOMEM (s then empty). */
int pp_summary_read_unique(const char *dir, pp_summary *s);

#endif
