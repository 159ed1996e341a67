/* The test runner: every test of list.h (made by the Makefile
 * from the definitions in tests/test_*.c) in a child process; prints
 * one line per failing test and ends with "N passed, M failed" (with
 * POWPROF_TEST_COUNTS=FILE: "C tests: ...", and "N M" into FILE for
 * scripts/check-tests, which adds the Python suite's). Arguments
 * select tests whose name contains any of them. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST(name) void test_##name(void);
#include "list.h"
#undef TEST

void pp_test_setup(void);
void pp_test_teardown(void);

static const struct {
    const char *name;
    void (*fn)(void);
} tests[] = {
#define TEST(name) {#name, test_##name},
#include "list.h"
#undef TEST
};

static int selected(const char *name, int argc, char **argv)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i]))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        pid_t pid;
        int st;

        if (!selected(tests[i].name, argc, argv))
            continue;
        fflush(NULL);
        pid = fork();
        if (pid == 0) {
            pp_test_setup();
            tests[i].fn();
            pp_test_teardown();
            fflush(NULL);
            _exit(pp_test_failures ? 1 : 0);
        }
        if (pid < 0 || waitpid(pid, &st, 0) < 0) {
            perror("fork");
            return 2;
        }
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
            passed++;
            if (getenv("POWPROF_TEST_VERBOSE"))
                printf("ok   %s\n", tests[i].name);
        } else {
            failed++;
            if (WIFSIGNALED(st))
                printf("FAIL %s (killed by signal %d)\n", tests[i].name, WTERMSIG(st));
            else
                printf("FAIL %s\n", tests[i].name);
        }
    }
    if (getenv("POWPROF_TEST_COUNTS")) { /* scripts/check-tests adds the Python suite's */
        FILE *fp = fopen(getenv("POWPROF_TEST_COUNTS"), "w");
        if (!fp || fprintf(fp, "%d %d\n", passed, failed) < 0 || fclose(fp) != 0)
            return 2;
        printf("C tests: %d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
