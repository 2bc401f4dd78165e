#!/bin/sh
# Runs one engine test for `make engine-check` / `make gpu-check`, or sums them up.
#
#   run_test.sh LOGDIR BINARY [ARGS...]
#       runs BINARY, its output into LOGDIR/<name>.log, its result into
#       LOGDIR/<name>.result; prints one line (tests run side by side under
#       make -j, so their own output would interleave).
#   run_test.sh --summary LOGDIR NAME...
#       for every failed test, its lines that say FAIL and the end of its
#       log; names them, and exits 1 if any failed or did not run.
set -u

if [ "$1" = "--summary" ]; then
	logdir=$2
	shift 2
	failed=""
	for t in "$@"; do
		if [ "$(cat "$logdir/$t.result" 2>/dev/null)" != ok ]; then
			failed="$failed $t"
			echo "---- $t: $(cat "$logdir/$t.result" 2>/dev/null || echo "did not run") (whole log: $logdir/$t.log) ----"
			if [ -f "$logdir/$t.log" ]; then
				grep -i 'fail' "$logdir/$t.log" | head -n 30
				echo "..."
				tail -n 15 "$logdir/$t.log"
			fi
		fi
	done
	if [ -n "$failed" ]; then
		echo "FAILED:$failed"
		exit 1
	fi
	echo "all $# tests passed (logs in $logdir)"
	exit 0
fi

logdir=$1
bin=$2
shift 2
name=$(basename "$bin")
mkdir -p "$logdir"
rm -f "$logdir/$name.result"
start=$(date +%s.%N)
"$bin" "$@" > "$logdir/$name.log" 2>&1
rc=$?
secs=$(echo "$(date +%s.%N) $start" | awk '{ printf "%.1f", $1 - $2 }')
if [ $rc = 0 ]; then
	echo ok > "$logdir/$name.result"
	echo "ok   $name${*:+ $*} (${secs} s)"
else
	echo "exit $rc" > "$logdir/$name.result"
	echo "FAIL $name${*:+ $*} (exit $rc, ${secs} s; log: $logdir/$name.log)"
fi
# The run itself never fails make: the summary does, after every test ran.
exit 0
