#!/usr/bin/env bash
# Configures and builds into build/ (build/gpu-pipeline and the tests).
# CUDA is used when nvcc is found (PATH or /usr/local/cuda); GPP_CUDA_ARCHS picks architectures
# (default: 90 for a quick build; "80;86;89;90" covers Ampere to Hopper).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
args=(-S . -B "${GPP_BUILD_DIR:-build}" -G Ninja -DCMAKE_BUILD_TYPE=Release)
if command -v nvcc >/dev/null 2>&1; then
  args+=(-DGPP_WITH_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=${GPP_CUDA_ARCHS:-90}")
else
  echo "nvcc not found: building the CPU backends only" >&2
  args+=(-DGPP_WITH_CUDA=OFF)
fi
cmake "${args[@]}" >/dev/null
cmake --build "${GPP_BUILD_DIR:-build}" -j "${GPP_JOBS:-$(nproc)}"
