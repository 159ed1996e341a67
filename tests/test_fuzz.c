/* The fuzz targets, compiled into the suite with any compiler, replay
 * every file of fuzz/corpus/: the seeds and the inputs that once broke a
 * parser (issue 12) stay regression tests without clang. */
#include "harness.h"

#include "fuzz/targets.c"
#include "fuzz/target_api.c"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

/* The whole file (it may hold NUL bytes); *size its length. */
static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;

    if (!fp)
        return NULL;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, fp) == (size_t)n)
        *size = (size_t)n;
    else {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    return buf;
}

/* One input through one target in a child: 0 when it returned within 5 s
 * (the fuzzer's timeout), else the wait status. */
static int replay(const pp_fuzz_target *t, const uint8_t *data, size_t size)
{
    int st;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        alarm(5);
        if (pp_fuzz_init() < 0)
            _exit(3);
        t->fn(data, size);
        exit(0); /* atexit removes the scratch folder */
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : st;
}

void test_fuzz_corpus_replay(void);
void test_fuzz_corpus_replay(void)
{
    char dir[1024], path[1400];
    int files = 0;

    for (const pp_fuzz_target *t = pp_fuzz_targets; t->name; t++) {
        DIR *d;
        struct dirent *e;
        int here = 0;

        snprintf(dir, sizeof dir, "%s/../../fuzz/corpus/%s", fixture("."), t->name);
        d = opendir(dir);
        CHECK(d != NULL);
        while (d && (e = readdir(d))) {
            size_t size = 0;
            uint8_t *data;
            int st;
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            data = read_all(path, &size);
            CHECK(data != NULL);
            if (!data)
                continue;
            if ((st = replay(t, data, size)) != 0)
                pp_test_fail(__FILE__, __LINE__, "fuzz target %s on %s: %s %d", t->name, path,
                             WIFSIGNALED(st) ? "killed by signal" : "wait status",
                             WIFSIGNALED(st) ? WTERMSIG(st) : st);
            free(data);
            here++;
        }
        if (d)
            closedir(d);
        CHECK(here >= 1);
        files += here;
    }
    CHECK(files >= 20);
}
