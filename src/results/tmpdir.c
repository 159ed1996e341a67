/* Temporary results folders (tmpdir.h). */
#include "tmpdir.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_tmp[PP_PATH_MAX];
static volatile sig_atomic_t g_armed;

/* Remove what dfd holds, folders down to depth levels. Async-signal-safe
 * (no allocation, no stdio): the signal handler uses it. */
static void remove_entries(int dfd, int depth)
{
    char buf[2048];
    long n;
    int removed = 1;

    for (int pass = 0; removed && pass < 16; pass++) {
        removed = 0;
        lseek(dfd, 0, SEEK_SET);
        while ((n = getdents64(dfd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                struct dirent64 *e = (struct dirent64 *)(buf + off);
                off += e->d_reclen;
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                if (e->d_type == DT_DIR && depth > 0) {
                    int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (sub >= 0) {
                        remove_entries(sub, depth - 1);
                        close(sub);
                    }
                    removed |= unlinkat(dfd, e->d_name, AT_REMOVEDIR) == 0;
                } else {
                    removed |= unlinkat(dfd, e->d_name, 0) == 0;
                }
            }
    }
}

/* dir and what was written in it (down to tmp/traces/<node>/<file>). */
static void remove_tree(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (dfd >= 0) {
        remove_entries(dfd, 3);
        close(dfd);
    }
    rmdir(dir);
}

void pp_tmpdir_signal_cleanup(void)
{
    if (g_armed) {
        remove_tree(g_tmp);
        g_armed = 0;
    }
}

static void on_signal(int sig)
{
    pp_tmpdir_signal_cleanup();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered on return: the process dies of it, as without handler */
}

void pp_tmpdir_guard_signals(int on)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};

    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], on ? on_signal : SIG_DFL);
}

static void block_signals(int how)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(how, &set, NULL);
}

/* This host's name as it goes into a temporary folder's name. */
static void host_tag(char *buf, size_t cap)
{
    char host[256] = "";

    gethostname(host, sizeof host - 1);
    if (pp_fmt(buf, cap, "%.64s", host[0] ? host : "host") < 0 && cap > 4)
        memcpy(buf, "host", sizeof "host"); /* never: 64 characters in 80 */
    for (char *c = buf; *c; c++)
        if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9') &&
            *c != '-')
            *c = '_';
}

/* 1 when name is a temporary folder "<x>.<tag>.<pid>@<host>.XXXXXX" of
 * this host whose process is gone. */
static int stale_name(const char *name, const char *tag, const char *host)
{
    const char *at = strstr(name, tag), *end;
    long pid = 0;
    size_t hl = strlen(host);

    while (at && strstr(at + 1, tag))
        at = strstr(at + 1, tag);
    if (!at)
        return 0;
    for (end = at + strlen(tag); *end >= '0' && *end <= '9' && pid < 1L << 30; end++)
        pid = pid * 10 + (*end - '0');
    if (pid <= 0 || *end != '@' || strncmp(end + 1, host, hl) != 0 || end[1 + hl] != '.' ||
        strlen(end + 2 + hl) != 6)
        return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* The temporary folders (".<tag>." in dot) that killed processes left in
 * parent (this user's, on this host, of a process that no longer runs):
 * removed, said. */
static void remove_stale(const char *parent, const char *dot)
{
    char host[80], path[4400];
    DIR *d = opendir(parent);
    struct dirent *e;
    struct stat st;

    host_tag(host, sizeof host);
    while (d && (e = readdir(d))) {
        if (!stale_name(e->d_name, dot, host) ||
            pp_path_join(path, sizeof path, parent, e->d_name) < 0 ||
            lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
            continue;
        remove_tree(path);
        pp_log_info("%s: left by a powprof that was killed: removed", path);
    }
    if (d)
        closedir(d);
}

static char g_out[PP_PATH_MAX];

int pp_tmpdir_make(const char *out, const char *tag, char *tmp, size_t cap)
{
    char host[80], parent[PP_PATH_MAX], dot[64];
    mode_t mask = umask(0);
    char *slash;
    size_t len;
    int rc = 0;

    umask(mask);
    host_tag(host, sizeof host);
    if (pp_fmt(dot, sizeof dot, ".%s.", tag) < 0)
        return -EINVAL; /* never: the tags are short */
    if (pp_strlcpy(g_out, out, sizeof g_out) < 0 || !g_out[0]) {
        pp_log_error("output folder '%.100s': %s", out, g_out[0] ? "the name is too long" : "empty");
        return -EINVAL;
    }
    for (len = strlen(g_out); len > 1 && g_out[len - 1] == '/'; len--)
        g_out[len - 1] = '\0'; /* OUT/ is OUT: the temporary folder goes beside it */
    if (pp_strlcpy(parent, g_out, sizeof parent) < 0)
        return -ENAMETOOLONG; /* never: g_out is a path too */
    if ((slash = strrchr(parent, '/')))
        *(slash == parent ? slash + 1 : slash) = '\0';
    remove_stale(slash ? parent : ".", dot);
    block_signals(SIG_BLOCK);
    if (pp_fmt(g_tmp, sizeof g_tmp, "%s%s%ld@%s.XXXXXX", g_out, dot, (long)getpid(), host) < 0 ||
        pp_strlcpy(tmp, g_tmp, cap) < 0)
        rc = -ENAMETOOLONG;
    else if (!mkdtemp(g_tmp))
        rc = -errno;
    else if (chmod(g_tmp, 0755 & ~mask) == 0)
        g_armed = 1;
    else
        rc = -errno;
    block_signals(SIG_UNBLOCK);
    if (rc < 0) /* named by the folder asked for; the temporary one beside it in brackets */
        pp_log_error("%s: cannot create: %s (its temporary folder %s)", g_out, strerror(-rc),
                     g_tmp);
    if (rc < 0 && !g_armed && rc != -ENAMETOOLONG)
        rmdir(g_tmp); /* made, but not to its mode */
    if (rc == 0) /* fits: checked before mkdtemp, which keeps the length */
        rc = pp_strlcpy(tmp, g_tmp, cap);
    return rc;
}

int pp_tmpdir_commit(void)
{
    int rc = 0;

    block_signals(SIG_BLOCK);
    /* never over a folder made meanwhile (an empty one rename() would
     * replace): of two imports or merges into one OUT, the second is refused */
    if (g_armed && renameat2(AT_FDCWD, g_tmp, AT_FDCWD, g_out, RENAME_NOREPLACE) != 0 &&
        (errno != EINVAL || access(g_out, F_OK) == 0 || rename(g_tmp, g_out) != 0)) {
        rc = errno == EINVAL ? -EEXIST : -errno;
        if (rc == -EEXIST)
            pp_log_error("%s: made by another writer meanwhile: left as it is (this one's "
                         "results were in %s, removed)", g_out, g_tmp);
        else
            pp_log_error("cannot move %s to %s: %s", g_tmp, g_out, strerror(-rc));
    } else {
        g_armed = 0;
    }
    block_signals(SIG_UNBLOCK);
    pp_tmpdir_abort();
    return rc;
}

void pp_tmpdir_abort(void)
{
    block_signals(SIG_BLOCK);
    pp_tmpdir_signal_cleanup();
    block_signals(SIG_UNBLOCK);
}
