#include "stages/call/sex_chromosomes.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

/// A PAR, 0-based half-open.
struct Par {
  std::int64_t start;
  std::int64_t end;
};

/// One assembly's sex chromosomes: lengths and PARs.
struct SexChromosomeMap {
  std::int64_t x_length;
  std::array<Par, 2> x_pars;
  std::int64_t y_length;
  std::array<Par, 2> y_pars;
};

constexpr SexChromosomeMap kGrch38{156'040'895,
                                   {{{10'000, 2'781'479}, {155'701'382, 156'030'895}}},
                                   57'227'415,
                                   {{{10'000, 2'781'479}, {56'887'902, 57'217'415}}}};
constexpr SexChromosomeMap kGrch37{155'270'560,
                                   {{{60'000, 2'699'520}, {154'931'043, 155'260'560}}},
                                   59'373'566,
                                   {{{10'000, 2'649'520}, {59'034'049, 59'363'566}}}};

const SexChromosomeMap& assembly(bool grch37) { return grch37 ? kGrch37 : kGrch38; }

/// `contig` [0, length) less the two PARs, at ploidy 1.
void add_outside_pars(const io::Contig& contig, const std::array<Par, 2>& pars,
                      std::vector<PloidyRegion>& regions) {
  std::int64_t from = 0;
  const auto add = [&](std::int64_t to) {
    to = std::min(to, contig.length);
    if (to > from) regions.push_back({contig.name, from, to, 1});
  };
  for (const Par& par : pars) {
    add(par.start);
    from = std::max(from, std::min(par.end, contig.length));
  }
  add(contig.length);
}

bool parse_number(std::string_view text, double& value) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && result.ec == std::errc() && result.ptr == text.data() + text.size() &&
         std::isfinite(value) && value >= 0;
}

}  // namespace

std::string_view sex_name(SampleSex sex) {
  switch (sex) {
    case SampleSex::kMale:
      return "male";
    case SampleSex::kFemale:
      return "female";
    case SampleSex::kUndetermined:
      break;
  }
  return "undetermined";
}

SampleSex parse_sample_sex(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "male") return SampleSex::kMale;
  if (lower == "female") return SampleSex::kFemale;
  throw Error("--sample-sex " + std::string(text) + ": must be male or female");
}

RatioRange parse_ratio_range(std::string_view text, std::string_view option) {
  const std::size_t dash = text.find('-');
  RatioRange range;
  if (dash == std::string_view::npos || !parse_number(text.substr(0, dash), range.low) ||
      !parse_number(text.substr(dash + 1), range.high) || range.low > range.high) {
    throw Error(std::string(option) + " " + std::string(text) +
                ": must be a range of X/Y read ratios LOW-HIGH, e.g. 1-10");
  }
  return range;
}

SampleSex sex_from_read_ratio(std::uint64_t x_reads, std::uint64_t y_reads, RatioRange male,
                              RatioRange female) {
  if (x_reads == 0 || y_reads == 0) return SampleSex::kUndetermined;
  const double ratio = static_cast<double>(x_reads) / static_cast<double>(y_reads);
  if (male.contains(ratio)) return SampleSex::kMale;
  if (female.contains(ratio)) return SampleSex::kFemale;
  return SampleSex::kUndetermined;
}

SexContigs find_sex_contigs(std::span<const io::Contig> contigs) {
  SexContigs found;
  for (std::size_t i = 0; i < contigs.size(); ++i) {
    const std::string& name = contigs[i].name;
    if (found.x < 0 && (name == "chrX" || name == "X")) found.x = static_cast<std::int32_t>(i);
    if (found.y < 0 && (name == "chrY" || name == "Y")) found.y = static_cast<std::int32_t>(i);
  }
  return found;
}

std::vector<PloidyRegion> haploid_sex_chromosome_regions(std::span<const io::Contig> contigs,
                                                         bool grch37) {
  const SexContigs sex = find_sex_contigs(contigs);
  const SexChromosomeMap& map = assembly(grch37);
  std::vector<PloidyRegion> regions;
  if (sex.x >= 0) add_outside_pars(contigs[static_cast<std::size_t>(sex.x)], map.x_pars, regions);
  if (sex.y >= 0) add_outside_pars(contigs[static_cast<std::size_t>(sex.y)], map.y_pars, regions);
  return regions;
}

bool sex_contigs_of_other_assembly(std::span<const io::Contig> contigs, bool grch37) {
  const SexContigs sex = find_sex_contigs(contigs);
  const SexChromosomeMap& other = assembly(!grch37);
  const SexChromosomeMap& asked = assembly(grch37);
  const auto of_other = [&](std::int32_t index, std::int64_t other_length,
                            std::int64_t asked_length) {
    return index >= 0 && contigs[static_cast<std::size_t>(index)].length == other_length &&
           other_length != asked_length;
  };
  return of_other(sex.x, other.x_length, asked.x_length) ||
         of_other(sex.y, other.y_length, asked.y_length);
}

}  // namespace gpp::stages::call
