// BaseRecalibrator counting; see base_recalibrator.hpp.
#include "stages/bqsr/base_recalibrator.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include "io/aux_fields.hpp"
#include "kernels/error.hpp"
#include "stages/bqsr/read_transform.hpp"
#include "stages/bqsr/recal_math.hpp"

namespace gpp::stages::bqsr {

namespace {

int base_index(char base) {
  switch (base) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return -1;
  }
}

/// Scratch buffers reused across the reads one thread counts.
struct ReadScratch {
  std::vector<std::uint8_t> is_mismatch;
  std::vector<std::uint8_t> known;
  std::vector<int> context;
  std::vector<int> cycle;
};

void count_read(const io::ReadBatch& reads, std::size_t i, int rg, const GenomeContext& genome,
                const CovariateOptions& options, RecalTables& tables, ReadScratch& scratch) {
  const ClippedRead clipped = clip_for_recalibration(reads, i);
  if (clipped.empty()) return;  // the whole read was adaptor
  const std::int32_t tid = reads.tid[i];
  const std::string& contig = genome.contig_bases[static_cast<std::size_t>(tid)];
  const std::string_view bases = reads.read_seq(i).substr(static_cast<std::size_t>(clipped.first),
                                                         static_cast<std::size_t>(clipped.length));
  const std::span<const std::uint8_t> quals = reads.read_qual(i).subspan(static_cast<std::size_t>(clipped.first),
                                                                         static_cast<std::size_t>(clipped.length));
  // calculateIsSNPOrIndel: BaseUtils.basesAreEqual over M/=/X (IUPAC reference bases mismatch).
  scratch.is_mismatch.assign(static_cast<std::size_t>(clipped.length), 0);
  std::int64_t ref_pos = clipped.start;
  int read_pos = 0;
  for (const std::uint32_t packed : clipped.cigar) {
    const std::uint32_t op = op_of(packed);
    const int length = static_cast<int>(length_of(packed));
    if (op == cigar_op::kMatch || op == cigar_op::kEqual || op == cigar_op::kDiff) {
      for (int k = 0; k < length; ++k) {
        const char ref_base = ref_pos + k < static_cast<std::int64_t>(contig.size()) ? contig[static_cast<std::size_t>(ref_pos + k)] : 'N';
        scratch.is_mismatch[static_cast<std::size_t>(read_pos + k)] = base_index(bases[static_cast<std::size_t>(read_pos + k)]) != base_index(ref_base);
      }
    }
    if (consumes_read(op)) read_pos += length;
    if (consumes_reference(op)) ref_pos += length;
  }
  known_site_mask(clipped, genome.known_sites[static_cast<std::size_t>(tid)],
                  genome.max_site_span[static_cast<std::size_t>(tid)], scratch.known);
  const std::uint16_t f = reads.flag[i];
  const CovariateRead covariate_read{bases, quals, static_cast<bool>(f & io::flag::kReverse),
                                     (f & io::flag::kPaired) && (f & io::flag::kSecondOfPair)};
  context_keys(covariate_read, options.mismatches_context_size, options.low_quality_tail, scratch.context);
  cycle_keys(covariate_read, options.maximum_cycle_value, scratch.cycle, nullptr);
  constexpr int kEvent = static_cast<int>(EventType::kMismatch);
  for (int k = 0; k < clipped.length; ++k) {
    const int q = quals[static_cast<std::size_t>(k)];
    if (base_index(bases[static_cast<std::size_t>(k)]) < 0 || q < kMinUsableQ || scratch.known[static_cast<std::size_t>(k)]) continue;
    const double error = scratch.is_mismatch[static_cast<std::size_t>(k)];
    tables.quality(rg, q, kEvent).add(1, error);
    if (scratch.context[static_cast<std::size_t>(k)] >= 0) tables.context(rg, q, scratch.context[static_cast<std::size_t>(k)], kEvent).add(1, error);
    tables.cycle(rg, q, scratch.cycle[static_cast<std::size_t>(k)], kEvent).add(1, error);
  }
}

}  // namespace

bool passes_recalibration_filters(const io::ReadBatch& reads, std::size_t i, const io::Header& header) {
  const std::uint16_t f = reads.flag[i];
  if (f & (io::flag::kUnmapped | io::flag::kSecondary | io::flag::kDuplicate | io::flag::kQcFail)) return false;
  if (reads.tid[i] < 0 || reads.pos[i] < 0) return false;
  if (reads.mapq[i] == 0 || reads.mapq[i] == 255) return false;
  if (io::find_aux_field(reads.read_aux(i), "RG") == nullptr) return false;  // WellformedRead: HasReadGroup
  const std::size_t length = reads.seq_length(i);
  if (length == 0) return false;  // SeqIsStored
  const auto quals = reads.read_qual(i);
  if (quals[0] == 0xFF) return false;  // no qualities: MatchingBasesAndQuals fails
  std::size_t cigar_length = 0;
  for (const std::uint32_t packed : reads.read_cigar(i)) {
    if (op_of(packed) == cigar_op::kSkip) return false;  // CigarContainsNoNOperator
    if (consumes_read(op_of(packed))) cigar_length += length_of(packed);
  }
  if (cigar_length != length) return false;  // ReadLengthEqualsCigarLength
  const auto& contigs = header.contigs();
  if (static_cast<std::size_t>(reads.tid[i]) >= contigs.size()) return false;
  if (reads.pos[i] >= contigs[static_cast<std::size_t>(reads.tid[i])].length) return false;  // AlignmentAgreesWithHeader
  return true;
}

RecalTables count_covariates(const io::ReadBatch& reads, const io::Header& header, const GenomeContext& genome,
                             const CovariateOptions& options) {
  const ReadGroupKeys rg_keys = read_group_keys(header);
  if (rg_keys.identifiers.empty()) throw Error("the input has no @RG read group in its header; BQSR needs read groups");
  RecalTables prototype(static_cast<int>(rg_keys.identifiers.size()), options);
  oneapi::tbb::enumerable_thread_specific<RecalTables> partial(prototype);
  oneapi::tbb::enumerable_thread_specific<ReadScratch> scratch;
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, reads.size(), 2048),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
    RecalTables& tables = partial.local();
    ReadScratch& local = scratch.local();
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      if (!passes_recalibration_filters(reads, i, header)) continue;
      const std::int32_t header_rg = reads.read_group[i];
      if (header_rg < 0) {
        const std::uint8_t* rg = io::find_aux_field(reads.read_aux(i), "RG");
        throw Error("read " + std::string(reads.read_name(i)) + " has read group '" +
                    std::string(reinterpret_cast<const char*>(rg + 1)) + "', which is not in the header");
      }
      if (genome.contig_bases[static_cast<std::size_t>(reads.tid[i])].empty()) {
        throw Error("no reference bases for contig " + header.contigs()[static_cast<std::size_t>(reads.tid[i])].name);
      }
      count_read(reads, i, rg_keys.key_of_header_read_group[static_cast<std::size_t>(header_rg)], genome, options, tables, local);
    }
  });
  RecalTables total = std::move(prototype);
  for (const RecalTables& tables : partial) total.merge(tables);
  total.finalize();
  return total;
}

}  // namespace gpp::stages::bqsr
