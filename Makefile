# The two set-up commands of the README:
#   make demo   builds mgsim and runs it on a built-in example
#   make test   builds and runs every test (release build, then address+undefined sanitizers,
#               then each fuzz target for a few seconds), checks formatting and runs clang-tidy;
#               .ci/run calls this.
#   make fuzz   runs each fuzz target for FUZZ_SECONDS (default 300) in the fuzz build.
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 300

.PHONY: demo test setup build build-asan build-fuzz fuzz format format-check tidy bench

setup:
	@scripts/setup.sh

$(BUILD)/build.ninja: | setup
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target mgsim
	$(BUILD)/cli/mgsim run examples/all_reduce_ring.yaml --topology hgx-h200-8

# The sanitizer build uses clang (the release build gcc), so both compilers build every change.
$(ASAN_BUILD)/build.ninja: | setup
	CXX=clang++ cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMGSIM_SANITIZE=ON \
	  -DMGSIM_BENCHMARKS=OFF -DMGSIM_CUDA=OFF

build-asan: setup $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# The fuzz targets (tests/fuzz) need clang's libFuzzer; the layers are built again with it.
$(FUZZ_BUILD)/build.ninja: | setup
	CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DMGSIM_FUZZ=ON -DBUILD_TESTING=OFF -DMGSIM_BENCHMARKS=OFF -DMGSIM_CUDA=OFF

build-fuzz: setup $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

fuzz: build-fuzz
	scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

test: build build-asan build-fuzz
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -LE scale
	cd $(FUZZ_BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) --no-print-directory format-check
	$(MAKE) --no-print-directory tidy

FORMAT_FILES = $(shell git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')

format-check: setup
	clang-format --dry-run --Werror $(FORMAT_FILES)

format:
	clang-format -i $(FORMAT_FILES)

# clang-tidy with the checks of .clang-tidy (findings are errors; traces/.clang-tidy raises one
# threshold) over every layer's sources, headers included, through $(BUILD)/compile_commands.json.
CLANG_TIDY ?= clang-tidy
TIDY_FILES = $(shell git ls-files 'sim/*.cpp' 'models/*.cpp' 'topologies/*.cpp' 'traces/*.cpp' \
  'validate/*.cpp' 'cli/*.cpp' 'python/*.cpp' | grep -v '^validate/cuda/')

tidy: setup $(BUILD)/build.ninja
	printf '%s\n' $(TIDY_FILES) | xargs -P $(JOBS) -n 1 $(CLANG_TIDY) -p $(BUILD) --quiet

bench: build
	scripts/bench.sh $(BUILD)
