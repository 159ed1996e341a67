/* handle.h - the handles the public API gives out, each registered with its
 * kind while it lives, so that every entry point refuses, with a message
 * naming the function, a handle of another kind (a pp_battery_params given
 * as a pp_model), a closed one or NULL, before it reads through it: a C
 * caller who swaps two arguments gets -EBADF, not a crash. The registry is
 * guarded by a mutex: it may be used from several threads. */
#ifndef PP_API_HANDLE_H
#define PP_API_HANDLE_H

typedef enum pp_handle_kind {
    PP_HANDLE_MODEL = 1,
    PP_HANDLE_BATTERY,
    PP_HANDLE_TRACE,
    PP_HANDLE_GOVERNOR,
    PP_HANDLE_METER,
} pp_handle_kind;

/* h, just made, as a live handle of kind: 0 or -ENOMEM (then free h). */
int pp_handle_add(const void *h, pp_handle_kind kind);

/* 0 when h is a live handle of kind; else -EBADF, logged as "fn: ...". */
int pp_handle_check(const void *h, pp_handle_kind kind, const char *fn);

/* pp_handle_check, then h no longer live: 0 (free h now) or -EBADF
 * (logged: h is not to be freed). NULL gives 1 (nothing to free). */
int pp_handle_remove(const void *h, pp_handle_kind kind, const char *fn);

/* In an entry point: return ret unless h is a live handle of kind. */
#define PP_HANDLE_OR(h, kind, ret)                                                                \
    do {                                                                                          \
        if (pp_handle_check((h), (kind), __func__) < 0)                                           \
            return ret;                                                                           \
    } while (0)

#endif
