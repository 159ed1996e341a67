/* mission: what a ground station or an onboard planner does with
 * libpowprof's layer 2. It loads the model of a results folder (what
 * `powprof profile` measured), predicts the computer's power at one
 * configuration with its 90 % band, and plans a mission: the best quality
 * of service the battery carries to the end with the motors' load beside.
 *
 *   cc mission.c $(pkg-config --cflags --libs powprof) -o mission
 *   ./mission results/quickstart 600 150 darknet.fps=4 matrix.sleep_s=0.5
 *
 * usage: mission RESULTS MISSION_S BASE_POWER_W [NAME=VALUE...]
 * (no NAME=VALUE: the plan only).
 */
#include <powprof.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 16

/* NAME=VALUE arguments: the configuration's predicted total power. */
static int predict(const pp_model *m, int argc, char **argv)
{
    const char *names[MAX_PARAMS], *values[MAX_PARAMS];
    pp_model_estimate e;

    if (argc > MAX_PARAMS)
        return 1;
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "mission: '%s': NAME=VALUE expected\n", argv[i]);
            return 1;
        }
        *eq = '\0';
        names[i] = argv[i];
        values[i] = eq + 1;
    }
    if (pp_model_estimate_at(m, "total_mean_w", (size_t)argc, names, values, 0, &e) < 0)
        return 1;
    printf("predicted %.3f W, 90 %% band %.3f to %.3f W, typical error %.1f %%%s\n", e.value,
           e.lo, e.hi, e.typical_error_pct, e.outside_measured ? " (outside the measured range)" : "");
    return 0;
}

static int plan(const pp_model *m, double mission_s, double base_w)
{
    pp_mission mission = {mission_s, NULL, -1.0, 0};
    pp_battery_params *b;
    pp_mission_plan p;
    int rc = 1;

    if (pp_battery_new(NULL, &b) < 0)
        return 1;
    if (pp_battery_set_base_power(b, base_w) == 0 && pp_mission_plan_best(m, b, &mission, &p) == 0) {
        printf("the computer may draw %.3f W throughout\n", p.max_power_w);
        if (p.feasible)
            printf("best: %s, quality %g, planned with %.3f W, %.1f %% charge left\n", p.settings,
                   p.quality, p.planned_w, 100.0 * p.soc_end_frac);
        else
            printf("nothing completes the mission\n");
        rc = 0;
    }
    pp_battery_close(b);
    return rc;
}

int main(int argc, char **argv)
{
    pp_model *m;
    int rc;

    if (argc < 4) {
        fprintf(stderr, "usage: mission RESULTS MISSION_S BASE_POWER_W [NAME=VALUE...]\n");
        return 2;
    }
    if (pp_model_open(argv[1], &m) < 0)
        return 1;
    rc = argc > 4 ? predict(m, argc - 4, argv + 4) : 0;
    if (rc == 0)
        rc = plan(m, atof(argv[2]), atof(argv[3]));
    pp_model_close(m);
    return rc;
}
