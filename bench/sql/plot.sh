#!/bin/sh
# Plot an SQL benchmark CSV (bench/sql/run.sh) as time against mine size,
# one line per method, log-log. usage: bench/sql/plot.sh IN.csv OUT.png
# Needs gnuplot (Debian: gnuplot-nox). Timed-out runs are drawn at their
# timeout with a marker.
set -eu
csv=$1
png=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
methods="batch_gpu batch_cpu_2_threads batch_cpu_all_cores row_by_row_exact postgis_st_3dintersects sfcgal_3dintersection"
for m in $methods; do
	awk -F, -v m="$m" 'NR > 1 && $6 == m { print $5, $7, ($9 == "timeout") }' "$csv" > "$tmp/$m.dat"
done
plots=""
i=0
for m in $methods; do
	i=$((i + 1))
	[ -s "$tmp/$m.dat" ] || continue
	plots="$plots${plots:+, }'$tmp/$m.dat' using 1:2 with linespoints lw 2 lt $i title '$m'"
	plots="$plots, '$tmp/$m.dat' using 1:(\$3 == 1 ? \$2 : 1/0) with points pt 6 ps 3 lc rgb 'black' notitle"
done
gnuplot <<GP
set terminal pngcairo size 1000,650 noenhanced font 'DejaVu Sans,11'
set linetype 1 lc rgb '#d62728'
set linetype 2 lc rgb '#ff7f0e'
set linetype 3 lc rgb '#bcbd22'
set linetype 4 lc rgb '#1f77b4'
set linetype 5 lc rgb '#9467bd'
set linetype 6 lc rgb '#17becf'
set output '$png'
set logscale xy
set xlabel 'ore-body triangles (drill holes scale along: 20 / 200 / 2000)'
set ylabel 'query time, ms (log)'
set title 'Hole x ore-body join, same tables, one run on NVIDIA H100 (circled: timed out)'
set key outside right
set grid
plot $plots
GP
