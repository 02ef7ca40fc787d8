// Variant calling shared by `call` and `run`: the sample, the contigs the reads and intervals need
// (checked against the reference), and the reads handed to the caller contig by contig, with each
// contig's reference bases, as they arrive.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/genome/intervals.hpp"
#include "io/genome/known_variants.hpp"
#include "io/genome/reference.hpp"
#include "io/reads/batch_rows.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "pipeline/alignment_inputs.hpp"
#include "stages/call/caller_options.hpp"
#include "stages/call/haplotype_caller.hpp"
#include "stages/call/variant_call.hpp"

namespace gpp::pipeline {

/// The sample to call: `sample_name` (GATK's --sample-name) when given, else the one sample of
/// the read groups (SM); `input` names the file in the error.
/// @throws gpp::Error when there is no read group, a read group has no SM, `sample_name` is not a
///         sample of the read groups, or it is empty and the read groups name several samples
std::string called_sample(const io::Header& header, const std::string& input,
                          const std::string& sample_name = {});
/// called_sample of the merged header of `inputs`, each input first checked for read groups
/// with SM (an error names it).
std::string called_sample(const AlignmentInputs& inputs, const std::string& sample_name = {});

/// Per read group of the header, whether it is of `sample` (1) or not (0); empty when every read
/// group is (the caller then keeps every read without looking).
std::vector<std::uint8_t> called_read_groups(const io::Header& header, const std::string& sample);

/// Whether `name` is an alternate contig of the reference, which Parabricks' --no-alt-contigs
/// leaves without calls: GRCh38's ALT haplotypes (`chr6_GL000251v2_alt`, every name ending in
/// `_alt`) and its HLA allele contigs (`HLA-A*01:01:01:01`), the contigs bwa's alt-aware mapping
/// lists in its `.alt` file (hs38DH).
bool is_alternate_contig(std::string_view name);

/// The variant files calling reads: --dbsnp's known variants and --alleles' given alleles.
struct CallingInputs {
  std::optional<io::KnownVariants> dbsnp;
  std::optional<io::KnownVariants> alleles;

  const io::KnownVariants* dbsnp_file() const { return dbsnp ? &*dbsnp : nullptr; }
  const io::KnownVariants* alleles_file() const { return alleles ? &*alleles : nullptr; }
};

/**
 * @brief Opens the files of --dbsnp and --alleles; none where a path is empty.
 * @throws gpp::Error naming the file when it cannot be read, or when it indexes contigs and none
 *         of them is a contig of the header of `input` (GATK: "no overlapping contigs", e.g. "1"
 *         against "chr1")
 */
CallingInputs open_calling_inputs(const std::string& dbsnp, const std::string& alleles,
                                  const io::Header& header, const std::string& input);

/// GATK's check of --ploidy-regions: each within a contig of the header.
/// @throws gpp::Error naming the region and `input` otherwise
void check_ploidy_regions(std::span<const stages::call::PloidyRegion> regions,
                          const io::Header& header, const std::string& input);

/// Which header contigs the work needs: those with an interval, or without intervals those with
/// reads.
std::vector<bool> contigs_in_use(const io::ReadBatch& reads, const io::Header& header,
                                 const std::vector<io::Interval>& intervals);

/// Errors (naming the reference) for a needed contig the reference lacks and for any contig of a
/// different length; with `warn_unused`, one warning for header contigs it lacks that nothing
/// needs.
void check_reference(const io::Header& header, const std::string& input,
                     const io::Reference& reference, const std::vector<bool>& needed,
                     bool warn_unused = true);

/**
 * @brief Variant calling over reads that arrive in coordinate order, batch by batch — a stream of
 * the input or all of it at once — contig by contig in header order, so that only the reads of
 * the regions in flight are held as the caller's records.
 *
 * Traversed: with -L the intervals; without, every contig with reads, and in reference-confidence
 * mode every contig of the reference (a gVCF covers all of it, as GATK's traversal does); with
 * skip_alternate_contigs none of the alternate contigs (is_alternate_contig).
 * @code
 *   CallingPass pass(header, "in.bam", reference, intervals, options, engines, writer);
 *   pass.add(batch, rows);   // as many times as there are batches
 *   pass.finish();
 * @endcode
 */
class CallingPass {
 public:
  /// `sample`: the sample called (called_sample); on an input of several samples the others'
  /// reads count for the activity only, as with GATK's --sample-name. `given_alleles`: --alleles
  /// (force-called; GivenAlleles), none when null; it must outlive the pass.
  CallingPass(const io::Header& header, const std::string& input, const std::string& sample,
              const io::Reference& reference, const std::vector<io::Interval>& intervals,
              const stages::call::HaplotypeCallerOptions& options,
              stages::call::CallerEngines& engines, stages::call::CallSink& sink,
              const io::KnownVariants* given_alleles = nullptr);
  ~CallingPass();
  CallingPass(const CallingPass&) = delete;
  CallingPass& operator=(const CallingPass&) = delete;

  /**
   * @brief The records of `reads` at `rows`, continuing the previous ones in coordinate order
   * (unmapped records are skipped).
   * @throws gpp::Error naming the input when they are out of coordinate order, or naming the
   *         reference when a read lies on a contig it lacks
   */
  void add(const io::ReadBatch& reads, std::span<const std::uint32_t> rows);
  /// add() of `rows`, each from its batch (a merge's records where they were read).
  void add(const io::RowsAcross& rows);

  /// The rest of the traversal: the last contig with reads and the contigs after it.
  void finish();

  /// The contigs traversed so far (with reads or intervals, or for a gVCF), by header index.
  const std::vector<bool>& contigs_used() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Regions per engine batch under a memory `budget` (stages::call::kDefaultRegionsPerBatch when
/// the budget allows): two batches are in flight, each holding its regions' reads, haplotypes
/// and likelihoods. The output does not depend on it.
std::size_t regions_per_batch(std::uint64_t budget);

/// INFO lines: the phases, the GPU's share, the call count.
void log_calling_summary(const stages::call::CallerEngines& engines, std::size_t calls,
                         double seconds);

}  // namespace gpp::pipeline
