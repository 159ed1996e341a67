/* nvpmodel.c - power modes from nvpmodel.conf and the nvpmodel program
 * (nvpmodel.h). */
#include "nvpmodel.h"
#include "sysfs.h"

#include "src/base/file.h"
#include "src/base/log.h"
#include "src/base/proc.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pp_nvpmodel_modes(const char *root, pp_nvpmodel_mode *modes, size_t cap)
{
    char path[PP_PATH_MAX], *line = NULL;
    size_t lcap = 0, n = 0;
    FILE *fp;
    int rc;

    if ((rc = pp_sysfs_path(path, sizeof path, root, PP_NVPMODEL_CONF)) < 0)
        return rc;
    if (!(fp = fopen(path, "re"))) {
        rc = -errno;
        if (rc != -ENOENT)
            pp_log_error("%s: cannot read: %s", path, strerror(errno));
        return rc;
    }
    while (n < cap && pp_file_getline_max(&line, &lcap, fp, 4096) > 0) {
        const char *id = strstr(line, "ID="), *name = strstr(line, "NAME=");
        if (!strstr(line, "POWER_MODEL") || !id)
            continue;
        modes[n].id = atoi(id + 3);
        modes[n].name[0] = 0;
        if (name)
            sscanf(name + 5, "%63[^ >\t\n]", modes[n].name);
        n++;
    }
    free(line);
    fclose(fp);
    return (int)n;
}

/* Run argv with stdin /dev/null and stdout into out (at most cap - 1
 * bytes kept); *status its exit status. 0 or -errno (why set). */
static int run_capture(char *const argv[], char *out, size_t cap, int *status, char *why,
                       size_t wcap)
{
    int fds[2], null_fd, rc;
    size_t len = 0;
    pid_t pid;

    if (pipe2(fds, O_CLOEXEC) < 0)
        return -errno;
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    {
        pp_proc_io io = {null_fd, fds[1], -1, NULL};
        rc = pp_proc_spawn_io(argv, 0, &io, &pid);
    }
    close(fds[1]);
    if (null_fd >= 0)
        close(null_fd);
    if (rc < 0) {
        close(fds[0]);
        pp_text(why, wcap, "%s: cannot run: %s", argv[0], strerror(-rc));
        return rc;
    }
    for (;;) {
        char buf[512];
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n && len + 1 < cap; i++)
            out[len++] = buf[i];
    }
    out[len] = 0;
    close(fds[0]);
    return pp_proc_wait(pid, status);
}

int pp_nvpmodel_query(const char *command, int *mode, char *why, size_t cap)
{
    char *argv[] = {(char *)command, "-q", NULL}, out[4096], *last, *end;
    int status = 0, rc = run_capture(argv, out, sizeof out, &status, why, cap);
    size_t len = strlen(out);

    if (rc < 0)
        return rc;
    while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
        out[--len] = 0;
    last = strrchr(out, '\n');
    last = last ? last + 1 : out;
    errno = 0;
    *mode = (int)strtol(last, &end, 10);
    if (status != 0 || end == last || *end) {
        pp_text(why, cap, "%s -q: exit status %d, no mode on its last line ('%.60s')", command,
                status, last);
        return -EIO;
    }
    return 0;
}

int pp_nvpmodel_set(const char *command, int mode, char *why, size_t cap)
{
    char arg[16], out[4096];
    char *argv[] = {(char *)command, "-m", arg, NULL};
    int status = 0, rc;

    if (pp_fmt(arg, sizeof arg, "%d", mode) < 0)
        return -ERANGE; /* never: 11 characters */
    if ((rc = run_capture(argv, out, sizeof out, &status, why, cap)) < 0)
        return rc;
    if (status != 0) {
        pp_text(why, cap, "%s -m %d: exit status %d%s", command, mode, status,
                status == 1 || status == 126 ? " (needs root?)" : "");
        return -EIO;
    }
    return 0;
}
