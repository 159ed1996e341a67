# powprof - see README.md. Targets:
#   make            ./powprof and libpowprof.a
#   make check      build and run every test; last line "N passed, M failed"
#   make asan       the whole suite under AddressSanitizer + UBSan
#   make bench      benchmarks (figures and ratios)
#   make run        the main job on this machine
#   make deps       install the missing Debian packages of debian-packages.txt
#   make install PREFIX=/usr/local

VERSION := 0.1.0
PREFIX ?= /usr/local
CC ?= cc
O ?= build

WARN := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -DPP_VERSION='"$(VERSION)"'
CFLAGS += $(WARN) $(OPT) $(SAN)
LDFLAGS += $(SAN)
LDLIBS += -lsundials_cvode -lconfig -ljansson -lopenblas -lpthread -ldl -lm

# darknet (Debian's package) is optional at build time: without it the
# darknet component is left out and says so when a profile asks for it.
DARKNET_DIR ?= /usr/lib/darknet
HAVE_DARKNET := $(wildcard $(DARKNET_DIR)/include/darknet.h)

LIB_SRC := $(sort $(wildcard src/*.c devices/*.c battery/*.c components/*.c))
ifeq ($(HAVE_DARKNET),)
LIB_SRC := $(filter-out components/darknet.c,$(LIB_SRC))
else
CPPFLAGS += -DPP_HAVE_DARKNET -isystem $(DARKNET_DIR)/include
LDLIBS += -L$(DARKNET_DIR) -Wl,-rpath,$(DARKNET_DIR) -ldarknet
endif
CLI_SRC := src/main.c $(wildcard src/cli*.c)
LIB_SRC := $(filter-out $(CLI_SRC),$(LIB_SRC))
TEST_SRC := $(sort $(wildcard tests/test_*.c)) tests/main.c tests/harness.c
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))

# CUDA is optional: the GPU components are built when nvcc is found.
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
ifeq ($(NVCC),)
LIB_SRC := $(filter-out components/gpu_components.c,$(LIB_SRC))
GPU_OBJ :=
else
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CPPFLAGS += -DPP_HAVE_CUDA
GPU_OBJ := $(O)/components/gpu.o
LDLIBS += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lcudart -lstdc++
endif

LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o) $(GPU_OBJ)
CLI_OBJ := $(CLI_SRC:%.c=$(O)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(O)/%.o)
LIB := $(O)/libpowprof.a
TEST_BIN := $(O)/tests/powprof-tests
FAKE_NVML := $(O)/tests/libfake-nvml.so
BENCH_BIN := $(BENCH_SRC:%.c=$(O)/%)

.PHONY: all check asan bench run deps install clean
all: powprof libpowprof.a

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(O)/components/gpu.o: components/gpu.cu components/gpu.h
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -std=c++17 -Xcompiler -Wall,-Wextra,-Werror -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(O)/powprof: $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The top-level copies always mirror the build they were asked from.
.PHONY: powprof libpowprof.a
powprof: $(O)/powprof
	@cmp -s $< $@ || cp $< $@
libpowprof.a: $(LIB)
	@cmp -s $< $@ || cp $< $@

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# A stand-in for libnvidia-ml.so.1, to test the dlopen back-end without a GPU.
$(FAKE_NVML): tests/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) -O2 -fPIC -shared -o $@ $<

check: $(TEST_BIN) $(O)/powprof $(FAKE_NVML)
	POWPROF_BIN=$(O)/powprof POWPROF_FAKE_NVML=$(FAKE_NVML) POWPROF_FIXTURES=tests/fixtures \
		$(TEST_BIN)

asan:
	$(MAKE) check O=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"

$(O)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

bench: $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; POWPROF_FIXTURES=tests/fixtures $$b || exit 1; done

run: all
	./scripts/run-main-job

deps:
	@./scripts/install-deps debian-packages.txt

PUBLIC_SRC_H := $(filter-out src/cli.h src/powprof.h,$(wildcard src/*.h))
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/powprof/src \
		$(DESTDIR)$(PREFIX)/include/powprof/devices $(DESTDIR)$(PREFIX)/include/powprof/battery \
		$(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 powprof $(DESTDIR)$(PREFIX)/bin/powprof
	install -m 644 libpowprof.a $(DESTDIR)$(PREFIX)/lib/libpowprof.a
	install -m 644 src/powprof.h $(DESTDIR)$(PREFIX)/include/powprof/powprof.h
	install -m 644 $(PUBLIC_SRC_H) $(DESTDIR)$(PREFIX)/include/powprof/src/
	install -m 644 devices/device.h $(DESTDIR)$(PREFIX)/include/powprof/devices/
	install -m 644 battery/battery.h $(DESTDIR)$(PREFIX)/include/powprof/battery/
	install -m 644 man/powprof.1 $(DESTDIR)$(PREFIX)/share/man/man1/powprof.1

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
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_NAMES ?= profile battery trace powprofiler tegrastats csv summary
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

$(FUZZ_O)/fuzz-%: fuzz/fuzz_main.c fuzz/targets.c fuzz/targets.h fuzz-lib
	$(FUZZ_CC) $(CPPFLAGS) $(WARN) -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer \
		-DPP_FUZZ_TARGET=$* -o $@ fuzz/fuzz_main.c fuzz/targets.c $(FUZZ_O)/libpowprof.a $(LDLIBS)

clean: fuzz-clean
fuzz-clean:
	rm -rf $(FUZZ_O)
