/* handle.c - the live handles of the public API, in a binary tree (POSIX
 * tsearch) of (address, kind), under one mutex. */
#include "handle.h"

#include "include/powprof/battery.h"
#include "include/powprof/governor.h"
#include "include/powprof/meter.h"
#include "include/powprof/model.h"
#include "include/powprof/plan.h"
#include "src/base/log.h"

#include <errno.h>
#include <pthread.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct live_handle {
    const void *h;
    pp_handle_kind kind;
} live_handle;

static void *live;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const live_handle *)a)->h, y = (uintptr_t)((const live_handle *)b)->h;

    return (x > y) - (x < y);
}

static const char *kind_name(pp_handle_kind kind)
{
    static const char *const names[] = {"?", "pp_model", "pp_battery_params", "pp_trace",
                                        "pp_governor", "pp_meter"};

    return kind >= PP_HANDLE_MODEL && kind <= PP_HANDLE_METER ? names[kind] : names[0];
}

int pp_handle_add(const void *h, pp_handle_kind kind)
{
    live_handle *e = malloc(sizeof *e);
    void *node;

    if (!e)
        return -ENOMEM;
    *e = (live_handle){h, kind};
    pthread_mutex_lock(&lock);
    node = tsearch(e, &live, by_address);
    pthread_mutex_unlock(&lock);
    if (!node || *(live_handle **)node != e) { /* no memory, or h registered twice (never) */
        free(e);
        return -ENOMEM;
    }
    return 0;
}

/* The entry of h, or NULL; under the lock. */
static live_handle *find(const void *h)
{
    live_handle key = {h, 0};
    void *node = tfind(&key, &live, by_address);

    return node ? *(live_handle **)node : NULL;
}

/* 0 when e is h's entry of kind; else -EBADF, logged. */
static int refuse_unless(const live_handle *e, const void *h, pp_handle_kind kind, const char *fn)
{
    if (e && e->kind == kind)
        return 0;
    if (!h)
        pp_log_error("%s: a %s expected, not NULL", fn, kind_name(kind));
    else if (e)
        pp_log_error("%s: a %s expected, not a %s (arguments swapped?)", fn, kind_name(kind),
                     kind_name(e->kind));
    else
        pp_log_error("%s: a %s expected: this handle is closed (or was never one)", fn,
                     kind_name(kind));
    return -EBADF;
}

int pp_handle_check(const void *h, pp_handle_kind kind, const char *fn)
{
    int rc;

    pthread_mutex_lock(&lock);
    rc = refuse_unless(find(h), h, kind, fn);
    pthread_mutex_unlock(&lock);
    return rc;
}

int pp_handle_remove(const void *h, pp_handle_kind kind, const char *fn)
{
    live_handle *e;
    int rc;

    if (!h)
        return 1;
    pthread_mutex_lock(&lock);
    e = find(h);
    if ((rc = refuse_unless(e, h, kind, fn)) == 0)
        tdelete(e, &live, by_address);
    pthread_mutex_unlock(&lock);
    if (rc == 0)
        free(e);
    return rc;
}

size_t pp_struct_size(const char *name)
{
    static const struct {
        const char *name;
        size_t size;
    } sizes[] = {{"pp_battery_summary", sizeof(pp_battery_summary)},
                 {"pp_governor_options", sizeof(pp_governor_options)},
                 {"pp_governor_reading", sizeof(pp_governor_reading)},
                 {"pp_governor_decision", sizeof(pp_governor_decision)},
                 {"pp_meter_report", sizeof(pp_meter_report)},
                 {"pp_model_estimate", sizeof(pp_model_estimate)},
                 {"pp_mission", sizeof(pp_mission)},
                 {"pp_mission_plan", sizeof(pp_mission_plan)}};

    for (size_t k = 0; name && k < sizeof sizes / sizeof sizes[0]; k++)
        if (strcmp(sizes[k].name, name) == 0)
            return sizes[k].size;
    return 0;
}
