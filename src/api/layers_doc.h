/* layers_doc.h - the answers of `powprof layers profile|model|predict`:
 * what each command opens, decides and writes, and its documents (text
 * for a person, or one JSON value), built here so that the CLI only parses
 * and calls. Not thread-safe: each prints on stdout. */
#ifndef PP_API_LAYERS_DOC_H
#define PP_API_LAYERS_DOC_H

#include "src/dnn/layers_model.h"
#include "src/dnn/layers_profile.h"
#include "devices/device.h"
#include "battery/battery.h"

#include <jansson.h>
#include <stddef.h>

/* "416x416,320x240,256,own": input sizes into w[], h[] (at most cap; own:
 * 0x0, the cfg's own; W and H from 1 to 8192). How many, or -1. */
int pp_layers_sizes_parse(const char *arg, int *w, int *h, int cap);
/* A sampling rate: 0; -EINVAL (not a number, said by the caller);
 * -ERANGE (out of the sampler's range, logged). */
int pp_layers_rate_parse(const char *arg, double *hz);

/* layers profile: the cfgs (names or paths) resolved, rq->out_dir made,
 * the device opened, every network run (pp_layers_run) and a line per
 * network and size printed on stdout. 0; -errno (logged, or said into
 * why: cap bytes, "" when logged). */
int pp_layers_profile_answer(const pp_layers_run_request *rq, const char *device,
                             const pp_device_options *dev_opts, int n_cfgs, char *const *cfgs,
                             char *why, size_t cap);

/* layers model: the profiles of dirs[n] read, the model fitted and
 * evaluated (leave one network out), written to out; its errors printed
 * as text or, with json, one JSON object. 0 or -errno (logged). */
int pp_layers_model_build(int n, char *const *dirs, const char *out, int json);

/* The errors of networks left out (pp_layers_evaluate) of the model
 * written to path, as `layers model --json` prints them. */
json_t *pp_layers_eval_json(const pp_layers_eval *e, const char *path);

/* What `layers predict` is asked beyond the model and the networks. */
typedef struct pp_layers_predict_request {
    int width, height, json; /* 0x0: each cfg's own size */
    double fps;              /* > 0: the mean power at this rate */
    double mission_s;        /* > 0: the highest rate the battery carries it */
    double min_soc;          /* < 0: the battery's soc_cutoff */
    int risk_mean;           /* plan on the predicted cost, not its band's upper end */
    pp_battery_params battery;
} pp_layers_predict_request;

/* rq refused: -EINVAL, said into why (cap bytes); 0 when it holds. */
int pp_layers_predict_check(const pp_layers_predict_request *rq, char *why, size_t cap);
/* layers predict: the model read, each of cfgs[n] predicted: printed, or
 * with rq->json one JSON array on stdout. 0 or -errno (logged). */
int pp_layers_predict_print(const char *model_path, int n, char *const *cfgs,
                            const pp_layers_predict_request *rq);

#endif
