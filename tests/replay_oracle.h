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
#include "src/adaptive/adaptive_model.h"

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

/* A replayed adaptive run: the grid, its replay, the model (open after
 * the run, so its predict answers for the candidates left) and the
 * result. */
typedef struct pp_replayed {
    pp_adaptive_space s;
    pp_replay rp;
    pp_adaptive_model am;
    pp_adaptive_predictor pr;
    pp_adaptive_oracle orc;
    pp_adaptive_result res;
} pp_replayed;

/* Replays the grid of full into dir with options o (r zeroed first):
 * pp_replay_open's error, else pp_adaptive_run's return. */
int pp_replay_run(pp_replayed *r, const char *full, const char *dir,
                  const pp_adaptive_options *o);
void pp_replayed_free(pp_replayed *r);

#endif
