# npusim — one Makefile for the library, the CLI, the tests and the benchmarks.
#
# Layout: every library folder (base, traces, chipsim, opsgen, power, study's rooms,
# calib, api) is compiled into build/libnpusim.a; cli/ links it into build/npusim. Unit tests are cmocka
# programs tests/unit/test_*.c, each linked against the library.

CC      ?= gcc
PREFIX  ?= /usr/local
BUILD   ?= build
# A BUILD inside the tree given as an absolute path (python/setup.py's make
# does) names the same objects as the relative one: one spelling, so the
# header dependencies the compiler writes (-MMD) match the targets.
override BUILD := $(patsubst $(CURDIR)/%,%,$(BUILD))
PKGS    := libcjson zlib gsl libmicrohttpd cmocka
# libmicrohttpd: the HTTP server of `npusim serve` (cli/cmd_serve.c).
PKG_CFLAGS := $(shell pkg-config --cflags libcjson zlib gsl libmicrohttpd 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs libcjson zlib gsl libmicrohttpd 2>/dev/null)
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)
# libcsv ships no pkg-config file on Debian; link it by name.
CSV_LIBS := -lcsv

# make MPI=1: build with Open MPI (mpirun -n R build/npusim sweep ... splits the
# configurations across ranks); found with pkg-config as ompi-c.
ifeq ($(MPI),1)
PKG_CFLAGS += $(shell pkg-config --cflags ompi-c) -DNPUSIM_MPI
PKG_LIBS   += $(shell pkg-config --libs ompi-c)
endif

# make runs one job per core unless told otherwise (make -j N).
ifeq ($(filter -j%,$(MAKEFLAGS))$(filter j%,$(firstword $(MAKEFLAGS))),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

OPT     ?= -O2
# gcc warns of snprintf truncation we check by hand; clang has no such option.
NO_TRUNC_WARN := $(if $(findstring clang,$(CC)),,-Wno-format-truncation)
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror $(NO_TRUNC_WARN) -pthread -I. $(PKG_CFLAGS)
LDLIBS  += $(PKG_LIBS) $(CSV_LIBS) -lm -pthread

LIB_SRC := $(wildcard base/*.c traces/*.c chipsim/*.c opsgen/*.c power/*.c study/*/*.c serving/*.c calib/*.c api/*.c)
CLI_SRC := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/unit/test_*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: python python-install layering validate-public validate-inference all test unit-test cli-test run check bench parity install clean fuzz fuzz-replay fuzz-bins diff-numbers
all: $(BUILD)/npusim

# Objects depend on a stamp named after the compile flags, so switching flags
# (MPI=1, sanitizers, OPT) rebuilds instead of mixing objects.
FLAGS_ID := $(shell echo '$(CC) $(CFLAGS) $(LDFLAGS) $(LDLIBS)' | cksum | cut -d' ' -f1)
FLAGS_STAMP := $(BUILD)/.flags-$(FLAGS_ID)
$(FLAGS_STAMP):
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/.flags-*
	@touch $@

# Each object depends on the headers it includes, as the compiler lists them
# (-MMD: x.d beside x.o; -MP: a header removed or moved does not stop the build).
DEPFLAGS := -MMD -MP
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# The installed configs folder is compiled into study/run/config.c alone, so
# `make install PREFIX=...` recompiles that one file, not every object.
PREFIX_STAMP := $(BUILD)/.prefix-$(shell echo '$(PREFIX)' | cksum | cut -d' ' -f1)
$(PREFIX_STAMP):
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/.prefix-*
	@touch $@
$(BUILD)/study/run/config.o $(BUILD)/pic/study/run/config.o: $(PREFIX_STAMP)
$(BUILD)/study/run/config.o $(BUILD)/pic/study/run/config.o: CFLAGS += -DNPUSIM_SHARE_DIR=\"$(PREFIX)/share/npusim\"

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# The power-of-ten tables of base/shortest.c and base/fastfloat.c, generated exactly at build time
# by a host program (base/gen/pow10_gen.c).
$(BUILD)/gen/pow10_table.h: base/gen/pow10_gen.c
	@mkdir -p $(dir $@)
	@echo "GEN $@"
	@$(CC) -O2 -std=c11 -Wall -Wextra -Werror -o $(BUILD)/gen/pow10_gen $<
	@$(BUILD)/gen/pow10_gen > $@.tmp && mv $@.tmp $@
$(BUILD)/base/shortest.o $(BUILD)/base/fastfloat.o: $(BUILD)/gen/pow10_table.h
$(BUILD)/base/shortest.o $(BUILD)/base/fastfloat.o: CFLAGS += -I$(BUILD)/gen
$(BUILD)/tests/test_decimal: $(BUILD)/gen/pow10_table.h
$(BUILD)/tests/test_decimal: CFLAGS += -I$(BUILD)/gen

# The web page of npusim serve (web/index.html) as a C string literal for
# api/page.c: each line quoted, with \, " and ? escaped (no trigraphs).
$(BUILD)/gen/serve_page.inc: web/index.html
	@mkdir -p $(dir $@)
	@echo "GEN $@"
	@sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@.tmp && mv $@.tmp $@
$(BUILD)/api/page.o: $(BUILD)/gen/serve_page.inc
$(BUILD)/api/page.o: CFLAGS += -I$(BUILD)/gen

# npusim measure's kernels are timed as real ML kernels run: vectorised. -O2's
# cost model leaves their loops scalar (calib/measure_kernels.c says what it cost).
$(BUILD)/calib/measure_kernels.o: CFLAGS += -O3 -fno-trapping-math

# libnpusim.so: the library folders (the HTTP API's handler and the C API in
# api/ among them) as a shared object for other languages (api/capi.h; the
# Python package in python/), built from position-independent copies of the
# objects under $(BUILD)/pic.
SO_SRC := $(LIB_SRC)
SO_OBJ := $(SO_SRC:%.c=$(BUILD)/pic/%.o)
$(BUILD)/pic/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "CC -fPIC $<"
	@$(CC) $(CFLAGS) $(DEPFLAGS) -fPIC -c $< -o $@
$(BUILD)/pic/api/page.o: $(BUILD)/gen/serve_page.inc
$(BUILD)/pic/api/page.o: CFLAGS += -I$(BUILD)/gen
$(BUILD)/pic/base/shortest.o $(BUILD)/pic/base/fastfloat.o: $(BUILD)/gen/pow10_table.h
$(BUILD)/pic/base/shortest.o $(BUILD)/pic/base/fastfloat.o: CFLAGS += -I$(BUILD)/gen
$(BUILD)/pic/calib/measure_kernels.o: CFLAGS += -O3 -fno-trapping-math
$(BUILD)/libnpusim.so: $(SO_OBJ)
	$(CC) $(CFLAGS) -shared -Wl,--no-undefined -o $@ $(SO_OBJ) $(LDFLAGS) $(LDLIBS)

# The Python package (python/npusim over libnpusim.so): `make python` builds the
# library in place (import with PYTHONPATH=python), `make python-install` pip-installs
# the package with Debian's setuptools (PIP_FLAGS, e.g. --user or --target DIR).
python: $(BUILD)/libnpusim.so
python-install: $(BUILD)/libnpusim.so
	python3 -m pip install --no-build-isolation --no-deps $(PIP_FLAGS) ./python

$(BUILD)/libnpusim.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/npusim: $(CLI_OBJ) $(BUILD)/libnpusim.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libnpusim.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h tests/unit/testutil_model.h $(BUILD)/libnpusim.a
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(CFLAGS) $(DEPFLAGS) $(CMOCKA_CFLAGS) -o $@ $< $(BUILD)/libnpusim.a $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS)

# make test: every cmocka program, the CLI tests, then (FUZZ_SMOKE=1, the default) every
# fuzz harness replays its seeds and regression inputs under the sanitizers and fuzzes for
# FUZZ_SMOKE_SECONDS (2 s each: make test took 700 s on 2 cores with 5; long fuzzing is make fuzz's);
# one closing summary line. make check runs the same without the fuzzers.
FUZZ_SMOKE ?= 1
FUZZ_SMOKE_SECONDS ?= 2
# The Python package's library (not in sanitizer builds: python cannot load one).
PY_SO := $(if $(findstring sanitize,$(OPT) $(CFLAGS)),,$(BUILD)/libnpusim.so)
test: $(BUILD)/npusim $(TEST_BIN) $(PY_SO)
	@if [ "$(FUZZ_SMOKE)" = 1 ]; then $(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) \
	  OPT="$(FUZZ_OPT)" LDFLAGS="-fsanitize=address,undefined" fuzz-bins >build-fuzz.log 2>&1 || \
	  { echo "fuzz harnesses did not build (clang installed? see build-fuzz.log)"; tail -n 5 build-fuzz.log; \
	    rm -rf build-fuzz/fuzz; }; fi
	@sh tests/layering.sh
	@BUILD=$(BUILD) FUZZ_SMOKE=$(FUZZ_SMOKE) FUZZ_SMOKE_SECONDS=$(FUZZ_SMOKE_SECONDS) sh tests/run-tests.sh $(TEST_BIN)

# The dependency rule of docs/architecture.md (an include scan; also run by make test).
layering:
	@sh tests/layering.sh

# The main job: llama3-8b on TPUv5p, outputs in ./out.
run: $(BUILD)/npusim
	$(BUILD)/npusim run --configs configs --out out

# Address and undefined-behaviour sanitizers over the whole test suite.
check:
	$(MAKE) BUILD=build-check OPT="-O1 -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" FUZZ_SMOKE=0 test

# Fuzzing (tests/fuzz/README.md): one libFuzzer harness per reader, built with clang, ASan and
# UBSan (float-cast-overflow included) into build-fuzz/. `make fuzz` replays the seeds and
# regression inputs, then fuzzes each harness FUZZ_SECONDS; `make fuzz-replay` only replays.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow -fno-sanitize-recover=all
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
CLI_LIB_OBJ := $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))
$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_common.h $(CLI_LIB_OBJ) $(BUILD)/libnpusim.a
	@mkdir -p $(dir $@)
	@echo "FUZZ $<"
	@$(CC) $(CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer -o $@ $< $(CLI_LIB_OBJ) $(BUILD)/libnpusim.a $(LDFLAGS) $(LDLIBS)
fuzz-bins: $(FUZZ_BIN)
fuzz fuzz-replay:
	$(MAKE) BUILD=build-fuzz CC=$(FUZZ_CC) OPT="$(FUZZ_OPT)" LDFLAGS="-fsanitize=address,undefined" fuzz-bins
	sh tests/fuzz/run-fuzz.sh build-fuzz/fuzz $(if $(filter fuzz,$@),fuzz $(FUZZ_SECONDS),replay)

# The float parser and shortest printer against libc over 10 million inputs each (make test: 200,000).
diff-numbers: $(BUILD)/tests/test_numbers_diff
	NPUSIM_DIFF_COUNT=$(or $(DIFF_COUNT),10000000) $(BUILD)/tests/test_numbers_diff

bench: $(BUILD)/npusim
	@sh bench/run-bench.sh $(BUILD)/npusim

# Cell-by-cell parity against the reference results (needs ../shared).
parity: $(BUILD)/npusim
	@sh tests/parity.sh $(BUILD)/npusim

# Published measurements reproduced under both profiles (docs/validation.md; bench/public/).
validate-public: $(BUILD)/npusim
	@sh bench/validate-public.sh $(BUILD)/npusim $(if $(WRITE),--write)

# Measured end-to-end inference runs: calibrate --runs with leave-one-source-out (docs/validation.md, "Inference").
validate-inference: $(BUILD)/npusim
	@sh bench/validate-inference.sh $(BUILD)/npusim

# The binary, its configs, the manual page and bash/zsh completion (which ask
# the binary for commands, options and config names). Never a measured host
# chip: npusim measure writes it to the user's folder (~/.local/share/npusim),
# and a copy here (an old measure wrote configs/chips/host.json) is removed.
install: $(BUILD)/npusim
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/npusim/configs $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 755 $(BUILD)/npusim $(DESTDIR)$(PREFIX)/bin/npusim
	cp -R configs/. $(DESTDIR)$(PREFIX)/share/npusim/configs/
	rm -f $(DESTDIR)$(PREFIX)/share/npusim/configs/chips/host.json
	install -m 644 docs/npusim.1 $(DESTDIR)$(PREFIX)/share/man/man1/npusim.1
	install -m 644 cli/completion/npusim.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/npusim
	install -m 644 cli/completion/_npusim $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_npusim

clean:
	rm -rf build build-check build-mpi build-check-mpi build-fuzz build-fuzz.log out
