# The demo's mine generator (no PostgreSQL). Included from the top-level Makefile.
# The mine itself is a fixture the tests and benches share (test/fixtures/mine.c).
demo/bin/minegen: demo/minegen.c test/fixtures/mine.c test/fixtures/mine.h
	@mkdir -p demo/bin
	$(CC) -std=gnu11 -O2 -Wall -Wextra -ffp-contract=off -fno-fast-math -Itest/fixtures -o $@ demo/minegen.c test/fixtures/mine.c -lm
