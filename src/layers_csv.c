/* layers.csv and networks.csv (src/layers_profile.h): writing. */
#include "layers_profile.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char pp_layers_csv_header[] =
    "network,width,height,layer,type,line,in_w,in_h,in_c,out_w,out_h,out_c,filters,size,"
    "stride,groups,batch_normalize,activation,flops,param_bytes,in_bytes,out_bytes,time_s,"
    "time_iqr_s,cpu_s,cpu_iqr_s,energy_j,energy_iqr_j,frames,estimated";
const char pp_networks_csv_header[] =
    "network,width,height,layers,flops,frames,time_s,time_iqr_s,cpu_s,energy_j,layers_time_s,"
    "layers_cpu_s,layers_energy_j,layers_vs_whole_frac,idle_w,device,estimated,profile_s";

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

/* path opened for appending; written with header when new or empty, an
 * error when it starts with another header. */
static FILE *open_csv(const char *path, const char *header)
{
    char first[1024] = "";
    FILE *fp = fopen(path, "a+");

    if (!fp) {
        pp_log_error("%s: %s", path, strerror(errno));
        return NULL;
    }
    rewind(fp);
    if (fgets(first, sizeof first, fp)) {
        first[strcspn(first, "\r\n")] = '\0';
        if (strcmp(first, header) != 0) {
            pp_log_error("%s:1: not a file of this kind (its header is '%.200s'; expected "
                         "'%.200s'): choose another folder", path, first, header);
            fclose(fp);
            return NULL;
        }
    } else {
        fprintf(fp, "%s\n", header);
    }
    fseek(fp, 0, SEEK_END);
    return fp;
}

static int close_csv(FILE *fp, const char *path)
{
    int rc = 0;

    if (fflush(fp) != 0 || fsync(fileno(fp)) != 0 || ferror(fp))
        rc = -errno ? -errno : -EIO;
    if (fclose(fp) != 0 && rc == 0)
        rc = -errno;
    if (rc < 0)
        pp_log_error("%s: cannot write: %s", path, strerror(-rc));
    return rc;
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
    fprintf(fp, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%d\n", m->time_s, m->time_iqr_s, m->cpu_s,
            m->cpu_iqr_s, m->energy_j, m->energy_iqr_j, r->n_frames, r->estimated);
}

int pp_layers_write(const char *dir, const pp_layers_result *r)
{
    char lpath[4096], npath[4096];
    const pp_network_desc *d = r->desc;
    FILE *fp;
    int rc;

    if (pp_path_join(lpath, sizeof lpath, dir, "layers.csv") < 0 ||
        pp_path_join(npath, sizeof npath, dir, "networks.csv") < 0) {
        pp_log_error("%s: path too long", dir);
        return -ENAMETOOLONG;
    }
    if (!(fp = open_csv(lpath, pp_layers_csv_header)))
        return -EINVAL;
    for (size_t i = 0; i < d->n; i++)
        write_layer(fp, r, i);
    if ((rc = close_csv(fp, lpath)) < 0)
        return rc;
    if (!(fp = open_csv(npath, pp_networks_csv_header)))
        return -EINVAL;
    fprintf(fp, "%s,%d,%d,%zu,%.17g,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6f,%.6g,%s,%d,%.3f\n",
            d->name, d->width, d->height, d->n, d->flops, r->n_frames, r->whole.time_s,
            r->whole.time_iqr_s, r->whole.cpu_s, r->whole.energy_j, r->layers_sum.time_s,
            r->layers_sum.cpu_s, r->layers_sum.energy_j,
            r->layers_sum.time_s / r->whole.time_s - 1.0, r->idle_w, r->device, r->estimated,
            r->profile_s);
    return close_csv(fp, npath);
}
