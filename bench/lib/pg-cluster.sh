# Sourced (POSIX sh) by the device bench scripts, from the repository root:
# one throwaway PostgreSQL cluster per script, run by the unprivileged user pg
# (PostgreSQL refuses to run as root), its socket in /tmp.
#
#   pg_cluster_init WORK [PATH...]   PostgreSQL ready (the bundle, see below),
#                                    a server left by an earlier call stopped,
#                                    WORK made anew with copies of PATH...
#                                    owned by pg, initdb in WORK/data; from
#                                    then on the script's exit (an error under
#                                    set -e, a signal) stops the cluster
#   pg_cluster_start [-e NAME=VALUE]... [OPTION...]
#                                    the postmaster with -k /tmp and OPTION...
#                                    (its -o), NAME=VALUE in its environment;
#                                    log in WORK/pg.log
#   pg_cluster_stop                  fast shutdown; nothing if none runs
#   as_pg 'COMMAND'                  COMMAND (sh) as pg, PostgreSQL on PATH
#   pg_psql 'ARGS'                   psql -X -h /tmp -d postgres ARGS, as pg
#   pg_cluster_regress [-e NAME=VALUE]... TEST...
#                                    pg_regress of test/regress (copied into
#                                    WORK) with postgis and exactgpu loaded,
#                                    NAME=VALUE in its environment
#
# PostgreSQL: the GPU machine has none but the bundle carried with the clone
# (.carry/pgbundle.tar.xz from bench/lib/pg-bundle.sh, with this branch's
# exactgpu installed), unpacked into / and activated (which creates user pg).
# Where /opt/pgbundle is absent and this machine's own PostgreSQL 15 is
# installed (a build machine, to try these functions), that one is used
# instead, user pg must exist, and no other server is touched: set PGPORT to
# a free port there.

pg_bin=/usr/lib/postgresql/15/bin

pg_bundle_activate() {
	if [ ! -d /opt/pgbundle ] && [ -x "$pg_bin/postgres" ]; then
		pg_env="PATH=$pg_bin:\$PATH; export PATH"
		pg_bundled=
	else
		tar -xJf .carry/pgbundle.tar.xz -C /
		/opt/pgbundle/activate >/dev/null
		pg_env=". /opt/pgbundle/env"
		pg_bundled=1
	fi
	eval "$pg_env"
}

as_pg() { su pg -c "$pg_env; $1"; }

pg_psql() { as_pg "psql -X -h /tmp -d postgres $1"; }

pg_cluster_init() {
	pg_work=$1
	shift
	pg_bundle_activate
	# a server left by an earlier call on a still-warm GPU machine; never on
	# a shared build machine, where the servers are others'
	if [ -n "$pg_bundled" ]; then
		pkill -x postgres 2>/dev/null && sleep 2 || true
	fi
	rm -rf "$pg_work" && mkdir -p "$pg_work"
	[ $# -eq 0 ] || cp -r "$@" "$pg_work/"
	chown -R pg "$pg_work"
	as_pg "initdb -D $pg_work/data -A trust >/dev/null"
	# EXIT runs on errors under set -e too; a signal is made an exit so that
	# it runs as well
	trap pg_cluster_stop EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# The server settings of the device benches on the big mines: $1
# shared_buffers, $2 min_dynamic_shared_memory, $3 exactgpu.resident_memory
# (MB), $4 shared_preload_libraries (exactgpu); a parallel worker per core,
# WAL kept to a minimum (the mines are loaded once and only read).
pg_mine_opts() {
	_n=$(nproc)
	echo "-c shared_buffers=$1 -c work_mem=256MB -c max_wal_size=16GB -c wal_level=minimal \
 -c max_wal_senders=0 -c synchronous_commit=off -c max_worker_processes=$((_n + 8)) \
 -c max_parallel_workers=$_n -c max_parallel_workers_per_gather=$((_n - 1)) \
 -c min_dynamic_shared_memory=$2 -c shared_preload_libraries=${4:-exactgpu} \
 -c exactgpu.resident_memory=$3"
}

# A generated mine into database $1: minegen's arguments after the folder
# $2 it writes to, its load.sql, then the two tables vacuumed and analysed.
pg_mine_load() {
	_db=$1
	_dir=$2
	shift 2
	mkdir -p "$_dir" && demo/bin/minegen "$@" --out "$_dir" >/dev/null && chown -R pg "$_dir"
	as_pg "psql -X -h /tmp -d $_db -q -v dir=$_dir -v replace=1 -f $_dir/load.sql" >/dev/null
	as_pg "psql -X -h /tmp -d $_db -q -c 'VACUUM ANALYZE drill_holes' -c 'VACUUM ANALYZE ore_bodies'"
}

pg_cluster_start() {
	_pg_start_env=
	while [ "${1-}" = -e ]; do
		_pg_start_env="$_pg_start_env $2"
		shift 2
	done
	as_pg "$_pg_start_env pg_ctl -D $pg_work/data -l $pg_work/pg.log -o '-k /tmp $*' -w start" >/dev/null
}

pg_cluster_stop() {
	[ -f "$pg_work/data/postmaster.pid" ] || return 0
	as_pg "pg_ctl -D $pg_work/data -m fast -w stop" >/dev/null || true
}

pg_cluster_regress() {
	_pg_regress_env=
	while [ "${1-}" = -e ]; do
		_pg_regress_env="$_pg_regress_env $2"
		shift 2
	done
	as_pg "cd $pg_work && $_pg_regress_env /usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress \
		--inputdir=test/regress --bindir=$pg_bin --host=/tmp --user=pg \
		--load-extension=postgis --load-extension=exactgpu $*"
}
