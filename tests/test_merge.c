/* powprof merge: the library's answer (src/api/results_doc.c) and the
 * CLI's face of it: one document, the same keys and values. */
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
