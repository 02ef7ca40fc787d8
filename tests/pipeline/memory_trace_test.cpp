// memory_report() gives the process's resident memory and, with jemalloc linked in, what the
// allocator holds: 64 MiB allocated and touched show in both.
#include "pipeline/memory_trace.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

namespace gpp::pipeline {
namespace {

// The figure after `label` in MiB ("1.5 GiB" is 1536).
double mib_after(const std::string& report, const std::string& label) {
  const std::regex pattern(label + " ([0-9.]+) (MiB|GiB)");
  std::smatch match;
  if (!std::regex_search(report, match, pattern)) return -1;
  const double value = std::stod(match[1]);
  return match[2] == "GiB" ? value * 1024 : value;
}

TEST(MemoryTrace, ReportShowsWhatIsHeld) {
  std::vector<char> held(std::size_t{64} << 20, 1);
  const std::string report = memory_report();
  EXPECT_GE(mib_after(report, "resident"), 64) << report;
  EXPECT_GE(mib_after(report, "anonymous"), 64) << report;
#if defined(GPP_WITH_JEMALLOC)
  EXPECT_GE(mib_after(report, "allocated"), 64) << report;
  EXPECT_GE(mib_after(report, "active"), 64) << report;
#endif
  EXPECT_EQ(held[held.size() - 1], 1);
}

}  // namespace
}  // namespace gpp::pipeline
