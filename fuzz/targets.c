/* targets.c - the fuzz targets of targets.h: each writes the input to a
 * file, runs one parser on it, and checks what the parser accepted. */
#include "targets.h"

#include "battery/battery.h"
#include "src/config/battery_config.h"
#include "plots/plot_plan.h"
#include "src/dnn/darknet_cfg.h"
#include "src/plan/phases.h"
#include "src/governor/governor_source.h"
#include "src/plan/plan.h"
#include "src/adaptive/adaptive.h"
#include "src/adaptive/adaptive_design.h"
#include "src/adaptive/adaptive_state.h"
#include "src/results/import_csv.h"
#include "src/results/import_powprofiler.h"
#include "src/results/import_tegrastats.h"
#include "src/results/merge.h"
#include "src/base/log.h"
#include "src/config/profile.h"
#include "src/results/summary.h"
#include "src/traces/trace.h"
#include "src/flight/ulog.h"
#include "src/flight/ulog_trace.h"
#include "src/flight/flight_log.h"
#include "src/flight/flight_fit.h"
#include "src/base/duration.h"
#include "src/base/util.h"
#include "src/dnn/layers_model.h"
#include "src/dnn/layers_json.h"
#include "src/dnn/layers_predict.h"
#include "src/layer2/model.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* path and what is in it (never through a link). */
static void remove_all(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_scratch(void)
{
    remove_all(scratch);
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

/* Every metric's prediction at pt inside its band if finite. */
static void check_predictions(const pp_model *m, const pp_model_point *pt)
{
    for (size_t k = 0; k < m->sum.n_metrics; k++) {
        pp_prediction p;
        if (pp_model_predict(m, k, pt, &p) == 0 && isfinite(p.value))
            require(!(p.lo > p.value) && !(p.hi < p.value));
    }
}

/* pp_model_read of a summary.csv (run.json after RUN_JSON_MARK) of <= 8 KB:
 * each prediction at a measured configuration inside its band if finite,
 * and at the same configuration with its first numeric parameter a span
 * past its largest value (an extrapolation: the trend of the last levels,
 * band_trend.c). */
int pp_fuzz_model(const uint8_t *data, size_t size)
{
    pp_model m;

    if (size > 8192)
        return 0;
    pp_fuzz_summary(data, size); /* writes the folder (and checks the reader) */
    if (pp_model_read(scratch, NULL, 0, &m) < 0)
        return 0;
    for (size_t i = 0; i < m.sum.n_rows; i++) {
        pp_model_point pt;
        for (size_t k = 0; k < m.sum.n_params; k++)
            pt.raw[k] = m.sum.x[i * m.sum.n_params + k];
        check_predictions(&m, &pt);
        if (m.n_num > 0 && m.n_groups > 0) {
            const pp_surface *s = &m.groups[0].surf;
            size_t k = m.num[0];
            pt.raw[k] = 2 * pp_surface_denormalize(s, 0, 1) - pp_surface_denormalize(s, 0, 0);
            if (isfinite(pt.raw[k]))
                check_predictions(&m, &pt);
        }
    }
    pp_model_free(&m);
    return 0;
}

/* ---- issue 23: merge, the plan of plot --plan, darknet cfgs ---- */

/* The input split at RUN_JSON_MARK into dir/summary.csv and dir/run.json
 * (none without the mark). */
static void write_results(const char *dir, const uint8_t *data, size_t size)
{
    const uint8_t *mark = memmem(data, size, RUN_JSON_MARK, strlen(RUN_JSON_MARK));
    size_t csv_size = mark ? (size_t)(mark - data) : size;
    char name[300], path[300];

    mkdir(dir, 0700);
    pp_fmt(name, sizeof name, "%s/summary.csv", strrchr(dir, '/') + 1);
    write_input(name, data, csv_size, path, sizeof path);
    pp_fmt(name, sizeof name, "%s/run.json", strrchr(dir, '/') + 1);
    if (mark)
        write_input(name, mark + strlen(RUN_JSON_MARK), size - csv_size - strlen(RUN_JSON_MARK),
                    path, sizeof path);
}

static int count_row(void *ctx, const pp_summary_row *row)
{
    (void)row;
    ++*(size_t *)ctx;
    return 0;
}

/* Nothing named *.merge.* left in the scratch folder. */
static void check_no_leftover(void)
{
    DIR *d = opendir(scratch);
    struct dirent *e;

    require(d != NULL);
    while ((e = readdir(d)))
        require(!strstr(e->d_name, ".merge."));
    closedir(d);
}

/* pp_merge of one source folder: what it accepts, the row reader accepts
 * again (merge writes nothing that model refuses), with as many rows as
 * merged; an error leaves nothing behind. */
int pp_fuzz_merge(const uint8_t *data, size_t size)
{
    char src[300], out[300];
    const char *const srcs[] = {src};
    pp_merge_report r;
    pp_summary s;
    size_t n = 0;

    pp_fmt(src, sizeof src, "%s/m0", scratch);
    pp_fmt(out, sizeof out, "%s/mout", scratch);
    remove_all(src);
    remove_all(out);
    write_results(src, data, size);
    if (pp_merge(srcs, 1, out, &r) == 0) {
        require(r.n_rows >= 1);
        require(pp_summary_read_each(out, PP_SUMMARY_NO_LINKS, &s, count_row, &n) == 0);
        require(n == r.n_rows);
        pp_summary_free(&s);
    } else {
        require(access(out, F_OK) != 0);
    }
    check_no_leftover();
    remove_all(out);
    return 0;
}

/* The last error logged, for the plan target. */
static char g_said[512];

static void keep_error(pp_log_level level, const char *msg, void *ctx)
{
    (void)ctx;
    if (level == PP_LOG_ERROR)
        pp_strlcpy(g_said, msg, sizeof g_said);
}

/* What pp_plot_plan_load accepted: numbers in range (a mission the battery
 * model flies, powers it takes, steps in order within the mission). */
static void check_plan(const pp_plot_plan *p)
{
    require(p->mission_s >= PP_PLAN_MISSION_S_MIN && p->mission_s <= PP_PLAN_MISSION_S_MAX);
    require(p->min_soc_frac >= 0 && p->min_soc_frac < 1 && p->efficiency > 0 &&
            p->efficiency <= 1 && p->base_power_w >= 0);
    require(p->planned_w >= 0 && p->planned_w <= PP_BATTERY_POWER_W_MAX && isfinite(p->power_w));
    require(p->n_steps <= PP_PLOT_PLAN_STEPS);
    for (size_t i = 0; i < p->n_steps; i++)
        require(p->steps[i].t_s >= 0 && p->steps[i].t_s < p->mission_s &&
                (i == 0 || p->steps[i].t_s > p->steps[i - 1].t_s) &&
                p->steps[i].planned_w >= 0 && p->steps[i].planned_w <= PP_BATTERY_POWER_W_MAX);
}

/* pp_plot_plan_load, and a plan it accepts flown on the default battery
 * (pp_plot_plan_soc): it never reaches the battery model's own checks
 * ("battery: sample ..." names no plan file). */
int pp_fuzz_plotplan(const uint8_t *data, size_t size)
{
    static pp_plot_plan plan;
    pp_plot_options o;
    pp_plot_result r;
    pp_plotter pl = {scratch, &o, &r, 0, "", 0};
    char path[300];

    write_input("in", data, size, path, sizeof path);
    if (pp_plot_plan_load(path, &plan) != 0)
        return 0;
    check_plan(&plan);
    pp_plot_options_init(&o);
    memset(&r, 0, sizeof r);
    pp_fmt(r.plots_dir, sizeof r.plots_dir, "%s", scratch);
    g_said[0] = '\0';
    pp_log_set_sink(keep_error, NULL);
    pp_plot_plan_soc(&pl, &plan, &o.battery);
    pp_log_set_sink(quiet, NULL);
    require(!strstr(g_said, "battery: sample"));
    pp_plot_result_free(&r);
    return 0;
}

/* pp_dncfg_parse (NUL-terminated input) and its accessors on every
 * option: what it accepts starts with [net], has sections with a type
 * and options with a key, neither with blanks. */
int pp_fuzz_darknet(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    pp_dncfg c;
    int v, list[16];
    size_t n;

    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    if (pp_dncfg_parse(text, "in.cfg", &c) == 0) {
        require(c.n_sections >= 1 && (strcmp(c.sections[0].type, "net") == 0 ||
                                      strcmp(c.sections[0].type, "network") == 0));
        for (size_t i = 0; i < c.n_sections; i++) {
            const pp_dncfg_section *sec = &c.sections[i];
            require(sec->type && !strpbrk(sec->type, " \t\r\n"));
            for (size_t k = 0; k < sec->n_options; k++) {
                require(sec->options[k].key[0] && !strpbrk(sec->options[k].key, " \t\r\n"));
                require(pp_dncfg_find(sec, sec->options[k].key) != NULL);
                pp_dncfg_int(&c, sec, sec->options[k].key, 0, -1000000, 1000000, &v);
                pp_dncfg_ints(&c, sec, sec->options[k].key, list, PP_ARRAY_SIZE(list), &n);
            }
        }
        pp_dncfg_free(&c);
    }
    free(text);
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

/* A mission file with phases (pp_mission_load: the mission and battery
 * groups), and after a line "@@trace@@" the trace its phases' base_trace
 * "t.csv" names, each phase's base load then cut or repeated from it
 * (pp_phase_load_trace). What is accepted: 1 to 32 phases of safe,
 * distinct names, durations in [1, 1e7] s, weights > 0, bounds in order;
 * a base load of at most PP_PHASE_LOAD_MAX_SAMPLES samples (plus the ends)
 * from 0 to the phase's duration, powers finite and >= 0. */
int pp_fuzz_mission(const uint8_t *data, size_t size)
{
    static pp_mission_spec m;
    static const char mark[] = "\n@@trace@@\n";
    const uint8_t *cut = memmem(data, size, mark, sizeof mark - 1);
    size_t head = cut ? (size_t)(cut - data) : size;
    char path[PP_PATH_MAX], trace[PP_PATH_MAX];
    pp_battery_params b;

    write_input("t.csv", cut ? cut + sizeof mark - 1 : (const uint8_t *)"", cut ?
                size - head - (sizeof mark - 1) : 0, trace, sizeof trace);
    write_input("m.cfg", data, head, path, sizeof path);
    pp_battery_params_default(&b);
    if (pp_mission_load(path, &m, &b) != 0)
        return 0;
    require(m.n_phases >= 1 && m.n_phases <= PP_MISSION_MAX_PHASES && m.n_fixed <= PP_MISSION_MAX_FIXED);
    for (size_t k = 0; k < m.n_phases; k++) {
        const pp_mission_phase *ph = &m.phase[k];
        pp_phase_load l;
        require(pp_name_why(ph->name, NULL, 0) == 0 && ph->weight > 0 &&
                ph->duration_s >= PP_DURATION_S_MIN && ph->duration_s <= PP_DURATION_S_MAX);
        for (size_t j = 0; j < ph->n_bounds; j++)
            require(!(ph->bound[j].min > ph->bound[j].max));
        if (!ph->base_trace[0] || strcmp(ph->base_trace, trace) != 0)
            continue; /* only the trace of the input is read */
        if (pp_phase_load_trace(ph->base_trace, ph->base_trace_from_s, ph->duration_s, &l) == 0) {
            require(l.n >= 2 && l.n <= PP_PHASE_LOAD_MAX_SAMPLES + 8 && l.t_s[0] == 0 &&
                    l.t_s[l.n - 1] == ph->duration_s && isfinite(l.mean_w) && l.mean_w >= 0);
            for (size_t i = 0; i < l.n; i++)
                require(isfinite(l.p_w[i]) && l.p_w[i] >= 0 && (i == 0 || l.t_s[i] > l.t_s[i - 1]));
            pp_phase_load_free(&l);
        }
    }
    return 0;
}

/* adaptive.json read back against a grid of 36 configurations (ids 0 to
 * 35: a = 1..12 x b = 1..3, as tests/fixtures/issue33/ad.cfg): what is
 * accepted has every pick a configuration of the grid in a round that
 * exists, at most PP_ADAPTIVE_MAX_ROUNDS rounds, the measured ones first,
 * their counts within the grid and their seconds >= 0. */
int pp_fuzz_adaptive(const uint8_t *data, size_t size)
{
    static pp_adaptive_space sp;
    static pp_adaptive_state st;
    char path[PP_PATH_MAX], dir[PP_PATH_MAX];

    if (!sp.n) {
        require(pp_adaptive_space_init(&sp, 2, 36) == 0);
        for (size_t c = 0; c < 36; c++) {
            sp.raw[2 * c] = (double)(c / 3 + 1);
            sp.raw[2 * c + 1] = (double)(c % 3 + 1);
            sp.ids[c] = c;
        }
        pp_strlcpy(sp.names[0], "w.a", sizeof sp.names[0]);
        pp_strlcpy(sp.names[1], "w.b", sizeof sp.names[1]);
        require(pp_adaptive_space_finish(&sp) == 0);
    }
    write_input("adaptive.json", data, size, path, sizeof path);
    pp_strlcpy(dir, path, sizeof dir);
    *strrchr(dir, '/') = '\0';
    if (pp_adaptive_state_read(dir, &sp, &st) == 0) {
        require(st.n_rounds <= PP_ADAPTIVE_MAX_ROUNDS && st.n_done <= st.n_rounds);
        for (size_t i = 0; i < st.n_picks; i++)
            require(st.picks[i].cand < sp.n && st.pick_round[i] < st.n_rounds);
        for (size_t r = 0; r < st.n_done; r++)
            require(st.done[r].n_rows <= sp.n && !(st.done[r].measured_s < 0));
    }
    pp_adaptive_state_free(&st);
    return 0;
}

/* A flight log CSV (ulog2csv's battery_status): what the reader accepted
 * (times increasing, voltages > 0, currents finite), and battery fit on it
 * when small: a pack within its physical ranges, finite figures, or a
 * logged error. */
int pp_fuzz_flightcsv(const uint8_t *data, size_t size)
{
    char path[4300];
    const char *paths[1] = {path};
    pp_ulog_flight f;
    pp_flight_fit_options o;
    pp_flight_fit *r = malloc(sizeof *r);
    const char *key;
    char why[256];
    int ok;

    write_input("in_battery_status_0.csv", data, size, path, sizeof path);
    ok = pp_flight_log_read(path, &f) == 0 && f.n_batteries == 1 && f.bat[0].n <= 400;
    size_t n_whole = ok ? f.bat[0].n : 0;
    for (size_t i = 0; ok && i < f.bat[0].n; i++)
        require(f.bat[0].voltage_v[i] > 0 && isfinite(f.bat[0].voltage_v[i]) &&
                isfinite(f.bat[0].current_a[i]) && isfinite(f.bat[0].t_s[i]) &&
                (i == 0 || f.bat[0].t_s[i] > f.bat[0].t_s[i - 1]));
    pp_ulog_flight_free(&f);
    if (ok) { /* binned as read: bins of 1, 2, 4... */
        require(pp_flight_log_read_max(path, &f, 2) == 0);
        size_t bin = f.bat[0].bin > 1 ? f.bat[0].bin : 1, n = f.bat[0].n;
        require(f.n_batteries == 1 && n <= 4 && f.bat[0].n_logged == n_whole);
        require(bin * (n - 1) < n_whole && n_whole <= bin * n);
        for (size_t i = 0; i < n; i++)
            require(isfinite(f.bat[0].voltage_v[i]) && f.bat[0].voltage_v[i] > 0 &&
                    (i == 0 || f.bat[0].t_s[i] > f.bat[0].t_s[i - 1]));
    }
    pp_ulog_flight_free(&f);
    pp_flight_fit_options_init(&o);
    if (ok && r && pp_flight_fit_run(paths, 1, &o, r) == 0) {
        require(pp_battery_params_check(&r->fit.pack, &key, why, sizeof why) == 0 ||
                r->fit.pack.soc_start_frac <= r->fit.pack.soc_cutoff_frac);
        require(r->fl[0].n_train >= 3 && r->fl[0].n_train <= r->fl[0].n);
        require(isfinite(r->fit.train_rms_v) && isfinite(r->fit.pack.capacity_ah));
    }
    if (r)
        pp_flight_fit_free(r);
    free(r);
    return 0;
}

/* The small problem the govern target flies: two phases, ten candidates. */
typedef struct fuzz_gov_problem {
    pp_plan_choice cand[10];
    unsigned char allowed[20];
    pp_phase_load base[2];
    pp_phases_problem p;
} fuzz_gov_problem;

static void gov_problem(fuzz_gov_problem *q)
{
    memset(q, 0, sizeof *q);
    for (size_t i = 0; i < 10; i++) {
        q->cand[i].qos = 1 + (double)i;
        q->cand[i].planned_w = 2 + 0.5 * (double)i;
        q->allowed[i] = 1;
        q->allowed[10 + i] = i >= 3;
    }
    pp_phase_load_constant(60, 300, &q->base[0]);
    pp_phase_load_constant(80, 120, &q->base[1]);
    q->p.n_phases = 2;
    q->p.duration_s[0] = 300;
    q->p.duration_s[1] = 120;
    q->p.weight[0] = q->p.weight[1] = 1;
    q->p.base = q->base;
    q->p.n_cand = 10;
    q->p.cand = q->cand;
    q->p.allowed = q->allowed;
    pp_battery_params_default(&q->p.battery);
    q->p.min_soc_frac = 0.2;
}

/* One reading into g: one the library's check refuses is refused by the
 * update too; a decision is in range (setting, phase, charge, its sd). */
static void gov_feed(pp_gov *g, const pp_gov_reading *r)
{
    pp_gov_decision d;
    int bad = pp_gov_reading_check(r, NULL, 0) < 0, rc = pp_gov_update(g, r, &d);

    require(!bad || rc == -EINVAL);
    if (rc < 0)
        return;
    require(d.choice < 10 && d.phase < 2 && d.soc_frac >= 0 && d.soc_frac <= 1);
    require(isnan(d.soc_sd_frac) || (d.soc_sd_frac >= 0 && isfinite(d.soc_sd_frac)));
    require(isfinite(d.t_s) && d.t_s >= 0);
}

/* Raw readings (a first byte 0xff): a decision period (8 bytes, through
 * pp_gov_every_check), then records of four doubles (time, charge, voltage,
 * current) and a 32-bit phase, as the C and Python API may pass them: every
 * value, 1e300, inf and NaN included, reaches the library's reading check. */
static void gov_raw(const fuzz_gov_problem *q, const uint8_t *data, size_t size)
{
    pp_gov_options o;
    pp_gov *g;
    size_t at = 9;

    pp_gov_options_init(&o);
    if (size >= 9)
        memcpy(&o.every_s, data + 1, sizeof o.every_s);
    if (size < 9 || pp_gov_every_check(o.every_s, NULL, 0) < 0)
        o.every_s = 0;
    require(pp_gov_new(&q->p, &o, &g) == 0);
    for (; at + 36 <= size; at += 36) {
        pp_gov_reading r;
        int32_t phase;
        memcpy(&r.t_s, data + at, 8);
        memcpy(&r.soc_frac, data + at + 8, 8);
        memcpy(&r.voltage_v, data + at + 16, 8);
        memcpy(&r.current_a, data + at + 24, 8);
        memcpy(&phase, data + at + 32, 4);
        r.phase = phase;
        gov_feed(g, &r);
    }
    pp_gov_free(g);
}

/* The governor's readings: each line through pp_gov_parse_line, what it
 * accepts into a governor over a small problem (gov_feed); or, after a
 * first byte 0xff, raw readings (gov_raw). */
int pp_fuzz_govern(const uint8_t *data, size_t size)
{
    fuzz_gov_problem q;
    pp_gov *g;
    char line[512], why[256];
    size_t at = 0;

    gov_problem(&q);
    if (size && data[0] == 0xff) {
        gov_raw(&q, data, size);
    } else {
        require(pp_gov_new(&q.p, NULL, &g) == 0);
        while (at < size) {
            size_t n = 0;
            pp_gov_reading r;
            while (at < size && data[at] != '\n' && n + 1 < sizeof line)
                line[n++] = (char)data[at++];
            at++;
            line[n] = '\0';
            if (pp_gov_parse_line(line, &r, why, sizeof why) != 0)
                continue;
            require(isfinite(r.t_s) && r.t_s >= 0);
            require(isnan(r.soc_frac) || (r.soc_frac >= 0 && r.soc_frac <= 1));
            gov_feed(g, &r);
        }
        pp_gov_free(g);
    }
    pp_phase_load_free(&q.base[0]);
    pp_phase_load_free(&q.base[1]);
    return 0;
}

const pp_fuzz_target pp_fuzz_targets[] = {
    {"profile", pp_fuzz_profile},         {"battery", pp_fuzz_battery},
    {"trace", pp_fuzz_trace},             {"powprofiler", pp_fuzz_powprofiler},
    {"tegrastats", pp_fuzz_tegrastats},   {"csv", pp_fuzz_csv},
    {"summary", pp_fuzz_summary},         {"merge", pp_fuzz_merge},
    {"plotplan", pp_fuzz_plotplan},       {"darknet", pp_fuzz_darknet},
    {"layer_model", pp_fuzz_layer_model},
    {"ulog", pp_fuzz_ulog},               {"govern", pp_fuzz_govern},
    {"flightcsv", pp_fuzz_flightcsv},
    {"mission", pp_fuzz_mission},         {"adaptive", pp_fuzz_adaptive},
    {"model", pp_fuzz_model},             {"api", pp_fuzz_api},
    {NULL, NULL},
};
