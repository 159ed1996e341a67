/* adaptive_state.c - RESULTS/adaptive.json: the rounds of an adaptive run,
 * why each configuration was chosen, the errors after each round, why it
 * stopped (adaptive.h). */
#include "adaptive_state.h"
#include "adaptive_design.h"

#include "src/base/log.h"
#include "src/results/json_file.h"

#include <errno.h>
#include <sys/stat.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pp_adaptive_state_free(pp_adaptive_state *st)
{
    free(st->picks);
    free(st->pick_round);
    memset(st, 0, sizeof *st);
}

int pp_adaptive_state_add(pp_adaptive_state *st, const pp_adaptive_pick *p, size_t round)
{
    if (st->n_picks == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 64;
        pp_adaptive_pick *picks = realloc(st->picks, cap * sizeof *picks);
        size_t *rounds = picks ? realloc(st->pick_round, cap * sizeof *rounds) : NULL;
        if (picks)
            st->picks = picks;
        if (!picks || !rounds)
            return -ENOMEM;
        st->pick_round = rounds;
        st->cap = cap;
    }
    if (round >= PP_ADAPTIVE_MAX_ROUNDS) {
        pp_log_error("adaptive: more than %d rounds", PP_ADAPTIVE_MAX_ROUNDS);
        return -E2BIG;
    }
    st->picks[st->n_picks] = *p;
    st->pick_round[st->n_picks++] = round;
    if (round >= st->n_rounds)
        st->n_rounds = round + 1;
    return 0;
}

static double num_of(const json_t *j)
{
    return json_is_number(j) ? json_number_value(j) : NAN;
}

static json_t *pick_json(const pp_adaptive_space *s, const pp_adaptive_pick *p)
{
    json_t *values = json_object();

    for (size_t k = 0; k < s->n_params; k++) {
        double v = s->raw[p->cand * s->n_params + k];
        json_object_set_new(values, s->names[k], s->categorical[k]
                                                     ? json_string(s->labels[k][(size_t)v])
                                                     : json_real(v));
    }
    return json_pack("{s:I, s:o, s:s, s:o, s:o}", "id", (json_int_t)s->ids[p->cand], "values",
                     values, "why", pp_adaptive_why_name(p->why), "score", pp_json_num(p->score),
                     "predicted_s", pp_json_num(p->predicted_s));
}

/* What the stop rule saw: the claim (an upper bound of the nested error),
 * what the bands imply, the noise floor, what held the stop back. */
static json_t *claim_json(const pp_adaptive_claim *c)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:s, s:I}", "claim_pct",
                     pp_json_num(c->claim_pct), "implied_by_bands_pct",
                     pp_json_num(c->implied_pct), "noise_floor_pct", pp_json_num(c->noise_pct),
                     "pursued_pct", pp_json_num(c->pursued_pct), "held_by",
                     pp_adaptive_hold_name(c->hold), "streak", (json_int_t)c->streak);
}

static json_t *rounds_json(const pp_adaptive_space *s, const pp_adaptive_state *st,
                           const pp_adaptive_fit *fit)
{
    json_t *rounds = json_array();

    for (size_t r = 0; r < st->n_rounds; r++) {
        json_t *picks = json_array(), *errors = json_object(), *one;
        for (size_t i = 0; i < st->n_picks; i++)
            if (st->pick_round[i] == r)
                json_array_append_new(picks, pick_json(s, &st->picks[i]));
        /* rounds counted from 1, as the progress lines count them */
        one = json_pack("{s:I, s:o}", "round", (json_int_t)r + 1, "chosen", picks);
        if (r < st->n_done) {
            for (size_t k = 0; fit && k < fit->n_metrics; k++)
                json_object_set_new(errors, fit->metrics[k], pp_json_num(st->done[r].error_pct[k]));
            json_object_set_new(one, "measured_configs",
                                json_integer((json_int_t)st->done[r].n_rows));
            json_object_set_new(one, "measured_s", pp_json_num(st->done[r].measured_s));
            json_object_set_new(one, "error_pct", errors);
            json_object_set_new(one, "claim", claim_json(&st->done[r].claim));
        } else {
            json_decref(errors);
        }
        json_array_append_new(rounds, one);
    }
    return rounds;
}

static json_t *result_json(const pp_adaptive_result *res)
{
    if (!res)
        return json_null();
    return json_pack("{s:s, s:I, s:I, s:o, s:o, s:o, s:o}", "stop",
                     pp_adaptive_stop_name(res->stop), "configs", (json_int_t)res->n_chosen,
                     "grid_configs", (json_int_t)res->n_candidates, "measured_s",
                     pp_json_num(res->fit.measured_s), "unmeasured_predicted_s", pp_json_num(res->unmeasured_s),
                     "full_grid_s", pp_json_num(res->full_grid_s), "claim", claim_json(&res->claim));
}

int pp_adaptive_state_write(const char *dir, const pp_adaptive_space *s,
                            const pp_adaptive_options *o, const pp_adaptive_state *st,
                            const pp_adaptive_fit *fit, const pp_adaptive_result *res)
{
    char path[PP_PATH_MAX];
    json_t *root;
    int rc;

    if ((rc = pp_path_fmt(path, sizeof path, dir, "adaptive.json")) < 0)
        return rc;
    root = json_pack("{s:o, s:o, s:I, s:I, s:I, s:o, s:o, s:o}", "target_error_pct",
                     pp_json_num(o->target_error_pct), "budget_s", pp_json_num(o->budget_s), "max_configs",
                     (json_int_t)o->max_configs, "seed", (json_int_t)o->seed, "batch",
                     (json_int_t)o->batch, "overhead_s", pp_json_num(o->overhead_s), "rounds",
                     rounds_json(s, st, fit), "result", result_json(res));
    if (!root)
        return -ENOMEM;
    rc = pp_json_save(path, root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    return rc;
}

/* The picks of one round of the file into st. */
static int read_round(const char *path, const json_t *round, size_t r, const pp_adaptive_space *s,
                      pp_adaptive_state *st)
{
    const json_t *chosen = json_object_get(round, "chosen"), *one, *errors;
    size_t i;
    int rc = 0;

    json_array_foreach(chosen, i, one) {
        const json_t *id = json_object_get(one, "id");
        long c = json_is_integer(id) ? pp_adaptive_space_find(s, (uint64_t)json_integer_value(id))
                                     : -1;
        pp_adaptive_pick p = {(size_t)c, PP_WHY_BAND, num_of(json_object_get(one, "score")),
                              num_of(json_object_get(one, "predicted_s"))};
        const char *why = json_string_value(json_object_get(one, "why"));
        if (c < 0 || !why || pp_adaptive_why_parse(why, &p.why) < 0) {
            pp_log_error("%s: round %zu, pick %zu: not a configuration of this sweep (id, why)",
                         path, r, i);
            return -EINVAL;
        }
        if ((rc = pp_adaptive_state_add(st, &p, r)) < 0)
            return rc;
    }
    st->n_rounds = r + 1; /* a round may be empty */
    if ((errors = json_object_get(round, "error_pct")) && r < PP_ADAPTIVE_MAX_ROUNDS) {
        const char *key;
        json_t *v, *rows = json_object_get(round, "measured_configs");
        size_t k = 0;
        double secs = num_of(json_object_get(round, "measured_s"));
        if (!json_is_integer(rows) || json_integer_value(rows) < 0 ||
            (uint64_t)json_integer_value(rows) > s->n || !(isnan(secs) || secs >= 0) ||
            !json_is_object(errors)) {
            pp_log_error("%s: round %zu: measured_configs (0 to %zu), measured_s (>= 0) and "
                         "error_pct (an object) expected", path, r, s->n);
            return -EINVAL;
        }
        st->done[r].n_rows = (size_t)json_integer_value(rows);
        st->done[r].measured_s = secs;
        json_object_foreach((json_t *)errors, key, v)
            if (k < PP_ADAPTIVE_MAX_METRICS)
                st->done[r].error_pct[k++] = num_of(v);
        st->n_done = r + 1;
    }
    return 0;
}

int pp_adaptive_state_read(const char *dir, const pp_adaptive_space *s, pp_adaptive_state *st)
{
    char path[PP_PATH_MAX];
    json_error_t err;
    json_t *root, *rounds, *round;
    struct stat sb;
    size_t r;
    int rc = 0;

    memset(st, 0, sizeof *st);
    if ((rc = pp_path_fmt(path, sizeof path, dir, "adaptive.json")) < 0)
        return rc;
    if (lstat(path, &sb) != 0)
        return 1;
    if (!S_ISREG(sb.st_mode)) {
        pp_log_error("%s: not a regular file (%s): not an adaptive run's record", path,
                     S_ISDIR(sb.st_mode) ? "a directory" : S_ISLNK(sb.st_mode) ? "a symbolic link"
                                                                                : "a special file");
        return -EINVAL;
    }
    if (!(root = json_load_file(path, 0, &err))) {
        pp_log_error("%s:%d: %s", path, err.line, err.text);
        return -EINVAL;
    }
    rounds = json_object_get(root, "rounds");
    if (!json_is_array(rounds)) {
        pp_log_error("%s: no \"rounds\" list: not an adaptive run's record", path);
        rc = -EINVAL;
    }
    if (rc == 0 && json_array_size(rounds) > PP_ADAPTIVE_MAX_ROUNDS) {
        pp_log_error("%s: %zu rounds, at most %d", path, json_array_size(rounds),
                     PP_ADAPTIVE_MAX_ROUNDS);
        rc = -EINVAL;
    }
    json_array_foreach(rounds, r, round) {
        if (rc == 0 && r < PP_ADAPTIVE_MAX_ROUNDS)
            rc = read_round(path, round, r, s, st);
    }
    json_decref(root);
    if (rc < 0)
        pp_adaptive_state_free(st);
    return rc;
}
