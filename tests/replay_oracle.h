/* replay_oracle.h - an adaptive run against a grid measured once (issue 21):
 * the candidates are the configurations of a full results folder (its
 * rows with status ok), and the oracle answers a configuration with its
 * recorded rows (every repeat and node of it) and trace, appended to the
 * adaptive run's folder as a live sweep would have. So the method is
 * evaluated on full grids (the TX2 sets, sweeps measured on this machine)
 * without a device, and the same seed replays the same choices.
 */
#ifndef PP_REPLAY_ORACLE_H
#define PP_REPLAY_ORACLE_H

#include "src/adaptive/adaptive.h"

typedef struct pp_replay {
    char full_dir[PP_PATH_MAX];
    char *header;      /* summary.csv's first line, with its newline */
    char **rows;       /* per candidate: its rows of summary.csv, newlines included */
    size_t n;
    size_t measured;   /* configurations answered (rows appended) so far */
} pp_replay;

/* The grid of full_dir into s (finished) and rp. 0, -EINVAL (logged: no
 * summary.csv, no parameter, no row ok) or -ENOMEM. */
int pp_replay_open(const char *full_dir, pp_replay *rp, pp_adaptive_space *s);
void pp_replay_free(pp_replay *rp);

/* The oracle: ctx is a pp_replay. */
int pp_replay_measure(void *ctx, const pp_adaptive_space *s, const size_t *cands, size_t n,
                      const char *dir);

#endif
