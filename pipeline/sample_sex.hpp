// Parabricks' haplotypecaller options for the sample's sex (--sample-sex, --range-male,
// --range-female, --use-GRCh37-regions) and the ploidy regions they give the caller
// (stages/call/sex_chromosomes.hpp): a male sample is called haploid on X and Y outside their
// pseudo-autosomal regions. Without any of them every contig has --sample-ploidy, as GATK's.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "stages/call/ploidy_regions.hpp"

namespace gpp::pipeline {

struct SexArguments {
  std::string sample_sex;    ///< --sample-sex male|female; wins over the ratio
  std::string range_male;    ///< --range-male LOW-HIGH; empty: not given (1-10)
  std::string range_female;  ///< --range-female LOW-HIGH; empty: not given (150-250)
  bool grch37 = false;       ///< --use-GRCh37-regions: GRCh37's PARs (also hg19's)

  /// Whether the sex is asked for (a sex, or a range to read it from the reads).
  bool given() const { return !sample_sex.empty() || !range_male.empty() || !range_female.empty(); }
};

/// Declares the four options on `app`.
void add_sex_options(CLI::App& app, SexArguments& arguments);

/// Mapped records per header contig, where the input tells them (its index, or its records).
using MappedReadCounts = std::function<std::optional<std::vector<std::uint64_t>>()>;

/// Adds the mapped records of `reads` (a contig and no unmapped flag, as an index counts them)
/// to `counts`, one per header contig.
void count_mapped_reads(const io::ReadBatch& reads, std::vector<std::uint64_t>& counts);

/**
 * @brief The ploidy regions of the sample's sex: X and Y outside their PARs at ploidy 1 for a
 * male, none otherwise (and none without a sex option). The sex, and the X/Y read ratio it came
 * from, are logged; for a male, a header whose X or Y has the other assembly's length gets a
 * warning. The ratio counts every mapped record, of every read group (--sample-name's sample or
 * not), as the index does.
 * `mapped_reads` is asked only when the sex is read from the ratio.
 * @throws gpp::Error for a malformed option value, or naming `input` when the sex is to be read
 *         from the ratio and `mapped_reads` gives no counts
 */
std::vector<stages::call::PloidyRegion> sex_ploidy_regions(const SexArguments& arguments,
                                                           const io::Header& header,
                                                           const std::string& input,
                                                           const MappedReadCounts& mapped_reads);

}  // namespace gpp::pipeline
