/*
 * stats.c — per-thread counters summed on demand.
 */
#define _POSIX_C_SOURCE 200809L
#include "stats.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct counter_block
{
	exg_counters c;
	bool		in_use;
	struct counter_block *next;
} counter_block;

static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static counter_block *blocks;
static pthread_key_t block_key;
static pthread_once_t block_once = PTHREAD_ONCE_INIT;
static _Thread_local counter_block *my_block;

/* Used when malloc fails: counts may then race, answers are unaffected. */
static counter_block spare_block;

static void
block_release(void *p)
{
	counter_block *b = p;

	pthread_mutex_lock(&blocks_lock);
	b->in_use = false;
	pthread_mutex_unlock(&blocks_lock);
}

static void
block_key_create(void)
{
	pthread_key_create(&block_key, block_release);
}

exg_counters *
exg_counters_local(void)
{
	counter_block *b;

	if (my_block != NULL)
		return &my_block->c;

	pthread_once(&block_once, block_key_create);
	pthread_mutex_lock(&blocks_lock);
	for (b = blocks; b != NULL && b->in_use; b = b->next)
		;
	if (b == NULL)
	{
		b = calloc(1, sizeof(*b));
		if (b == NULL)
		{
			pthread_mutex_unlock(&blocks_lock);
			return &spare_block.c;
		}
		b->next = blocks;
		blocks = b;
	}
	b->in_use = true;
	pthread_mutex_unlock(&blocks_lock);
	pthread_setspecific(block_key, b);
	my_block = b;
	return &b->c;
}

void
exg_counters_snapshot(exg_counters *sum)
{
	counter_block *b;
	uint64_t   *out = (uint64_t *) sum;
	size_t		k;

	memset(sum, 0, sizeof(*sum));
	pthread_mutex_lock(&blocks_lock);
	for (b = blocks; b != NULL; b = b->next)
		for (k = 0; k < EXG_COUNTERS_N; k++)
			out[k] += ((const uint64_t *) &b->c)[k];
	for (k = 0; k < EXG_COUNTERS_N; k++)
		out[k] += ((const uint64_t *) &spare_block.c)[k];
	pthread_mutex_unlock(&blocks_lock);
}

void
exg_counters_reset(void)
{
	counter_block *b;

	pthread_mutex_lock(&blocks_lock);
	for (b = blocks; b != NULL; b = b->next)
		memset(&b->c, 0, sizeof(b->c));
	memset(&spare_block.c, 0, sizeof(spare_block.c));
	pthread_mutex_unlock(&blocks_lock);
}

uint64_t
exg_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}
