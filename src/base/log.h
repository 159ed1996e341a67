/* log.h - the one logger of powprof.
 *
 * Library code reports what went wrong through pp_log_*() and returns a
 * negative errno value; it never prints results. Messages go to stderr as
 * "powprof: error: ..." unless a sink is installed (tests capture them).
 */
#ifndef PP_LOG_H
#define PP_LOG_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pp_log_level {
    PP_LOG_ERROR = 0,
    PP_LOG_WARN = 1,
    PP_LOG_INFO = 2,
    PP_LOG_DEBUG = 3
} pp_log_level;

/* A sink receives every message at or below the current level, already
 * formatted, without a trailing newline. ctx is the pointer given to
 * pp_log_set_sink(). */
typedef void (*pp_log_sink)(pp_log_level level, const char *msg, void *ctx);

/* Install a sink (NULL restores the default stderr sink). Not thread-safe:
 * call before threads start. */
void pp_log_set_sink(pp_log_sink sink, void *ctx);

/* Messages more verbose than level are dropped. Default: PP_LOG_INFO. */
void pp_log_set_level(pp_log_level level);

/* Hold back this thread's messages: until pp_log_hold_end(), each message
 * logged on the calling thread is formatted into buf (cap bytes, the first
 * one kept) instead of reaching the sink, so that a caller that retries
 * (the sampler) can report a failure once, in its own words. Other threads
 * log as usual. Not nestable. */
void pp_log_hold_begin(char *buf, size_t cap);
void pp_log_hold_end(void);

void pp_log(pp_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void pp_log_v(pp_log_level level, const char *fmt, va_list ap);

#define pp_log_error(...) pp_log(PP_LOG_ERROR, __VA_ARGS__)
#define pp_log_warn(...) pp_log(PP_LOG_WARN, __VA_ARGS__)
#define pp_log_info(...) pp_log(PP_LOG_INFO, __VA_ARGS__)
#define pp_log_debug(...) pp_log(PP_LOG_DEBUG, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif
