/* ulog_topics.h - the topics a ULog records (ulog_topics.c): each
 * subscription's name and instance, its messages and the time they span,
 * for `powprof ulog info` (what a log holds before it is imported, as
 * pyulog's ulog_info lists it). Kept apart from the reader (ulog.c), which
 * calls it, so that neither file needs the other's. */
#ifndef PP_ULOG_TOPICS_H
#define PP_ULOG_TOPICS_H

#include <stddef.h>
#include <stdint.h>

#define PP_ULOG_TOPIC_NAME_MAX 64

typedef struct pp_ulog_topic {
    char name[PP_ULOG_TOPIC_NAME_MAX]; /* cut to fit */
    int instance;                      /* multi_id */
    int timed;                         /* its format starts with "uint64_t timestamp" */
    size_t n;                          /* data messages */
    double t0_s, t1_s;                 /* the first and the last timestamp (timed only) */
} pp_ulog_topic;

typedef struct pp_ulog_topics {
    size_t n, cap;
    pp_ulog_topic *topic;
    int32_t *slot;                     /* msg_id -> topic + 1, 0 none (65536) */
} pp_ulog_topics;

/* A subscription ('A'): msg_id to the topic name (len bytes, not NUL-ended)
 * of instance multi; timed when its format begins with the timestamp. 0 or
 * -ENOMEM. */
int pp_ulog_topics_subscribe(pp_ulog_topics *t, unsigned msg_id, int multi, const char *name,
                             size_t len, int timed);

/* A data message of msg_id (its fields: len bytes at d, after the msg_id). */
void pp_ulog_topics_data(pp_ulog_topics *t, unsigned msg_id, const uint8_t *d, size_t len);

void pp_ulog_topics_free(pp_ulog_topics *t);

#endif
