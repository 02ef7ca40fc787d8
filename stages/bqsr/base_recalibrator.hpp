// BaseRecalibrator (GATK 4 BaseRecalibrationEngine.processRead): counts, for every base of every
// read that passes the filters, an observation and whether it mismatches the reference, in the
// read-group/quality/context/cycle bins.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/phase_times.hpp"
#include "io/genome/known_sites.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "kernels/bqsr/bqsr.hpp"
#include "kernels/device/device.hpp"
#include "stages/bqsr/covariates.hpp"
#include "stages/bqsr/known_site_index.hpp"
#include "stages/bqsr/recal_tables.hpp"

namespace gpp::stages::bqsr {

/// Reference bases and known sites, per contig of the alignment header (indexed by tid).
struct GenomeContext {
  std::vector<std::string> contig_bases;    ///< whole contig as in the FASTA; empty = not loaded
  std::vector<KnownSiteIndex> known_sites;  ///< union of all known-sites files
};

/**
 * @brief GATK BaseRecalibrator's read filters: mapped, MAPQ not 0 or 255, primary, not duplicate,
 * passes vendor checks, and well formed (has a read group, bases and qualities stored and of
 * the CIGAR's length, no N operation, start within the contig).
 */
bool passes_recalibration_filters(const io::ReadBatch& reads, std::size_t i,
                                  const io::Header& header);

/**
 * @brief The covariate read-group key of record `i` when it passes the filters, -1 otherwise.
 * @throws gpp::Error when its read group is not in the header, or its contig's reference bases
 *         were not provided
 */
int counted_read_group(const io::ReadBatch& reads, std::size_t i, const io::Header& header,
                       const GenomeContext& genome, const ReadGroupKeys& keys);

/**
 * @brief Counts the covariates of every read of `reads` that passes the filters.
 *
 * Per read: consolidate the CIGAR, clip adaptor and soft clips; skip bases that are not ACGT,
 * have quality < 6 or lie on a known site; count each remaining base in RecalTable1 at
 * (rg, quality) and in RecalTable2 at (rg, quality, context) and (rg, quality, cycle) when the
 * key exists, with error 1 when it differs from the reference. With indel tables, insertions and
 * deletions are events too (qualities from BI/BD or 45, indel context and cycle keys); with BAQ,
 * the errors of each block of BAQ-lowered bases (and the base before it) are shared evenly, and
 * reads whose BAQ window leaves the contig are not counted.
 * The result is finalized (read-group table built, values rounded).
 *
 * @throws gpp::Error when a read names a read group missing from the header or a contig whose
 *         reference bases were not provided
 */
/// How counts are accumulated (dense histograms, or sort + reduce of packed keys); both give
/// identical tables. The kernels' enum, so that the stage and the GPU path name it once.
using CountingMethod = kernels::bqsr::CountingMethod;

/**
 * @brief Event types, error model, counting method and backend of a BaseRecalibrator run.
 *
 * Backend kGpu without indel tables and BAQ (GATK 4's defaults): the per-base work runs on the
 * GPU (kernel_counting.hpp), `method` picks atomics or sort + run-length encoding there. kGpu
 * with indel tables: keys made on the CPU, sorted on the GPU with kSortReduce, else the CPU
 * path. BAQ is always counted on the CPU, serially. All give byte-identical tables.
 */
struct CountingOptions {
  bool indel_tables = false;  ///< --compute-indel-bqsr-tables: also count I and D events
  bool enable_baq =
      false;  ///< --enable-baq: errors spread over BAQ-uncertain blocks (counted serially, dense)
  CountingMethod method = CountingMethod::kDense;
  kernels::Backend backend = kernels::Backend::kCpu;
  PhaseTimes* times = nullptr;  ///< receives the time of each phase when set
  /// --max-memory: dense counting on the CPU keeps its threads' copies of the tables within
  /// half of it (fewer threads count where read groups are many); 0: a copy per thread.
  std::uint64_t memory_bytes = 0;
};

RecalTables count_covariates(const io::ReadBatch& reads, const io::Header& header,
                             const GenomeContext& genome, const CovariateOptions& options,
                             const CountingOptions& counting = {});

/**
 * @brief count_covariates over a stream of batches: add() each batch in input order, then
 * finish() once. Gives the tables count_covariates gives for all the batches together (BAQ's
 * fractional errors are summed in the same read order; every other count is an integer sum).
 * `header` must outlive this object; so must the contig bases of `genome` passed to add().
 */
class CovariateCounting {
 public:
  /// @throws gpp::Error when the header has no read group
  CovariateCounting(const io::Header& header, const CovariateOptions& options,
                    const CountingOptions& counting = {});
  ~CovariateCounting();
  CovariateCounting(const CovariateCounting&) = delete;
  CovariateCounting& operator=(const CovariateCounting&) = delete;

  /// Counts the reads of `reads`; every contig they are on must be loaded in `genome`.
  void add(const io::ReadBatch& reads, const GenomeContext& genome);
  /// The finalized tables.
  RecalTables finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpp::stages::bqsr
