# Sourced (POSIX sh) by the suites that need exactgpu in
# shared_preload_libraries, which pg_virtualenv cannot give them
# (test/resident, test/service), from the repository root, PG_CONFIG set:
#
#   preloaded_cluster NAME PORT   a throwaway cluster in a new
#                                 /tmp/exactgpu-NAME.XXXXXX ($work), made by
#                                 initdb (as user postgres when run as root),
#                                 stopped and removed on exit; its
#                                 postgresql.conf has the port, its socket in
#                                 $work, no TCP and exactgpu preloaded: append
#                                 the suite's own settings, then pg_start
#   pg_start, pg_stop             start (waiting), fast stop
#   as_owner 'COMMAND'            COMMAND as the cluster's owner
# PGHOST, PGPORT and PGUSER are exported for psql and pg_regress.

as_owner() { if [ "$(id -u)" = 0 ]; then su postgres -c "$*"; else sh -c "$*"; fi; }

preloaded_cluster() {
	bindir=$("$PG_CONFIG" --bindir)
	work=$(mktemp -d "/tmp/exactgpu-$1.XXXXXX")
	port=$2
	[ "$(id -u)" = 0 ] && chown postgres "$work"
	trap preloaded_cluster_cleanup EXIT INT TERM
	as_owner "'$bindir/initdb' -D '$work/data' -A trust -U postgres" >/dev/null
	cat >> "$work/data/postgresql.conf" <<CONF
port = $port
unix_socket_directories = '$work'
listen_addresses = ''
shared_preload_libraries = 'exactgpu'
CONF
	PGHOST=$work PGPORT=$port PGUSER=postgres
	export PGHOST PGPORT PGUSER
}

preloaded_cluster_cleanup() {
	as_owner "'$bindir/pg_ctl' -D '$work/data' -m immediate stop" >/dev/null 2>&1 || true
	rm -rf "$work"
}

pg_start() { as_owner "'$bindir/pg_ctl' -D '$work/data' -l '$work/log' -w start" >/dev/null; }
pg_stop() { as_owner "'$bindir/pg_ctl' -D '$work/data' -m fast -w stop" >/dev/null; }
