#!/bin/bash
# The GPU check in one command, on a machine with an NVIDIA GPU, CuPy and PyTorch CUDA:
#
#     pip install -e ".[test]" cupy-cuda12x        # (or cupy-cuda13x), plus a CUDA PyTorch
#     bash benchmarks/gpu/check.sh                  # from the project's root
#
# It builds the C extensions, prints the speed table (strided on cuda vs CuPy vs PyTorch
# CUDA, one process, interleaved, minima: benchmarks/gpu/bench.py), runs the whole test
# suite with cuda as the default device, then the official conformance suite on cuda
# ($ARRAY_API_TESTS_DIR, else ../shared/array-api-tests). Logs go to $OUT (default
# gpu-out/). About 4.5 minutes on an H100. Extra wheels that the GPU machine cannot
# download can be put in $WHEELS (a folder of .whl files): they are installed into
# $OUT/site first.
export PYTHONUNBUFFERED=1
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
PY=${PYTHON:-python3}
NPROC=$(nproc)
{ nvidia-smi -L; $PY -c "import cupy, numpy, torch; print('cupy', cupy.__version__, 'numpy', numpy.__version__, 'torch', torch.__version__)"; } > "$OUT/env.txt" 2>&1
if [ -n "${WHEELS:-}" ]; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$OUT/site" "$WHEELS"/*.whl >> "$OUT/env.txt" 2>&1
    export PYTHONPATH="$OUT/site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
$PY setup.py build_ext --inplace > "$OUT/build.txt" 2>&1; echo "build rc=$?" >> "$OUT/env.txt"
cat "$OUT/env.txt"
echo "== speed: strided cuda vs CuPy vs PyTorch CUDA"
OUT="$OUT" timeout 100 $PY benchmarks/gpu/bench.py > "$OUT/gpubench.txt" 2>&1; cat "$OUT/gpubench.txt"
echo "== tests, default device cuda"
STRIDED_DEFAULT_DEVICE=cuda timeout 200 $PY -m pytest -n "$NPROC" -q -p no:cacheprovider > "$OUT/cuda-tests.log" 2>&1
tail -n 40 "$OUT/cuda-tests.log" | cut -c1-300
echo "== conformance, cuda"
SUITE=${ARRAY_API_TESTS_DIR:-../shared/array-api-tests}
ARRAY_API_TESTS_DIR="$SUITE" timeout 150 $PY conformance/run.py -n "$NPROC" --device cuda --max-examples 50 \
  --report "$OUT/REPORT-cuda.md" --deselect array_api_tests/test_dlpack.py::test_dunder_dlpack > "$OUT/conformance.log" 2>&1
tail -n 25 "$OUT/conformance.log" | cut -c1-300
