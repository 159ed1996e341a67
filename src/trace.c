#include "trace.h"

#include "log.h"
#include "util.h"

#include "../devices/device.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pp_trace_init(pp_trace *t, size_t n_rails, const char *const *names)
{
    memset(t, 0, sizeof *t);
    if (n_rails == 0 || n_rails > PP_TRACE_MAX_RAILS)
        return -EINVAL;
    for (size_t i = 0; i < n_rails; i++)
        if (!names[i] || !names[i][0] || pp_strlcpy(t->names[i], names[i], PP_TRACE_NAME_MAX) < 0)
            return -EINVAL;
    t->n_rails = n_rails;
    return 0;
}

void pp_trace_free(pp_trace *t)
{
    free(t->t_s);
    free(t->power_w);
    t->t_s = t->power_w = NULL;
    t->n_samples = t->cap = 0;
}

int pp_trace_append(pp_trace *t, double t_s, const double *power_w)
{
    if (t->n_samples == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        double *ts = realloc(t->t_s, cap * sizeof *ts);
        double *pw;
        if (!ts)
            return -ENOMEM;
        t->t_s = ts;
        pw = realloc(t->power_w, cap * t->n_rails * sizeof *pw);
        if (!pw)
            return -ENOMEM;
        t->power_w = pw;
        t->cap = cap;
    }
    t->t_s[t->n_samples] = t_s;
    memcpy(t->power_w + t->n_samples * t->n_rails, power_w, t->n_rails * sizeof *power_w);
    t->n_samples++;
    return 0;
}

double pp_trace_energy_j(const pp_trace *t, size_t rail)
{
    double e = 0.0;

    if (t->interval_average) {
        double prev = 0.0;
        for (size_t i = 0; i < t->n_samples; i++) {
            e += pp_trace_at(t, i, rail) * (t->t_s[i] - prev);
            prev = t->t_s[i];
        }
        return e;
    }
    for (size_t i = 1; i < t->n_samples; i++)
        e += 0.5 * (pp_trace_at(t, i - 1, rail) + pp_trace_at(t, i, rail)) *
             (t->t_s[i] - t->t_s[i - 1]);
    return e;
}

double pp_trace_duration_s(const pp_trace *t)
{
    if (t->n_samples == 0)
        return 0.0;
    if (t->interval_average)
        return t->t_s[t->n_samples - 1];
    return t->t_s[t->n_samples - 1] - t->t_s[0];
}

double pp_trace_mean_w(const pp_trace *t, size_t rail)
{
    double d = pp_trace_duration_s(t);

    if (t->n_samples == 0)
        return 0.0;
    if (d <= 0.0) {
        double sum = 0.0;
        for (size_t i = 0; i < t->n_samples; i++)
            sum += pp_trace_at(t, i, rail);
        return sum / (double)t->n_samples;
    }
    return pp_trace_energy_j(t, rail) / d;
}

int pp_trace_rail_is_inside(const pp_trace *t, size_t r)
{
    const char *name = t->names[r];

    for (size_t k = 0; k < t->n_rails; k++) {
        const char *other = t->names[k];
        size_t len = strlen(other);
        if (k == r)
            continue;
        if (pp_rail_is_board_input(other) && !pp_rail_is_board_input(name))
            return 1;
        if (strcmp(other, "psys") == 0)
            return 1;
        if (strncmp(name, other, len) == 0 && name[len] == '-')
            return 1;
    }
    return 0;
}

void pp_trace_total_series(const pp_trace *t, double *out)
{
    int top[PP_TRACE_MAX_RAILS];

    for (size_t r = 0; r < t->n_rails; r++)
        top[r] = !pp_trace_rail_is_inside(t, r);
    for (size_t i = 0; i < t->n_samples; i++) {
        double sum = 0.0;
        for (size_t r = 0; r < t->n_rails; r++)
            if (top[r])
                sum += pp_trace_at(t, i, r);
        out[i] = sum;
    }
}

int pp_trace_write_csv(const pp_trace *t, const char *path)
{
    pp_atomic_file af;
    int rc = pp_atomic_file_open(&af, path);

    if (rc < 0)
        return rc;
    fputs("t_s", af.fp);
    for (size_t r = 0; r < t->n_rails; r++)
        fprintf(af.fp, ",%s_w", t->names[r]);
    fputc('\n', af.fp);
    for (size_t i = 0; i < t->n_samples; i++) {
        fprintf(af.fp, "%.6f", t->t_s[i]);
        for (size_t r = 0; r < t->n_rails; r++)
            fprintf(af.fp, ",%.6f", pp_trace_at(t, i, r));
        fputc('\n', af.fp);
    }
    return pp_atomic_file_commit(&af);
}


static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

int pp_trace_read_csv(const char *path, pp_trace *t)
{
    FILE *fp;
    char *line = NULL;
    size_t line_cap = 0;
    char *fields[PP_TRACE_MAX_RAILS + 2];
    const char *names[PP_TRACE_MAX_RAILS];
    double row[PP_TRACE_MAX_RAILS];
    long line_no = 1;
    size_t n;
    int rc = 0;

    memset(t, 0, sizeof *t);
    fp = fopen(path, "r");
    if (!fp) {
        rc = -errno;
        pp_log_error("%s: cannot open: %s", path, strerror(errno));
        return rc;
    }
    if (getline(&line, &line_cap, fp) < 0) {
        pp_log_error("%s:1: empty file (a header 't_s,<rail>_w,...' is expected)", path);
        rc = -EINVAL;
        goto out;
    }
    chomp(line);
    n = pp_csv_split(line, fields, PP_ARRAY_SIZE(fields));
    if (n < 2 || n > PP_TRACE_MAX_RAILS + 1 || strcmp(fields[0], "t_s") != 0) {
        pp_log_error("%s:1: header must be 't_s' then 1 to %d '<rail>_w' columns", path,
                     PP_TRACE_MAX_RAILS);
        rc = -EINVAL;
        goto out;
    }
    for (size_t i = 1; i < n; i++) {
        size_t len = strlen(fields[i]);
        if (len < 3 || strcmp(fields[i] + len - 2, "_w") != 0 || len - 2 >= PP_TRACE_NAME_MAX) {
            pp_log_error("%s:1: column %zu '%s' is not '<rail>_w'", path, i + 1, fields[i]);
            rc = -EINVAL;
            goto out;
        }
        fields[i][len - 2] = '\0';
        names[i - 1] = fields[i];
    }
    rc = pp_trace_init(t, n - 1, names);
    if (rc < 0) {
        pp_log_error("%s:1: bad header", path);
        goto out;
    }
    while (getline(&line, &line_cap, fp) >= 0) {
        size_t m;
        double ts = 0.0;

        line_no++;
        chomp(line);
        if (line[0] == '\0')
            continue;
        m = pp_csv_split(line, fields, PP_ARRAY_SIZE(fields));
        if (m != t->n_rails + 1) {
            pp_log_error("%s:%ld: %zu fields, the header has %zu", path, line_no, m, t->n_rails + 1);
            rc = -EINVAL;
            goto out;
        }
        for (size_t i = 0; i < m; i++) {
            double v;
            if (pp_parse_double(fields[i], &v) < 0) {
                pp_log_error("%s:%ld: field %zu '%s' is not a finite number", path, line_no, i + 1,
                             fields[i]);
                rc = -EINVAL;
                goto out;
            }
            if (i == 0)
                ts = v;
            else
                row[i - 1] = v;
        }
        if (t->n_samples > 0 && ts < t->t_s[t->n_samples - 1]) {
            pp_log_error("%s:%ld: time goes backwards (%.6f s after %.6f s)", path, line_no, ts,
                         t->t_s[t->n_samples - 1]);
            rc = -EINVAL;
            goto out;
        }
        rc = pp_trace_append(t, ts, row);
        if (rc < 0)
            goto out;
    }
    if (t->n_samples == 0) {
        pp_log_error("%s: no samples after the header", path);
        rc = -EINVAL;
    }
out:
    free(line);
    fclose(fp);
    if (rc < 0) {
        pp_trace_free(t);
        memset(t, 0, sizeof *t);
    }
    return rc;
}
