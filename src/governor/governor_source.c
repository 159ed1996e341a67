/* The governor's readings (governor_source.h). */
#include "governor_source.h"

#include "devices/power_supply.h"
#include "src/base/file.h"
#include "src/base/log.h"
#include "src/base/util.h"
#include "src/flight/flight_log.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_CHARS 4096

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep until the monotonic time at_s: 0, or -EINTR. */
static int sleep_until(double at_s)
{
    struct timespec ts;
    int rc;

    if (at_s <= mono_s())
        return 0;
    if (!(at_s < 1e15)) { /* past any clock: checked before the cast */
        pp_log_error("governor: a wait until %g s on the monotonic clock: refused", at_s);
        return -EINVAL;
    }
    ts.tv_sec = (time_t)at_s;
    ts.tv_nsec = (long)((at_s - (double)ts.tv_sec) * 1e9);
    rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    return rc == EINTR ? -EINTR : rc ? -rc : 0;
}

static int number_field(json_t *o, const char *const *keys, double *out, char *why, size_t cap)
{
    for (size_t k = 0; keys[k]; k++) {
        json_t *v = json_object_get(o, keys[k]);
        if (!v)
            continue;
        if (json_is_null(v))
            return 0;
        if (!json_is_number(v) || !isfinite(json_number_value(v))) {
            pp_text(why, cap, "\"%s\" is not a number", keys[k]);
            return -EINVAL;
        }
        *out = json_number_value(v);
        return 0;
    }
    return 0;
}

static int parse_json(const char *line, pp_gov_reading *r, char *why, size_t cap)
{
    static const char *const t_keys[] = {"t_s", "t", NULL}, *const soc_keys[] = {"soc", "soc_frac", "remaining", NULL},
                             *const v_keys[] = {"voltage_v", NULL}, *const i_keys[] = {"current_a", NULL},
                             *const ph_keys[] = {"phase", NULL};
    json_error_t err;
    json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &err);
    double phase = -1;
    int rc;

    if (!o || !json_is_object(o)) {
        pp_text(why, cap, "not a JSON object (%s)", o ? "another JSON value" : err.text);
        json_decref(o);
        return -EINVAL;
    }
    rc = number_field(o, t_keys, &r->t_s, why, cap);
    if (rc == 0)
        rc = number_field(o, soc_keys, &r->soc_frac, why, cap);
    if (rc == 0)
        rc = number_field(o, v_keys, &r->voltage_v, why, cap);
    if (rc == 0)
        rc = number_field(o, i_keys, &r->current_a, why, cap);
    if (rc == 0)
        rc = number_field(o, ph_keys, &phase, why, cap);
    json_decref(o);
    if (rc == 0 && !(phase == -1 || (phase >= 0 && phase < PP_MISSION_MAX_PHASES && phase == floor(phase)))) {
        pp_text(why, cap, "phase %g is not a phase's number", phase);
        rc = -EINVAL;
    }
    if (rc == 0)
        r->phase = (int)phase; /* in range: checked before the cast */
    return rc;
}

/* "t soc" or "t v i". */
static int parse_words(const char *line, pp_gov_reading *r, char *why, size_t cap)
{
    char buf[LINE_MAX_CHARS], *save = NULL, *w[4];
    double x[3];
    size_t n = 0;

    if (pp_strlcpy(buf, line, sizeof buf) < 0) {
        pp_text(why, cap, "a line longer than %zu characters", sizeof buf - 1);
        return -EINVAL;
    }
    for (char *tok = strtok_r(buf, " \t,\r\n", &save); tok; tok = strtok_r(NULL, " \t,\r\n", &save))
        if (n < 4)
            w[n++] = tok;
        else
            n = 5;
    if (n != 2 && n != 3) {
        pp_text(why, cap, "%zu words: 't_s soc_frac' or 't_s voltage_v current_a' expected",
                n > 4 ? (size_t)4 : n);
        return -EINVAL;
    }
    for (size_t k = 0; k < n; k++)
        if (pp_parse_double(w[k], &x[k]) < 0 || !isfinite(x[k])) {
            pp_text(why, cap, "'%s' is not a number", w[k]);
            return -EINVAL;
        }
    r->t_s = x[0];
    if (n == 2)
        r->soc_frac = x[1];
    else {
        r->voltage_v = x[1];
        r->current_a = x[2];
    }
    return 0;
}

int pp_gov_parse_line(const char *line, pp_gov_reading *r, char *why, size_t cap)
{
    const char *p = line + strspn(line, " \t\r\n");
    int rc;

    *r = (pp_gov_reading){NAN, NAN, NAN, NAN, -1};
    if (!*p || *p == '#')
        return 1;
    rc = *p == '{' ? parse_json(p, r, why, cap) : parse_words(p, r, why, cap);
    return rc < 0 ? rc : pp_gov_reading_check(r, why, cap); /* the library's one check */
}

/* The ULog battery to replay: instance want (-1: the first with samples). */
static int open_ulog(pp_gov_source *s, const char *path, int want)
{
    int rc;

    if (!(s->flight = calloc(1, sizeof *s->flight)))
        return -ENOMEM;
    if ((rc = pp_flight_log_read(path, s->flight)) < 0)
        return rc;
    for (size_t b = 0; b < PP_ULOG_MAX_BATTERIES && !s->bat; b++)
        if (s->flight->bat[b].n > 0 && (want < 0 || s->flight->bat[b].instance == want))
            s->bat = &s->flight->bat[b];
    if (!s->bat) {
        pp_log_error("%s: no battery_status samples to replay%s%s", path, want >= 0 ? " of instance " : "",
                     want >= 0 ? strrchr(s->spec, ':') + 1 : "");
        return -EINVAL;
    }
    return 0;
}

/* A file or a named pipe of lines, as stdin's: never a folder, and the
 * reason when it cannot be opened (a symlink loop, no permission). */
static int open_lines(pp_gov_source *s, const char *spec)
{
    struct stat st;
    int folder = stat(spec, &st) == 0 && S_ISDIR(st.st_mode);

    errno = 0;
    if (folder || access(spec, F_OK) != 0 || !(s->in = s->own_in = fopen(spec, "r"))) {
        int e = errno;
        pp_log_error("--source %s: stdin, power_supply[:NAME], a PX4 log (.ulg) or a file of "
                     "readings expected: %s", spec,
                     folder ? "a folder" : strerror(e));
        return -EINVAL;
    }
    s->kind = PP_GOV_SOURCE_STDIN;
    return 0;
}

/* every_s (power_supply's period) and speed (a log's) in range. */
static int check_pace(double every_s, double speed)
{
    char why[160];

    if (pp_gov_every_check(every_s, why, sizeof why) < 0) {
        pp_log_error("governor source: %s", why);
        return -EINVAL;
    }
    if (!(speed == 0 || (speed >= PP_GOV_SPEED_MIN && speed <= PP_GOV_SPEED_MAX))) {
        pp_log_error("governor source: a replay %g times the log's pace: 0 (at once) or in "
                     "[%g, %g]", speed, PP_GOV_SPEED_MIN, PP_GOV_SPEED_MAX);
        return -EINVAL;
    }
    return 0;
}

static int open_spec(const char *spec, pp_gov_source *s)
{
    const char *colon = strrchr(spec, ':');
    char path[4200];
    int64_t inst = -1;

    if (strcmp(spec, "stdin") == 0 || strcmp(spec, "-") == 0) {
        s->kind = PP_GOV_SOURCE_STDIN;
        return 0;
    }
    if (strncmp(spec, "power_supply", 12) == 0 && (!spec[12] || spec[12] == ':')) {
        pp_power_supply_state st;
        s->kind = PP_GOV_SOURCE_POWER_SUPPLY;
        if (pp_strlcpy(s->name, spec[12] ? spec + 13 : "", sizeof s->name) < 0) {
            pp_log_error("%.80s...: a power supply's name longer than %zu characters", spec,
                         sizeof s->name - 1);
            return -ENAMETOOLONG;
        }
        return pp_power_supply_state_read(s->root, s->name[0] ? s->name : NULL, &st);
    }
    if (pp_path_copy(path, spec, sizeof path) < 0)
        return -ENAMETOOLONG;
    if (colon && pp_parse_int64(colon + 1, &inst) == 0 && inst >= 0 && inst < 256)
        path[colon - spec] = '\0';
    else
        inst = -1;
    if (pp_flight_log_is(path) != 1)
        return open_lines(s, spec);
    s->kind = PP_GOV_SOURCE_ULOG;
    return open_ulog(s, path, (int)inst);
}

int pp_gov_source_open(const char *spec, FILE *in, const char *root, double every_s, double speed,
                       pp_gov_source *s)
{
    int rc;

    memset(s, 0, sizeof *s);
    pp_text(s->spec, sizeof s->spec, "%s", spec); /* for messages */
    s->in = in;
    s->root = root ? root : "/";
    s->every_s = every_s;
    s->speed = speed;
    s->t0_mono_s = s->next_s = mono_s();
    if ((rc = check_pace(every_s, speed)) < 0 || (rc = open_spec(spec, s)) < 0)
        pp_gov_source_close(s); /* nothing kept of a source refused */
    return rc;
}

static const char *where(const pp_gov_source *s)
{
    return s->own_in ? s->spec : "stdin";
}

/* The rest of a line too long to be a reading, up to PP_FILE_LINE_MAX
 * bytes: 0 at its end, -EINVAL (logged) past it: bytes that never end a
 * line (/dev/zero, a serial line's noise) are no source of readings. */
static int skip_rest(pp_gov_source *s)
{
    int c;

    for (size_t n = 0; n < PP_FILE_LINE_MAX; n++)
        if ((c = getc(s->in)) == EOF || c == '\n')
            return ferror(s->in) && errno == EINTR ? -EINTR : 0;
    pp_log_error("%s:%zu: no end of line in %zu bytes: not a source of readings", where(s),
                 s->line, PP_FILE_LINE_MAX);
    return -EINVAL;
}

/* The next line (up to LINE_MAX_CHARS) into s->buf: its length, 0 at the
 * end, 2 when refused (logged), -EINTR or -EINVAL. */
static int read_line(pp_gov_source *s, ssize_t *len)
{
    int rc;

    errno = 0;
    *len = pp_file_getline_max(&s->buf, &s->cap, s->in, LINE_MAX_CHARS - 1);
    if (ferror(s->in) && errno == EINTR)
        return -EINTR; /* a signal: the loop looks at it */
    if (*len == -1)
        return 1;
    s->line++;
    if (*len == -2) {
        if ((rc = skip_rest(s)) < 0)
            return rc;
        pp_log_error("%s:%zu: a line longer than %d characters: refused", where(s), s->line,
                     LINE_MAX_CHARS - 1);
        return 2;
    }
    if (strlen(s->buf) != (size_t)*len) {
        pp_log_error("%s:%zu: a NUL byte in the line: refused", where(s), s->line);
        return 2;
    }
    return 0;
}

static int next_line(pp_gov_source *s, pp_gov_reading *r)
{
    char why[256];
    ssize_t len;
    int rc;

    do {
        if ((rc = read_line(s, &len)) != 0)
            return rc;
        rc = pp_gov_parse_line(s->buf, r, why, sizeof why);
    } while (rc == 1); /* blank, or a comment */
    if (rc < 0) {
        s->buf[strcspn(s->buf, "\r\n")] = '\0';
        pp_log_error("%s:%zu: '%.80s': %s: refused", where(s), s->line, s->buf, why);
        return 2;
    }
    return 0;
}

int pp_gov_source_next(pp_gov_source *s, pp_gov_reading *r)
{
    int rc;

    *r = (pp_gov_reading){NAN, NAN, NAN, NAN, -1};
    if (s->kind == PP_GOV_SOURCE_STDIN)
        return next_line(s, r);
    if (s->kind == PP_GOV_SOURCE_POWER_SUPPLY) {
        pp_power_supply_state st;
        if (s->n_read && (rc = sleep_until(s->next_s)) < 0)
            return rc;
        s->next_s += s->every_s;
        if ((rc = pp_power_supply_state_read(s->root, s->name[0] ? s->name : NULL, &st)) < 0)
            return rc;
        r->t_s = mono_s() - s->t0_mono_s;
        r->soc_frac = st.soc_frac;
        r->voltage_v = st.voltage_v;
        r->current_a = st.current_a;
        s->n_read++;
        return 0;
    }
    if (s->i >= s->bat->n)
        return 1;
    r->t_s = s->bat->t_s[s->i] - s->bat->t_s[0];
    if (s->speed > 0 && (rc = sleep_until(s->t0_mono_s + r->t_s / s->speed)) < 0)
        return rc;
    r->voltage_v = s->bat->voltage_v[s->i];
    r->current_a = s->bat->current_a[s->i];
    r->soc_frac = s->bat->remaining[s->i];
    s->i++;
    s->n_read++;
    return 0;
}

void pp_gov_source_close(pp_gov_source *s)
{
    free(s->buf);
    s->buf = NULL;
    s->cap = 0;
    if (s->own_in)
        fclose(s->own_in);
    s->own_in = NULL;
    if (s->flight) {
        pp_ulog_flight_free(s->flight);
        free(s->flight);
    }
    s->flight = NULL;
    s->bat = NULL;
}

size_t pp_gov_state_stale_remove(const char *path)
{
    char dir[PP_PATH_MAX];
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

    if (!*base || pp_fmt(dir, sizeof dir, "%.*s", slash ? (int)(slash - path + (slash == path)) : 1,
                         slash ? path : ".") < 0)
        return 0;
    return pp_file_stale_remove(dir, base);
}
