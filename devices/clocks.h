/* clocks.h - the clocks a sweep may set (issue 44): the CPU through
 * cpufreq, the GPU through devfreq, the memory controller (EMC) through the
 * BPMP debugfs clock of a Jetson; each found under a replaceable root, as
 * the power sources are (device.h), so that every path is tested on fake
 * trees.
 *
 *   cpu  /sys/devices/system/cpu/cpufreq/policy*: every policy set to the
 *        same frequency; with the `userspace` governor available it is
 *        selected and the frequency written to scaling_setspeed, else
 *        scaling_min_freq = scaling_max_freq (intel_pstate, whose governors
 *        are powersave and performance only). kHz.
 *   gpu  /sys/class/devfreq/<node>, the node found by its name: gk20a
 *        (TK1, Nano: 57000000.gpu), gm20b (TX1), gp10b (TX2), gv11b (AGX
 *        Xavier, Xavier NX), ga10b (Orin); min_freq = max_freq. Hz.
 *   emc  /sys/kernel/debug/bpmp/debug/clk/emc: mrq_rate_locked = 1, then
 *        rate, as jetson_clocks does. Hz.
 *
 * Frequencies are given and returned in MHz. A frequency is settable when
 * it is in the domain's table (available_frequencies,
 * scaling_available_frequencies, possible_rates; within half a MHz), or
 * without a table inside its hardware range (cpuinfo_min/max_freq).
 * Changing a clock needs root: pp_clocks_writable names the first file that
 * cannot be written.
 */
#ifndef PP_CLOCKS_H
#define PP_CLOCKS_H

#include "src/base/util.h"

#include <stddef.h>

#define PP_CLOCKS_MAX_FREQS 128
#define PP_CLOCKS_MAX_POLICIES 16
#define PP_CLOCKS_MAX_FILES 64 /* files a restore record holds */

typedef enum pp_clock_kind { PP_CLOCK_CPU = 0, PP_CLOCK_GPU, PP_CLOCK_EMC, PP_CLOCK_KINDS } pp_clock_kind;

typedef struct pp_clock_domain {
    int present;
    char name[64];              /* policy0,policy4 / 17000000.gv11b / emc */
    size_t n_dirs;              /* cpu: one per policy; gpu, emc: one */
    char dirs[PP_CLOCKS_MAX_POLICIES][PP_PATH_MAX];
    size_t n_freqs;             /* 0: no table (a range only) */
    double freqs_mhz[PP_CLOCKS_MAX_FREQS]; /* ascending */
    double min_mhz, max_mhz;    /* the hardware's range */
    char governor[32];          /* cpu, gpu: the governor now ("" for emc) */
    int has_userspace;          /* cpu: `userspace` among the governors */
} pp_clock_domain;

typedef struct pp_clocks {
    char root[PP_PATH_MAX];
    pp_clock_domain dom[PP_CLOCK_KINDS];
} pp_clocks;

/* "cpu", "gpu", "emc". */
const char *pp_clock_kind_name(pp_clock_kind k);

/* Find every domain under root (NULL: "/"); a domain absent is present = 0.
 * 0, or -errno on a file that exists but cannot be read (logged, naming
 * it). c is large (about 200 kB): allocate it. */
int pp_clocks_probe(const char *root, pp_clocks *c);

/* The frequency the domain runs at now (cpu: the lowest over its
 * policies): scaling_cur_freq, cur_freq, rate. 0 or -errno (logged). */
int pp_clocks_read_mhz(const pp_clocks *c, pp_clock_kind k, double *mhz);

/* 0 when mhz is settable on domain k; else -ENODEV (no such domain) or
 * -EINVAL, with why naming the domain and its table or range. */
int pp_clocks_check_mhz(const pp_clocks *c, pp_clock_kind k, double mhz, char *why, size_t cap);

/* The table of domain k into text "114.75 216 ... 1377" (or "115.2-2265"
 * for a range). */
void pp_clocks_table_text(const pp_clock_domain *d, char *buf, size_t cap);

/* The files setting domain k writes, in the order it writes them. Returns
 * their number (at most cap). */
size_t pp_clocks_files(const pp_clocks *c, pp_clock_kind k, char (*paths)[PP_PATH_MAX], size_t cap);

/* 0 when every file setting domain k writes can be written; else -EACCES
 * (or the error of access(2)) with why naming the file and what it takes. */
int pp_clocks_writable(const pp_clocks *c, pp_clock_kind k, char *why, size_t cap);

/* Set domain k to mhz (checked with pp_clocks_check_mhz first). 0, or the
 * first write's -errno with why naming the file, the value and the cause
 * (EACCES/EPERM: needs root; EBUSY: the kernel holds it; EINVAL: the
 * kernel refused the value). */
int pp_clocks_set(const pp_clocks *c, pp_clock_kind k, double mhz, char *why, size_t cap);

/* Write text to an existing sysfs or debugfs file (never created). 0 or
 * -errno, with why set by pp_clocks_write_error. */
int pp_clocks_write(const char *path, const char *text, char *why, size_t cap);

/* The message of a write of text to path that failed with errno err. */
void pp_clocks_write_error(const char *path, const char *text, int err, char *why, size_t cap);

/* 1 when read_mhz holds set_mhz (within 1 %, at least 0.5 MHz). */
int pp_clocks_holds(double set_mhz, double read_mhz);

#endif
