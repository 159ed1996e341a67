/* blas.h - the BLAS that layer 2 uses, loaded with dlopen the first time it
 * is needed. Linking OpenBLAS into the binary would start its thread pool
 * in every process, each thread spinning about 0.1 s of CPU after start: a
 * meter would pay that for a product it never computes (see the startup
 * benchmark). Libraries tried, in order: libopenblas.so.0, libopenblas.so,
 * libblas.so.3 (any CBLAS); without one, a plain C product, slower, and a
 * warning naming what to install. Thread-safe.
 */
#ifndef PP_BLAS_H
#define PP_BLAS_H

typedef enum pp_blas_trans { PP_BLAS_N = 0, PP_BLAS_T = 1 } pp_blas_trans;

/* C = alpha op(A) op(B) + beta C, row-major (cblas_dgemm with
 * CblasRowMajor): op(A) is m x k, op(B) k x n, C m x n. */
void pp_blas_dgemm(pp_blas_trans ta, pp_blas_trans tb, int m, int n, int k, double alpha,
                   const double *a, int lda, const double *b, int ldb, double beta, double *c,
                   int ldc);

/* The same by three loops: what pp_blas_dgemm falls back on. */
void pp_blas_dgemm_ref(pp_blas_trans ta, pp_blas_trans tb, int m, int n, int k, double alpha,
                       const double *a, int lda, const double *b, int ldb, double beta,
                       double *c, int ldc);

/* The library in use ("libopenblas.so.0", ...), or "none"; loads it. */
const char *pp_blas_library(void);

#endif
