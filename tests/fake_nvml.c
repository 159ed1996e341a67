/* A stand-in for libnvidia-ml.so.1 with the symbols devices/nvml.c loads:
 * FAKE_NVML_GPUS GPUs (default 2), GPU i drawing FAKE_NVML_MW + 1000 i mW
 * (default 50000), nvmlInit failing when FAKE_NVML_INIT_FAIL is set. */
#include <stdio.h>
#include <stdlib.h>

typedef struct nvml_device_st *nvml_device;

static unsigned env_u(const char *name, unsigned dflt)
{
    const char *v = getenv(name);
    return v ? (unsigned)strtoul(v, NULL, 10) : dflt;
}

int nvmlInit_v2(void);
int nvmlInit_v2(void) { return getenv("FAKE_NVML_INIT_FAIL") ? 9 : 0; }
int nvmlShutdown(void);
int nvmlShutdown(void) { return 0; }
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetCount_v2(unsigned int *n)
{
    *n = env_u("FAKE_NVML_GPUS", 2);
    return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvml_device *d);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvml_device *d)
{
    *d = (nvml_device)(size_t)(i + 1);
    return 0;
}
int nvmlDeviceGetPowerUsage(nvml_device d, unsigned int *mw);
int nvmlDeviceGetPowerUsage(nvml_device d, unsigned int *mw)
{
    *mw = env_u("FAKE_NVML_MW", 50000) + 1000u * (unsigned)((size_t)d - 1);
    return 0;
}
int nvmlDeviceGetName(nvml_device d, char *buf, unsigned int len);
int nvmlDeviceGetName(nvml_device d, char *buf, unsigned int len)
{
    snprintf(buf, len, "Fake GPU %zu", (size_t)d - 1);
    return 0;
}
const char *nvmlErrorString(int r);
const char *nvmlErrorString(int r) { return r == 9 ? "Driver Not Loaded" : "Unknown Error"; }
