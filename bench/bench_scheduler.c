/* Scheduler benchmark (issue 3): the darknet harness (the component run by
 * the scheduler, unpaced) against a bare network_predict loop on the same
 * cfg and frame, and the scheduler's cost per step on a tiny matrix against
 * a bare cblas_sgemm loop, in the same run. Target: harness overhead per
 * frame at most 1 %. Runs alternate (bare, harness, bare, harness) and the
 * best of each is kept, as this machine is shared. */
#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/sweep/scheduler.h"

#include <cblas.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef PP_HAVE_DARKNET
#include <darknet.h>
#endif

static double now_s(void) { return pp_ns_to_s(pp_clock_now_ns(&pp_clock_monotonic)); }

static double harness_s(pp_component_spec *spec, double *values)
{
    pp_scheduled s;
    pp_run_result r;
    double t0;

    if (pp_scheduled_setup(&s, spec, values, NULL, NULL, NULL, &r) < 0) {
        fprintf(stderr, "setup failed: %s\n", r.reason);
        exit(1);
    }
    t0 = now_s();
    pp_scheduled_run(&s, &r);
    t0 = now_s() - t0;
    pp_scheduled_teardown(&s);
    return t0;
}

#ifdef PP_HAVE_DARKNET
static double bare_darknet_s(int frames)
{
    int null_fd = open("/dev/null", O_WRONLY), saved = dup(2);
    network *net;
    image im, boxed;
    double t0;

    dup2(null_fd, 2);
    net = load_network("/usr/share/darknet/cfg/yolov3-tiny.cfg", NULL, 0);
    dup2(saved, 2);
    close(saved);
    close(null_fd);
    set_batch_network(net, 1);
    im = load_image_color("/usr/share/darknet/data/dog.jpg", 0, 0);
    boxed = letterbox_image(im, network_width(net), network_height(net));
    t0 = now_s();
    for (int i = 0; i < frames; i++)
        network_predict(net, boxed.data);
    t0 = now_s() - t0;
    free_image(im);
    free_image(boxed);
    free_network(net);
    return t0;
}
#endif

static double bare_sgemm_s(int n, long steps)
{
    float *a = calloc((size_t)n * n, sizeof *a), *b = calloc((size_t)n * n, sizeof *b),
          *c = calloc((size_t)n * n, sizeof *c);
    double t0 = now_s();

    for (long i = 0; i < steps; i++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c,
                    n);
    t0 = now_s() - t0;
    free(a);
    free(b);
    free(c);
    return t0;
}

int main(void)
{
    pp_component_spec *sp = calloc(1, sizeof *sp); /* large: on the heap */
    const char *op = "multiply", *cfg = "yolov3-tiny";
    double values[3] = {8, 1, 1};
    long steps = 200000;
    double best_bare = 1e30, best_h = 1e30;

    pp_log_set_level(PP_LOG_ERROR);
    /* a tiny matrix: what the scheduler adds to each step */
    if (!sp)
        return 1;
    strcpy(sp->name, "m");
    strcpy(sp->type, "matrix-cpu");
    pp_component_spec_set(sp, "op", PP_KEY_STRING, &op, 1, 0);
    sp->n_params = 3;
    strcpy(sp->params[0].name, "size");
    strcpy(sp->params[1].name, "exponent");
    strcpy(sp->params[2].name, "threads");
    sp->until = PP_UNTIL_ITERATIONS;
    sp->iterations = steps;
    for (int rep = 0; rep < 3; rep++) {
        double b = bare_sgemm_s(8, steps), h = harness_s(sp, values);
        best_bare = b < best_bare ? b : best_bare;
        best_h = h < best_h ? h : best_h;
    }
    printf("tiny matrix (8x8 sgemm), %ld steps: bare %.1f ns/step, scheduler %.1f ns/step, "
           "cost of the scheduler %.1f ns/step\n",
           steps, best_bare / steps * 1e9, best_h / steps * 1e9, (best_h - best_bare) / steps * 1e9);
#ifdef PP_HAVE_DARKNET
    {
        int frames = 12;
        char dir[] = "/tmp/powprof-bench-frames.XXXXXX";
        const char *images = dir;
        memset(sp, 0, sizeof *sp);
        strcpy(sp->name, "darknet");
        strcpy(sp->type, "darknet");
        pp_component_spec_set(sp, "cfg", PP_KEY_STRING, &cfg, 1, 0);
        /* the same single frame as the bare loop */
        {
            char link[128];
            if (!mkdtemp(dir))
                return 1;
            snprintf(link, sizeof link, "%s/dog.jpg", dir);
            if (symlink("/usr/share/darknet/data/dog.jpg", link) != 0)
                return 1;
            pp_component_spec_set(sp, "images", PP_KEY_STRING, &images, 1, 0);
        }
        sp->until = PP_UNTIL_ITERATIONS;
        sp->iterations = frames;
        best_bare = best_h = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double b = bare_darknet_s(frames), h = harness_s(sp, values);
            best_bare = b < best_bare ? b : best_bare;
            best_h = h < best_h ? h : best_h;
        }
        printf("darknet yolov3-tiny, %d frames: bare network_predict %.2f ms/frame, harness %.2f "
               "ms/frame, overhead %+.2f%% (target <= 1%%)\n",
               frames, best_bare / frames * 1e3, best_h / frames * 1e3,
               100.0 * (best_h - best_bare) / best_bare);
        {
            char link[300];
            snprintf(link, sizeof link, "%s/dog.jpg", dir);
            unlink(link);
            rmdir(dir);
        }
    }
#else
    printf("darknet: not built (no darknet.h)\n");
#endif
    free(sp);
    return 0;
}
