/* sweep_resume.h - --resume: which measurements an existing summary.csv
 * already holds (sweep.h), for sweep.c. Calls the results' files; nothing
 * of the sweep. */
#ifndef PP_SWEEP_RESUME_H
#define PP_SWEEP_RESUME_H

#include "src/config/shard.h"

#include <stddef.h>
#include <stdint.h>

/* The measurements of a sweep: slot rep * count + id is repeat rep of
 * configuration id. */
typedef struct pp_sweep_slots {
    uint64_t count;       /* configurations of the profile */
    unsigned repeats;
    const pp_shard *shard;
    const char *node;
} pp_sweep_slots;

/* Mark the measurements of the whole rows of the summary at path done
 * (done[slot] = 1). header is the summary's first line as this sweep
 * writes it, status_col the index of its status column. A torn last line
 * is dropped, and with retry_failed the rows whose status is not ok (they
 * run again); the file is then rewritten without them. A missing file
 * marks nothing. 0, or -EINVAL (logged) when the header or a row is not
 * this sweep's (another profile, shard or node), or -errno. */
int pp_sweep_read_done(const char *path, const char *header, size_t status_col, int retry_failed,
                       uint8_t *done, const pp_sweep_slots *sl);

#endif
