// Wall-clock seconds spent in the named phases of a stage (BQSR: reading descriptors, GPU work,
// aux rewrite; markdup: sorting, read ends, pairing, ...), for DEBUG logs and benchmarks.
// Thread-safe; phases with the same name add up.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpp {

class PhaseTimes {
 public:
  void add(std::string_view phase, double seconds);
  /// "phase 1.234 s, phase 0.567 s" in the order the phases first appeared.
  std::string summary() const;
  double seconds(std::string_view phase) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, double>> phases_;
};

/// Adds the lifetime of the scope to `times` under `phase` (nothing when `times` is null).
class ScopedPhase {
 public:
  ScopedPhase(PhaseTimes* times, std::string_view phase)
      : times_(times), phase_(phase), start_(std::chrono::steady_clock::now()) {}
  ~ScopedPhase() {
    if (times_ != nullptr)
      times_->add(phase_,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  PhaseTimes* times_;
  std::string_view phase_;
  std::chrono::steady_clock::time_point start_;
};

/// Runs `step()` as `phase` of `times` (timed as a ScopedPhase) and returns what it returns:
/// the stage's timing stays at the boundaries of its steps, out of their bodies.
template <typename Step>
decltype(auto) timed_phase(PhaseTimes* times, std::string_view phase, Step&& step) {
  const ScopedPhase scoped(times, phase);
  return std::forward<Step>(step)();
}

}  // namespace gpp
