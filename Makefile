# gpuquota - Run:ai-style GPU quotas, fair share and reclaim for Slurm
# (22.05 to 26.05; src/shared/slurm_compat.h).
#
#   make            build the plugins (prepares Slurm's internal headers first)
#   make install    install the plugins into PLUGINDIR
#   make deb        build/gpuquota_<version>_<arch>.deb for the installed Slurm
#                   (SLURM_VERSION=V: for SchedMD's release V, below)
#   make rpm        the RPM of gpuquota.spec, against the host's Slurm source
#                   (SLURM_VERSION=V: against release V)
#   make matrix     build and test against every supported Slurm: Debian's in
#                   cached Debian roots (build/roots), SchedMD's built from
#                   source on the host (build/slurm-V/install)
#   make releases-check  the plugins and the command compiled against each
#                   SchedMD release's configured headers (no Slurm make)
#   make test       install dependencies, build, run unit + integration tests
#                   on the host's Slurm, releases-check, build the RPM (the
#                   other versions' daemons: make matrix, its own target)
#   make demo       install dependencies, build, run the quick start on a
#                   local cluster
#   make unit       unit tests only (Check, with ASan/UBSan), the glue's too,
#                   and the command without Slurm (tests/cli/run.sh)
#   make glue       the plugins' glue tests alone (tests/glue)
#   make check-rules  the Prometheus alerts of examples/gpuquota-rules.yml
#                   against their promtool test (under a second)
#   make soak       the soak on random seeds for an hour (GQ_SOAK_MINUTES)
#   make soak-busy  the soak's fixed seeds 3 times in a row, every core kept
#                   busy by stress-ng (a busy controller's timing)
#   make bench      benchmarks of the hot path
#   make bench-cluster  stock Slurm vs gpuquota on a local cluster of 64 nodes x
#                   8 GPUs, same seeded workload (docs/PERFORMANCE.md; long)
#   make bench-validate BENCH_DIR=DIR  a finished bench-cluster work dir
#                   against `gpuquota simulate` on its workload (no daemon)

CC       ?= gcc
# SLURM_VERSION=V: build for SchedMD's release V from its source tarball in
# SLURM_SRC_DIR (headers in build/slurm-V, gpuquota in build/v-V); default:
# the host's slurm-wlm (build/slurm, build/).  SLURM_SRC_DIR: the
# releases' tarballs (slurm-V.tar.xz, checked against
# scripts/slurm-releases.sha256), by default the cache build/slurm-src.
SLURM_SRC_DIR ?= $(abspath $(CURDIR)/build/slurm-src)
SLURM_VERSION ?=
ifneq ($(SLURM_VERSION),)
BUILD    := build/v-$(SLURM_VERSION)
SLURM    := build/slurm-$(SLURM_VERSION)
SLURM_SRC ?= $(SLURM_SRC_DIR)/slurm-$(SLURM_VERSION).tar.xz
# the command links that release's libslurm (scripts/slurm-build.sh V)
SLURM_PREFIX ?= $(SLURM)/install
else
BUILD    := build
SLURM    := $(BUILD)/slurm
endif
PLUGINDIR ?= /usr/lib/$(shell $(CC) -print-multiarch)/slurm-wlm
PREFIX   ?= /usr/local
MANDIR   ?= $(PREFIX)/share/man

WARN     := -Wall -Wextra -Werror
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARN) -Isrc -fPIC $(EXTRA_CFLAGS)
JSONC    := $(shell pkg-config --cflags json-c 2>/dev/null)
JSONL    := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# the library's layers: generic tools, then the configuration and the
# model, then the process state and its files
CORE_SRC := $(wildcard src/tools/*.c src/config/*.c src/core/*.c src/state/*.c)
CORE_HDR := $(wildcard src/tools/*.h src/config/*.h src/core/*.h src/state/*.h)
CORE_OBJ := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(CORE_SRC))
GLUE_HDR := $(wildcard src/plugins/*.h) $(wildcard src/shared/*.h)

# Slurm's internal headers for the plugins (scripts/prepare-slurm.sh).
# Plugin entry points have fixed signatures: unused parameters are expected.
SLURM_CFLAGS := -DHAVE_CONFIG_H -I$(SLURM)/build -I$(SLURM)/src \
	-I$(SLURM)/src/src/common -Wno-unused-parameter

PLUGINS  := $(BUILD)/priority_gpuquota.so $(BUILD)/preempt_gpuquota.so \
	$(BUILD)/job_submit_gpuquota.so
LIB      := $(BUILD)/libgpuquota.so

.PHONY: cli-test cli-objs releases-check all deps prepare install deb rpm matrix matrix-others matrix-quick unit glue check-rules integration test demo bench bench-cluster bench-validate clean asan-plugins fuzz soak soak-busy

all: $(PLUGINS) $(BUILD)/gpuquota

deps:
	scripts/install-deps.sh

# SLURM_SRC=PATH: build for the Slurm whose source (tree or tarball, the
# exact version the plugins are loaded into) is at PATH; default: the
# installed slurm-wlm's Debian source.
SLURM_SRC ?=
$(SLURM)/VERSION: scripts/prepare-slurm.sh
	SLURM_PREP_DIR=$(abspath $(SLURM)) scripts/prepare-slurm.sh $(if $(SLURM_SRC),--source $(SLURM_SRC))

prepare:
	SLURM_PREP_DIR=$(abspath $(SLURM)) scripts/prepare-slurm.sh $(if $(SLURM_SRC),--source $(SLURM_SRC))

$(BUILD)/obj/%.o: src/%.c $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(JSONC) -c $< -o $@

# The core, config and the state both plugins share live in one library,
# loaded once into slurmctld (each plugin is dlopen'ed RTLD_LOCAL).
$(LIB): $(CORE_OBJ)
	$(CC) $(EXTRA_CFLAGS) -shared -o $@ $^ $(JSONL) -lm -Wl,-soname,libgpuquota.so

$(BUILD)/obj/plugins/%.o: src/plugins/%.c $(CORE_HDR) $(GLUE_HDR) $(SLURM)/VERSION
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SLURM_CFLAGS) -c $< -o $@

# The one reading of Slurm's jobs (public slurm.h only): plugins and command.
# Its slurm.h is the one of the Slurm in $(SLURM) (the host's own for
# build/slurm, the same file as /usr/include's): job states and reasons are
# enum values that differ between releases.
SHARED_SRC := $(wildcard src/shared/*.c)
PUBLIC_CFLAGS := -I$(SLURM)/build -I$(SLURM)/src
$(BUILD)/obj/shared/%.o: src/shared/%.c $(CORE_HDR) $(GLUE_HDR) $(SLURM)/VERSION
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PUBLIC_CFLAGS) -c $< -o $@

PRIO_OBJ := $(addprefix $(BUILD)/obj/plugins/,priority_gpuquota.o pass_thread.o state_files.o config_load.o read_slurm.o write_slurm.o array_throttle.o hold.o room_wait_text.o grace.o reclaim_note.o run_secs.o multifactor.o topology.o xalloc.o) \
	$(BUILD)/obj/shared/job_facts.o $(BUILD)/obj/shared/pass_input.o $(BUILD)/obj/shared/wiring.o
$(BUILD)/priority_gpuquota.so: $(PRIO_OBJ) $(LIB)
	$(CC) $(EXTRA_CFLAGS) -shared -o $@ $(filter %.o,$^) -L$(BUILD) -lgpuquota -lm -Wl,-rpath,'$$ORIGIN'

$(BUILD)/preempt_gpuquota.so: $(BUILD)/obj/plugins/preempt_gpuquota.o $(BUILD)/obj/plugins/hold.o $(BUILD)/obj/plugins/room_wait_text.o $(BUILD)/obj/plugins/reclaim_note.o $(BUILD)/obj/plugins/xalloc.o $(BUILD)/obj/shared/job_facts.o $(LIB)
	$(CC) $(EXTRA_CFLAGS) -shared -o $@ $(filter %.o,$^) -L$(BUILD) -lgpuquota -lm -Wl,-rpath,'$$ORIGIN'

$(BUILD)/job_submit_gpuquota.so: $(BUILD)/obj/plugins/job_submit_gpuquota.o $(BUILD)/obj/shared/job_facts.o $(LIB)
	$(CC) $(EXTRA_CFLAGS) -shared -o $@ $(filter %.o,$^) -L$(BUILD) -lgpuquota -lm -Wl,-rpath,'$$ORIGIN'

install: $(PLUGINS)
	install -d $(DESTDIR)$(PLUGINDIR)
	install -m 755 $(LIB) $(PLUGINS) $(DESTDIR)$(PLUGINDIR)/
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 755 $(BUILD)/gpuquota $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/gpuquota.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/gpuquota.json.5 $(DESTDIR)$(MANDIR)/man5/

# SLURM_VERSION=V (or SLURM_SRC=PATH with SLURM_PREFIX=that Slurm installed):
# the package for that release (scripts/make-deb.sh; V is built first with
# scripts/slurm-build.sh, cached, for the command's libslurm).
deb:
	$(if $(SLURM_VERSION),scripts/slurm-build.sh $(SLURM_VERSION))
	$(MAKE) all $(if $(SLURM_SRC),$(BUILD)/pkg/gpuquota)
	BUILD=$(BUILD) SLURM=$(SLURM) SLURM_PREFIX=$(SLURM_PREFIX) scripts/make-deb.sh

# The RPM (gpuquota.spec) built here against the host's Slurm source, as a
# RHEL-family site would against theirs (--nodeps: this host's rpm database
# has no slurm-devel).
RPM_VERSION := $(shell awk '$$1 == "Version:" { print $$2 }' gpuquota.spec)
# SLURM_VERSION=V: against SchedMD's release V (its command against
# build/slurm-V/install's libslurm when scripts/slurm-build.sh built it).
RPM_PREFIX := $(if $(SLURM_PREFIX),$(if $(wildcard $(SLURM_PREFIX)/include/slurm/slurm.h),$(abspath $(SLURM_PREFIX))))
rpm: prepare
	rm -rf $(BUILD)/rpm
	mkdir -p $(BUILD)/rpm/SOURCES
	tar --exclude=./build --exclude=./.git --transform 's,^\.,gpuquota-$(RPM_VERSION),' \
		-czf $(BUILD)/rpm/SOURCES/gpuquota-$(RPM_VERSION).tar.gz .
	env -u MAKEFLAGS -u MAKELEVEL -u SLURM_VERSION -u SLURM_SRC -u SLURM_PREFIX -u SLURM \
		-u BUILD rpmbuild -bb --nodeps --define "_topdir $(CURDIR)/$(BUILD)/rpm" \
		--define "slurm_source $(CURDIR)/$(SLURM)/src" \
		$(if $(RPM_PREFIX),--define "slurm_prefix $(RPM_PREFIX)") gpuquota.spec
	ls $(BUILD)/rpm/RPMS/*/gpuquota-*.rpm

# ---- tests -------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/*.c)
# test_sync.c runs sacctmgr.c against a fake sacctmgr (-lslurm: its sync command),
# test_import.c the draft of `gpuquota import`;
# test_cli_metrics.c the exposition of `gpuquota metrics`, its cache and
# its HTTP server (-lmicrohttpd); test_running_config.c the command's
# choice of the running configuration (cli/running_config.c)
# test_sim.c the simulator (src/sim)
# test_cli_text.c a command line's options (cli_opts.c)
UNIT_CLI := src/cli/sync.c src/cli/sacctmgr.c src/cli/import.c src/cli/metrics.c \
	src/cli/scrape_cache.c src/cli/serve.c src/cli/running_config.c \
	src/cli/cli_opts.c
UNIT_SIM := $(wildcard src/sim/*.c)
$(BUILD)/unit_tests: $(UNIT_SRC) $(CORE_SRC) $(SHARED_SRC) $(CORE_HDR) $(GLUE_HDR) $(UNIT_CLI) $(UNIT_CLI:.c=.h) $(UNIT_SIM) $(wildcard src/sim/*.h)
	@mkdir -p $(BUILD)
	$(CC) -std=gnu11 $(WARN) -O1 -g $(SAN) -Isrc $(JSONC) $(shell pkg-config --cflags check) \
		-o $@ $(UNIT_SRC) $(CORE_SRC) $(SHARED_SRC) $(UNIT_CLI) $(UNIT_SIM) -lslurm $(JSONL) $(shell pkg-config --libs check) -lmicrohttpd -lm -lpthread

unit: $(BUILD)/unit_tests glue cli-test
	cd tests/unit && CK_FORK=yes ../../$(BUILD)/unit_tests
	scripts/check-layers.sh

# The alerts: promtool (Debian's prometheus package, scripts/install-deps.sh)
# checks the rules and runs their test's series.
check-rules:
	cd examples && promtool check rules gpuquota-rules.yml && \
		promtool test rules gpuquota-rules.test.yml

# the command's conventions with no Slurm here (--help, -V, --json errors)
cli-test: $(BUILD)/gpuquota
	tests/cli/run.sh $(BUILD)/gpuquota

# The glue tests (tests/glue): the plugins' code in src/plugins/ against
# Slurm's internal headers, with slurmctld's own symbols stubbed
# (tests/glue/stubs.c) and the rest of Slurm from libslurmfull, with
# ASan/UBSan.  The priority plugin's entry points are called directly
# (its pass thread is not started); preempt_gpuquota.c and
# job_submit_gpuquota.c (the same plugin symbols) are left to the
# integration tests.
SLURMFULL_DIR ?= /usr/lib/$(shell $(CC) -print-multiarch)/slurm-wlm
GLUE_PLUGIN_SRC := $(addprefix src/plugins/,array_throttle.c config_load.c \
	grace.c hold.c multifactor.c pass_thread.c priority_gpuquota.c \
	reclaim_note.c read_slurm.c room_wait_text.c run_secs.c state_files.c \
	topology.c write_slurm.c xalloc.c)
GLUE_TEST_SRC := $(wildcard tests/glue/*.c)
GLUE_OBJ := $(patsubst %.c,$(BUILD)/glue/%.o,$(GLUE_TEST_SRC) $(GLUE_PLUGIN_SRC))
GLUE_FLAGS := -std=gnu11 $(WARN) -O1 -g $(SAN) -Isrc -Itests/unit

$(BUILD)/glue/%.o: %.c $(CORE_HDR) $(GLUE_HDR) tests/glue/glue.h tests/unit/helpers.h $(SLURM)/VERSION
	@mkdir -p $(dir $@)
	$(CC) $(GLUE_FLAGS) $(SLURM_CFLAGS) $(shell pkg-config --cflags check) -c $< -o $@

$(BUILD)/glue_tests: $(GLUE_OBJ) $(CORE_SRC) $(CORE_HDR) $(SHARED_SRC) tests/unit/helpers.c
	$(CC) $(GLUE_FLAGS) $(JSONC) $(shell pkg-config --cflags check) -o $@ \
		$(GLUE_OBJ) $(CORE_SRC) $(SHARED_SRC) tests/unit/helpers.c \
		-L$(SLURMFULL_DIR) -lslurmfull -Wl,-rpath,$(SLURMFULL_DIR) \
		$(JSONL) $(shell pkg-config --libs check) -lm -lpthread

glue: $(BUILD)/glue_tests
	cd tests/glue && CK_FORK=yes ../../$(BUILD)/glue_tests

# The plugins with AddressSanitizer and UBSan, for slurmctld with the
# sanitizer runtime preloaded (tests/integration/run.sh with GQ_ASAN=1).
ASAN_BUILD := $(BUILD)/asan
asan-plugins: $(SLURM)/VERSION
	$(MAKE) BUILD=$(ASAN_BUILD) SLURM=$(SLURM) \
		EXTRA_CFLAGS="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		$(ASAN_BUILD)/priority_gpuquota.so $(ASAN_BUILD)/preempt_gpuquota.so \
		$(ASAN_BUILD)/job_submit_gpuquota.so

# The suite runs once, on plugins built with the sanitizers inside a real
# slurmctld (the command and `make demo` use the plain build).
# Two tests at once, each on its own cluster (tests/integration/run.sh,
# GQ_LANES); GQ_LANES=1 runs them one after another.
integration: all asan-plugins
	GQ_ASAN=1 GQ_LANES=$${GQ_LANES:-2} tests/integration/run.sh

# The soak on random seeds for GQ_SOAK_MINUTES (60) minutes, sanitizer
# plugins; prints every failing seed (`make test` runs the fixed seeds of
# tests/integration/soak-seeds).
soak: deps all asan-plugins
	GQ_ASAN=1 tests/integration/soak-random.sh

# the fixed seeds on a machine kept busy, GQ_BUSY_ROUNDS (3) times in a row
soak-busy: deps all asan-plugins
	GQ_ASAN=1 tests/integration/soak-busy.sh

test: deps
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) check-rules
	$(MAKE) releases-check
	$(MAKE) fuzz
	$(MAKE) integration
	$(MAKE) rpm

# gpuquota's plugins and command compiled against each SchedMD release of
# SLURM_SRC_DIR (configured headers only; scripts/releases-check.sh)
releases-check:
	SLURM_SRC_DIR=$(SLURM_SRC_DIR) scripts/releases-check.sh

matrix: deps
	scripts/matrix.sh

# the matrix without the release the host runs; its quick list
matrix-others: deps
	scripts/matrix.sh --others

matrix-quick: deps
	scripts/matrix.sh --others --quick

demo: deps
	$(MAKE) all
	scripts/demo.sh

# ---- fuzzing (clang's libFuzzer) -------------------------------------------
# The config reader and Slurm's GPU texts, each for FUZZ_SECONDS (make test
# runs 20) from the committed corpora; a crash leaves its input in
# build/fuzz/ and prints how to replay it (tests/fuzz/run.sh).
FUZZ_SECONDS ?= 20
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Isrc
CONFIG_SRC := $(wildcard src/config/config*.c)
$(BUILD)/fuzz_config: tests/fuzz/fuzz_config.c $(CONFIG_SRC) $(wildcard src/config/config*.h)
	@mkdir -p $(BUILD)
	clang $(FUZZ_FLAGS) $(JSONC) -o $@ tests/fuzz/fuzz_config.c $(CONFIG_SRC) $(JSONL) -lm

$(BUILD)/fuzz_gres_text: tests/fuzz/fuzz_gres_text.c src/tools/gres_text.c src/tools/gres_text.h
	@mkdir -p $(BUILD)
	clang $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_gres_text.c src/tools/gres_text.c

fuzz: $(BUILD)/fuzz_config $(BUILD)/fuzz_gres_text
	tests/fuzz/run.sh $(FUZZ_SECONDS)

$(BUILD)/bench: tests/bench/bench.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=gnu11 $(WARN) -O2 -DGQ_PASS_STEPS -Isrc $(JSONC) -o $@ tests/bench/bench.c $(CORE_SRC) $(JSONL) -lm

bench: $(BUILD)/bench
	$(BUILD)/bench

# Not part of `make test`: about 20 minutes a round (tests/bench/cluster/run.sh
# says which GQ_BENCH_* variables size it; GQ_BENCH_QUICK=1 is small).
bench-cluster:
	scripts/install-deps.sh --bench
	$(MAKE) all
	/usr/bin/python3 tests/bench/cluster/test_analyze.py
	/usr/bin/python3 tests/bench/cluster/test_trace.py
	/usr/bin/python3 tests/bench/cluster/test_workload.py
	tests/bench/cluster/run.sh

# A finished bench-cluster work dir (its GQ_BENCH_DIR) against `gpuquota
# simulate` on the same workload; reads files only, starts no daemon.
bench-validate: all
	@test -n "$(BENCH_DIR)" || { echo "usage: make bench-validate BENCH_DIR=DIR" >&2; exit 2; }
	/usr/bin/python3 tests/bench/cluster/test_to_sim.py
	/usr/bin/python3 tests/bench/cluster/test_validate.py
	tests/bench/cluster/validate.sh $(BENCH_DIR)

clean:
	rm -rf $(BUILD)/obj $(BUILD)/*.so $(BUILD)/unit_tests $(BUILD)/bench \
		$(BUILD)/glue $(BUILD)/glue_tests

# ---- the gpuquota command -------------------------------------------------
# Against the system's libslurm, or with SLURM_PREFIX=DIR against the Slurm
# installed in DIR (scripts/slurm-build.sh; its slurm.h and libslurm, an
# rpath to DIR/lib; SLURM_RPATH=0: none).  $(BUILD)/pkg/gpuquota: the same
# without the rpath, for a package (the site's libslurm of that release).
CLI_SRC := $(wildcard src/cli/*.c)
CLI_HDR := $(wildcard src/cli/*.h)
# the simulator (src/sim): the core, config, state and shared's pass on a
# model of the cluster; Slurm's public header through shared's, no libslurm
SIM_SRC := $(wildcard src/sim/*.c)
SIM_HDR := $(wildcard src/sim/*.h)
SIM_OBJ := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SIM_SRC))
$(BUILD)/obj/sim/%.o: src/sim/%.c $(SIM_HDR) $(CORE_HDR) $(GLUE_HDR) $(SLURM)/VERSION
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PUBLIC_CFLAGS) $(JSONC) -c $< -o $@
CLI_OBJ := $(CORE_OBJ) $(BUILD)/obj/shared/job_facts.o $(BUILD)/obj/shared/pass_input.o $(BUILD)/obj/shared/wiring.o $(SIM_OBJ)
SLURM_PREFIX ?=
comma := ,
ifneq ($(SLURM_PREFIX),)
CLI_SLURM_CFLAGS := -I$(SLURM_PREFIX)/include
CLI_SLURM_LIBS := -L$(SLURM_PREFIX)/lib
SLURM_RPATH ?= 1
CLI_RPATH := $(if $(filter 1,$(SLURM_RPATH)),-Wl$(comma)-rpath$(comma)$(abspath $(SLURM_PREFIX))/lib)
CLI_SLURM_DEP := $(SLURM_PREFIX)/include/slurm/slurm.h
$(CLI_SLURM_DEP):
	@echo "no Slurm installed in $(SLURM_PREFIX): scripts/slurm-build.sh VERSION builds one" >&2; exit 1
endif
CLI_LINK = $(CC) $(CFLAGS) $(CLI_SLURM_CFLAGS) $(JSONC) -DGQ_VERSION='"$(RPM_VERSION)"' \
	-o $@ $(CLI_SRC) $(CLI_OBJ) $(CLI_SLURM_LIBS) -lslurm $(JSONL) -lmicrohttpd -lm -lpthread
$(BUILD)/gpuquota: $(CLI_SLURM_DEP) $(CLI_SRC) $(CLI_HDR) $(CLI_OBJ) $(GLUE_HDR) $(SIM_HDR)
	$(CLI_LINK) $(CLI_RPATH)
$(BUILD)/pkg/gpuquota: $(CLI_SLURM_DEP) $(CLI_SRC) $(CLI_HDR) $(CLI_OBJ) $(GLUE_HDR)
	@mkdir -p $(dir $@)
	$(CLI_LINK)

# The command compiled (not linked: no libslurm of that release is built)
# against the public headers of the Slurm in $(SLURM): what CI checks for
# the releases it has only the configured source of (make releases-check).
CLI_CHECK := $(patsubst src/cli/%.c,$(BUILD)/obj/cli/%.o,$(CLI_SRC))
$(BUILD)/obj/cli/%.o: src/cli/%.c $(CLI_HDR) $(CORE_HDR) $(GLUE_HDR) $(SLURM)/VERSION
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PUBLIC_CFLAGS) $(JSONC) -DGQ_VERSION='"$(RPM_VERSION)"' -c $< -o $@
cli-objs: $(CLI_CHECK)
