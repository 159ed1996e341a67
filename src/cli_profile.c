/* powprof profile: run every configuration of a profile. */
#include "cli.h"

#include "log.h"
#include "profile.h"
#include "sweep.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_int g_interrupt;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&g_interrupt, 1);
}

static void fmt_clock(double s, char *buf, size_t cap)
{
    long t = isfinite(s) && s >= 0 ? (long)(s + 0.5) : -1;
    if (t < 0)
        pp_fmt(buf, cap, "?");
    else if (t >= 3600)
        pp_fmt(buf, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        pp_fmt(buf, cap, "%ld:%02ld", t / 60, t % 60);
}

/* A bar on a terminal, a line per configuration otherwise. */
static void show_progress(void *ctx, const pp_sweep_progress *pr)
{
    int tty = *(int *)ctx;
    char el[32], left[32];

    fmt_clock(pr->elapsed_s, el, sizeof el);
    fmt_clock(pr->left_s, left, sizeof left);
    if (tty) {
        int width = 30, fill = pr->total ? (int)(width * pr->done / pr->total) : width;
        fprintf(stderr, "\r[%.*s%*s] %llu/%llu  id %llu %s  elapsed %s  left ~%s   ", fill,
                "##############################", width - fill, "",
                (unsigned long long)pr->done, (unsigned long long)pr->total,
                (unsigned long long)pr->id, pr->status, el, left);
        if (pr->done == pr->total)
            fputc('\n', stderr);
    } else {
        fprintf(stderr, "powprof: [%llu/%llu] id %llu %s %.2f s %.3f W  elapsed %s left ~%s\n",
                (unsigned long long)pr->done, (unsigned long long)pr->total,
                (unsigned long long)pr->id, pr->status, pr->duration_s, pr->total_mean_w, el,
                left);
    }
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char buf[4096];

    if (pp_strlcpy(buf, path, sizeof buf) < 0)
        return -ENAMETOOLONG;
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -errno;
        *s = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -errno;
    return 0;
}

static const char profile_help[] =
    "usage: powprof profile CONFIG [-o DIR] [--dry-run] [--resume] [--yes] [--json]\n"
    "\n"
    "Run every configuration of the profile in CONFIG (libconfig syntax: see\n"
    "configs/*.cfg) while sampling the power rails, and keep each one's trace\n"
    "and summary row in DIR (default results/<profile name>).\n"
    "\n"
    "options:\n"
    "  --dry-run              list every configuration with its id and parameter\n"
    "                         values, and an estimate of the total time\n"
    "  -o, --output DIR       results folder\n"
    "  --resume               run only the configurations missing from DIR\n"
    "  --yes                  no confirmation for more than 10000 configurations\n"
    "  --json                 with --dry-run: one JSON object\n"
    "  -h, --help             this help\n";

enum { OPT_DRY_RUN = 3000, OPT_RESUME, OPT_YES };

static void dry_run_text(const pp_profile *p, uint64_t n, size_t n_params, double *values)
{
    char name[160];
    double total = 0.0;

    printf("%-6s", "id");
    for (size_t k = 0; k < n_params; k++) {
        pp_profile_param_name(p, k, name, sizeof name);
        printf(" %14s", name);
    }
    printf(" %12s\n", "at least [s]");
    for (uint64_t id = 0; id < n; id++) {
        double est;
        pp_profile_values(p, id, values);
        est = pp_profile_estimate_s(p, values);
        total += est;
        printf("%-6llu", (unsigned long long)id);
        for (size_t k = 0; k < n_params; k++)
            printf(" %14g", values[k]);
        printf(" %12.1f\n", est);
    }
    if (total > 0)
        printf("%llu configurations of profile '%s' on device %s; at least %.0f s (%.1f min) in "
               "all\n", (unsigned long long)n, p->name, p->device, total, total / 60.0);
    else
        printf("%llu configurations of profile '%s' on device %s; time unknown (components run "
               "to completion)\n", (unsigned long long)n, p->name, p->device);
}

static void dry_run_json(const pp_profile *p, uint64_t n, size_t n_params, double *values)
{
    char name[160];
    double total = 0.0;

    printf("{\"profile\":");
    pp_json_string(stdout, p->name);
    printf(",\"device\":");
    pp_json_string(stdout, p->device);
    printf(",\"params\":[");
    for (size_t k = 0; k < n_params; k++) {
        pp_profile_param_name(p, k, name, sizeof name);
        if (k)
            putchar(',');
        pp_json_string(stdout, name);
    }
    printf("],\"configurations\":[");
    for (uint64_t id = 0; id < n; id++) {
        double est;
        pp_profile_values(p, id, values);
        est = pp_profile_estimate_s(p, values);
        total += est;
        printf("%s{\"id\":%llu,\"values\":[", id ? "," : "", (unsigned long long)id);
        for (size_t k = 0; k < n_params; k++) {
            if (k)
                putchar(',');
            pp_json_number(stdout, values[k]);
        }
        printf("],\"estimate_s\":");
        pp_json_number(stdout, est);
        printf("}");
    }
    printf("],\"count\":%llu,\"estimate_s\":", (unsigned long long)n);
    pp_json_number(stdout, total);
    printf("}\n");
}

int pp_cmd_profile(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"yes", no_argument, NULL, OPT_YES},
        {"json", no_argument, NULL, PP_OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    int dry_run = 0, json = 0, yes = 0, resume = 0, opt, status = PP_EXIT_USAGE;
    const char *out_dir = NULL;
    char default_dir[4096];
    pp_profile *p;
    double *values;
    uint64_t n;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            fputs(profile_help, stdout);
            return 0;
        case 'o':
            out_dir = optarg;
            break;
        case OPT_RESUME:
            resume = 1;
            break;
        case OPT_DRY_RUN:
            dry_run = 1;
            break;
        case OPT_YES:
            yes = 1;
            break;
        case PP_OPT_JSON:
            json = 1;
            break;
        default:
            fputs("Try 'powprof profile --help'.\n", stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fputs("powprof profile: one configuration file expected (powprof profile CONFIG)\n", stderr);
        return PP_EXIT_USAGE;
    }
    p = malloc(sizeof *p);
    values = malloc(PP_PROFILE_MAX_COMPONENTS * PP_PROFILE_MAX_PARAMS * sizeof *values);
    if (!p || !values) {
        status = PP_EXIT_FAILURE;
        goto out;
    }
    if (pp_profile_load(argv[optind], p) < 0)
        goto out;
    n = pp_profile_count(p);
    if (n > PP_PROFILE_CONFIRM_ABOVE && !yes && !dry_run) {
        char answer[16] = "";
        if (!isatty(0)) {
            fprintf(stderr, "powprof profile: %s describes %llu configurations (more than %d): "
                            "check it with --dry-run, and confirm with --yes\n",
                    argv[optind], (unsigned long long)n, PP_PROFILE_CONFIRM_ABOVE);
            goto out;
        }
        fprintf(stderr, "%s describes %llu configurations. Run them all? [y/N] ", argv[optind],
                (unsigned long long)n);
        if (!fgets(answer, sizeof answer, stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
            fprintf(stderr, "powprof profile: not run\n");
            goto out;
        }
    }
    if (dry_run) {
        if (json)
            dry_run_json(p, n, pp_profile_n_params(p), values);
        else
            dry_run_text(p, n, pp_profile_n_params(p), values);
        status = 0;
        goto out;
    }
    if (!out_dir) {
        if (pp_path_fmt(default_dir, sizeof default_dir, "results", "%s", p->name) < 0)
            goto out;
        out_dir = default_dir;
    }
    if (make_dirs(out_dir) < 0) {
        fprintf(stderr, "powprof profile: -o %s: cannot create: %s\n", out_dir, strerror(errno));
        goto out;
    }
    {
        pp_sweep_options so = {0};
        pp_sweep_stats st;
        struct sigaction sa, old_int, old_term;
        int tty = isatty(2), rc;

        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        so.out_dir = out_dir;
        so.resume = resume;
        so.interrupt = &g_interrupt;
        so.progress = show_progress;
        so.progress_ctx = &tty;
        fprintf(stderr, "powprof: profile '%s': %llu configurations on %s, results in %s\n",
                p->name, (unsigned long long)n, p->device, out_dir);
        rc = pp_sweep_run(p, &so, &st);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        if (tty && st.ran && st.ran + st.skipped < st.total)
            fputc('\n', stderr);
        if (rc == -EINTR) {
            fprintf(stderr, "powprof: interrupted: %llu of %llu configurations saved in %s; "
                            "continue with: powprof profile %s -o %s --resume\n",
                    (unsigned long long)(st.ran + st.skipped), (unsigned long long)st.total,
                    out_dir, argv[optind], out_dir);
            status = 130;
            goto out;
        }
        if (rc < 0) {
            status = rc == -EEXIST || rc == -EINVAL || rc == -ENOENT ? PP_EXIT_USAGE
                                                                     : PP_EXIT_FAILURE;
            goto out;
        }
        printf("%llu configurations: %llu run (%llu ok, %llu failed or timed out), %llu already "
               "done; summary in %s/summary.csv\n",
               (unsigned long long)st.total, (unsigned long long)st.ran,
               (unsigned long long)st.ok, (unsigned long long)st.failed,
               (unsigned long long)st.skipped, out_dir);
        status = st.failed ? 1 : 0;
    }
out:
    free(p);
    free(values);
    return status;
}
