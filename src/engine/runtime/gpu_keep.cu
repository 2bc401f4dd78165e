/*
 * gpu_keep.cu — device copies of host memory the caller declared immutable
 * (exg_gpu_keep, gpu.h): the resident store's packed bodies, joined again
 * and again against new holes, are uploaded once per device and then
 * borrowed by every join whose uploads lie within them
 * (exg_gpu_upload_array).
 *
 * A kept range is copied whole, on the first join that reads from it on a
 * device; an upload of any part of it is the copy plus an offset, so the
 * vertices, triangles and owners of a packed batch, and any slice of them
 * (a chunk of a join split over devices), all come from one copy. A copy in
 * use by a join is pinned and never evicted; the others go least recently
 * used first, to stay within the budget or when a join's allocation fails.
 * Copies are plain cudaMalloc'ed memory, outside the join's memory pool, so
 * that the pool still drains to zero after each join.
 *
 * What a join derives from a kept copy alone (the bodies' classified
 * primitives and boxes, exg_gpu_kept_derived) is kept with the copy, under
 * the same budget, and freed with it: the next join against the same bodies
 * prepares only its new side.
 */
#include <string.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <vector>

#include "gpu.h"
#include "gpu_runtime.cuh"
#include "stats.h"

#define KEEP_DEVICES 16
/*
 * A copy starts at the host range's address modulo this, so that an array
 * within it is as aligned on the device as on the host (the range may
 * start anywhere; the arrays in it are aligned for their types).
 */
#define KEEP_ALIGN 256

enum copy_state
{
	COPY_NONE = 0,
	COPY_LOADING,				/* one thread uploads it; others wait for it */
	COPY_READY
};

struct keep_range;

/* A block derived from a copy, made by one join and then read by all. */
struct keep_derived
{
	uint64_t	key[4];
	char	   *p;
	size_t		bytes;
	bool		ready;			/* filled: later joins wait for `made` on their stream */
	cudaEvent_t made;
	size_t		head_bytes;		/* its header's host copy (exg_gpu_kept_derived_head) */
	char		head[EXG_KEPT_HEAD_MAX];
};

struct keep_copy
{
	keep_range *owner;
	int			device;
	copy_state	state;
	int			pins;			/* joins using it now */
	uint64_t	used;			/* tick of its last use, for LRU */
	char	   *base;			/* cudaMalloc'ed */
	char	   *dev;			/* the copy of lo: base + lo % KEEP_ALIGN */
	cudaEvent_t idle;			/* recorded when a join lets it go */
	std::vector<keep_derived> derived;
	size_t		derived_bytes;
};

#define KEEP_SEAL_ENDS 32		/* bytes at each end */
#define KEEP_SEAL_SAMPLES 64	/* 8-byte words spread over the range */
#define KEEP_SEAL (2 * KEEP_SEAL_ENDS + 8 * KEEP_SEAL_SAMPLES)

struct keep_range
{
	uintptr_t	lo,
				hi;
	uint64_t	tag;
	/*
	 * Its ends and words spread over it when it was declared: memory freed
	 * and reused without being forgotten (a caller's bug) shows as changed
	 * bytes here on most reuses, and is then forgotten, not served stale.
	 */
	unsigned char seal[KEEP_SEAL];
	bool		dead;			/* forgotten: freed once no join uses it */
	int			waiters;		/* threads waiting for a copy of it to load */
	keep_copy	copy[KEEP_DEVICES];
};

struct keep_device
{
	size_t		total;			/* the device's memory, for the default budget */
	size_t		bytes;			/* held by copies, those being loaded included */
	size_t		pinned;			/* of them, in use */
	uint64_t	copies;
	uint64_t	hits;
	uint64_t	misses;
	uint64_t	saved;
	uint64_t	uploaded;
	uint64_t	evictions;
	uint64_t	derived_made;
	uint64_t	derived_hits;
};

static std::mutex keep_lock;
static std::condition_variable keep_changed;
static std::map<uintptr_t, keep_range *> live;	/* by lo; disjoint */
static std::vector<keep_range *> dead;	/* forgotten, some copy still in use */
static keep_device devs[KEEP_DEVICES];
static uint64_t tick;
static bool budget_given;
static size_t budget_bytes;

/* The calling thread's current device switched to d for a scope. */
struct device_scope
{
	int			want;
	int			prev;

	explicit	device_scope(int d) : want(d), prev(exg_gpu_device_enter(d)) {}
	~device_scope() { exg_gpu_device_leave(want, prev); }
};

static size_t
budget_of(int d)
{
	return budget_given ? budget_bytes : devs[d].total / 2;
}

static size_t
range_bytes(const keep_range *r)
{
	return r->hi - r->lo;
}

/* A copy's device bytes: the range's and what was derived from it. */
static size_t
copy_bytes(const keep_copy &c)
{
	return range_bytes(c.owner) + c.derived_bytes;
}

/* Free a copy no join uses (keep_lock held). */
static void
copy_free(keep_copy &c)
{
	device_scope ds(c.device);

	if (c.idle)
	{
		(void) cudaEventSynchronize(c.idle);	/* the last join's kernels done */
		(void) cudaEventDestroy(c.idle);
		c.idle = nullptr;
	}
	if (c.base)
		(void) cudaFree(c.base);
	for (keep_derived &x : c.derived)
	{
		(void) cudaFree(x.p);
		if (x.made)
			(void) cudaEventDestroy(x.made);
	}
	c.derived.clear();
	devs[c.device].bytes -= copy_bytes(c);
	c.derived_bytes = 0;
	devs[c.device].copies--;
	c.base = nullptr;
	c.dev = nullptr;
	c.state = COPY_NONE;
}

/* Delete a dead range once none of its copies is left (keep_lock held). */
static void
range_collect(keep_range *r)
{
	if (r->waiters > 0)
		return;					/* the last waiter collects it */
	for (int d = 0; d < KEEP_DEVICES; d++)
		if (r->copy[d].state != COPY_NONE)
			return;
	for (size_t i = 0; i < dead.size(); i++)
		if (dead[i] == r)
		{
			dead.erase(dead.begin() + i);
			break;
		}
	delete r;
}

/* Forget r: out of the lookup now, its copies freed as they fall idle (keep_lock held). */
static void
range_kill(keep_range *r)
{
	r->dead = true;
	for (int d = 0; d < KEEP_DEVICES; d++)
		if (r->copy[d].state == COPY_READY && r->copy[d].pins == 0)
			copy_free(r->copy[d]);
	dead.push_back(r);
	range_collect(r);
}

/* Sample r's bytes into out (KEEP_SEAL bytes; what a short range lacks stays 0). */
static void
seal_take(const keep_range *r, unsigned char *out)
{
	const unsigned char *p = (const unsigned char *) r->lo;
	size_t		n = r->hi - r->lo,
				e = n < KEEP_SEAL_ENDS ? n : KEEP_SEAL_ENDS;

	memset(out, 0, KEEP_SEAL);
	memcpy(out, p, e);
	memcpy(out + KEEP_SEAL_ENDS, p + n - e, e);
	if (n >= 8)
		for (size_t i = 0; i < KEEP_SEAL_SAMPLES; i++)
			memcpy(out + 2 * KEEP_SEAL_ENDS + 8 * i, p + i * (n - 8) / (KEEP_SEAL_SAMPLES - 1), 8);
}

static bool
seal_intact(const keep_range *r)
{
	unsigned char now[KEEP_SEAL];

	seal_take(r, now);
	return memcmp(now, r->seal, KEEP_SEAL) == 0;
}

/* The least recently used idle copy on device d, or NULL (keep_lock held). */
static keep_copy *
lru_idle(int d)
{
	keep_copy  *best = nullptr;

	for (auto &kv : live)
	{
		keep_copy  &c = kv.second->copy[d];

		if (c.state == COPY_READY && c.pins == 0 && (best == nullptr || c.used < best->used))
			best = &c;
	}
	return best;
}

/* Evict idle copies on d until `enough` says stop; returns the bytes freed (keep_lock held). */
template <typename F>
static size_t
evict_until(int d, F enough)
{
	size_t		freed = 0;
	keep_copy  *c;

	while (!enough(freed) && (c = lru_idle(d)) != nullptr)
	{
		freed += copy_bytes(*c);
		copy_free(*c);
		devs[d].evictions++;
	}
	return freed;
}

size_t
exg_gpu_kept_evict(int device, size_t bytes)
{
	if (device < 0 || device >= KEEP_DEVICES)
		return 0;

	std::lock_guard<std::mutex> g(keep_lock);

	return evict_until(device, [&](size_t freed) { return freed >= bytes; });
}

size_t
exg_gpu_kept_evictable(int device)
{
	if (device < 0 || device >= KEEP_DEVICES)
		return 0;

	std::lock_guard<std::mutex> g(keep_lock);

	return devs[device].bytes - devs[device].pinned;
}

/* cudaMalloc for a copy: the contexts' caches and the pool's idle memory trimmed, then idle copies evicted, if need be. */
static void *
copy_alloc(int d, size_t bytes)
{
	void	   *p = nullptr;

	for (int attempt = 0; attempt < 3; attempt++)
	{
		cudaError_t rc = cudaMalloc(&p, bytes);

		if (rc == cudaSuccess)
			return p;
		(void) cudaGetLastError();
		if (rc != cudaErrorMemoryAllocation)
			return nullptr;
		if (attempt == 0)
		{
			cudaMemPool_t pool;

			(void) exg_gpu_cache_trim(d, true);
			if (cudaDeviceGetDefaultMemPool(&pool, d) == cudaSuccess)
				(void) cudaMemPoolTrimTo(pool, 0);
		}
		else
		{
			std::lock_guard<std::mutex> g(keep_lock);

			evict_until(d, [&](size_t freed) { return freed >= bytes; });
		}
	}
	return nullptr;
}

void *
exg_gpu_kept_acquire(const void *host, size_t bytes, void **ref)
{
	uintptr_t	a = (uintptr_t) host;
	exg_gpu_context *ctx;
	int			d;
	keep_range *r;

	*ref = nullptr;
	if (host == nullptr || bytes == 0)
		return nullptr;
	{
		std::lock_guard<std::mutex> g(keep_lock);

		if (live.empty())
			return nullptr;
	}
	ctx = exg_gpu_context_get();
	d = ctx->device;
	if (d < 0 || d >= KEEP_DEVICES)
		return nullptr;

	std::unique_lock<std::mutex> lk(keep_lock);
	auto		it = live.upper_bound(a);

	if (it == live.begin())
		return nullptr;
	r = (--it)->second;
	if (a < r->lo || a + bytes > r->hi)
		return nullptr;
	if (!seal_intact(r))
	{
		/* written again or reused without exg_gpu_keep_forget: forget it now */
		live.erase(it);
		range_kill(r);
		return nullptr;
	}

	keep_copy  &c = r->copy[d];
	size_t		size = range_bytes(r);

	devs[d].total = ctx->total_memory;
	r->waiters++;
	while (c.state == COPY_LOADING)
		keep_changed.wait(lk);
	r->waiters--;
	if (r->dead)
	{
		/* forgotten while we waited: as if never kept */
		range_collect(r);
		return nullptr;
	}
	if (c.state == COPY_READY)
	{
		if (c.pins++ == 0)
			devs[d].pinned += copy_bytes(c);
		c.used = ++tick;
		devs[d].hits++;
		devs[d].saved += bytes;
		*ref = &c;
		return c.dev + (a - r->lo);
	}

	/* a miss: the whole range up, within the budget */
	devs[d].misses++;
	evict_until(d, [&](size_t) { return devs[d].bytes + size <= budget_of(d); });
	if (devs[d].bytes + size > budget_of(d))
		return nullptr;
	c.owner = r;
	c.device = d;
	c.state = COPY_LOADING;
	c.pins = 1;
	devs[d].bytes += size;		/* reserved while it loads */
	devs[d].pinned += size;
	devs[d].copies++;
	lk.unlock();

	char	   *p = nullptr;
	char	   *at = nullptr;
	bool		ok = false;

	/* no copy after all (lock held): its reservation back, its waiters woken */
	auto		give_up = [&]() {
		c.base = p;				/* freed by copy_free, where allocated */
		c.pins = 0;
		devs[d].pinned -= size;
		copy_free(c);
		keep_changed.notify_all();
		if (r->dead)
			range_collect(r);
	};

	try
	{
		p = (char *) copy_alloc(d, size + KEEP_ALIGN);
		if (p)
		{
			at = p + r->lo % KEEP_ALIGN;
			exg_gpu_upload_bytes(at, (const void *) r->lo, size, ctx->stream);
			EXG_CUDA(cudaStreamSynchronize(ctx->stream));	/* ready for every stream */
			ok = true;
		}
	}
	catch (...)
	{
		lk.lock();
		give_up();
		throw;
	}
	lk.lock();
	if (!ok)
	{
		give_up();
		return nullptr;
	}
	c.base = p;
	c.dev = at;
	c.state = COPY_READY;
	c.used = ++tick;
	devs[d].uploaded += size;
	keep_changed.notify_all();
	*ref = &c;
	return at + (a - r->lo);
}

void
exg_gpu_kept_release(void *ref)
{
	keep_copy  *c = (keep_copy *) ref;
	exg_gpu_context *ctx = nullptr;

	if (c == nullptr)
		return;
	try
	{
		ctx = exg_gpu_context_get();
	}
	catch (...)
	{
		ctx = nullptr;
	}

	std::lock_guard<std::mutex> g(keep_lock);
	keep_range *r = c->owner;

	/* what the join queued on the copy is done before it is freed */
	if (ctx && ctx->device == c->device)
	{
		if (c->idle == nullptr &&
			cudaEventCreateWithFlags(&c->idle, cudaEventDisableTiming) != cudaSuccess)
			c->idle = nullptr;
		if (c->idle && cudaEventRecord(c->idle, ctx->stream) != cudaSuccess)
			(void) cudaStreamSynchronize(ctx->stream);
		(void) cudaGetLastError();
	}
	if (--c->pins > 0)
		return;
	devs[c->device].pinned -= copy_bytes(*c);
	if (r->dead)
	{
		copy_free(*c);
		range_collect(r);
	}
	else if (devs[c->device].bytes > budget_of(c->device))
		evict_until(c->device, [&](size_t) { return devs[c->device].bytes <= budget_of(c->device); });
}

void *
exg_gpu_kept_derived(void *ref, const uint64_t key[4], size_t *bytes, cudaStream_t s, bool *make)
{
	keep_copy  *c = (keep_copy *) ref;
	int			d;
	void	   *p;

	if (make)
		*make = false;
	if (c == nullptr || (make && *bytes == 0))
		return nullptr;
	d = c->device;
	{
		std::lock_guard<std::mutex> g(keep_lock);

		for (keep_derived &x : c->derived)
			if (memcmp(x.key, key, sizeof(x.key)) == 0)
			{
				if (!x.ready || (make && x.bytes != *bytes))
					return nullptr;		/* another join is making it: make one's own */
				if (x.made)
					EXG_CUDA(cudaStreamWaitEvent(s, x.made));
				devs[d].derived_hits++;
				*bytes = x.bytes;
				return x.p;
			}
		if (make == nullptr)
			return nullptr;
		/* room within the budget (c itself is pinned: others go first) */
		evict_until(d, [&](size_t) { return devs[d].bytes + *bytes <= budget_of(d); });
		if (devs[d].bytes + *bytes > budget_of(d))
			return nullptr;
		keep_derived x = {};

		memcpy(x.key, key, sizeof(x.key));
		x.bytes = *bytes;
		c->derived.push_back(x);
		c->derived_bytes += *bytes;
		devs[d].bytes += *bytes;	/* reserved while it is allocated */
		devs[d].pinned += *bytes;
	}
	p = copy_alloc(d, *bytes);

	std::lock_guard<std::mutex> g(keep_lock);

	for (size_t i = 0; i < c->derived.size(); i++)
		if (memcmp(c->derived[i].key, key, sizeof(c->derived[i].key)) == 0)
		{
			if (p == nullptr)
			{
				c->derived.erase(c->derived.begin() + i);
				c->derived_bytes -= *bytes;
				devs[d].bytes -= *bytes;
				devs[d].pinned -= *bytes;
				return nullptr;
			}
			c->derived[i].p = (char *) p;
			*make = true;
			return p;
		}
	(void) cudaFree(p);			/* unreachable: only its maker removes an entry */
	return nullptr;
}

bool
exg_gpu_kept_derived_head(void *ref, const void *p, void *head, size_t n, bool set)
{
	keep_copy  *c = (keep_copy *) ref;

	if (c == nullptr || p == nullptr || n == 0 || n > EXG_KEPT_HEAD_MAX)
		return false;

	std::lock_guard<std::mutex> g(keep_lock);

	for (keep_derived &x : c->derived)
		if (x.p == p)
		{
			if (set)
			{
				memcpy(x.head, head, n);
				x.head_bytes = n;
				return true;
			}
			if (x.head_bytes != n)
				return false;
			memcpy(head, x.head, n);
			return true;
		}
	return false;
}

void
exg_gpu_kept_derived_done(void *ref, void *p, cudaStream_t s, bool ok)
{
	keep_copy  *c = (keep_copy *) ref;

	if (c == nullptr || p == nullptr)
		return;

	std::lock_guard<std::mutex> g(keep_lock);

	for (size_t i = 0; i < c->derived.size(); i++)
	{
		keep_derived &x = c->derived[i];

		if (x.p != p)
			continue;
		if (ok)
		{
			/*
			 * Ready for later joins from the event; with no event, once the
			 * maker's stream is done (never freed here: the maker is still
			 * reading it)
			 */
			if (cudaEventCreateWithFlags(&x.made, cudaEventDisableTiming) != cudaSuccess ||
				cudaEventRecord(x.made, s) != cudaSuccess)
			{
				(void) cudaGetLastError();
				if (x.made)
					(void) cudaEventDestroy(x.made);
				x.made = nullptr;
				(void) cudaStreamSynchronize(s);
			}
			x.ready = true;
			devs[c->device].derived_made++;
			return;
		}
		/* not made after all (its maker failed): its kernels done, then freed */
		(void) cudaStreamSynchronize(s);
		(void) cudaFree(x.p);
		devs[c->device].bytes -= x.bytes;
		devs[c->device].pinned -= x.bytes;
		c->derived_bytes -= x.bytes;
		c->derived.erase(c->derived.begin() + i);
		return;
	}
}

extern "C" bool
exg_gpu_keep(const void *host, size_t bytes, uint64_t tag)
{
	uintptr_t	lo = (uintptr_t) host,
				hi = lo + bytes;

	if (host == nullptr || bytes == 0)
		return false;

	std::lock_guard<std::mutex> g(keep_lock);
	std::vector<keep_range *> gone;

	for (auto &kv : live)
	{
		keep_range *r = kv.second;

		if (r->lo == lo && r->hi == hi && r->tag == tag)
			return true;		/* declared before: its copies stay */
		if (r->tag == tag || (r->lo < hi && lo < r->hi))
			gone.push_back(r);
	}
	try
	{
		keep_range *r = new keep_range();

		r->lo = lo;
		r->hi = hi;
		r->tag = tag;
		seal_take(r, r->seal);
		for (int d = 0; d < KEEP_DEVICES; d++)
		{
			r->copy[d].owner = r;
			r->copy[d].device = d;
		}
		for (keep_range *old : gone)
		{
			live.erase(old->lo);
			range_kill(old);
		}
		live[lo] = r;
	}
	catch (std::bad_alloc &)
	{
		return false;
	}
	return true;
}

extern "C" void
exg_gpu_keep_forget(uint64_t tag)
{
	std::lock_guard<std::mutex> g(keep_lock);

	for (auto it = live.begin(); it != live.end();)
		if (it->second->tag == tag)
		{
			keep_range *r = it->second;

			it = live.erase(it);
			range_kill(r);
		}
		else
			++it;
}

extern "C" void
exg_gpu_keep_forget_all(void)
{
	std::lock_guard<std::mutex> g(keep_lock);

	while (!live.empty())
	{
		keep_range *r = live.begin()->second;

		live.erase(live.begin());
		range_kill(r);
	}
}

extern "C" void
exg_gpu_keep_budget(size_t bytes)
{
	std::lock_guard<std::mutex> g(keep_lock);

	budget_given = true;
	budget_bytes = bytes;
	for (int d = 0; d < KEEP_DEVICES; d++)
		evict_until(d, [&](size_t) { return devs[d].bytes <= budget_bytes; });
}

extern "C" bool
exg_gpu_kept_covers(const void *host, size_t bytes)
{
	uintptr_t	a = (uintptr_t) host;

	std::lock_guard<std::mutex> g(keep_lock);
	auto		it = live.upper_bound(a);

	if (host == nullptr || it == live.begin())
		return false;
	--it;
	return a >= it->second->lo && a + bytes <= it->second->hi;
}

extern "C" bool
exg_gpu_keep_info(int device, exg_gpu_keep_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (device < 0 || device >= KEEP_DEVICES)
		return false;

	std::lock_guard<std::mutex> g(keep_lock);
	const keep_device &k = devs[device];

	out->bytes_kept = k.bytes;
	out->bytes_in_use = k.pinned;
	out->copies = k.copies;
	out->hits = k.hits;
	out->misses = k.misses;
	out->bytes_saved = k.saved;
	out->bytes_uploaded = k.uploaded;
	out->evictions = k.evictions;
	out->derived_made = k.derived_made;
	out->derived_hits = k.derived_hits;
	for (auto &kv : live)
		out->derived_bytes += kv.second->copy[device].derived_bytes;
	for (keep_range *r : dead)
		out->derived_bytes += r->copy[device].derived_bytes;
	out->budget = budget_given || k.total ? budget_of(device) : 0;
	out->ranges = live.size();
	return true;
}
