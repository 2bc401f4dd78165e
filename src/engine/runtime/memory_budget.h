/*
 * memory_budget.h — how much host memory one engine call may take for the
 * structures whose size a setting, not the input, decides (grids, cell
 * arrays).
 *
 * Under Linux's overcommit a malloc of tens of gigabytes succeeds and the
 * OOM killer ends the process when the pages are touched; so the engine
 * never relies on malloc failing: it sizes such structures to a budget
 * first, and what still fails to allocate is EXG_ERR_NOMEM.
 */
#ifndef EXG_MEMORY_BUDGET_H
#define EXG_MEMORY_BUDGET_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The budget for a request of `requested` bytes (0: the default, a quarter
 * of the physical memory), never more than half the room left under this
 * process's address-space limit (RLIMIT_AS), and at least 16 MiB.
 */
size_t		exg_memory_budget(size_t requested);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_MEMORY_BUDGET_H */
