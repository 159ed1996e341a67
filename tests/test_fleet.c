/* Fleets of boards (issue 15): node identity, shards from the launchers'
 * environments, GNU parallel and mpirun running the shards of three
 * simulated boards (the fake Jetson tree with its readings scaled), merges
 * and their refusals, the board-to-board variability, repeats. */
#include "harness.h"

#include "src/layer2/model.h"
#include "src/results/node.h"
#include "src/config/shard.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The scale of the simulated boards' readings, and the difference between
 * them: (max - min) / mean. */
static const double g_scale[3] = {1.00, 1.08, 0.93};
#define SCALE_DIFFERENCE ((1.08 - 0.93) / ((1.00 + 1.08 + 0.93) / 3))

/* ---- the simulated boards ---- */

/* Multiply the number in path by scale. */
static void scale_file(const char *path, double scale)
{
    char *text = slurp(path), num[64];

    if (!text)
        return;
    snprintf(num, sizeof num, "%ld\n", lround(atof(text) * scale));
    write_file(path, num);
    free(text);
}

/* Board k (1, 2, 3): the fake TX2 tree with its power and current readings
 * scaled by g_scale[k - 1], host name board<k>, a device-tree model and a
 * kernel release. Its root (static buffer). */
static const char *board(int k)
{
    static char root[3][512];
    char path[700], src[512], text[128];
    char *cp[] = {"cp", "-a", src, root[k - 1], NULL};
    const char *dev[] = {"0-0040/iio:device0", "0-0041/iio:device1"};

    snprintf(src, sizeof src, "%s", fixture("jetson-tx2-iio"));
    snprintf(root[k - 1], sizeof root[k - 1], "%s/board%d", test_tmpdir(), k);
    if (access(root[k - 1], F_OK) == 0)
        return root[k - 1];
    CHECK_INT(run_argv(cp, NULL, NULL), 0);
    for (size_t d = 0; d < 2; d++)
        for (int ch = 0; ch < 3; ch++) {
            snprintf(path, sizeof path, "%s/sys/bus/i2c/drivers/ina3221x/%s/in_power%d_input",
                     root[k - 1], dev[d], ch);
            scale_file(path, g_scale[k - 1]);
            snprintf(path, sizeof path, "%s/sys/bus/i2c/drivers/ina3221x/%s/in_current%d_input",
                     root[k - 1], dev[d], ch);
            scale_file(path, g_scale[k - 1]);
        }
    snprintf(path, sizeof path, "%s/proc", root[k - 1]);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/proc/sys", root[k - 1]);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/proc/sys/kernel", root[k - 1]);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/proc/device-tree", root[k - 1]);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/proc/sys/kernel/hostname", root[k - 1]);
    snprintf(text, sizeof text, "board%d\n", k);
    write_file(path, text);
    snprintf(path, sizeof path, "%s/proc/sys/kernel/osrelease", root[k - 1]);
    write_file(path, "4.9.253-tegra\n");
    snprintf(path, sizeof path, "%s/proc/device-tree/model", root[k - 1]);
    write_file(path, "NVIDIA Jetson TX2 Developer Kit"); /* the device tree ends it with NUL */
    {
        FILE *fp = fopen(path, "a");
        if (fp) {
            fputc('\0', fp);
            fclose(fp);
        }
    }
    return root[k - 1];
}

/* How a test profile runs. */
typedef struct shape {
    const char *a_fps, *b_fps; /* the values of each component's fps */
    double duration_s, rate_hz;
} shape;

/* 6 configurations of 0.2 s at 500 Hz. */
static const shape g_short = {"[ 5.0, 10.0, 20.0 ]", "[ 5.0, 10.0 ]", 0.2, 500};

/* A profile of configurations of two idle components paced by fps,
 * sampling board k, in board<k>-<tag>.cfg. Its path (static buffer per
 * board). */
static const char *profile_of(int k, const char *tag, const shape *sh)
{
    static char cfg[4][512];
    char text[2048];

    snprintf(cfg[k], sizeof cfg[k], "%s/board%d-%s.cfg", test_tmpdir(), k, tag);
    snprintf(text, sizeof text,
             "profile = { name = \"fleet\"; device = \"jetson\"; rate_hz = %g;\n"
             "  sysfs_root = \"%s\"; };\n"
             "components = (\n"
             "  { name = \"a\"; type = \"idle\"; duration_s = %g; params = { fps = %s; }; },\n"
             "  { name = \"b\"; type = \"idle\"; duration_s = %g; params = { fps = %s; }; } );\n",
             sh->rate_hz, board(k), sh->duration_s, sh->a_fps, sh->duration_s, sh->b_fps);
    write_file(cfg[k], text);
    return cfg[k];
}

static const char *profile(int k) { return profile_of(k, "a", &g_short); }

static const char *bin(void)
{
    const char *b = getenv("POWPROF_BIN");
    return b ? b : "./powprof";
}

static const char *tmp_path(const char *name)
{
    static char path[4][600];
    static int next;

    next = (next + 1) % 4;
    snprintf(path[next], sizeof path[next], "%s/%s", test_tmpdir(), name);
    return path[next];
}

/* ---- reading results ---- */

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of dir/summary.csv as "id,a.fps,b.fps", sorted, one per line
 * (malloc'd), and their count. */
static char *config_set(const char *dir, int *n)
{
    char path[700], *text, *save = NULL, *rows[256], *out;
    size_t len = 0;

    *n = 0;
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    if (!(text = slurp(path)))
        return NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *c = line;
        for (int f = 0; f < 3 && c; f++)
            c = strchr(c + 1, ',');
        if (c)
            *c = '\0';
        if (strncmp(line, "id,", 3) != 0 && *n < 256)
            rows[(*n)++] = line;
    }
    qsort(rows, (size_t)*n, sizeof *rows, cmp_str_ptr);
    out = calloc(1, 256 * 64);
    for (int i = 0; out && i < *n; i++)
        len += (size_t)snprintf(out + len, 256 * 64 - len, "%s\n", rows[i]);
    free(text);
    return out;
}

/* The configuration set of dir (see config_set), checked equal to that of
 * ref, every configuration once. */
static void check_same_set(const char *dir, const char *ref, int n_expected)
{
    int n = 0, n_ref = 0;
    char *a = config_set(dir, &n), *b = config_set(ref, &n_ref);

    CHECK_INT(n, n_expected);
    CHECK_INT(n_ref, n_expected);
    CHECK_STR(a, b ? b : "");
    free(a);
    free(b);
}

/* The number of files named *.merge.* left in the folder of out. */
static int leftovers(const char *parent)
{
    DIR *d = opendir(parent);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".merge.") != NULL;
    if (d)
        closedir(d);
    return n;
}

static json_t *load_json(const char *dir, const char *file)
{
    char path[700];
    json_error_t err;

    snprintf(path, sizeof path, "%s/%s", dir, file);
    return json_load_file(path, 0, &err);
}

/* fleet.metrics.<metric>.<key> of model.json. */
static double fleet_number(json_t *model, const char *metric, const char *key)
{
    json_t *m = json_object_get(json_object_get(json_object_get(model, "fleet"), "metrics"), metric);
    return json_is_number(json_object_get(m, key)) ? json_number_value(json_object_get(m, key))
                                                    : NAN;
}

static double factor_of(json_t *model, const char *metric, const char *node)
{
    json_t *m = json_object_get(json_object_get(json_object_get(model, "fleet"), "metrics"), metric);
    json_t *f = json_object_get(json_object_get(m, "factor"), node);
    return json_is_number(f) ? json_number_value(f) : NAN;
}

/* ---- shards from the environment ---- */

/* One case of --shard: the spec, the environment, and K/N (k < 0: an
 * error whose message contains said). */
typedef struct shard_case {
    const char *spec;
    const char *env[5];
    long k, n;
    const char *said;
} shard_case;

static const shard_case g_shard_cases[] = {
    {"1/3", {NULL}, 0, 3, NULL}, /* K from 1 (issue 32): k = K - 1 */
    {"3/3", {NULL}, 2, 3, NULL},
    {"4/3", {NULL}, -1, 0, "K/N (1 <= K <= N"},
    {"0/3", {NULL}, -1, 0, "K counts from 1 (1/3 .. 3/3, as Slurm array ids 1-N and GNU "
                           "parallel's job numbers): the first shard is 1/3"},
    {"1/0", {NULL}, -1, 0, "K/N"},
    {"x", {NULL}, -1, 0, "K/N"},
    {"auto", {NULL}, -1, 0, "no launcher found"},
    /* Slurm arrays whose ids start at MIN and step by STEP */
    {"auto", {"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_TASK_MIN=4"}, 1, 3,
     NULL},
    {"auto", {"SLURM_ARRAY_TASK_ID=7", "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_TASK_MIN=4"}, -1, 0,
     "SLURM_ARRAY_TASK_ID=7 is not one of the 3 tasks"},
    {"auto", {"SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_TASK_MIN=0",
              "SLURM_ARRAY_TASK_STEP=2"}, 2, 3, NULL},
    {"auto", {"SLURM_ARRAY_TASK_ID=1"}, -1, 0, "SLURM_ARRAY_TASK_COUNT"},
    /* Open MPI, PMIx, MPICH */
    {"auto", {"OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=3", "PMIX_RANK=2"}, 2, 3, NULL},
    {"auto/4", {"OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=3"}, -1, 0, "not the N given"},
    {"auto", {"OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=3"}, -1, 0,
     "OMPI_COMM_WORLD_RANK=3 is not below the job's size"},
    {"auto", {"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=3", "PMIX_RANK=2"}, -1, 0,
     "disagree"},
    {"auto", {"OMPI_COMM_WORLD_RANK=two", "OMPI_COMM_WORLD_SIZE=3"}, -1, 0,
     "OMPI_COMM_WORLD_RANK='two' is not a whole number"},
    {"auto", {"PMIX_RANK=1"}, -1, 0, "give --shard auto/N"},
    {"auto/4", {"PMIX_RANK=1"}, 1, 4, NULL},
    {"auto", {"PMIX_RANK=1", "SLURM_NTASKS=2"}, 1, 2, NULL},
    {"auto", {"PMI_RANK=3", "PMI_SIZE=4"}, 3, 4, NULL},
    /* GNU parallel: PARALLEL_SEQ counts from 1 and needs N */
    {"auto", {"PARALLEL_SEQ=1"}, -1, 0, "give --shard auto/N"},
    {"auto/3", {"PARALLEL_SEQ=1"}, 0, 3, NULL},
    {"auto/3", {"PARALLEL_SEQ=4"}, -1, 0, "PARALLEL_SEQ=4 is beyond the 3 jobs"},
    /* an array task that runs mpirun splits its share again */
    {"auto", {"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_COUNT=2", "OMPI_COMM_WORLD_RANK=2",
              "OMPI_COMM_WORLD_SIZE=3"}, 1 * 3 + 2, 6, NULL},
    {"auto/5", {"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_COUNT=2", "OMPI_COMM_WORLD_RANK=2",
                "OMPI_COMM_WORLD_SIZE=3"}, -1, 0, "not the N given"},
};

void test_shard_from_environment(void);
void test_shard_from_environment(void)
{
    pp_shard s;

    for (size_t i = 0; i < sizeof g_shard_cases / sizeof g_shard_cases[0]; i++) {
        const shard_case *c = &g_shard_cases[i];
        int rc;
        test_log_clear();
        rc = pp_shard_parse(c->spec, (char *const *)c->env, &s);
        if (c->k < 0) {
            CHECK(rc < 0);
            CHECK_CONTAINS(test_log(), c->said);
        } else if (rc != 0 || s.k != (uint64_t)c->k || s.n != (uint64_t)c->n) {
            pp_test_fail(__FILE__, __LINE__, "case %zu: --shard %s gave %d, %llu/%llu", i,
                         c->spec, rc, (unsigned long long)s.k, (unsigned long long)s.n);
        }
    }
    CHECK_INT(pp_shard_parse("auto", (char *const *)g_shard_cases[23].env, &s), 0);
    CHECK_STR(s.from, "SLURM_ARRAY_TASK_ID x OMPI_COMM_WORLD_RANK");
    pp_shard_parse("2/3", NULL, &s);
    CHECK_INT(pp_shard_count(&s, 7), 2);
    pp_shard_parse("1/3", NULL, &s);
    CHECK_INT(pp_shard_count(&s, 7), 3);
}

/* ---- node identity ---- */

void test_node_identity(void);
void test_node_identity(void)
{
    const char *root = board(1);
    char dmi[600], path[700], *err = NULL;
    const char *out = tmp_path("id");
    json_t *run, *node;
    pp_node n;

    CHECK_INT(pp_node_identify(root, NULL, &n), 0);
    CHECK_STR(n.name, "board1");
    CHECK_STR(n.model, "NVIDIA Jetson TX2 Developer Kit");
    CHECK_STR(n.model_from, "device-tree");
    CHECK_STR(n.kernel, "4.9.253-tegra");
    /* DMI where there is no device tree */
    snprintf(dmi, sizeof dmi, "%s/pc", test_tmpdir());
    {
        char sub[700], *mk[] = {"mkdir", "-p", sub, NULL};
        snprintf(sub, sizeof sub, "%s/sys/class/dmi/id", dmi);
        CHECK_INT(run_argv(mk, NULL, NULL), 0);
    }
    snprintf(path, sizeof path, "%s/sys/class/dmi/id/sys_vendor", dmi);
    write_file(path, "LENOVO\n");
    snprintf(path, sizeof path, "%s/sys/class/dmi/id/product_name", dmi);
    write_file(path, "20XW\n");
    CHECK_INT(pp_node_identify(dmi, "rack-a.3", &n), 0);
    CHECK_STR(n.model, "LENOVO 20XW");
    CHECK_STR(n.model_from, "dmi");
    CHECK_STR(n.name, "rack-a.3");
    test_log_clear();
    CHECK(pp_node_identify(dmi, "../etc", &n) < 0);
    CHECK_CONTAINS(test_log(), "character '.' at position 1");
    CHECK(pp_node_identify(dmi, "a b", &n) < 0);
    CHECK_CONTAINS(test_log(), "character ' ' at position 2");
    /* through a sweep: run.json and the node column */
    CHECK_INT(run_powprof(NULL, &err, "profile", profile(1), "-o", out, NULL), 0);
    run = load_json(out, "run.json");
    node = json_object_get(run, "node");
    CHECK_STR(json_string_value(json_object_get(node, "name")), "board1");
    CHECK_STR(json_string_value(json_object_get(node, "hostname")), "board1");
    CHECK_STR(json_string_value(json_object_get(node, "model")), "NVIDIA Jetson TX2 Developer Kit");
    CHECK_STR(json_string_value(json_object_get(node, "kernel")), "4.9.253-tegra");
    CHECK_STR(json_string_value(json_object_get(node, "device")), "jetson");
    CHECK_INT(json_array_size(json_object_get(node, "rails")), 6);
    CHECK_CONTAINS(json_string_value(json_object_get(run, "config_hash")), "fnv1a64:");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(run, "shard"), "n")), 1);
    json_decref(run);
    snprintf(path, sizeof path, "%s/summary.csv", out);
    free(err);
    err = slurp(path);
    CHECK_CONTAINS(err, ",node,repeat\n");
    CHECK_CONTAINS(err, ",board1,0\n");
    free(err);
    err = NULL;
    CHECK_INT(run_powprof(NULL, &err, "profile", profile(1), "-o", tmp_path("bad"), "--node",
                          "a/b", NULL), 2);
    CHECK_CONTAINS(err, "--node 'a/b': character '/' at position 2");
    CHECK(access(tmp_path("bad"), F_OK) != 0);
    free(err);
}

/* ---- shards under GNU parallel and mpirun ---- */

/* powprof merge of the folders under parent into out; its exit status. */
static int merge_all(const char *const *dirs, size_t n, const char *out, char **err)
{
    char *argv[16];
    size_t k = 0;

    argv[k++] = (char *)bin();
    argv[k++] = "merge";
    for (size_t i = 0; i < n; i++)
        argv[k++] = (char *)dirs[i];
    argv[k++] = "-o";
    argv[k++] = (char *)out;
    argv[k] = NULL;
    return run_argv(argv, NULL, err);
}

void test_fleet_parallel_shards(void);
void test_fleet_parallel_shards(void)
{
    const char *shards = tmp_path("shards"), *whole = tmp_path("whole"), *merged = tmp_path("merged");
    char pattern[700], cfg_pattern[700], d[3][700], *err = NULL, *out = NULL;
    char *par[] = {"parallel", "--will-cite", "-q", "-j3", (char *)bin(), "profile", cfg_pattern,
                   "--shard", "auto/3", "-o", pattern, ":::", "1", "2", "3", NULL};
    const char *dirs[3] = {d[0], d[1], d[2]};
    json_t *run;

    for (int k = 1; k <= 3; k++)
        profile(k);
    snprintf(cfg_pattern, sizeof cfg_pattern, "%s/board{}-a.cfg", test_tmpdir());
    snprintf(pattern, sizeof pattern, "%s/{node}", shards); /* {node}: powprof's, not parallel's */
    mkdir(shards, 0755);
    CHECK_INT(run_argv(par, &out, &err), 0);
    if (strstr(err ? err : "", "No such file") || strstr(err ? err : "", "not found"))
        pp_test_fail(__FILE__, __LINE__, "GNU parallel is needed (make deps): %s", err);
    free(err);
    err = NULL;
    /* K from 1, as GNU parallel numbers its jobs (issue 32) */
    CHECK_CONTAINS(out, "shard 1/3 on node board1: 2 configurations");
    CHECK_CONTAINS(out, "shard 2/3 on node board2: 2 configurations");
    CHECK_CONTAINS(out, "shard 3/3 on node board3: 2 configurations");
    free(out);
    for (int k = 0; k < 3; k++)
        snprintf(d[k], sizeof d[k], "%s/board%d", shards, k + 1);
    CHECK_INT(merge_all(dirs, 3, merged, &err), 0);
    free(err);
    /* the same configuration set as one unsharded run, none lost or doubled */
    CHECK_INT(run_powprof(NULL, NULL, "profile", profile(1), "-o", whole, NULL), 0);
    check_same_set(merged, whole, 6);
    run = load_json(merged, "run.json");
    CHECK_INT(json_array_size(json_object_get(run, "nodes")), 3);
    CHECK_INT(json_array_size(json_object_get(json_object_get(run, "merged"), "sources")), 3);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(run, "merged"),
                                                 "configurations_missing")), 0);
    json_decref(run);
    snprintf(pattern, sizeof pattern, "%s/traces/board2/1.csv", merged);
    CHECK(access(pattern, F_OK) == 0);
    snprintf(pattern, sizeof pattern, "%s/traces/1.csv", merged);
    CHECK(access(pattern, F_OK) == 0);
}

/* mpirun's own arguments: as root it needs --allow-run-as-root. */
static size_t mpirun_argv(char **argv)
{
    size_t n = 0;

    argv[n++] = "mpirun";
    if (geteuid() == 0)
        argv[n++] = "--allow-run-as-root";
    argv[n++] = "--oversubscribe";
    return n;
}

void test_fleet_mpirun_shards(void);
void test_fleet_mpirun_shards(void)
{
    const char *same = tmp_path("mpi-same"), *boards = tmp_path("mpi-boards");
    char out_same[700], out_boards[700], d[3][700], *err = NULL, *argv[64];
    const char *dirs[3] = {d[0], d[1], d[2]};
    size_t n;

    /* every rank with the same arguments: -o takes {shard} */
    snprintf(out_same, sizeof out_same, "%s/{shard}", same);
    n = mpirun_argv(argv);
    for (const char *a[] = {"-np", "3", bin(), "profile", profile(1), "--shard", "auto", "-o",
                            out_same, NULL}, **p = a; *p; p++)
        argv[n++] = (char *)*p;
    argv[n] = NULL;
    CHECK_INT(run_argv(argv, NULL, &err), 0);
    if (strstr(err ? err : "", "No such file"))
        pp_test_fail(__FILE__, __LINE__, "mpirun (openmpi-bin) is needed (make deps): %s", err);
    CHECK_CONTAINS(err, "shard 2/3 (OMPI_COMM_WORLD_RANK)");
    free(err);
    err = NULL;
    for (int k = 0; k < 3; k++) /* {shard} is K, from 1 */
        snprintf(d[k], sizeof d[k], "%s/%d", same, k + 1);
    CHECK_INT(merge_all(dirs, 3, tmp_path("mpi-same-merged"), &err), 0);
    free(err);
    err = NULL;
    CHECK_INT(run_powprof(NULL, NULL, "profile", profile(1), "-o", tmp_path("mpi-whole"), NULL), 0);
    check_same_set(tmp_path("mpi-same-merged"), tmp_path("mpi-whole"), 6);
    /* three boards, one rank each (MPMD: each its own profile) */
    snprintf(out_boards, sizeof out_boards, "%s/{node}", boards);
    n = mpirun_argv(argv);
    for (int k = 1; k <= 3; k++) {
        if (k > 1)
            argv[n++] = ":";
        for (const char *a[] = {"-np", "1", bin(), "profile", profile(k), "--shard", "auto", "-o",
                                out_boards, NULL}, **p = a; *p; p++)
            argv[n++] = (char *)*p;
    }
    argv[n] = NULL;
    CHECK_INT(run_argv(argv, NULL, &err), 0);
    free(err);
    err = NULL;
    for (int k = 0; k < 3; k++)
        snprintf(d[k], sizeof d[k], "%s/board%d", boards, k + 1);
    CHECK_INT(merge_all(dirs, 3, tmp_path("mpi-boards-merged"), &err), 0);
    free(err);
    check_same_set(tmp_path("mpi-boards-merged"), tmp_path("mpi-whole"), 6);
}

/* ---- variability of three whole runs ---- */

void test_fleet_variability(void);
void test_fleet_variability(void)
{
    const char *runs = tmp_path("runs"), *fleet = tmp_path("fleet");
    char pattern[700], cfg_pattern[700], d[3][700], *err = NULL, *out = NULL;
    char *par[] = {"parallel", "--will-cite", "-q", "-j3", (char *)bin(), "profile", cfg_pattern,
                   "-o", pattern, ":::", "1", "2", "3", NULL};
    const char *dirs[3] = {d[0], d[1], d[2]};
    const double mean = (1.00 + 1.08 + 0.93) / 3;
    json_t *model, *shared;
    size_t i;
    json_t *c;

    /* longer runs, sampled faster: the energy of a run also carries its
     * duration, which this shared machine's scheduling moves by a few ms */
    for (int k = 1; k <= 3; k++)
        profile_of(k, "long", &(shape){"[ 5.0, 10.0, 20.0 ]", "[ 5.0 ]", 0.8, 1000});
    snprintf(cfg_pattern, sizeof cfg_pattern, "%s/board{}-long.cfg", test_tmpdir());
    snprintf(pattern, sizeof pattern, "%s/{node}", runs);
    mkdir(runs, 0755);
    CHECK_INT(run_argv(par, NULL, NULL), 0);
    for (int k = 0; k < 3; k++)
        snprintf(d[k], sizeof d[k], "%s/board%d", runs, k + 1);
    CHECK_INT(merge_all(dirs, 3, fleet, NULL), 0);
    CHECK_INT(run_powprof(&out, NULL, "model", fleet, NULL), 0);
    CHECK_CONTAINS(out, "fleet: 3 nodes; 3 of 3 configurations measured on more than one node");
    free(out);
    out = NULL;
    model = load_json(fleet, "model.json");
    CHECK(model != NULL);
    /* the scaling recovered within 1 percentage point */
    CHECK_NEAR(fleet_number(model, "total_mean_w", "node_difference_mean_frac"), SCALE_DIFFERENCE, 0.01);
    CHECK_NEAR(fleet_number(model, "total_energy_j", "node_difference_mean_frac"), SCALE_DIFFERENCE, 0.01);
    CHECK_NEAR(fleet_number(model, "total_energy_j", "pooled_difference_frac"), SCALE_DIFFERENCE, 0.01);
    shared = json_object_get(json_object_get(model, "fleet"), "shared_configurations");
    CHECK_INT(json_array_size(shared), 3);
    json_array_foreach(shared, i, c)
        CHECK_NEAR(json_number_value(json_object_get(c, "power_difference_frac")), SCALE_DIFFERENCE, 0.01);
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "board%d", k + 1);
        CHECK_NEAR(factor_of(model, "total_mean_w", name), g_scale[k] / mean, 0.005);
        CHECK_NEAR(factor_of(model, "total_energy_j", name), g_scale[k] / mean, 0.01);
    }
    /* each board predicted from the other two: |s_k - mean of the others| / s_k */
    {
        double e = 0;
        for (int k = 0; k < 3; k++) {
            double others = (g_scale[0] + g_scale[1] + g_scale[2] - g_scale[k]) / 2;
            e += 100 * fabs(g_scale[k] - others) / g_scale[k] / 3;
        }
        CHECK_NEAR(json_number_value(json_object_get(
                       json_object_get(json_object_get(json_object_get(json_object_get(
                                                           model, "fleet"), "metrics"),
                                                       "total_mean_w"), "leave_one_node_out"),
                       "mape_pct")), e, 0.5);
    }
    json_decref(model);
    /* plans for one board, and for the most power-hungry */
    CHECK_INT(run_powprof(&out, NULL, "plan", fleet, "--mission-s", "600", "--maximize", "a.fps",
                          "--node", "board3", "--json", NULL), 0);
    CHECK_CONTAINS(out, "\"node\":\"board3\"");
    {
        double w = atof(strstr(out ? out : "\"power_w\":0", "\"power_w\":") + 10);
        CHECK_NEAR(w, 5.263 * 0.93, 0.03);
    }
    free(out);
    out = NULL;
    CHECK_INT(run_powprof(&out, NULL, "plan", fleet, "--mission-s", "600", "--maximize", "a.fps",
                          "--across-nodes", "worst", NULL), 0);
    CHECK_CONTAINS(out, "planned for node board2, the most power-hungry board measured");
    free(out);
    CHECK_INT(run_powprof(NULL, &err, "plan", fleet, "--mission-s", "600", "--node", "board9",
                          NULL), 2);
    CHECK_CONTAINS(err, "no node 'board9' in the results (their nodes: board1, board2, board3)");
    free(err);
}

/* ---- merges refused ---- */

void test_fleet_merge_refused(void);
void test_fleet_merge_refused(void)
{
    const char *whole = tmp_path("whole"), *again = tmp_path("again"), *other = tmp_path("other");
    const char *out = tmp_path("out");
    const char *pair[2], *both[2];
    char *err = NULL, path[700], *text;

    CHECK_INT(run_powprof(NULL, NULL, "profile", profile(1), "-o", whole, NULL), 0);
    /* board1 measures configurations 0 and 3 again, into another folder */
    CHECK_INT(run_powprof(NULL, NULL, "profile", profile(1), "--shard", "1/3", "-o", again, NULL), 0);
    pair[0] = whole;
    pair[1] = again;
    CHECK_INT(merge_all(pair, 2, out, &err), 2);
    CHECK_CONTAINS(err, "conflicting rows: id 0 node board1 repeat 0 is measured differently in");
    CHECK_CONTAINS(err, "/whole/summary.csv:2 and ");
    CHECK_CONTAINS(err, "/again/summary.csv:2");
    CHECK_CONTAINS(err, "2 conflicting rows: nothing merged");
    CHECK(access(out, F_OK) != 0);
    CHECK_INT(leftovers(test_tmpdir()), 0);
    free(err);
    err = NULL;
    /* another profile (other values of a.fps) */
    CHECK_INT(run_powprof(NULL, NULL, "profile", profile_of(1, "other", &(shape){"[ 4.0, 8.0 ]", "[ 5.0 ]", 0.2, 500}), "-o", other, NULL), 0);
    both[0] = whole;
    both[1] = other;
    CHECK_INT(merge_all(both, 2, out, &err), 2);
    CHECK_CONTAINS(err, "/other/run.json: another profile than");
    CHECK(access(out, F_OK) != 0);
    CHECK_INT(leftovers(test_tmpdir()), 0);
    free(err);
    err = NULL;
    /* a folder given twice: its rows kept once, said */
    pair[1] = whole;
    CHECK_INT(merge_all(pair, 2, out, &err), 0);
    CHECK_CONTAINS(err, "duplicate row: id 0 node board1 repeat 0");
    check_same_set(out, whole, 6);
    free(err);
    err = NULL;
    /* out exists */
    CHECK_INT(merge_all(pair, 1, out, &err), 2);
    CHECK_CONTAINS(err, "exists: give a new folder");
    free(err);
    err = NULL;
    /* a row cut short is left out, a mangled one refused */
    snprintf(path, sizeof path, "%s/summary.csv", again);
    text = slurp(path);
    if (text) {
        char *last = strrchr(text, ',');
        strcpy(last, ",x\n");
        write_file(path, text);
        free(text);
    }
    pair[0] = again;
    CHECK_INT(merge_all(pair, 1, tmp_path("out2"), &err), 2);
    CHECK_CONTAINS(err, "/again/summary.csv:3: repeat 'x' is not a count");
    CHECK(access(tmp_path("out2"), F_OK) != 0);
    free(err);
}

/* ---- repeats ---- */

/* The (id, repeat) of each row of dir/summary.csv, in order, as "id.repeat " */
static char *row_order(const char *dir)
{
    char path[700], *text, *save = NULL, *out = calloc(1, 4096);
    size_t len = 0;

    snprintf(path, sizeof path, "%s/summary.csv", dir);
    text = slurp(path);
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line && out;
         line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "id,", 3) == 0)
            continue;
        len += (size_t)snprintf(out + len, 4096 - len, "%ld.%s ", atol(line), strrchr(line, ',') + 1);
    }
    free(text);
    return out;
}

static const shape g_one = {"[ 5.0 ]", "[ 5.0, 10.0 ]", 0.2, 500};

void test_repeats_interleaved_and_resumed(void);
void test_repeats_interleaved_and_resumed(void)
{
    const char *dir = tmp_path("rep"), *dir2 = tmp_path("rep2");
    char *order, *err = NULL, path[700];

    CHECK_INT(run_powprof(NULL, NULL, "profile", profile_of(1, "one", &g_one), "-o", dir, "--repeat",
                          "2", NULL), 0);
    order = row_order(dir);
    CHECK_STR(order, "0.0 1.0 0.1 1.1 "); /* every configuration once, then again */
    free(order);
    snprintf(path, sizeof path, "%s/traces/1.r1.csv", dir);
    CHECK(access(path, F_OK) == 0);
    /* once, then resumed to three repeats: only the missing ones run */
    CHECK_INT(run_powprof(NULL, NULL, "profile", profile_of(1, "one", &g_one), "-o", dir2, NULL), 0);
    CHECK_INT(run_powprof(NULL, &err, "profile", profile_of(1, "one", &g_one), "-o", dir2, "--resume",
                          "--repeat", "3", NULL), 0);
    order = row_order(dir2);
    CHECK_STR(order, "0.0 1.0 0.1 1.1 0.2 1.2 ");
    free(order);
    free(err);
    err = NULL;
    /* resumed as another node, or another shard: refused */
    CHECK_INT(run_powprof(NULL, &err, "profile", profile_of(1, "one", &g_one), "-o", dir2, "--resume",
                          "--node", "elsewhere", NULL), 2);
    CHECK_CONTAINS(err, "summary.csv:2: a row of node 'board1', repeat '0': this is node 'elsewhere'");
    free(err);
    err = NULL;
    CHECK_INT(run_powprof(NULL, &err, "profile", profile_of(1, "one", &g_one), "-o", dir2, "--resume",
                          "--shard", "2/2", NULL), 2);
    CHECK_CONTAINS(err, "summary.csv:2: configuration 0 is not in shard 2/2");
    free(err);
}

/* The band covers one new measurement: with repeats scattered by +-5 %
 * around a line the model fits exactly, the band is as wide as the
 * scatter; without the repeats (the means alone) it is not. */
void test_repeats_widen_the_band(void);
void test_repeats_widen_the_band(void)
{
    char rep[600], means[600], path[700], text[4096];
    size_t len = 0, len2 = 0;
    char text2[4096];
    pp_model m;
    pp_model_point pt = {{4.5}};
    pp_prediction with, without;
    int k;

    snprintf(rep, sizeof rep, "%s/rep", test_tmpdir());
    snprintf(means, sizeof means, "%s/means", test_tmpdir());
    mkdir(rep, 0755);
    mkdir(means, 0755);
    len = (size_t)snprintf(text, sizeof text, "id,p,status,total_mean_w,reason,node,repeat\n");
    len2 = (size_t)snprintf(text2, sizeof text2, "id,p,status,total_mean_w,reason,node,repeat\n");
    for (int p = 1; p <= 8; p++) {
        for (int r = 0; r < 2; r++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%d,%d,ok,%.4f,,b1,%d\n", p - 1,
                                    p, 2.0 * p * (r ? 1.05 : 0.95), r);
        len2 += (size_t)snprintf(text2 + len2, sizeof text2 - len2, "%d,%d,ok,%.4f,,b1,0\n", p - 1,
                                 p, 2.0 * p);
    }
    snprintf(path, sizeof path, "%s/summary.csv", rep);
    write_file(path, text);
    snprintf(path, sizeof path, "%s/summary.csv", means);
    write_file(path, text2);
    k = 0;
    CHECK_INT(pp_model_read(rep, NULL, 0, &m), 0);
    CHECK_INT(m.groups[0].n_rows, 8);
    CHECK_INT(pp_model_fit_of(&m, 0, (size_t)k)->choice.band_n, 16);
    CHECK_INT(pp_model_predict(&m, (size_t)k, &pt, &with), 0);
    pp_model_free(&m);
    CHECK_INT(pp_model_read(means, NULL, 0, &m), 0);
    CHECK_INT(pp_model_predict(&m, (size_t)k, &pt, &without), 0);
    pp_model_free(&m);
    CHECK_NEAR(with.value, 9.0, 0.05);
    CHECK_NEAR(without.value, 9.0, 0.05);
    CHECK(with.hi - with.value >= 0.9 * 0.05 * 9.0);
    CHECK(without.hi - without.value < 0.1 * (with.hi - with.value));
}
