#include "pipeline/sample_sex.hpp"

#include <cstdio>

#include "core/error.hpp"
#include "pipeline/log.hpp"
#include "stages/call/sex_chromosomes.hpp"

namespace gpp::pipeline {

namespace {

constexpr const char* kDefaultMaleRange = "1-10";
constexpr const char* kDefaultFemaleRange = "150-250";

std::string format_ratio(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", ratio);
  return text;
}

/// CLI11 check of a --range-* value: the message of parse_ratio_range's error, or "".
CLI::Validator ratio_range(const std::string& option) {
  return CLI::Validator(
      [option](std::string& value) -> std::string {
        try {
          stages::call::parse_ratio_range(value, option);
        } catch (const Error& error) {
          return error.what();
        }
        return {};
      },
      "LOW-HIGH");
}

}  // namespace

void add_sex_options(CLI::App& app, SexArguments& arguments) {
  app.add_option("--sample-sex", arguments.sample_sex,
                 "male or female (Parabricks'): a male is called haploid on X and Y outside "
                 "their pseudo-autosomal regions; wins over the X/Y read ratio")
      ->check(CLI::IsMember({"male", "female"}, CLI::ignore_case));
  app.add_option("--range-male", arguments.range_male,
                 "X/Y mapped-read ratios, LOW-HIGH inclusive, of a male sample (Parabricks'; "
                 "default 1-10 when the sex is read from the ratio)")
      ->check(ratio_range("--range-male"));
  app.add_option("--range-female", arguments.range_female,
                 "X/Y mapped-read ratios of a female sample (default 150-250); a ratio in "
                 "neither range leaves the sex undetermined (--sample-ploidy everywhere)")
      ->check(ratio_range("--range-female"));
  app.add_flag("--use-GRCh37-regions", arguments.grch37,
               "GRCh37's (and hg19's) pseudo-autosomal regions instead of GRCh38's");
}

void count_mapped_reads(const io::ReadBatch& reads, std::vector<std::uint64_t>& counts) {
  for (std::size_t i = 0; i < reads.size(); ++i) {
    const std::int32_t tid = reads.tid[i];
    if (tid >= 0 && (reads.flag[i] & io::flag::kUnmapped) == 0) {
      ++counts.at(static_cast<std::size_t>(tid));
    }
  }
}

std::vector<stages::call::PloidyRegion> sex_ploidy_regions(const SexArguments& arguments,
                                                           const io::Header& header,
                                                           const std::string& input,
                                                           const MappedReadCounts& mapped_reads) {
  using stages::call::SampleSex;
  if (!arguments.given()) {
    if (arguments.grch37) {
      log::warning(
          "--use-GRCh37-regions changes nothing without --sample-sex, --range-male or "
          "--range-female");
    }
    return {};
  }
  const stages::call::RatioRange male = stages::call::parse_ratio_range(
      arguments.range_male.empty() ? kDefaultMaleRange : arguments.range_male, "--range-male");
  const stages::call::RatioRange female = stages::call::parse_ratio_range(
      arguments.range_female.empty() ? kDefaultFemaleRange : arguments.range_female,
      "--range-female");
  SampleSex sex = SampleSex::kUndetermined;
  std::string how;
  if (!arguments.sample_sex.empty()) {
    sex = stages::call::parse_sample_sex(arguments.sample_sex);
    how = "--sample-sex";
  } else {
    const stages::call::SexContigs contigs = stages::call::find_sex_contigs(header.contigs());
    const std::optional<std::vector<std::uint64_t>> counts = mapped_reads();
    if (!counts) {
      throw Error(input +
                  ": reading the sample's sex from its X/Y read ratio needs the mapped reads "
                  "per contig, which a BAM's index (.bai or .csi) gives: index it, or give "
                  "--sample-sex");
    }
    const auto count = [&](std::int32_t index) {
      return index < 0 ? std::uint64_t{0} : (*counts)[static_cast<std::size_t>(index)];
    };
    const std::uint64_t x = count(contigs.x);
    const std::uint64_t y = count(contigs.y);
    sex = stages::call::sex_from_read_ratio(x, y, male, female);
    how = "X/Y mapped-read ratio " +
          (y == 0 ? std::string("undefined") : format_ratio(static_cast<double>(x) / y)) + " (" +
          std::to_string(x) + " / " + std::to_string(y) + "; male " + format_ratio(male.low) + "-" +
          format_ratio(male.high) + ", female " + format_ratio(female.low) + "-" +
          format_ratio(female.high) + ")";
  }
  if (sex == SampleSex::kMale &&
      stages::call::sex_contigs_of_other_assembly(header.contigs(), arguments.grch37)) {
    log::warning(input + ": its X or Y has the length of " +
                 (arguments.grch37 ? "GRCh38's" : "GRCh37's") + ", but " +
                 (arguments.grch37 ? "GRCh37's" : "GRCh38's") +
                 " pseudo-autosomal regions are used" +
                 (arguments.grch37 ? "" : " (--use-GRCh37-regions for GRCh37 and hg19)"));
  }
  std::vector<stages::call::PloidyRegion> regions;
  if (sex == SampleSex::kMale) {
    regions = stages::call::haploid_sex_chromosome_regions(header.contigs(), arguments.grch37);
  }
  log::info(
      std::string("sample sex: ") + std::string(stages::call::sex_name(sex)) + ", from " + how +
      (sex == SampleSex::kMale
           ? std::string(": X and Y called haploid outside their pseudo-autosomal regions (") +
                 (arguments.grch37 ? "GRCh37" : "GRCh38") + ")"
           : std::string(": every contig at --sample-ploidy")));
  return regions;
}

}  // namespace gpp::pipeline
