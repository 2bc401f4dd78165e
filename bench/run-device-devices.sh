#!/bin/sh
# On a GPU machine with several GPUs (device tool, nvidia-h100-x2): one join
# cut over every GPU against one GPU, in the engine alone (bench_devices),
# on the split bench's double mine (40,000 holes, 200 bodies, 2*10^7
# triangles) and on the large mine. With libcupti carried (CUPTI_LIB, or
# .carry/libcupti.so.13 copied from the CUDA toolkit's lib/), the GPU's own
# timeline of one join each way (bench_devices --kernels 1); with nsys on
# the machine, its CUDA API and kernel summary too.
# Carried: bench/bin/bench_devices (built with CUDA: make bench/bin/bench_devices).
# Results: $OUT/devices.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
report="$out/devices.md"
{
	echo "# exactgpu: one join over every GPU, the engine alone (bench_devices)"
	echo
	echo "Device: $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); host: $(nproc) cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo '```'
	nvidia-smi topo -m 2>&1 | head -8
	echo '```'
	echo
	echo "## double mine"
	echo
} > "$report"
./bench/bin/bench_devices --holes 40000 --bodies 200 --triangles 20000000 --reps ${REPS:-9} | tee -a "$report"
printf '\n## large mine\n\n' >> "$report"
./bench/bin/bench_devices --reps ${REPS:-9} | tee -a "$report"
cupti=${CUPTI_LIB:-$PWD/.carry/libcupti.so.13}
if [ -f "$cupti" ]; then
	printf '\n## the GPU timeline of one join each way (CUPTI)\n\n' >> "$report"
	CUPTI_LIB=$cupti ./bench/bin/bench_devices --holes 40000 --bodies 200 --triangles 20000000 \
		--reps 3 --kernels 1 | sed -n '/the GPU.s timeline/,$p' >> "$report"
fi
nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1 || true)
if [ -n "$nsys" ] && [ -x "$nsys" ]; then
	"$nsys" profile -o "$out/split" --force-overwrite true --trace cuda,osrt \
		./bench/bin/bench_devices --holes 40000 --bodies 200 --triangles 20000000 --reps 3 > /dev/null 2>&1 || true
	"$nsys" stats -q --report cuda_api_sum,cuda_gpu_kern_sum "$out/split.nsys-rep" > "$out/nsys-stats.txt" 2>&1 || true
else
	echo "no nsys on this machine" >> "$report"
fi
