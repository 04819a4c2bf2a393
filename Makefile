# kcc — the two commands a new machine needs: `make demo` and `make test`.
# Both install what is missing (scripts/deps.sh), configure Meson in build/, and build.
BUILD ?= build
MESON_OPTS ?=

.PHONY: all deps build demo test test-all test-gpu bench clean test-tsan

all: build

deps:
	@bash scripts/deps.sh > $(BUILD).llvm-config 2>&1 || (cat $(BUILD).llvm-config; exit 1)
	@grep -v '^llvm-config' $(BUILD).llvm-config || true

$(BUILD)/build.ninja:
	@$(MAKE) --no-print-directory deps
	meson setup $(BUILD) -Dllvm_config=$$(grep '^llvm-config' $(BUILD).llvm-config) $(MESON_OPTS)

build: $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	@bash scripts/demo.sh $(BUILD)

test: build
	meson test -C $(BUILD) --print-errorlogs --num-processes 2 --no-suite gpu

# The slow checks (docs/testing.md): the suite under ASan+UBSan (in $(BUILD)-asan),
# the compiler and CPU runtime under valgrind, longer fuzz runs.
test-all: test test-tsan
	bash scripts/test_all.sh $(BUILD) $$(grep '^llvm-config' $(BUILD).llvm-config)

# ThreadSanitizer (in $(BUILD)-tsan): the runtime, kernel, compiler and sample suites,
# among them two contexts compiling and launching on two threads (test_concurrency);
# any data race fails the test (halt_on_error).
$(BUILD)-tsan/build.ninja:
	@test -f $(BUILD).llvm-config || $(MAKE) --no-print-directory deps
	meson setup $(BUILD)-tsan -Dllvm_config=$$(grep '^llvm-config' $(BUILD).llvm-config) \
	  -Db_sanitize=thread $(MESON_OPTS)

test-tsan: $(BUILD)-tsan/build.ninja
	ninja -C $(BUILD)-tsan
	TSAN_OPTIONS="halt_on_error=1 $$TSAN_OPTIONS" meson test -C $(BUILD)-tsan \
	  --print-errorlogs --num-processes 2 --timeout-multiplier 3 \
	  --suite runtime --suite kernels --suite compiler --suite samples

test-gpu: build
	meson test -C $(BUILD) --print-errorlogs --suite gpu

bench: build
	@KC_DEPS_BENCH=1 bash scripts/deps.sh >/dev/null
	@bash bench/run.sh $(BUILD)
	@bash bench/compile.sh $(BUILD)
	@bash bench/ptx_compare.sh $(BUILD)
	@bash bench/mpi_scaling.sh $(BUILD)
	@bash bench/histogram.sh $(BUILD)
	@bash bench/launch.sh $(BUILD)
	@bash bench/big_aggregates.sh $(BUILD)
	@bash bench/python_launch.sh $(BUILD)
	@bash bench/python_programs.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD).llvm-config
