#include "harness.h"
#include "limited.h"

#include "src/base/duration.h"
#include "src/base/util.h"
#include "src/results/summary.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void test_parse_double_strict(void);
void test_parse_double_strict(void)
{
    double v = -1;

    CHECK_INT(pp_parse_double("1.5\n", &v), 0);
    CHECK_NEAR(v, 1.5, 0);
    CHECK_INT(pp_parse_double(" 2e3 ", &v), 0);
    CHECK_NEAR(v, 2000, 0);
    v = 7;
    CHECK_INT(pp_parse_double("", &v), -EINVAL);
    CHECK_INT(pp_parse_double("\n", &v), -EINVAL);
    CHECK_INT(pp_parse_double("abc", &v), -EINVAL);
    CHECK_INT(pp_parse_double("1.5x", &v), -EINVAL);
    CHECK_INT(pp_parse_double("nan", &v), -EINVAL);
    CHECK_INT(pp_parse_double("inf", &v), -EINVAL);
    CHECK_INT(pp_parse_double("1e999", &v), -ERANGE);
    CHECK_NEAR(v, 7, 0); /* untouched on error */
}

void test_parse_int64_strict(void);
void test_parse_int64_strict(void)
{
    int64_t v = 0;

    CHECK_INT(pp_parse_int64("5263\n", &v), 0);
    CHECK_INT(v, 5263);
    CHECK_INT(pp_parse_int64("-12", &v), 0);
    CHECK_INT(v, -12);
    CHECK_INT(pp_parse_int64("12.5", &v), -EINVAL);
    CHECK_INT(pp_parse_int64("0x10", &v), -EINVAL);
    CHECK_INT(pp_parse_int64("", &v), -EINVAL);
    CHECK_INT(pp_parse_int64(" - 3", &v), -EINVAL);
    CHECK_INT(pp_parse_int64("99999999999999999999", &v), -ERANGE);
}

void test_path_join(void);
void test_path_join(void)
{
    char buf[32];

    CHECK_INT(pp_path_join(buf, sizeof buf, "/", "/proc/stat"), 0);
    CHECK_STR(buf, "/proc/stat");
    CHECK_INT(pp_path_join(buf, sizeof buf, "/tmp/root/", "sys/x"), 0);
    CHECK_STR(buf, "/tmp/root/sys/x");
    CHECK_INT(pp_path_join(buf, 8, "/tmp/root", "sys"), -ENAMETOOLONG);
}

void test_atomic_file(void);
void test_atomic_file(void)
{
    char path[512];
    pp_atomic_file af;
    char *s;

    snprintf(path, sizeof path, "%s/out.csv", test_tmpdir());
    CHECK_INT(write_file(path, "old\n"), 0);
    CHECK_INT(pp_atomic_file_open(&af, path), 0);
    fputs("new\n", af.fp);
    s = slurp(path); /* not replaced before commit */
    CHECK_STR(s, "old\n");
    free(s);
    CHECK_INT(pp_atomic_file_commit(&af), 0);
    s = slurp(path);
    CHECK_STR(s, "new\n");
    free(s);
    /* abort leaves the target and no temporary */
    CHECK_INT(pp_atomic_file_open(&af, path), 0);
    fputs("half", af.fp);
    {
        char tmp[PP_PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s", af.tmp_path);
        pp_atomic_file_abort(&af);
        CHECK(access(tmp, F_OK) != 0);
    }
    s = slurp(path);
    CHECK_STR(s, "new\n");
    free(s);
    /* a folder that does not exist: an error naming the file */
    snprintf(path, sizeof path, "%s/missing/out.csv", test_tmpdir());
    CHECK(pp_atomic_file_open(&af, path) < 0);
    CHECK_CONTAINS(test_log(), path);
}

/* pp_grow: the same array while there is room, then twice the room, the
 * elements kept; the first allocation of the size asked. */
void test_util_grow(void);
void test_util_grow(void)
{
    int *a = NULL, *b;
    size_t cap = 0;

    CHECK((a = pp_grow(a, &cap, 0, sizeof *a, 4)) != NULL);
    CHECK_INT((int)cap, 4);
    for (int i = 0; i < 4; i++)
        a[i] = i * 7;
    CHECK(pp_grow(a, &cap, 3, sizeof *a, 4) == a);
    CHECK_INT((int)cap, 4);
    CHECK((b = pp_grow(a, &cap, 4, sizeof *a, 4)) != NULL);
    CHECK_INT((int)cap, 8);
    if (b) {
        a = b;
        CHECK_INT(a[3], 21);
    }
    free(a);
}

/* issue 40: a text for a person is cut visibly; a path that does not fit
 * is refused, said with the folder's start, never used cut. */
void test_util_text_and_paths_cut(void);
void test_util_text_and_paths_cut(void)
{
    char buf[12], path[24], dir[64];

    CHECK(pp_text(buf, sizeof buf, "%s = %d", "fits", 7) == buf);
    CHECK_STR(buf, "fits = 7");
    pp_text(buf, sizeof buf, "%s", "a reason that is too long");
    CHECK_STR(buf, "a reason...");
    CHECK_INT(pp_path_in(path, sizeof path, "/tmp/out", "summary.csv"), 0);
    CHECK_STR(path, "/tmp/out/summary.csv");
    memset(dir, 'd', sizeof dir - 1);
    dir[sizeof dir - 1] = '\0';
    test_log_clear();
    CHECK_INT(pp_path_in(path, sizeof path, dir, "summary.csv"), -ENAMETOOLONG);
    CHECK_CONTAINS(test_log(), "a folder's path too long for summary.csv in it (63 characters, at "
                               "most 11)");
    test_log_clear();
    CHECK_INT(pp_path_copy(path, dir, sizeof path), -ENAMETOOLONG);
    CHECK_CONTAINS(test_log(), "a path of 63 characters, at most 23");
    CHECK_INT(pp_path_copy(path, "/tmp/x.cfg", sizeof path), 0);
    CHECK_STR(path, "/tmp/x.cfg");
}

/* Friction of issue 22: durations and fractions as people write them, one
 * parser (util.c); long times as hours and minutes. */
void test_util_durations_and_percentages(void);
void test_util_durations_and_percentages(void)
{
    static const struct {
        const char *text;
        double s;
    } ok[] = {{"90", 90}, {"1.5", 1.5}, {"10min", 600}, {"1h30m", 5400}, {"1h 30min 10s", 5410},
              {"2h", 7200}, {"0.5h", 1800}, {"45s", 45}};
    static const char *const bad[] = {"", "10 parsecs", "1m1h", "1h1h", "-5min", "h", "10mins",
                                      "nan", "1e400h"};
    char buf[48], *out = NULL, *err = NULL;
    const char *dir;
    double v;

    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        v = -1;
        CHECK_INT(pp_parse_duration_s(ok[i].text, &v), 0);
        CHECK_NEAR(v, ok[i].s, 1e-9);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(pp_parse_duration_s(bad[i], &v) < 0);
    CHECK_INT(pp_parse_fraction("20%", &v), 0);
    CHECK_NEAR(v, 0.2, 1e-12);
    CHECK_INT(pp_parse_fraction("0.25", &v), 0);
    CHECK_NEAR(v, 0.25, 1e-12);
    CHECK(pp_parse_fraction("20 percent", &v) < 0);
    pp_format_duration(50644, buf, sizeof buf);
    CHECK_STR(buf, "14 h 4 min");
    pp_format_duration(754, buf, sizeof buf);
    CHECK_STR(buf, "12.6 min");
    dir = results_folder_with("dur", "id,fps,status,duration_s,total_mean_w,reason\n"
                              "0,1,ok,1,10,\n1,2,ok,1,12,\n2,3,ok,1,14,\n", NULL);
    CHECK_INT(run_powprof(&out, NULL, "plan", dir, "--mission-s", "10min", "--min-soc", "30%",
                          NULL), 0);
    CHECK_CONTAINS(out, "mission 600 s, keep 30 %");
    CHECK_CONTAINS(out, "cutoff after ");
    CHECK_CONTAINS(out, " h ");
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "plan", dir, "--mission-s", "10 parsecs", NULL), 2);
    CHECK_CONTAINS(err, "--mission-s: \"10 parsecs\" is not a duration: seconds (90, 1.5) or");
    CHECK_CONTAINS(err, "(10min, 1h30m, 250ms)");
    free(err);
}

/* Items 11 and 14: counts in range (samples=1e95 once overflowed a long);
 * numbers are decimal everywhere. */
void test_util_numbers(void);
void test_util_numbers(void)
{
    static const char *const refused[] = {"0x10", "0X1p3", "inf", "-Infinity", "nan", "1e", "e5",
                                          ".", "1.2.3", "0x", "1,5"};
    static const char *const taken[] = {"16", "-0.5", ".5", "5.", "+2e-3", " 7 ", "1E3"};
    pp_summary s;
    double v;
    const char *dir;

    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        CHECK_INT(pp_parse_double(refused[i], &v), -EINVAL);
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
        CHECK_INT(pp_parse_double(taken[i], &v), 0);
    dir = results_folder_with("count", "id,p,status,samples,total_mean_w,reason\n"
                                       "0,1,ok,1e95,1.5,\n1,2,ok,100,2,\n", NULL);
    test_log_clear();
    CHECK_INT(pp_summary_read(dir, &s), -EINVAL);
    CHECK_CONTAINS(test_log(), "summary.csv:2: samples '1e95' is not a count");
    dir = results_folder_with("hex", "id,p,status,total_mean_w,reason\n0,0x10,ok,1.5,\n"
                                     "1,2,ok,2,\n2,3,ok,3,\n", NULL);
    CHECK_INT(pp_summary_read(dir, &s), 0); /* 0x10 is no number: p is a label */
    CHECK_INT(s.param[0].kind, PP_PARAM_CATEGORICAL);
    pp_summary_free(&s);
    /* libconfig's hexadecimal integers are refused in profiles */
    {
        char cfg[700], *err = NULL, *text = slurp(fixture("issue23/tiny.cfg")), *at;
        CHECK(text != NULL);
        if (text && (at = strstr(text, "rate_hz = 50.0;"))) {
            memcpy(at, "rate_hz = 0x32;", 15);
            snprintf(cfg, sizeof cfg, "%s/hex.cfg", test_tmpdir());
            write_file(cfg, text);
            CHECK_INT(pp(NULL, &err, "profile", cfg, "--dry-run", NULL), 2);
            CHECK_CONTAINS(err, "hex.cfg:5: profile.rate_hz: must be a number, written in decimal");
            free(err);
        }
        free(text);
    }
    /* a row cut short by a crash (no line end) is left out, said */
    dir = results_folder_with("torn", "id,p,status,total_mean_w,reason\n0,1,ok,1.5,\n1,2,ok,2,\n"
                                      "2,3,o", NULL);
    test_log_clear();
    CHECK_INT(pp_summary_read(dir, &s), 0);
    CHECK_INT(s.n_rows, 2);
    CHECK_CONTAINS(test_log(), "summary.csv:4: cut short");
    pp_summary_free(&s);
}
