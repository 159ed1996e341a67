/* nvpmodel.h - a Jetson's power modes: the modes of /etc/nvpmodel.conf
 * (under the root, as every sysfs path), and the nvpmodel program run
 * through argv ("nvpmodel -q", "nvpmodel -m N"), never a shell. The
 * program's path is a setting (a profile's clocks.nvpmodel_command), so
 * that tests run a stand-in. */
#ifndef PP_NVPMODEL_H
#define PP_NVPMODEL_H

#include <stddef.h>

#define PP_NVPMODEL_COMMAND "/usr/sbin/nvpmodel"
#define PP_NVPMODEL_CONF "/etc/nvpmodel.conf"
#define PP_NVPMODEL_MAX_MODES 32

typedef struct pp_nvpmodel_mode {
    int id;
    char name[64];
} pp_nvpmodel_mode;

/* The modes of root's /etc/nvpmodel.conf ("< POWER_MODEL ID=0 NAME=MAXN >"
 * lines), at most cap. Their number, -ENOENT without the file, or -errno
 * (logged, naming it). */
int pp_nvpmodel_modes(const char *root, pp_nvpmodel_mode *modes, size_t cap);

/* The mode now: `command -q`, whose last line is its id. 0 or -errno, with
 * why naming the command and what went wrong. */
int pp_nvpmodel_query(const char *command, int *mode, char *why, size_t cap);

/* `command -m mode`, its input /dev/null (a question about rebooting is
 * answered no). 0 when it exits 0; else -EIO (or the spawn's -errno), with
 * why naming the command, the mode and the exit status. */
int pp_nvpmodel_set(const char *command, int mode, char *why, size_t cap);

#endif
