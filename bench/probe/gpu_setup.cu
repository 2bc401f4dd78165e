// gpu_setup.cu — what a fresh process pays before its first GPU join:
// the CUDA context, streams, and pinned host buffers of a given size
// (cudaHostAlloc) against pinning existing pages (cudaHostRegister).
//   nvcc -O2 -o gpu_setup bench/probe/gpu_setup.cu && ./gpu_setup
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuda_runtime.h>

static double now_ms() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

int main()
{
	double t0 = now_ms();
	CK(cudaSetDevice(0));
	CK(cudaFree(0));
	double t1 = now_ms();
	cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	double t2 = now_ms();
	printf("context (cudaSetDevice + cudaFree(0)): %.1f ms; a stream: %.2f ms\n", t1 - t0, t2 - t1);
	size_t sizes[] = {(size_t) 64 << 20, (size_t) 256 << 20, (size_t) 1300 << 20};
	for (size_t sz : sizes)
	{
		void *p; double a = now_ms();
		CK(cudaHostAlloc(&p, sz, cudaHostAllocDefault));
		double b = now_ms();
		CK(cudaFreeHost(p));
		double c = now_ms();
		char *q = (char *) malloc(sz); memset(q, 1, sz);
		double d = now_ms();
		CK(cudaHostRegister(q, sz, cudaHostRegisterDefault));
		double e = now_ms();
		CK(cudaHostUnregister(q)); free(q);
		printf("%5zu MB: cudaHostAlloc %.1f ms, cudaFreeHost %.1f ms, cudaHostRegister (touched pages) %.1f ms\n",
			   sz >> 20, b - a, c - b, e - d);
	}
	return 0;
}
