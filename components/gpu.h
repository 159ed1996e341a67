/* gpu.h - the CUDA side of the GPU components (gpu.cu), in plain C types so
 * that only gpu.cu sees CUDA's. Every function returns 0 or -1 with a
 * one-line reason in why. */
#ifndef PP_GPU_H
#define PP_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_gpu_matrix pp_gpu_matrix;

/* 0 when a CUDA device is usable. */
int pp_gpu_check(char *why, size_t cap);

/* n x n random single-precision matrices on the GPU, entries in [0, 1/n). */
int pp_gpu_matrix_create(int n, pp_gpu_matrix **out, char *why, size_t cap);
void pp_gpu_matrix_destroy(pp_gpu_matrix *m);
/* A^exponent with cuBLAS (exponent - 1 products), synchronised. */
int pp_gpu_matrix_exponentiate(pp_gpu_matrix *m, int exponent, char *why, size_t cap);
/* C = A B with cuBLAS, copied back and checked on the CPU at `checks`
 * random entries against a dot product (relative error 1e-3). */
int pp_gpu_matrix_multiply_checked(pp_gpu_matrix *m, int checks, char *why, size_t cap);

/* Sort n random integers with a quicksort on the GPU (one thread per
 * segment partitions it, segments of a level in parallel), copy them back
 * and check the order on the CPU. */
int pp_gpu_quicksort(size_t n, unsigned seed, char *why, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
