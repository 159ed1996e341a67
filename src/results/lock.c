#include "lock.h"

#include "src/base/file.h"
#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_HELD 8

/* The folders this process holds, by device and inode (one folder may be
 * named two ways). */
static struct held {
    dev_t dev;
    ino_t ino;
    int fd, count;
} g_held[MAX_HELD];

static struct held *find(const struct stat *st)
{
    for (size_t i = 0; i < MAX_HELD; i++)
        if (g_held[i].count && g_held[i].dev == st->st_dev && g_held[i].ino == st->st_ino)
            return &g_held[i];
    return NULL;
}

/* The pid the holder wrote into the lock file, 0 when unknown. */
static long holder_pid(int fd)
{
    char buf[32] = {0};
    long pid = 0;

    if (pread(fd, buf, sizeof buf - 1, 0) > 0)
        sscanf(buf, "%ld", &pid);
    return pid;
}

/* The temporaries a writer of dir killed mid-write left (a trace, the
 * summary, run.json, adaptive.json, the config's copy; not model.json's:
 * `model` writes without the lock). */
static void remove_stale(const char *dir)
{
    static const char *const own[] = {"summary.csv", "run.json", "adaptive.json", "profile.cfg"};
    char traces[PP_PATH_MAX];

    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        pp_file_stale_remove(dir, own[i]);
    if (pp_path_in(traces, sizeof traces, dir, "traces") == 0)
        pp_file_stale_remove(traces, NULL);
}

/* Take the lock of dir (st: the folder's) into slot h. */
static int take(const char *dir, const struct stat *st, struct held *h)
{
    char path[PP_PATH_MAX], pid[32];
    int fd, rc, n;

    if ((rc = pp_path_in(path, sizeof path, dir, PP_RESULTS_LOCK_FILE)) < 0)
        return rc;
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        rc = -errno;
        pp_log_error("%s: cannot open the folder's lock: %s", path, strerror(errno));
        return rc;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
        if (rc == -EBUSY)
            pp_log_error("%s is being written by another powprof (pid %ld): one writer at a "
                         "time; wait for it to end (its lock, %s, goes with it, kill -9 "
                         "included), or give another folder with -o", dir, holder_pid(fd), path);
        else
            pp_log_error("%s: cannot lock: %s", path, strerror(-rc));
        close(fd);
        return rc;
    }
    n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
        pp_log_warn("%s: cannot write the pid (the lock holds): %s", path, strerror(errno));
    *h = (struct held){st->st_dev, st->st_ino, fd, 1};
    remove_stale(dir);
    return 0;
}

int pp_results_lock(const char *dir)
{
    struct stat st;
    struct held *h;

    if (stat(dir, &st) < 0) {
        int rc = -errno;
        pp_log_error("%s: cannot lock: %s", dir, strerror(errno));
        return rc;
    }
    if ((h = find(&st))) {
        h->count++;
        return 0;
    }
    for (size_t i = 0; i < MAX_HELD; i++)
        if (!g_held[i].count)
            return take(dir, &st, &g_held[i]);
    pp_log_error("%s: more than %d results folders locked at once", dir, MAX_HELD);
    return -EMFILE;
}

void pp_results_unlock(const char *dir)
{
    struct stat st;
    struct held *h;

    if (stat(dir, &st) < 0 || !(h = find(&st)))
        return;
    if (--h->count == 0) {
        close(h->fd); /* the lock goes with the last descriptor */
        h->fd = -1;
    }
}
