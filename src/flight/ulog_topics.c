/* ulog_topics.c - the topics of a ULog (ulog_topics.h). */
#include "ulog_topics.h"

#include "src/base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pp_ulog_topics_subscribe(pp_ulog_topics *t, unsigned msg_id, int multi, const char *name,
                             size_t len, int timed)
{
    pp_ulog_topic *tp;

    if (msg_id > 65535)
        return 0;
    if (!t->slot && !(t->slot = calloc(65536, sizeof *t->slot)))
        return -ENOMEM;
    if (!(tp = pp_grow(t->topic, &t->cap, t->n, sizeof *tp, 64)))
        return -ENOMEM;
    t->topic = tp;
    tp = &t->topic[t->n];
    memset(tp, 0, sizeof *tp);
    len = len < sizeof tp->name - 1 ? len : sizeof tp->name - 1;
    memcpy(tp->name, name, len);
    tp->instance = multi;
    tp->timed = timed;
    t->slot[msg_id] = (int32_t)++t->n;
    return 0;
}

void pp_ulog_topics_data(pp_ulog_topics *t, unsigned msg_id, const uint8_t *d, size_t len)
{
    pp_ulog_topic *tp;
    uint64_t us = 0;

    if (!t->slot || msg_id > 65535 || t->slot[msg_id] == 0)
        return;
    tp = &t->topic[t->slot[msg_id] - 1];
    tp->n++;
    if (!tp->timed || len < 8)
        return;
    for (int i = 7; i >= 0; i--)
        us = us << 8 | d[i];
    if (tp->n == 1)
        tp->t0_s = (double)us / 1e6;
    tp->t1_s = (double)us / 1e6;
}

void pp_ulog_topics_free(pp_ulog_topics *t)
{
    free(t->topic);
    free(t->slot);
    memset(t, 0, sizeof *t);
}
