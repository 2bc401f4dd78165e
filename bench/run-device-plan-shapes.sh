#!/bin/sh
# On the GPU machine (device tool): the query shapes of issue 26 on the large
# mine (20,000 holes x 100 bodies, 10^7 triangles), each under the default
# plan and under every forced alternative (bench/sql/plan_shapes.sh), with
# the README's settings (shared_preload_libraries = 'postgis-3,exactgpu',
# min_dynamic_shared_memory = 4GB), GiST indexes on both tables, ANALYZE.
# Target: every shape's default plan within 1.5x of the best forced plan;
# the LEFT JOIN listing the holes that hit nothing within 1.5x of the inner
# batch join. SIZE=demo (or tiny) for a quick run; TIMEOUT_MS (default
# 20000) cancels a plan that falls off the cliff; ALTS (default 'batch off,
# nestloop off,hashjoin off') keeps the run within the device's 10 minutes.
# Carried: .carry/pgbundle.tar.xz with exactgpu built WITH CUDA from this
# branch and installed (shared/tools/pg-bundle.sh after make install),
# demo/bin/minegen. Results go to $OUT/plan-shapes.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-plan-shapes
pg_cluster_init "$work" bench demo
pg_cluster_start -c shared_buffers=8GB -c work_mem=256MB -c max_wal_size=16GB -c jit=off \
	-c shared_preload_libraries=postgis-3,exactgpu -c min_dynamic_shared_memory=4GB
md="$work/plan-shapes.md"
{
	echo "# Plan shapes on the GPU machine"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader);" \
		"host: $(nproc) cores"
	echo
} > "$md"
chown pg "$md"
as_pg "export PGHOST=/tmp PGDATABASE=postgres; cd $work &&
	MINE=minegen SIZE=${SIZE:-large} TIMEOUT_MS=${TIMEOUT_MS:-20000} REPS=${REPS:-2} \
	ALTS='${ALTS:-batch off,nestloop off,hashjoin off}' \
	bench/sql/plan_shapes.sh $md" 2>&1 | tail -20 || true
cp "$md" "$out/plan-shapes.md"
cat "$md"
