# exactgpu — PGXS build.
#
#   make                  build the extension (CUDA code too when nvcc is found)
#   make WITH_CUDA=0      CPU-only build
#   make install          install into the PostgreSQL found by pg_config
#   make installcheck     pg_regress suite (needs a running server)
#   make -j engine-check  engine tests without PostgreSQL, run in parallel
#   make -j gpu-check     every engine test with the CUDA back-end, on a GPU
#                         machine (nvcc, GMP and gcc; no PostgreSQL needed)
#   make bench            standalone benchmark programs
#   make check-cycles     no include or call cycles (engine, PostgreSQL layer); src/pg includes only the engine's façade

EXTENSION   = exactgpu
EXTVERSION  = 0.3.0
MODULE_big  = exactgpu

# The engine: one folder per feature family (exact, geometry, join, boxjoin,
# solid, batch, runtime, drill, mesh), each with its CPU .c beside its GPU
# .cu twin; src/engine/exactgpu_engine.h is the PostgreSQL layer's view of it.
# gpu_absent.c is the GPU back-end of a build without CUDA.
ENGINE_DIRS    = $(sort $(dir $(wildcard src/engine/*/*)))
ENGINE_HEADERS = $(wildcard src/engine/*.h src/engine/*/*.h src/engine/*/*.cuh)
GPU_ABSENT     = src/engine/runtime/gpu_absent.c
ENGINE_SRCS    = $(filter-out $(GPU_ABSENT),$(sort $(wildcard src/engine/*/*.c)))
ENGINE_INC     = $(patsubst %/,-I%,$(ENGINE_DIRS))
# The PostgreSQL layer by role: sql/ (SQL entry points), planner/ (custom
# paths, support functions, costs), read/ (inner queries, detoasting, the
# parallel read), exec/ (the one batch-join driver, the custom scans'
# executors, result rows), resident/ (the shared store of prepared
# geometry); the module itself (GUCs, errors) at its top.
PG_DIRS        = src/pg/ $(sort $(dir $(wildcard src/pg/*/*)))
PG_INC         = $(patsubst %/,-I%,$(PG_DIRS))
PG_SRCS        = $(sort $(wildcard src/pg/*.c src/pg/*/*.c))
PG_HEADERS     = $(wildcard src/pg/*.h src/pg/*/*.h)
CUDA_SRCS      = $(sort $(wildcard src/engine/*/*.cu))

# sql/exactgpu.sql is the source; the versioned install script is built from
# it. 0.1.0's and 0.2.0's scripts are kept as shipped, with one upgrade script per step.
DATA_built  = sql/$(EXTENSION)--$(EXTVERSION).sql
DATA        = sql/$(EXTENSION)--0.1.0.sql sql/$(EXTENSION)--0.2.0.sql $(wildcard sql/$(EXTENSION)--*--*.sql)
# pg_regress suite: every test/regress/sql/<name>.sql against
# test/regress/expected; the extensions are loaded first, and each test makes
# and drops what it uses, so order does not matter. Setup several tests share
# (helper functions, postgis_sfcgal) is in test/regress/fixtures, included as
# `\i test/regress/fixtures/<name>.sql`: pg_regress feeds a test to psql on
# its standard input from the top directory, so paths are from there.
REGRESS     = $(sort $(notdir $(basename $(wildcard test/regress/sql/*.sql))))
REGRESS_OPTS = --inputdir=test/regress --load-extension=postgis --load-extension=exactgpu
EXTRA_CLEAN = build test/engine/bin test/engine/bin-gpu test/engine/log test/engine/log-gpu \
              bench/bin demo/bin $(CUDA_SRCS:.cu=.o)

PG_CONFIG  ?= pg_config

# Exactness: the interval filters need IEEE semantics and honoured rounding
# modes. Never -ffast-math, -fassociative-math or -ffp-contract=fast here.
EXACT_CFLAGS = -frounding-math -ffp-contract=off -fno-fast-math -fopenmp
PG_CPPFLAGS  = -Isrc/engine $(ENGINE_INC) $(PG_INC)
PG_CFLAGS    = $(EXACT_CFLAGS)
SHLIB_LINK   = -lgmp -fopenmp -lpthread

# ---- CUDA: compiled whenever nvcc is found, unless WITH_CUDA=0 ----
WITH_CUDA  ?= auto
CUDA_HOME  ?= /usr/local/cuda
NVCC       ?= $(shell command -v nvcc 2>/dev/null || (test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc))
CUDA_ARCH  ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
# --fmad=false: no contraction of a*b+c into FMA (it would bypass the
# directed rounding of the interval code); rounding intrinsics are used anyway.
NVCC_FLAGS ?= -O3 -std=c++17 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true \
              -Xcompiler -fPIC,-frounding-math,-ffp-contract=off \
              $(CUDA_ARCH) $(ENGINE_INC)

ifeq ($(WITH_CUDA),0)
HAVE_CUDA =
else ifneq ($(NVCC),)
HAVE_CUDA = 1
endif

ifdef HAVE_CUDA
OBJS        = $(ENGINE_SRCS:.c=.o) $(PG_SRCS:.c=.o) $(CUDA_SRCS:.cu=.o)
PG_CPPFLAGS += -DEXG_WITH_CUDA
SHLIB_LINK  += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
else
OBJS        = $(ENGINE_SRCS:.c=.o) $(PG_SRCS:.c=.o) $(GPU_ABSENT:.c=.o)
endif

# No LLVM bitcode: the JIT would inline our predicates compiled by clang
# without the flags above, and interval code must never be re-optimized.
override with_llvm = no

# Without PostgreSQL (a GPU machine running `make gpu-check`), the engine's
# targets below still work; only the extension's need PGXS.
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
endif

sql/$(EXTENSION)--$(EXTVERSION).sql: sql/$(EXTENSION).sql
	cp $< $@

src/engine/%.o: src/engine/%.cu $(ENGINE_HEADERS)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

# Headers are shared widely and small: any change rebuilds the C objects
# (PGXS tracks no header dependencies unless PostgreSQL was configured to).
$(filter %.o,$(OBJS)): $(ENGINE_HEADERS) $(PG_HEADERS)

# PGXS compiles C with its own CFLAGS (which keep -fexcess-precision=standard
# and add no fast-math); ours are appended above.

include test/engine/engine.mk
include bench/bench.mk
include demo/demo.mk
