/* Rendering the plots (plot.h): gnuplot on each script, never through a
 * shell, with what it says captured, so that nothing of it reaches the
 * terminal: its errors are reported, its warnings recorded. */
#include "plot.h"

#include "src/base/log.h"
#include "src/base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define OUTPUT_MAX 16384

/* Whether gnuplot is in PATH (looked for first, so that a machine without
 * it gets a word of advice rather than an error). */
static int have_gnuplot(void)
{
    const char *path = getenv("PATH");
    char dir[PP_PATH_MAX], file[PP_PATH_MAX];

    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        if (n > 0 && n < sizeof dir) {
            memcpy(dir, p, n);
            dir[n] = '\0';
            if (pp_path_fmt(file, sizeof file, dir, "gnuplot") == 0 && access(file, X_OK) == 0)
                return 1;
        }
        p += n + (p[n] == ':');
    }
    return 0;
}

/* Lines that are not about the script: the font configuration and GLib
 * of the cairo terminals. */
static int noise(const char *line)
{
    return strncmp(line, "Fontconfig", 10) == 0 || strstr(line, "-WARNING **") ||
           strstr(line, "-CRITICAL **") || strstr(line, "-Message") || line[0] == '\0';
}

/* What gnuplot said, joined by "; " into out: its messages, which name
 * the script and line ("\"x.gp\" line 3: ..."), or, when none does, every
 * line that is not noise (the echo of the command and the caret under it
 * left out when there are messages). */
static void keep_lines(const char *said, char *out, size_t cap)
{
    size_t len = 0, size = strlen(said) + 1;
    char *text = malloc(size), *save = NULL;
    int located = strstr(said, "\" line ") != NULL;

    out[0] = '\0';
    if (!text)
        return;
    memcpy(text, said, size);
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
            line[--n] = '\0';
        if (noise(line) || len + 3 >= cap || (located && !strstr(line, "\" line ")))
            continue;
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? "; " : "", line);
        if (len >= cap)
            len = cap - 1;
    }
    free(text);
}

/* Run gnuplot on one script: its exit status, what it said in out. */
static int run_gnuplot(const char *cd, const char *name, char *out, size_t cap, int *status)
{
    char script[PP_NAME_MAX + 8];
    char *argv[] = {"gnuplot", "-e", (char *)cd, script, NULL};
    int fds[2], null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC), rc;
    size_t len = 0;
    ssize_t n;
    pid_t pid;

    if (pp_path_fmt(script, sizeof script, ".", "%s.gp", name) < 0 || null_fd < 0 ||
        pipe2(fds, O_CLOEXEC) != 0) {
        rc = -errno;
        if (null_fd >= 0)
            close(null_fd);
        return rc ? rc : -EINVAL;
    }
    rc = pp_proc_spawn_io(argv, 0, &(pp_proc_io){null_fd, fds[1], fds[1], NULL}, &pid);
    close(fds[1]);
    close(null_fd);
    while (rc == 0 && ((n = read(fds[0], out + len, cap - 1 - len)) > 0 || (n < 0 && errno == EINTR))) {
        len += n > 0 ? (size_t)n : 0;
        if (len == cap - 1) { /* keep the first part, drain the rest */
            char drain[4096];
            while ((n = read(fds[0], drain, sizeof drain)) > 0 || (n < 0 && errno == EINTR))
                ;
            break;
        }
    }
    out[len] = '\0';
    close(fds[0]);
    if (rc == 0)
        rc = pp_proc_wait(pid, status);
    return rc;
}

/* Each image of a script that rendered is there and not empty. */
static int images_there(const pp_plot_options *o, const pp_plot_result *r, const char *name,
                        char *why, size_t cap)
{
    static const char *const ext[] = {"png", "svg"};
    const int want[] = {o->png, o->svg};
    char path[4400];
    struct stat st;

    for (size_t i = 0; i < 2; i++)
        if (want[i] && (pp_path_fmt(path, sizeof path, r->plots_dir, "%s.%s", name, ext[i]) < 0 ||
                        stat(path, &st) != 0 || st.st_size == 0)) {
            struct statvfs fs; /* gnuplot writes the image: say why it could not */
            int full = statvfs(r->plots_dir, &fs) == 0 && fs.f_bavail == 0;
            pp_text(why, cap, "gnuplot succeeded but wrote no %s.%s%s", name, ext[i],
                    full ? ": No space left on device (the folder's disk is full)" : "");
            return 0;
        }
    return 1;
}

int pp_plot_render(const pp_plot_options *o, pp_plot_result *r)
{
    char quoted[9000], cd[9100], *out = malloc(OUTPUT_MAX);

    if (!out)
        return -ENOMEM;
    if (!have_gnuplot() || pp_gp_quote(quoted, sizeof quoted, r->plots_dir) < 0) {
        r->gnuplot_missing = 1;
        free(out);
        return 0;
    }
    _Static_assert(sizeof cd >= sizeof quoted + 3, "cd and the quoted folder fit");
    if (pp_fmt(cd, sizeof cd, "cd %s", quoted) < 0) {
        free(out);
        return -ENAMETOOLONG;
    }
    for (size_t i = 0; i < r->n_scripts; i++) {
        pp_plot_script *sc = &r->scripts[i];
        int status = -1, rc = run_gnuplot(cd, sc->name, out, OUTPUT_MAX, &status);
        if (rc < 0) {
            pp_text(sc->error, sizeof sc->error, "gnuplot could not be run: %s", strerror(-rc));
        } else if (status != 0) {
            keep_lines(out, sc->error, sizeof sc->error);
            if (!sc->error[0])
                pp_text(sc->error, sizeof sc->error, "gnuplot exited with status %d", status);
        } else {
            keep_lines(out, sc->warnings, sizeof sc->warnings);
            sc->rendered = images_there(o, r, sc->name, sc->error, sizeof sc->error);
        }
        if (sc->warnings[0]) {
            r->n_warned++;
            pp_log_debug("gnuplot on %s/%s.gp: %s", r->plots_dir, sc->name, sc->warnings);
        }
        r->n_rendered += sc->rendered;
        r->n_failed += !sc->rendered;
    }
    free(out);
    return 0;
}
