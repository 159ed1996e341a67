/* The answers of the commands around a results folder, built by the
 * library (src/api/results_doc.c): import's --param, --unit and
 * --time-unit refused there with the CLI's words, merge --json the
 * library's document key for key, plot's choices checked there. */
#include "harness.h"
#include "limited.h"

#include "src/api/results_doc.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

/* `merge --json` prints pp_merge_json of the merge it made: the same
 * object, key for key, as the library builds for the same folder. */
void test_merge_json_cli_equals_library(void);
void test_merge_json_cli_equals_library(void)
{
    const char *src[] = {"data/local/darknet-fps-cfg"};
    char lib_out[512], cli_out[512], *out = NULL, *err = NULL;
    pp_merge_report r;
    json_t *lib, *cli;

    snprintf(lib_out, sizeof lib_out, "%s/merged-lib", test_tmpdir());
    snprintf(cli_out, sizeof cli_out, "%s/merged-cli", test_tmpdir());
    CHECK_INT(pp_merge(src, 1, lib_out, &r), 0);
    CHECK_INT(pp(&out, &err, "merge", "-o", cli_out, src[0], "--json", NULL), 0);
    lib = pp_merge_json(&r, 1, cli_out);
    cli = json_loads(out ? out : "", 0, NULL);
    CHECK(lib && cli && json_equal(lib, cli));
    CHECK(json_integer_value(json_object_get(lib, "rows")) > 0);
    CHECK_STR(json_string_value(json_object_get(cli, "output")), cli_out);
    json_decref(lib);
    json_decref(cli);
    free(out);
    free(err);
}

/* A merge into a folder that exists is refused by the library (-EEXIST),
 * which the CLI turns into its usage status, nothing printed on stdout. */
void test_merge_answer_refuses_existing(void);
void test_merge_answer_refuses_existing(void)
{
    const char *src[] = {"data/local/darknet-fps-cfg"};
    char *out = NULL, *err = NULL;

    CHECK(pp_merge_answer(src, 1, test_tmpdir(), 0) == -EEXIST);
    CHECK_INT(pp(&out, &err, "merge", "-o", test_tmpdir(), src[0], NULL), 2);
    CHECK_STR(out ? out : "", "");
    free(out);
    free(err);
}

/* --param NAME=NUMBER: the library's refusals (results_doc.h), each said
 * with the argument; a name that is not a safe name is refused by
 * pp_name_check, logged. */
void test_import_param_refusals(void);
void test_import_param_refusals(void)
{
    pp_import_request *rq = calloc(1, sizeof *rq);
    char why[300], arg[128];

    CHECK_INT(pp_import_param_add(rq, "size=5", why, sizeof why), 0);
    CHECK_INT((int)rq->n_fixed, 1);
    CHECK_STR(rq->fixed_names[0], "size");
    CHECK_NEAR(rq->fixed_values[0], 5, 0);
    CHECK_INT(pp_import_param_add(rq, "size", why, sizeof why), -EINVAL);
    CHECK_STR(why, "--param size: NAME=NUMBER expected");
    CHECK_INT(pp_import_param_add(rq, "fps=fast", why, sizeof why), -EINVAL);
    CHECK_STR(why, "--param fps=fast: NAME=NUMBER expected");
    snprintf(arg, sizeof arg, "%064d=1", 0);
    CHECK_INT(pp_import_param_add(rq, arg, why, sizeof why), -EINVAL);
    CHECK_CONTAINS(why, "NAME is at most 63 characters");
    CHECK_INT(pp_import_param_add(rq, "../x=1", why, sizeof why), -EINVAL);
    CHECK_STR(why, "");
    CHECK_CONTAINS(test_log(), "--param");
    CHECK_INT((int)rq->n_fixed, 1);
    for (int i = 1; i < PP_IMPORT_MAX_PARAMS; i++) {
        snprintf(arg, sizeof arg, "p%d=%d", i, i);
        CHECK_INT(pp_import_param_add(rq, arg, why, sizeof why), 0);
    }
    CHECK_INT(pp_import_param_add(rq, "one_more=1", why, sizeof why), -EINVAL);
    CHECK_STR(why, "more than 16 --param");
    free(rq);
}

/* --unit and --time-unit: the scale to watts and to seconds; anything
 * else refused (a power unit is no time unit). */
void test_import_unit_parse(void);
void test_import_unit_parse(void)
{
    double s = 0;

    CHECK_INT(pp_import_unit_parse("mW", &s), 0);
    CHECK_NEAR(s, 1e-3, 0);
    CHECK_INT(pp_import_unit_parse("uW", &s), 0);
    CHECK_NEAR(s, 1e-6, 0);
    CHECK_INT(pp_import_unit_parse("ns", &s), -1);
    CHECK_INT(pp_import_unit_parse("kW", &s), -1);
    CHECK_INT(pp_import_time_unit_parse("ns", &s), 0);
    CHECK_NEAR(s, 1e-9, 0);
    CHECK_INT(pp_import_time_unit_parse("s", &s), 0);
    CHECK_NEAR(s, 1, 0);
    CHECK_INT(pp_import_time_unit_parse("mW", &s), -1);
}

/* plot's choices checked by the library (results_doc.h): --format, and
 * -c CONFIG without a plan refused with the words the CLI says; without
 * a plan nothing is read and no plan set. */
void test_plot_request_refusals(void);
void test_plot_request_refusals(void)
{
    pp_plot_options o;
    pp_plot_plan plan;
    char why[160];

    pp_plot_options_init(&o);
    CHECK_INT(pp_plot_format_parse("both", &o), 0);
    CHECK(o.png && o.svg);
    CHECK_INT(pp_plot_format_parse("svg", &o), 0);
    CHECK(!o.png && o.svg);
    CHECK_INT(pp_plot_format_parse("pdf", &o), -1);
    CHECK_INT(pp_plot_request(&o, NULL, "pack.cfg", &plan, why, sizeof why), -EINVAL);
    CHECK_STR(why, "-c CONFIG is the battery of a plan: give --plan PLAN.json");
    CHECK_INT(pp_plot_request(&o, NULL, NULL, &plan, why, sizeof why), 0);
    CHECK(o.plan == NULL);
    CHECK_INT(pp_plot_request(&o, "no-such-plan.json", NULL, &plan, why, sizeof why), -EINVAL);
    CHECK_STR(why, "");
}
