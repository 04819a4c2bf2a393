# kcc — the two commands a new machine needs: `make demo` and `make test`.
# Both install what is missing (scripts/deps.sh), configure Meson in build/, and build.
BUILD ?= build
MESON_OPTS ?=

.PHONY: all deps build demo test test-all test-gpu bench clean

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
test-all: test
	bash scripts/test_all.sh $(BUILD) $$(grep '^llvm-config' $(BUILD).llvm-config)

test-gpu: build
	meson test -C $(BUILD) --print-errorlogs --suite gpu

bench: build
	@bash bench/run.sh $(BUILD)
	@bash bench/compile.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD).llvm-config
