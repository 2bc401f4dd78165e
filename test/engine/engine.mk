# Engine tests: plain C programs linked against the engine, no PostgreSQL.
# Included from the top-level Makefile.
#   make -j engine-check   build the engine library once, every test, and run
#                          them in parallel (CPU back-end: gpu_absent.o)
#   make -j gpu-check      the same tests linked with the CUDA back-end, for
#                          the device machine (needs nvcc, GMP and gcc only)

ENGINE_TEST_CC     ?= gcc
ENGINE_TEST_CFLAGS ?= -std=gnu11 -O2 -g -Wall -Wextra $(EXACT_CFLAGS) $(ENGINE_INC) -Itest/reference -Itest/engine -Itest/fixtures
ENGINE_TEST_LIBS   ?= -lgmp -lm -lpthread
ENGINE_TEST_BIN    := test/engine/bin
ENGINE_TEST_LOG    := test/engine/log
GPU_TEST_BIN       := test/engine/bin-gpu
GPU_TEST_LOG       := test/engine/log-gpu

# ---- the engine as static libraries, each source compiled once ----
# Its own objects under build/, not the extension's src/engine/*/*.o: those
# are compiled by PGXS with pg_config's CFLAGS, and gpu-check must build on a
# device machine with no PostgreSQL. The flags are the exactness ones all the
# same (EXACT_CFLAGS: -frounding-math -ffp-contract=off -fno-fast-math, never
# fast-math); no -fPIC, as they only go into executables. The CUDA objects
# (nvcc, no pg_config involved) are the extension's own src/engine/*/*.o.
# The C objects are the same for both libraries: no engine C file depends on
# EXG_WITH_CUDA; only the GPU back-end differs (gpu_absent.o or the .cu objects).
ENGINE_BUILD      := build
ENGINE_LIB        := $(ENGINE_BUILD)/libexactgpu_engine.a
ENGINE_GPU_LIB    := $(ENGINE_BUILD)/libexactgpu_engine_gpu.a
ENGINE_LIB_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra $(EXACT_CFLAGS) $(ENGINE_INC)
ENGINE_C_OBJS     := $(patsubst src/%.c,$(ENGINE_BUILD)/%.o,$(ENGINE_SRCS))
GPU_ABSENT_OBJ    := $(patsubst src/%.c,$(ENGINE_BUILD)/%.o,$(GPU_ABSENT))
ENGINE_CUDA_OBJS  := $(CUDA_SRCS:.cu=.o)
GPU_LIBS          := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++

# -MMD: each object's header dependencies, so a header change rebuilds only
# the objects that include it.
$(ENGINE_BUILD)/engine/%.o: src/engine/%.c
	@mkdir -p $(@D)
	$(ENGINE_TEST_CC) $(ENGINE_LIB_CFLAGS) -MMD -MP -c $< -o $@

$(ENGINE_LIB): $(ENGINE_C_OBJS) $(GPU_ABSENT_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(ENGINE_GPU_LIB): $(ENGINE_C_OBJS) $(ENGINE_CUDA_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

.PHONY: engine-lib engine-gpu-lib
engine-lib: $(ENGINE_LIB)
engine-gpu-lib: $(ENGINE_GPU_LIB)

# ---- test support, compiled once too ----
# The harness every engine test and bench shares (random generator, clock,
# checks, mesh builders): test/engine/harness.h.
TEST_HARNESS     := test/engine/harness.c
test_obj          = $(patsubst %.c,$(ENGINE_BUILD)/%.o,$(1))
TEST_HARNESS_OBJ := $(call test_obj,$(TEST_HARNESS))

$(ENGINE_BUILD)/test/engine/%.o: test/engine/%.c
	@mkdir -p $(@D)
	$(ENGINE_TEST_CC) $(ENGINE_TEST_CFLAGS) -MMD -MP -c $< -o $@
$(ENGINE_BUILD)/test/fixtures/%.o: test/fixtures/%.c
	@mkdir -p $(@D)
	$(ENGINE_TEST_CC) $(ENGINE_TEST_CFLAGS) -MMD -MP -c $< -o $@
# The independent references see no engine header: their include path has
# test/reference only, so a reference that reached into the engine would not
# compile.
REF_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra $(EXACT_CFLAGS) -Itest/reference
$(ENGINE_BUILD)/test/reference/%.o: test/reference/%.c
	@mkdir -p $(@D)
	$(ENGINE_TEST_CC) $(REF_CFLAGS) -MMD -MP -c $< -o $@

ENGINE_TESTS := $(patsubst test/engine/%.c,%,$(sort $(wildcard test/engine/test_*.c)))

# Support sources each test may need beyond the engine and the harness.
test_differential_EXTRA := test/engine/adversarial.c test/reference/ref_exact.c
test_mine_EXTRA         := test/fixtures/mine.c
test_join_EXTRA         := test/engine/join_data.c
test_pairs_differential_EXTRA := test/engine/adversarial.c test/reference/ref_exact.c
test_overlay_EXTRA      := test/reference/ref_exact.c
test_solid_differential_EXTRA := test/reference/ref_solid.c test/reference/ref_exact.c
test_static_filter_EXTRA := test/engine/adversarial.c test/reference/ref_exact.c
test_batch_flatten_EXTRA := test/fixtures/mine.c
test_solid_check_EXTRA  := test/reference/ref_exact.c

# A test is its object, the harness, its extras and one engine library, last
# on the line so the archive resolves what the objects before it use. The
# test objects are the same for both back-ends (no test reads EXG_WITH_CUDA).
$(foreach t,$(ENGINE_TESTS),$(eval $(ENGINE_TEST_BIN)/$(t) $(GPU_TEST_BIN)/$(t): \
	$(call test_obj,test/engine/$(t).c) $(TEST_HARNESS_OBJ) $(call test_obj,$($(t)_EXTRA))))

$(ENGINE_TEST_BIN)/%: $(ENGINE_LIB)
	@mkdir -p $(@D)
	$(ENGINE_TEST_CC) $(EXACT_CFLAGS) -o $@ $(filter %.o,$^) $(ENGINE_LIB) $(ENGINE_TEST_LIBS)

# The GMP reference's own self-test: the reference alone, no engine, no harness.
REFERENCE_TESTS := test_ref_exact
$(ENGINE_TEST_BIN)/test_ref_exact: $(call test_obj,test/reference/test_ref_exact.c test/reference/ref_exact.c)
	@mkdir -p $(@D)
	$(ENGINE_TEST_CC) -o $@ $^ -lgmp -lm

# ---- running them: one log per test, one line per result, failures named ----
# Each test runs as its own target, so `make -jN engine-check` runs N at a
# time; its output goes to $(ENGINE_TEST_LOG)/<test>.log (not interleaved),
# and test/engine/run_test.sh prints one line when it ends. The summary
# afterwards shows each failed test's FAIL lines and the end of its log, and
# fails if any did. The
# longest tests come first so that parallel runs end together.
ENGINE_TESTS_LONG := test_batch_flatten test_solid_differential test_triangulate test_ref_exact \
                     test_box_join test_static_filter test_differential test_join
ENGINE_CHECK      := $(filter $(ENGINE_TESTS) $(REFERENCE_TESTS),$(ENGINE_TESTS_LONG)) \
                     $(filter-out $(ENGINE_TESTS_LONG),$(ENGINE_TESTS) $(REFERENCE_TESTS))
ENGINE_RUNS       := $(addprefix engine-run/,$(ENGINE_CHECK))

.PHONY: engine-tests engine-check $(ENGINE_RUNS)
engine-tests: $(addprefix $(ENGINE_TEST_BIN)/,$(ENGINE_CHECK))

$(ENGINE_RUNS): engine-run/%: $(ENGINE_TEST_BIN)/%
	@sh test/engine/run_test.sh $(ENGINE_TEST_LOG) $< $($*_ARGS)

engine-check: $(ENGINE_RUNS)
	@sh test/engine/run_test.sh --summary $(ENGINE_TEST_LOG) $(ENGINE_CHECK)

# ---- the same tests linked with the CUDA back-end, for the device machine ----
# `make -j16 gpu-check` from a clone with nvcc, GMP and gcc (no PostgreSQL):
# builds the CUDA objects, the GPU library and every engine test against it,
# then runs them one after another (they share one GPU, and some set device
# memory budgets: run side by side they would measure each other). Every
# test runs, not only the GPU ones: with the GPU present, a join's device
# "auto" picks it, so each join test goes through the CUDA back-end. The ones
# with a --gpu flag get it and fail when no GPU is usable.
# The eight with a GPU side of their own first (a missing GPU shows at once).
GPU_TESTS_OWN := test_join test_box_join test_pairs_differential test_solid_differential \
                 test_locate_join test_overlay test_memory_limits test_gpu_service
GPU_TESTS     ?= $(filter $(ENGINE_CHECK),$(GPU_TESTS_OWN)) $(filter-out $(GPU_TESTS_OWN),$(ENGINE_CHECK))
test_join_GPU_ARGS               := --gpu
test_box_join_GPU_ARGS           := --gpu
test_pairs_differential_GPU_ARGS := --gpu --cases 20000
test_solid_differential_GPU_ARGS := --gpu
test_gpu_service_GPU_ARGS        := --gpu
# The reference's self-test has no GPU side: the same binary.
$(GPU_TEST_BIN)/test_ref_exact: $(ENGINE_TEST_BIN)/test_ref_exact
	@mkdir -p $(@D)
	cp $< $@

$(GPU_TEST_BIN)/%: $(ENGINE_GPU_LIB)
	@mkdir -p $(@D)
	$(ENGINE_TEST_CC) $(EXACT_CFLAGS) -o $@ $(filter %.o,$^) $(ENGINE_GPU_LIB) $(GPU_LIBS) $(ENGINE_TEST_LIBS)

ifneq ($(filter gpu-check gpu-tests engine-gpu-lib,$(MAKECMDGOALS)),)
ifndef HAVE_CUDA
$(error $(MAKECMDGOALS): no nvcc found (CUDA_HOME=$(CUDA_HOME)), or WITH_CUDA=0)
endif
endif

.PHONY: gpu-tests gpu-check
gpu-tests: $(addprefix $(GPU_TEST_BIN)/,$(GPU_TESTS))

gpu-check: gpu-tests
	@rm -rf $(GPU_TEST_LOG)
	@-nvidia-smi -L
	@$(foreach t,$(GPU_TESTS),sh test/engine/run_test.sh $(GPU_TEST_LOG) $(GPU_TEST_BIN)/$(t) $($(t)_GPU_ARGS);)
	@sh test/engine/run_test.sh --summary $(GPU_TEST_LOG) $(GPU_TESTS)

-include $(shell find $(ENGINE_BUILD) -name '*.d' 2>/dev/null)

# No include cycles and no call cycles between the engine's files, nor
# between the PostgreSQL layer's, and src/pg sees the engine only through
# src/engine/exactgpu_engine.h (test/layout/check_cycles.py; ARCHITECTURE.md
# says why).
.PHONY: check-cycles
check-cycles: $(filter src/engine/% src/pg/%,$(OBJS))
	python3 test/layout/check_cycles.py
