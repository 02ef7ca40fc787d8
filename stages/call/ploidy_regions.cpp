#include "stages/call/ploidy_regions.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

bool parse_integer(std::string_view text, std::int64_t& value) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

}  // namespace

std::vector<PloidyRegion> parse_ploidy_regions(std::string_view text, const std::string& path) {
  std::vector<PloidyRegion> regions;
  std::size_t line_number = 0;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.starts_with('#') || line.starts_with("track") ||
        line.starts_with("browser")) {
      continue;
    }
    std::istringstream fields(line);
    std::string contig, start, end, ploidy;
    fields >> contig >> start >> end >> ploidy;
    const std::string where = path + " line " + std::to_string(line_number) + ": ";
    if (ploidy.empty()) throw Error(where + "a ploidy region needs contig, start, end and ploidy");
    PloidyRegion region{contig, 0, 0, 0};
    std::int64_t count = 0;
    if (!parse_integer(start, region.start) || !parse_integer(end, region.end) ||
        region.start < 0 || region.end <= region.start) {
      throw Error(where + "bad coordinates '" + start + "' '" + end + "'");
    }
    if (!parse_integer(ploidy, count) || count < 1 || count > kMaxSamplePloidy) {
      throw Error(where + "the ploidy (name column) must be an integer from 1 to " +
                  std::to_string(kMaxSamplePloidy) + ", not '" + ploidy + "'");
    }
    region.ploidy = static_cast<int>(count);
    regions.push_back(std::move(region));
  }
  return regions;
}

ContigPloidy::ContigPloidy(std::span<const PloidyRegion> regions, std::string_view contig,
                           int default_ploidy)
    : default_ploidy_(default_ploidy) {
  for (const PloidyRegion& region : regions) {
    if (region.contig != contig) continue;
    regions_.push_back(region);
    longest_ = std::max(longest_, region.end - region.start);
    varies_ = varies_ || region.ploidy != default_ploidy;
  }
  std::sort(regions_.begin(), regions_.end(),
            [](const PloidyRegion& a, const PloidyRegion& b) { return a.start < b.start; });
}

int ContigPloidy::at(std::int64_t start, std::int64_t end) const {
  // The regions starting before `end`, back to those that could still reach `start`.
  auto it = std::lower_bound(
      regions_.begin(), regions_.end(), end,
      [](const PloidyRegion& region, std::int64_t position) { return region.start < position; });
  int ploidy = 0;
  while (it != regions_.begin()) {
    --it;
    if (it->start + longest_ <= start) break;
    if (it->end > start) ploidy = std::max(ploidy, it->ploidy);
  }
  return ploidy > 0 ? ploidy : default_ploidy_;
}

}  // namespace gpp::stages::call
