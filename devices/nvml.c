/* NVIDIA GPUs through NVML, loaded at run time with dlopen so that powprof
 * neither links against nor needs the driver: one rail per GPU, from
 * nvmlDeviceGetPowerUsage (milliwatts, the board's power draw). A missing
 * library is only an error when this back-end was asked for by name.
 */
#include "device.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few NVML declarations used (nvml.h is not needed to build). */
typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;
#define NVML_OK 0
#define MAX_MW 10000000u /* 10 kW */

typedef struct nvml_api {
    void *lib;
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*count)(unsigned int *);
    nvml_return (*handle)(unsigned int, nvml_device *);
    nvml_return (*power)(nvml_device, unsigned int *);
    nvml_return (*name)(nvml_device, char *, unsigned int);
    const char *(*error_string)(nvml_return);
} nvml_api;

typedef struct nvml_priv {
    nvml_api api;
    size_t n;
    nvml_device gpu[PP_DEVICE_MAX_RAILS];
} nvml_priv;

static const char *nvml_err(const nvml_api *api, nvml_return r)
{
    static char buf[32];
    if (api->error_string)
        return api->error_string(r);
    pp_text(buf, sizeof buf, "NVML error %d", r);
    return buf;
}

/* Load the library and its symbols, and initialise NVML. 0 or -errno; the
 * reason goes into why. */
static int api_load(nvml_api *api, const char *library, char *why, size_t cap)
{
    nvml_return r;

    memset(api, 0, sizeof *api);
    api->lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        if (why)
            pp_text(why, cap, "cannot load %s: %s (is the NVIDIA driver installed?)", library,
                     dlerror());
        return -ENODEV;
    }
#define SYM(field, symbol)                                                                     \
    do {                                                                                       \
        *(void **)&api->field = dlsym(api->lib, symbol);                                       \
        if (!api->field) {                                                                     \
            if (why)                                                                           \
                pp_text(why, cap, "%s has no %s", library, symbol);                           \
            goto fail_sym;                                                                     \
        }                                                                                      \
    } while (0)
    SYM(init, "nvmlInit_v2");
    SYM(shutdown, "nvmlShutdown");
    SYM(count, "nvmlDeviceGetCount_v2");
    SYM(handle, "nvmlDeviceGetHandleByIndex_v2");
    SYM(power, "nvmlDeviceGetPowerUsage");
    SYM(name, "nvmlDeviceGetName");
#undef SYM
    *(void **)&api->error_string = dlsym(api->lib, "nvmlErrorString");
    r = api->init();
    if (r != NVML_OK) {
        if (why)
            pp_text(why, cap, "nvmlInit failed: %s", nvml_err(api, r));
        goto fail_sym;
    }
    return 0;

fail_sym:
    dlclose(api->lib);
    api->lib = NULL;
    return -ENODEV;
}

static void api_unload(nvml_api *api)
{
    if (!api->lib)
        return;
    api->shutdown();
    dlclose(api->lib);
    api->lib = NULL;
}

static int nvml_probe(const pp_device_options *opts, char *why, size_t cap)
{
    nvml_api api;
    unsigned int n = 0;
    int rc = api_load(&api, opts->nvml_library ? opts->nvml_library : "libnvidia-ml.so.1", why, cap);

    if (rc < 0)
        return rc;
    if (api.count(&n) != NVML_OK || n == 0) {
        if (why)
            pp_text(why, cap, "NVML reports no GPU");
        rc = -ENODEV;
    }
    api_unload(&api);
    return rc;
}

static void nvml_close(pp_device *dev)
{
    nvml_priv *p = dev->priv;

    if (!p)
        return;
    api_unload(&p->api);
    free(p);
    dev->priv = NULL;
}

static int nvml_open(pp_device *dev)
{
    nvml_priv *p = calloc(1, sizeof *p);
    char why[512];
    unsigned int n = 0;
    nvml_return r;
    int rc;

    if (!p)
        return -ENOMEM;
    dev->priv = p;
    rc = api_load(&p->api, dev->nvml_library, why, sizeof why);
    if (rc < 0) {
        pp_log_error("nvml: %s", why);
        goto fail;
    }
    r = p->api.count(&n);
    if (r != NVML_OK || n == 0) {
        pp_log_error("nvml: no GPU found (%s)", r != NVML_OK ? nvml_err(&p->api, r) : "count is 0");
        rc = -ENODEV;
        goto fail;
    }
    for (unsigned int i = 0; i < n && i < PP_DEVICE_MAX_RAILS; i++) {
        char rail[PP_RAIL_NAME_MAX];
        r = p->api.handle(i, &p->gpu[i]);
        if (r != NVML_OK) {
            pp_log_error("nvml: GPU %u: %s", i, nvml_err(&p->api, r));
            rc = -EIO;
            goto fail;
        }
        pp_text(rail, sizeof rail, "GPU%u", i); /* fits: 3 + 10 digits */
        rc = pp_device_add_rail(dev, rail, 0);
        if (rc < 0)
            goto fail;
        p->n = i + 1;
    }
    return 0;

fail:
    nvml_close(dev);
    return rc;
}

static int nvml_read(pp_device *dev, int64_t t_ns, double *power_w)
{
    nvml_priv *p = dev->priv;

    (void)t_ns;
    for (size_t i = 0; i < p->n; i++) {
        unsigned int mw = 0;
        nvml_return r = p->api.power(p->gpu[i], &mw);
        if (r != NVML_OK) {
            pp_log_error("nvml: GPU %zu: nvmlDeviceGetPowerUsage: %s", i, nvml_err(&p->api, r));
            return -EIO;
        }
        if (mw > MAX_MW) {
            pp_log_error("nvml: GPU %zu: %u mW is out of range [0, %u]", i, mw, MAX_MW);
            return -ERANGE;
        }
        power_w[i] = (double)mw * 1e-3;
    }
    return 0;
}

const pp_device_ops pp_device_nvml = {
    .name = "nvml",
    .summary = "NVIDIA GPUs through NVML (libnvidia-ml.so.1, loaded at run time)",
    .flags = 0,
    .probe = nvml_probe,
    .open = nvml_open,
    .read = nvml_read,
    .close = nvml_close,
};
