/* registry.h - the one registry of component types: the types built into
 * powprof (idle, exec), the modules shipped with it (matrix-cpu, darknet,
 * the CUDA types) and modules of one's own, loaded with dlopen the first
 * time a profile names their type.
 *
 * Where modules are looked for, in order:
 *   1. each folder of POWPROF_MODULE_PATH (colon-separated);
 *   2. lib/powprof beside the running binary (the build tree: build/powprof
 *      and build/lib/powprof);
 *   3. ../lib/powprof from the binary's folder (the install tree:
 *      PREFIX/bin/powprof and PREFIX/lib/powprof).
 * A type is in powprof-<type>.so, except the shipped ones listed in
 * registry.c (the CUDA types share powprof-cuda.so). Modules stay loaded
 * until the process ends. Thread-safe.
 */
#ifndef PP_REGISTRY_H
#define PP_REGISTRY_H

#include "component.h"

#include <stddef.h>

/* The type called name: 0 and *out; -ENOENT for an unknown type (why lists
 * the known ones); -ELIBACC when its module, or a library the module needs,
 * is missing (why names the module, the folders searched and what to
 * install); -EINVAL for a module that does not fit (wrong ABI). */
int pp_component_lookup(const char *type, const pp_component_ops **out, char *why, size_t cap);

/* The known type names, comma-separated: built in, shipped (", darknet
 * [not installed]" when its module is not found) and the modules found in
 * the search path. */
void pp_component_known(char *buf, size_t cap);

/* Each known type in turn (i = 0, 1, ... until it returns -ENOENT): its
 * name into name; *ops is the loaded type or NULL, why the reason when it
 * cannot be loaded. Loads the modules. */
int pp_component_type_at(size_t i, char *name, size_t name_cap, const pp_component_ops **ops,
                         char *why, size_t cap);

/* The declaration of key in ops's own keys, or NULL. */
const pp_component_key *pp_component_key_find(const pp_component_ops *ops, const char *key);

/* The module folders, colon-separated, in search order. */
void pp_component_module_path(char *buf, size_t cap);

#endif
