/* shard.h - which part of a sweep this process runs: shard K of N (K from 1
 * to N, as Slurm array ids 1-N and GNU parallel's job numbers count) runs
 * the configurations whose id % N == K - 1 (inside, k = K - 1: the
 * remainder; run.json's shard.k). K and N are given (--shard K/N; 0/N is
 * refused, saying that the first shard is 1/N) or
 * read from the environment of the launcher that started the process
 * (--shard auto, or auto/N): powprof links no MPI library and opens no
 * connection; it reads what the launchers set.
 *
 *   Slurm array job    SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, and
 *                      SLURM_ARRAY_TASK_MIN / _STEP when the ids do not
 *                      start at 0 or step by 1: K = (ID - MIN) / STEP
 *   Open MPI           OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
 *   PMIx, PMI          PMIX_RANK (its size: OMPI_COMM_WORLD_SIZE, else
 *                      SLURM_STEP_NUM_TASKS / SLURM_NTASKS, else auto/N);
 *                      PMI_RANK, PMI_SIZE (MPICH's Hydra)
 *   GNU parallel       PARALLEL_SEQ (1, 2, ...): K = PARALLEL_SEQ - 1; it
 *                      says nothing of the job count, so N must be given
 *                      (auto/N)
 *
 * Launchers nest, outermost first: a Slurm array task that runs mpirun, or
 * GNU parallel, splits its share again (K = K_outer * N_inner + K_inner, N
 * the product). With auto/N, N must be the product (GNU parallel's share
 * is N over the others'). Anything inconsistent (a rank beyond its size,
 * two rank variables that disagree, an array id outside the array, N that
 * does not match) is an error that names the variables and their values.
 */
#ifndef PP_SHARD_H
#define PP_SHARD_H

#include <stddef.h>
#include <stdint.h>

typedef struct pp_shard {
    uint64_t k, n;      /* n 1: the whole sweep */
    char from[160];     /* where K/N came from, for run.json and messages:
                           "--shard", "SLURM_ARRAY_TASK_ID", "OMPI_COMM_WORLD_RANK",
                           joined with " x " when nested; "" for the whole sweep */
} pp_shard;

/* The whole sweep: 0 of 1. */
void pp_shard_all(pp_shard *s);

/* Parse spec ("K/N", "auto" or "auto/N") against the environment envp (a
 * NULL-ended list of NAME=VALUE; NULL: this process's environ). 0, or
 * -EINVAL with the reason logged. */
int pp_shard_parse(const char *spec, char *const *envp, pp_shard *s);

/* K as a person writes it, 1 .. N (the folder names, {shard}, messages). */
static inline uint64_t pp_shard_number(const pp_shard *s)
{
    return s->k + 1;
}

/* 1 when configuration id belongs to shard s. */
static inline int pp_shard_has(const pp_shard *s, uint64_t id)
{
    return s->n <= 1 || id % s->n == s->k;
}

/* How many of total ids shard s has. */
uint64_t pp_shard_count(const pp_shard *s, uint64_t total);

#endif
