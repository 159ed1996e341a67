/* adaptive_design.h - the candidates of an adaptive run (the space: each
 * configuration's parameters normalized, its group of labels) and the first
 * design: corners, centre, spread. */
#ifndef PP_ADAPTIVE_DESIGN_H
#define PP_ADAPTIVE_DESIGN_H

#include "adaptive.h"

/* Allocate n candidates of n_params parameters (raw, ids, prior_s zeroed).
 * 0, -EINVAL (n_params out of range, n == 0) or -ENOMEM. */
int pp_adaptive_space_init(pp_adaptive_space *s, size_t n_params, size_t n);

/* Labels of categorical parameter k (copied). 0 or -ENOMEM / -EINVAL. */
int pp_adaptive_space_set_labels(pp_adaptive_space *s, size_t k, size_t n_labels,
                                 const char *const *labels);

/* Once raw is filled: normalized coordinates, groups, levels. 0, -EINVAL
 * (a log-scale value <= 0, a label index out of range; logged) or -ENOMEM. */
int pp_adaptive_space_finish(pp_adaptive_space *s);

void pp_adaptive_space_free(pp_adaptive_space *s);

/* The candidate with this id, or -1. */
long pp_adaptive_space_find(const pp_adaptive_space *s, uint64_t id);

const char *pp_adaptive_why_name(pp_adaptive_why w);

int pp_adaptive_why_parse(const char *name, pp_adaptive_why *w);

/* The first round of the design into out (at most cap candidates, why[]
 * beside them): its size. Deterministic given seed. */
size_t pp_adaptive_design(const pp_adaptive_space *s, uint64_t seed, size_t *out,
                          pp_adaptive_why *why, size_t cap);

/* The corners not taken[] (may be NULL) into out: how many. */
size_t pp_adaptive_corners(const pp_adaptive_space *s, uint64_t seed, const uint8_t *taken,
                           size_t *out, size_t cap);

#endif
