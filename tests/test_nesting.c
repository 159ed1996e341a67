/* Printed errors that are what they say (issue 31, item 2): the error
 * between measured levels of a surface whose interior values are too few
 * to score a choice on. */
#include "harness.h"

#include "src/layer2/estimator.h"

#include <math.h>
#include <stdlib.h>

/* One parameter at 0.5, 1, 2, 3, 4 (a model per label of local darknet's
 * shape): 3 values strictly inside the range, fewer than
 * PP_LEVEL_OUT_MIN_PAIRS. The between-levels error is measured on them,
 * each left out in turn, and is their mean error; before, there was none
 * and the error at measured levels (its two edges extrapolations) was the
 * one printed and claimed. */
void test_nesting_between_few_interior_values(void);
void test_nesting_between_few_interior_values(void)
{
    double x[5] = {0.5, 1, 2, 3, 4}, y[5], ape = 0;
    pp_choose_options o;
    pp_choice c;
    pp_surface s;

    for (int i = 0; i < 5; i++)
        y[i] = 6.0 + 0.4 * x[i] * x[i];
    CHECK_INT(pp_surface_init(&s, x, 5, 1, NULL), 0);
    pp_choose_options_init(&o);
    o.keep_held = 1;
    CHECK_INT(pp_choose(&s, y, &o, &c), 0);
    CHECK_INT((long)c.between.n, 3);
    CHECK_INT((long)c.between_folds, 3);
    CHECK_INT((long)c.n_held_between, 3);
    for (size_t k = 0; k < c.n_held_between; k++) {
        size_t i = c.held_between_idx[k];
        CHECK(i >= 1 && i <= 3); /* never an edge */
        ape += fabs(c.held_between[k] - y[i]) / y[i];
    }
    CHECK(fabs(c.between.mape - 100 * ape / 3) < 1e-9);
    CHECK(c.honest.n == 5);
    pp_choice_free(&c);
    pp_surface_free(&s);
}

/* The choice is still scored on pp_level_folds: with 3 interior pairs it
 * has none (leave-one-out decides), pp_level_folds_any has 3. */
void test_nesting_folds_any(void);
void test_nesting_folds_any(void)
{
    double x[5] = {0.5, 1, 2, 3, 4}, y[5] = {1, 2, 3, 4, 5};
    pp_fold *f = NULL;
    pp_surface s;

    CHECK_INT(pp_surface_init(&s, x, 5, 1, NULL), 0);
    CHECK_INT(pp_level_folds(&s, y, &f), 0);
    CHECK(f == NULL);
    CHECK_INT(pp_level_folds_any(&s, y, &f), 3);
    free(f);
    y[0] = NAN; /* 1 is now the least value measured: 2 inside */
    CHECK_INT(pp_level_folds_any(&s, y, &f), 2);
    free(f);
    pp_surface_free(&s);
}
