/* The public headers as users include them (the staged ones:
 * -I$(O)/include): their version macros agree with the build, and they
 * compile and link from C++ (extern "C"), a program and a component module
 * alike. */
#include "harness.h"

#include <powprof.h>
#include <powprof/component.h>

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_ARGS 64

/* make asan builds the library with the sanitizers: what links with it
 * needs them too (NULL: a plain build). */
#ifdef __SANITIZE_ADDRESS__
#define SAN_FLAGS "-fsanitize=address,undefined"
#else
#define SAN_FLAGS NULL
#endif

/* POWPROF_VERSION is the Makefile's VERSION (PP_VERSION, given to every
 * compilation), its numbers spell it, and `powprof --version` prints it. */
void test_public_version(void);
void test_public_version(void)
{
    char spelled[64], want[96], *out = NULL;

    CHECK_STR(POWPROF_VERSION, PP_VERSION);
    snprintf(spelled, sizeof spelled, "%d.%d.%d", POWPROF_VERSION_MAJOR, POWPROF_VERSION_MINOR,
             POWPROF_VERSION_PATCH);
    CHECK_STR(spelled, POWPROF_VERSION);
    CHECK_INT(run_powprof(&out, NULL, "--version", NULL), 0);
    snprintf(want, sizeof want, "powprof %s\n", POWPROF_VERSION);
    CHECK_STR(out, want);
    free(out);
}

/* The build folder ($POWPROF_BIN's): libpowprof.a and include/ staged. */
static const char *build_dir(void)
{
    static char dir[512];
    const char *bin = getenv("POWPROF_BIN");

    snprintf(dir, sizeof dir, "%s", bin ? bin : "build/powprof");
    return dirname(dir);
}

/* The libraries libpowprof.a needs: the Libs line of powprof.pc.in (what
 * a user links with), less the installed library itself. Words appended
 * to argv after n; the new count. buf holds them. */
static size_t pc_libs(char **argv, size_t n, char *buf, size_t cap)
{
    char *text = slurp("powprof.pc.in"), *libs = text ? strstr(text, "\nLibs:") : NULL;

    CHECK(libs != NULL);
    if (!libs) {
        free(text);
        return n;
    }
    snprintf(buf, cap, "%.*s", (int)strcspn(libs + 6, "\n"), libs + 6);
    free(text);
    for (char *w = strtok(buf, " \t"); w && n + 1 < MAX_ARGS; w = strtok(NULL, " \t"))
        if (strncmp(w, "-L", 2) != 0 && strcmp(w, "-lpowprof") != 0)
            argv[n++] = w;
    argv[n] = NULL;
    return n;
}

/* A component type written in C++: three steps, each reading the cancel
 * flag (std::atomic_int) and its parameter. */
static const char cxx_module[] =
    "#include <powprof/component.h>\n"
    "#include <new>\n"
    "struct counter { long steps; };\n"
    "static int cxx_setup(pp_component *c)\n"
    "{\n"
    "    c->priv = new (std::nothrow) counter{0};\n"
    "    return c->priv ? 0 : -ENOMEM;\n"
    "}\n"
    "static int cxx_step(pp_component *c, int64_t)\n"
    "{\n"
    "    double n = 0;\n"
    "    if (c->cancel->load())\n"
    "        return -ECANCELED;\n"
    "    if (pp_component_param(c, \"n\", &n) < 0 || n < 1) {\n"
    "        snprintf(c->reason, sizeof c->reason, \"n: at least 1\");\n"
    "        return -EINVAL;\n"
    "    }\n"
    "    static_cast<counter *>(c->priv)->steps++;\n"
    "    return 0;\n"
    "}\n"
    "static void cxx_teardown(pp_component *c)\n"
    "{\n"
    "    delete static_cast<counter *>(c->priv);\n"
    "    c->priv = nullptr;\n"
    "}\n"
    "static const pp_component_ops cxx_type = {\"cxx-count\", \"counts its steps (C++)\",\n"
    "                                          nullptr, nullptr, cxx_setup, cxx_step,\n"
    "                                          cxx_teardown};\n"
    "PP_COMPONENT_MODULE(&cxx_type);\n";

/* The module built with g++ into mods/powprof-cxx-count.so and run by a
 * sweep: it loads (its table found by its C name) and its steps count. */
static void cxx_component(const char *inc)
{
    char src[600], mods[600], so[700], cfg[600], res[600], sum[700];
    char *out = NULL, *err = NULL, *text;
    char *argv[] = {"g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                    "-Wl,-z,defs", "-I", (char *)inc, "-o", so, src, NULL};

    snprintf(src, sizeof src, "%s/count.cc", test_tmpdir());
    snprintf(mods, sizeof mods, "%s/mods", test_tmpdir());
    snprintf(so, sizeof so, "%s/powprof-cxx-count.so", mods);
    snprintf(cfg, sizeof cfg, "%s/c.cfg", test_tmpdir());
    snprintf(res, sizeof res, "%s/res", test_tmpdir());
    mkdir(mods, 0755);
    write_file(src, cxx_module);
    CHECK_INT(run_argv(argv, NULL, NULL), 0);
    write_file(cfg, "profile = { device = \"procstat\"; rate_hz = 50; };\n"
                    "components = ({ type = \"cxx-count\"; iterations = 3;\n"
                    "  params = { n = [2, 0]; }; });\n");
    setenv("POWPROF_MODULE_PATH", mods, 1);
    CHECK_INT(run_powprof(&out, &err, "profile", cfg, "-o", res, NULL), 1);
    unsetenv("POWPROF_MODULE_PATH");
    snprintf(sum, sizeof sum, "%s/summary.csv", res);
    text = slurp(sum);
    CHECK_CONTAINS(text, "\n0,2,ok,");
    CHECK_CONTAINS(text, "\n1,0,failed,");
    CHECK_CONTAINS(text, "n: at least 1");
    free(text);
    free(out);
    free(err);
}

/* examples/<name>.c built with g++ as C++ against the staged headers
 * (inc) and linked with libpowprof.a into exe: its calls reach the C
 * library only when the headers say extern "C". */
static void cxx_example(const char *inc, const char *name, char *exe, size_t cap)
{
    char src[256], obj[600], lib[600], libs[512];
    char *compile[] = {"g++", "-x", "c++", "-std=c++17", "-Wall", "-Wextra", "-Werror",
                       "-I", (char *)inc, "-c", "-o", obj, src, SAN_FLAGS, NULL};
    char *link[MAX_ARGS] = {"g++", "-o", exe, obj, lib, SAN_FLAGS};

    snprintf(src, sizeof src, "examples/%s.c", name);
    snprintf(obj, sizeof obj, "%s/%s.o", test_tmpdir(), name);
    snprintf(exe, cap, "%s/%s", test_tmpdir(), name);
    snprintf(lib, sizeof lib, "%s/libpowprof.a", build_dir());
    CHECK_INT(run_argv(compile, NULL, NULL), 0);
    pc_libs(link, SAN_FLAGS ? 6 : 5, libs, sizeof libs);
    CHECK_INT(run_argv(link, NULL, NULL), 0);
}

/* The examples (examples/onboard.c: devices, traces, the battery;
 * examples/mission.c: the model and the plan) build and link as C++, and
 * onboard prints what its C build prints (test_install.c). A module in C++
 * loads and runs. Without g++, nothing is checked (said on stderr). */
void test_public_headers_cplusplus(void);
void test_public_headers_cplusplus(void)
{
    char inc[600], exe[600], trace[600], *out = NULL;
    char *version[] = {"g++", "--version", NULL};

    if (run_argv(version, NULL, NULL) != 0) {
        fprintf(stderr, "public_headers_cplusplus: no g++, not checked\n");
        return;
    }
    snprintf(inc, sizeof inc, "%s/include", build_dir());
    cxx_example(inc, "mission", exe, sizeof exe);
    cxx_example(inc, "onboard", exe, sizeof exe);
    snprintf(trace, sizeof trace, "%s/trace.csv", test_tmpdir());
    write_file(trace, "t_s,VDD_IN_w\n0,10\n10,10\n");
    setenv("POWPROF_SYSFS_ROOT", fixture("jetson-tx2-iio"), 1);
    {
        char *run[] = {exe, "jetson", trace, NULL};
        CHECK_INT(run_argv(run, &out, NULL), 0);
    }
    unsetenv("POWPROF_SYSFS_ROOT");
    CHECK_CONTAINS(out, "device jetson\n");
    CHECK_CONTAINS(out, "trace 10.000 s, 100.000 J on rail VDD_IN\n");
    free(out);
    cxx_component(inc);
}
