# collbench. Run ./configure first; `make V=1` shows the commands.
ifeq ($(wildcard config.mk),)
ifeq ($(filter clean distclean,$(MAKECMDGOALS)),)
$(error config.mk is missing: run ./configure first)
endif
endif
-include config.mk

Q := $(if $(V),,@)
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -MMD -MP -I. -Ibench -Ibuild $(JANSSON_CFLAGS) $(CFLAGS_EXTRA) \
          -DCB_REPORTS_DIR='"$(abspath reports)"' \
          -DCB_REPORTS_INSTALL_DIR='"$(PREFIX)/share/collbench/reports"' \
          -DCB_TOPOLOGIES_DIR='"$(abspath topologies)"' \
          -DCB_TOPOLOGIES_INSTALL_DIR='"$(PREFIX)/share/collbench/topologies"'
LIBS := $(JANSSON_LIBS) -linih -lm -pthread

# The measuring library: everything but main, so tests link it too.
LIB_SRC := $(wildcard bench/base/*.c bench/runtime/*.c bench/results/*.c bench/engine/*.c bench/topology/*.c bench/fleet/*.c bench/modes/*.c bench/ops/*.c bench/output/*.c bench/report/*.c bench/readback/*.c bench/accept/*.c bench/burnin/*.c \
                      bench/model/*.c bench/probe/*.c bench/copy/*.c bench/import/*.c) \
           bench/backends/registry.c bench/backends/mpi.c bench/backends/ompi_algo.c \
           bench/backends/nccl_env.c \
           bench/backends/nccl_log.c bench/backends/nccl_logfile.c bench/backends/nccl_ran.c \
           $(filter-out tuner/comm_nccl.c tuner/layout_nccl.c tuner/nccl_world.c,$(wildcard tuner/*.c)) kernels/transformer.c kernels/compute_table.c kernels/launch.c
# Optional backends: configure says which libraries exist.
ifeq ($(HAVE_UCX),1)
LIB_SRC += bench/backends/ucx.c bench/backends/ucx_logic.c
CFLAGS += $(UCX_CFLAGS)
LIBS += $(UCX_LIBS)
endif
ifeq ($(HAVE_VERBS),1)
LIB_SRC += bench/backends/verbs.c bench/backends/verbs_logic.c
LIBS += $(VERBS_LIBS)
endif
# GPU code: CUDA C kernels (nvcc) and the runtime helpers' CUDA half;
# the nccl backend on top. Without them gpu.c says why GPUs are unusable.
CU_SRC :=
ifeq ($(HAVE_CUDA),1)
CU_SRC := $(wildcard kernels/*.cu)
CFLAGS += -I$(CUDA_DIR)/include
# nvcc's host code needs the C++ runtime (static guards, personality)
LIBS += -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart -ldl -lstdc++
endif
ifeq ($(HAVE_NCCL),1)
LIB_SRC += bench/backends/nccl.c bench/backends/nccl_end.c bench/backends/nccl_launch.c \
           $(wildcard tuner/comm_nccl.c) \
           tuner/nccl_world.c
CFLAGS += $(NCCL_CFLAGS)
LIBS += $(NCCL_LIBS)
endif
# The GPU step of --tune (cuBLAS GEMMs) and the tuner's NCCL backend.
ifeq ($(HAVE_CUBLAS),1)
LIB_SRC += $(wildcard kernels/gpu_step*.c) kernels/gpu_blas.c # cuBLAS itself: loaded by gpu_blas.c
ifeq ($(HAVE_NCCL),1)
LIB_SRC += tuner/layout_nccl.c
endif
endif
NVCCFLAGS := $(CUDA_ARCH) -O2 -std=c++17 -Wno-deprecated-gpu-targets -Xcompiler -Wall,-Wextra \
             -I. -Ibench -Ibuild
ifeq ($(HAVE_HWLOC),1)
CFLAGS += $(HWLOC_CFLAGS)
LIBS += $(HWLOC_LIBS)
endif
# The host step kernel needs a BLAS; without it --tune says it is disabled.
ifeq ($(HAVE_OPENBLAS),1)
LIB_SRC += kernels/host.c
ifeq ($(HAVE_CUDA),1)
LIB_SRC += kernels/gpu_host_step.c # the host's step, its gradients on the GPU
endif
LIBS += -ldl # OpenBLAS itself is loaded by kernels/host.c when a step needs it
endif
LIB_SRC := $(filter-out bench/main.c,$(LIB_SRC))
LIB_OBJ := $(LIB_SRC:%.c=build/%.o) $(CU_SRC:%.cu=build/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
ifneq ($(HAVE_VERBS),1)
UNIT_SRC := $(filter-out tests/unit/test_verbs_logic.c,$(UNIT_SRC))
endif
ifneq ($(HAVE_UCX),1)
UNIT_SRC := $(filter-out tests/unit/test_ucx_logic.c,$(UNIT_SRC))
endif
ifneq ($(HAVE_CUDA),1)
UNIT_SRC := $(filter-out tests/unit/test_gpu_pattern.c,$(UNIT_SRC))
endif
ifneq ($(HAVE_OPENBLAS),1)
UNIT_SRC := $(filter-out tests/unit/test_kernel.c,$(UNIT_SRC))
endif
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/tests/%.t)

# collbench's NCCL tuner plugin (tuner/plugin, RULES.md there): built where
# configure found NCCL, which is where it is used, though it declares NCCL's
# interface itself and links libc only. Plain cc, not the MPI wrapper: NCCL
# dlopens it into jobs that may not use MPI at all.
ifeq ($(HAVE_NCCL),1)
TUNER_PLUGIN := build/libnccl-tuner-collbench.so
# and its profiler plugin (bench/backends/nccl_profiler): what NCCL ran
TUNER_PLUGIN += build/libnccl-profiler-collbench.so
endif
PLUGIN_CC ?= cc
PLUGIN_SRC := tuner/plugin/tuner.c tuner/plugin/rules.c
PROFILER_SRC := bench/backends/nccl_profiler/profiler.c

all: collbench $(TUNER_PLUGIN)

build/libnccl-profiler-collbench.so: $(PROFILER_SRC) $(wildcard bench/backends/nccl_profiler/*.h)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(PLUGIN_CC) -std=gnu11 -O2 -g -Wall -Wextra -fPIC -shared -fvisibility=hidden \
	  -Wl,--no-undefined -Wl,-soname,libnccl-profiler-collbench.so -o $@ $(PROFILER_SRC) -lpthread

build/libnccl-tuner-collbench.so: $(PLUGIN_SRC) $(wildcard tuner/plugin/*.h)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(PLUGIN_CC) -std=gnu11 -O2 -g -Wall -Wextra -fPIC -shared -fvisibility=hidden \
	  -Wl,--no-undefined -Wl,-soname,libnccl-tuner-collbench.so -o $@ $(PLUGIN_SRC) -lm

# The test stand-in of the CUDA runtime and NCCL (tests/fixtures/standin/STANDIN.md): built
# for make check where collbench links CUDA and NCCL, loaded by LD_LIBRARY_PATH in place of
# theirs, never installed. Its CUDA runtime takes the real one's soname and symbol version.
ifeq ($(HAVE_NCCL),1)
CUDART_SONAME := $(shell objdump -p $(CUDA_LIBDIR)/libcudart.so 2>/dev/null | awk '$$1 == "SONAME" {print $$2}')
STANDIN := build/standin/$(CUDART_SONAME) build/standin/libnccl.so.2
endif
STANDIN_NCCL_SRC := $(addprefix tests/fixtures/standin/,nccl_lib.c plugins.c log.c reduce.c)

build/standin/$(CUDART_SONAME): tests/fixtures/standin/cudart.c tests/fixtures/standin/standin.h
	@mkdir -p $(@D)
	@echo "  LD      $@ (test stand-in)"
	$(Q)printf '%s {\n  global: *;\n};\n' $(CUDART_SONAME) >build/standin/cudart.map
	$(Q)$(PLUGIN_CC) -std=gnu11 -O2 -g -Wall -Wextra -fPIC -shared -fvisibility=hidden \
	  -I$(CUDA_DIR)/include -Wl,--version-script=build/standin/cudart.map \
	  -Wl,-soname,$(CUDART_SONAME) -o $@ tests/fixtures/standin/cudart.c

build/standin/libnccl.so.2: $(STANDIN_NCCL_SRC) $(wildcard tests/fixtures/standin/*.h) \
    build/standin/$(CUDART_SONAME) bench/backends/nccl_profiler/profiler_abi.h tuner/plugin/nccl_abi.h
	@echo "  LD      $@ (test stand-in)"
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -fPIC -shared -fvisibility=hidden \
	  -I$(CUDA_DIR)/include $(NCCL_CFLAGS) -Wl,-soname,libnccl.so.2 -o $@ $(STANDIN_NCCL_SRC) \
	  build/standin/$(CUDART_SONAME) -lm -ldl

# and cuBLAS, where the GPU step is built (its GEMMs on the host, by OpenBLAS)
ifeq ($(HAVE_CUBLAS)$(HAVE_OPENBLAS)$(HAVE_NCCL),111)
CUBLAS_SONAME := $(shell objdump -p $(CUDA_LIBDIR)/libcublas.so 2>/dev/null | awk '$$1 == "SONAME" {print $$2}')
STANDIN += build/standin/$(CUBLAS_SONAME)
endif

build/standin/$(CUBLAS_SONAME): tests/fixtures/standin/cublas.c tests/fixtures/standin/reduce.c \
    $(wildcard tests/fixtures/standin/*.h) build/standin/$(CUDART_SONAME)
	@echo "  LD      $@ (test stand-in)"
	$(Q)$(PLUGIN_CC) -std=gnu11 -O2 -g -Wall -Wextra -fPIC -shared -fvisibility=hidden \
	  -I$(CUDA_DIR)/include $(NCCL_CFLAGS)\
	  -Wl,-soname,$(CUBLAS_SONAME) -o $@ tests/fixtures/standin/cublas.c \
	  tests/fixtures/standin/reduce.c build/standin/$(CUDART_SONAME) $(OPENBLAS_LIBS) -lm

# and libibverbs, where the verbs backend is built (one device, RC queue pairs between the
# processes of one host), in a folder of its own: MPI's and UCX's own verbs components would
# find it too
ifeq ($(HAVE_VERBS),1)
STANDIN += build/standin-verbs/libibverbs.so.1
endif

build/standin-verbs/libibverbs.so.1: tests/fixtures/standin/verbs.c tests/fixtures/standin/verbs.map
	@mkdir -p $(@D)
	@echo "  LD      $@ (test stand-in)"
	$(Q)$(PLUGIN_CC) -std=gnu11 -O2 -g -Wall -Wextra -fPIC -shared -fvisibility=hidden \
	  -Wl,--version-script=tests/fixtures/standin/verbs.map -Wl,-soname,libibverbs.so.1 -o $@ \
	  tests/fixtures/standin/verbs.c

standin: $(STANDIN)

collbench: build/bench/main.o build/libcollbench.a bench/main.exports
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS_EXTRA) -Wl,--dynamic-list=bench/main.exports -o $@ \
	  build/bench/main.o build/libcollbench.a $(LIBS)

build/libcollbench.a: $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

build/%.o: %.c config.h build/gitversion.h
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

build/%.o: %.cu config.h $(wildcard kernels/*.h) bench/base/pattern.h bench/base/dtype.h
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -c -o $@ $<

# The commit goes into every run record; rewritten only when it changes.
build/gitversion.h: FORCE
	@mkdir -p build
	@c=$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown); \
	 if ! git diff --quiet HEAD -- 2>/dev/null; then c="$$c-dirty"; fi; \
	 line="#define CB_GIT_COMMIT \"$$c\""; \
	 [ "$$(cat $@ 2>/dev/null)" = "$$line" ] || echo "$$line" > $@

build/tests/%.t: tests/unit/%.c $(wildcard tests/unit/*.h) build/libcollbench.a
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -Itests/unit -o $@ $< build/libcollbench.a $(LIBS)

check: collbench $(TUNER_PLUGIN) $(STANDIN) $(UNIT_BIN)
	prove --timer --directives --exec '' $(UNIT_BIN) tests/*.t

# libFuzzer harnesses for the file readers (tests/fuzz/fuzz_READER.c, seeds
# in tests/fuzz/corpus/READER): the library again, built by clang through
# the MPI wrapper with ASan, UBSan and coverage, in build/fuzz. A new reader
# needs only its harness and a corpus directory.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -g -O1 -Wno-unknown-warning-option -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_WRAP := OMPI_CC=$(FUZZ_CC) MPICH_CC=$(FUZZ_CC) $(CC)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=build/fuzz/%.o) $(CU_SRC:%.cu=build/%.o)

build/fuzz/%.o: %.c config.h build/gitversion.h
	@mkdir -p $(@D)
	@echo "  CC      $< (fuzz)"
	$(Q)$(FUZZ_WRAP) $(CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/libcollbench.a: $(FUZZ_LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_file.h build/fuzz/libcollbench.a
	@echo "  LD      $@"
	$(Q)$(FUZZ_WRAP) $(CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< build/fuzz/libcollbench.a $(LIBS)

fuzz: $(FUZZ_BIN)

# Each harness for FUZZ_SECONDS from its seeds (new inputs go to
# build/fuzz/corpus); any crash, leak, sanitizer report or 10 s input fails.
# The readers' messages about bad lines are silenced (-close_fd_mask=3);
# libFuzzer and the sanitizers still report on stderr.
# One target per reader, so `make -j2 fuzz-check` fuzzes two at once (each
# harness is one process on one core).
FUZZ_READERS = $(FUZZ_BIN:build/fuzz/fuzz_%=%)
fuzz-check: $(FUZZ_READERS:%=fuzz-check-%)
fuzz-check-%: build/fuzz/fuzz_%
	@mkdir -p build/fuzz/corpus/$* build/fuzz/crash
	@echo "  FUZZ    $* ($(FUZZ_SECONDS) s)"
	@if $< -max_total_time=$(FUZZ_SECONDS) -timeout=10 -close_fd_mask=3 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/crash/$*- build/fuzz/corpus/$* tests/fuzz/corpus/$* \
	    >build/fuzz/$*.log 2>&1; then \
	  sed -n 's/^stat::number_of_executed_units: */  $*: inputs: /p' build/fuzz/$*.log; \
	else \
	  grep -E -m 10 'ERROR:|runtime error|^SUMMARY| #[0-4] ' build/fuzz/$*.log; \
	  grep -h 'Test unit written' build/fuzz/$*.log; \
	  echo "fuzz-check: findings in $* (log: build/fuzz/$*.log)"; exit 1; \
	fi

# The manual page, from --help and --version (help2man) plus scripts/collbench.h2m.
build/collbench.1: collbench scripts/collbench.h2m
	@mkdir -p build
	@echo "  MAN     $@"
	$(Q)help2man -N -s 1 -n "measure and check collectives and point-to-point traffic" \
	  --version-string="$$(./collbench --version | sed -n '1s/ (.*//p')" \
	  -i scripts/collbench.h2m -o $@ ./collbench

# README's guides keep their paths under share/doc/collbench, so its links work there too.
GUIDES := $(wildcard bench/*.md bench/*/*.md reports/*.md topologies/*.md tuner/*.md \
                     tuner/plugin/*.md scripts/*.md tests/*.md)

install: collbench $(TUNER_PLUGIN) build/collbench.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/doc/collbench
	install -m 755 collbench $(DESTDIR)$(PREFIX)/bin/collbench
	install -m 644 README.md LICENSE $(DESTDIR)$(PREFIX)/share/doc/collbench/
	for g in $(GUIDES); do install -D -m 644 $$g $(DESTDIR)$(PREFIX)/share/doc/collbench/$$g || exit 1; done
	install -d $(DESTDIR)$(PREFIX)/share/collbench/reports
	install -m 644 reports/*.gp $(DESTDIR)$(PREFIX)/share/collbench/reports/
	install -d $(DESTDIR)$(PREFIX)/share/collbench/topologies
	install -m 644 topologies/*.conf topologies/README.md $(DESTDIR)$(PREFIX)/share/collbench/topologies/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 build/collbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/collbench.1
	$(if $(TUNER_PLUGIN),install -d $(DESTDIR)$(PREFIX)/lib)
	$(if $(TUNER_PLUGIN),install -m 755 $(TUNER_PLUGIN) $(DESTDIR)$(PREFIX)/lib/)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/collbench $(DESTDIR)$(PREFIX)/share/man/man1/collbench.1 \
	  $(DESTDIR)$(PREFIX)/lib/libnccl-tuner-collbench.so \
	  $(DESTDIR)$(PREFIX)/lib/libnccl-profiler-collbench.so
	rm -rf $(DESTDIR)$(PREFIX)/share/collbench $(DESTDIR)$(PREFIX)/share/doc/collbench

clean:
	rm -rf build collbench

distclean: clean
	rm -f config.mk config.h

FORCE:
.PHONY: all standin check fuzz fuzz-check install uninstall clean distclean FORCE

-include $(LIB_OBJ:.o=.d) build/bench/main.d
