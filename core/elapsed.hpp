// Seconds since a steady-clock time point, for the stage timings that readers and writers report.
#pragma once

#include <chrono>

namespace gpp {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace gpp
