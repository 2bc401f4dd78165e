# Engine tests: plain C programs linked against the engine, no PostgreSQL.
# Included from the top-level Makefile; `make engine-check` builds and runs them.

ENGINE_TEST_CC     ?= gcc
ENGINE_TEST_CFLAGS ?= -std=gnu11 -O2 -g -Wall -Wextra $(EXACT_CFLAGS) $(ENGINE_INC) -Itest/reference -Itest/engine -Itest/fixtures
ENGINE_TEST_LIBS   ?= -lgmp -lm -lpthread
ENGINE_TEST_BIN    := test/engine/bin
ENGINE_CORE        := $(ENGINE_SRCS) $(GPU_ABSENT)
# The harness every engine test and bench shares (random generator, clock,
# checks, mesh builders): test/engine/harness.h.
TEST_HARNESS       := test/engine/harness.c

ENGINE_TESTS := $(patsubst test/engine/%.c,%,$(sort $(wildcard test/engine/test_*.c)))

# Support sources each test may need beyond the engine.
test_differential_EXTRA := test/engine/adversarial.c test/reference/ref_exact.c
test_mine_EXTRA         := test/fixtures/mine.c
test_join_EXTRA         := test/engine/join_data.c
test_pairs_differential_EXTRA := test/engine/adversarial.c test/reference/ref_exact.c
test_overlay_EXTRA      := test/reference/ref_exact.c
test_solid_differential_EXTRA := test/reference/ref_solid.c test/reference/ref_exact.c
test_static_filter_EXTRA := test/engine/adversarial.c test/reference/ref_exact.c
test_batch_flatten_EXTRA := test/fixtures/mine.c
test_solid_check_EXTRA  := test/reference/ref_exact.c

$(ENGINE_TEST_BIN)/%: test/engine/%.c $(TEST_HARNESS) $(ENGINE_CORE) $(ENGINE_HEADERS) $(wildcard test/engine/*.h test/reference/*.[ch] test/fixtures/mine.[ch])
	@mkdir -p $(ENGINE_TEST_BIN)
	$(ENGINE_TEST_CC) $(ENGINE_TEST_CFLAGS) -o $@ $< $(TEST_HARNESS) $($*_EXTRA) $(ENGINE_CORE) $(ENGINE_TEST_LIBS)

.PHONY: engine-check
engine-check: $(addprefix $(ENGINE_TEST_BIN)/,$(ENGINE_TESTS))
	@set -e; for t in $(ENGINE_TESTS); do echo "== $$t"; $(ENGINE_TEST_BIN)/$$t; done

# ---- the same tests linked with the CUDA back-end, for the device machine ----
GPU_TEST_BIN  := test/engine/bin-gpu
GPU_TESTS     := test_join test_pairs_differential test_locate_join test_overlay test_solid_differential \
                 test_memory_limits \
                 test_box_join
GPU_TEST_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++

$(GPU_TEST_BIN)/%: test/engine/%.c $(TEST_HARNESS) $(ENGINE_SRCS) $(CUDA_SRCS:.cu=.o) $(ENGINE_HEADERS) $(wildcard test/engine/*.h)
	@mkdir -p $(GPU_TEST_BIN)
	$(ENGINE_TEST_CC) $(ENGINE_TEST_CFLAGS) -DEXG_WITH_CUDA -o $@ $< $(TEST_HARNESS) $($*_EXTRA) $(ENGINE_SRCS) \
		$(CUDA_SRCS:.cu=.o) $(GPU_TEST_LIBS) $(ENGINE_TEST_LIBS)

.PHONY: gpu-tests
gpu-tests: $(addprefix $(GPU_TEST_BIN)/,$(GPU_TESTS))

# No include cycles and no call cycles between the engine's files, nor
# between the PostgreSQL layer's, and src/pg sees the engine only through
# src/engine/exactgpu_engine.h (test/layout/check_cycles.py; ARCHITECTURE.md
# says why).
.PHONY: check-cycles
check-cycles: $(filter src/engine/% src/pg/%,$(OBJS))
	python3 test/layout/check_cycles.py
