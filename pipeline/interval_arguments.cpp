#include "pipeline/interval_arguments.hpp"

#include "core/error.hpp"

namespace gpp::pipeline {

std::vector<io::Interval> IntervalArguments::parse(const io::Header& header) const {
  if (excluded.empty()) return io::parse_intervals(specs, header.contigs(), padding);
  const std::vector<io::Interval> included =
      specs.empty() ? io::whole_contigs(header.contigs())
                    : io::parse_intervals(specs, header.contigs(), padding);
  std::vector<io::Interval> left = io::subtract_intervals(
      included, io::parse_intervals(excluded, header.contigs(), exclusion_padding, "-XL"));
  if (left.empty()) {
    throw Error("the -L and -XL intervals leave nothing to work on (every base is excluded)");
  }
  return left;
}

std::vector<std::string> IntervalArguments::files() const {
  std::vector<std::string> all = specs;
  all.insert(all.end(), excluded.begin(), excluded.end());
  return all;
}

void add_interval_options(CLI::App& app, IntervalArguments& arguments, const std::string& what) {
  app.add_option("-L,--intervals,--interval-file,--interval", arguments.specs,
                 what + ": chr:start-end, BED, .interval_list, .list (repeatable)");
  app.add_option("--interval-padding", arguments.padding,
                 "bases added on each side of every -L interval (also -ip, as GATK; default 0)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--exclude-intervals", arguments.excluded,
                 "intervals left out of the -L ones, or of every contig (also -XL, as GATK; "
                 "repeatable)");
  app.add_option("--interval-exclusion-padding", arguments.exclusion_padding,
                 "bases added on each side of every -XL interval (also -ixp; default 0)")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace gpp::pipeline
