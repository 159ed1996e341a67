/* What is said of a configuration before its prediction (issue 40 item 1):
 * the C API warns and refuses as `powprof predict` does, in the same
 * words, because the library says it for both (src/api/point_check.c):
 * a value beyond ten times what was measured refused unless asked for, a
 * parameter outside the measured range or measured at one value only
 * warned about. Only the public headers here, and the CLI. */
#include "harness.h"

#include <powprof.h> /* the staged public headers: -I$(O)/include */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* power 2 + fps / 2 at fps 1..7, and threads measured at 1 only. */
static const char *linear_folder(void)
{
    return results_folder_with("linear",
                               "id,threads,fps,status,duration_s,total_mean_w\n"
                               "0,1,1,ok,10,2.5\n1,1,2,ok,10,3.0\n2,1,3,ok,10,3.5\n"
                               "3,1,4,ok,10,4.0\n4,1,5,ok,10,4.5\n5,1,6,ok,10,5.0\n"
                               "6,1,7,ok,10,5.5\n", NULL);
}

/* The line of text after prefix (to its end), as a malloc'd string. */
static char *line_after(const char *text, const char *prefix)
{
    const char *at = text ? strstr(text, prefix) : NULL;

    if (!at)
        return strdup("(none)");
    at += strlen(prefix);
    return strndup(at, strcspn(at, "\n"));
}

/* The C API's refusal and warning equal predict's. */
void test_api_predict_refusals_as_the_cli(void);
void test_api_predict_refusals_as_the_cli(void)
{
    const char *names[] = {"fps", "threads"}, *far[] = {"1000", "1"}, *four[] = {"3", "4"};
    const char *dir = linear_folder();
    pp_model_estimate e;
    char *err = NULL, *cli_error, *cli_warning;
    pp_model *m;

    CHECK_INT(run_powprof(NULL, &err, "predict", dir, "fps=1000", NULL), 3);
    cli_error = line_after(err, "powprof: error: ");
    cli_warning = line_after(err, "powprof: warning: ");
    CHECK_CONTAINS(cli_error, "refused: total_mean_w predicted 502, beyond 10 times");
    free(err);
    CHECK_INT(pp_model_open(dir, &m), 0);
    test_log_clear();
    CHECK_INT(pp_model_estimate_at(m, "total_mean_w", 2, names, far, 0, &e), -ERANGE);
    CHECK_CONTAINS(test_log(), cli_error);
    CHECK_CONTAINS(test_log(), cli_warning);
    test_log_clear(); /* asked for: given, flagged, warned */
    CHECK_INT(pp_model_estimate_at(m, "total_mean_w", 2, names, far, PP_ESTIMATE_EXTRAPOLATE, &e),
              0);
    CHECK(e.beyond_measured && e.outside_measured && e.value > 400);
    CHECK_CONTAINS(test_log(), "total_mean_w predicted 502, beyond 10 times");
    test_log_clear(); /* a table: the row named */
    CHECK_INT(pp_model_estimate_rows(m, 1, (const char *[]){"total_mean_w"}, 2, names, 1, far, 0, &e), -ERANGE);
    CHECK_CONTAINS(test_log(), cli_error);
    free(cli_error);
    free(cli_warning);
    CHECK_INT(run_powprof(NULL, &err, "predict", dir, "fps=3", "threads=4", NULL), 0);
    cli_warning = line_after(err, "powprof: warning: ");
    CHECK_CONTAINS(cli_warning, "threads = 4: the results measured threads = 1 only");
    free(err);
    test_log_clear();
    CHECK_INT(pp_model_estimate_at(m, "total_mean_w", 2, names, four, 0, &e), 0);
    CHECK_CONTAINS(test_log(), cli_warning);
    free(cli_warning);
    pp_model_close(m);
}

/* A table's warnings: one for all its rows, the first row named. */
void test_api_predict_table_warns_once(void);
void test_api_predict_table_warns_once(void)
{
    const char *names[] = {"fps"}, *values[] = {"2", "9", "12", "3"};
    pp_model_estimate e[4];
    pp_model *m;

    CHECK_INT(pp_model_open(linear_folder(), &m), 0);
    test_log_clear();
    CHECK_INT(pp_model_estimate_rows(m, 1, (const char *[]){"total_mean_w"}, 1, names, 4, values,
                                     0, e), 0);
    CHECK_CONTAINS(test_log(), "row 1 (from 0): fps = 9 lies outside the measured range [1, 7]: "
                               "an extrapolation (2 of the 4 rows lie outside");
    CHECK(strstr(test_log(), "fps = 12") == NULL);
    CHECK(!e[0].outside_measured && e[1].outside_measured && e[2].outside_measured);
    pp_model_close(m);
}
