/*
 * bench_cgal_join.cpp — CGAL as a peer of the exact join: the same two
 * primitive sets through CGAL's box_intersection_d and do_intersect on the
 * Epick kernel (filtered predicates, exact signs), the way a CGAL user
 * writes this join. A benchmark only: built when CGAL's headers are present
 * (bench/bench.mk), never linked into the extension.
 *
 *   bench_cgal_join INPUT THREADS PAIRS_OUT
 *
 * INPUT is bench/mesh_io.h's EXGJOIN1 file (bench_join --peer writes it).
 * One thread: the candidates are tested inside box_intersection_d's
 * callback. More threads: box_intersection_d (sequential in CGAL without
 * TBB) collects the candidates, then OpenMP threads test them. Prints
 * "seconds S candidates C pairs P cpu_seconds U" (U: process CPU time, all
 * threads); S covers building the boxes, the box
 * join and the tests, not reading the input nor sorting the pairs. Writes
 * the intersecting (left, right) index pairs sorted: uint64 count, then
 * uint32 pairs.
 *
 * Semantics: box_intersection_d with closed boxes (its default), and
 * do_intersect on closed triangles and segments, as exactgpu. CGAL requires
 * non-degenerate triangles and segments: a degenerate primitive is reported
 * and the program fails rather than give CGAL an input it does not define.
 */
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/box_intersection_d.h>
#include <CGAL/intersections.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

typedef CGAL::Exact_predicates_inexact_constructions_kernel K;
typedef K::Point_3 Point;
typedef K::Triangle_3 Triangle;
typedef K::Segment_3 Segment;
typedef CGAL::Box_intersection_d::Box_with_info_d<double, 3, std::uint32_t> Box;

struct Side
{
	std::uint32_t arity = 0;
	std::vector<Point> pts;
	std::vector<std::uint32_t> idx;
	std::uint32_t n = 0;
};

static bool
read_side(FILE *f, Side &s)
{
	std::uint32_t head[3];

	if (fread(head, 4, 3, f) != 3 || head[0] < 2 || head[0] > 3)
		return false;
	s.arity = head[0];
	s.n = head[2];
	std::vector<double> xyz(3 * (size_t) head[1]);
	if (fread(xyz.data(), sizeof(double), xyz.size(), f) != xyz.size())
		return false;
	s.pts.reserve(head[1]);
	for (size_t v = 0; v < head[1]; v++)
		s.pts.emplace_back(xyz[3 * v], xyz[3 * v + 1], xyz[3 * v + 2]);
	s.idx.resize((size_t) s.arity * s.n);
	return fread(s.idx.data(), 4, s.idx.size(), f) == s.idx.size();
}

/* The primitive i of a side as CGAL objects; both sides' kinds are fixed. */
struct Prims
{
	std::vector<Triangle> tri;
	std::vector<Segment> seg;
};

static Prims
make_prims(const Side &s, std::vector<Box> &boxes, size_t &degenerate)
{
	Prims p;

	boxes.reserve(s.n);
	if (s.arity == 3)
		p.tri.reserve(s.n);
	else
		p.seg.reserve(s.n);
	for (std::uint32_t i = 0; i < s.n; i++)
	{
		const std::uint32_t *v = &s.idx[(size_t) s.arity * i];

		if (s.arity == 3)
		{
			p.tri.emplace_back(s.pts[v[0]], s.pts[v[1]], s.pts[v[2]]);
			degenerate += p.tri.back().is_degenerate();
			boxes.emplace_back(p.tri.back().bbox(), i);
		}
		else
		{
			p.seg.emplace_back(s.pts[v[0]], s.pts[v[1]]);
			degenerate += p.seg.back().is_degenerate();
			boxes.emplace_back(p.seg.back().bbox(), i);
		}
	}
	return p;
}

static bool
meets(const Prims &a, std::uint32_t i, const Prims &b, std::uint32_t j)
{
	if (!a.tri.empty() && !b.tri.empty())
		return CGAL::do_intersect(a.tri[i], b.tri[j]);
	if (!a.tri.empty())
		return CGAL::do_intersect(a.tri[i], b.seg[j]);
	if (!b.tri.empty())
		return CGAL::do_intersect(a.seg[i], b.tri[j]);
	return CGAL::do_intersect(a.seg[i], b.seg[j]);
}

int
main(int argc, char **argv)
{
	if (argc != 4)
	{
		fprintf(stderr, "usage: bench_cgal_join INPUT THREADS PAIRS_OUT\n");
		return 2;
	}
	int threads = atoi(argv[2]);
	FILE *f = fopen(argv[1], "rb");
	char magic[8];
	Side sa, sb;

	if (f == nullptr || fread(magic, 1, 8, f) != 8 || memcmp(magic, "EXGJOIN1", 8) != 0 ||
		!read_side(f, sa) || !read_side(f, sb))
	{
		fprintf(stderr, "cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(f);

	typedef std::pair<std::uint32_t, std::uint32_t> Pair;
	std::vector<Pair> hits;
	unsigned long long candidates = 0;
	size_t degenerate = 0;
	auto t0 = std::chrono::steady_clock::now();
	std::clock_t c0 = std::clock();
	std::vector<Box> ba, bb;
	Prims pa = make_prims(sa, ba, degenerate);
	Prims pb = make_prims(sb, bb, degenerate);

	if (degenerate)
	{
		fprintf(stderr, "%zu degenerate primitives: CGAL's do_intersect does not take them\n",
				degenerate);
		return 1;
	}
	if (threads <= 1)
		CGAL::box_intersection_d(ba.begin(), ba.end(), bb.begin(), bb.end(),
								 [&](const Box &x, const Box &y) {
									 candidates++;
									 if (meets(pa, x.info(), pb, y.info()))
										 hits.emplace_back(x.info(), y.info());
								 });
	else
	{
		std::vector<Pair> cand;

		CGAL::box_intersection_d(ba.begin(), ba.end(), bb.begin(), bb.end(),
								 [&](const Box &x, const Box &y) {
									 cand.emplace_back(x.info(), y.info());
								 });
		candidates = cand.size();
		std::vector<unsigned char> hit(cand.size());
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4096)
		for (long k = 0; k < (long) cand.size(); k++)
			hit[k] = meets(pa, cand[k].first, pb, cand[k].second);
		for (size_t k = 0; k < cand.size(); k++)
			if (hit[k])
				hits.push_back(cand[k]);
	}
	double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	double cpu_seconds = (double) (std::clock() - c0) / CLOCKS_PER_SEC;

	/* box_intersection_d reports each box pair once; sorted for comparison */
	std::sort(hits.begin(), hits.end());
	hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
	printf("seconds %.6f candidates %llu pairs %zu cpu_seconds %.6f\n", seconds, candidates,
		   hits.size(), cpu_seconds);
	f = fopen(argv[3], "wb");
	std::uint64_t n = hits.size();
	bool ok = f && fwrite(&n, sizeof(n), 1, f) == 1;
	for (size_t k = 0; ok && k < hits.size(); k++)
	{
		std::uint32_t ab[2] = {hits[k].first, hits[k].second};

		ok = fwrite(ab, 4, 2, f) == 2;
	}
	if (!f || fclose(f) != 0 || !ok)
	{
		fprintf(stderr, "cannot write %s\n", argv[3]);
		return 1;
	}
	return 0;
}
