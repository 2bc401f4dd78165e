/*
 * gpu_device.cu — GPU availability, decided at run time.
 *
 * Linked with the static CUDA runtime, so the extension loads on machines
 * without CUDA libraries; the runtime opens the driver on the first call,
 * which happens lazily in a backend, never in the postmaster.
 */
#include <cuda_runtime.h>

#include <stdlib.h>

#include <atomic>
#include <string.h>
#include <unistd.h>

#include "gpu.h"
#include "gpu_runtime.cuh"
#include "stats.h"
#include "worker_signals.h"

/*
 * Setup time: per thread, so that a join's difference across it
 * (exg_join_stats.gpu_setup_ns) is what that join paid, whatever other
 * threads set up meanwhile; and the process's total.
 */
static thread_local uint64_t setup_mine;
static std::atomic<uint64_t> setup_total;

extern "C" uint64_t
exg_gpu_setup_ns(void)
{
	return setup_mine;
}

extern "C" uint64_t
exg_gpu_setup_total_ns(void)
{
	return setup_total.load();
}

extern "C" void
exg_gpu_setup_add(uint64_t ns)
{
	setup_mine += ns;
	setup_total += ns;
}

/* exg_gpu_device_count's last answer in this process, -1 before the first */
static std::atomic<int> known_count(-1);

extern "C" int
exg_gpu_device_count(exg_error *err)
{
	int			n = 0;
	sigset_t	old;

	/* the first call starts CUDA's own threads: without the host's signals */
	static std::atomic<bool> opened(false);
	uint64_t	t0 = exg_now_ns();

	exg_signals_block(&old);
	cudaError_t rc = cudaGetDeviceCount(&n);

	exg_signals_restore(&old);
	/*
	 * The first call opens the driver: part of what the first GPU join pays.
	 * Later calls (one per join) are not setup, or every join would report
	 * a setup time; without a GPU nothing is counted (no GPU join follows).
	 */
	if (rc == cudaSuccess && n > 0 && !opened.exchange(true))
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
		known_count = 0;
		return 0;
	}
	known_count = n;
	if (n == 0)
		exg_fail(err, EXG_ERR_DEVICE, "no GPU: the GPU driver sees no device; joins run on the CPU");
	return n;
}

/*
 * cudaGetDeviceCount opens the driver, part of the 0.19-0.36 s a fresh
 * process takes to set the GPU up on the H100 machine
 * (bench/results/2026-11-24-h100-read3.md): too dear for planning a query
 * that may never run on the GPU. The driver's control device says whether
 * one may be there; a wrong guess costs a plan, never an answer (the join
 * then runs on the CPU, as under exactgpu.device = auto it would).
 */
extern "C" bool
exg_gpu_present_hint(void)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");

	if (known_count >= 0)
		return known_count > 0;
	if (visible != NULL && (visible[0] == '\0' || strcmp(visible, "-1") == 0))
		return false;
	return access("/dev/nvidiactl", F_OK) == 0;
}

extern "C" const char *
exg_gpu_build_info(void)
{
#define EXG_STR2(x) #x
#define EXG_STR(x) EXG_STR2(x)
	return "CUDA " EXG_STR(__CUDACC_VER_MAJOR__) "." EXG_STR(__CUDACC_VER_MINOR__) " (sm_90)";
}
