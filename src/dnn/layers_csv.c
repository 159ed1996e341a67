/* layers.csv and networks.csv (src/dnn/layers_profile.h): writing. */
#include "layers_profile.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char pp_layers_csv_header[] =
    "network,width,height,layer,type,line,in_w,in_h,in_c,out_w,out_h,out_c,filters,size,"
    "stride,groups,batch_normalize,activation,flops,param_bytes,in_bytes,out_bytes,time_s,"
    "time_median_s,time_iqr_s,cpu_s,cpu_median_s,cpu_iqr_s,energy_j,energy_median_j,"
    "energy_iqr_j,frames,estimated";
const char pp_networks_csv_header[] =
    "network,width,height,layers,flops,frames,time_s,time_median_s,time_iqr_s,cpu_s,cpu_median_s,"
    "energy_j,layers_time_s,layers_cpu_s,layers_energy_j,layers_vs_whole_frac,idle_w,device,"
    "estimated,profile_s";

int pp_layers_name_ok(const char *name)
{
    size_t n = strlen(name);

    if (n == 0 || n > 63)
        return 0;
    for (; *name; name++)
        if (!((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') ||
              (*name >= '0' && *name <= '9') || strchr("_.-+", *name)))
            return 0;
    return 1;
}

static void write_layer(FILE *fp, const pp_layers_result *r, size_t i)
{
    const pp_network_desc *d = r->desc;
    const pp_layer_desc *l = &d->layers[i];
    const pp_layer_measure *m = &r->layer[i];

    fprintf(fp, "%s,%d,%d,%zu,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%.17g,%.17g,%.17g,%.17g,",
            d->name, d->width, d->height, i, pp_layer_kind_name(l->kind), l->line, l->in_w,
            l->in_h, l->in_c, l->out_w, l->out_h, l->out_c, l->filters, l->size, l->stride,
            l->groups, l->batch_normalize, l->activation[0] ? l->activation : "-", l->flops,
            l->param_bytes, l->in_bytes, l->out_bytes);
    fprintf(fp, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%d\n", m->time_s,
            m->time_median_s, m->time_iqr_s, m->cpu_s, m->cpu_median_s, m->cpu_iqr_s,
            m->energy_j, m->energy_median_j, m->energy_iqr_j, r->n_frames, r->estimated);
}

static void write_network(FILE *fp, const pp_layers_result *r)
{
    const pp_network_desc *d = r->desc;

    fprintf(fp, "%s,%d,%d,%zu,%.17g,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6f,%.6g,%s,"
                "%d,%.3f\n",
            d->name, d->width, d->height, d->n, d->flops, r->n_frames, r->whole.time_s,
            r->whole.time_median_s, r->whole.time_iqr_s, r->whole.cpu_s, r->whole.cpu_median_s,
            r->whole.energy_j, r->layers_sum.time_s,
            r->layers_sum.cpu_s, r->layers_sum.energy_j,
            r->layers_sum.time_s / r->whole.time_s - 1.0, r->idle_w, r->device, r->estimated,
            r->profile_s);
}

/* dir/name replaced by header and the rows of every result. */
static int write_file(const char *dir, const char *name, const char *header,
                      const pp_layers_result *r, size_t n, int layers)
{
    pp_atomic_file af;
    char path[PP_PATH_MAX];
    int rc;

    if (pp_path_join(path, sizeof path, dir, name) < 0) {
        pp_log_error("%s: path too long", dir);
        return -ENAMETOOLONG;
    }
    if ((rc = pp_atomic_file_open(&af, path)) < 0)
        return rc;
    fprintf(af.fp, "%s\n", header);
    for (size_t k = 0; k < n; k++) {
        if (!layers)
            write_network(af.fp, &r[k]);
        for (size_t i = 0; layers && i < r[k].desc->n; i++)
            write_layer(af.fp, &r[k], i);
    }
    return pp_atomic_file_commit(&af);
}

int pp_layers_write(const char *dir, const pp_layers_result *r, size_t n)
{
    int rc = write_file(dir, "layers.csv", pp_layers_csv_header, r, n, 1);

    return rc < 0 ? rc : write_file(dir, "networks.csv", pp_networks_csv_header, r, n, 0);
}
