/* json_file.c - JSON numbers and atomic JSON files (json_file.h). */
#include "json_file.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <string.h>

json_t *pp_json_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

int pp_json_save(const char *path, const json_t *root, size_t flags)
{
    pp_atomic_file af;
    int rc = pp_atomic_file_open(&af, path); /* says why when it fails */

    errno = 0;
    if (rc == 0 && (json_dumpf(root, af.fp, flags) != 0 || fputc('\n', af.fp) == EOF)) {
        rc = errno ? -errno : -EIO; /* the write's reason (a full disk: ENOSPC) */
        pp_atomic_file_abort(&af);
        pp_log_error("%s: cannot write: %s", path, strerror(-rc));
    } else if (rc == 0) {
        rc = pp_atomic_file_commit(&af); /* says why when it fails */
    }
    return rc;
}
