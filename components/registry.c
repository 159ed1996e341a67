#include "registry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MODULE_PREFIX "powprof-"
#define MODULE_SUFFIX ".so"
#define MAX_DIRS 16
#define DIR_MAX 1024
#define MAX_MODULES 32
#define MAX_TYPES 64

extern const pp_component_ops pp_component_idle;
extern const pp_component_ops pp_component_exec;

static const pp_component_ops *const builtin[] = {&pp_component_idle, &pp_component_exec};

#define CUDA_NEEDS                                                                             \
    "the CUDA toolkit (nvcc and cuBLAS) when powprof is built, then make && make install; "   \
    "an NVIDIA GPU and its driver to run"

/* The modules shipped with powprof, and what each needs. */
static const struct shipped {
    const char *type, *file, *needs;
} shipped[] = {
    {"matrix-cpu", "powprof-matrix-cpu.so",
     "OpenBLAS (Debian: apt-get install libopenblas0; libopenblas-dev to build powprof)"},
    {"darknet", "powprof-darknet.so",
     "darknet (Debian: apt-get install darknet) when powprof is built, then make && make "
     "install"},
    {"matrix-gpu", "powprof-cuda.so", CUDA_NEEDS},
    {"nvidia-matrix", "powprof-cuda.so", CUDA_NEEDS},
    {"nvidia-quicksort", "powprof-cuda.so", CUDA_NEEDS},
};

static const char own_needs[] =
    "a module of your own, built against <powprof/component.h> (see examples/module/)";

typedef struct loaded {
    char file[PP_COMPONENT_TYPE_MAX + 16];
    const pp_component_module *mod;
} loaded;

static loaded g_loaded[MAX_MODULES];
static size_t g_n_loaded;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct dir_list {
    size_t n;
    char dir[MAX_DIRS][DIR_MAX];
} dir_list;

static void add_dir(dir_list *d, const char *s, size_t len, const char *suffix)
{
    if (len == 0 || d->n == MAX_DIRS)
        return;
    if (snprintf(d->dir[d->n], DIR_MAX, "%.*s%s", (int)len, s, suffix) < DIR_MAX)
        d->n++;
}

static void module_dirs(dir_list *d)
{
    const char *env = getenv("POWPROF_MODULE_PATH");
    char exe[DIR_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;

    d->n = 0;
    for (const char *s = env; s && *s;) {
        size_t len = strcspn(s, ":");
        add_dir(d, s, len, "");
        s += len + (s[len] == ':');
    }
    if (n <= 0)
        return;
    exe[n] = '\0';
    if (!(slash = strrchr(exe, '/')))
        return;
    *slash = '\0';
    add_dir(d, exe, strlen(exe), "/lib/powprof"); /* build tree */
    if ((slash = strrchr(exe, '/')))
        add_dir(d, exe, (size_t)(slash - exe), "/lib/powprof"); /* install tree */
}

static void join_dirs(const dir_list *d, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < d->n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ":" : "", d->dir[i]);
}

void pp_component_module_path(char *buf, size_t cap)
{
    dir_list d;

    module_dirs(&d);
    join_dirs(&d, buf, cap);
}

/* The first folder holding file: 1 with its path, or 0. */
static int find_module(const dir_list *d, const char *file, char *path, size_t cap)
{
    for (size_t i = 0; i < d->n; i++)
        if (snprintf(path, cap, "%s/%s", d->dir[i], file) < (int)cap && access(path, R_OK) == 0)
            return 1;
    return 0;
}

static int valid_type(const char *t)
{
    size_t n = strlen(t);

    if (n == 0 || n >= PP_COMPONENT_TYPE_MAX)
        return 0;
    for (; *t; t++)
        if (!((*t >= 'a' && *t <= 'z') || (*t >= '0' && *t <= '9') || *t == '-' || *t == '_'))
            return 0;
    return 1;
}

static const struct shipped *shipped_type(const char *type)
{
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++)
        if (strcmp(shipped[i].type, type) == 0)
            return &shipped[i];
    return NULL;
}

static int check_abi(const pp_component_module *m, const char *path, char *why, size_t cap)
{
    if (m->abi == PP_COMPONENT_ABI && m->spec_size == sizeof(pp_component_spec) &&
        m->component_size == sizeof(pp_component) && m->types)
        return 0;
    snprintf(why, cap, "%s was built for another version of the component interface (ABI %u, "
                       "this powprof has %u): rebuild it against this powprof's "
                       "<powprof/component.h>", path, m->abi, PP_COMPONENT_ABI);
    return -EINVAL;
}

/* Load file (once). Called with g_lock held. */
static int load_module(const char *type, const char *file, const char *needs,
                       const pp_component_module **out, char *why, size_t cap)
{
    dir_list d;
    char path[DIR_MAX + 64], where[2048];
    void *h;
    int rc;

    for (size_t i = 0; i < g_n_loaded; i++)
        if (strcmp(g_loaded[i].file, file) == 0) {
            *out = g_loaded[i].mod;
            return 0;
        }
    module_dirs(&d);
    if (!find_module(&d, file, path, sizeof path)) {
        join_dirs(&d, where, sizeof where);
        snprintf(why, cap, "component type '%s' needs the module %s, not found in %s "
                           "(POWPROF_MODULE_PATH, then lib/powprof beside the binary); it "
                           "needs %s", type, file, where[0] ? where : "(no folder)", needs);
        return -ELIBACC;
    }
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, cap, "component type '%s': cannot load %s: %s; it needs %s", type, path,
                 dlerror(), needs);
        return -ELIBACC;
    }
    *out = dlsym(h, "pp_component_exports");
    if (!*out) {
        snprintf(why, cap, "%s is not a powprof component module (it has no "
                           "pp_component_exports: see PP_COMPONENT_MODULE in component.h)", path);
        dlclose(h);
        return -EINVAL;
    }
    if ((rc = check_abi(*out, path, why, cap)) < 0 || g_n_loaded == MAX_MODULES) {
        dlclose(h);
        return rc < 0 ? rc : -ENOSPC;
    }
    snprintf(g_loaded[g_n_loaded].file, sizeof g_loaded[0].file, "%s", file);
    g_loaded[g_n_loaded++].mod = *out; /* never unloaded: its types stay valid */
    return 0;
}

/* Type names: built in, shipped, then powprof-<type>.so found in the
 * folders. installed[i] says whether the module's file is there. */
static size_t collect(char names[][PP_COMPONENT_TYPE_MAX], int *installed, size_t cap)
{
    dir_list d;
    char path[DIR_MAX + 64];
    size_t n = 0;

    module_dirs(&d);
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0] && n < cap; i++, n++) {
        snprintf(names[n], PP_COMPONENT_TYPE_MAX, "%s", builtin[i]->type);
        installed[n] = 1;
    }
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0] && n < cap; i++, n++) {
        snprintf(names[n], PP_COMPONENT_TYPE_MAX, "%s", shipped[i].type);
        installed[n] = find_module(&d, shipped[i].file, path, sizeof path);
    }
    for (size_t k = 0; k < d.n; k++) {
        DIR *dp = opendir(d.dir[k]);
        struct dirent *de;
        while (dp && (de = readdir(dp)) && n < cap) {
            size_t len = strlen(de->d_name), pre = strlen(MODULE_PREFIX), suf = strlen(MODULE_SUFFIX);
            char type[PP_COMPONENT_TYPE_MAX];
            int dup = 0;
            if (len <= pre + suf || strncmp(de->d_name, MODULE_PREFIX, pre) != 0 ||
                strcmp(de->d_name + len - suf, MODULE_SUFFIX) != 0 ||
                len - pre - suf >= sizeof type)
                continue;
            snprintf(type, sizeof type, "%.*s", (int)(len - pre - suf), de->d_name + pre);
            for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++)
                dup |= strcmp(shipped[i].file, de->d_name) == 0;
            for (size_t i = 0; i < n; i++)
                dup |= strcmp(names[i], type) == 0;
            if (dup || !valid_type(type))
                continue;
            snprintf(names[n], PP_COMPONENT_TYPE_MAX, "%s", type);
            installed[n++] = 1;
        }
        if (dp)
            closedir(dp);
    }
    return n;
}

void pp_component_known(char *buf, size_t cap)
{
    char names[MAX_TYPES][PP_COMPONENT_TYPE_MAX];
    int installed[MAX_TYPES];
    size_t n = collect(names, installed, MAX_TYPES), len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s%s", i ? ", " : "", names[i],
                                installed[i] ? "" : " [not installed]");
}

static int lookup_locked(const char *type, const pp_component_ops **out, char *why, size_t cap)
{
    const struct shipped *sh = shipped_type(type);
    const pp_component_module *mod;
    char file[PP_COMPONENT_TYPE_MAX + 16], known[1024], path[DIR_MAX + 64];
    dir_list d;
    int rc;

    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (strcmp(builtin[i]->type, type) == 0) {
            *out = builtin[i];
            return 0;
        }
    snprintf(file, sizeof file, "%s%s%s", MODULE_PREFIX, type, MODULE_SUFFIX);
    module_dirs(&d);
    if (!valid_type(type) || (!sh && !find_module(&d, file, path, sizeof path))) {
        pp_component_known(known, sizeof known);
        join_dirs(&d, path, sizeof path);
        snprintf(why, cap, "unknown component type '%s' (known: %s; a type of your own is a "
                           "module %s in POWPROF_MODULE_PATH or %s)", type, known, file, path);
        return -ENOENT;
    }
    rc = load_module(type, sh ? sh->file : file, sh ? sh->needs : own_needs, &mod, why, cap);
    if (rc < 0)
        return rc;
    for (const pp_component_ops *const *t = mod->types; *t; t++)
        if (strcmp((*t)->type, type) == 0) {
            *out = *t;
            return 0;
        }
    snprintf(why, cap, "the module %s has no component type '%s'", sh ? sh->file : file, type);
    return -ENOENT;
}

int pp_component_lookup(const char *type, const pp_component_ops **out, char *why, size_t cap)
{
    int rc;

    *out = NULL;
    pthread_mutex_lock(&g_lock);
    rc = lookup_locked(type, out, why, cap);
    pthread_mutex_unlock(&g_lock);
    return rc;
}

int pp_component_type_at(size_t i, char *name, size_t name_cap, const pp_component_ops **ops,
                         char *why, size_t cap)
{
    char names[MAX_TYPES][PP_COMPONENT_TYPE_MAX];
    int installed[MAX_TYPES];
    size_t n = collect(names, installed, MAX_TYPES);

    if (i >= n)
        return -ENOENT;
    snprintf(name, name_cap, "%s", names[i]);
    why[0] = '\0';
    pp_component_lookup(names[i], ops, why, cap);
    return 0;
}

const pp_component_key *pp_component_key_find(const pp_component_ops *ops, const char *key)
{
    for (const pp_component_key *k = ops->keys; k && k->name; k++)
        if (strcmp(k->name, key) == 0)
            return k;
    return NULL;
}
