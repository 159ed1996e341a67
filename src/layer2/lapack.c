/* lapack.c - the BLAS and LAPACK of layer 2 and the layer models, each
 * loaded with dlopen the first time it is needed (lapack.h). */
#include "lapack.h"

#include "src/base/log.h"

#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

typedef int (*posv_fn)(int, char, int, int, double *, int, double *, int);
typedef int (*potrf_fn)(int, char, int, double *, int);
typedef int (*potrs_fn)(int, char, int, int, const double *, int, double *, int);
typedef int (*gelsd_fn)(int, int, int, int, double *, int, double *, int, double *, double,
                        int *);
typedef void (*threads_fn)(int);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct {
    posv_fn posv;
    posv_fn posv_work;
    potrf_fn potrf;
    potrs_fn potrs;
    gelsd_fn gelsd;
    threads_fn threads;
} g;

static void *sym(void *h, const char *name)
{
    void *f;
    *(void **)&f = dlsym(h, name);
    return f;
}

static void load(void)
{
    static const char *const libs[] = {"liblapacke.so.3", "liblapacke.so"};

    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        if (!h)
            continue;
        *(void **)&g.posv = sym(h, "LAPACKE_dposv");
        *(void **)&g.posv_work = sym(h, "LAPACKE_dposv_work");
        *(void **)&g.potrf = sym(h, "LAPACKE_dpotrf");
        *(void **)&g.potrs = sym(h, "LAPACKE_dpotrs");
        *(void **)&g.gelsd = sym(h, "LAPACKE_dgelsd");
        *(void **)&g.threads = sym(h, "openblas_set_num_threads"); /* from its OpenBLAS */
        if (g.posv && g.posv_work && g.potrf && g.potrs && g.gelsd)
            return; /* stays loaded */
        dlclose(h);
        g.posv = NULL;
    }
    pp_log_warn("no LAPACKE library (liblapacke.so.3: install liblapacke): layer 2 has the "
                "weighted average (nw) only, not loclin or boxcox, and layer models cannot be fitted");
}

int pp_lapack_available(void)
{
    pthread_once(&g_once, load);
    return g.posv != NULL;
}

/* Row-major with one right-hand side: LAPACKE_dposv checks the triangle
 * and b for NaN, copies the triangle by columns into memory it allocates,
 * solves there and copies the factor back; the same done here, the copy on
 * the stack up to SMALL, hands dposv the same numbers in the same places
 * (each small system of boxcox's folds paid two allocations and LAPACKE's
 * element-by-element transposes). */
static int posv_row_major(char uplo, int n, double *a, int lda, double *b)
{
    enum { SMALL = 32 };
    double stack[SMALL * SMALL], *t = n <= SMALL ? stack : malloc(sizeof *t * (size_t)n * (size_t)n);
    int upper = uplo == 'U' || uplo == 'u', info;

    if (!t)
        return -1010; /* LAPACKE's LAPACK_WORK_MEMORY_ERROR: not solved */
    for (int r = 0; r < n; r++)
        for (int c = upper ? r : 0; c < (upper ? n : r + 1); c++)
            if (isnan(t[r + (size_t)c * (size_t)n] = a[(size_t)r * (size_t)lda + (size_t)c])) {
                info = -5;
                goto out;
            }
    for (int r = 0; r < n; r++)
        if (isnan(b[r])) {
            info = -7;
            goto out;
        }
    info = g.posv_work(PP_LAPACK_COL_MAJOR, uplo, n, 1, t, n, b, n);
    for (int r = 0; r < n; r++)
        for (int c = upper ? r : 0; c < (upper ? n : r + 1); c++)
            a[(size_t)r * (size_t)lda + (size_t)c] = t[r + (size_t)c * (size_t)n];
out:
    if (t != stack)
        free(t);
    return info;
}

int pp_lapack_dposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb)
{
    if (!pp_lapack_available())
        return PP_LAPACK_MISSING;
    if (layout == PP_LAPACK_ROW_MAJOR && nrhs == 1 && ldb == 1 && n > 0 && lda >= n)
        return posv_row_major(uplo, n, a, lda, b);
    return g.posv(layout, uplo, n, nrhs, a, lda, b, ldb);
}

int pp_lapack_dposv_small(int n, double *a, double *b)
{
    return pp_lapack_available() ? g.posv_work(PP_LAPACK_COL_MAJOR, 'U', n, 1, a, n, b, n)
                                 : PP_LAPACK_MISSING;
}

int pp_lapack_dpotrf(int layout, char uplo, int n, double *a, int lda)
{
    return pp_lapack_available() ? g.potrf(layout, uplo, n, a, lda) : PP_LAPACK_MISSING;
}

int pp_lapack_dpotrs(int layout, char uplo, int n, int nrhs, const double *a, int lda, double *b,
                     int ldb)
{
    return pp_lapack_available() ? g.potrs(layout, uplo, n, nrhs, a, lda, b, ldb)
                                 : PP_LAPACK_MISSING;
}

int pp_lapack_dgelsd(int m, int n, double *a, int lda, double *b, double rcond, int *rank)
{
    double *s;
    int r = 0, info;

    if (!pp_lapack_available())
        return -ENOSYS;
    if (!(s = malloc(sizeof *s * (size_t)((m < n ? m : n) + 1))))
        return -ENOMEM;
    info = g.gelsd(PP_LAPACK_COL_MAJOR, m, n, 1, a, lda, b, m > n ? m : n, s, rcond, &r);
    free(s);
    if (rank)
        *rank = r;
    return info == 0 ? 0 : info > 0 ? -EDOM : -EINVAL;
}

void pp_lapack_single_thread(void)
{
    if (pp_lapack_available() && g.threads)
        g.threads(1);
}

/* The BLAS. */

/* The CBLAS ABI: enum CBLAS_ORDER and CBLAS_TRANSPOSE values. */
#define CBLAS_ROW_MAJOR 101
#define CBLAS_NO_TRANS 111
#define CBLAS_TRANS 112

typedef void (*dgemm_fn)(int order, int ta, int tb, int m, int n, int k, double alpha,
                         const double *a, int lda, const double *b, int ldb, double beta,
                         double *c, int ldc);

static pthread_once_t g_blas_once = PTHREAD_ONCE_INIT;
static dgemm_fn g_dgemm;
static const char *g_library = "none";

static void load_blas(void)
{
    static const char *const libs[] = {"libopenblas.so.0", "libopenblas.so", "libblas.so.3"};

    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        if (!h)
            continue;
        *(void **)&g_dgemm = dlsym(h, "cblas_dgemm");
        if (g_dgemm) {
            g_library = libs[i];
            return; /* stays loaded */
        }
        dlclose(h);
    }
    pp_log_warn("no BLAS library found (libopenblas.so.0: install libopenblas0): layer 2 "
                "computes its matrix products with plain loops, slower");
}

const char *pp_blas_library(void)
{
    pthread_once(&g_blas_once, load_blas);
    return g_library;
}

void pp_blas_dgemm_ref(pp_blas_trans ta, pp_blas_trans tb, int m, int n, int k, double alpha,
                       const double *a, int lda, const double *b, int ldb, double beta,
                       double *c, int ldc)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int p = 0; p < k; p++)
                s += (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
            c[i * ldc + j] = alpha * s + (beta == 0.0 ? 0.0 : beta * c[i * ldc + j]);
        }
}

void pp_blas_dgemm(pp_blas_trans ta, pp_blas_trans tb, int m, int n, int k, double alpha,
                   const double *a, int lda, const double *b, int ldb, double beta, double *c,
                   int ldc)
{
    pthread_once(&g_blas_once, load_blas);
    if (g_dgemm)
        g_dgemm(CBLAS_ROW_MAJOR, ta ? CBLAS_TRANS : CBLAS_NO_TRANS,
                tb ? CBLAS_TRANS : CBLAS_NO_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else
        pp_blas_dgemm_ref(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
