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
#include "src/base/util.h"
#include "src/layers/layers_model.h"

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

/* A network of every kind but the detectors, for the layer-model target. */
static const char layer_model_cfg[] =
    "[net]\nwidth=40\nheight=40\nchannels=3\n"
    "[crop]\ncrop_width=32\ncrop_height=32\n"
    "[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n"
    "[maxpool]\nsize=2\nstride=2\n"
    "[upsample]\nstride=2\n"
    "[route]\nlayers=-1,-3\n"
    "[convolutional]\nfilters=8\nsize=1\nactivation=logistic\n"
    "[shortcut]\nfrom=-3\nactivation=linear\n"
    "[reorg]\nstride=2\n"
    "[avgpool]\n"
    "[dropout]\nprobability=.5\n"
    "[connected]\noutput=10\nactivation=linear\n"
    "[softmax]\n"
    "[cost]\n";

/* What pp_layer_model_read accepted: numbers in range; a prediction with
 * it is finite and not negative, or refused. */
static void check_layer_model(const pp_layer_model *m, const pp_network_desc *net)
{
    pp_layers_prediction p;

    require(isnan(m->idle_w) || (m->idle_w >= 0 && m->idle_w <= 1e4));
    for (int q = 0; q < PP_LQ_COUNT; q++)
        for (int k = 0; k <= PP_LAYER_KINDS; k++) {
            const pp_layer_fit *f = k < PP_LAYER_KINDS ? &m->fit[q][k] : &m->roofline[q];
            for (size_t c = 0; f->family >= 0 && c < f->n_coef; c++)
                require(isfinite(f->coef[c]) && f->n_coef <= PP_LAYER_MAX_COEF);
            require(f->family < 0 || (f->weight >= 0 && f->weight <= 1 && f->floor >= 0));
        }
    if (pp_layers_predict(m, net, &p) != 0)
        return;
    for (int q = 0; q < PP_LQ_COUNT; q++)
        require(isfinite(p.total[q]) && p.total[q] >= 0 && !(p.band[q] < 0));
    pp_layers_prediction_free(&p);
}

int pp_fuzz_layer_model(const uint8_t *data, size_t size)
{
    static pp_network_desc *net;
    static pp_layer_model *m;
    char path[300];

    if (!net) {
        pp_dncfg cfg;
        if (!(net = malloc(sizeof *net)) || !(m = malloc(sizeof *m)) ||
            pp_dncfg_parse(layer_model_cfg, "fuzz.cfg", &cfg) != 0)
            abort();
        if (pp_layers_describe(&cfg, 0, 0, net) != 0)
            abort();
        pp_dncfg_free(&cfg);
    }
    write_input("in", data, size, path, sizeof path);
    if (pp_layer_model_read(path, m) == 0)
        check_layer_model(m, net);
    return 0;
}

const pp_fuzz_target pp_fuzz_targets[] = {
    {"profile", pp_fuzz_profile},         {"battery", pp_fuzz_battery},
    {"trace", pp_fuzz_trace},             {"powprofiler", pp_fuzz_powprofiler},
    {"tegrastats", pp_fuzz_tegrastats},   {"csv", pp_fuzz_csv},
    {"summary", pp_fuzz_summary},
    {"layer_model", pp_fuzz_layer_model},
    {NULL, NULL},
};
