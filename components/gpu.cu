// The CUDA kernels and cuBLAS calls of the GPU components (module
// powprof-cuda.so, built when nvcc is found). Without a GPU every entry
// point fails with a reason that says what is missing (no driver, no
// device, a driver older than the runtime), and the configuration is
// marked failed.
#include "gpu.h"

#include <dlfcn.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct pp_gpu_matrix {
    int n;
    float *a, *b, *c; // device
    cublasHandle_t blas;
    std::vector<float> ha, hb; // host copies, for the CPU check
};

static int fail(char *why, size_t cap, const char *what, cudaError_t e)
{
    std::snprintf(why, cap, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

extern "C" int pp_gpu_check(char *why, size_t cap)
{
    int count = 0, runtime = 0, driver = 0;
    cudaError_t e;

    // The CUDA runtime says "driver version is insufficient" when there is
    // no driver at all: look for the driver's library first.
    if (!dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
        std::snprintf(why, cap, "no CUDA driver on this machine (libcuda.so.1 not found): the "
                                "CUDA components need an NVIDIA GPU and its driver");
        return -1;
    }
    e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver) {
        cudaRuntimeGetVersion(&runtime);
        cudaDriverGetVersion(&driver);
        std::snprintf(why, cap, "the NVIDIA driver (CUDA %d.%d) is older than the CUDA runtime "
                                "powprof was built with (%d.%d): update the driver",
                      driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
        return -1;
    }
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
        std::snprintf(why, cap, "no CUDA device: the NVIDIA driver is installed but sees no GPU");
        return -1;
    }
    if (e != cudaSuccess)
        return fail(why, cap, "CUDA device", e);
    return 0;
}

extern "C" void pp_gpu_matrix_destroy(pp_gpu_matrix *m)
{
    if (!m)
        return;
    if (m->blas)
        cublasDestroy(m->blas);
    cudaFree(m->a);
    cudaFree(m->b);
    cudaFree(m->c);
    delete m;
}

extern "C" int pp_gpu_matrix_create(int n, pp_gpu_matrix **out, char *why, size_t cap)
{
    pp_gpu_matrix *m = new pp_gpu_matrix();
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    unsigned seed = 12345;
    cudaError_t e;

    *out = nullptr;
    m->n = n;
    if (pp_gpu_check(why, cap) < 0) {
        delete m;
        return -1;
    }
    m->ha.resize((size_t)n * n);
    m->hb.resize((size_t)n * n);
    for (size_t i = 0; i < m->ha.size(); i++) {
        seed = seed * 1103515245u + 12345u;
        m->ha[i] = (float)((seed >> 8) & 0xffff) / 65536.0f / (float)n;
        seed = seed * 1103515245u + 12345u;
        m->hb[i] = (float)((seed >> 8) & 0xffff) / 65536.0f / (float)n;
    }
    if ((e = cudaMalloc(&m->a, bytes)) != cudaSuccess || (e = cudaMalloc(&m->b, bytes)) != cudaSuccess ||
        (e = cudaMalloc(&m->c, bytes)) != cudaSuccess) {
        pp_gpu_matrix_destroy(m);
        return fail(why, cap, "cudaMalloc", e);
    }
    if ((e = cudaMemcpy(m->a, m->ha.data(), bytes, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemcpy(m->b, m->hb.data(), bytes, cudaMemcpyHostToDevice)) != cudaSuccess) {
        pp_gpu_matrix_destroy(m);
        return fail(why, cap, "cudaMemcpy", e);
    }
    if (cublasCreate(&m->blas) != CUBLAS_STATUS_SUCCESS) {
        m->blas = nullptr;
        pp_gpu_matrix_destroy(m);
        std::snprintf(why, cap, "cublasCreate failed");
        return -1;
    }
    *out = m;
    return 0;
}

// Column-major for cuBLAS; the matrices are random, so the layout does not
// change the work.
static int gemm(pp_gpu_matrix *m, const float *x, const float *y, float *z, char *why, size_t cap)
{
    const float one = 1.0f, zero = 0.0f;
    if (cublasSgemm(m->blas, CUBLAS_OP_N, CUBLAS_OP_N, m->n, m->n, m->n, &one, x, m->n, y, m->n,
                    &zero, z, m->n) != CUBLAS_STATUS_SUCCESS) {
        std::snprintf(why, cap, "cublasSgemm failed");
        return -1;
    }
    return 0;
}

extern "C" int pp_gpu_matrix_exponentiate(pp_gpu_matrix *m, int exponent, char *why, size_t cap)
{
    size_t bytes = (size_t)m->n * (size_t)m->n * sizeof(float);
    cudaError_t e = cudaMemcpy(m->b, m->a, bytes, cudaMemcpyDeviceToDevice);

    if (e != cudaSuccess)
        return fail(why, cap, "cudaMemcpy", e);
    for (int k = 1; k < exponent; k++) {
        if (gemm(m, m->b, m->a, m->c, why, cap) < 0)
            return -1;
        std::swap(m->b, m->c);
    }
    if ((e = cudaDeviceSynchronize()) != cudaSuccess)
        return fail(why, cap, "cudaDeviceSynchronize", e);
    return 0;
}

extern "C" int pp_gpu_matrix_multiply_checked(pp_gpu_matrix *m, int checks, char *why, size_t cap)
{
    int n = m->n;
    std::vector<float> hc((size_t)n * n);
    unsigned seed = 777;
    cudaError_t e;

    // b was overwritten by exponentiation only; this component never does that
    if (gemm(m, m->a, m->b, m->c, why, cap) < 0)
        return -1;
    if ((e = cudaMemcpy(hc.data(), m->c, hc.size() * sizeof(float), cudaMemcpyDeviceToHost)) !=
        cudaSuccess)
        return fail(why, cap, "cudaMemcpy", e);
    for (int k = 0; k < checks; k++) {
        seed = seed * 1103515245u + 12345u;
        int i = (int)((seed >> 8) % (unsigned)n);
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)n);
        double want = 0.0; // column-major: c[i + j n] = sum_l a[i + l n] b[l + j n]
        for (int l = 0; l < n; l++)
            want += (double)m->ha[(size_t)i + (size_t)l * n] * (double)m->hb[(size_t)l + (size_t)j * n];
        double got = hc[(size_t)i + (size_t)j * n];
        if (std::fabs(got - want) > 1e-3 * std::fabs(want) + 1e-6) {
            std::snprintf(why, cap, "GPU product wrong at (%d, %d): %g, the CPU says %g", i, j, got,
                          want);
            return -1;
        }
    }
    return 0;
}

struct segment {
    int lo, hi; // [lo, hi)
};

__device__ static void insertion_sort(int *a, int lo, int hi)
{
    for (int i = lo + 1; i < hi; i++) {
        int v = a[i], j = i - 1;
        while (j >= lo && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

// One thread per segment: partition it around a median-of-three pivot
// (Hoare), and queue the two halves that still need sorting.
__global__ static void partition_level(int *a, const segment *in, int n_in, segment *out,
                                       int *n_out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n_in)
        return;
    int lo = in[t].lo, hi = in[t].hi;
    if (hi - lo <= 32) {
        insertion_sort(a, lo, hi);
        return;
    }
    int x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1];
    int pivot = max(min(x, y), min(max(x, y), z));
    int i = lo - 1, j = hi;
    for (;;) {
        do
            i++;
        while (a[i] < pivot);
        do
            j--;
        while (a[j] > pivot);
        if (i >= j)
            break;
        int tmp = a[i];
        a[i] = a[j];
        a[j] = tmp;
    }
    int k = atomicAdd(n_out, 2);
    out[k] = segment{lo, j + 1};
    out[k + 1] = segment{j + 1, hi};
}

extern "C" int pp_gpu_quicksort(size_t n, unsigned seed, char *why, size_t cap)
{
    std::vector<int> h(n);
    int *d = nullptr, *d_count = nullptr;
    segment *segs[2] = {nullptr, nullptr};
    int n_segs = 1, cur = 0, rc = -1;
    cudaError_t e;

    if (pp_gpu_check(why, cap) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        h[i] = (int)(seed >> 1);
    }
    // each level at most doubles the segments; n segments is the most there can be
    if ((e = cudaMalloc(&d, n * sizeof(int))) != cudaSuccess ||
        (e = cudaMalloc(&segs[0], (n + 2) * sizeof(segment))) != cudaSuccess ||
        (e = cudaMalloc(&segs[1], (n + 2) * sizeof(segment))) != cudaSuccess ||
        (e = cudaMalloc(&d_count, sizeof(int))) != cudaSuccess) {
        fail(why, cap, "cudaMalloc", e);
        goto out;
    }
    if ((e = cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice)) != cudaSuccess) {
        fail(why, cap, "cudaMemcpy", e);
        goto out;
    }
    {
        segment all{0, (int)n};
        cudaMemcpy(segs[0], &all, sizeof all, cudaMemcpyHostToDevice);
    }
    while (n_segs > 0) {
        cudaMemset(d_count, 0, sizeof(int));
        partition_level<<<(n_segs + 255) / 256, 256>>>(d, segs[cur], n_segs, segs[1 - cur], d_count);
        if ((e = cudaGetLastError()) != cudaSuccess ||
            (e = cudaMemcpy(&n_segs, d_count, sizeof(int), cudaMemcpyDeviceToHost)) != cudaSuccess) {
            fail(why, cap, "quicksort kernel", e);
            goto out;
        }
        cur = 1 - cur;
    }
    if ((e = cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost)) != cudaSuccess) {
        fail(why, cap, "cudaMemcpy", e);
        goto out;
    }
    for (size_t i = 1; i < n; i++)
        if (h[i - 1] > h[i]) {
            std::snprintf(why, cap, "GPU quicksort out of order at %zu", i);
            goto out;
        }
    rc = 0;
out:
    cudaFree(d);
    cudaFree(segs[0]);
    cudaFree(segs[1]);
    cudaFree(d_count);
    return rc;
}
