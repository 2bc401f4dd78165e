#!/bin/sh
# On the GPU machine (device tool), in a few minutes: the planner's choice
# between the batch join and a nested loop of index probes, against both
# plans measured, for the 13 cases of bench/results/2026-11-24-cpu2-cost-model.md
# (bench/sql/cost_model.sh) with exactgpu.device = auto (the batch join on
# the machine's cores, or the GPU where the planner sends it; it is also
# forced on each), ending in a table of the plan picked against the faster
# one per case; then the large mine (20,000 holes x 100 bodies, 10^7
# triangles: the ExactJoin on the GPU is expected): its planning time in a
# fresh backend (the planner must not open the GPU driver: no 0.2-0.4 s) and
# its plan with EXPLAIN ANALYZE.
# Carried: .carry/pgbundle.tar.xz with exactgpu built WITH CUDA from this
# branch and installed (bench/lib/pg-bundle.sh after make install),
# demo/bin/minegen. Report: $OUT/cost-model.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-cost-model
pg_cluster_init "$work" test bench demo
pg_cluster_start -c shared_buffers=8GB -c work_mem=256MB -c max_wal_size=16GB -c jit=off
md="$work/cost-model.md"
{
	echo "# Cost model: the planner's choice against both plans, on the GPU machine"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader);" \
		"host: $(nproc) cores"
	echo
} > "$md"
chown pg "$md"
as_pg "export PGHOST=/tmp PGDATABASE=postgres PGUSER=pg; cd $work &&
	PARTS='a b c d' bench/sql/cost_model.sh demo/bin/minegen $md" 2>&1 | tail -20 || true
# the large mine: the planner's plan, run
as_pg "export PGHOST=/tmp PGDATABASE=postgres PGUSER=pg; cd $work &&
	d=\$(mktemp -d) && demo/bin/minegen --size large --seed 7 --out \$d >/dev/null &&
	psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS exactgpu CASCADE' &&
	psql -X -q -v dir=\$d -v replace=1 -f \$d/load.sql >/dev/null && psql -X -q -c ANALYZE &&
	{ echo; echo '## Large mine, the planner'\''s plan'; echo; echo '\`\`\`';
	  echo 'Planning in fresh backends (EXPLAIN only, nothing run):';
	  for i in 1 2; do psql -X -At -c 'EXPLAIN (SUMMARY) SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)' | grep -E 'ExactJoin|Nested|Device|Planning'; done;
	  echo;
	  psql -X -c 'SET exactgpu.progress = off' -c 'EXPLAIN ANALYZE SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)';
	  echo '\`\`\`'; } >> $md" 2>&1 | tail -20 || true
cp "$md" "$out/cost-model.md"
cat "$md"
