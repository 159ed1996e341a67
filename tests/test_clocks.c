/* Clocks (issue 44): the domains of fake trees, setting, reading back, a
 * clamp, refused writes, the restore record and nvpmodel. */
#include "harness.h"

#include "devices/clocks.h"
#include "devices/clocks_restore.h"
#include "devices/nvpmodel.h"
#include "devices/thermal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static pp_clocks *probe_copy(const char *name, const char **root)
{
    pp_clocks *c = malloc(sizeof *c);

    *root = fixture_copy(name);
    CHECK_INT(pp_clocks_probe(*root, c), 0);
    return c;
}

/* The text of root + rel, trailing newline dropped (one of four static
 * buffers, in turn). */
const char *at(const char *root, const char *rel);
const char *at(const char *root, const char *rel)
{
    static char buf[4][256];
    static int k;
    char path[4096];
    char *s;

    k = (k + 1) % 4;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    s = slurp(path);
    snprintf(buf[k], sizeof buf[k], "%s", s ? s : "(none)");
    free(s);
    buf[k][strcspn(buf[k], "\n")] = 0;
    return buf[k];
}

#define GV11B "sys/class/devfreq/17000000.gv11b/"
#define POLICY0 "sys/devices/system/cpu/cpufreq/policy0/"

void test_clocks_domains_of_three_jetsons(void);
void test_clocks_domains_of_three_jetsons(void)
{
    const char *root;
    pp_clocks *c = probe_copy("clocks-agx", &root);
    double mhz = 0;

    CHECK(c->dom[PP_CLOCK_CPU].present);
    CHECK_STR(c->dom[PP_CLOCK_CPU].name, "policy0,policy4");
    CHECK_INT(c->dom[PP_CLOCK_CPU].n_freqs, 29);
    CHECK(c->dom[PP_CLOCK_CPU].has_userspace);
    CHECK_STR(c->dom[PP_CLOCK_GPU].name, "17000000.gv11b");
    CHECK_INT(c->dom[PP_CLOCK_GPU].n_freqs, 14);
    CHECK_NEAR(c->dom[PP_CLOCK_GPU].freqs_mhz[0], 114.75, 1e-9);
    CHECK_NEAR(c->dom[PP_CLOCK_GPU].max_mhz, 1377, 1e-9);
    CHECK(c->dom[PP_CLOCK_EMC].present);
    CHECK_NEAR(c->dom[PP_CLOCK_EMC].min_mhz, 204, 1e-9);
    CHECK_INT(pp_clocks_read_mhz(c, PP_CLOCK_GPU, &mhz), 0);
    CHECK_NEAR(mhz, 1377, 1e-9);
    free(c);
    c = probe_copy("clocks-tx2", &root);
    CHECK_STR(c->dom[PP_CLOCK_GPU].name, "17000000.gp10b");
    CHECK_INT(c->dom[PP_CLOCK_GPU].n_freqs, 13);
    CHECK(!c->dom[PP_CLOCK_EMC].present);
    free(c);
    c = probe_copy("clocks-orin", &root);
    CHECK_STR(c->dom[PP_CLOCK_GPU].name, "17000000.ga10b");
    CHECK(!c->dom[PP_CLOCK_CPU].present);
    CHECK_INT(c->dom[PP_CLOCK_EMC].n_freqs, 4);
    CHECK_NEAR(c->dom[PP_CLOCK_EMC].max_mhz, 3199, 1e-9);
    free(c);
}

void test_clocks_set_and_read_back(void);
void test_clocks_set_and_read_back(void)
{
    const char *root;
    pp_clocks *c = probe_copy("clocks-agx", &root);
    char why[4096];
    double mhz = 0;

    /* GPU: min = max, lowering (min first) then raising (max first) */
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_GPU, 420.75, why, sizeof why), 0);
    CHECK_STR(at(root, GV11B "min_freq"), "420750000");
    CHECK_STR(at(root, GV11B "max_freq"), "420750000");
    CHECK_INT(pp_clocks_read_mhz(c, PP_CLOCK_GPU, &mhz), 0);
    CHECK(pp_clocks_holds(420.75, mhz));
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_GPU, 1032.75, why, sizeof why), 0);
    CHECK_STR(at(root, GV11B "min_freq"), "1032750000");
    /* CPU with userspace: governor and setspeed on every policy */
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_CPU, 1190.4, why, sizeof why), 0);
    CHECK_STR(at(root, POLICY0 "scaling_governor"), "userspace");
    CHECK_STR(at(root, "sys/devices/system/cpu/cpufreq/policy4/scaling_setspeed"), "1190400");
    /* EMC: locked, then the rate */
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_EMC, 1331.2, why, sizeof why), 0);
    CHECK_STR(at(root, "sys/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked"), "1");
    CHECK_STR(at(root, "sys/kernel/debug/bpmp/debug/clk/emc/rate"), "1331200000");
    /* a frequency outside the table is refused before any write, naming it */
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_GPU, 700, why, sizeof why), -EINVAL);
    CHECK_CONTAINS(why, "gpu_mhz = 700: not a frequency of 17000000.gv11b (114.75 216.75");
    CHECK_STR(at(root, GV11B "max_freq"), "1032750000");
    free(c);
}

void test_clocks_pstate_min_equals_max(void);
void test_clocks_pstate_min_equals_max(void)
{
    const char *root;
    pp_clocks *c = probe_copy("clocks-pstate", &root);
    char why[4096];
    double mhz = 0;

    CHECK(!c->dom[PP_CLOCK_CPU].has_userspace);
    CHECK_INT(c->dom[PP_CLOCK_CPU].n_freqs, 0);
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_CPU, 1800, why, sizeof why), 0);
    CHECK_STR(at(root, POLICY0 "scaling_min_freq"), "1800000");
    CHECK_STR(at(root, "sys/devices/system/cpu/cpufreq/policy1/scaling_max_freq"), "1800000");
    CHECK_STR(at(root, POLICY0 "scaling_governor"), "powersave");
    CHECK_INT(pp_clocks_read_mhz(c, PP_CLOCK_CPU, &mhz), 0);
    CHECK_NEAR(mhz, 1800, 1e-9);
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_CPU, 5000, why, sizeof why), -EINVAL);
    CHECK_CONTAINS(why, "(400-4200 MHz)");
    free(c);
}

/* More cpufreq policies than powprof sets: the CPU clock is not offered
 * (setting some of them only would leave the others free), said so. */
void test_clocks_too_many_policies_left_alone(void);
void test_clocks_too_many_policies_left_alone(void)
{
    const char *root = fixture_copy("clocks-pstate");
    pp_clocks *c = malloc(sizeof *c);
    char cmd[8192], why[4096];
    char *argv[] = {"sh", "-c", cmd, NULL};

    snprintf(cmd, sizeof cmd, "for i in $(seq 2 %d); do cp -a %s/sys/devices/system/cpu/cpufreq/"
             "policy0 %s/sys/devices/system/cpu/cpufreq/policy$i; done", PP_CLOCKS_MAX_POLICIES,
             root, root);
    CHECK_INT(run_argv(argv, NULL, NULL), 0);
    CHECK_INT(pp_clocks_probe(root, c), 0);
    CHECK(!c->dom[PP_CLOCK_CPU].present);
    CHECK_CONTAINS(test_log(), "17 cpufreq policies; powprof sets at most 16");
    CHECK_INT(pp_clocks_check_mhz(c, PP_CLOCK_CPU, 1800, why, sizeof why), -ENODEV);
    CHECK_CONTAINS(why, "has no cpu clock powprof can set");
    free(c);
}

/* A kernel that holds another frequency (a thermal cap): the read-back
 * does not hold the setting. */
void test_clocks_clamp_detected(void);
void test_clocks_clamp_detected(void)
{
    const char *root;
    pp_clocks *c = probe_copy("clocks-agx", &root);
    char why[4096], path[4096];
    double mhz = 0;

    snprintf(path, sizeof path, "%s/" GV11B "cur_freq", root);
    CHECK_INT(unlink(path), 0);
    CHECK_INT(write_file(path, "905250000\n"), 0);
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_GPU, 1377, why, sizeof why), 0);
    CHECK_INT(pp_clocks_read_mhz(c, PP_CLOCK_GPU, &mhz), 0);
    CHECK_NEAR(mhz, 905.25, 1e-9);
    CHECK(!pp_clocks_holds(1377, mhz));
    CHECK(pp_clocks_holds(1377, 1377.2));
    free(c);
}

/* Run fn(ctx) in a child as the user nobody (the tests run as root: this
 * gives a real EACCES); the text fn leaves in its buffer comes back in out.
 * fn's return (the child's exit status), or -1. */
int as_nobody(int (*fn)(void *ctx, char *buf, size_t cap), void *ctx, char *out, size_t cap);
int as_nobody(int (*fn)(void *ctx, char *buf, size_t cap), void *ctx, char *out, size_t cap)
{
    int fds[2], st = 0;
    size_t len = 0;
    ssize_t n;
    pid_t pid;

    if (chmod(test_tmpdir(), 0755) < 0 || pipe(fds) < 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        char buf[8192] = "";
        int rc = geteuid() == 0 ? setgid(65534) | setuid(65534) : 0;
        rc = rc == 0 ? fn(ctx, buf, sizeof buf) : 99;
        if (write(fds[1], buf, strlen(buf)) < 0)
            rc = 98;
        _exit(rc);
    }
    close(fds[1]);
    while (len + 1 < cap && (n = read(fds[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = 0;
    close(fds[0]);
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* As nobody: the GPU's files are not writable, and a set is refused. */
static int refused(void *ctx, char *buf, size_t cap)
{
    pp_clocks *c = ctx;
    char why[4096];
    int rc = pp_clocks_writable(c, PP_CLOCK_GPU, buf, cap);

    return rc == -EACCES && pp_clocks_set(c, PP_CLOCK_GPU, 420.75, why, sizeof why) == -EACCES
               ? 0 : 1;
}

/* A write refused: EACCES as a user without root, the file named; EBUSY's
 * message (no fake file can answer EBUSY: the message is checked
 * directly). */
void test_clocks_write_refused_names_file(void);
void test_clocks_write_refused_names_file(void)
{
    const char *root;
    pp_clocks *c = probe_copy("clocks-agx", &root);
    char why[4096];

    CHECK_INT(as_nobody(refused, c, why, sizeof why), 0);
    CHECK_CONTAINS(why, "17000000.gv11b/min_freq: cannot be written: permission denied: setting a "
                        "clock needs root");
    CHECK_STR(at(root, GV11B "max_freq"), "1377000000");
    pp_clocks_write_error("/sys/x/max_freq", "1377000000", EBUSY, why, sizeof why);
    CHECK_CONTAINS(why, "/sys/x/max_freq: cannot write '1377000000': busy: the kernel holds");
    /* a file that is not one (a folder where a clock file should be) */
    CHECK_INT(pp_clocks_write(root, "1", why, sizeof why), -EISDIR);
    CHECK_CONTAINS(why, root);
    free(c);
}

void test_clocks_restore_record_round_trip(void);
void test_clocks_restore_record_round_trip(void)
{
    const char *root;
    pp_clocks *c = probe_copy("clocks-agx", &root);
    pp_clocks_record *r = malloc(sizeof *r), *back = malloc(sizeof *back);
    char why[4096], path[4096];

    snprintf(path, sizeof path, "%s/%s", test_tmpdir(), PP_CLOCKS_RECORD);
    pp_clocks_record_init(r);
    for (int k = 0; k < PP_CLOCK_KINDS; k++)
        CHECK_INT(pp_clocks_record_add(r, c, (pp_clock_kind)k), 0);
    /* setspeed "<unsupported>" is not kept: 2 policies x governor + GPU 2 + EMC 2 */
    CHECK_INT(r->n, 6);
    CHECK_INT(pp_clocks_record_save(r, path), 0);
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_GPU, 114.75, why, sizeof why), 0);
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_CPU, 115.2, why, sizeof why), 0);
    CHECK_INT(pp_clocks_set(c, PP_CLOCK_EMC, 204, why, sizeof why), 0);
    CHECK_INT(pp_clocks_record_load(path, back), 0);
    CHECK_INT(back->n, 6);
    CHECK_INT(pp_clocks_restore_pending(path, root, PP_NVPMODEL_COMMAND), 1);
    CHECK(access(path, F_OK) != 0);
    CHECK_STR(at(root, GV11B "min_freq"), "114750000");
    CHECK_STR(at(root, GV11B "max_freq"), "1377000000");
    CHECK_STR(at(root, POLICY0 "scaling_governor"), "schedutil");
    CHECK_STR(at(root, "sys/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked"), "0");
    CHECK_STR(at(root, "sys/kernel/debug/bpmp/debug/clk/emc/rate"), "2133000000");
    CHECK_INT(pp_clocks_restore_pending(path, root, PP_NVPMODEL_COMMAND), 0);
    CHECK_INT(write_file(path, "{\"files\": 3}"), 0);
    CHECK_INT(pp_clocks_restore_pending(path, root, PP_NVPMODEL_COMMAND), -EINVAL);
    CHECK_CONTAINS(test_log(), "not a clocks' restore record");
    free(back);
    free(r);
    free(c);
}

/* A record is read from a results folder: whoever wrote it does not
 * choose what root writes or runs. */
void test_clocks_hostile_record_refused(void);
void test_clocks_hostile_record_refused(void)
{
    const char *root = fixture_copy("clocks-agx");
    char path[4096], victim[4096], text[16384];
    const char *cases[][2] = {
        {"{\"files\": [{\"path\": \"%s\", \"value\": \"0\"}], \"nvpmodel_mode\": -1, "
         "\"nvpmodel_command\": \"\"}", "is no clock file of this board: not written"},
        {"{\"files\": [{\"path\": \"%s/../x/max_freq\", \"value\": \"0\"}], "
         "\"nvpmodel_mode\": -1, \"nvpmodel_command\": \"\"}", "is no clock file of this board"},
        {"{\"files\": [], \"nvpmodel_mode\": 1, \"nvpmodel_command\": \"/bin/touch%s\"}",
         "nvpmodel_command '/bin/touch"},
    };

    snprintf(path, sizeof path, "%s/%s", test_tmpdir(), PP_CLOCKS_RECORD);
    snprintf(victim, sizeof victim, "%s/victim", test_tmpdir());
    write_file(victim, "precious\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, cases[i][0], i == 0 ? victim : i == 1 ? root : "");
        write_file(path, text);
        test_log_clear();
        CHECK_INT(pp_clocks_restore_pending(path, root, PP_NVPMODEL_COMMAND), -EPERM);
        CHECK_CONTAINS(test_log(), cases[i][1]);
        CHECK(access(path, F_OK) == 0); /* kept, for a person to look at */
    }
    snprintf(text, sizeof text, "{\"files\": [{\"path\": \"%s/" GV11B "max_freq\", \"value\": "
             "\"1 > x\"}], \"nvpmodel_mode\": -1, \"nvpmodel_command\": \"\"}", root);
    write_file(path, text);
    CHECK_INT(pp_clocks_restore_pending(path, root, PP_NVPMODEL_COMMAND), -EPERM);
    CHECK_CONTAINS(test_log(), "'1 > x' for ");
    CHECK_STR(at(test_tmpdir(), "victim"), "precious");
    /* a FIFO in its place is refused, not waited on */
    unlink(path);
    CHECK_INT(mkfifo(path, 0600), 0);
    CHECK_INT(pp_clocks_restore_pending(path, root, PP_NVPMODEL_COMMAND), -EINVAL);
    CHECK_CONTAINS(test_log(), "not a regular file");
    CHECK_STR(at(root, GV11B "max_freq"), "1377000000");
}

/* A stand-in for nvpmodel: -q prints the mode kept in a file, -m N keeps N. */
const char *fake_nvpmodel(const char *dir);
const char *fake_nvpmodel(const char *dir)
{
    static char path[4096];
    char text[8192];

    snprintf(path, sizeof path, "%s/nvpmodel", dir);
    snprintf(text, sizeof text,
             "#!/bin/sh\nf='%s/mode'\n[ -f \"$f\" ] || echo 2 > \"$f\"\n"
             "case \"$1\" in -q) echo \"NV Power Mode: MODE\"; cat \"$f\";;\n"
             "-m) [ \"$2\" -le 3 ] || { echo bad mode >&2; exit 1; }; echo \"$2\" > \"$f\";;\n"
             "*) exit 2;; esac\n", dir);
    CHECK_INT(write_file(path, text), 0);
    CHECK_INT(chmod(path, 0755), 0);
    return path;
}

void test_clocks_nvpmodel_modes_query_set(void);
void test_clocks_nvpmodel_modes_query_set(void)
{
    const char *root = fixture("clocks-agx"), *cmd = fake_nvpmodel(test_tmpdir());
    pp_nvpmodel_mode modes[PP_NVPMODEL_MAX_MODES];
    char why[4096];
    int mode = -1;

    CHECK_INT(pp_nvpmodel_modes(root, modes, PP_NVPMODEL_MAX_MODES), 4);
    CHECK_INT(modes[3].id, 3);
    CHECK_STR(modes[3].name, "MODE_30W_ALL");
    CHECK_INT(pp_nvpmodel_modes(fixture("clocks-tx2"), modes, 4), -ENOENT);
    CHECK_INT(pp_nvpmodel_query(cmd, &mode, why, sizeof why), 0);
    CHECK_INT(mode, 2);
    CHECK_INT(pp_nvpmodel_set(cmd, 0, why, sizeof why), 0);
    CHECK_INT(pp_nvpmodel_query(cmd, &mode, why, sizeof why), 0);
    CHECK_INT(mode, 0);
    CHECK_INT(pp_nvpmodel_set(cmd, 9, why, sizeof why), -EIO);
    CHECK_CONTAINS(why, "-m 9: exit status 1");
    CHECK(pp_nvpmodel_set("/nonexistent/nvpmodel", 0, why, sizeof why) < 0);
    CHECK_CONTAINS(why, "/nonexistent/nvpmodel");
}

void test_clocks_thermal_hottest_zone(void);
void test_clocks_thermal_hottest_zone(void)
{
    char zone[64] = "";
    double c = 0;

    CHECK_INT(pp_thermal_max_c(fixture("clocks-agx"), &c, zone, sizeof zone), 0);
    CHECK_NEAR(c, 45.5, 1e-9);
    CHECK_STR(zone, "CPU-therm");
    CHECK_INT(pp_thermal_max_c(fixture("clocks-tx2"), &c, zone, sizeof zone), -ENODEV);
}

void test_clocks_devices_cli_lists_what_can_be_set(void);
void test_clocks_devices_cli_lists_what_can_be_set(void)
{
    char *out = NULL, *err = NULL;
    const char *root = fixture("clocks-agx");

    CHECK_INT(run_powprof(&out, &err, "devices", "--clocks", "--sysfs-root", root, NULL), 0);
    CHECK_CONTAINS(out, "cpu  policy0,policy4  governor schedutil  now 1190.4 MHz\n");
    CHECK_CONTAINS(out, "gpu  17000000.gv11b  governor nvhost_podgov  now 1377 MHz\n"
                        "     available: 114.75 216.75 318.75 ");
    CHECK_CONTAINS(out, "set by min_freq = max_freq (devfreq): ");
    CHECK_CONTAINS(out, "emc  emc  now 2133 MHz\n     range: 204-2133 MHz\n");
    CHECK_CONTAINS(out, "nvpmodel modes 0 MAXN, 1 MODE_10W, 2 MODE_15W, 3 MODE_30W_ALL\n");
    free(out);
    free(err);
    CHECK_INT(run_powprof(&out, &err, "devices", "--clocks", "--json", "--sysfs-root",
                          fixture("clocks-pstate"), NULL), 0);
    CHECK_CONTAINS(out, "\"name\":\"policy0,policy1\",\"governor\":\"powersave\",\"now_mhz\":4200,"
                        "\"available_mhz\":[],\"min_mhz\":400.0,\"max_mhz\":4200.0,\"method\":"
                        "\"scaling_min_freq = scaling_max_freq\"");
    CHECK_CONTAINS(out, "{\"clock\":\"gpu\",\"present\":false}");
    free(out);
    free(err);
}

/* --dry-run refuses a frequency the board does not have, naming it. */
void test_clocks_dry_run_refuses_unknown_frequency(void);
void test_clocks_dry_run_refuses_unknown_frequency(void)
{
    char cfg[4096], text[8192], *out = NULL, *err = NULL;

    snprintf(cfg, sizeof cfg, "%s/c.cfg", test_tmpdir());
    snprintf(text, sizeof text,
             "profile = { device = \"jetson\"; sysfs_root = \"%s\"; };\n"
             "components = ({ type = \"idle\"; duration_s = 0.05; });\n"
             "clocks = { gpu_mhz = [420.75, 1400.0]; };\n", fixture("clocks-agx"));
    write_file(cfg, text);
    CHECK(run_powprof(&out, &err, "profile", cfg, "--dry-run", NULL) != 0);
    CHECK_CONTAINS(out, "clocks.gpu_mhz");
    CHECK_CONTAINS(err, "clocks.gpu_mhz = 1400: not a frequency of 17000000.gv11b (114.75 ");
    free(out);
    free(err);
}
