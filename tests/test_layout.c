/* scripts/check-layout, the house's rules (docs/DESIGN.md), on small trees
 * made for it: a header's functions are defined by the .c of its name (a
 * header with no .c holds types and inline code), while files of a folder
 * may call each other. */
#include "harness.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* scripts/NAME run in root: its exit status; its output (the breaches on
 * stderr, then the count on stdout) into *out. */
static int run_script(const char *name, const char *root, char **out)
{
    char rel[64], script[PATH_MAX], *o = NULL, *e = NULL;
    char *argv[] = {"env", "-C", (char *)root, script, NULL};
    int rc;

    *out = NULL;
    snprintf(rel, sizeof rel, "scripts/%s", name);
    if (!realpath(rel, script))
        return -1;
    rc = run_argv(argv, &o, &e);
    if (o && e && (*out = malloc(strlen(o) + strlen(e) + 1)))
        strcat(strcpy(*out, e), o);
    free(o);
    free(e);
    return rc;
}

static int check_layout(const char *root, char **out) { return run_script("check-layout", root, out); }

/* A folder src/layer2 under a fresh root with a.c, a.h, b.c and, unless
 * NULL, shared.h. */
static const char *tree(const char *a_h, const char *a_c, const char *b_c, const char *shared_h)
{
    static char root[PATH_MAX];
    const char *names[] = {"a.h", "a.c", "b.c", "shared.h"}, *texts[] = {a_h, a_c, b_c, shared_h};
    char dir[PATH_MAX + 16], path[PATH_MAX + 32];

    snprintf(root, sizeof root, "%s/tree", test_tmpdir());
    snprintf(dir, sizeof dir, "%s/src", root);
    mkdir(root, 0755);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/src/layer2", root);
    mkdir(dir, 0755);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (texts[i]) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            write_file(path, texts[i]);
        }
    return root;
}

void test_layout_header_of_its_c(void);
void test_layout_header_of_its_c(void)
{
    /* a.h declares a.c's a_run and b.c's b_fit: b_fit belongs in b.h */
    static const char a_h[] = "typedef struct pp_spec {\n    int h;\n} pp_spec;\n"
                              "int a_run(pp_spec *s);\nint b_fit(pp_spec *s);\n";
    static const char own_h[] = "typedef struct pp_spec {\n    int h;\n} pp_spec;\n"
                                "int a_run(pp_spec *s);\n";
    static const char ghost_h[] = "int a_run(void *s);\nint a_gone(void);\n";
    static const char a_c[] = "#include \"a.h\"\nint b_fit(pp_spec *s);\n"
                              "int a_run(pp_spec *s)\n{\n    return b_fit(s);\n}\n";
    /* b.c calls a.c back: files of one folder may call each other */
    static const char b_c[] = "#include \"a.h\"\nint b_fit(pp_spec *s)\n{\n"
                              "    return s->h ? a_run(s) : 0;\n}\n";
    static const char shared_h[] = "typedef struct pp_spec {\n    int h;\n} pp_spec;\n"
                                   "static inline int pp_spec_h(const pp_spec *s)\n{\n"
                                   "    return s->h;\n}\n";
    char *out;

    CHECK_INT(check_layout(tree(a_h, a_c, b_c, NULL), &out), 1);
    CHECK(out && strstr(out, "src/layer2/a.h: declares b_fit, defined in src/layer2/b.c (rule 4)"));
    CHECK(out && strstr(out, "layout: 1 breaches"));
    free(out);
    /* a function no file of the folder defines */
    CHECK_INT(check_layout(tree(ghost_h, a_c, b_c, NULL), &out), 1);
    CHECK(out && strstr(out, "src/layer2/a.h: declares a_gone, which no file of src/layer2 defines"));
    free(out);
    /* the commands' table: src/cli/cli.h declares each command's pp_cmd_ */
    {
        char dir[PATH_MAX + 16], path[PATH_MAX + 32];
        const char *root = tree(own_h, a_c, b_c, NULL);
        snprintf(dir, sizeof dir, "%s/src/cli", root);
        mkdir(dir, 0755);
        snprintf(path, sizeof path, "%s/cli.h", dir);
        write_file(path, "int pp_cmd_plan(int argc, char **argv);\nint pp_cli_say(void);\n");
        snprintf(path, sizeof path, "%s/plan.c", dir);
        write_file(path, "int pp_cmd_plan(int argc, char **argv)\n{\n    return argc;\n}\n"
                         "int pp_cli_say(void)\n{\n    return 0;\n}\n");
        CHECK_INT(check_layout(root, &out), 1);
        CHECK(out && !strstr(out, "pp_cmd_plan"));
        CHECK(out && strstr(out, "src/cli/cli.h: declares pp_cli_say, defined in src/cli/plan.c"));
        free(out);
        unlink(path);
        snprintf(path, sizeof path, "%s/cli.h", dir);
        unlink(path);
        rmdir(dir);
    }
    /* each header its .c's; a header with no .c holds types and inline code */
    CHECK_INT(check_layout(tree(own_h, a_c, b_c, shared_h), &out), 0);
    CHECK(out && strstr(out, "layout: 0 breaches"));
    free(out);
}

/* check-layout run in root with stdout and stderr both into one file that
 * already holds "BEFORE\n", as "(echo BEFORE; make check) > log 2>&1"
 * leaves it: the file's text (malloc'd), NULL when not run. */
static char *check_layout_into_log(const char *root)
{
    char script[PATH_MAX];
    const char *log = test_path("layout.log");
    int fd, st;
    pid_t pid;

    if (!realpath("scripts/check-layout", script))
        return NULL;
    fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "BEFORE\n", 7) != 7)
        return NULL;
    pid = fork();
    if (pid == 0) {
        if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(root) != 0)
            _exit(127);
        execl(script, script, (char *)NULL);
        _exit(127);
    }
    close(fd);
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return NULL;
    return slurp(log);
}

void test_layout_keeps_log_before_it(void);
void test_layout_keeps_log_before_it(void)
{
    /* tee /dev/stderr reopened the log and cut it: all before was lost */
    static const char a_h[] = "int a_run(void);\nint b_fit(void);\n";
    static const char a_c[] = "#include \"a.h\"\nint a_run(void)\n{\n    return b_fit();\n}\n";
    static const char b_c[] = "#include \"a.h\"\nint b_fit(void)\n{\n    return 0;\n}\n";
    char *log = check_layout_into_log(tree(a_h, a_c, b_c, NULL));

    CHECK(log && strncmp(log, "BEFORE\n", 7) == 0);
    CHECK_CONTAINS(log, "src/layer2/a.h: declares b_fit, defined in src/layer2/b.c (rule 4)");
    CHECK_CONTAINS(log, "layout: 1 breaches");
    free(log);
}

/* scripts/check-truncation (issue 40) in a fresh root whose src/cli/x.c
 * holds text: its exit status, its output into *out. */
static int check_truncation(const char *text, char **out)
{
    char dir[PATH_MAX + 16], path[PATH_MAX + 32];
    const char *root = tree("", "", "", NULL);

    snprintf(dir, sizeof dir, "%s/src/cli", root);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/x.c", dir);
    write_file(path, text);
    return run_script("check-truncation", root, out);
}

void test_layout_truncation_ignored(void);
void test_layout_truncation_ignored(void)
{
    /* a statement of its own drops the result; a condition, a return or
     * an operand of || uses it */
    static const char ignored[] = "void f(char *b)\n{\n    if (b)\n        pp_fmt(b, 8, \"%d\", 1);\n"
                                  "    pp_strlcpy(b, \"x\", 8);\n}\n";
    static const char used[] = "int f(char *b)\n{\n    if (pp_fmt(b, 8, \"%d\", 1) < 0 ||\n"
                               "        pp_strlcpy(b, \"x\", 8) < 0)\n        return -1;\n"
                               "    return pp_fmt(b, 8, \"y\");\n}\n";
    char *out;

    CHECK_INT(check_truncation(ignored, &out), 1);
    CHECK_CONTAINS(out, "src/cli/x.c:4: result of pp_fmt ignored");
    CHECK_CONTAINS(out, "src/cli/x.c:5: result of pp_strlcpy ignored");
    CHECK_CONTAINS(out, "truncation: 2 ignored");
    free(out);
    CHECK_INT(check_truncation(used, &out), 0);
    CHECK_CONTAINS(out, "truncation: 0 ignored");
    free(out);
}
