// The GPP_PAIRHMM_* and GPP_SW_* overrides (see tuning_overrides.hpp).
#include "pipeline/tuning_overrides.hpp"

#include <cstdlib>
#include <string>

namespace gpp::pipeline {

namespace {

/// The variable's value, if set.
const char* variable(const char* name) { return std::getenv(name); }

/// Sets `value` from a decimal variable, when it is set and is a number.
template <typename T>
void override_number(const char* name, T& value) {
  const char* text = variable(name);
  if (text == nullptr) return;
  char* end = nullptr;
  const long long parsed = std::strtoll(text, &end, 10);
  if (end != text) value = static_cast<T>(parsed);
}

void override_text(const char* name, std::string& value) {
  if (const char* text = variable(name); text != nullptr) value = text;
}

}  // namespace

kernels::PairHmmTuning pairhmm_tuning() {
  kernels::PairHmmTuning tuning;
  override_text("GPP_PAIRHMM_CPU_SIMD", tuning.cpu_simd);
  override_number("GPP_PAIRHMM_ITEM_COLUMNS", tuning.gpu_item_columns);
  override_number("GPP_PAIRHMM_CHUNKS", tuning.gpu_chunk_divisor);
  override_number("GPP_PAIRHMM_FIRST_CHUNK", tuning.gpu_first_chunk_divisor);
  override_number("GPP_PAIRHMM_BIN_STREAMS", tuning.gpu_bin_streams);
  if (const char* tiles = variable("GPP_PAIRHMM_TILES"); tiles != nullptr) {
    tuning.gpu_narrow_tiles = std::string(tiles) == "narrow";
  }
  override_number("GPP_PAIRHMM_PROFILE", tuning.gpu_profile);
  return tuning;
}

kernels::SwTuning smith_waterman_tuning() {
  kernels::SwTuning tuning;
  override_text("GPP_SW_CPU_ISA", tuning.cpu_isa);
  std::uint64_t megabytes = 0;
  override_number("GPP_SW_GPU_BUDGET_MB", megabytes);
  tuning.gpu_chunk_bytes = megabytes << 20;
  megabytes = 0;
  override_number("GPP_SW_GPU_MAX_PAIR_MB", megabytes);
  tuning.gpu_max_pair_bytes = megabytes << 20;
  tuning.profile = variable("GPP_SW_PROFILE") != nullptr;
  return tuning;
}

}  // namespace gpp::pipeline
