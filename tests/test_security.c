/* Names from data (issue 12): the one rule, the one path builder and the
 * one gnuplot quoting, a scan of the sources for anything that bypasses
 * them, and the reproducers through the command line. */
#include "harness.h"

#include "src/results/import.h"
#include "src/results/summary.h"
#include "src/base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

void test_name_rule(void);
void test_name_rule(void)
{
    static const char *const good[] = {"VDD_IN", "package-0.dram", "matrix.size", "a+b", "x1",
                                       "total_rail", "_x", "9fps"};
    char long_name[200], why[256];

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK_INT(pp_name_check(good[i], "test"), 0);
    test_log_clear();
    CHECK_INT(pp_name_check("a,b", "--param"), -EINVAL);
    CHECK_CONTAINS(test_log(), "--param 'a,b': character ',' at position 2 is not allowed");
    CHECK_INT(pp_name_check("a'.system('touch INJ').'", "x.csv:1: column 2"), -EINVAL);
    CHECK_CONTAINS(test_log(), "x.csv:1: column 2 'a'.system('touch INJ').'': character ''' at "
                               "position 2");
    CHECK_INT(pp_name_check("caf\xc3\xa9\n", "w"), -EINVAL);
    CHECK_CONTAINS(test_log(), "'caf\\xc3\\xa9\\x0a': character '\\xc3' at position 4");
    static const char *const bad[] = {"", "../x", ".hidden", "-rf", "a/b", "a b", "a\"b", "a`b",
                                      "$(x)", "@m", "a;b", "a\\b", "a:b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_INT(pp_name_why(bad[i], why, sizeof why), -EINVAL);
    memset(long_name, 'a', sizeof long_name);
    long_name[PP_NAME_MAX - 1] = '\0';
    CHECK_INT(pp_name_why(long_name, NULL, 0), 0);
    long_name[PP_NAME_MAX - 1] = 'a';
    long_name[PP_NAME_MAX] = '\0';
    CHECK_INT(pp_name_why(long_name, why, sizeof why), -EINVAL);
    CHECK_CONTAINS(why, "128 characters, at most 127");
}

void test_path_fmt(void);
void test_path_fmt(void)
{
    char out[64];

    CHECK_INT(pp_path_fmt(out, sizeof out, "res", "model/%s__%s.dat", "total_mean_w", "a.b"), 0);
    CHECK_STR(out, "res/model/total_mean_w__a.b.dat");
    CHECK_INT(pp_path_fmt(out, sizeof out, "res/", "traces/%ld.csv", 12L), 0);
    CHECK_STR(out, "res/traces/12.csv");
    test_log_clear();
    CHECK_INT(pp_path_fmt(out, sizeof out, "res", "model/%s.dat", "../../ESCAPED_w"), -EINVAL);
    CHECK_STR(out, "");
    CHECK_CONTAINS(test_log(), "'../../ESCAPED_w': character '.' at position 1");
    CHECK_INT(pp_path_fmt(out, sizeof out, "res", "%s.gp", "a/b"), -EINVAL);
    CHECK_INT(pp_path_fmt(out, sizeof out, "res", "%s", ".."), -EINVAL);
    CHECK_INT(pp_path_fmt(out, sizeof out, "res", "%s", ""), -EINVAL);
    CHECK_INT(pp_path_fmt(out, sizeof out, "res", "%s", "-rf"), -EINVAL);
    CHECK_INT(pp_path_fmt(out, 12, "res", "%s.dat", "abcdefgh"), -ENAMETOOLONG);
    CHECK_INT(pp_path_fmt(out, sizeof out, "res", "%-5s", "a"), -EINVAL); /* no width on names */
}

/* Hostile strings through pp_gp_quote into a real gnuplot: each prints
 * back as itself, and nothing runs. */
void test_gnuplot_quoting(void);
void test_gnuplot_quoting(void)
{
    static const char *const s[] = {
        "it's",      "a\"b",        "`touch INJ1`",         "$(touch INJ2)", "@m",
        "x\ny",      "\x01\x7f\xc3\xa9", "back\\slash\\", "semi;colon # hash", "",
        "'.system('touch INJ3').'", "q\";system(\"touch INJ4\");\"",
    };
    char script[512], q[512], expect[1024] = "", *err = NULL;
    char *argv[] = {"gnuplot", script, NULL};
    FILE *fp;

    CHECK_INT(pp_gp_quote(q, sizeof q, "it's\n"), 0);
    CHECK_STR(q, "'it'.\"\\047\".'s'.\"\\012\"");
    CHECK_INT(pp_gp_quote(q, sizeof q, ""), 0);
    CHECK_STR(q, "''");
    CHECK_INT(pp_gp_quote(q, 4, "abcdef"), -ENAMETOOLONG);
    CHECK_STR(q, "''");
    snprintf(script, sizeof script, "%s/t.gp", test_tmpdir());
    fp = fopen(script, "w");
    CHECK_INT(pp_gp_printf(fp, "cd %s\n", test_tmpdir()), 0);
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        CHECK_INT(pp_gp_printf(fp, "print %s\n", s[i]), 0);
        strcat(expect, s[i]);
        strcat(expect, "\n");
    }
    CHECK_INT(pp_gp_printf(fp, "print %d, '%.2f', %zu, %ld, '%c', '100%%'\n", 3, 1.5, (size_t)7,
                           8L, 'x'), 0);
    strcat(expect, "3 1.50 7 8 x 100%\n");
    fclose(fp);
    fp = fopen("/dev/null", "w");
    CHECK_INT(pp_gp_printf(fp, "print %p\n", (void *)fp), -EINVAL); /* only known conversions */
    fclose(fp);
    if (run_argv((char *[]){"sh", "-c", "command -v gnuplot", NULL}, NULL, NULL) != 0) {
        fprintf(stderr, "    (gnuplot not installed: quoting checked by its form only)\n");
        return;
    }
    CHECK_INT(run_argv(argv, NULL, &err), 0);
    CHECK_STR(err, expect);
    free(err);
    for (int i = 1; i <= 4; i++) {
        char inj[600];
        snprintf(inj, sizeof inj, "%s/INJ%d", test_tmpdir(), i);
        CHECK(access(inj, F_OK) != 0);
    }
}

/* ---- the source scan ------------------------------------------------------ */

static const char *const gnuplot_words[] = {
    "set title", "set xlabel", "set ylabel", "set zlabel", "set y2label", "set output",
    "set terminal", "plot '", "plot \"", "splot", "replot", "title '", "title \"",
};

/* A string literal at s (s[0] == '"'): its text appended to out; returns
 * the position after it. */
static const char *literal(const char *s, char *out, size_t cap)
{
    size_t len = strlen(out);

    for (s++; *s && *s != '"'; s++) {
        if (*s == '\\' && s[1])
            s++;
        if (len + 1 < cap)
            out[len++] = *s;
    }
    out[len] = '\0';
    return *s ? s + 1 : s;
}

/* One call starting at the '(' at s: the text of its first group of string
 * literals (the format) and of all its literals; returns its end. */
static const char *call_literals(const char *s, char *fmt, char *all, size_t cap)
{
    int depth = 0, fmt_done = 0;

    fmt[0] = all[0] = '\0';
    for (; *s; s++) {
        if (*s == '"') {
            char one[4096] = "";
            s = literal(s, one, sizeof one) - 1;
            if (!fmt_done && strlen(fmt) + strlen(one) < cap)
                strcat(fmt, one);
            if (strlen(all) + strlen(one) < cap)
                strcat(all, one);
        } else if (*s == '\'') {
            s += s[1] == '\\' ? 3 : 2;
        } else if (*s == '(') {
            depth++;
        } else if (*s == ')' && --depth == 0) {
            return s;
        } else if (*s == ',' && fmt[0] && depth == 1) {
            fmt_done = 1;
        }
    }
    return s;
}

static int is_word(const char *text, const char *at, const char *word)
{
    size_t n = strlen(word);
    return strncmp(at, word, n) == 0 && at[n] == '(' &&
           (at == text || !(isalnum((unsigned char)at[-1]) || at[-1] == '_'));
}

/* Calls in text that build a path from a name without pp_path_fmt, or
 * write gnuplot commands without pp_gp_printf, or put a %s of
 * pp_gp_printf inside quotes of its own. Each one is described in report.
 * Returns how many. */
static int scan_source(const char *file, const char *text, char *report, size_t cap)
{
    static const char *const formatters[] = {"pp_fmt", "snprintf", "sprintf", "vsnprintf"};
    static const char *const writers[] = {"fprintf", "fputs", "printf", "puts", "fwrite",
                                          "pp_fmt", "snprintf", "sprintf", "vsnprintf"};
    /* a '/' beside a %s joins a name to a folder; "%.3g/%.3g fps" does not */
    static const char *const path_marks[] = {"%s/", "/%s", ".csv", ".dat", ".gp", ".json",
                                             ".png", ".svg"};
    int bad = 0, line = 1;

    for (const char *s = text; *s; s++) {
        char fmt[4096], all[4096];
        const char *why = NULL, *end;
        int is_fmt = 0, is_writer = 0;

        if (*s == '\n')
            line++;
        if (s[0] == '/' && s[1] == '*') { /* comments mention anything */
            for (s += 2; *s && !(s[0] == '*' && s[1] == '/'); s++)
                line += *s == '\n';
            continue;
        }
        if (s[0] == '/' && s[1] == '/') {
            s += strcspn(s, "\n") - 1;
            continue;
        }
        if (*s == '"') { /* a literal outside the calls looked at */
            char skip[4096] = "";
            s = literal(s, skip, sizeof skip) - 1;
            continue;
        }
        for (size_t i = 0; i < sizeof formatters / sizeof formatters[0]; i++)
            is_fmt |= is_word(text, s, formatters[i]);
        for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++)
            is_writer |= is_word(text, s, writers[i]);
        if (is_word(text, s, "pp_gp_printf")) {
            end = call_literals(strchr(s, '('), fmt, all, sizeof fmt);
            if (strstr(fmt, "'%s") || strstr(fmt, "\"%s") || strstr(fmt, "%s'"))
                why = "a %s of pp_gp_printf inside quotes: it quotes by itself";
        } else if (is_fmt || is_writer) {
            end = call_literals(strchr(s, '('), fmt, all, sizeof fmt);
            const char *rest = strncmp(fmt, "%s/", 3) == 0 ? fmt + 3 : fmt;
            for (size_t i = 0; is_fmt && !why && i < sizeof path_marks / sizeof path_marks[0];
                 i++)
                if (strstr(fmt, path_marks[i]) && strstr(rest, "%s"))
                    why = "a path built from a name: use pp_path_fmt";
            for (size_t i = 0; !why && i < sizeof gnuplot_words / sizeof gnuplot_words[0]; i++)
                for (const char *w = all; !why && (w = strstr(w, gnuplot_words[i])); w++)
                    if (w == all || !isalnum((unsigned char)w[-1]))
                        why = "a gnuplot command: write it with pp_gp_printf";
        } else {
            continue;
        }
        if (why) {
            size_t len = strlen(report);
            snprintf(report + len, cap - len, "%s:%d: %s: \"%s\"\n", file, line, why, fmt);
            bad++;
        }
        for (; s < end; s++)
            line += *s == '\n';
    }
    return bad;
}

/* Scans every .c file of dir but util.c; the number of files scanned. */
static int scan_folder(const char *dir, char *report, size_t cap)
{
    char path[1600];
    struct dirent *e;
    DIR *d = opendir(dir);
    int files = 0;

    CHECK(d != NULL);
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        char *text;
        if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0 || strcmp(e->d_name, "util.c") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        text = slurp(path);
        CHECK(text != NULL);
        if (text)
            scan_source(e->d_name, text, report, cap);
        free(text);
        files++;
    }
    if (d)
        closedir(d);
    return files;
}

/* scan_folder on every folder of root (src/: a folder added or moved is
 * scanned without a list to keep up). */
static int scan_folders(const char *root, char *report, size_t cap)
{
    char path[1300];
    struct dirent *e;
    struct stat st;
    DIR *d = opendir(root);
    int files = 0;

    CHECK(d != NULL);
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            files += scan_folder(path, report, cap);
    }
    if (d)
        closedir(d);
    return files;
}

/* Every string that goes into a gnuplot script, and every path built from
 * a name, goes through pp_gp_printf / pp_path_fmt: a scan of src/ (util.c
 * implements them) finds the calls that bypass them. The scan is shown to
 * catch what it looks for first. */
void test_names_reach_paths_and_scripts_checked(void);
void test_names_reach_paths_and_scripts_checked(void)
{
    static const char planted[] =
        "static void f(FILE *fp, const char *dir, const char *m)\n{\n"
        "    char path[64]; /* \"%s/%s.dat\" in a comment is fine */\n"
        "    pp_fmt(path, sizeof path, \"%s/model/%s.dat\", dir, m);\n"
        "    snprintf(path, sizeof path,\n             \"%s/\" \"plots/\"\n"
        "             \"%s.gp\", dir, m);\n"
        "    fprintf(fp, \"set title '%s'\\n\", m);\n"
        "    fputs(\"plot 'x' title 'y'\", fp);\n"
        "    pp_gp_printf(fp, \"set xlabel '%s'\\n\", m);\n"
        "    pp_fmt(path, sizeof path, \"%s/run.json\", dir);\n"
        "    pp_gp_printf(fp, \"set ylabel %s\\n\", m);\n"
        "    pp_path_fmt(path, sizeof path, dir, \"model/%s.dat\", m);\n}\n";
    char dir[1024], report[16384] = "";
    int files = 0, bad;

    CHECK_INT(scan_source("planted.c", planted, report, sizeof report), 5);
    CHECK_CONTAINS(report, "planted.c:4: a path built from a name");
    CHECK_CONTAINS(report, "planted.c:5: a path built from a name");
    CHECK_CONTAINS(report, "planted.c:8: a gnuplot command");
    CHECK_CONTAINS(report, "planted.c:9: a gnuplot command");
    CHECK_CONTAINS(report, "planted.c:10: a %s of pp_gp_printf inside quotes");
    report[0] = '\0';
    snprintf(dir, sizeof dir, "%s/../../src", fixture("."));
    files += scan_folders(dir, report, sizeof report);
    snprintf(dir, sizeof dir, "%s/../../plots", fixture("."));
    files += scan_folder(dir, report, sizeof report);
    CHECK(files > 20);
    bad = report[0] != '\0';
    if (bad)
        pp_test_fail(__FILE__, __LINE__, "calls that bypass the checks:\n%s", report);
}

/* ---- the reproducers of issue 12 through the command line ----------------- */

static int count_files_named(const char *dir, const char *part)
{
    char cmd[1024], *out = NULL;
    int n;

    snprintf(cmd, sizeof cmd, "find \"$0\" -name '*%s*' | wc -l", part);
    run_argv((char *[]){"sh", "-c", cmd, (char *)dir, NULL}, &out, NULL);
    n = out ? atoi(out) : -1;
    free(out);
    return n;
}

/* A results folder written by hand, as an attacker would. */
static void hostile_results(const char *dir, const char *header, const char *rows)
{
    char path[1024];

    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/traces", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    char *text = malloc(strlen(header) + strlen(rows) + 2);
    sprintf(text, "%s\n%s", header, rows);
    write_file(path, text);
    free(text);
    snprintf(path, sizeof path, "%s/traces/0.csv", dir);
    write_file(path, "t_s,a_w\n0,1\n1,2\n");
}

/* `powprof import csv` of csv_text with these --param values (NULL: one
 * x=1) must stop with exit status 2 and message, and create nothing. */
static void expect_import_refused(const char *csv_text, const char *param, const char *param2,
                                  const char *message)
{
    char csv[512], out[512], *err = NULL;

    snprintf(csv, sizeof csv, "%s/in.csv", test_tmpdir());
    snprintf(out, sizeof out, "%s/refused", test_tmpdir());
    write_file(csv, csv_text);
    CHECK_INT(run_powprof(NULL, &err, "import", "csv", csv, "-o", out, "--param",
                          param ? param : "x=1", param2 ? "--param" : NULL, param2, NULL), 2);
    CHECK_CONTAINS(err, message);
    free(err);
    CHECK(access(out, F_OK) != 0);
}

void test_cli_hostile_names(void);
void test_cli_hostile_names(void)
{
    char out[512], deep[512], *err = NULL;
    const char *tmp = test_tmpdir();

    /* 2: a rail name that would call system() from a gnuplot title */
    expect_import_refused("t_s,a'.system('touch INJ').'_w\n0,1\n1,2\n", NULL, NULL,
                          "in.csv:1: column 2: rail 'a'.system('touch INJ').'': character '''");
    /* and a parameter name */
    expect_import_refused("t_s,a_w\n0,1\n1,2\n", "q\";system(\"touch INJ2\");\"=1", NULL,
                          "--param 'q\";system(\"touch INJ2\");\"': character '\"' at position 2");
    snprintf(out, sizeof out, "%s/r1", tmp);
    /* the same names in a summary.csv made by hand: plot, model, predict
     * and plan refuse it, naming the file, the line and the column */
    hostile_results(out, "id,q\";system(\"touch INJ2\");\",status,duration_s,total_mean_w,reason",
                    "0,1,ok,1,2,\n1,2,ok,1,3,\n");
    static const char *const cmds[][3] = {{"plot", NULL, NULL}, {"model", NULL, NULL},
                                          {"predict", "x=1", NULL}, {"plan", "--mission-s", "60"}};
    for (size_t i = 0; i < 4; i++) {
        CHECK_INT(run_powprof(NULL, &err, cmds[i][0], out, cmds[i][1], cmds[i][2], NULL), 2);
        CHECK_CONTAINS(err, "summary.csv:1: column 2 'q\"");
        free(err);
    }
    CHECK_INT(count_files_named(tmp, "INJ"), 0);
    /* 3: a metric that would write two levels above RESULTS/model */
    snprintf(deep, sizeof deep, "%s/a", tmp);
    mkdir(deep, 0755);
    snprintf(deep, sizeof deep, "%s/a/b", tmp);
    mkdir(deep, 0755);
    snprintf(out, sizeof out, "%s/a/b/r3", tmp);
    hostile_results(out, "id,x,status,duration_s,../../ESCAPED_mean_w,total_mean_w,reason",
                    "0,1,ok,1,2,2,\n1,2,ok,1,3,3,\n");
    CHECK_INT(run_powprof(NULL, &err, "model", out, NULL), 2);
    CHECK_CONTAINS(err, "summary.csv:1: column 5 '../../ESCAPED_mean_w': character '.' at "
                        "position 1");
    free(err);
    CHECK_INT(run_powprof(NULL, &err, "plot", out, NULL), 2);
    free(err);
    CHECK_INT(count_files_named(tmp, "ESCAPED"), 0);
    expect_import_refused("t_s,../../ESCAPED_w\n0,1\n1,2\n", NULL, NULL,
                          "in.csv:1: column 2: rail '../../ESCAPED'");
}

/* 7: summary.csv stays well-formed: a comma in a parameter name, a rail
 * called total, a parameter given twice; folders 0755 like profile's. */
void test_cli_import_names_and_mode(void);
void test_cli_import_names_and_mode(void)
{
    static const char csv_text[] = "t_s,total_w,gpu_w\n0,5,1\n1,7,2\n";
    char csv[512], out[512], path[700], *err = NULL, *text;
    struct stat st;

    expect_import_refused(csv_text, "a,b=1", NULL, "--param 'a,b': character ',' at position 2");
    expect_import_refused(csv_text, "x=1", "x=2", "parameter 'x' is given twice");
    expect_import_refused(csv_text, "status=1", NULL,
                          "parameter 'status': summary.csv has a column of that name");
    snprintf(csv, sizeof csv, "%s/total.csv", test_tmpdir());
    write_file(csv, csv_text);
    snprintf(out, sizeof out, "%s/r", test_tmpdir());
    umask(022);
    CHECK_INT(run_powprof(NULL, &err, "import", "csv", csv, "--param", "x=1", "-o", out, NULL), 0);
    CHECK_CONTAINS(err, "rail 'total' renamed 'total_rail'");
    free(err);
    snprintf(path, sizeof path, "%s/summary.csv", out);
    text = slurp(path);
    CHECK(text && strstr(text, "id,x,status,duration_s,iterations,late_frames,samples,short_run,"
                               "total_rail_mean_w,total_rail_energy_j,gpu_mean_w,gpu_energy_j,"
                               "total_mean_w,") == text);
    free(text);
    CHECK(stat(out, &st) == 0 && (st.st_mode & 0777) == 0755);
    snprintf(path, sizeof path, "%s/traces", out);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0755);
    CHECK_INT(run_powprof(&text, &err, "predict", out, "x=1", NULL), 0);
    CHECK_CONTAINS(text, "total_rail_mean_w");
    free(text);
    free(err);
}

/* A summary.csv whose header repeats a column, or whose id is no number. */
void test_summary_header_checks(void);
void test_summary_header_checks(void)
{
    char dir[512];
    pp_summary s;

    snprintf(dir, sizeof dir, "%s/s", test_tmpdir());
    hostile_results(dir, "id,x,status,duration_s,total_mean_w,total_mean_w,reason",
                    "0,1,ok,1,2,2,\n");
    test_log_clear();
    CHECK_INT(pp_summary_read(dir, &s), -EINVAL);
    CHECK_CONTAINS(test_log(), "summary.csv:1: column 6 'total_mean_w' repeats column 5");
    hostile_results(dir, "id,x,status,duration_s,total_mean_w,reason", "../1,1,ok,1,2,\n");
    CHECK_INT(pp_summary_read(dir, &s), -EINVAL);
    CHECK_CONTAINS(test_log(), "summary.csv:2: id '../1' is not a whole number >= 0");
    /* run.json gives the scales, read with jansson; a broken one is said */
    hostile_results(dir, "id,x,status,duration_s,total_mean_w,reason",
                    "0,1,ok,1,2,\n1,2,ok,1,3,\n2,4,ok,1,3,\n");
    char path[600];
    snprintf(path, sizeof path, "%s/run.json", dir);
    write_file(path, "{\"params\":{\"x\":{\"scale\":\"linear\"}}}");
    CHECK_INT(pp_summary_read(dir, &s), 0);
    CHECK_INT(s.log_scale[0], 0); /* 1, 2, 4 would look geometric */
    pp_summary_free(&s);
    write_file(path, "{\"params\":");
    test_log_clear();
    CHECK_INT(pp_summary_read(dir, &s), 0);
    CHECK_INT(s.log_scale[0], 1);
    CHECK_CONTAINS(test_log(), "run.json:1: ");
    CHECK_CONTAINS(test_log(), "parameter kinds taken from the values");
    pp_summary_free(&s);
}
