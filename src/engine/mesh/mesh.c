/*
 * mesh.c — the mesh type: growing its arrays, bodies by name, welding
 * bit-identical vertices. The readers build meshes through it; the entry
 * that picks a reader is mesh_read.c, so no reader calls back into it.
 */
#include "mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"

void
exg_mesh_init(exg_mesh *m)
{
	memset(m, 0, sizeof(*m));
}

void
exg_mesh_free(exg_mesh *m)
{
	for (uint32_t b = 0; b < m->nbodies; b++)
		free(m->body_name[b]);
	free(m->body_name);
	free(m->xyz);
	free(m->tri);
	free(m->tri_body);
	exg_mesh_init(m);
}

/* Grow *p (elements of size elem, capacity *cap) to hold at least need. */
static bool
grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t		c = *cap ? *cap : 64;
	void	   *q;

	if (need <= *cap)
		return true;
	while (c < need)
		c *= 2;
	q = realloc(*p, c * elem);
	if (q == NULL)
		return false;
	*p = q;
	*cap = c;
	return true;
}

exg_status
exg_mesh_add_vertex(exg_mesh *m, double x, double y, double z, exg_error *err)
{
	if (!isfinite(x) || !isfinite(y) || !isfinite(z))
		return exg_fail(err, EXG_ERR_NONFINITE, "vertex %u has a NaN or infinite coordinate",
						m->nverts + 1);
	if (m->nverts >= EXG_MESH_MAX_VERTICES)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "more than %u vertices", EXG_MESH_MAX_VERTICES);
	if (!grow((void **) &m->xyz, &m->verts_cap, 3 * ((size_t) m->nverts + 1), sizeof(double)))
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory for %u vertices", m->nverts + 1);
	m->xyz[3 * (size_t) m->nverts] = x;
	m->xyz[3 * (size_t) m->nverts + 1] = y;
	m->xyz[3 * (size_t) m->nverts + 2] = z;
	m->nverts++;
	return EXG_OK;
}

exg_status
exg_mesh_add_triangle(exg_mesh *m, uint32_t a, uint32_t b, uint32_t c, exg_error *err)
{
	size_t		tcap = m->tris_cap;

	if (a >= m->nverts || b >= m->nverts || c >= m->nverts)
		return exg_fail(err, EXG_ERR_ARGUMENT, "triangle %u refers to a vertex that does not exist",
						m->ntris + 1);
	if (m->ntris >= EXG_MESH_MAX_TRIANGLES)
		return exg_fail(err, EXG_ERR_TOO_LARGE,
						"more than %u triangles (one TIN must stay below 1 GB)",
						EXG_MESH_MAX_TRIANGLES);
	if (m->nbodies == 0 && exg_mesh_set_body(m, NULL, 0, err) != EXG_OK)
		return err->status;
	if (!grow((void **) &m->tri, &m->tris_cap, 3 * ((size_t) m->ntris + 1), sizeof(uint32_t)))
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory for %u triangles", m->ntris + 1);
	/* tri_body has a third of tri's capacity: grown alongside it */
	if (m->tris_cap != tcap || m->tri_body == NULL)
	{
		uint32_t   *q = realloc(m->tri_body, sizeof(uint32_t) * (m->tris_cap / 3 + 1));

		if (q == NULL)
			return exg_fail(err, EXG_ERR_NOMEM, "out of memory for %u triangles", m->ntris + 1);
		m->tri_body = q;
	}
	m->tri[3 * (size_t) m->ntris] = a;
	m->tri[3 * (size_t) m->ntris + 1] = b;
	m->tri[3 * (size_t) m->ntris + 2] = c;
	m->tri_body[m->ntris] = m->body;
	m->ntris++;
	return EXG_OK;
}

exg_status
exg_mesh_set_body(exg_mesh *m, const char *name, size_t len, exg_error *err)
{
	char	   *copy = NULL;

	/* a name seen before goes back to its body (OBJ may return to a group) */
	for (uint32_t b = 0; b < m->nbodies; b++)
	{
		const char *n = m->body_name[b];

		if ((n == NULL && name == NULL) ||
			(n != NULL && name != NULL && strlen(n) == len && memcmp(n, name, len) == 0))
		{
			m->body = b;
			return EXG_OK;
		}
	}
	if (!grow((void **) &m->body_name, &m->bodies_cap, (size_t) m->nbodies + 1, sizeof(char *)))
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory for bodies");
	if (name != NULL)
	{
		copy = malloc(len + 1);
		if (copy == NULL)
			return exg_fail(err, EXG_ERR_NOMEM, "out of memory for bodies");
		memcpy(copy, name, len);
		copy[len] = '\0';
	}
	m->body_name[m->nbodies] = copy;
	m->body = m->nbodies++;
	return EXG_OK;
}

void
exg_mesh_drop_empty_bodies(exg_mesh *m)
{
	uint32_t   *renum,
				n = 0;
	bool	   *used;

	if (m->nbodies == 0)
		return;
	used = calloc(m->nbodies, sizeof(bool));
	renum = malloc(sizeof(uint32_t) * m->nbodies);
	if (used == NULL || renum == NULL)
	{
		/* keeping empty bodies is harmless; only the listing has them */
		free(used);
		free(renum);
		return;
	}
	for (uint32_t t = 0; t < m->ntris; t++)
		used[m->tri_body[t]] = true;
	for (uint32_t b = 0; b < m->nbodies; b++)
	{
		if (used[b])
		{
			renum[b] = n;
			m->body_name[n++] = m->body_name[b];
		}
		else
			free(m->body_name[b]);
	}
	for (uint32_t t = 0; t < m->ntris; t++)
		m->tri_body[t] = renum[m->tri_body[t]];
	m->nbodies = n;
	m->body = 0;
	free(used);
	free(renum);
}

static inline uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Welding compares bits, not values: -0 and +0 stay two vertices, so the
 * written file gives back the very doubles read. (Closedness compares
 * values: exg_mesh_check.)
 */
exg_status
exg_mesh_weld(exg_mesh *m, exg_error *err)
{
	size_t		cap = 1024;
	uint32_t   *slot,
			   *ids,
				n = 0;

	while (cap < 2 * (size_t) m->nverts)
		cap *= 2;
	slot = calloc(cap, sizeof(uint32_t));
	ids = malloc(sizeof(uint32_t) * ((size_t) m->nverts + 1));
	if (slot == NULL || ids == NULL)
	{
		free(slot);
		free(ids);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory welding %u vertices", m->nverts);
	}
	for (uint32_t v = 0; v < m->nverts; v++)
	{
		const double *p = &m->xyz[3 * (size_t) v];
		uint64_t	b[3],
					h;
		size_t		i;

		if ((v & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
		{
			free(slot);
			free(ids);
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		}
		memcpy(b, p, sizeof(b));
		h = mix64(b[0] ^ mix64(b[1] ^ mix64(b[2])));
		for (i = h & (cap - 1);; i = (i + 1) & (cap - 1))
		{
			if (slot[i] == 0)
			{
				/* new position: moved down to its welded place, order kept */
				memmove(&m->xyz[3 * (size_t) n], p, 3 * sizeof(double));
				slot[i] = ++n;
				ids[v] = n - 1;
				break;
			}
			if (memcmp(&m->xyz[3 * (size_t) (slot[i] - 1)], b, sizeof(b)) == 0)
			{
				ids[v] = slot[i] - 1;
				break;
			}
		}
	}
	for (size_t k = 0; k < 3 * (size_t) m->ntris; k++)
		m->tri[k] = ids[m->tri[k]];
	m->nverts = n;
	free(slot);
	free(ids);
	return EXG_OK;
}

exg_status
exg_mesh_sort_by_body(exg_mesh *m, uint32_t *start, exg_error *err)
{
	uint32_t   *tri = malloc(sizeof(uint32_t) * 3 * ((size_t) m->ntris + 1)),
			   *body = malloc(sizeof(uint32_t) * ((size_t) m->ntris + 1)),
			   *next = malloc(sizeof(uint32_t) * ((size_t) m->nbodies + 1));

	if (tri == NULL || body == NULL || next == NULL)
	{
		free(tri);
		free(body);
		free(next);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory sorting %u triangles", m->ntris);
	}
	memset(start, 0, sizeof(uint32_t) * ((size_t) m->nbodies + 1));
	for (uint32_t t = 0; t < m->ntris; t++)
		start[m->tri_body[t] + 1]++;
	for (uint32_t b = 0; b < m->nbodies; b++)
		start[b + 1] += start[b];
	memcpy(next, start, sizeof(uint32_t) * m->nbodies);
	for (uint32_t t = 0; t < m->ntris; t++)
	{
		uint32_t	to = next[m->tri_body[t]]++;

		memcpy(&tri[3 * (size_t) to], &m->tri[3 * (size_t) t], 3 * sizeof(uint32_t));
		body[to] = m->tri_body[t];
	}
	if (m->ntris > 0)
	{
		memcpy(m->tri, tri, sizeof(uint32_t) * 3 * (size_t) m->ntris);
		memcpy(m->tri_body, body, sizeof(uint32_t) * (size_t) m->ntris);
	}
	free(tri);
	free(body);
	free(next);
	return EXG_OK;
}
