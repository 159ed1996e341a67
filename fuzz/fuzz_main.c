/* fuzz_main.c - the libFuzzer entry points of one target of targets.h,
 * chosen at build time with -DPP_FUZZ_TARGET=<name> (see the Makefile's
 * fuzz target). */
#include "targets.h"

#ifndef PP_FUZZ_TARGET
#error "build with -DPP_FUZZ_TARGET=<name of a target in targets.h>"
#endif

#define PP_FUZZ_CAT(a, b) a##b
#define PP_FUZZ_FN(name) PP_FUZZ_CAT(pp_fuzz_, name)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return pp_fuzz_init();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return PP_FUZZ_FN(PP_FUZZ_TARGET)(data, size);
}
