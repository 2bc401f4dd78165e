/*
 * test_host_copy.c — exg_copy_parallel equals memcpy, for sizes below, at
 * and above its parallel threshold and not multiples of its pieces.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_copy.h"

int
main(void)
{
	const size_t sizes[] = {0, 1, 4095, (size_t) 16 << 20, ((size_t) 16 << 20) + 1,
	((size_t) 37 << 20) + 12345};
	size_t		max = sizes[sizeof(sizes) / sizeof(sizes[0]) - 1];
	uint8_t    *src = malloc(max + 1),
			   *dst = malloc(max + 2);
	uint64_t	x = 0x9E3779B97F4A7C15u;
	int			failures = 0;

	if (src == NULL || dst == NULL)
		return 2;
	for (size_t i = 0; i < max; i++)
	{
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		src[i] = (uint8_t) x;
	}
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
	{
		memset(dst, 0xA5, max + 2);
		/* one byte off alignment on the destination, as staging offsets may be */
		exg_copy_parallel(dst + 1, src, sizes[k]);
		if (memcmp(dst + 1, src, sizes[k]) != 0 || dst[0] != 0xA5 || dst[sizes[k] + 1] != 0xA5)
		{
			fprintf(stderr, "FAIL: copy of %zu bytes differs or overruns\n", sizes[k]);
			failures++;
		}
	}
	printf("host copy: %zu sizes up to %zu bytes copied exactly, %d failures\n",
		   sizeof(sizes) / sizeof(sizes[0]), max, failures);
	free(src);
	free(dst);
	return failures != 0;
}
