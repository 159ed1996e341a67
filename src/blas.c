#include "blas.h"

#include "log.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

/* The CBLAS ABI: enum CBLAS_ORDER and CBLAS_TRANSPOSE values. */
#define CBLAS_ROW_MAJOR 101
#define CBLAS_NO_TRANS 111
#define CBLAS_TRANS 112

typedef void (*dgemm_fn)(int order, int ta, int tb, int m, int n, int k, double alpha,
                         const double *a, int lda, const double *b, int ldb, double beta,
                         double *c, int ldc);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static dgemm_fn g_dgemm;
static const char *g_library = "none";

static void load(void)
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
    pthread_once(&g_once, load);
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
    pthread_once(&g_once, load);
    if (g_dgemm)
        g_dgemm(CBLAS_ROW_MAJOR, ta ? CBLAS_TRANS : CBLAS_NO_TRANS,
                tb ? CBLAS_TRANS : CBLAS_NO_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else
        pp_blas_dgemm_ref(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

typedef void (*dgelsd_fn)(const int *m, const int *n, const int *nrhs, double *a, const int *lda,
                          double *b, const int *ldb, double *s, const double *rcond, int *rank,
                          double *work, const int *lwork, int *iwork, int *info);

static pthread_once_t g_lapack_once = PTHREAD_ONCE_INIT;
static dgelsd_fn g_dgelsd;

static void load_lapack(void)
{
    static const char *const libs[] = {"libopenblas.so.0", "liblapack.so.3"};

    for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !g_dgelsd; i++) {
        void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        if (h && !(*(void **)&g_dgelsd = dlsym(h, "dgelsd_")))
            dlclose(h);
    }
    if (!g_dgelsd)
        pp_log_error("no LAPACK found (libopenblas.so.0: apt-get install libopenblas0; or "
                     "liblapack3): least-squares fits are not available");
}

int pp_lapack_dgelsd(int m, int n, double *a, int lda, double *b, double rcond, int *rank)
{
    int nrhs = 1, ldb = m > n ? m : n, lwork = -1, liwork = 1, info = 0, r = 0;
    size_t k = (size_t)(m < n ? m : n) + 1;
    double query = 0.0, *s, *work = NULL;
    int *iwork = NULL;

    pthread_once(&g_lapack_once, load_lapack);
    if (!g_dgelsd)
        return -ENOSYS;
    if (!(s = malloc(sizeof *s * k)))
        return -ENOMEM;
    g_dgelsd(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, &r, &query, &lwork, &liwork, &info);
    lwork = (int)query + 1;
    work = malloc(sizeof *work * (size_t)lwork);
    iwork = malloc(sizeof *iwork * (size_t)(liwork > 1 ? liwork : 1));
    if (info == 0 && work && iwork)
        g_dgelsd(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, &r, work, &lwork, iwork, &info);
    free(s);
    free(work);
    free(iwork);
    if (!work || !iwork)
        return -ENOMEM;
    if (rank)
        *rank = r;
    return info == 0 ? 0 : info > 0 ? -EDOM : -EINVAL;
}
