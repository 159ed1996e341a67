/* lapack.h - the LAPACK routines layer 2 and the layer models solve with: LAPACKE from
 * liblapacke.so.3 (Debian's liblapacke, over the LAPACK of OpenBLAS),
 * loaded with dlopen the first time a fit needs one, so that a process
 * that never fits anything (a meter) never loads them. Thread-safe.
 *
 * The functions take LAPACKE's arguments (layout PP_LAPACK_ROW_MAJOR or
 * PP_LAPACK_COL_MAJOR, 'U' or 'L') and return its info: 0, < 0 for a bad
 * argument, > 0 for a singular or indefinite matrix; PP_LAPACK_MISSING
 * when the library could not be loaded (said once, with what to install).
 */
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
/* The same for one small system a x = b of order n, a's upper triangle
 * stored by columns (LAPACK's own order: no copy), no check for NaN (the
 * caller's): for the many local systems of a kernel fit. The same
 * arithmetic as pp_lapack_dposv row-major 'U' on the same triangle. */
int pp_lapack_dposv_small(int n, double *a, double *b);
/* The same in two steps: the Cholesky factor of a (in place), then a
 * solve with it (b: nrhs right-hand sides), for many solves with one
 * matrix. */
int pp_lapack_dpotrf(int layout, char uplo, int n, double *a, int lda);
int pp_lapack_dpotrs(int layout, char uplo, int n, int nrhs, const double *a, int lda, double *b,
                     int ldb);
/* Least squares min |A x - b| by dgelsd (SVD; rank-deficient A allowed):
 * A is m x n, column-major with leading dimension lda >= m, and is
 * overwritten; b holds m values on entry and x in its first n on return
 * (b needs max(m, n) values). Singular values below rcond times the largest
 * are treated as zero (rcond < 0: machine precision). *rank (may be NULL)
 * receives the effective rank. Unlike the functions above it returns an
 * errno: 0; -ENOSYS when LAPACKE is missing (warned once); -EDOM when the
 * SVD does not converge; -EINVAL for a bad argument; -ENOMEM. */
int pp_lapack_dgelsd(int m, int n, double *a, int lda, double *b, double rcond, int *rank);

/* OpenBLAS on one thread (for many small systems its threads cost more
 * than they give); nothing when the library has no such setting. */
void pp_lapack_single_thread(void);

/* And the BLAS that layer 2 uses, loaded with dlopen the first time it
 * is needed. Linking OpenBLAS into the binary would start its thread pool
 * in every process, each thread spinning about 0.1 s of CPU after start: a
 * meter would pay that for a product it never computes (see the startup
 * benchmark). Libraries tried, in order: libopenblas.so.0, libopenblas.so,
 * libblas.so.3 (any CBLAS); without one, a plain C product, slower, and a
 * warning naming what to install. Thread-safe.
 */
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
