# The demo's mine generator (no PostgreSQL). Included from the top-level Makefile.
demo/bin/minegen: demo/minegen.c demo/mine.c demo/mine.h
	@mkdir -p demo/bin
	$(CC) -std=gnu11 -O2 -Wall -Wextra -ffp-contract=off -fno-fast-math -o $@ demo/minegen.c demo/mine.c -lm
