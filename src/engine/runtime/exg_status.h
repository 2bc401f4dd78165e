/*
 * exg_status.h — status codes and error messages of the exactgpu engine.
 *
 * The engine never exits, aborts or prints: every failure comes back as an
 * exg_status plus a human-readable message that the PostgreSQL layer turns
 * into an ereport with a matching SQLSTATE.
 */
#ifndef EXG_STATUS_H
#define EXG_STATUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum exg_status
{
	EXG_OK = 0,
	EXG_ERR_NOMEM,			/* host allocation failed */
	EXG_ERR_CORRUPT,		/* malformed serialized geometry */
	EXG_ERR_UNSUPPORTED,	/* geometry type we do not handle (curves, ...) */
	EXG_ERR_NONFINITE,		/* NaN or infinite coordinate */
	EXG_ERR_NONPLANAR,		/* polygon face not planar in exact arithmetic */
	EXG_ERR_INVALID,		/* invalid polygon (cannot be triangulated) */
	EXG_ERR_TOO_LARGE,		/* counts beyond what the engine indexes */
	EXG_ERR_INTERRUPTED,	/* the caller's cancel callback said stop */
	EXG_ERR_DEVICE,			/* GPU runtime failure */
	EXG_ERR_ARGUMENT,		/* caller passed something inconsistent */
	EXG_ERR_NOT_SOLID,		/* a body that bounds no volume: open, not
							 * consistently oriented, inside-out */
	EXG_ERR_WRONG_KIND,		/* a row of a kind the join does not take
							 * (a line where points are joined) */
	EXG_ERR_DEVICE_MEMORY	/* GPU memory exhausted, the input split as
							 * far as it goes: the same join runs on the
							 * CPU (the caller's choice) */
} exg_status;

#define EXG_ERROR_MESSAGE_LEN 256

typedef struct exg_error
{
	exg_status	status;
	char		message[EXG_ERROR_MESSAGE_LEN];
	/* batch functions: 1 + the input row the failure concerns (0: none),
	 * and its side (0 left or points, 1 right or bodies) */
	uint64_t	row;
	int			side;
} exg_error;

/* Record a failure in *err (may be NULL) and return st, printf-style. */
exg_status	exg_fail(exg_error *err, exg_status st, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/* Short fixed name of a status, for messages and tests. */
const char *exg_status_name(exg_status st);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_STATUS_H */
