#!/usr/bin/env bash
# Installs the Debian 12 packages gpu-pipeline builds and tests with (skips what is present).
# The CUDA toolkit is not a Debian package here: when nvcc is absent the build is CPU-only.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libhts-dev libtbb-dev libcli11-dev libgtest-dev libdeflate-dev libjemalloc-dev
  samtools tabix bcftools time  # time: peak memory in tests (/usr/bin/time -f %M)
  picard-tools snakemake clang-format
  clang-14 libclang-rt-14-dev llvm-14 python3  # scripts/sanitize_and_fuzz.sh: ASan, UBSan, libFuzzer
)
if [ "${GPP_PEERS:-0}" = 1 ]; then  # further peer tools for the benchmarks
  packages+=(sambamba biobambam2 freebayes bwa dwgsim)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  # Wait for another apt/dpkg run (e.g. unattended upgrades) rather than fail on its lock.
  lock="-o DPkg::Lock::Timeout=600"
  $sudo_cmd apt-get $lock update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get $lock install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
