// When each step of a pipeline of stages ran, in seconds since the timeline was made: for DEBUG
// logs that show which stage the others wait for (PhaseTimes gives only totals). Thread-safe.
//
// @code
//   StageTimeline timeline;
//   { const ScopedStep step(&timeline, "assembly"); ... }
//   log::debug("timeline: " + timeline.summary());   // "assembly 0.120-0.340, ..."
// @endcode
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace gpp {

class StageTimeline {
 public:
  using Clock = std::chrono::steady_clock;

  StageTimeline() : origin_(Clock::now()) {}
  void add(std::string_view step, Clock::time_point start, Clock::time_point end);
  /// "step 0.120-0.340, step 0.200-0.410" in the order the steps ended.
  std::string summary() const;

 private:
  struct Step {
    std::string name;
    double start;
    double end;
  };
  Clock::time_point origin_;
  mutable std::mutex mutex_;
  std::vector<Step> steps_;
};

/// Adds the lifetime of the scope to `timeline` as `step` (nothing when `timeline` is null).
class ScopedStep {
 public:
  ScopedStep(StageTimeline* timeline, std::string_view step)
      : timeline_(timeline), step_(step), start_(StageTimeline::Clock::now()) {}
  ~ScopedStep() {
    if (timeline_ != nullptr) timeline_->add(step_, start_, StageTimeline::Clock::now());
  }
  ScopedStep(const ScopedStep&) = delete;
  ScopedStep& operator=(const ScopedStep&) = delete;

 private:
  StageTimeline* timeline_;
  std::string_view step_;
  StageTimeline::Clock::time_point start_;
};

}  // namespace gpp
