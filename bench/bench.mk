# Benchmark programs (no PostgreSQL). Included from the top-level Makefile.
#   make bench     bench/bin/bench_join, bench_devices, bench_solids, bench_overlay (with the CUDA back-end when built with CUDA), bench_triangulate,
#                bench_parse

BENCH_BIN    := bench/bin
BENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra $(EXACT_CFLAGS) $(ENGINE_INC) -Ibench -Itest/engine -Itest/fixtures
# The benches link the engine library (test/engine/engine.mk): the CUDA one
# when built with CUDA, else the CPU one; bench_triangulate and bench_parse
# are CPU-only either way.
ifdef HAVE_CUDA
BENCH_ENGINE   := $(ENGINE_GPU_LIB)
BENCH_GPU_LIBS := $(GPU_LIBS)
BENCH_CFLAGS   += -DEXG_WITH_CUDA
# CUPTI's headers for bench_devices --kernels (libcupti itself is loaded at run time)
BENCH_CUPTI_INC := $(if $(wildcard $(CUDA_HOME)/include/cupti_activity.h),-I$(CUDA_HOME)/include)
else
BENCH_ENGINE   := $(ENGINE_LIB)
endif
BENCH_LIBS   := -lgmp -lm -lpthread

$(BENCH_BIN)/bench_join: bench/bench_join.c bench/mesh_io.c $(TEST_HARNESS_OBJ) $(call test_obj,test/fixtures/mine.c) $(BENCH_ENGINE) $(ENGINE_HEADERS) $(wildcard bench/*.h test/engine/*.h test/fixtures/*.h)
	@mkdir -p $(BENCH_BIN)
	$(ENGINE_TEST_CC) $(BENCH_CFLAGS) -o $@ bench/bench_join.c bench/mesh_io.c $(TEST_HARNESS_OBJ) $(call test_obj,test/fixtures/mine.c) \
		$(BENCH_ENGINE) $(BENCH_GPU_LIBS) $(BENCH_LIBS)

# One join cut over every GPU against one GPU (exg_batch_join_devices).
$(BENCH_BIN)/bench_devices: bench/bench_devices.c bench/kernel_trace.c bench/kernel_trace.h $(TEST_HARNESS_OBJ) $(call test_obj,test/fixtures/mine.c) $(BENCH_ENGINE) $(ENGINE_HEADERS) $(wildcard test/engine/*.h test/fixtures/*.h)
	@mkdir -p $(BENCH_BIN)
	$(ENGINE_TEST_CC) $(BENCH_CFLAGS) $(BENCH_CUPTI_INC) -o $@ bench/bench_devices.c bench/kernel_trace.c $(TEST_HARNESS_OBJ) $(call test_obj,test/fixtures/mine.c) \
		$(BENCH_ENGINE) $(BENCH_GPU_LIBS) $(BENCH_LIBS) -ldl

# A batch point-in-solid join's body checks, first and again (CPU).
$(BENCH_BIN)/bench_solid_checks: bench/bench_solid_checks.c $(TEST_HARNESS_OBJ) $(call test_obj,test/fixtures/mine.c) $(ENGINE_LIB) $(ENGINE_HEADERS) $(wildcard test/engine/*.h test/fixtures/*.h)
	@mkdir -p $(BENCH_BIN)
	$(ENGINE_TEST_CC) $(BENCH_CFLAGS) -o $@ bench/bench_solid_checks.c $(TEST_HARNESS_OBJ) $(call test_obj,test/fixtures/mine.c) \
		$(ENGINE_LIB) $(BENCH_LIBS)

$(BENCH_BIN)/bench_solids: bench/bench_solids.c $(TEST_HARNESS_OBJ) $(call test_obj,test/fixtures/mine.c) $(BENCH_ENGINE) $(ENGINE_HEADERS) $(wildcard test/engine/*.h test/fixtures/*.h)
	@mkdir -p $(BENCH_BIN)
	$(ENGINE_TEST_CC) $(BENCH_CFLAGS) -o $@ bench/bench_solids.c $(TEST_HARNESS_OBJ) $(call test_obj,test/fixtures/mine.c) \
		$(BENCH_ENGINE) $(BENCH_GPU_LIBS) $(BENCH_LIBS)

$(BENCH_BIN)/bench_overlay: bench/bench_overlay.c $(TEST_HARNESS_OBJ) $(BENCH_ENGINE) $(ENGINE_HEADERS) $(wildcard test/engine/*.h)
	@mkdir -p $(BENCH_BIN)
	$(ENGINE_TEST_CC) $(BENCH_CFLAGS) -o $@ bench/bench_overlay.c $(TEST_HARNESS_OBJ) \
		$(BENCH_ENGINE) $(BENCH_GPU_LIBS) $(BENCH_LIBS)

$(BENCH_BIN)/bench_triangulate: bench/bench_triangulate.c $(ENGINE_LIB) $(ENGINE_HEADERS)
	@mkdir -p $(BENCH_BIN)
	$(ENGINE_TEST_CC) $(BENCH_CFLAGS) -o $@ bench/bench_triangulate.c $(ENGINE_LIB) $(BENCH_LIBS)

# Flattening serialized rows into a join batch (the read path), CPU only.
$(BENCH_BIN)/bench_parse: bench/bench_parse.c test/engine/gs_write.h $(call test_obj,test/fixtures/mine.c) $(ENGINE_LIB) $(ENGINE_HEADERS) $(wildcard test/fixtures/*.h)
	@mkdir -p $(BENCH_BIN)
	$(ENGINE_TEST_CC) $(BENCH_CFLAGS) -o $@ bench/bench_parse.c $(call test_obj,test/fixtures/mine.c) $(ENGINE_LIB) $(BENCH_LIBS)

$(BENCH_BIN)/mesh_convert: bench/mesh_convert.c bench/mesh_io.c bench/mesh_io.h
	@mkdir -p $(BENCH_BIN)
	$(ENGINE_TEST_CC) $(BENCH_CFLAGS) -o $@ bench/mesh_convert.c bench/mesh_io.c

# CGAL as a peer of the join (bench_join --peer): header-only CGAL (Debian's
# libcgal-dev, or CGAL_INC pointing at carried headers: CGAL, boost), GMP and
# MPFR. Built only when CGAL is found; never part of the extension.
CGAL_INC ?= $(firstword $(wildcard /usr/include/CGAL/version.h))
CGAL_CXXFLAGS := -std=c++17 -O3 -DNDEBUG -frounding-math -fopenmp \
                 $(if $(filter-out /usr/include/CGAL/version.h,$(CGAL_INC)),-I$(CGAL_INC))
BENCH_PEERS := $(if $(CGAL_INC),$(BENCH_BIN)/bench_cgal_join)

$(BENCH_BIN)/bench_cgal_join: bench/cgal/bench_cgal_join.cpp
	@mkdir -p $(BENCH_BIN)
	$(CXX) $(CGAL_CXXFLAGS) -o $@ $< -lmpfr -lgmp

.PHONY: bench
bench: $(BENCH_BIN)/bench_join $(BENCH_BIN)/bench_devices $(BENCH_BIN)/bench_solid_checks $(BENCH_BIN)/bench_solids $(BENCH_BIN)/bench_overlay $(BENCH_BIN)/mesh_convert \
       $(BENCH_BIN)/bench_triangulate $(BENCH_BIN)/bench_parse $(BENCH_PEERS)
