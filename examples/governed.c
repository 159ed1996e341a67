/* governed: a program on a companion computer that sets its own frame rate
 * from libpowprof's in-flight governor. Each reading of the battery (a
 * line "t_s soc_frac" or "t_s voltage_v current_a", as a MAVLink or ROS
 * bridge would pass them on) updates the governor; the program then runs
 * its frames at the rate the decision says until the next reading, and
 * says when the rate changes and why.
 *
 *   cc governed.c $(pkg-config --cflags --libs powprof) -o governed
 *   ./governed results/tx2 mission.cfg readings.txt    (or - for stdin)
 *
 * usage: governed RESULTS MISSION_FILE READINGS
 * The battery: MISSION_FILE's battery group when it has one, else the
 * default pack (powprof/battery.h).
 */
#include <powprof.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The work of one frame at the current rate (here: nothing but a count). */
static void run_frames(double rate_hz, double seconds, double *frames)
{
    *frames += rate_hz * seconds;
}

/* One line into r: 0, or -1 when it is not a reading. */
static int parse(const char *line, pp_governor_reading *r)
{
    double x[3];
    int n = sscanf(line, "%lf %lf %lf", &x[0], &x[1], &x[2]);

    r->soc_frac = r->voltage_v = r->current_a = NAN;
    r->phase = -1;
    r->t_s = x[0];
    if (n == 2)
        r->soc_frac = x[1];
    else if (n == 3) {
        r->voltage_v = x[1];
        r->current_a = x[2];
    }
    return n == 2 || n == 3 ? 0 : -1;
}

static int fly(pp_governor *g, FILE *in)
{
    pp_governor_reading r;
    pp_governor_decision d;
    double rate = 0, last_t = 0, frames = 0;
    char line[512];

    while (fgets(line, sizeof line, in)) {
        if (parse(line, &r) < 0 || pp_governor_update(g, &r, &d) < 0) {
            fprintf(stderr, "governed: reading refused: %s", line);
            continue;
        }
        run_frames(rate, r.t_s - last_t, &frames);
        last_t = r.t_s;
        if (d.changed || rate == 0)
            printf("t %.1f s, phase %s: rate %.3g (%s; charge %.1f %% from %s)%s\n", d.t_s,
                   d.phase_name, d.value, d.why, 100 * d.soc_frac, d.soc_source,
                   d.feasible ? "" : ": the rest cannot keep the reserve, tell the autopilot");
        rate = d.value;
    }
    printf("%.0f frames in %.1f s\n", frames, last_t);
    return 0;
}

int main(int argc, char **argv)
{
    pp_governor_options o;
    pp_battery_params *b;
    pp_governor *g;
    pp_model *m;
    FILE *in;
    int rc = 1;

    if (argc != 4) {
        fprintf(stderr, "usage: governed RESULTS MISSION_FILE READINGS\n");
        return 2;
    }
    if (pp_model_open(argv[1], &m) < 0)
        return 1;
    if (pp_battery_new(argv[2], &b) < 0 && pp_battery_new(NULL, &b) < 0) {
        pp_model_close(m);
        return 1;
    }
    pp_governor_options_init(&o);
    o.mission_file = argv[2];
    in = strcmp(argv[3], "-") == 0 ? stdin : fopen(argv[3], "r");
    if (in && pp_governor_new(m, b, &o, &g) == 0) {
        rc = fly(g, in);
        pp_governor_close(g);
    }
    if (in && in != stdin)
        fclose(in);
    pp_battery_close(b);
    pp_model_close(m);
    return rc;
}
