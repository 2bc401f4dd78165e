/*
 * solid_check.c — the one "is this a valid solid" decision (solid_check.h).
 */
#include "solid_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interval_double.h"
#include "known_bodies.h"
#include "mesh_edges.h"
#include "orient_cascade.h"
#include "outward.h"
#include "parallel.h"
#include "self_intersect.h"

/* The name of a component kind, for "a POINT where a surface is expected". */
static const char *
comp_kind_name(int kind)
{
	switch (kind)
	{
		case EXG_COMP_POINT:
			return "point";
		case EXG_COMP_LINE:
			return "line";
		case EXG_COMP_POLYGON:
			return "polygon";
		default:
			return "triangle";
	}
}

/*
 * Has the shape elevations? A shape read from PostGIS bytes without Z has
 * z = 0 everywhere; one built by an engine caller may leave has_z unset and
 * still carry its z.
 */
static bool
any_z(const exg_shape *s)
{
	for (size_t v = 0; v < s->nverts; v++)
		if (s->xyz[3 * v + 2] != 0)
			return true;
	return false;
}

static void
edge_text(char *buf, size_t len, const char *what, unsigned long long n, const char *tail,
		  const double *e)
{
	snprintf(buf, len, "%s: %llu %s, e.g. (%.17g %.17g %.17g)-(%.17g %.17g %.17g)", what, n, tail,
			 e[0], e[1], e[2], e[3], e[4], e[5]);
}

/*
 * Do triangles A and B lie in one plane with opposite normals? Two shells
 * that touch along a face (each on its own side) meet so: the self-
 * intersection test reports the contact, but no point is inside both, so
 * parity still gives their union. Coplanar with the same normal, the solids
 * are on the same side of the contact: they overlap. Exact signs; the
 * caller is in round-up mode.
 */
static bool
facing_coplanar(const double *const *A, const double *const *B)
{
	int			sa = 0,
				sb,
				u = 0,
				v = 0;

	for (int j = 0; j < 3; j++)
		if (exg_orient3d_ru(A[0], A[1], A[2], B[j]) != 0)
			return false;
	/* a projection in which A has area, hence B too (same plane) */
	for (int k = 0; k < 3 && sa == 0; k++)
	{
		u = (k + 1) % 3;
		v = (k + 2) % 3;
		sa = exg_orient2d_ru(A[0], A[1], A[2], u, v);
	}
	sb = exg_orient2d_ru(B[0], B[1], B[2], u, v);
	return sa != 0 && sa * sb < 0;
}

/*
 * Of the improper pairs (faces, tri_of_face: one proper triangle of each
 * face, indices into T), those that leave no well-defined inside: all of
 * them unless every edge is used equally often in both directions (else
 * "facing" means nothing), else those that are not two faces touching face
 * to face.
 * Returns how many, and one of them in *example.
 */
static size_t
overlapping_pairs(const exg_prim_set *T, const uint32_t *tri_of_face, const exg_pair *pairs,
				  size_t npairs, bool oriented, exg_pair *example)
{
	exg_round_state saved;
	size_t		k,
				n = 0;

	if (!oriented)
	{
		if (npairs)
			*example = pairs[0];
		return npairs;
	}
	saved = exg_round_up_enter();
	for (k = 0; k < npairs; k++)
	{
		const double *A[3],
				   *B[3];

		for (int j = 0; j < 3; j++)
		{
			A[j] = &T->xyz[3 * (size_t) T->vidx[3 * (size_t) tri_of_face[pairs[k].a] + j]];
			B[j] = &T->xyz[3 * (size_t) T->vidx[3 * (size_t) tri_of_face[pairs[k].b] + j]];
		}
		if (facing_coplanar(A, B))
			continue;
		if (n++ == 0)
			*example = pairs[k];
	}
	exg_round_restore(saved);
	return n;
}

/* Record the first reason for a need (later defects do not replace it). */
static void
note(char *why, size_t len, const char *fmt,...) __attribute__((format(printf, 3, 4)));

static void
note(char *why, size_t len, const char *fmt,...)
{
	va_list		ap;

	if (why[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/*
 * The verdicts, written into g->solid_why (any defect) and g->inside_why
 * (those that leave no well-defined inside): "" when none. The status is
 * that of the judging; a failure there leaves no verdict.
 */
static exg_status
judge(exg_prepared *g, const exg_join_options *opt, exg_error *err)
{
	const exg_shape *s = &g->shape;
	char	   *valid = g->solid_why,
			   *inside = g->inside_why;
	const size_t len = sizeof(g->solid_why);
	const exg_view *v;
	exg_prim_set T = {0};
	exg_edge_report rep;
	exg_pair   *pairs = NULL;
	uint32_t   *vidx = NULL,
			   *face = NULL,
			   *one = NULL;
	uint8_t    *flip = NULL;
	size_t		c,
				t,
				n = 0,
				npairs = 0,
				faces = 0,
				other = 0;
	long long	degenerate = 0;
	char		why[EXG_ERROR_MESSAGE_LEN];
	bool		flat;
	static const char no_z[] =
		"has no Z: a surface without Z bounds no volume (was Z dropped on import? ogr2ogr keeps it with -dim XYZ)";
	exg_status	st;

	valid[0] = inside[0] = '\0';
	why[0] = '\0';
	if (exg_shape_is_empty(s))
		snprintf(why, len, "empty geometry");
	else
	{
		for (c = 0; c < s->ncomps; c++)
		{
			if (s->comps[c].kind == EXG_COMP_POLYGON || s->comps[c].kind == EXG_COMP_TRIANGLE)
				faces++;
			else if (other == 0)
				other = c + 1;	/* 1-based: the first component that is no face */
		}
		/* points or lines only: most often the arguments were swapped */
		if (faces == 0)
			snprintf(why, len,
					 "not a surface: a %s geometry where a closed surface (TIN or POLYHEDRALSURFACE Z) is expected",
					 comp_kind_name(s->comps[0].kind));
		else if (other)
			snprintf(why, len, "not a surface: component %zu is not a polygon or triangle", other);
	}
	if (why[0] != '\0')
	{
		note(valid, len, "%s", why);
		note(inside, len, "%s", why);
		return EXG_OK;
	}
	/* a surface in the plane z = 0 bounds no volume: no valid solid. Its
	 * inside is judged as any other's (2D inputs meet in z = 0), but what
	 * is wrong with it is said as the missing Z (see the end), not as the
	 * self-intersections that flattening made */
	flat = !s->has_z && !any_z(s);
	if (flat)
		note(valid, len, "%s", no_z);
	if ((st = exg_prepared_view3d(g, false, &v, err)) != EXG_OK)
		return st;
	vidx = malloc(sizeof(uint32_t) * 3 * (v->prims.nprims + 1));
	face = malloc(sizeof(uint32_t) * (v->prims.nprims + 1));
	one = calloc(v->prims.nprims + 1, sizeof(uint32_t));
	flip = malloc(s->ncomps + 1);
	if (vidx == NULL || face == NULL || one == NULL || flip == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory checking a surface");
		goto done;
	}
	for (t = 0; t < v->prims.nprims; t++)
	{
		const exg_prim *pr = &v->prims.prims[t];

		if (pr->kind != EXG_SIMPLEX_TRIANGLE)
		{
			if (degenerate == 0)
				degenerate = (long long) v->prims.comp[t] + 1;
			continue;
		}
		memcpy(&vidx[3 * n], pr->v, 3 * sizeof(uint32_t));
		face[n++] = v->prims.comp[t];
	}
	/* a zero-area face is left out of what follows: parity never counts it */
	if (degenerate)
		note(valid, len, "degenerate face %lld (zero area)", degenerate);
	T.xyz = v->prims.xyz;
	T.nverts = (uint32_t) s->nverts;
	T.vidx = vidx;
	T.nprims = (uint32_t) n;
	T.arity = 3;
	T.slice = false;
	if ((st = exg_mesh_edges(&T, one, 1, &rep, err)) != EXG_OK)
		goto done;
	if (n == 0 || rep.odd)
	{
		if (n == 0)
			snprintf(why, len, "not a surface: no face with area");
		else
			edge_text(why, len, "not closed", (unsigned long long) rep.odd,
					  "edges used by an odd number of faces", rep.example);
		note(valid, len, "%s", why);
		note(inside, len, "%s", why);
		goto done;
	}
	if (rep.non_manifold)
	{
		edge_text(why, len, "not 2-manifold", (unsigned long long) rep.non_manifold,
				  "edges shared by more than two faces", rep.example);
		note(valid, len, "%s", why);
	}
	else if (rep.misoriented)
	{
		edge_text(why, len, "inconsistently oriented", (unsigned long long) rep.misoriented,
				  "edges used twice in the same direction", rep.example);
		note(valid, len, "%s", why);
	}
	if ((st = exg_self_intersections(&T, face, opt, &pairs, &npairs, NULL, err)) != EXG_OK)
		goto done;
	if (npairs)
	{
		exg_pair	ex = pairs[0];
		size_t		over;

		snprintf(why, len, "self-intersecting: %zu pairs of faces meet improperly, e.g. faces %u and %u",
				 npairs, pairs[0].a + 1, pairs[0].b + 1);
		note(valid, len, "%s", why);
		/* for the inside, shells touching face to face are fine (parity
		 * gives their union); an overlap is not. tri_of_face: reuse one */
		for (t = n; t-- > 0;)
			one[face[t]] = (uint32_t) t;
		over = overlapping_pairs(&T, one, pairs, npairs,
								 rep.unbalanced == 0, &ex);
		if (over)
			note(inside, len,
				 "self-intersecting: %zu pairs of faces meet improperly (the shells overlap), e.g. faces %u and %u",
				 over, ex.a + 1, ex.b + 1);
		goto done;
	}
	/* orientation and nesting: only for a surface valid so far (outward.h
	 * needs 2-manifold edges) */
	if (valid[0] == '\0')
	{
		exg_outward_report orep;
		exg_error	oerr = {0};

		st = exg_outward_flips(&v->prims, (uint32_t) s->ncomps, flip, &orep, &oerr);
		if (st == EXG_ERR_NOT_SOLID)
		{
			/* no orientation exists (touching shells, ...): that is the verdict */
			note(valid, len, "%s", oerr.message);
			st = EXG_OK;
		}
		else if (st != EXG_OK)
		{
			if (err)
				*err = oerr;
		}
		else if (orep.inward_shells)
			note(valid, len,
				 "inside out: %u of %u shells have inward normals (the exact signed volume of an outer shell is negative, or of a cavity positive), e.g. the shell of face %u; ST_ExactForceOutward(geom) orients it outward",
				 orep.inward_shells, orep.shells, orep.first_inward_face);
	}
done:
	if (st == EXG_OK && flat && inside[0] != '\0')
		snprintf(inside, len, "%s", no_z);
	free(pairs);
	free(vidx);
	free(face);
	free(one);
	free(flip);
	return st;
}

exg_status
exg_solid_check(exg_prepared *g, const exg_join_options *opt, exg_solid_need need, bool *ok,
				char *why, size_t why_len, exg_error *err)
{
	const char *reason;

	if (g->solid_judged == 0)
	{
		exg_status	st = judge(g, opt, err);

		if (st != EXG_OK)
		{
			g->solid_why[0] = g->inside_why[0] = '\0';
			return st;
		}
		g->solid_judged = 1;
	}
	reason = need == EXG_SOLID_VALID ? g->solid_why : g->inside_why;
	*ok = reason[0] == '\0';
	if (why != NULL && why_len > 0)
		snprintf(why, why_len, "%s", reason);
	return EXG_OK;
}

exg_status
exg_solid_require(exg_prepared *g, const exg_join_options *opt, exg_solid_need need,
				  exg_error *err)
{
	bool		ok;
	exg_status	st = exg_solid_check(g, opt, need, &ok, NULL, 0, err);

	if (st != EXG_OK || ok)
		return st;
	return exg_fail(err, EXG_ERR_NOT_SOLID, "%s",
					need == EXG_SOLID_VALID ? g->solid_why : g->inside_why);
}

void
exg_solid_set_verdicts(exg_prepared *g, const char *solid_why, const char *inside_why)
{
	snprintf(g->solid_why, sizeof(g->solid_why), "%s", solid_why ? solid_why : "");
	snprintf(g->inside_why, sizeof(g->inside_why), "%s", inside_why ? inside_why : "");
	g->solid_judged = 1;
}

exg_status
exg_solid_set_check_self(const exg_prim_set *T, const uint32_t *body, uint32_t nbodies,
						 const bool *oriented, int side, const exg_join_options *opt,
						 exg_error *err)
{
	uint32_t   *face = malloc(sizeof(uint32_t) * (T->nprims + 1)),
			   *first = calloc((size_t) nbodies + 1, sizeof(uint32_t));
	exg_pair   *pairs = NULL,
				ex = {0};
	size_t		npairs = 0,
				k,
				over = 0;
	uint32_t	t,
				bad = 0;
	exg_status	st;

	if (face == NULL || first == NULL)
	{
		free(face);
		free(first);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory checking bodies");
	}
	/* every triangle a face of its own; first[b]: b's first triangle */
	for (t = T->nprims; t-- > 0;)
	{
		face[t] = t;
		first[body[t]] = t;
	}
	st = exg_self_intersections_grouped(T, face, body, opt, &pairs, &npairs, NULL, err);
	if (st == EXG_OK && npairs)
	{
		exg_round_state saved = exg_round_up_enter();

		/* as for one body (judge): faces touching face to face in a
		 * consistently oriented body leave its inside well defined */
		for (k = 0; k < npairs; k++)
		{
			uint32_t	b = body[pairs[k].a];
			const double *A[3],
					   *B[3];

			if (over > 0 && b != bad)
				break;			/* pairs are sorted: the first bad body is done */
			for (int j = 0; j < 3; j++)
			{
				A[j] = &T->xyz[3 * (size_t) T->vidx[3 * (size_t) pairs[k].a + j]];
				B[j] = &T->xyz[3 * (size_t) T->vidx[3 * (size_t) pairs[k].b + j]];
			}
			if (oriented != NULL && oriented[b] && facing_coplanar(A, B))
				continue;
			if (over++ == 0)
			{
				ex = pairs[k];
				bad = b;
			}
		}
		exg_round_restore(saved);
	}
	if (st == EXG_OK && over)
	{
		st = exg_fail(err, EXG_ERR_NOT_SOLID,
					  "self-intersecting: %zu pairs of its triangles meet improperly (the shells overlap), e.g. triangles %u and %u",
					  over, ex.a - first[bad] + 1, ex.b - first[bad] + 1);
		if (err)
		{
			err->row = (uint64_t) bad + 1;
			err->side = side;
		}
	}
	free(pairs);
	free(face);
	free(first);
	return st;
}

exg_status
exg_solid_set_check(const exg_prim_set *T, const uint32_t *body, uint32_t nbodies, int side,
					const exg_join_options *opt, exg_error *err)
{
	/* bodies judged good before (known_bodies.h): left out of both checks */
	uint32_t   *vidx = malloc(sizeof(uint32_t) * 3 * (T->nprims + 1)),
			   *sub_body = malloc(sizeof(uint32_t) * (T->nprims + 1));
	uint64_t   *hash = calloc((size_t) nbodies + 1, sizeof(uint64_t));
	uint8_t    *known = calloc((size_t) nbodies + 1, 1);
	exg_edge_report *rep = calloc((size_t) nbodies + 1, sizeof(exg_edge_report));
	bool	   *oriented = calloc((size_t) nbodies + 1, sizeof(bool));
	uint32_t   *start = malloc(sizeof(uint32_t) * ((size_t) nbodies + 1));
	int		   *slot = malloc(sizeof(int) * ((size_t) nbodies + 1));
	uint64_t	since = exg_known_bodies_tick();
	exg_prim_set U = *T;
	uint32_t	m = 0,
				t;
	exg_status	st = EXG_OK;

	if (vidx == NULL || sub_body == NULL || hash == NULL || known == NULL || rep == NULL ||
		oriented == NULL || start == NULL || slot == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory checking bodies");
		goto done;
	}
	/* each body's first triangle (start[b], start[nbodies] the end), then the
	 * lookups on the threads: a pass over every coordinate, the check's cost
	 * for bodies that have not changed */
	for (uint32_t b = 0; b <= nbodies; b++)
		start[b] = UINT32_MAX;
	for (t = T->nprims; t-- > 0;)
		start[body[t]] = t;
	start[nbodies] = T->nprims;
	for (uint32_t b = nbodies; b-- > 0;)
		if (start[b] == UINT32_MAX)
			start[b] = start[b + 1];	/* a body without triangles: an empty run */
	{
		int			nt = exg_threads(opt ? opt->worker_threads : 0);

#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1 && nbodies > 1)
		for (uint32_t b = 0; b < nbodies; b++)
			slot[b] = exg_known_body_find(T->xyz, T->vidx, start[b], start[b + 1] - start[b],
										  &hash[b]);
	}
	for (uint32_t b = 0; b < nbodies; b++)
	{
		known[b] = slot[b] >= 0;
		exg_known_body_touch(slot[b]);
		if (!known[b])
		{
			memcpy(&vidx[3 * (size_t) m], &T->vidx[3 * (size_t) start[b]],
				   sizeof(uint32_t) * 3 * (start[b + 1] - start[b]));
			for (uint32_t j = start[b]; j < start[b + 1]; j++)
				sub_body[m++] = b;
		}
	}
	U.vidx = vidx;
	U.nprims = m;
	if (m == 0)
		goto done;
	/* closed: every edge used by an even number of faces */
	st = exg_mesh_edges(&U, sub_body, nbodies, rep, err);
	for (uint32_t b = 0; st == EXG_OK && b < nbodies; b++)
	{
		oriented[b] = rep[b].unbalanced == 0;
		if (rep[b].odd)
		{
			st = exg_fail(err, EXG_ERR_NOT_SOLID,
						  "not closed: %llu edges used by an odd number of faces, e.g. (%.17g %.17g %.17g)-(%.17g %.17g %.17g)",
						  (unsigned long long) rep[b].odd, rep[b].example[0], rep[b].example[1],
						  rep[b].example[2], rep[b].example[3], rep[b].example[4], rep[b].example[5]);
			if (err)
			{
				err->row = (uint64_t) b + 1;
				err->side = side;
			}
		}
	}
	/* not overlapping itself; the triangles named are numbered within their
	 * body: U keeps each body's triangles together and in order */
	if (st == EXG_OK)
		st = exg_solid_set_check_self(&U, sub_body, nbodies, oriented, side, opt, err);
	if (st == EXG_OK)
		for (uint32_t b = 0; b < nbodies; b++)
			if (!known[b])
				exg_known_body_add(T->xyz, T->vidx, start[b], start[b + 1] - start[b], hash[b],
								   since);
done:
	free(start);
	free(slot);
	free(vidx);
	free(sub_body);
	free(hash);
	free(known);
	free(rep);
	free(oriented);
	return st;
}
