/*
 * mesh_number.c — decimal text to double and back, bit for bit.
 *
 * Reading: glibc's strtod returns the double nearest the decimal number
 * (ties to even) for any number of digits, and PostgreSQL backends keep
 * LC_NUMERIC at "C", so '.' is the decimal point. Writing: %.17g always
 * reads back as the same double (17 significant digits separate any two
 * doubles, and glibc prints the exact decimal expansion correctly
 * rounded); the shortest of %.15g, %.16g, %.17g that reads back is used,
 * so 0.1 is written "0.1", not "0.10000000000000001".
 */
#include "mesh.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longer numbers than this are refused rather than copied (no real file
 * needs 500 digits; the bound keeps the copy on the stack). */
#define NUMBER_MAX_LEN 500

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

exg_status
exg_mesh_parse_double(const char *s, size_t len, double *out, const char *where,
					  exg_error *err)
{
	char		buf[NUMBER_MAX_LEN + 1];
	char	   *end;
	size_t		i = 0,
				digits = 0;
	double		v;

	if (len > NUMBER_MAX_LEN)
		return exg_fail(err, EXG_ERR_CORRUPT, "%s: number longer than %d characters",
						where, NUMBER_MAX_LEN);
	/* the grammar first: strtod alone would take "nan", "inf" and hex */
	if (i < len && (s[i] == '+' || s[i] == '-'))
		i++;
	for (; i < len && is_digit(s[i]); i++)
		digits++;
	if (i < len && s[i] == '.')
		for (i++; i < len && is_digit(s[i]); i++)
			digits++;
	if (digits > 0 && i < len && (s[i] == 'e' || s[i] == 'E'))
	{
		size_t		e = 0;

		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		for (; i < len && is_digit(s[i]); i++)
			e++;
		if (e == 0)
			digits = 0;
	}
	if (digits == 0 || i != len)
		return exg_fail(err, EXG_ERR_CORRUPT, "%s: \"%.*s\" is not a decimal number",
						where, (int) (len > 40 ? 40 : len), s);
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (end != buf + len)
		return exg_fail(err, EXG_ERR_CORRUPT, "%s: \"%s\" is not a decimal number", where, buf);
	/* ERANGE on underflow still gives the correctly rounded subnormal or zero */
	if (!isfinite(v))
		return exg_fail(err, EXG_ERR_NONFINITE, "%s: %s is beyond the double range", where, buf);
	*out = v;
	return EXG_OK;
}

int
exg_mesh_format_double(char *buf, double x)
{
	for (int prec = 15; prec < 17; prec++)
	{
		int			n = snprintf(buf, 32, "%.*g", prec, x);

		if (strtod(buf, NULL) == x && signbit(strtod(buf, NULL)) == signbit(x))
			return n;
	}
	return snprintf(buf, 32, "%.17g", x);
}
