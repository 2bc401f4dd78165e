# The demo's mine generator (no PostgreSQL). Included from the top-level Makefile.
# The mine itself is a fixture the tests and benches share (test/fixtures/mine.c).
MINEGEN_SRCS = demo/minegen.c demo/mine_out.c demo/survey_files.c test/fixtures/mine.c
demo/bin/minegen: $(MINEGEN_SRCS) demo/mine_out.h demo/survey_files.h test/fixtures/mine.h
	@mkdir -p demo/bin
	$(CC) -std=gnu11 -O2 -Wall -Wextra -ffp-contract=off -fno-fast-math -Itest/fixtures -Idemo -o $@ $(MINEGEN_SRCS) -lm
