/*
 * gpu_hog — holds all but LEAVE_MB of every GPU's free memory for SECONDS,
 * so that a join meanwhile meets a GPU out of memory (the fault bench,
 * bench/run-device-faults.sh): the join must fall back or chunk, and say so.
 *   gpu_hog LEAVE_MB SECONDS
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	size_t		leave = (size_t) (argc > 1 ? atol(argv[1]) : 64) << 20;
	int			seconds = argc > 2 ? atoi(argv[2]) : 20,
				n = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)
	{
		fprintf(stderr, "gpu_hog: no GPU\n");
		return 1;
	}
	for (int d = 0; d < n; d++)
	{
		size_t		free_b = 0,
					total = 0;
		void	   *p = NULL;

		cudaSetDevice(d);
		cudaMemGetInfo(&free_b, &total);
		/* the allocation may round up: step down until it fits */
		for (size_t want = free_b > leave ? free_b - leave : 0; want > 0; want -= want / 64)
			if (cudaMalloc(&p, want) == cudaSuccess)
			{
				printf("gpu_hog: GPU %d: holding %zu MB of %zu MB free\n", d, want >> 20, free_b >> 20);
				break;
			}
	}
	fflush(stdout);
	sleep(seconds);
	return 0;
}
