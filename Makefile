# vnuma front door.  Everything else is meson; see README.md.
BUILD      ?= build
ASAN_BUILD ?= build-asan
MESON      ?= meson
TESTS      ?=
# CI builds keep -Werror (the default in meson.build); MESON_OPTS adds more.
MESON_OPTS ?=

.PHONY: all deps setup build demo check check-unit check-asan check-valgrind \
        check-numahost bench install clean

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
# suite come along (they are cheap), and the emulated NUMA host suite runs.
check: build
	$(MESON) test -C $(BUILD) --print-errorlogs $(TESTS)
ifeq ($(CI),true)
	$(MAKE) check-asan check-valgrind
	$(MAKE) check-fuzz
endif

check-unit: build
	$(MESON) test -C $(BUILD) --print-errorlogs --suite unit

$(ASAN_BUILD)/build.ninja:
	$(MESON) setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false $(MESON_OPTS)

check-asan: setup $(ASAN_BUILD)/build.ninja
	$(MESON) compile -C $(ASAN_BUILD)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(MESON) test -C $(ASAN_BUILD) --print-errorlogs --suite unit --suite golden

check-valgrind: build
	$(MESON) test -C $(BUILD) --print-errorlogs --setup valgrind --suite unit

# libFuzzer targets (tests/fuzz/README.md) in their own clang build with
# ASan/UBSan: each fuzzed for FUZZ_SECONDS; any finding fails.  check-fuzz
# is the CI smoke: the same for FUZZ_SMOKE_SECONDS each.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 15
.PHONY: fuzz check-fuzz clean-fuzz

$(FUZZ_BUILD)/build.ninja:
	CC=clang $(MESON) setup $(FUZZ_BUILD) -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false $(MESON_OPTS)

fuzz: export VN_FUZZ_SECONDS = $(FUZZ_SECONDS)
check-fuzz: export VN_FUZZ_SECONDS = $(FUZZ_SMOKE_SECONDS)
fuzz check-fuzz:
	@tools/install-deps.sh fuzz
	$(MAKE) $(FUZZ_BUILD)/build.ninja
	$(MESON) compile -C $(FUZZ_BUILD) fuzz-targets
	$(MESON) test -C $(FUZZ_BUILD) --no-rebuild --print-errorlogs --suite fuzz

clean: clean-fuzz
clean-fuzz:
	rm -rf $(FUZZ_BUILD)

check-numahost: build
	VN_NUMAHOST=1 $(MESON) test -C $(BUILD) --print-errorlogs --suite numahost -t 4

bench: build
	@tools/install-deps.sh bench
	@tools/bench.sh $(BUILD)

install: build
	$(MESON) install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
