#include "core/stage_timeline.hpp"

#include <cstdio>

namespace gpp {

void StageTimeline::add(std::string_view step, Clock::time_point start, Clock::time_point end) {
  const auto since = [this](Clock::time_point t) {
    return std::chrono::duration<double>(t - origin_).count();
  };
  const std::lock_guard<std::mutex> lock(mutex_);
  steps_.push_back({std::string(step), since(start), since(end)});
}

std::string StageTimeline::summary() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (const Step& step : steps_) {
    char span[48];
    std::snprintf(span, sizeof span, " %.3f-%.3f", step.start, step.end);
    out += (out.empty() ? "" : ", ") + step.name + span;
  }
  return out;
}

}  // namespace gpp
