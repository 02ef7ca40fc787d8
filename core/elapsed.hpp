// Seconds since a steady-clock time point, for the stage timings that readers and writers report.
#pragma once

#include <chrono>
#include <utility>

namespace gpp {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Runs `step()` and returns the seconds it took: a stage's timing around its steps, out of
/// their bodies.
template <typename Step>
double seconds_of(Step&& step) {
  const auto start = std::chrono::steady_clock::now();
  std::forward<Step>(step)();
  return seconds_since(start);
}

}  // namespace gpp
