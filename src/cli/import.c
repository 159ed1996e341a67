/* powprof import: recorded power data into a results folder, in the same
 * layout as `powprof profile` writes. */
#include "cli.h"

#include "src/config/config.h"
#include "src/results/import.h"
#include "src/base/log.h"
#include "src/results/results.h"
#include "src/base/util.h"

#include "src/config/battery_config.h"
#include "src/traces/ulog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char import_help[] =
    "usage: powprof import FORMAT FILE... -o RESULTS [options] [--json]\n"
    "\n"
    "Read recorded power data into RESULTS (traces/<id>.csv, summary.csv with the\n"
    "battery columns, run.json naming the source of each row), as `powprof\n"
    "profile` writes them, so that battery, model, predict, plot and plan work on\n"
    "it. Nothing is written unless every file imports; RESULTS must not exist.\n"
    "\n"
    "formats:\n"
    "  powprofiler   the original tool's CSV: header 100,101,102 (total, CPU, GPU\n"
    "                in W), one row per sample, no time (see --rate-hz)\n"
    "  tegrastats    Jetson tegrastats logs (POM_5V_IN 3410/3410 or VDD_IN\n"
    "                5263mW/5263mW), timestamped or not (see --interval-ms)\n"
    "  ulog          PX4 flight logs (.ulg): the battery_status topic's voltage_v x\n"
    "                current_a, one rail per battery instance (the total their\n"
    "                sum), time from the first sample; the charge drawn beside the\n"
    "                log's own discharged_mah is printed; the log's voltage,\n"
    "                current, discharged_mah and remaining kept in RESULTS/flight.csv\n"
    "  csv           a time column and power columns with units in their names\n"
    "                (x_w, x_mw, x_uw, 'x [W]'), or current and voltage (x_a, x_v)\n"
    "\n"
    "options:\n"
    "  -o, --output DIR       the results folder to create\n"
    "  --param NAME=VALUE     a parameter value for every file (repeatable)\n"
    "  --pattern PATTERN      parameters from file names, e.g.\n"
    "                         'matrix-exponentiation_{size}-{exponent}_1layer.csv'\n"
    "  --rate-hz HZ           powprofiler: sampling rate (default 10)\n"
    "  --interval-ms MS       tegrastats: time between records (default: the\n"
    "                         timestamps, else 1000)\n"
    "  --unit W|mW|uW         csv: unit of the columns that name none\n"
    "  --time-col NAME        csv: the time column\n"
    "  -c, --config FILE      battery parameters (its 'battery' group)\n"
    "  --json                 what was imported, as one JSON object on stdout\n"
    "  -h, --help             this help\n";

enum { OPT_PARAM = 4000, OPT_PATTERN, OPT_RATE, OPT_INTERVAL, OPT_UNIT, OPT_TIME_COL };

#define MAX_PARAMS 16

/* A PX4 log's batteries as a trace (ulog.h). */
static int read_ulog(const char *path, const pp_import_options *o, pp_trace *t)
{
    pp_ulog_flight f;
    int rc;

    (void)o;
    memset(t, 0, sizeof *t);
    rc = pp_ulog_read_battery(path, &f);
    if (rc == 0)
        rc = pp_ulog_battery_trace(&f, path, t);
    pp_ulog_flight_free(&f);
    return rc;
}

/* After an import of logs: per battery, its samples and the charge drawn
 * from the logged current beside the log's own discharged_mah. */
static void ulog_report(char **files, int n_files)
{
    for (int i = 0; i < n_files; i++) {
        pp_ulog_flight f;
        if (pp_ulog_read_battery(files[i], &f) < 0)
            continue;
        for (size_t b = 0; b < f.n_batteries; b++) {
            const pp_ulog_battery *bat = &f.bat[b];
            double q, logged;
            pp_ulog_charge_mah(bat, &q, &logged);
            printf("%s: battery %d: %zu samples over %.1f s (one every %.2f s); charge drawn "
                   "from the logged current %.2f mAh, by the log's discharged_mah %.2f mAh",
                   files[i], bat->instance, bat->n, bat->t_s[bat->n - 1] - bat->t_s[0],
                   pp_ulog_interval_s(bat), q, logged);
            if (isfinite(logged) && logged > 0 && fabs(q / logged - 1) > 0.02)
                printf(" (%+.0f %%: the topic is logged at a lower rate than the autopilot "
                       "integrates the current)", 100 * (q / logged - 1));
            printf("\n");
        }
        pp_ulog_flight_free(&f);
    }
}

/* The reader of a format, NULL when unknown. */
static int (*reader_of(const char *format))(const char *, const pp_import_options *, pp_trace *)
{
    return strcmp(format, "powprofiler") == 0  ? pp_import_powprofiler
           : strcmp(format, "tegrastats") == 0 ? pp_import_tegrastats
           : strcmp(format, "csv") == 0        ? pp_import_csv
           : strcmp(format, "ulog") == 0       ? read_ulog
                                               : NULL;
}

/* What the command line asked for. */
typedef struct import_args {
    const char *out, *pattern, *config_path, *format;
    char **files;
    int n_files;
    char fixed_names[MAX_PARAMS][64];
    double fixed_values[MAX_PARAMS];
    size_t n_fixed;
    int (*reader)(const char *, const pp_import_options *, pp_trace *);
    pp_import_options io;
    int json;
} import_args;

/* The temporary folder while it exists, for the signal handler: Ctrl-C
 * (or TERM, HUP) removes it before powprof dies of the signal. */
static char tmp_dir[4096];
static volatile sig_atomic_t tmp_armed;

/* Remove dir and what an import wrote in it (files, and files in its
 * subfolders). Only async-signal-safe calls: the signal handler uses it. */
static void remove_entries(int dfd, int depth)
{
    char buf[4096];
    long n;
    int removed = 1;

    for (int pass = 0; removed && pass < 16; pass++) {
        removed = 0;
        lseek(dfd, 0, SEEK_SET);
        while ((n = getdents64(dfd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                struct dirent64 *e = (struct dirent64 *)(buf + off);
                off += e->d_reclen;
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                if (e->d_type == DT_DIR && depth < 2) {
                    int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (sub >= 0) {
                        remove_entries(sub, depth + 1);
                        close(sub);
                    }
                    removed |= unlinkat(dfd, e->d_name, AT_REMOVEDIR) == 0;
                } else {
                    removed |= unlinkat(dfd, e->d_name, 0) == 0;
                }
            }
    }
}

static void remove_tree(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (dfd >= 0) {
        remove_entries(dfd, 1);
        close(dfd);
    }
    rmdir(dir);
}

static void on_signal(int sig)
{
    if (tmp_armed)
        remove_tree(tmp_dir);
    signal(sig, SIG_DFL);
    raise(sig); /* delivered on return: powprof dies of it, as without handler */
}

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void block_signals(int how)
{
    sigset_t set;

    sigemptyset(&set);
    for (size_t i = 0; i < PP_ARRAY_SIZE(cleanup_signals); i++)
        sigaddset(&set, cleanup_signals[i]);
    sigprocmask(how, &set, NULL);
}

/* The temporary folder beside out, mode 0755 less the umask like the
 * folders of `powprof profile` (mkdtemp makes it 0700), armed for the
 * signal handler. */
static int make_tmp(const char *out)
{
    mode_t mask = umask(0);
    int rc = 0;

    umask(mask);
    if (pp_fmt(tmp_dir, sizeof tmp_dir, "%s.import.XXXXXX", out) < 0) {
        fprintf(stderr, "powprof import: %s: the name is too long\n", out);
        return -ENAMETOOLONG;
    }
    block_signals(SIG_BLOCK);
    if (!mkdtemp(tmp_dir)) {
        rc = -errno;
        fprintf(stderr, "powprof import: cannot create %s: %s\n", tmp_dir, strerror(errno));
    } else {
        tmp_armed = 1;
        chmod(tmp_dir, 0755 & ~mask);
    }
    block_signals(SIG_UNBLOCK);
    return rc;
}

/* The logs' own battery figures beside the trace: tmp_dir/flight.csv,
 * one row per sample (file index, instance, time from the file's first
 * sample, voltage, current, discharged_mah, remaining). 0 or -1 (said). */
static int write_flight_csv(char **files, int n_files)
{
    char path[4400];
    FILE *fp;
    int rc = 0;

    pp_fmt(path, sizeof path, "%s/flight.csv", tmp_dir);
    if (!(fp = fopen(path, "w"))) {
        fprintf(stderr, "powprof import: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fputs("file,battery,t_s,voltage_v,current_a,discharged_mah,remaining\n", fp);
    for (int i = 0; i < n_files && rc == 0; i++) {
        pp_ulog_flight f;
        double t0 = INFINITY;
        rc = pp_ulog_read_battery(files[i], &f) < 0 ? -1 : 0;
        for (size_t b = 0; rc == 0 && b < f.n_batteries; b++)
            t0 = fmin(t0, f.bat[b].t_s[0]);
        for (size_t b = 0; rc == 0 && b < f.n_batteries; b++)
            for (size_t k = 0; k < f.bat[b].n; k++)
                fprintf(fp, "%d,%d,%.6f,%.6g,%.6g,%.6g,%.6g\n", i, f.bat[b].instance,
                        f.bat[b].t_s[k] - t0, f.bat[b].voltage_v[k], f.bat[b].current_a[k],
                        f.bat[b].discharged_mah[k], f.bat[b].remaining[k]);
        pp_ulog_flight_free(&f);
    }
    if ((ferror(fp) | fclose(fp)) && rc == 0) {
        fprintf(stderr, "powprof import: cannot write %s\n", path);
        rc = -1;
    }
    return rc;
}

/* A --param NAME=NUMBER. */
static int add_param(import_args *a, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char *name = a->fixed_names[a->n_fixed];

    if (a->n_fixed == MAX_PARAMS) {
        fprintf(stderr, "powprof import: more than %d --param\n", MAX_PARAMS);
        return -EINVAL;
    }
    if (!eq || pp_parse_double(eq + 1, &a->fixed_values[a->n_fixed]) < 0) {
        fprintf(stderr, "powprof import: --param %s: NAME=NUMBER expected\n", arg);
        return -EINVAL;
    }
    if (pp_fmt(name, 64, "%.*s", (int)(eq - arg), arg) < 0) {
        fprintf(stderr, "powprof import: --param %s: NAME is at most 63 characters\n", arg);
        return -EINVAL;
    }
    if (pp_name_check(name, "--param") < 0)
        return -EINVAL;
    a->n_fixed++;
    return 0;
}

/* Parameter names: none twice, none that summary.csv uses itself. */
static int check_param_names(const pp_results_layout *l)
{
    for (size_t i = 0; i < l->n_params; i++) {
        if (strcmp(l->param_names[i], "id") == 0 || strcmp(l->param_names[i], "status") == 0) {
            fprintf(stderr, "powprof import: parameter '%s': summary.csv has a column of that "
                            "name: call it otherwise\n", l->param_names[i]);
            return -EINVAL;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(l->param_names[i], l->param_names[j]) == 0) {
                fprintf(stderr, "powprof import: parameter '%s' is given twice\n",
                        l->param_names[i]);
                return -EINVAL;
            }
    }
    return 0;
}

static int parse_args(int argc, char **argv, import_args *a)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"config", required_argument, NULL, 'c'},
        {"param", required_argument, NULL, OPT_PARAM},
        {"pattern", required_argument, NULL, OPT_PATTERN},
        {"rate-hz", required_argument, NULL, OPT_RATE},
        {"interval-ms", required_argument, NULL, OPT_INTERVAL},
        {"unit", required_argument, NULL, OPT_UNIT},
        {"time-col", required_argument, NULL, OPT_TIME_COL},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    int opt;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:c:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            fputs(import_help, stdout);
            return 1;
        case 'o':
            a->out = optarg;
            break;
        case 'c':
            a->config_path = optarg;
            break;
        case OPT_PARAM:
            if (add_param(a, optarg) < 0)
                return -EINVAL;
            break;
        case OPT_PATTERN:
            a->pattern = optarg;
            break;
        case OPT_RATE:
            if (pp_cli_parse_double("import", "--rate-hz", optarg, &a->io.rate_hz) < 0 ||
                !(a->io.rate_hz > 0 && a->io.rate_hz <= 1e6)) {
                fprintf(stderr, "powprof import: --rate-hz %s: a rate in (0, 1e6] Hz\n", optarg);
                return -EINVAL;
            }
            break;
        case OPT_INTERVAL:
            if (pp_cli_parse_double("import", "--interval-ms", optarg, &a->io.interval_ms) < 0 ||
                !(a->io.interval_ms > 0 && a->io.interval_ms <= 86400e3)) {
                fprintf(stderr, "powprof import: --interval-ms %s: in (0, 86400000] ms\n", optarg);
                return -EINVAL;
            }
            break;
        case OPT_UNIT:
            a->io.unit_scale = strcmp(optarg, "W") == 0    ? 1.0
                               : strcmp(optarg, "mW") == 0 ? 1e-3
                               : strcmp(optarg, "uW") == 0 ? 1e-6
                                                           : 0;
            if (a->io.unit_scale == 0) {
                fprintf(stderr, "powprof import: --unit %s: W, mW or uW\n", optarg);
                return -EINVAL;
            }
            break;
        case OPT_TIME_COL:
            a->io.time_col = optarg;
            break;
        case PP_OPT_JSON:
            a->json = 1;
            break;
        default:
            fputs("Try 'powprof import --help'.\n", stderr);
            return -EINVAL;
        }
    }
    if (argc - optind < 2 || !a->out) {
        fputs("powprof import: FORMAT, at least one FILE and -o RESULTS are needed\n", stderr);
        return -EINVAL;
    }
    a->format = argv[optind];
    a->files = argv + optind + 1;
    a->n_files = argc - optind - 1;
    a->reader = reader_of(a->format);
    if (!a->reader) {
        fprintf(stderr, "powprof import: unknown format '%s' (powprofiler, tegrastats, csv, ulog)\n",
                a->format);
        return -EINVAL;
    }
    return 0;
}

/* run.json: where the rows come from, the rails and the battery. */
static int write_run_json(const import_args *a, const pp_results_layout *l,
                          const pp_battery_params *battery)
{
    char path[4400];
    json_t *root = json_object(), *sources = json_array(), *rails = json_array();
    int rc;

    for (int f = 0; f < a->n_files; f++)
        json_array_append_new(sources, json_string(a->files[f]));
    for (size_t r = 0; r < l->n_rails; r++)
        json_array_append_new(rails, json_pack("{s:s, s:b, s:b}", "name", l->rail_names[r],
                                               "estimated", 0, "in_total", l->rail_in_total[r]));
    json_object_set_new(root, "import", json_string(a->format));
    json_object_set_new(root, "device", json_string("import"));
    json_object_set_new(root, "sources", sources);
    json_object_set_new(root, "rails", rails);
    json_object_set_new(root, "battery",
                        json_pack("{s:s, s:i, s:f}", "model", pp_battery_model_name(battery->model),
                                  "cells", battery->cells, "capacity_ah", battery->capacity_ah));
    pp_fmt(path, sizeof path, "%s/run.json", tmp_dir);
    rc = json_dump_file(root, path, JSON_COMPACT | JSON_REAL_PRECISION(12)) == 0 ? 0 : -EIO;
    if (rc < 0)
        fprintf(stderr, "powprof import: cannot write %s\n", path);
    json_decref(root);
    return rc;
}

/* The first file's rails make the layout and the header of summary.csv. */
static FILE *open_summary(const pp_trace *t, pp_results_layout *l, char *row, size_t cap)
{
    char path[4400];
    FILE *fp;

    l->n_rails = t->n_rails;
    for (size_t r = 0; r < t->n_rails; r++) {
        pp_strlcpy(l->rail_names[r], t->names[r], sizeof l->rail_names[r]);
        l->rail_in_total[r] = !pp_trace_rail_is_inside(t, r);
    }
    pp_fmt(path, sizeof path, "%s/summary.csv", tmp_dir);
    if (!(fp = fopen(path, "w")))
        fprintf(stderr, "powprof import: cannot write %s: %s\n", path, strerror(errno));
    else {
        pp_results_header(l, row, cap);
        fputs(row, fp);
    }
    return fp;
}

/* Every file into tmp_dir: traces/<id>.csv and a row of summary.csv.
 * Returns 0 or an exit status. */
static int import_files(const import_args *a, int n_pat, pp_results_layout *l,
                        const pp_battery_params *battery, char *row, size_t cap)
{
    char path[4400], names[MAX_PARAMS][64];
    double values[MAX_PARAMS], mean_w;
    FILE *summary = NULL;
    int status = PP_EXIT_USAGE;

    for (int f = 0; f < a->n_files; f++) {
        pp_trace t;
        size_t len;

        if (a->pattern && pp_import_match_pattern(a->pattern, a->files[f], names, values,
                                                  MAX_PARAMS) < 0)
            goto out;
        for (size_t i = 0; i < a->n_fixed; i++)
            values[n_pat + (int)i] = a->fixed_values[i];
        if (a->reader(a->files[f], &a->io, &t) < 0)
            goto out;
        if (f == 0 && !(summary = open_summary(&t, l, row, cap))) {
            pp_trace_free(&t);
            status = PP_EXIT_FAILURE;
            goto out;
        }
        int same = t.n_rails == l->n_rails;
        for (size_t r = 0; same && r < t.n_rails; r++)
            same = strcmp(t.names[r], l->rail_names[r]) == 0;
        if (!same) {
            fprintf(stderr, "powprof import: %s: its rails differ from %s's\n", a->files[f],
                    a->files[0]);
            pp_trace_free(&t);
            goto out;
        }
        pp_fmt(path, sizeof path, "%s/traces/%d.csv", tmp_dir, f);
        if (pp_trace_write_csv(&t, path) < 0) {
            pp_trace_free(&t);
            status = PP_EXIT_FAILURE;
            goto out;
        }
        pp_results_row rr = {(uint64_t)f, values, "ok", pp_trace_duration_s(&t), 0, 0, NULL, NULL,
                             "", NULL, NULL, NULL, 0};
        len = pp_results_format_row(l, &rr, &t, battery, row, cap, &mean_w);
        fwrite(row, 1, len, summary);
        pp_trace_free(&t);
    }
    status = fflush(summary) != 0 || fsync(fileno(summary)) != 0 ? PP_EXIT_FAILURE : 0;
out:
    if (summary && fclose(summary) != 0 && status == 0)
        status = PP_EXIT_FAILURE;
    return status;
}

/* The names of the parameters: the pattern's (from the first file), then
 * the --param ones. */
static int param_layout(const import_args *a, pp_results_layout *l, int *n_pat)
{
    char names[MAX_PARAMS][64];
    double values[MAX_PARAMS];

    *n_pat = 0;
    if (a->pattern && (*n_pat = pp_import_match_pattern(a->pattern, a->files[0], names, values,
                                                        MAX_PARAMS - a->n_fixed)) < 0)
        return -EINVAL;
    for (int i = 0; i < *n_pat; i++)
        pp_strlcpy(l->param_names[l->n_params++], names[i], sizeof l->param_names[0]);
    for (size_t i = 0; i < a->n_fixed; i++)
        pp_strlcpy(l->param_names[l->n_params++], a->fixed_names[i], sizeof l->param_names[0]);
    return check_param_names(l);
}

/* --json: what was imported, as one object on stdout. */
static void print_json(const char *out, int n_files, const pp_results_layout *layout)
{
    json_t *rails = json_array(), *params = json_array(), *root;

    for (size_t r = 0; r < layout->n_rails; r++)
        json_array_append_new(rails, json_string(layout->rail_names[r]));
    for (size_t k = 0; k < layout->n_params; k++)
        json_array_append_new(params, json_string(layout->param_names[k]));
    root = json_pack("{s:s, s:i, s:o, s:o}", "output", out, "files", n_files, "rails", rails,
                     "params", params);
    json_dumpf(root, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(root);
}

int pp_cmd_import(int argc, char **argv)
{
    import_args a;
    pp_battery_params battery;
    pp_results_layout *layout = calloc(1, sizeof *layout);
    char *row = malloc(16384), path[4400];
    int n_pat, rc, status = PP_EXIT_USAGE;

    memset(&a, 0, sizeof a);
    pp_import_options_init(&a.io);
    pp_battery_params_default(&battery);
    if (!layout || !row) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    if ((rc = parse_args(argc, argv, &a)) != 0) {
        status = rc > 0 ? 0 : PP_EXIT_USAGE;
        goto out;
    }
    if ((a.config_path && pp_battery_params_load(a.config_path, &battery) < 0) ||
        param_layout(&a, layout, &n_pat) < 0)
        goto out;
    if (access(a.out, F_OK) == 0) {
        fprintf(stderr, "powprof import: %s exists: give a new folder\n", a.out);
        goto out;
    }
    for (size_t i = 0; i < PP_ARRAY_SIZE(cleanup_signals); i++)
        signal(cleanup_signals[i], on_signal);
    if (make_tmp(a.out) < 0) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    pp_fmt(path, sizeof path, "%s/traces", tmp_dir);
    if (mkdir(path, 0755) != 0) {
        fprintf(stderr, "powprof import: cannot create %s: %s\n", path, strerror(errno));
        status = PP_EXIT_FAILURE;
        goto out;
    }
    if ((status = import_files(&a, n_pat, layout, &battery, row, 16384)) != 0)
        goto out;
    if (strcmp(a.format, "ulog") == 0 && write_flight_csv(a.files, a.n_files) < 0) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    if (write_run_json(&a, layout, &battery) < 0) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    block_signals(SIG_BLOCK);
    if (rename(tmp_dir, a.out) != 0) {
        fprintf(stderr, "powprof import: cannot move %s to %s: %s\n", tmp_dir, a.out,
                strerror(errno));
        status = PP_EXIT_FAILURE;
    } else {
        tmp_armed = 0;
    }
    block_signals(SIG_UNBLOCK);
    if (status == 0 && a.json)
        print_json(a.out, a.n_files, layout);
    else if (status == 0)
        printf("%d files imported into %s (%zu rails, %zu parameters)\n", a.n_files, a.out,
               layout->n_rails, layout->n_params);
    if (status == 0 && !a.json && strcmp(a.format, "ulog") == 0)
        ulog_report(a.files, a.n_files);
out:
    if (tmp_armed) {
        remove_tree(tmp_dir);
        tmp_armed = 0;
    }
    for (size_t i = 0; i < PP_ARRAY_SIZE(cleanup_signals); i++)
        signal(cleanup_signals[i], SIG_DFL);
    free(layout);
    free(row);
    return status;
}
