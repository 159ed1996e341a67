#include "file.h"

#include "log.h"

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
