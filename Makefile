# Spire's front door. Every target first runs tools/install-deps (a no-op when all is installed).
#
#   make build     configure (Ninja, Release, ccache) into build/, compile, make `import spire` work
#   make test      build, then the C++ tests (ctest) and the Python tests (pytest); one summary line
#   make demo      build, then `spire demo` (a short tour; figures under out/demo/) and examples/digits.py
#   make validate  build, then the heavy validation checks, with a report of their figures
#   make bench     build with benchmarks, then bench/engine (PyTorch and JAX as references)
#   make gpu-test  on a machine with a GPU: the CUDA tests and bench/cuda (installs nothing; docs/cuda.md)
#
# Variables: BUILD=build  PYTHON=python3  JOBS=<cores>  CMAKE_ARGS=...  (e.g. -DSPIRE_CUDA=OFF)
#            OUT=out (demo, validate)  BENCH_ARGS=... (e.g. "--only matmul")

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.ONESHELL:
.DEFAULT_GOAL := help

BUILD ?= build
PYTHON ?= python3
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
OUT ?= out
# nvcc is found by CMake through PATH; CUDA's usual home may not be on it.
export PATH := $(if $(wildcard /usr/local/cuda/bin/nvcc),/usr/local/cuda/bin:)$(PATH)

.PHONY: help deps configure build test demo validate bench gpu-test clean

help:
	@sed -n '3,11p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@tools/install-deps

# Benchmarks are built only by `make bench` (SPIRE_BENCH is switched per target in the same tree).
configure: deps
	@mkdir -p $(BUILD)
	echo "configure: $(BUILD)/ (log: $(BUILD)/configure.log)"
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPIRE_BENCH=$(or $(SPIRE_BENCH),OFF) \
	  $(CMAKE_ARGS) > $(BUILD)/configure.log 2>&1 || { cat $(BUILD)/configure.log; exit 1; }

build: configure
	@start=$$SECONDS
	ninja -C $(BUILD) -j $(JOBS)
	# `import spire` from this checkout: a .pth file in the interpreter's site-packages names python/
	# (the build copies the extension module into python/spire/).
	if [ -d python/spire ] && grep -q '^SPIRE_PYTHON:BOOL=ON' $(BUILD)/CMakeCache.txt; then
	  site=$$($(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
	  [ -w "$$site" ] || site=$$($(PYTHON) -m site --user-site)
	  mkdir -p "$$site"
	  if [ "$$(cat "$$site/spire-dev.pth" 2>/dev/null)" != "$(CURDIR)/python" ]; then
	    echo "$(CURDIR)/python" > "$$site/spire-dev.pth"
	    echo "build: $$site/spire-dev.pth -> $(CURDIR)/python"
	  fi
	  $(PYTHON) -c 'import spire' || { echo "build: 'import spire' fails in $(PYTHON)"; exit 1; }
	fi
	echo "build: done in $$((SECONDS - start)) s ($(BUILD)/bin: $$(ls $(BUILD)/bin | tr '\n' ' '))"

# C++ tests run two at a time. Tests labelled `cuda` need a GPU and run only where `spire devices`
# lists one; `cuda_backend` (the library loads and fails gracefully without a GPU) runs everywhere.
test: build
	@start=$$SECONDS
	mkdir -p $(BUILD)/logs
	if $(BUILD)/bin/spire devices 2>/dev/null | grep -q '^cuda:'; then
	  exclude=(); gpu="with GPU tests"
	else
	  exclude=(-LE '^cuda$$'); gpu="GPU tests left out: no GPU"
	fi
	set +e
	ctest --test-dir $(BUILD) --output-on-failure -j 2 "$${exclude[@]}" 2>&1 | tee $(BUILD)/logs/ctest.log
	cpp_rc=$${PIPESTATUS[0]}
	cpp=$$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' $(BUILD)/logs/ctest.log || echo "no result")
	py_tests=$$(find tests/python -name 'test_*.py' -o -name '*_test.py' 2>/dev/null | wc -l)
	if [ "$$py_tests" -eq 0 ]; then
	  py_rc=0; py="no Python tests"
	elif ! grep -q '^SPIRE_PYTHON:BOOL=ON' $(BUILD)/CMakeCache.txt; then
	  py_rc=0; py="not run (this build has SPIRE_PYTHON=OFF)"
	else
	  PYTHONPATH=$(CURDIR)/python$${PYTHONPATH:+:$$PYTHONPATH} $(PYTHON) -m pytest -q tests/python 2>&1 |
	    tee $(BUILD)/logs/pytest.log
	  py_rc=$${PIPESTATUS[0]}
	  # 5 = nothing collected although test files exist: a broken test module, not a pass.
	  py=$$(tail -n 1 $(BUILD)/logs/pytest.log | sed 's/=//g; s/^ *//; s/ *$$//')
	fi
	set -e
	status=PASSED; [ $$cpp_rc -eq 0 ] && [ $$py_rc -eq 0 ] || status=FAILED
	echo
	echo "make test: $$status (tests took $$((SECONDS - start)) s) -- C++: $$cpp ($$gpu); Python: $$py"
	[ $$status = PASSED ]

demo: build
	@$(BUILD)/bin/spire demo --out $(OUT)
	# spire.nn end to end: an MLP and a CNN on scikit-learn's digits, >= 97% test accuracy each.
	if grep -q '^SPIRE_PYTHON:BOOL=ON' $(BUILD)/CMakeCache.txt; then
	  PYTHONPATH=$(CURDIR)/python$${PYTHONPATH:+:$$PYTHONPATH} $(PYTHON) examples/digits.py --out $(OUT)/digits
	else
	  echo "demo: examples/digits.py left out (this build has SPIRE_PYTHON=OFF)"
	fi

# Heavy checks, too slow for `make test`. Each is one command; all run, then a report lists them.
# Later work adds validation scripts as tests/validate/*.py or C++ programs built as
# $(BUILD)/bin/validate_*. Each exits nonzero on a failed comparison and prints its figures as
# lines starting with "figure:" (what, value, reference, tolerance), which the report collects.
# SPIRE_VALIDATE=full is set for all of them (tests may use it to run at full sample sizes).
validate: build
	@tools/install-deps --validate
	start=$$SECONDS
	dir=$(OUT)/validate; mkdir -p $$dir
	names=(); cmds=()
	names+=(registry); cmds+=("SPIRE_VALIDATE=full $(BUILD)/bin/spire_engine_tests --gtest_filter='Registry*'")
	names+=(elec_full_size); cmds+=("$(BUILD)/bin/spire_elec_tests --gtest_filter='*.FullSize*'")
	for f in tests/validate/*.py; do [ -e "$$f" ] || continue
	  names+=("$$(basename $$f .py)"); cmds+=("PYTHONPATH=$(CURDIR)/python $(PYTHON) $$f"); done
	for f in $(BUILD)/bin/validate_*; do [ -x "$$f" ] || continue
	  names+=("$$(basename $$f)"); cmds+=("$$f"); done
	report=(); failed=0
	for i in "$${!names[@]}"; do
	  name=$${names[$$i]}; echo "== validate: $$name =="
	  t0=$$SECONDS; set +e
	  SPIRE_VALIDATE=full bash -c "$${cmds[$$i]}" 2>&1 | tee $$dir/$$name.log; rc=$${PIPESTATUS[0]}; set -e
	  [ $$rc -eq 0 ] && s=ok || { s="FAILED (exit $$rc)"; failed=$$((failed + 1)); }
	  report+=("$$(printf '%-28s %-18s %6d s' "$$name" "$$s" $$((SECONDS - t0)))")
	done
	{ echo "validation report ($$(date -u +%Y-%m-%dT%H:%MZ), logs in $$dir/)"
	  printf '%-28s %-18s %8s\n' check status time
	  printf '%s\n' "$${report[@]}"
	  echo "figures:"
	  for name in "$${names[@]}"; do
	    grep -E '^(figure:|registry test:)' $$dir/$$name.log | sed "s/^/  $$name: /" || true
	  done
	} > $$dir/report.txt.tmp
	mv $$dir/report.txt.tmp $$dir/report.txt
	echo; cat $$dir/report.txt
	echo "make validate: $$([ $$failed -eq 0 ] && echo PASSED || echo "FAILED ($$failed)") in $$((SECONDS - start)) s"
	[ $$failed -eq 0 ]

# bench/engine/run.py runs the Google Benchmark programs itself, next to the Python-side figures
# of NumPy, PyTorch and JAX, and writes bench/RESULTS.md; without it, the programs run alone.
bench:
	@tools/install-deps --bench
	$(MAKE) --no-print-directory build SPIRE_BENCH=ON
	if [ -f bench/engine/run.py ]; then
	  PYTHONPATH=$(CURDIR)/python $(PYTHON) bench/engine/run.py --build-dir $(abspath $(BUILD)) $(BENCH_ARGS)
	else
	  for b in $(BUILD)/bin/bench_*; do [ -x "$$b" ] || continue; echo "== $$b =="; "$$b"; done
	fi

clean:
	rm -rf $(BUILD)

# The CUDA tests (labels cuda and cuda_backend) and the GPU benchmarks, in their own build tree. It
# installs nothing: a lent GPU machine reaches no package registry, so its build dependencies come
# from ../shared/tools/gpu-deps.sh (`source .gpu-deps/gpu-deps.sh unpack && make gpu-test`). The
# benchmarks run even when a test fails; the exit status is the tests'.
GPU_BUILD ?= build-gpu
gpu-test:
	@start=$$SECONDS
	if command -v nvidia-smi >/dev/null; then nvidia-smi -L; else echo "gpu-test: no nvidia-smi on PATH"; fi
	gen=Ninja; command -v ninja >/dev/null || gen="Unix Makefiles"
	mkdir -p $(GPU_BUILD)/logs
	cmake -S . -B $(GPU_BUILD) -G "$$gen" -DCMAKE_BUILD_TYPE=Release -DSPIRE_CUDA=ON -DSPIRE_BENCH=ON \
	  -DSPIRE_PYTHON=OFF $(CMAKE_ARGS) > $(GPU_BUILD)/configure.log 2>&1 || { cat $(GPU_BUILD)/configure.log; exit 1; }
	cmake --build $(GPU_BUILD) -j $(JOBS) --target spire_cuda_tests spire_cuda_emulate_reduce \
	  spire_cuda_emulate_scan spire_sponge_cuda_host_tests spire_sponge_cuda_tests bench_cuda \
	  bench_sponge_water_pme spire_elec_cuda_host_tests spire_elec_cuda_tests bench_elec_fdtd3d
	tests=0
	ctest --test-dir $(GPU_BUILD) -L '^cuda' --output-on-failure 2>&1 | tee $(GPU_BUILD)/logs/ctest-gpu.log || tests=$$?
	$(GPU_BUILD)/bin/bench_cuda --benchmark_repetitions=5 --benchmark_out_format=json \
	  --benchmark_out=$(GPU_BUILD)/logs/bench_cuda.json
	$(PYTHON) bench/cuda/report.py $(GPU_BUILD)/logs/bench_cuda.json --results bench/RESULTS.md | tee $(GPU_BUILD)/logs/gpu-figures.txt
	# MD on the cuda platform: SPC/E water with PME in ns/day (against OpenMM's CUDA platform where
	# its CUDA plugin is installed).
	$(GPU_BUILD)/bin/bench_sponge_water_pme --platform cuda --runs 3 | tee -a $(GPU_BUILD)/logs/gpu-figures.txt || true
	# FDTD on the cuda platform: M cell-updates/s of the 3D CPML problem and the fraction of the
	# memory-bandwidth roofline it reaches.
	$(GPU_BUILD)/bin/bench_elec_fdtd3d --platform cuda --runs 3 | tee -a $(GPU_BUILD)/logs/gpu-figures.txt || true
	echo "gpu-test: tests $$([ $$tests -eq 0 ] && echo passed || echo FAILED) ($$((SECONDS - start)) s); figures in $(GPU_BUILD)/logs/gpu-figures.txt"
	exit $$tests
