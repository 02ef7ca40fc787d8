#include "core/phase_times.hpp"

#include <cstdio>

namespace gpp {

void PhaseTimes::add(std::string_view phase, double seconds) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [name, total] : phases_) {
    if (name == phase) {
      total += seconds;
      return;
    }
  }
  phases_.emplace_back(std::string(phase), seconds);
}

double PhaseTimes::seconds(std::string_view phase) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [name, total] : phases_)
    if (name == phase) return total;
  return 0.0;
}

std::string PhaseTimes::summary() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (const auto& [name, total] : phases_) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.3f s", total);
    out += (out.empty() ? "" : ", ") + name + buf;
  }
  return out;
}

}  // namespace gpp
