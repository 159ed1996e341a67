#include "blas.h"

#include "src/base/log.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

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
