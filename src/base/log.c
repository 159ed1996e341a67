#include "log.h"

#include <pthread.h>
#include <stdio.h>

static pp_log_sink g_sink;
static void *g_sink_ctx;
static pp_log_level g_level = PP_LOG_INFO;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static _Thread_local char *t_hold_buf;
static _Thread_local size_t t_hold_cap;

static const char *const level_names[] = {"error", "warning", "info", "debug"};

void pp_log_set_sink(pp_log_sink sink, void *ctx)
{
    g_sink = sink;
    g_sink_ctx = ctx;
}

void pp_log_set_level(pp_log_level level) { g_level = level; }

void pp_log_hold_begin(char *buf, size_t cap)
{
    t_hold_buf = cap ? buf : NULL;
    t_hold_cap = cap;
    if (t_hold_buf)
        t_hold_buf[0] = '\0';
}

void pp_log_hold_end(void) { t_hold_buf = NULL; }

void pp_log_v(pp_log_level level, const char *fmt, va_list ap)
{
    char msg[1024];

    if (t_hold_buf) {
        if (!t_hold_buf[0]) /* the first says why; later ones follow from it */
            vsnprintf(t_hold_buf, t_hold_cap, fmt, ap);
        return;
    }
    if (level > g_level)
        return;
    vsnprintf(msg, sizeof msg, fmt, ap);
    pthread_mutex_lock(&g_lock);
    if (g_sink)
        g_sink(level, msg, g_sink_ctx);
    else if (level == PP_LOG_INFO)
        fprintf(stderr, "powprof: %s\n", msg);
    else
        fprintf(stderr, "powprof: %s: %s\n", level_names[level], msg);
    pthread_mutex_unlock(&g_lock);
}

void pp_log(pp_log_level level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pp_log_v(level, fmt, ap);
    va_end(ap);
}
