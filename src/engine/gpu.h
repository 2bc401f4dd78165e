/*
 * gpu.h — what the engine asks of the GPU back-end.
 *
 * Implemented by cuda/ when the extension is built with CUDA, and by
 * src/nocuda/gpu_absent.c otherwise. Availability is decided at run time:
 * a CUDA build on a machine without a GPU or driver reports no device.
 */
#ifndef EXG_GPU_H
#define EXG_GPU_H

#include "exg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices; 0 (and a reason in err) when none. */
int			exg_gpu_device_count(exg_error *err);

/* One line describing the GPU build, e.g. "CUDA 13.0 (sm_90)" or "none". */
const char *exg_gpu_build_info(void);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GPU_H */
