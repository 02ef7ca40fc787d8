#!/usr/bin/env bash
# Makes a relocatable bundle for a GPU host that has only the NVIDIA driver: the executables
# (gpu-pipeline, gpp_tests, bench_*), the peer tools the tests call (samtools, tabix, bgzip), the
# duplicate-marking peers the benchmarks run when they are installed here (sambamba, biobambam2's
# bamsormadup), every shared library they need except the C runtime, and the test data. Binaries get the RPATH
# $ORIGIN/../lib, so nothing needs LD_LIBRARY_PATH.
#   scripts/bundle.sh [--perf] [BUILD_DIR] [OUT_DIR]      (defaults: build-gpu, bundle)
# --perf adds the Linux profiler with its libraries under OUT_DIR/perf (about 27 MB) and keeps our
# binaries' symbols, for profiling on the GPU host (as root there):
#   bundle/perf/perf record -g -o p.data bundle/bin/gpu-pipeline markdup ...
#   bundle/perf/perf report -i p.data --no-children --sort dso,sym
# On the GPU host:
#   GPP_TEST_DATA=bundle/data GPP_BINARY=bundle/bin/gpu-pipeline PATH=bundle/bin:$PATH \
#     bundle/bin/gpp_tests --gtest_filter='*Gpu*'
set -euo pipefail
cd "$(dirname "$0")/.."
with_perf=0
if [ "${1:-}" = "--perf" ]; then
  with_perf=1
  shift
fi
build=${1:-build-gpu}
out=${2:-bundle}
command -v patchelf >/dev/null || { apt-get update -qq && apt-get install -y -qq patchelf >/dev/null; }

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
bins=("$build/gpu-pipeline" "$build/gpp_tests")
for b in "$build"/bench_*; do [ -x "$b" ] && [ -f "$b" ] && bins+=("$b"); done
for tool in samtools tabix bgzip; do bins+=("$(command -v "$tool")"); done
for tool in sambamba bamsormadup; do command -v "$tool" >/dev/null && bins+=("$(command -v "$tool")"); done

# The C runtime and the driver stay the host's own.
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libpthread\.|libdl\.|librt\.|libcuda\.)'
for b in "${bins[@]}"; do
  cp "$b" "$out/bin/"
  ldd "$b" | awk '/=> \// {print $1, $3}' | while read -r name path; do
    [[ "$name" =~ $skip ]] && continue
    [ -e "$out/lib/$name" ] || cp -L "$path" "$out/lib/$name"
  done
done
for f in "$out"/bin/* "$out"/lib/*; do
  chmod u+w "$f"
  patchelf --set-rpath '$ORIGIN/../lib' "$f"
  if [ "$with_perf" = 1 ]; then
    strip --strip-debug "$f" 2>/dev/null || true  # function names stay for perf report
  else
    strip --strip-unneeded "$f" 2>/dev/null || true
  fi
done
if [ "$with_perf" = 1 ]; then
  command -v perf >/dev/null || { apt-get update -qq && apt-get install -y -qq linux-perf >/dev/null; }
  mkdir -p "$out/perf/lib"
  cp "$(command -v perf)" "$out/perf/"
  ldd "$(command -v perf)" | awk '/=> \// {print $1, $3}' | while read -r name path; do
    [[ "$name" =~ $skip ]] && continue
    [ -e "$out/lib/$name" ] || cp -L "$path" "$out/perf/lib/$name"
  done
  # DT_RPATH, not RUNPATH: it also serves the libraries' own dependencies.
  for f in "$out"/perf/perf "$out"/perf/lib/*; do
    chmod u+w "$f"
    strip --strip-unneeded "$f" 2>/dev/null || true
    patchelf --force-rpath --set-rpath '$ORIGIN/lib:$ORIGIN/../lib:$ORIGIN:$ORIGIN/../../lib' "$f"
  done
fi
cp -r tests/data "$out/data"
mkdir -p "$out/bench-scripts"
tar -C bench --exclude=./out --exclude=./data -cf - . | tar -C "$out/bench-scripts" -xf -
git rev-parse --short HEAD > "$out/COMMIT" 2>/dev/null || echo unknown > "$out/COMMIT"
du -sh "$out" | awk '{print "bundle: " $2 " (" $1 ")"}'
