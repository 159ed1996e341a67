/* Adaptive profiling (issue 21): the design, the acquisition, the stopping
 * rules, resume and replay, and a live run through the command line. */
#include "harness.h"
#include "limited.h"

#include "src/adaptive/adaptive_model.h"
#include "src/adaptive/adaptive.h"
#include "src/adaptive/adaptive_design.h"
#include "src/adaptive/adaptive_run.h"
#include "tests/replay_oracle.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A full grid of na x nb configurations a = 0..1, b = 0..1 written as a
 * results folder: energy f(a, b), power 2 + f / 10, duration 1 s (costly
 * 1: 1 + 9 a; 2: 1 + 99 a b). */
static const char *grid_folder(const char *name, int na, int nb, double (*f)(double, double),
                               int costly)
{
    size_t cap = (size_t)(na * nb + 2) * 200, used = 0;
    char *text = malloc(cap);
    const char *dir;

    used += (size_t)snprintf(text + used, cap - used,
                             "id,a,b,status,duration_s,total_mean_w,total_energy_j\n");
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            double a = (double)i / (na - 1), b = (double)j / (nb - 1), e = f(a, b);
            used += (size_t)snprintf(text + used, cap - used, "%d,%.6g,%.6g,ok,%g,%.9g,%.9g\n",
                                     i * nb + j, a, b, costly == 1   ? 1 + 9 * a
                                     : costly == 2 ? 1 + 99 * a * b
                                                   : 1.0,
                                     2 + e / 10, e);
        }
    dir = results_folder_with(name, text, NULL);
    free(text);
    return dir;
}

static double steep_corner(double a, double b)
{
    return 1 + 50 * exp(-((1 - a) * (1 - a) + (1 - b) * (1 - b)) / 0.04);
}

static double smooth(double a, double b)
{
    return 10 + 5 * a + 3 * b;
}

/* The ids chosen, in order, from dir/adaptive.json, as text. */
static void chosen_ids(const char *dir, char *buf, size_t cap)
{
    char path[600], *text;
    const char *at;
    size_t used = 0;

    snprintf(path, sizeof path, "%s/adaptive.json", dir);
    buf[0] = ' ';
    buf[1] = '\0';
    used = 1;
    text = slurp(path);
    for (at = text; at && (at = strstr(at, "\"id\": ")); at += 6)
        used += (size_t)snprintf(buf + used, cap - used, "%ld ", strtol(at + 6, NULL, 10));
    free(text);
}

void test_adaptive_design_covers_corners_and_labels(void);
void test_adaptive_design_covers_corners_and_labels(void)
{
    static const char *const labels[] = {"x", "y", "z"};
    pp_adaptive_space s;
    size_t out[64], out2[64], n, n2, nc, corners = 0;
    pp_adaptive_why why[64], why2[64];
    int label_seen[3] = {0}, centre = 0;
    uint8_t taken[60] = {0};

    /* a (5 levels) x b (4 levels) x m (3 labels) */
    CHECK_INT(pp_adaptive_space_init(&s, 3, 60), 0);
    CHECK_INT(pp_adaptive_space_set_labels(&s, 2, 3, labels), 0);
    for (size_t c = 0; c < 60; c++) {
        s.raw[c * 3] = (double)(c / 12) * 10;
        s.raw[c * 3 + 1] = (double)((c / 3) % 4);
        s.raw[c * 3 + 2] = (double)(c % 3);
        s.ids[c] = c;
    }
    CHECK_INT(pp_adaptive_space_finish(&s), 0);
    CHECK_INT(s.n_groups, 3);
    /* the first round: the centre, every label, one maximin point inside */
    n = pp_adaptive_design(&s, 7, out, why, 64);
    CHECK_INT(n, 1 + 2 + 1);
    for (size_t i = 0; i < n; i++) {
        double a = s.xn[out[i] * 3], b = s.xn[out[i] * 3 + 1];
        centre += why[i] == PP_WHY_CENTRE && fabs(a - 0.5) <= 0.25 && fabs(b - 0.5) <= 0.34;
        label_seen[(int)s.raw[out[i] * 3 + 2]] = 1;
        if (why[i] == PP_WHY_MAXIMIN)
            CHECK(a > 0 && a < 1 && b > 0 && b < 1);
        for (size_t j = 0; j < i; j++)
            CHECK(out[j] != out[i]);
        taken[out[i]] = 1;
    }
    CHECK_INT(centre, 1);
    CHECK(label_seen[0] && label_seen[1] && label_seen[2]);
    /* the second: the four corners, labels turning round */
    nc = pp_adaptive_corners(&s, 7, taken, out2, 64);
    CHECK_INT(nc, 4);
    for (size_t i = 0; i < nc; i++) {
        double a = s.xn[out2[i] * 3], b = s.xn[out2[i] * 3 + 1];
        corners += (a == 0 || a == 1) && (b == 0 || b == 1) && !taken[out2[i]];
        for (size_t j = 0; j < i; j++)
            CHECK(out2[j] != out2[i] && s.xn[out2[j] * 3] * 2 + s.xn[out2[j] * 3 + 1] !=
                                            s.xn[out2[i] * 3] * 2 + s.xn[out2[i] * 3 + 1]);
    }
    CHECK_INT(corners, 4);
    /* the same seed, the same design; a cap is kept */
    n2 = pp_adaptive_design(&s, 7, out2, why2, 64);
    CHECK_INT(n2, n);
    CHECK(memcmp(out, out2, n * sizeof *out) == 0);
    CHECK_INT(pp_adaptive_design(&s, 7, out2, why2, 2), 2);
    pp_adaptive_space_free(&s);
}

/* A corner that costs far more than the grid's mean is not in the design:
 * the acquisition weighs it; the cheap ones are. */
void test_adaptive_costly_corner_left_to_acquisition(void);
void test_adaptive_costly_corner_left_to_acquisition(void)
{
    const char *full = grid_folder("full", 5, 5, smooth, 2);
    char dir[600], ids[4096];
    pp_adaptive_options o;
    pp_replayed r;

    snprintf(dir, sizeof dir, "%s/ad", test_tmpdir());
    pp_adaptive_options_init(&o);
    o.target_error_pct = 0;
    o.max_configs = 5; /* the centre, one maximin point, the corners */
    CHECK_INT(pp_replay_run(&r, full, dir, &o), 0);
    CHECK_INT(r.res.rounds, 2);
    chosen_ids(dir, ids, sizeof ids);
    CHECK_CONTAINS(ids, " 0 ");
    CHECK_CONTAINS(ids, " 4 ");
    CHECK_CONTAINS(ids, " 20 ");
    CHECK(strstr(ids, " 24 ") == NULL); /* a = b = 1 costs 100 s, the mean 25.75 s */
    pp_replayed_free(&r);
}

/* One steep corner: the configurations chosen after the design go there. */
void test_adaptive_steep_corner_gets_the_points(void);
void test_adaptive_steep_corner_gets_the_points(void)
{
    const char *full = grid_folder("full", 9, 9, steep_corner, 0);
    char dir[600], path[700], *text;
    pp_adaptive_options o;
    pp_replayed r;
    int near = 0, far = 0;

    snprintf(dir, sizeof dir, "%s/ad", test_tmpdir());
    pp_adaptive_options_init(&o);
    o.target_error_pct = 0;
    o.max_configs = 24;
    CHECK_INT(pp_replay_run(&r, full, dir, &o), 0);
    CHECK_INT(r.res.stop, PP_STOP_MAX_CONFIGS);
    CHECK_INT(r.res.n_chosen, 24);
    snprintf(path, sizeof path, "%s/adaptive.json", dir);
    text = slurp(path);
    CHECK(text != NULL);
    /* the acquisition's picks: where a and b are both >= 0.625 (16 of the
     * 81 configurations, a fifth of the square) */
    for (const char *at = text; at && (at = strstr(at, "\"a\": ")); at += 5) {
        double a = atof(at + 5), b = atof(strstr(at, "\"b\": ") + 5);
        const char *why = strstr(at, "\"why\": \"");
        if (!why || strncmp(why + 8, "band", 4) != 0)
            continue;
        if (a >= 0.6 && b >= 0.6)
            near++;
        else
            far++;
    }
    CHECK(near + far >= 10);
    CHECK(near > far);
    free(text);
    pp_replayed_free(&r);
}

void test_adaptive_stops_by_each_rule(void);
void test_adaptive_stops_by_each_rule(void)
{
    static char full[512], smooth_dir[512];
    char dir[600];
    pp_adaptive_options o;
    pp_replayed r;

    snprintf(full, sizeof full, "%s", grid_folder("full", 9, 9, steep_corner, 1));
    snprintf(smooth_dir, sizeof smooth_dir, "%s", grid_folder("flat", 6, 6, smooth, 0));
    /* max_configs */
    pp_adaptive_options_init(&o);
    o.target_error_pct = 0;
    o.max_configs = 13;
    snprintf(dir, sizeof dir, "%s/max", test_tmpdir());
    CHECK_INT(pp_replay_run(&r, full, dir, &o), 0);
    CHECK_INT(r.res.stop, PP_STOP_MAX_CONFIGS);
    CHECK_INT(r.res.fit.n_rows, 13);
    CHECK(r.res.full_grid_s > r.res.fit.measured_s);
    pp_replayed_free(&r);
    /* budget: durations 1 .. 10 s; never past it */
    o.max_configs = 0;
    o.budget_s = 60;
    snprintf(dir, sizeof dir, "%s/budget", test_tmpdir());
    CHECK_INT(pp_replay_run(&r, full, dir, &o), 0);
    CHECK_INT(r.res.stop, PP_STOP_BUDGET);
    CHECK(r.res.fit.measured_s <= 60 + 1e-9);
    CHECK(r.res.fit.measured_s > 30);
    pp_replayed_free(&r);
    /* the target: a plane is learnt long before the grid's end */
    o.budget_s = 0;
    o.target_error_pct = 5;
    snprintf(dir, sizeof dir, "%s/target", test_tmpdir());
    CHECK_INT(pp_replay_run(&r, smooth_dir, dir, &o), 0);
    CHECK_INT(r.res.stop, PP_STOP_TARGET);
    CHECK(r.res.n_chosen < 36);
    for (size_t k = 0; k < r.res.fit.n_metrics; k++)
        CHECK(r.res.fit.error_pct[k] <= 5);
    pp_replayed_free(&r);
    /* the whole grid, without a target */
    o.target_error_pct = 0;
    snprintf(dir, sizeof dir, "%s/grid", test_tmpdir());
    CHECK_INT(pp_replay_run(&r, smooth_dir, dir, &o), 0);
    CHECK_INT(r.res.stop, PP_STOP_GRID);
    CHECK_INT(r.res.n_chosen, 36);
    pp_replayed_free(&r);
}

/* An oracle that stops (as an interrupted sweep does) in the middle of
 * its round'th call, after one configuration. */
typedef struct flaky {
    pp_replay *rp;
    int calls, stop_at;
} flaky;

static int flaky_measure(void *ctx, const pp_adaptive_space *s, const size_t *cands, size_t n,
                         const char *dir)
{
    flaky *f = ctx;

    if (++f->calls == f->stop_at && n > 1) {
        pp_replay_measure(f->rp, s, cands, 1, dir);
        return -EINTR;
    }
    return pp_replay_measure(f->rp, s, cands, n, dir);
}

/* Interrupted in a round, or stopped by max_configs, then resumed: the
 * same choices as a run straight through; the same seed, the same choices. */
void test_adaptive_resume_and_replay_same_choices(void);
void test_adaptive_resume_and_replay_same_choices(void)
{
    const char *full = grid_folder("full", 9, 9, steep_corner, 1);
    char straight[600], again[600], cut[600], a[4096], b[4096], c[4096], *text;
    pp_adaptive_options o;
    pp_replayed r;
    flaky fl;

    pp_adaptive_options_init(&o);
    o.target_error_pct = 0;
    o.max_configs = 20;
    snprintf(straight, sizeof straight, "%s/straight", test_tmpdir());
    snprintf(again, sizeof again, "%s/again", test_tmpdir());
    snprintf(cut, sizeof cut, "%s/cut", test_tmpdir());
    CHECK_INT(pp_replay_run(&r, full, straight, &o), 0);
    pp_replayed_free(&r);
    CHECK_INT(pp_replay_run(&r, full, again, &o), 0);
    pp_replayed_free(&r);
    chosen_ids(straight, a, sizeof a);
    chosen_ids(again, b, sizeof b);
    CHECK(strlen(a) > 20);
    CHECK_STR(b, a);
    /* without resume, a second run into the folder is refused */
    CHECK_INT(pp_replay_run(&r, full, again, &o), -EEXIST);
    pp_replayed_free(&r);
    /* interrupted in the middle of the third round */
    CHECK_INT(pp_replay_open(full, &r.rp, &r.s), 0);
    pp_adaptive_model_predictor(&r.am, &r.pr);
    fl = (flaky){&r.rp, 0, 3};
    r.orc = (pp_adaptive_oracle){&fl, flaky_measure, NULL};
    CHECK_INT(pp_adaptive_run(&r.s, &o, &r.pr, &r.orc, cut, NULL, NULL, NULL, &r.res), -EINTR);
    pp_replayed_free(&r);
    /* resumed with a smaller cap first (stops there), then to the end */
    o.resume = 1;
    o.max_configs = 12; /* the design's 2 + 4, then rounds of 2: a round's end */
    CHECK_INT(pp_replay_run(&r, full, cut, &o), 0);
    CHECK_INT(r.res.stop, PP_STOP_MAX_CONFIGS);
    pp_replayed_free(&r);
    o.max_configs = 20;
    CHECK_INT(pp_replay_run(&r, full, cut, &o), 0);
    CHECK_INT(r.res.n_chosen, 20);
    CHECK_INT(r.res.fit.n_rows, 20);
    pp_replayed_free(&r);
    chosen_ids(cut, c, sizeof c);
    CHECK_STR(c, a);
    /* a folder measured without adaptive.json (a plain sweep cut short):
     * its rows are adopted as a round of their own, the design follows */
    snprintf(cut, sizeof cut, "%s/plain", test_tmpdir());
    CHECK_INT(pp_replay_open(full, &r.rp, &r.s), 0);
    {
        size_t first[3] = {0, 1, 2};
        CHECK_INT(pp_replay_measure(&r.rp, &r.s, first, 3, cut), 0);
    }
    pp_replayed_free(&r);
    o.max_configs = 10;
    CHECK_INT(pp_replay_run(&r, full, cut, &o), 0);
    CHECK_INT(r.res.n_chosen, 10);
    CHECK_INT(r.res.fit.n_rows, 10);
    pp_replayed_free(&r);
    snprintf(a, sizeof a, "%s/adaptive.json", cut);
    text = slurp(a);
    CHECK_CONTAINS(text, "\"why\": \"resumed\"");
    CHECK_CONTAINS(text, "\"why\": \"centre\"");
    free(text);
}

/* A live adaptive run through the command line; its folder models and
 * plans as any other; the profile's adaptive group and its errors. */
void test_adaptive_cli_live_folder_models_and_plans(void);
void test_adaptive_cli_live_folder_models_and_plans(void)
{
    char cfg[600], out[600], text[2048], path[700], *so = NULL, *se = NULL, *json;

    snprintf(cfg, sizeof cfg, "%s/p.cfg", test_tmpdir());
    snprintf(out, sizeof out, "%s/out", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { name = \"t\"; device = \"procstat\"; rate_hz = 50.0;\n"
             "  sysfs_root = \"%s\"; adaptive = { target_error = 0.0; max_configs = 7; }; };\n"
             "components = ({ name = \"s\"; type = \"exec\"; command = [\"/bin/sleep\", \"{t}\"];\n"
             "  params = { t = [0.05, 0.1, 0.15, 0.2]; n = [1, 2, 3]; }; });\n",
             fixture("procstat"));
    write_file(cfg, text);
    CHECK_INT(run_powprof(&so, &se, "profile", cfg, "-o", out, "--json", NULL), 0);
    CHECK_CONTAINS(so, "\"adaptive\":{\"stop\":\"max-configs\",\"configs\":7,\"grid_configs\":12");
    CHECK_CONTAINS(se, "adaptive round 1:");
    free(so);
    free(se);
    snprintf(path, sizeof path, "%s/adaptive.json", out);
    json = slurp(path);
    CHECK_CONTAINS(json, "\"why\": \"corner\"");
    CHECK_CONTAINS(json, "\"stop\": \"max-configs\"");
    /* issue 32, item 7: rounds counted from 1, as the log counts them */
    CHECK_CONTAINS(json, "\"round\": 1,");
    CHECK(json && !strstr(json, "\"round\": 0,"));
    free(json);
    /* --resume with a larger cap goes on; its error named as model names it,
     * its last line counting the 7 rows already there (it said 0) */
    CHECK_INT(run_powprof(&so, NULL, "profile", cfg, "-o", out, "--resume", "--max-configs", "9",
                          NULL), 0);
    CHECK_CONTAINS(so, "9 of 12 configurations");
    CHECK_CONTAINS(so, "the full grid would have cost about");
    CHECK_CONTAINS(so, "error between levels");
    CHECK(so && !strstr(so, "nested error"));
    CHECK_CONTAINS(so, "9 configurations: 2 run (2 ok, 0 failed or timed out), 7 already done");
    free(so);
    CHECK_INT(run_powprof(&so, NULL, "model", out, NULL), 0);
    CHECK_CONTAINS(so, "9 configurations");
    free(so);
    CHECK_INT(run_powprof(&so, NULL, "plan", out, "--mission-s", "600", NULL), 0);
    free(so);
    /* a bad key of the group: file, line, key */
    snprintf(text, sizeof text,
             "profile = { name = \"t\"; device = \"procstat\";\n"
             "  adaptive = { batch = 0; }; };\n"
             "components = ({ name = \"s\"; type = \"idle\"; duration_s = 0.1; });\n");
    write_file(cfg, text);
    CHECK_INT(run_powprof(NULL, &se, "profile", cfg, "--dry-run", NULL), 2);
    CHECK_CONTAINS(se, "p.cfg:2");
    CHECK_CONTAINS(se, "batch");
    free(se);
    CHECK_INT(run_powprof(NULL, &se, "profile", cfg, "--target-error", "x", NULL), 2);
    CHECK_CONTAINS(se, "--target-error x");
    free(se);
}

/* Issue 32, item 7: an interrupted adaptive run says how many of the
 * grid's configurations are saved ("5 of 5" read as complete). */
void test_adaptive_interrupted_counts(void);
void test_adaptive_interrupted_counts(void)
{
    char cfg[600], out[600], log[600], summary[700], text[2048], *err;
    const char *bin = getenv("POWPROF_BIN");
    pid_t pid;
    int st;

    snprintf(cfg, sizeof cfg, "%s/adi.cfg", test_tmpdir());
    snprintf(out, sizeof out, "%s/adi-out", test_tmpdir());
    snprintf(log, sizeof log, "%s/adi.log", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { name = \"t\"; device = \"procstat\"; rate_hz = 50.0;\n"
             "  sysfs_root = \"%s\"; adaptive = { target_error = 0.0; }; };\n"
             "components = ({ name = \"s\"; type = \"exec\"; command = [\"/bin/sleep\", \"{t}\"];\n"
             "  params = { t = [0.3, 0.4, 0.5, 0.6]; n = [1, 2, 3]; }; });\n",
             fixture("procstat"));
    write_file(cfg, text);
    pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_WRONLY);
        dup2(nul, 1);
        dup2(fd, 2);
        execl(bin, bin, "profile", cfg, "-o", out, (char *)NULL);
        _exit(127);
    }
    snprintf(summary, sizeof summary, "%s/summary.csv", out);
    for (int i = 0; i < 3000 && access(summary, F_OK) != 0; i++)
        usleep(10000);
    usleep(900000);
    kill(pid, SIGINT);
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 130);
    err = slurp(log);
    CHECK_CONTAINS(err, " of 12 configurations saved in ");
    free(err);
}

/* Item 8: an adaptive resume believes summary.csv, not adaptive.json:
 * rows removed are measured again, rows the record lacks are counted. */
void test_adaptive_rows_truth(void);
void test_adaptive_rows_truth(void)
{
    const char *a = tmp_path("ad-a"), *b = tmp_path("ad-b");
    char path[700], *err = NULL, *text, *cut;

    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--max-configs",
                 "8", "--target-error", "0", "-o", a, NULL), 0);
    CHECK_INT(rows_of(a), 8);
    snprintf(path, sizeof path, "%s/summary.csv", a);
    text = slurp(path);
    for (int k = 0, n = 0; text && (cut = strrchr(text, '\n')) && k < 3; k++) {
        *cut = '\0'; /* the last 2 rows (and the final newline) */
        n++;
    }
    CHECK(text != NULL);
    if (text) {
        strcat(text, "\n");
        CHECK_INT(write_file(path, text), 0);
    }
    free(text);
    CHECK_INT(rows_of(a), 6);
    CHECK_INT(pp(NULL, &err, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--max-configs",
                 "8", "--target-error", "0", "-o", a, "--resume", NULL), 0);
    CHECK_CONTAINS(err, "2 configurations that adaptive.json records as measured have no row");
    CHECK_INT(rows_of(a), 8);
    free(err);
    err = NULL;
    /* a record emptied beside 6 rows, resumed up to 8: 8 rows, not 6 + 8 */
    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--max-configs",
                 "6", "--target-error", "0", "-o", b, NULL), 0);
    snprintf(path, sizeof path, "%s/adaptive.json", b);
    CHECK_INT(write_file(path, "{\"rounds\": []}\n"), 0);
    CHECK_INT(pp(NULL, &err, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--max-configs",
                 "8", "--target-error", "0", "-o", b, "--resume", NULL), 0);
    CHECK_CONTAINS(err, "6 rows of summary.csv are not in adaptive.json");
    CHECK_INT(rows_of(b), 8);
    free(err);
}

/* Item 13: adaptive.json that is a folder, or of more rounds than a run
 * records; option messages with both bounds; units where others take
 * them. */
void test_adaptive_record_and_options(void);
void test_adaptive_record_and_options(void)
{
    const char *a = tmp_path("ad-rec");
    char path[700], *err = NULL, *big;
    size_t len = 0;

    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--max-configs",
                 "4", "-o", a, NULL), 0);
    snprintf(path, sizeof path, "%s/adaptive.json", a);
    CHECK_INT(unlink(path), 0);
    CHECK_INT(mkdir(path, 0755), 0);
    CHECK_INT(pp(NULL, &err, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--max-configs",
                 "6", "-o", a, "--resume", NULL), 2);
    CHECK_CONTAINS(err, "adaptive.json: not a regular file (a directory)");
    free(err);
    err = NULL;
    CHECK_INT(rmdir(path), 0);
    big = malloc(10000 * 32 + 64);
    len += (size_t)sprintf(big, "{\"rounds\": [");
    for (int i = 0; i < 5000; i++)
        len += (size_t)sprintf(big + len, "%s{\"round\": %d, \"chosen\": []}", i ? "," : "", i);
    strcpy(big + len, "]}\n");
    CHECK_INT(write_file(path, big), 0);
    free(big);
    CHECK_INT(pp(NULL, &err, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--max-configs",
                 "6", "-o", a, "--resume", NULL), 2);
    CHECK_CONTAINS(err, "adaptive.json: 5000 rounds, at most 4096");
    free(err);
    err = NULL;
    CHECK_INT(pp(NULL, &err, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--batch",
                 "1000000000", "--dry-run", NULL), 2);
    CHECK_CONTAINS(err, "--batch 1000000000: a whole number from 1 to 1e8");
    free(err);
    err = NULL;
    CHECK_INT(pp(NULL, &err, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--target-error",
                 "1e308", "--dry-run", NULL), 2);
    CHECK_CONTAINS(err, "a percentage from 0 to 1e6");
    free(err);
    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--budget-s",
                 "1h", "--target-error", "5%", "--dry-run", NULL), 0);
}

/* Item 8, a run cut inside a round: the rows lost from a measured round
 * join the round cut short, which is measured next (in a round after it,
 * the cut one's own configurations were never measured). */
void test_adaptive_rows_truth_cut(void);
void test_adaptive_rows_truth_cut(void)
{
    const char *a = tmp_path("ad-cut");
    char path[700], rows[700], keep[8192] = "", *text, *line, *save = NULL;
    json_t *root, *rounds, *last, *first;
    json_error_t jerr;
    long drop[16];
    size_t n_drop = 0, i;
    json_t *pick;

    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--max-configs",
                 "8", "--target-error", "0", "-o", a, NULL), 0);
    snprintf(path, sizeof path, "%s/adaptive.json", a);
    root = json_load_file(path, 0, &jerr);
    rounds = json_object_get(root, "rounds");
    CHECK(json_array_size(rounds) >= 3);
    if (json_array_size(rounds) < 3) {
        json_decref(root);
        return;
    }
    last = json_array_get(rounds, json_array_size(rounds) - 1);
    first = json_array_get(rounds, 0);
    json_object_del(last, "error_pct"); /* cut before its end was recorded */
    json_array_foreach(json_object_get(last, "chosen"), i, pick)
        drop[n_drop++] = (long)json_integer_value(json_object_get(pick, "id"));
    drop[n_drop++] = (long)json_integer_value(
        json_object_get(json_array_get(json_object_get(first, "chosen"), 0), "id"));
    CHECK_INT(json_dump_file(root, path, 0), 0);
    json_decref(root);
    snprintf(rows, sizeof rows, "%s/summary.csv", a);
    text = slurp(rows);
    for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        int gone = 0;
        for (size_t k = 0; k < n_drop && line != text; k++)
            gone |= strtol(line, NULL, 10) == drop[k];
        if (!gone && strlen(keep) + strlen(line) + 2 < sizeof keep) {
            strcat(keep, line);
            strcat(keep, "\n");
        }
    }
    free(text);
    CHECK_INT(write_file(rows, keep), 0);
    CHECK_INT(rows_of(a), 8 - n_drop);
    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue33/ad.cfg"), "--adaptive", "--max-configs",
                 "8", "--target-error", "0", "-o", a, "--resume", NULL), 0);
    CHECK_INT(rows_of(a), 8);
}
