# gpuquota - Run:ai-style GPU quotas, fair share and reclaim for Slurm 22.05.
#
#   make            build the plugins (prepares Slurm's internal headers first)
#   make install    install the plugins into PLUGINDIR
#   make test       install dependencies, build, run unit + integration tests
#   make demo       install dependencies, build, run the quick start on a
#                   local cluster
#   make unit       unit tests only (Check, with ASan/UBSan)
#   make bench      benchmarks of the hot path
#   make bench-cluster  stock Slurm vs gpuquota on a local cluster of 64 nodes x
#                   8 GPUs, same seeded workload (docs/PERFORMANCE.md; long)

CC       ?= gcc
BUILD    := build
SLURM    := $(BUILD)/slurm
PLUGINDIR ?= /usr/lib/$(shell $(CC) -print-multiarch)/slurm-wlm
PREFIX   ?= /usr/local
MANDIR   ?= $(PREFIX)/share/man

WARN     := -Wall -Wextra -Werror
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARN) -Isrc -fPIC
JSONC    := $(shell pkg-config --cflags json-c 2>/dev/null)
JSONL    := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

CORE_SRC := $(wildcard src/core/*.c) $(wildcard src/config/*.c)
CORE_HDR := $(wildcard src/core/*.h) $(wildcard src/config/*.h)
CORE_OBJ := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(CORE_SRC))
GLUE_HDR := $(wildcard src/plugins/*.h) $(wildcard src/shared/*.h)

# Slurm's internal headers for the plugins (scripts/prepare-slurm.sh).
# Plugin entry points have fixed signatures: unused parameters are expected.
SLURM_CFLAGS := -DHAVE_CONFIG_H -I$(SLURM)/build -I$(SLURM)/src \
	-I$(SLURM)/src/src/common -Wno-unused-parameter

PLUGINS  := $(BUILD)/priority_gpuquota.so $(BUILD)/preempt_gpuquota.so
LIB      := $(BUILD)/libgpuquota.so

.PHONY: all deps prepare install unit integration test demo bench bench-cluster clean

all: $(PLUGINS) $(BUILD)/gpuquota

deps:
	scripts/install-deps.sh

$(SLURM)/VERSION: scripts/prepare-slurm.sh
	scripts/prepare-slurm.sh

prepare: $(SLURM)/VERSION

$(BUILD)/obj/%.o: src/%.c $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(JSONC) -c $< -o $@

# The core, config and the state both plugins share live in one library,
# loaded once into slurmctld (each plugin is dlopen'ed RTLD_LOCAL).
$(LIB): $(CORE_OBJ)
	$(CC) -shared -o $@ $^ $(JSONL) -lm -Wl,-soname,libgpuquota.so

$(BUILD)/obj/plugins/%.o: src/plugins/%.c $(CORE_HDR) $(GLUE_HDR) $(SLURM)/VERSION
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SLURM_CFLAGS) -c $< -o $@

# The one reading of Slurm's jobs (public slurm.h only): plugins and command.
SHARED_SRC := $(wildcard src/shared/*.c)
$(BUILD)/obj/shared/%.o: src/shared/%.c $(CORE_HDR) $(GLUE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

PRIO_OBJ := $(addprefix $(BUILD)/obj/plugins/,priority_gpuquota.o read_slurm.o write_slurm.o) \
	$(BUILD)/obj/shared/job_facts.o
$(BUILD)/priority_gpuquota.so: $(PRIO_OBJ) $(LIB)
	$(CC) -shared -o $@ $(filter %.o,$^) -L$(BUILD) -lgpuquota -lm -Wl,-rpath,'$$ORIGIN'

$(BUILD)/preempt_gpuquota.so: $(BUILD)/obj/plugins/preempt_gpuquota.o $(LIB)
	$(CC) -shared -o $@ $(filter %.o,$^) -L$(BUILD) -lgpuquota -lm -Wl,-rpath,'$$ORIGIN'

install: $(PLUGINS)
	install -d $(DESTDIR)$(PLUGINDIR)
	install -m 755 $(LIB) $(PLUGINS) $(DESTDIR)$(PLUGINDIR)/
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 755 $(BUILD)/gpuquota $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/gpuquota.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/gpuquota.json.5 $(DESTDIR)$(MANDIR)/man5/

# ---- tests -------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/*.c)
# test_sync.c runs sacctmgr.c against a fake sacctmgr (-lslurm: its sync command)
$(BUILD)/unit_tests: $(UNIT_SRC) $(CORE_SRC) $(SHARED_SRC) $(CORE_HDR) $(GLUE_HDR) src/cli/sync.c src/cli/sync.h src/cli/sacctmgr.c src/cli/sacctmgr.h
	@mkdir -p $(BUILD)
	$(CC) -std=gnu11 $(WARN) -O1 -g $(SAN) -Isrc $(JSONC) $(shell pkg-config --cflags check) \
		-o $@ $(UNIT_SRC) $(CORE_SRC) $(SHARED_SRC) src/cli/sync.c src/cli/sacctmgr.c -lslurm $(JSONL) $(shell pkg-config --libs check) -lm

unit: $(BUILD)/unit_tests
	cd tests/unit && CK_FORK=yes ../../$(BUILD)/unit_tests

integration: all
	tests/integration/run.sh

test: deps
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) integration

demo: deps
	$(MAKE) all
	scripts/demo.sh

$(BUILD)/bench: tests/bench/bench.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=gnu11 $(WARN) -O2 -Isrc $(JSONC) -o $@ tests/bench/bench.c $(CORE_SRC) $(JSONL) -lm

bench: $(BUILD)/bench
	$(BUILD)/bench

# Not part of `make test`: about 20 minutes a round (tests/bench/cluster/run.sh
# says which GQ_BENCH_* variables size it; GQ_BENCH_QUICK=1 is small).
bench-cluster:
	scripts/install-deps.sh --bench
	$(MAKE) all
	/usr/bin/python3 tests/bench/cluster/test_analyze.py
	tests/bench/cluster/run.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/*.so $(BUILD)/unit_tests $(BUILD)/bench

# ---- the gpuquota command -------------------------------------------------
CLI_SRC := $(wildcard src/cli/*.c)
CLI_HDR := $(wildcard src/cli/*.h)
$(BUILD)/gpuquota: $(CLI_SRC) $(CLI_HDR) $(CORE_OBJ) $(BUILD)/obj/shared/job_facts.o $(GLUE_HDR)
	$(CC) $(CFLAGS) $(JSONC) -o $@ $(CLI_SRC) $(CORE_OBJ) $(BUILD)/obj/shared/job_facts.o -lslurm $(JSONL) -lm -lpthread
