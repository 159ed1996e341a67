# powprof - see README.md. Targets:
#   make            ./powprof, libpowprof.a and .so, and the component modules
#   make check      the layout check, then every test (C, then Python); last line
#                   "N passed, M failed"; TESTS="a b": the tests whose name holds a or b
#   make asan       the whole suite under AddressSanitizer + UBSan
#   make bench      benchmarks (figures and ratios)
#   make run        the main job on this machine (V=1: every compiler command)
#   make deps       install the missing Debian packages of debian-packages.txt
#   make install PREFIX=/usr/local   binary, libraries (.a, .so), headers,
#                   modules, powprof.pc and the man page
#   make install-python   the same, and the Python package (python/)

VERSION := 0.1.0

# Quiet by default, one line per file built; V=1 prints every command.
ifeq ($(V),1)
Q :=
say := @true
else
Q := @
say := @printf '  %-4s %s\n'
endif
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
say := @true
endif
PREFIX ?= /usr/local
CC ?= cc
O ?= build

WARN := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT ?= -O2 -g
CPPFLAGS += -I. -D_GNU_SOURCE -DPP_VERSION='"$(VERSION)"'
CFLAGS += $(WARN) $(OPT) $(SAN)
LDFLAGS += $(SAN)
# What every command needs, and nothing more: the heavy components are
# modules (below) and layer 2 loads OpenBLAS when it first multiplies
# (src/layer2/lapack.h), so that `powprof meter` stays small.
# MINPACK (cminpack, ~100 kB, needs only libm) is linked, not loaded on
# demand: `battery fit` solves its least squares with it
# (battery/fit.c, the only file that sees it).
LDLIBS += -lsundials_cvode -lconfig -ljansson -lcminpack -lpthread -ldl -lm
$(O)/battery/fit.o: CPPFLAGS += -I/usr/include/cminpack-1

# Component modules, loaded with dlopen when a profile names their type
# (components/registry.h). They use no symbol of powprof's (-z defs).
MOD_DIR := $(O)/lib/powprof
MOD_CFLAGS := -fPIC -fvisibility=hidden
MOD_LDFLAGS := -shared -Wl,-z,defs
MODULE_SRC := components/matrix_cpu.c components/darknet.c components/gpu_components.c
MODULES := $(MOD_DIR)/powprof-matrix-cpu.so

# darknet (Debian's package) is optional at build time: without it the
# darknet module is not built, and a profile that names it says what to
# install.
DARKNET_DIR ?= /usr/lib/darknet
HAVE_DARKNET := $(wildcard $(DARKNET_DIR)/include/darknet.h)
DARKNET_LIBS := -L$(DARKNET_DIR) -Wl,-rpath,$(DARKNET_DIR) -ldarknet
ifneq ($(HAVE_DARKNET),)
MODULES += $(MOD_DIR)/powprof-darknet.so
endif

# CUDA is optional: the CUDA module is built when nvcc is found.
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
ifneq ($(NVCC),)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
MODULES += $(MOD_DIR)/powprof-cuda.so
endif

LIB_SRC := $(sort $(wildcard src/*/*.c plots/*.c devices/*.c battery/*.c components/*.c))
LIB_SRC := $(filter-out $(MODULE_SRC),$(LIB_SRC))
CLI_SRC := $(sort $(wildcard src/cli/*.c))
LIB_SRC := $(filter-out $(CLI_SRC),$(LIB_SRC))
TEST_SRC := $(sort $(wildcard tests/test_*.c)) tests/main.c tests/harness.c tests/replay_oracle.c
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(O)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(O)/%.o)
LIB := $(O)/libpowprof.a
# The shared library (issue 34): the same objects, position-independent,
# exporting only the public API (src/api/libpowprof.map); soname
# libpowprof.so.SO_MAJOR, raised when the public ABI breaks.
SO_MAJOR := 0
SONAME := libpowprof.so.$(SO_MAJOR)
SHLIB := $(O)/libpowprof.so.$(VERSION)
SHLIB_MAP := src/api/libpowprof.map
TEST_BIN := $(O)/tests/powprof-tests
FAKE_NVML := $(O)/tests/libfake-nvml.so
BENCH_BIN := $(BENCH_SRC:%.c=$(O)/%)

# The public headers, staged as they are installed (include/powprof.h and
# include/powprof/*.h; the component interface and the logger come from
# their modules), and the example component module built against them.
PUBLIC_H := $(O)/include/powprof.h $(patsubst include/%,$(O)/include/%,$(wildcard include/powprof/*.h)) \
	$(O)/include/powprof/component.h $(O)/include/powprof/log.h
EXAMPLE_MOD := $(O)/examples/modules/powprof-memcopy.so
# The example programs, built as a user would against the public headers
# (the tests build them again against an installed copy).
EXAMPLE_BIN := $(O)/examples/onboard $(O)/examples/mission $(O)/examples/governed

.PHONY: all check asan bench run deps install install-python clean modules config-doc layout examples
all: powprof libpowprof.a $(SHLIB) modules examples

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(O)/mod/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(MOD_CFLAGS) -MMD -MP -c $< -o $@

$(O)/mod/components/darknet.o: CPPFLAGS += -isystem $(DARKNET_DIR)/include

$(O)/mod/components/gpu.o: components/gpu.cu components/gpu.h
	@mkdir -p $(dir $@)
	$(say) NVCC $@
	$(Q)$(NVCC) -O2 -std=c++17 -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-Wextra,-Werror -c $< -o $@

$(MOD_DIR)/powprof-matrix-cpu.so: $(O)/mod/components/matrix_cpu.o
	@mkdir -p $(dir $@)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) $(MOD_LDFLAGS) -o $@ $^ -lopenblas -lm

$(MOD_DIR)/powprof-darknet.so: $(O)/mod/components/darknet.o
	@mkdir -p $(dir $@)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) $(MOD_LDFLAGS) -o $@ $^ $(DARKNET_LIBS)

$(MOD_DIR)/powprof-cuda.so: $(O)/mod/components/gpu_components.o $(O)/mod/components/gpu.o
	@mkdir -p $(dir $@)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) $(MOD_LDFLAGS) -o $@ $^ -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
		-lcublas -lcudart -lstdc++ -ldl -lm

modules: $(MODULES)

# -fPIC for the shared library (the static one takes the same objects);
# the stamp, made once, rebuilds objects compiled before -fPIC was added.
$(LIB_OBJ): CFLAGS += -fPIC
$(LIB_OBJ): $(O)/.fpic-stamp
$(O)/.fpic-stamp:
	@mkdir -p $(dir $@)
	@touch $@

$(SHLIB): $(LIB_OBJ) $(SHLIB_MAP)
	@mkdir -p $(dir $@)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(SHLIB_MAP) \
		-Wl,-z,defs -Wl,--as-needed -o $@ $(LIB_OBJ) $(LDLIBS)
	$(Q)ln -sfn libpowprof.so.$(VERSION) $(O)/$(SONAME)
	$(Q)ln -sfn $(SONAME) $(O)/libpowprof.so

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@
	$(say) AR $@
	$(Q)ar rcs $@ $^

$(O)/powprof: $(CLI_OBJ) $(LIB)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(LDLIBS)

# ./powprof is a link to the build it was asked from (so that it finds that
# build's modules); libpowprof.a a copy.
.PHONY: powprof libpowprof.a
powprof: $(O)/powprof
	@[ "$$(readlink $@ 2>/dev/null)" = "$<" ] || ln -sfn $< $@
libpowprof.a: $(LIB)
	@cmp -s $< $@ || cp $< $@

$(O)/include/powprof.h: include/powprof.h
	@mkdir -p $(dir $@)
	$(say) CP $@
	$(Q)cp $< $@
$(O)/include/powprof/%.h: include/powprof/%.h
	@mkdir -p $(dir $@)
	$(say) CP $@
	$(Q)cp $< $@
$(O)/include/powprof/component.h: components/component.h
	@mkdir -p $(dir $@)
	$(say) CP $@
	$(Q)cp $< $@
$(O)/include/powprof/log.h: src/base/log.h
	@mkdir -p $(dir $@)
	$(say) CP $@
	$(Q)cp $< $@

# A module of one's own, built as a user would: against the public headers.
$(EXAMPLE_MOD): examples/module/memcopy.c $(PUBLIC_H)
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) $(WARN) $(OPT) $(SAN) -I$(O)/include $(MOD_CFLAGS) $(MOD_LDFLAGS) $(LDFLAGS) -o $@ $<

examples: $(EXAMPLE_BIN)
$(O)/examples/%: examples/%.c $(PUBLIC_H) $(LIB)
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) $(WARN) $(OPT) $(SAN) -I$(O)/include -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

# The facade's tests see only the public headers, staged as installed.
$(O)/tests/test_api.o $(O)/tests/test_api_rows.o $(O)/tests/test_api_handles.o $(O)/tests/test_api_predict.o $(O)/tests/test_headers.o: CPPFLAGS += -I$(O)/include
$(O)/tests/test_api.o $(O)/tests/test_api_rows.o $(O)/tests/test_api_handles.o $(O)/tests/test_api_predict.o $(O)/tests/test_headers.o: $(PUBLIC_H)

# The list of tests, made from their definitions (`void test_NAME(void)` at
# the start of a line in tests/test_*.c), in the files' order: a test
# defined is a test run, with nothing to register by hand.
TEST_LIST := $(O)/tests/list.h
$(TEST_LIST): $(filter tests/test_%.c,$(TEST_SRC))
	@mkdir -p $(dir $@)
	$(say) GEN $@
	$(Q){ echo '/* Every test, in the order run: made by the Makefile from tests/test_*.c. */'; \
	  sed -n 's/^void test_\([A-Za-z0-9_]*\)(void)$$/TEST(\1)/p' $^; } > $@.tmp && mv $@.tmp $@
$(O)/tests/main.o: $(TEST_LIST)
$(O)/tests/main.o: CPPFLAGS += -I$(O)/tests

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# A stand-in for libnvidia-ml.so.1, to test the dlopen back-end without a GPU.
$(FAKE_NVML): tests/fake_nvml.c
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) $(CPPFLAGS) $(WARN) -O2 -fPIC -shared -o $@ $<

# The Python package (python/) and its tests run on Debian's python3, whose
# pandas and numpy come from Debian's packages (python3-pandas).
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)

# The folders where no result of pp_fmt or pp_strlcpy is ignored (issue 40):
# every folder of the library and the command line.
TRUNC_CHECKED = src/cli src/base src/traces battery components src/config src/dnn src/api \
	src/plan src/sweep plots src/results devices src/governor src/flight src/adaptive src/layer2

# The C tests, then the Python suite (skipped, and said so, without a
# python3 that imports pandas, and under the sanitizers); one last line.
check: $(TEST_BIN) $(O)/powprof $(SHLIB) $(FAKE_NVML) $(MODULES) $(EXAMPLE_MOD) $(EXAMPLE_BIN)
	./scripts/check-layout
	./scripts/check-truncation $(TRUNC_CHECKED)
	POWPROF_BIN=$(O)/powprof POWPROF_FAKE_NVML=$(FAKE_NVML) POWPROF_FIXTURES=tests/fixtures \
		POWPROF_EXAMPLE_MODULES=$(dir $(EXAMPLE_MOD)) POWPROF_DARKNET_DIR=$(DARKNET_DIR) \
		POWPROF_LIB=$(SHLIB) $(if $(SAN),POWPROF_PYTHON_SKIP="not under the sanitizers") \
		./scripts/check-tests $(TEST_BIN) $(PYTHON) $(TESTS)

# The layering of docs/DESIGN.md, function and file lengths, files that
# call each other (make check runs it first).
layout:
	./scripts/check-layout

asan:
	$(MAKE) check O=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"

# The startup benchmark compares with the build of BASELINE_REV (before the
# light core), built once into $(O)/baseline.
BASELINE_REV ?= e5dcd5e
$(O)/bench/bench_scheduler: LDLIBS += -lopenblas $(if $(HAVE_DARKNET),$(DARKNET_LIBS))
$(O)/bench/bench_scheduler: CPPFLAGS += $(if $(HAVE_DARKNET),-DPP_HAVE_DARKNET -isystem $(DARKNET_DIR)/include)
# bench/util.c: what the benchmarks share, kept between builds (with the
# tests' replay oracle: grids measured once, replayed)
.SECONDARY: $(O)/bench/util.o $(O)/tests/replay_oracle.o
$(O)/bench/%: bench/%.c $(O)/bench/util.o $(O)/tests/replay_oracle.o $(LIB)
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(O)/bench/util.o $(O)/tests/replay_oracle.o $(LIB) \
		$(LDFLAGS) $(LDLIBS)

bench: $(BENCH_BIN) $(O)/powprof $(MODULES) $(SHLIB)
	@for b in $(BENCH_BIN); do echo "== $$b"; POWPROF_FIXTURES=tests/fixtures POWPROF_BIN=$(O)/powprof \
		POWPROF_BASELINE_REV=$(BASELINE_REV) POWPROF_BASELINE_DIR=$(O)/baseline $$b || exit 1; done
	@echo "== bench/bench_python.py"; if $(PYTHON) -c 'import pandas' 2>/dev/null; then \
		POWPROF_BIN=$(O)/powprof POWPROF_LIB=$(SHLIB) $(PYTHON) bench/bench_python.py; \
	else echo "skipped: no $(PYTHON) with pandas (apt-get install python3-pandas)"; fi

run: all
	./scripts/run-main-job

# The component types section of docs/CONFIG.md, from the registry.
config-doc: $(O)/powprof $(MODULES)
	POWPROF_BIN=$(O)/powprof ./scripts/config-doc

deps:
	@./scripts/install-deps debian-packages.txt

install: all $(PUBLIC_H)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/powprof \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/powprof \
		$(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(O)/powprof $(DESTDIR)$(PREFIX)/bin/powprof
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libpowprof.a
	install -m 755 $(SHLIB) $(DESTDIR)$(PREFIX)/lib/libpowprof.so.$(VERSION)
	ln -sfn libpowprof.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sfn $(SONAME) $(DESTDIR)$(PREFIX)/lib/libpowprof.so
	install -m 755 $(MODULES) $(DESTDIR)$(PREFIX)/lib/powprof/
	install -m 644 $(O)/include/powprof.h $(DESTDIR)$(PREFIX)/include/powprof.h
	install -m 644 $(filter $(O)/include/powprof/%,$(PUBLIC_H)) $(DESTDIR)$(PREFIX)/include/powprof/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' powprof.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/powprof.pc
	install -m 644 man/powprof.1 $(DESTDIR)$(PREFIX)/share/man/man1/powprof.1

# The Python package with the library it loads, for the interpreter the
# user runs (the shell's python3: the active venv's; INSTALL_PYTHON=... for
# another): into its venv, else beside $(PREFIX)'s other Python packages
# (no --break-system-packages: Debian's python3 finds
# /usr/local/lib/python3.X/dist-packages). PYTHON stays the tests' one.
INSTALL_PYTHON ?= python3
install-python: install
	PYTHON=$(INSTALL_PYTHON) ./scripts/install-python $(DESTDIR)$(PREFIX) $(O)/python-package

clean:
	rm -rf build build-asan powprof libpowprof.a

-include $(shell find $(O) -name '*.d' 2>/dev/null)

# ---- fuzzing (issue 12): a libFuzzer target per parser, see fuzz/README.md
#   make fuzz               build them with clang (ASan + UBSan + libFuzzer)
#   make fuzz FUZZ_S=600    and run each in turn for 600 s, seeded from
#                           fuzz/corpus, configs/, tests/fixtures and data/
FUZZ_CC ?= clang
FUZZ_S ?= 0
FUZZ_O := build-fuzz
# float-cast-overflow: a double too large for the integer it is cast to
# (not in -fsanitize=undefined; it found three defects of issue 23)
FUZZ_SAN := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
FUZZ_NAMES ?= profile battery trace powprofiler tegrastats csv summary merge plotplan darknet layer_model ulog flightcsv govern mission adaptive model api
FUZZ_BIN := $(FUZZ_NAMES:%=$(FUZZ_O)/fuzz-%)

.PHONY: fuzz fuzz-lib fuzz-clean
fuzz: $(FUZZ_BIN)
	@if [ "$(FUZZ_S)" != 0 ]; then ./fuzz/run-fuzzers $(FUZZ_S) $(FUZZ_O) $(FUZZ_NAMES); fi

fuzz-lib:
	@printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return d && n < 0; }\n' | \
		$(FUZZ_CC) -fsanitize=fuzzer,address -x c - -o /dev/null 2>/dev/null || { echo \
		"make fuzz needs clang and its libFuzzer runtime: apt-get install clang libclang-rt-14-dev"; \
		exit 1; }
	$(MAKE) $(FUZZ_O)/libpowprof.a O=$(FUZZ_O) CC=$(FUZZ_CC) NVCC= \
		OPT="-O1 -g -fno-omit-frame-pointer" SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link"

$(FUZZ_O)/fuzz-%: fuzz/fuzz_main.c fuzz/targets.c fuzz/target_api.c fuzz/targets.h fuzz-lib
	$(FUZZ_CC) $(CPPFLAGS) $(WARN) -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer \
		-DPP_FUZZ_TARGET=$* -o $@ fuzz/fuzz_main.c fuzz/targets.c fuzz/target_api.c \
		$(FUZZ_O)/libpowprof.a $(LDLIBS)

clean: fuzz-clean
fuzz-clean:
	rm -rf $(FUZZ_O)
