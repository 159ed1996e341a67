#include "harness.h"
#include "exec_profile.h"
#include "limited.h"

#include "src/base/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int pp_test_failures;

static char *g_log;
static size_t g_log_len, g_log_cap;
static char g_tmpdir[256];

void pp_test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    pp_test_failures++;
    fprintf(stderr, "    %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void log_sink(pp_log_level level, const char *msg, void *ctx)
{
    size_t n = strlen(msg);

    (void)level;
    (void)ctx;
    if (g_log_len + n + 2 > g_log_cap) {
        size_t cap = (g_log_cap + n + 2) * 2;
        char *p = realloc(g_log, cap);
        if (!p)
            return;
        g_log = p;
        g_log_cap = cap;
    }
    memcpy(g_log + g_log_len, msg, n);
    g_log_len += n;
    g_log[g_log_len++] = '\n';
    g_log[g_log_len] = '\0';
    if (getenv("POWPROF_TEST_VERBOSE"))
        fprintf(stderr, "    log: %s\n", msg);
}

const char *test_log(void) { return g_log ? g_log : ""; }

void test_log_clear(void)
{
    g_log_len = 0;
    if (g_log)
        g_log[0] = '\0';
}

void pp_test_setup(void);
void pp_test_setup(void)
{
    pp_log_set_sink(log_sink, NULL);
    pp_log_set_level(PP_LOG_DEBUG);
    g_tmpdir[0] = '\0';
}

void pp_test_teardown(void);
void pp_test_teardown(void)
{
    if (g_tmpdir[0]) {
        char *argv[] = {"rm", "-rf", g_tmpdir, NULL};
        run_argv(argv, NULL, NULL);
    }
}

const char *fixture(const char *name)
{
    static char buf[4096];
    const char *root = getenv("POWPROF_FIXTURES");

    snprintf(buf, sizeof buf, "%s/%s", root ? root : "tests/fixtures", name);
    return buf;
}

const char *test_tmpdir(void)
{
    if (!g_tmpdir[0]) {
        snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/powprof-test.XXXXXX");
        if (!mkdtemp(g_tmpdir)) {
            perror("mkdtemp");
            exit(99);
        }
    }
    return g_tmpdir;
}

const char *fixture_copy(const char *name)
{
    static char dst[4096];
    char src[4096];
    char *argv[] = {"cp", "-a", src, dst, NULL};

    snprintf(src, sizeof src, "%s", fixture(name));
    snprintf(dst, sizeof dst, "%s/%s", test_tmpdir(), name);
    if (run_argv(argv, NULL, NULL) != 0) {
        fprintf(stderr, "cannot copy fixture %s\n", src);
        exit(99);
    }
    return dst;
}

int write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    if (!fp)
        return -1;
    fputs(text, fp);
    return fclose(fp) == 0 ? 0 : -1;
}

double number_after(const char *text, const char *key)
{
    const char *at = text ? strstr(text, key) : NULL;

    return at ? strtod(at + strlen(key), NULL) : NAN;
}

int predicted_band(const char *json, const char *metric, double *v, double *lo, double *hi)
{
    char key[256];
    const char *at;

    *v = *lo = *hi = NAN;
    snprintf(key, sizeof key, "\"%s\":{", metric);
    if (!json || !(at = strstr(json, key)))
        return 0;
    *v = number_after(at, "\"value\":");
    *lo = number_after(at, "\"lo\":");
    *hi = number_after(at, "\"hi\":");
    return !isnan(*v) && !isnan(*lo) && !isnan(*hi);
}

char g_cfg[512], g_out[512];

void write_exec_profile_with(const char *params, const char *extra)
{
    char text[8192]; /* room for fixture()'s 4096 bytes and the texts */

    snprintf(g_cfg, sizeof g_cfg, "%s/w.cfg", test_tmpdir());
    snprintf(g_out, sizeof g_out, "%s/res", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { name = \"w\"; device = \"jetson\"; rate_hz = 100; sysfs_root = \"%s\"; };\n"
             "%s\ncomponents = ({ name = \"x\"; type = \"exec\"; command = [\"sleep\", \"0.03\"];\n"
             "  params = { %s }; });\n",
             fixture("jetson-tx2-iio"), extra, params);
    write_file(g_cfg, text);
}

void write_exec_profile(const char *params)
{
    write_exec_profile_with(params, "");
}

size_t rows_of(const char *dir)
{
    char path[700], *text;
    size_t n = 0;

    snprintf(path, sizeof path, "%s/summary.csv", dir);
    text = slurp(path);
    for (char *c = text; c && *c; c++)
        n += *c == '\n';
    free(text);
    return n ? n - 1 : 0;
}

/* The monotonic clock, s. */
double test_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A whole run of tiny.cfg with its model in dir. */
void tiny_profile_and_model(const char *dir)
{
    CHECK_INT(pp(NULL, NULL, "profile", fixture("issue23/tiny.cfg"), "-o", dir, "--yes", NULL), 0);
    CHECK_INT(pp(NULL, NULL, "model", dir, NULL), 0);
}

/* The entries of dir whose name holds part. */
int entries_with(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)))
        n += strstr(e->d_name, part) != NULL;
    if (d)
        closedir(d);
    return n;
}

/* plot RESULTS with gnuplot out of PATH (the scripts and data only). */
int plot_without_gnuplot(const char *res, char **err, const char *json)
{
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    int rc;

    setenv("PATH", "/nonexistent", 1);
    rc = pp(NULL, err, "plot", res, json, NULL);
    setenv("PATH", path, 1);
    free(path);
    return rc;
}


/* data/tx2/darknet at 10, 25 and 32 fps imported with their rates (see harness.h). */
const char *tx2_darknet(void)
{
    static char out[1200];
    char f[3][1200];
    const char *rates[] = {"10", "25", "32"};
    int rc;

    for (int i = 0; i < 3; i++)
        snprintf(f[i], sizeof f[i], "data/tx2/darknet/1layer_yolo-%sfps.csv", rates[i]);
    snprintf(out, sizeof out, "%s/tx2-darknet", test_tmpdir());
    rc = run_powprof(NULL, NULL, "import", "powprofiler", f[0], f[1], f[2], "--pattern",
                     "1layer_yolo-{fps}fps.csv", "-o", out, NULL);
    CHECK_INT(rc, 0);
    return out;
}

const char *results_folder_with(const char *name, const char *summary, const char *run_json)
{
    static char dir[512];
    char path[700];

    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), name);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    write_file(path, summary);
    if (run_json) {
        snprintf(path, sizeof path, "%s/run.json", dir);
        write_file(path, run_json);
    }
    return dir;
}

char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int c;

    if (!fp)
        return NULL;
    while ((c = fgetc(fp)) != EOF) {
        if (len + 2 > cap) {
            cap = cap ? cap * 2 : 4096;
            buf = realloc(buf, cap);
            if (!buf) {
                fclose(fp);
                return NULL;
            }
        }
        buf[len++] = (char)c;
    }
    fclose(fp);
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[len] = '\0';
    return buf;
}

int run_argv(char *const argv[], char **out, char **err)
{
    char out_path[] = "/tmp/powprof-out.XXXXXX", err_path[] = "/tmp/powprof-err.XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path), st;
    pid_t pid;

    if (out_fd < 0 || err_fd < 0)
        return -1;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int null_fd = open("/dev/null", O_RDONLY);
        dup2(null_fd, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(out_fd);
    close(err_fd);
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        st = -1;
    if (out)
        *out = slurp(out_path);
    if (err)
        *err = slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    if (st == -1)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

const char *powprof_bin(void)
{
    const char *bin = getenv("POWPROF_BIN");
    return bin ? bin : "./powprof";
}

/* powprof with ap's arguments, under `timeout limit_s` unless NULL. */
static int run_powprof_va(const char *limit_s, char **out, char **err, va_list ap)
{
    char *argv[64];
    size_t n = 0;

    if (limit_s) {
        argv[n++] = "/usr/bin/timeout";
        argv[n++] = (char *)limit_s;
    }
    argv[n++] = (char *)powprof_bin();
    for (char *a; (a = va_arg(ap, char *)) && n < 63;)
        argv[n++] = a;
    argv[n] = NULL;
    return run_argv(argv, out, err);
}

int run_powprof(char **out, char **err, ...)
{
    va_list ap;
    int rc;

    va_start(ap, err);
    rc = run_powprof_va(NULL, out, err, ap);
    va_end(ap);
    return rc;
}

int run_powprof_within(const char *limit_s, char **out, char **err, ...)
{
    va_list ap;
    int rc;

    va_start(ap, err);
    rc = run_powprof_va(limit_s, out, err, ap);
    va_end(ap);
    return rc;
}

const char *test_path(const char *name)
{
    static char path[512][600];
    static int next;

    next = (next + 1) % 512;
    snprintf(path[next], sizeof path[next], "%s/%s", test_tmpdir(), name);
    return path[next];
}
