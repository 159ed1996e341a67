#include "lapack.h"

#include "log.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

typedef int (*posv_fn)(int, char, int, int, double *, int, double *, int);
typedef int (*sytrf_fn)(int, char, int, double *, int, int *);
typedef int (*sytrs_fn)(int, char, int, int, const double *, int, const int *, double *, int);
typedef int (*sytri_fn)(int, char, int, double *, int, const int *);
typedef void (*threads_fn)(int);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct {
    posv_fn posv;
    sytrf_fn sytrf;
    sytrs_fn sytrs;
    sytri_fn sytri;
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
        *(void **)&g.sytrf = sym(h, "LAPACKE_dsytrf");
        *(void **)&g.sytrs = sym(h, "LAPACKE_dsytrs");
        *(void **)&g.sytri = sym(h, "LAPACKE_dsytri");
        *(void **)&g.threads = sym(h, "openblas_set_num_threads"); /* from its OpenBLAS */
        if (g.posv && g.sytrf && g.sytrs && g.sytri)
            return; /* stays loaded */
        dlclose(h);
        g.posv = NULL;
    }
    pp_log_warn("no LAPACKE library (liblapacke.so.3: install liblapacke): layer 2 has the "
                "weighted average (nw) only, not loclin or rbf");
}

int pp_lapack_available(void)
{
    pthread_once(&g_once, load);
    return g.posv != NULL;
}

int pp_lapack_dposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb)
{
    return pp_lapack_available() ? g.posv(layout, uplo, n, nrhs, a, lda, b, ldb)
                                 : PP_LAPACK_MISSING;
}

int pp_lapack_dsytrf(int layout, char uplo, int n, double *a, int lda, int *ipiv)
{
    return pp_lapack_available() ? g.sytrf(layout, uplo, n, a, lda, ipiv) : PP_LAPACK_MISSING;
}

int pp_lapack_dsytrs(int layout, char uplo, int n, int nrhs, const double *a, int lda,
                     const int *ipiv, double *b, int ldb)
{
    return pp_lapack_available() ? g.sytrs(layout, uplo, n, nrhs, a, lda, ipiv, b, ldb)
                                 : PP_LAPACK_MISSING;
}

int pp_lapack_dsytri(int layout, char uplo, int n, double *a, int lda, const int *ipiv)
{
    return pp_lapack_available() ? g.sytri(layout, uplo, n, a, lda, ipiv) : PP_LAPACK_MISSING;
}

void pp_lapack_single_thread(void)
{
    if (pp_lapack_available() && g.threads)
        g.threads(1);
}
