# vnuma front door.  Everything else is meson; see README.md.
BUILD      ?= build
ASAN_BUILD ?= build-asan
MESON      ?= meson
TESTS      ?=
# CI builds keep -Werror (the default in meson.build); MESON_OPTS adds more.
MESON_OPTS ?=

.PHONY: all deps setup build demo check check-unit check-asan check-valgrind \
        check-numahost check-numahost-nested check-numahost-extra bench install deb clean format

all: build

deps:
	@tools/install-deps.sh

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) $(MESON_OPTS)

setup: deps $(BUILD)/build.ninja

build: setup
	$(MESON) compile -C $(BUILD)

demo: build
	@tools/demo.sh $(BUILD)

# Every suite.  Under CI=true the sanitizer and valgrind runs of the unit
# suite and the fuzz smoke come along, and the emulated NUMA host suite runs.
# Each of those runs even when an earlier one failed, so one run reports
# every failure; the exit status is the worst of them.  The nested-guest
# layout (suite numahost-nested) is left to `make check-numahost-nested`.
CI_CHECKS = check-asan check-valgrind check-fuzz
check: build
	@rc=0; \
	$(MESON) test -C $(BUILD) --print-errorlogs --no-suite numahost-nested --no-suite numahost-extra $(TESTS) || rc=1; \
	if [ "$(CI)" = true ]; then \
	  for t in $(CI_CHECKS); do $(MAKE) $$t || rc=1; done; \
	fi; \
	exit $$rc

# Reformat every C file as .clang-format says (the doc suite's
# source-habits test refuses an unformatted one).
format:
	git ls-files '*.c' '*.h' | xargs clang-format -i

check-unit: build
	$(MESON) test -C $(BUILD) --print-errorlogs --suite unit

$(ASAN_BUILD)/build.ninja:
	$(MESON) setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false $(MESON_OPTS)

check-asan: setup $(ASAN_BUILD)/build.ninja
	$(MESON) compile -C $(ASAN_BUILD)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(MESON) test -C $(ASAN_BUILD) --print-errorlogs --suite unit --suite golden

check-valgrind: build
	$(MESON) test -C $(BUILD) --print-errorlogs --setup valgrind --suite unit --no-suite valgrind-repeat

# libFuzzer targets (tests/fuzz/README.md) in their own clang build with
# ASan/UBSan: each fuzzed for FUZZ_SECONDS; any finding fails.  check-fuzz
# is the CI smoke: a fixed seed and at most FUZZ_SMOKE_RUNS inputs or
# FUZZ_SMOKE_SECONDS each, so every CI run walks the same inputs.  Both
# compile the whole tree there, not only the targets: a second compiler's
# warnings (clang's -Wunused-variable sees a variable kept only for its
# cleanup, GCC does not); 30 s more on 2 cores.
FUZZ_BUILD ?= build-fuzz
FUZZ_SMOKE_RUNS ?= 20000
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 15
.PHONY: fuzz check-fuzz clean-fuzz

$(FUZZ_BUILD)/build.ninja:
	CC=clang $(MESON) setup $(FUZZ_BUILD) -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false $(MESON_OPTS)

fuzz: export VN_FUZZ_SECONDS = $(FUZZ_SECONDS)
check-fuzz: export VN_FUZZ_SECONDS = $(FUZZ_SMOKE_SECONDS)
check-fuzz: export VN_FUZZ_SEED = 1
check-fuzz: export VN_FUZZ_RUNS = $(FUZZ_SMOKE_RUNS)
fuzz check-fuzz:
	@tools/install-deps.sh fuzz
	$(MAKE) $(FUZZ_BUILD)/build.ninja
	$(MESON) compile -C $(FUZZ_BUILD)
	$(MESON) test -C $(FUZZ_BUILD) --no-rebuild --print-errorlogs --suite fuzz

clean: clean-fuzz
clean-fuzz:
	rm -rf $(FUZZ_BUILD)

check-numahost: build
	VN_NUMAHOST=1 $(MESON) test -C $(BUILD) --print-errorlogs --suite numahost

# The guest kernel's own NUMA view: a Linux boot under TCG inside TCG
# (minutes), outside `make check`; its last result is in README.md.
check-numahost-nested: build
	VN_NUMAHOST_NESTED=1 $(MESON) test -C $(BUILD) --print-errorlogs --suite numahost-nested

# Layouts not yet reliable enough for CI (tests/numahost/README.md says why).
check-numahost-extra: build
	VN_NUMAHOST_NESTED=1 $(MESON) test -C $(BUILD) --print-errorlogs --suite numahost-extra

bench: build
	@tools/install-deps.sh bench
	@tools/bench.sh $(BUILD)

install: build
	$(MESON) install -C $(BUILD)

# The Debian packages, built by dpkg-buildpackage -us -uc -b in a clean
# copy of the tree (the checkout is not written to) and checked by lintian
# (tools/build-deb.sh); the .deb files land in DEB_OUT.
DEB_OUT ?= build-deb
deb: deps
	tools/build-deb.sh $(DEB_OUT)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(DEB_OUT)
