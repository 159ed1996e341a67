#include "node.h"

#include "src/base/log.h"
#include "src/base/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Bytes outside printable ASCII become '?' (the text goes into JSON). */
static void printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            *s = '?';
}

/* ROOT/rel into buf (trailing blanks and NULs gone); 0 when there and not
 * empty. */
static int read_under(const char *root, const char *rel, char *buf, size_t cap)
{
    char path[PP_PATH_MAX];

    if (pp_path_join(path, sizeof path, root, rel) < 0)
        return -ENAMETOOLONG;
    return pp_read_small_file(path, buf, cap) > 0 && buf[0] ? 0 : -ENOENT;
}

/* The board model: the device tree's, else DMI's vendor and product. */
static void board_model(const char *root, pp_node *n)
{
    char vendor[128], product[128];

    n->model_from = "none";
    n->model[0] = '\0';
    if (read_under(root, "proc/device-tree/model", n->model, sizeof n->model) == 0) {
        n->model_from = "device-tree";
        return;
    }
    if (read_under(root, "sys/class/dmi/id/product_name", product, sizeof product) == 0) {
        if (read_under(root, "sys/class/dmi/id/sys_vendor", vendor, sizeof vendor) == 0)
            pp_text(n->model, sizeof n->model, "%s %s", vendor, product);
        else
            pp_text(n->model, sizeof n->model, "%s", product);
        n->model_from = "dmi";
    }
}

int pp_node_identify(const char *root, const char *name_override, pp_node *n)
{
    struct utsname u;
    const char *r = root && root[0] ? root : "/";

    memset(n, 0, sizeof *n);
    memset(&u, 0, sizeof u);
    uname(&u);
    if (read_under(r, "proc/sys/kernel/hostname", n->hostname, sizeof n->hostname) < 0 &&
        gethostname(n->hostname, sizeof n->hostname - 1) != 0)
        pp_text(n->hostname, sizeof n->hostname, "localhost");
    if (read_under(r, "proc/sys/kernel/osrelease", n->kernel, sizeof n->kernel) < 0)
        pp_text(n->kernel, sizeof n->kernel, "%s", u.release);
    pp_text(n->machine, sizeof n->machine, "%s", u.machine);
    board_model(r, n);
    printable(n->hostname);
    printable(n->kernel);
    printable(n->model);
    if (name_override) /* the whole name checked: never cut (two boards would become one) */
        return pp_name_check(name_override, "--node") < 0 ? -EINVAL
                                                          : pp_strlcpy(n->name, name_override,
                                                                       sizeof n->name);
    if (pp_fmt(n->name, sizeof n->name, "%.*s", (int)strcspn(n->hostname, "."), n->hostname) < 0 ||
        pp_name_check(n->name, "host name (give the node a name with --node NAME)") < 0)
        return -EINVAL;
    return 0;
}

json_t *pp_node_json(const pp_node *n, const pp_device *dev)
{
    json_t *rails = json_array();

    for (size_t r = 0; dev && r < dev->n_rails; r++)
        json_array_append_new(rails, json_string(dev->rails[r].name));
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "name", n->name, "hostname",
                     n->hostname, "model", n->model, "model_from", n->model_from, "kernel",
                     n->kernel, "machine", n->machine, "device",
                     dev ? json_string(dev->ops->name) : json_null(), "rails", rails);
}
