# planwrap: the two commands of the quick start are `make run` and `make test`.
# Everything else is CMake; this file only sets up and calls it.

JOBS   ?= 2
CMAKE  ?= cmake
REL    := build/release
ASAN   := build/asan
FUZZ   := build/fuzz

.PHONY: all deps build run test test-release test-asan bench oracle fuzz format format-check clean

all: build

deps:
	@sh tools/install-deps.sh

build: deps
	@$(CMAKE) -S . -B $(REL) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@$(CMAKE) --build $(REL) -j $(JOBS)
	@echo "planwrap built: $(REL)/planwrap"

run: build
	@sh examples/run.sh $(REL)/planwrap

test: test-release test-asan

test-release: build
	@ctest --test-dir $(REL) --output-on-failure -j $(JOBS)

test-asan: deps
	@$(CMAKE) -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DPW_SANITIZE=ON >/dev/null
	@$(CMAKE) --build $(ASAN) -j $(JOBS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir $(ASAN) --output-on-failure -j $(JOBS)

bench: build
	@sh bench/run.sh $(REL)

# The ONNX Runtime oracle of `planwrap import` (npm onnxruntime-node,
# python3-torch); slow, never part of `make test`.
oracle: build
	@$(CMAKE) --build $(REL) --target import_oracle

fuzz: deps
	@$(CMAKE) -S . -B $(FUZZ) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DPW_FUZZ=ON >/dev/null
	@$(CMAKE) --build $(FUZZ) -j $(JOBS)
	@echo "fuzz targets built in $(FUZZ); see docs/testing.md"

format:
	@git ls-files '*.c' '*.h' ':!tests/golden/' | xargs clang-format -i

format-check:
	@git ls-files '*.c' '*.h' ':!tests/golden/' | xargs clang-format --dry-run --Werror

clean:
	rm -rf build
