/* Networks never run, planned in the place of a measured one (issue 14,
 * `powprof plan --layer-model --measured --network`): how close the swap
 * rule of src/dnn/layers_plan.h comes to what the swapped network measures when
 * it really runs, against the measured network's own surface taken as it is
 * (the baseline), in the same run.
 *
 * 1. The same profile three times, darknet at 0.5 to 4 fps beside a CPU
 *    matrix multiplication: once with yolov3-tiny (M, the one measured),
 *    then with yolov2-tiny and tiny, whose runs are only the answers.
 * 2. A layer model fitted on networks that leave both answers out
 *    (yolov3-tiny, yolov1-tiny, darknet, extraction at 224, 320 and 416).
 * 3. For each answer row: the swap's prediction from M's surface and the
 *    layer model (power with its band, achieved rate), against the row.
 *    Rows whose rate asks M for a rate it was never measured at are left
 *    out, as the plan leaves them out.
 *
 * On a machine without power sensors the powers are the procstat
 * estimate, a function of CPU use: there the power half of the check says
 * little beyond the rates. Environment: POWPROF_BIN; POWPROF_SWAP_DATA=DIR
 * evaluates an earlier run's folder again.
 */
#include "util.h"

#include "src/dnn/layers_plan.h"
#include "src/dnn/layers_profile.h"
#include "src/dnn/layers_json.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const nets[] = {"yolov3-tiny", "yolov2-tiny", "tiny"}; /* M first */

/* Profile network net into dir/r-net. */
static int profile(const char *bin, const char *dir, const char *net)
{
    char cfg[600], out[600];
    FILE *fp;

    snprintf(cfg, sizeof cfg, "%s/%s.cfg", dir, net);
    snprintf(out, sizeof out, "%s/r-%s", dir, net);
    if (!(fp = fopen(cfg, "w")))
        return -1;
    fprintf(fp, "profile = { name = \"swap-%s\"; device = \"auto\"; rate_hz = 20.0; };\n"
                "components = (\n"
                "  { name = \"matrix\"; type = \"matrix-cpu\"; op = \"multiply\";\n"
                "    params = { size = 384; sleep_s = 0.05; threads = 1; }; duration_s = 6.0; },\n"
                "  { name = \"det\"; type = \"darknet\"; cfg = \"%s\";\n"
                "    params = { fps = [ 0.5, 1.0, 2.0, 3.0, 4.0 ]; }; duration_s = 6.0; }\n"
                ");\n", net, net);
    fclose(fp);
    return pp_bench_run_quiet((char *[]){(char *)bin, "profile", cfg, "-o", out, "--yes", NULL});
}

static int layer_model(const char *bin, const char *dir)
{
    char lp[600], lm[600];

    snprintf(lp, sizeof lp, "%s/lp", dir);
    snprintf(lm, sizeof lm, "%s/lm.json", dir);
    if (pp_bench_run_quiet((char *[]){(char *)bin, "layers", "profile", "yolov3-tiny", "yolov1-tiny", "darknet",
                       "extraction", "--sizes", "224,320,416", "--frames", "3", "--idle-s", "1",
                       "-o", lp, NULL}) < 0)
        return -1;
    return pp_bench_run_quiet((char *[]){(char *)bin, "layers", "model", lp, "-o", lm, NULL});
}

typedef struct tally {
    double swap_w, base_w, swap_fps, base_fps; /* sums of absolute relative errors */
    size_t n, in_band;
} tally;

/* Every row of network n's own run against the swap's prediction. */
static int compare(const pp_model *m, const pp_layers_swap *s, const char *dir, const char *n,
                   tally *t)
{
    int w = pp_summary_metric(&m->sum, "total_mean_w"), a = pp_summary_metric(&m->sum, "det.achieved_fps");
    int k = pp_summary_param(&m->sum, "det.fps"), nw, na;
    char path[600];
    pp_summary sn;

    snprintf(path, sizeof path, "%s/r-%s", dir, n);
    if (w < 0 || a < 0 || k < 0 || pp_summary_read(path, &sn) < 0)
        return -1;
    nw = pp_summary_metric(&sn, "total_mean_w");
    na = pp_summary_metric(&sn, "det.achieved_fps");
    printf("\n%s in place of %s (k = %.3f):\n  %-5s %-24s%-10s%-15s%-10s%s\n", n, nets[0],
           s->time_ratio, "fps", "power: swap [band]", "measured", "achieved", "measured",
           "(M as is: power, achieved)");
    for (size_t i = 0; i < sn.n_rows; i++) {
        pp_plan_choice c = {0}, base = {0};
        double mw = sn.y[i * sn.n_metrics + (size_t)nw], ma = sn.y[i * sn.n_metrics + (size_t)na];

        memcpy(c.point.raw, sn.x + i * sn.n_params, sn.n_params * sizeof(double));
        base.point = c.point;
        if (pp_layers_swap_predict((void *)s, m, (size_t)w, a, (size_t)k, &c) != 0 ||
            pp_plan_predict_at(m, (size_t)w, a, &base.point, &base.power, &base.achieved) != 0) {
            printf("  %-5g asks %s for %.2f fps: outside its measured rates\n", c.point.raw[k],
                   nets[0], s->time_ratio * c.point.raw[k]);
            continue;
        }
        printf("  %-5g %.3f W [%.3f, %.3f]  %.3f W   %.2f fps       %.2f fps  (%.3f W, %.2f fps)\n",
               c.point.raw[k], c.power.value, c.power.lo, c.power.hi, mw, c.achieved.value, ma,
               base.power.value, base.achieved.value);
        t->swap_w += fabs(c.power.value - mw) / mw;
        t->base_w += fabs(base.power.value - mw) / mw;
        t->swap_fps += fabs(c.achieved.value - ma) / ma;
        t->base_fps += fabs(base.achieved.value - ma) / ma;
        t->in_band += mw >= c.power.lo && mw <= c.power.hi;
        t->n++;
    }
    pp_summary_free(&sn);
    return 0;
}

static int evaluate(const char *dir)
{
    char path[600], cfg[3][4096];
    pp_layer_model *lm = malloc(sizeof *lm);
    pp_layers_swap s;
    pp_model_options mo;
    pp_model m;
    tally t = {0};
    int rc = lm ? 0 : -1;

    snprintf(path, sizeof path, "%s/lm.json", dir);
    for (size_t i = 0; i < 3 && rc == 0; i++)
        rc = pp_layers_resolve_cfg(nets[i], cfg[i], sizeof cfg[i]);
    if (rc < 0 || pp_layer_model_read(path, lm) < 0) {
        free(lm);
        return 1;
    }
    pp_model_options_init(&mo);
    snprintf(path, sizeof path, "%s/r-%s", dir, nets[0]);
    if (pp_model_read(path, &mo, 0, &m) < 0) {
        free(lm);
        return 1;
    }
    for (size_t i = 1; i < 3 && rc == 0; i++)
        if ((rc = pp_layers_swap_init(lm, cfg[0], cfg[i], &s)) == 0)
            rc = compare(&m, &s, dir, nets[i], &t);
    if (rc == 0 && t.n)
        printf("\nover %zu rows: power MAPE %.1f %% (M as is %.1f %%, ratio %.2f), achieved rate "
               "MAPE %.1f %% (M as is %.1f %%, ratio %.2f); %zu of %zu measured powers inside "
               "the 90 %% band\n", t.n, 100 * t.swap_w / t.n, 100 * t.base_w / t.n,
               t.swap_w / t.base_w, 100 * t.swap_fps / t.n, 100 * t.base_fps / t.n,
               t.swap_fps / t.base_fps, t.in_band, t.n);
    pp_model_free(&m);
    free(lm);
    return rc == 0 ? 0 : 1;
}

int main(void)
{
    const char *bin = getenv("POWPROF_BIN"), *data = getenv("POWPROF_SWAP_DATA");
    static char dir[] = "/tmp/powprof-bench-swap-XXXXXX";

    bin = bin ? bin : "build/powprof";
    if (data)
        return evaluate(data);
    if (access("/usr/share/darknet/cfg/yolov3-tiny.cfg", R_OK) != 0 || !mkdtemp(dir)) {
        printf("swap: skipped (darknet's cfgs are not installed: apt-get install darknet)\n");
        return 0;
    }
    printf("networks swapped in by a layer model: profiles of %s, %s and %s, and a layer model "
           "without the last two, into %s\n", nets[0], nets[1], nets[2], dir);
    for (size_t i = 0; i < 3; i++)
        if (profile(bin, dir, nets[i]) < 0) {
            printf("  the profile of %s failed (is the darknet module built?)\n", nets[i]);
            return 1;
        }
    if (layer_model(bin, dir) < 0) {
        printf("  the layer model failed\n");
        return 1;
    }
    return evaluate(dir);
}
