#include "shard.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <string.h>

extern char **environ;

#define MAX_SHARDS 1000000

void pp_shard_all(pp_shard *s)
{
    s->k = 0;
    s->n = 1;
    s->from[0] = '\0';
}

uint64_t pp_shard_count(const pp_shard *s, uint64_t total)
{
    if (s->n <= 1)
        return total;
    return total / s->n + (total % s->n > s->k);
}

/* The value of name in envp, or NULL. */
static const char *env_get(char *const *envp, const char *name)
{
    size_t len = strlen(name);

    for (; envp && *envp; envp++)
        if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=')
            return *envp + len + 1;
    return NULL;
}

/* Variable name as a whole number in [lo, MAX_SHARDS * 1000]: 1 read,
 * 0 unset, -EINVAL (logged) not a number. */
static int env_number(char *const *envp, const char *name, int64_t lo, int64_t *v)
{
    const char *text = env_get(envp, name);

    if (!text)
        return 0;
    if (pp_parse_int64(text, v) < 0 || *v < lo || *v > (int64_t)MAX_SHARDS * 1000) {
        pp_log_error("--shard auto: %s='%s' is not a whole number >= %lld", name, text,
                     (long long)lo);
        return -EINVAL;
    }
    return 1;
}

/* One launcher's share: K of N, said to come from what. */
typedef struct level {
    int64_t k, n;
    const char *what;
} level;

/* A Slurm array task: 1 found, 0 none, -EINVAL. */
static int slurm_array(char *const *envp, level *l)
{
    int64_t id, count, min = 0, step = 1;
    int rc = env_number(envp, "SLURM_ARRAY_TASK_ID", 0, &id);

    if (rc <= 0)
        return rc;
    if ((rc = env_number(envp, "SLURM_ARRAY_TASK_COUNT", 1, &count)) <= 0) {
        if (rc == 0)
            pp_log_error("--shard auto: SLURM_ARRAY_TASK_ID=%lld is set but not "
                         "SLURM_ARRAY_TASK_COUNT: give --shard K/N", (long long)id);
        return -EINVAL;
    }
    if (env_number(envp, "SLURM_ARRAY_TASK_MIN", 0, &min) < 0 ||
        env_number(envp, "SLURM_ARRAY_TASK_STEP", 1, &step) < 0)
        return -EINVAL;
    if (id < min || (id - min) % step != 0 || (id - min) / step >= count) {
        pp_log_error("--shard auto: SLURM_ARRAY_TASK_ID=%lld is not one of the %lld tasks from "
                     "SLURM_ARRAY_TASK_MIN=%lld by SLURM_ARRAY_TASK_STEP=%lld (an array of ids "
                     "that is not a range: submit with --array=0-%lld, or give --shard K/N)",
                     (long long)id, (long long)count, (long long)min, (long long)step,
                     (long long)count - 1);
        return -EINVAL;
    }
    *l = (level){(id - min) / step, count, "SLURM_ARRAY_TASK_ID"};
    return 1;
}

/* The size that goes with PMIX_RANK: 1 found, 0 none, -EINVAL. */
static int pmix_size(char *const *envp, int64_t *n, const char **from)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS",
                                        "SLURM_NTASKS"};
    for (size_t i = 0; i < PP_ARRAY_SIZE(names); i++) {
        int rc = env_number(envp, names[i], 1, n);
        if (rc != 0) {
            *from = names[i];
            return rc;
        }
    }
    return 0;
}

/* An MPI launcher's rank: 1 found, 0 none, -EINVAL. n_given: the N of
 * auto/N (0: none), the size of last resort for PMIX_RANK. */
static int mpi_rank(char *const *envp, int64_t n_given, level *l)
{
    int64_t ompi = -1, pmix = -1, pmi = -1, n = 0, pmi_n = 0;
    const char *size_from = "auto/N";
    int rc = 0;

    if (env_number(envp, "OMPI_COMM_WORLD_RANK", 0, &ompi) < 0 ||
        env_number(envp, "PMIX_RANK", 0, &pmix) < 0 || env_number(envp, "PMI_RANK", 0, &pmi) < 0 ||
        env_number(envp, "PMI_SIZE", 1, &pmi_n) < 0 || (rc = pmix_size(envp, &n, &size_from)) < 0)
        return -EINVAL;
    if (ompi >= 0 && pmix >= 0 && ompi != pmix) {
        pp_log_error("--shard auto: OMPI_COMM_WORLD_RANK=%lld and PMIX_RANK=%lld disagree",
                     (long long)ompi, (long long)pmix);
        return -EINVAL;
    }
    if (ompi >= 0 || pmix >= 0)
        *l = (level){ompi >= 0 ? ompi : pmix, rc ? n : n_given,
                     ompi >= 0 ? "OMPI_COMM_WORLD_RANK" : "PMIX_RANK"};
    else if (pmi >= 0)
        *l = (level){pmi, pmi_n ? pmi_n : n_given, "PMI_RANK"};
    else
        return 0;
    if (pmi >= 0 && ompi < 0 && pmix < 0)
        size_from = pmi_n ? "PMI_SIZE" : "auto/N";
    if (l->n == 0) {
        pp_log_error("--shard auto: %s=%lld is set but not the job's size (OMPI_COMM_WORLD_SIZE, "
                     "PMI_SIZE, SLURM_NTASKS): give --shard auto/N", l->what, (long long)l->k);
        return -EINVAL;
    }
    if (l->k >= l->n) {
        pp_log_error("--shard auto: %s=%lld is not below the job's size %s=%lld", l->what,
                     (long long)l->k, size_from, (long long)l->n);
        return -EINVAL;
    }
    return 1;
}

/* "K/N" or "/N" (after auto): the numbers; -EINVAL (logged). */
static int parse_k_n(const char *spec, const char *text, int64_t *k, int64_t *n)
{
    const char *slash = strchr(text, '/');
    char kbuf[32];

    if (!slash || pp_fmt(kbuf, sizeof kbuf, "%.*s", (int)(slash - text), text) < 0 ||
        pp_parse_int64(slash + 1, n) < 0 || *n < 1 || *n > MAX_SHARDS ||
        (k && (pp_parse_int64(kbuf, k) < 0 || *k < 1 || *k > *n)) || (!k && kbuf[0])) {
        if (k && pp_parse_int64(kbuf, k) == 0 && *k == 0 && *n >= 1 && *n <= MAX_SHARDS)
            pp_log_error("--shard %s: K counts from 1 (1/%lld .. %lld/%lld, as Slurm array ids "
                         "1-N and GNU parallel's job numbers): the first shard is 1/%lld", spec,
                         (long long)*n, (long long)*n, (long long)*n, (long long)*n);
        else
            pp_log_error("--shard %s: K/N (1 <= K <= N <= %d), auto or auto/N expected", spec,
                         MAX_SHARDS);
        return -EINVAL;
    }
    return 0;
}

/* The launchers' levels, outermost first, into s; n_given the N of auto/N
 * (0: none). */
static int from_environment(const char *spec, char *const *envp, int64_t n_given, pp_shard *s)
{
    level lv[3];
    size_t nl = 0;
    int64_t seq, n_outer = 1;
    int rc;

    if ((rc = slurm_array(envp, &lv[nl])) < 0)
        return rc;
    nl += (size_t)rc;
    if ((rc = mpi_rank(envp, n_given, &lv[nl])) < 0)
        return rc;
    nl += (size_t)rc;
    for (size_t i = 0; i < nl; i++)
        n_outer *= lv[i].n;
    if ((rc = env_number(envp, "PARALLEL_SEQ", 1, &seq)) < 0)
        return rc;
    if (rc == 1) {
        if (n_given == 0 || n_given % n_outer != 0 || seq > n_given / n_outer) {
            if (n_given == 0)
                pp_log_error("--shard auto: GNU parallel's PARALLEL_SEQ=%lld says which job this "
                             "is but not how many: give --shard auto/N", (long long)seq);
            else
                pp_log_error("--shard %s: PARALLEL_SEQ=%lld is beyond the %lld jobs of GNU "
                             "parallel (N=%lld over the %lld shards of the launchers around it)",
                             spec, (long long)seq, (long long)(n_given / n_outer),
                             (long long)n_given, (long long)n_outer);
            return -EINVAL;
        }
        lv[nl++] = (level){seq - 1, n_given / n_outer, "PARALLEL_SEQ"};
    }
    if (nl == 0) {
        pp_log_error("--shard %s: no launcher found in the environment (SLURM_ARRAY_TASK_ID, "
                     "OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, PARALLEL_SEQ): run under one, or "
                     "give --shard K/N", spec);
        return -EINVAL;
    }
    s->k = 0;
    s->n = 1;
    for (size_t i = 0; i < nl; i++) {
        s->k = s->k * (uint64_t)lv[i].n + (uint64_t)lv[i].k;
        s->n *= (uint64_t)lv[i].n;
        pp_text(s->from + strlen(s->from), sizeof s->from - strlen(s->from), "%s%s",
                i ? " x " : "", lv[i].what);
    }
    if (s->n > MAX_SHARDS || (n_given && s->n != (uint64_t)n_given)) {
        pp_log_error("--shard %s: the launchers give %llu shards (%s)%s", spec,
                     (unsigned long long)s->n, s->from,
                     n_given ? ", not the N given" : ": too many");
        return -EINVAL;
    }
    return 0;
}

int pp_shard_parse(const char *spec, char *const *envp, pp_shard *s)
{
    int64_t k = 0, n = 0;

    pp_shard_all(s);
    if (!envp)
        envp = environ;
    if (strncmp(spec, "auto", 4) == 0 && (spec[4] == '\0' || spec[4] == '/')) {
        if (spec[4] == '/' && parse_k_n(spec, spec + 4, NULL, &n) < 0)
            return -EINVAL;
        return from_environment(spec, envp, n, s);
    }
    if (parse_k_n(spec, spec, &k, &n) < 0)
        return -EINVAL;
    s->k = (uint64_t)k - 1;
    s->n = (uint64_t)n;
    pp_text(s->from, sizeof s->from, "--shard");
    return 0;
}
