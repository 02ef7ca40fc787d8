#include "core/stage_timeline.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace gpp {
namespace {

using namespace std::chrono_literals;

TEST(StageTimeline, StepsInSecondsSinceItWasMadeInTheOrderTheyEnded) {
  StageTimeline timeline;
  const StageTimeline::Clock::time_point t0 = StageTimeline::Clock::now();
  timeline.add("activity", t0 + 100ms, t0 + 250ms);
  timeline.add("assembly", t0 + 200ms, t0 + 1500ms);
  EXPECT_EQ(timeline.summary(), "activity 0.100-0.250, assembly 0.200-1.500");
}

TEST(StageTimeline, ScopedStepCoversItsScopeAndNothingWithoutATimeline) {
  StageTimeline timeline;
  {
    const ScopedStep step(&timeline, "engines");
    std::this_thread::sleep_for(20ms);
  }
  { const ScopedStep nothing(nullptr, "ignored"); }
  const std::string summary = timeline.summary();
  ASSERT_EQ(summary.rfind("engines 0.0", 0), 0u) << summary;
  const double start = std::stod(summary.substr(8, 5));
  const double end = std::stod(summary.substr(14));
  EXPECT_GE(end - start, 0.019);
  EXPECT_EQ(summary.find("ignored"), std::string::npos);
}

}  // namespace
}  // namespace gpp
