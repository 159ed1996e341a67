/* targets.c - the fuzz targets of targets.h: each writes the input to a
 * file, runs one parser on it, and checks what the parser accepted. */
#include "targets.h"

#include "battery/battery.h"
#include "src/config/battery_config.h"
#include "src/results/import.h"
#include "src/base/log.h"
#include "src/config/profile.h"
#include "src/results/summary.h"
#include "src/traces/trace.h"
#include "src/traces/ulog.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN_JSON_MARK "\n@@run.json@@\n"

static char scratch[256];

/* LeakSanitizer's default suppressions, read by the fuzzers and by the test
 * suite under `make asan` alike: libconfig 1.5 (Debian 12) leaks inside its
 * own lexer on some syntax errors (a file ending inside a string, some bad
 * tokens): its defect, not powprof's, which frees every configuration it
 * loads (pp_config_free). Found by fuzz-profile and fuzz-battery. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:strbuf_append\nleak:libconfig_yylex\n";
}

static void quiet(pp_log_level level, const char *msg, void *ctx)
{
    (void)level;
    (void)msg;
    (void)ctx;
}

static void remove_scratch(void)
{
    static const char *const names[] = {"in", "summary.csv", "run.json"};
    char path[300];

    for (size_t i = 0; i < PP_ARRAY_SIZE(names); i++) {
        pp_fmt(path, sizeof path, "%s/%s", scratch, names[i]);
        unlink(path);
    }
    rmdir(scratch);
}

int pp_fuzz_init(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");

    pp_fmt(scratch, sizeof scratch, "%s/powprof-fuzz.XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(scratch))
        return -errno;
    atexit(remove_scratch);
    pp_log_set_sink(quiet, NULL);
    return 0;
}

/* The input into scratch/name; its path into path. */
static int write_input(const char *name, const uint8_t *data, size_t size, char *path,
                       size_t cap)
{
    int fd;

    pp_fmt(path, cap, "%s/%s", scratch, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        abort(); /* the harness itself is broken */
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n <= 0)
            abort();
        data += n;
        size -= (size_t)n;
    }
    close(fd);
    return 0;
}

static void require(int ok)
{
    if (!ok)
        abort();
}

/* What a trace reader accepted: times finite and non-decreasing, values
 * finite; an importer's also >= 0 with safe, distinct rail names. */
static void check_trace(const pp_trace *t, int imported)
{
    require(t->n_rails >= 1 && t->n_rails <= PP_TRACE_MAX_RAILS && t->n_samples >= 1);
    for (size_t i = 0; i < t->n_samples; i++) {
        require(isfinite(t->t_s[i]) && (i == 0 || t->t_s[i] >= t->t_s[i - 1]));
        for (size_t r = 0; r < t->n_rails; r++)
            require(isfinite(pp_trace_at(t, i, r)) && (!imported || pp_trace_at(t, i, r) >= 0));
    }
    for (size_t r = 0; imported && r < t->n_rails; r++) {
        require(pp_name_why(t->names[r], NULL, 0) == 0 && strcmp(t->names[r], "total") != 0);
        for (size_t q = 0; q < r; q++)
            require(strcmp(t->names[q], t->names[r]) != 0);
    }
}

int pp_fuzz_profile(const uint8_t *data, size_t size)
{
    static pp_profile *p;
    char path[300], name[2 * PP_PROFILE_NAME_MAX];

    if (!p && !(p = malloc(sizeof *p)))
        abort();
    write_input("in", data, size, path, sizeof path);
    if (pp_profile_load(path, p) != 0)
        return 0;
    require(p->n_components >= 1 && pp_profile_count(p) >= 1);
    require(pp_name_why(p->name, NULL, 0) == 0);
    for (size_t c = 0; c < p->n_components; c++) {
        const pp_component_spec *cs = &p->components[c];
        require(pp_name_why(cs->name, NULL, 0) == 0 && !strchr(cs->name, '.'));
        for (size_t k = 0; k < cs->n_params; k++) {
            require(cs->params[k].n_values >= 1);
            for (size_t v = 0; v < cs->params[k].n_values; v++)
                require(isfinite(cs->params[k].values[v]));
        }
    }
    for (size_t k = 0; k < pp_profile_n_params(p); k++) {
        pp_profile_param_name(p, k, name, sizeof name);
        require(pp_name_why(name, NULL, 0) == 0);
    }
    return 0;
}

int pp_fuzz_battery(const uint8_t *data, size_t size)
{
    pp_battery_params b;
    const char *key;
    char path[300], why[256];

    write_input("in", data, size, path, sizeof path);
    pp_battery_params_default(&b);
    if (pp_battery_params_load(path, &b) == 0)
        require(pp_battery_params_check(&b, &key, why, sizeof why) == 0);
    return 0;
}

int pp_fuzz_trace(const uint8_t *data, size_t size)
{
    pp_trace t;
    char path[300];

    write_input("in", data, size, path, sizeof path);
    if (pp_trace_read_csv(path, &t) == 0) {
        check_trace(&t, 0);
        pp_trace_free(&t);
    }
    return 0;
}

static int import_one(int (*reader)(const char *, const pp_import_options *, pp_trace *),
                      const uint8_t *data, size_t size)
{
    pp_import_options o;
    pp_trace t;
    char path[300];

    write_input("in", data, size, path, sizeof path);
    pp_import_options_init(&o);
    if (reader(path, &o, &t) == 0) {
        check_trace(&t, 1);
        pp_trace_free(&t);
    }
    return 0;
}

int pp_fuzz_powprofiler(const uint8_t *data, size_t size)
{
    return import_one(pp_import_powprofiler, data, size);
}

int pp_fuzz_tegrastats(const uint8_t *data, size_t size)
{
    return import_one(pp_import_tegrastats, data, size);
}

int pp_fuzz_csv(const uint8_t *data, size_t size)
{
    return import_one(pp_import_csv, data, size);
}

/* What pp_summary_read accepted: safe names, each giving a path inside
 * the folder; finite parameters. */
static void check_summary(const pp_summary *s)
{
    char path[1024];

    require(s->n_rows >= 1);
    for (size_t k = 0; k < s->n_params; k++)
        require(pp_name_why(s->params[k], NULL, 0) == 0);
    for (size_t m = 0; m < s->n_metrics; m++)
        require(pp_path_fmt(path, sizeof path, scratch, "model/%s.dat", s->metrics[m]) == 0 &&
                strncmp(path, scratch, strlen(scratch)) == 0 && !strstr(path, "/.."));
    for (size_t i = 0; i < s->n_rows; i++) {
        require(s->ids[i] >= 0);
        for (size_t k = 0; k < s->n_params; k++)
            require(isfinite(s->x[i * s->n_params + k]));
    }
}

int pp_fuzz_summary(const uint8_t *data, size_t size)
{
    const uint8_t *mark = memmem(data, size, RUN_JSON_MARK, strlen(RUN_JSON_MARK));
    size_t csv_size = mark ? (size_t)(mark - data) : size;
    char path[300];
    pp_summary s;

    write_input("summary.csv", data, csv_size, path, sizeof path);
    if (mark) {
        size_t skip = csv_size + strlen(RUN_JSON_MARK);
        write_input("run.json", data + skip, size - skip, path, sizeof path);
    } else {
        pp_fmt(path, sizeof path, "%s/run.json", scratch);
        unlink(path);
    }
    if (pp_summary_read(scratch, &s) == 0) {
        check_summary(&s);
        pp_summary_free(&s);
    }
    return 0;
}

/* What the ULog reader accepted: every battery's times increasing, its
 * voltage and current finite; its trace, when one is made, as an
 * importer's. */
int pp_fuzz_ulog(const uint8_t *data, size_t size)
{
    pp_ulog_flight f;
    pp_trace t;

    if (pp_ulog_parse_battery(data, size, "in", &f) == 0) {
        require(f.n_batteries <= PP_ULOG_MAX_BATTERIES);
        for (size_t b = 0; b < f.n_batteries; b++)
            for (size_t i = 0; i < f.bat[b].n; i++)
                require(isfinite(f.bat[b].voltage_v[i]) && isfinite(f.bat[b].current_a[i]) &&
                        (i == 0 || f.bat[b].t_s[i] > f.bat[b].t_s[i - 1]));
        if (pp_ulog_battery_trace(&f, "in", &t) == 0) {
            check_trace(&t, 1);
            pp_trace_free(&t);
        }
    }
    pp_ulog_flight_free(&f);
    return 0;
}

const pp_fuzz_target pp_fuzz_targets[] = {
    {"profile", pp_fuzz_profile},         {"battery", pp_fuzz_battery},
    {"trace", pp_fuzz_trace},             {"powprofiler", pp_fuzz_powprofiler},
    {"tegrastats", pp_fuzz_tegrastats},   {"csv", pp_fuzz_csv},
    {"summary", pp_fuzz_summary},         {"ulog", pp_fuzz_ulog},
    {NULL, NULL},
};
