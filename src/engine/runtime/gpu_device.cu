/*
 * gpu_device.cu — GPU availability, decided at run time.
 *
 * Linked with the static CUDA runtime, so the extension loads on machines
 * without CUDA libraries; the runtime opens the driver on the first call,
 * which happens lazily in a backend, never in the postmaster.
 */
#include <cuda_runtime.h>

#include "gpu.h"
#include "gpu_runtime.cuh"
#include "stats.h"
#include "worker_signals.h"

extern "C" int
exg_gpu_device_count(exg_error *err)
{
	int			n = 0;
	sigset_t	old;

	/* the first call starts CUDA's own threads: without the host's signals */
	uint64_t	t0 = exg_now_ns();

	exg_signals_block(&old);
	cudaError_t rc = cudaGetDeviceCount(&n);

	exg_signals_restore(&old);
	/* the first call opens the driver: part of what the first GPU join pays
	 * (not counted without a GPU: then no GPU join follows) */
	if (rc == cudaSuccess && n > 0)
		exg_gpu_setup_add(exg_now_ns() - t0);

	if (rc != cudaSuccess)
	{
		int			driver = 0,
					runtime = 0;

		/*
		 * The static runtime reports a missing driver (no libcuda.so.1) as
		 * cudaErrorInsufficientDriver, "driver version is insufficient":
		 * misleading on a machine without a GPU. The driver version is 0
		 * exactly when no driver could be loaded.
		 */
		(void) cudaDriverGetVersion(&driver);
		(void) cudaRuntimeGetVersion(&runtime);
		if (rc == cudaErrorNoDevice)
			exg_fail(err, EXG_ERR_DEVICE, "no GPU: the GPU driver sees no device; joins run on the CPU");
		else if (driver == 0)
			exg_fail(err, EXG_ERR_DEVICE,
					 "no GPU driver: the NVIDIA driver (libcuda.so.1) is not installed or cannot be loaded; joins run on the CPU");
		else if (rc == cudaErrorInsufficientDriver)
			exg_fail(err, EXG_ERR_DEVICE,
					 "the GPU driver supports CUDA %d.%d, older than this build's CUDA %d.%d: update the NVIDIA driver; joins run on the CPU",
					 driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
		else
			exg_fail(err, EXG_ERR_DEVICE, "no usable GPU: %s", cudaGetErrorString(rc));
		(void) cudaGetLastError();	/* clear the sticky error state */
		return 0;
	}
	if (n == 0)
		exg_fail(err, EXG_ERR_DEVICE, "no GPU: the GPU driver sees no device; joins run on the CPU");
	return n;
}

extern "C" const char *
exg_gpu_build_info(void)
{
#define EXG_STR2(x) #x
#define EXG_STR(x) EXG_STR2(x)
	return "CUDA " EXG_STR(__CUDACC_VER_MAJOR__) "." EXG_STR(__CUDACC_VER_MINOR__) " (sm_90)";
}
