/* lapack.h - the LAPACK of layer 2 and the layer models: LAPACKE from
 * liblapacke.so.3, loaded with dlopen when a fit first needs it (a meter
 * never loads it). Thread-safe. LAPACKE's arguments and info (0, < 0 a bad
 * argument, > 0 singular); PP_LAPACK_MISSING without the library (said
 * once, with what to install). */
#ifndef PP_LAPACK_H
#define PP_LAPACK_H

#define PP_LAPACK_ROW_MAJOR 101
#define PP_LAPACK_COL_MAJOR 102
#define PP_LAPACK_MISSING (-10000)

/* 1 when LAPACKE is there (loads it), else 0 (warned once). */
int pp_lapack_available(void);

/* Cholesky solve of a symmetric positive definite system. */
int pp_lapack_dposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b,
                    int ldb);
/* One small system of order n, a's upper triangle by columns, no NaN check:
 * a kernel fit's many local systems (pp_lapack_dposv's arithmetic). */
int pp_lapack_dposv_small(int n, double *a, double *b);
/* The same in two steps (factor in place, then solves). */
int pp_lapack_dpotrf(int layout, char uplo, int n, double *a, int lda);
int pp_lapack_dpotrs(int layout, char uplo, int n, int nrhs, const double *a, int lda, double *b,
                     int ldb);
/* Least squares min |A x - b| by dgelsd (rank-deficient A allowed): A m x
 * n column-major (lda >= m), overwritten; b m values in, x in its first n
 * out (room for max(m, n)); rcond as LAPACK's; *rank (may be NULL). An
 * errno: 0, -ENOSYS (no LAPACKE), -EDOM (no convergence), -EINVAL, -ENOMEM. */
int pp_lapack_dgelsd(int m, int n, double *a, int lda, double *b, double rcond, int *rank);

/* OpenBLAS on one thread (many small systems), where it has the setting. */
void pp_lapack_single_thread(void);

/* The BLAS, loaded with dlopen when first needed (linked, OpenBLAS's thread
 * pool would spin in every process, a meter's too): libopenblas.so.0,
 * libopenblas.so, libblas.so.3; without one a plain C product and a
 * warning naming what to install. Thread-safe. */
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
