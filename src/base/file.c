#include "file.h"

#include "log.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a plain file";
}

int pp_file_open_regular(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), rc, fl;
    struct stat st;

    if (fd < 0 || fstat(fd, &st) < 0) {
        rc = -errno;
        pp_log_error("%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        pp_log_error("%s: not a regular file (%s): refused", path, kind(st.st_mode));
        close(fd);
        return -EINVAL;
    }
    if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        rc = -errno;
        pp_log_error("%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return rc;
    }
    return fd;
}

FILE *pp_file_fopen_regular(const char *path)
{
    int fd = pp_file_open_regular(path), e;
    FILE *fp;

    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    if (!(fp = fdopen(fd, "r"))) {
        e = errno;
        pp_log_error("%s: cannot open: %s", path, strerror(e));
        close(fd);
        errno = e;
    }
    return fp;
}

ssize_t pp_file_getline_max(char **line, size_t *cap, FILE *fp, size_t max)
{
    size_t n = 0;
    int c;

    for (;;) {
        if (n + 2 > *cap) {
            size_t want = *cap ? 2 * *cap : 256;
            char *l = realloc(*line, want > max + 2 ? max + 2 : want);
            if (!l)
                return -1;
            *line = l;
            *cap = want > max + 2 ? max + 2 : want;
        }
        if ((c = getc_unlocked(fp)) == EOF)
            break;
        if (n == max)
            return ungetc(c, fp), -2;
        (*line)[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (*line)
        (*line)[n] = '\0';
    return n == 0 ? -1 : (ssize_t)n;
}

/* name is base + ".tmp." + six letters or digits (base NULL: any base of
 * at least one character). */
static int is_stale(const char *name, const char *base)
{
    size_t len = strlen(name), n = base ? strlen(base) : len >= 11 ? len - 11 : 0;

    if (len != n + 11 || n == 0 || (base && strncmp(name, base, n) != 0) ||
        strncmp(name + n, ".tmp.", 5) != 0)
        return 0;
    for (const char *c = name + n + 5; *c; c++)
        if (!isalnum((unsigned char)*c))
            return 0;
    return 1;
}

size_t pp_file_stale_remove(const char *dir, const char *base)
{
    char file[PP_PATH_MAX];
    struct dirent *e;
    struct stat st;
    size_t n = 0;
    DIR *d = opendir(dir);

    if (!d)
        return 0;
    while ((e = readdir(d)))
        if (is_stale(e->d_name, base))
            n += pp_path_fmt(file, sizeof file, dir, "%s", e->d_name) == 0 &&
                 lstat(file, &st) == 0 && S_ISREG(st.st_mode) && unlink(file) == 0;
    closedir(d);
    if (n)
        pp_log_info("%s/%s: %zu temporary files of a writer killed removed", dir,
                    base ? base : "*", n);
    return n;
}
