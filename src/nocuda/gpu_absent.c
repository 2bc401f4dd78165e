/*
 * gpu_absent.c — the GPU back-end of a build without CUDA: no device, ever.
 */
#include "gpu.h"

int
exg_gpu_device_count(exg_error *err)
{
	exg_fail(err, EXG_ERR_DEVICE, "exactgpu was built without CUDA");
	return 0;
}

const char *
exg_gpu_build_info(void)
{
	return "none (built without CUDA)";
}

