// BaseRecalibrator counting through the batch kernels; see kernel_counting.hpp.
//
// Reads are taken in chunks (at most 2^20 reads and 2^27 bases); while the kernel counts one
// chunk, the CPU describes the next.
#include "stages/bqsr/kernel_counting.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_group.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "stages/bqsr/read_transform.hpp"
#include "stages/bqsr/recal_math.hpp"

namespace gpp::stages::bqsr {

namespace {

namespace kb = kernels::bqsr;

constexpr std::size_t kReadsPerChunk = std::size_t{1} << 20;
constexpr std::uint64_t kBasesPerChunk = std::uint64_t{1} << 27;

/// The descriptors of the counted reads of records [first, last): the arrays of a CountingChunk.
struct ChunkDescriptors {
  std::uint64_t base_begin = 0;  ///< seq offset of record `first`
  std::uint64_t base_end = 0;    ///< seq offset of record `last`
  std::vector<std::uint64_t> first_base;
  std::vector<std::uint32_t> length;
  std::vector<std::int32_t> read_group;
  std::vector<std::uint8_t> strand;
  std::vector<std::int32_t> contig;
  std::vector<std::int64_t> ref_start;
  std::vector<std::uint32_t> cigar_offset;
  std::vector<std::uint32_t> cigar;
  std::vector<std::uint32_t> known_offset;
  std::vector<std::uint32_t> known;

  kb::CountingChunk view(const io::ReadBatch& reads) const {
    const std::size_t bases = static_cast<std::size_t>(base_end - base_begin);
    return {std::span<const char>(reads.seq.data() + base_begin, bases),
            std::span<const std::uint8_t>(reads.qual.data() + base_begin, bases),
            first_base,
            length,
            read_group,
            strand,
            contig,
            ref_start,
            cigar_offset,
            cigar,
            known_offset,
            known};
  }
};

/// The descriptors of the counted reads among a range of records, made by one task.
struct Piece {
  std::vector<std::uint64_t> first_base;
  std::vector<std::uint32_t> length;
  std::vector<std::int32_t> read_group;
  std::vector<std::uint8_t> strand;
  std::vector<std::int32_t> contig;
  std::vector<std::int64_t> ref_start;
  std::vector<std::uint32_t> cigar_count;
  std::vector<std::uint32_t> cigar;
  std::vector<std::uint32_t> known_count;
  std::vector<std::uint32_t> known;
};

/// Filters, clips and masks records [first, last) of the chunk starting at `base_begin`.
void describe_range(const io::ReadBatch& reads, std::size_t first, std::size_t last,
                    std::uint64_t base_begin, const io::Header& header, const GenomeContext& genome,
                    const CovariateOptions& options, const ReadGroupKeys& keys, Piece& piece) {
  std::vector<int> cycle;
  std::vector<std::pair<int, int>> known;
  const std::size_t records = last - first;
  piece.first_base.reserve(records);
  piece.length.reserve(records);
  piece.read_group.reserve(records);
  piece.strand.reserve(records);
  piece.contig.reserve(records);
  piece.ref_start.reserve(records);
  piece.cigar_count.reserve(records);
  piece.cigar.reserve(2 * records);
  piece.known_count.reserve(records);
  for (std::size_t i = first; i != last; ++i) {
    const int rg = counted_read_group(reads, i, header, genome, keys);
    if (rg < 0) continue;
    const ClippedRead clipped = clip_for_recalibration(reads, i);
    if (clipped.empty()) continue;  // the whole read was adaptor
    const std::uint16_t f = reads.flag[i];
    const bool reverse = f & io::flag::kReverse;
    const bool second = (f & io::flag::kPaired) && (f & io::flag::kSecondOfPair);
    if (clipped.length > options.maximum_cycle_value) {
      // The CPU path's error, word for word.
      cycle_keys({reads.read_seq(i).substr(static_cast<std::size_t>(clipped.first),
                                           static_cast<std::size_t>(clipped.length)),
                  reads.read_qual(i).subspan(static_cast<std::size_t>(clipped.first),
                                             static_cast<std::size_t>(clipped.length)),
                  reverse, second},
                 options.maximum_cycle_value, cycle, nullptr);
    }
    const auto t = static_cast<std::size_t>(reads.tid[i]);
    known_site_ranges(clipped, genome.known_sites[t], known);
    piece.first_base.push_back(reads.seq_offset[i] - base_begin +
                               static_cast<std::uint64_t>(clipped.first));
    piece.length.push_back(static_cast<std::uint32_t>(clipped.length));
    piece.read_group.push_back(rg);
    piece.strand.push_back(static_cast<std::uint8_t>((reverse ? kb::kReverseStrand : 0) |
                                                     (second ? kb::kSecondOfPair : 0)));
    piece.contig.push_back(reads.tid[i]);
    piece.ref_start.push_back(clipped.start);
    piece.cigar_count.push_back(static_cast<std::uint32_t>(clipped.cigar.size()));
    piece.cigar.insert(piece.cigar.end(), clipped.cigar.begin(), clipped.cigar.end());
    piece.known_count.push_back(static_cast<std::uint32_t>(known.size()));
    for (const auto& [lo, hi] : known) {
      piece.known.push_back(static_cast<std::uint32_t>(lo));
      piece.known.push_back(static_cast<std::uint32_t>(hi));
    }
  }
}

/// Descriptors of the counted reads of records [first, last): ranges of records described in
/// parallel, then concatenated (the order of reads does not change the counts).
ChunkDescriptors describe_chunk(const io::ReadBatch& reads, std::size_t first, std::size_t last,
                                const io::Header& header, const GenomeContext& genome,
                                const CovariateOptions& options, const ReadGroupKeys& keys) {
  constexpr std::size_t kRecordsPerPiece = 8192;
  ChunkDescriptors d;
  d.base_begin = reads.seq_offset[first];
  d.base_end = reads.seq_offset[last];
  std::vector<Piece> pieces((last - first + kRecordsPerPiece - 1) / kRecordsPerPiece);
  oneapi::tbb::parallel_for(std::size_t{0}, pieces.size(), [&](std::size_t p) {
    const std::size_t from = first + p * kRecordsPerPiece;
    describe_range(reads, from, std::min(last, from + kRecordsPerPiece), d.base_begin, header,
                   genome, options, keys, pieces[p]);
  });
  // Where each piece's reads, CIGAR operations and masked ranges go.
  std::vector<std::size_t> read_base(pieces.size() + 1, 0), cigar_base(pieces.size() + 1, 0),
      known_base(pieces.size() + 1, 0);
  for (std::size_t p = 0; p < pieces.size(); ++p) {
    read_base[p + 1] = read_base[p] + pieces[p].length.size();
    cigar_base[p + 1] = cigar_base[p] + pieces[p].cigar.size();
    known_base[p + 1] = known_base[p] + pieces[p].known.size() / 2;
  }
  const std::size_t counted = read_base.back();
  d.first_base.resize(counted);
  d.length.resize(counted);
  d.read_group.resize(counted);
  d.strand.resize(counted);
  d.contig.resize(counted);
  d.ref_start.resize(counted);
  d.cigar_offset.resize(counted + 1);
  d.known_offset.resize(counted + 1);
  d.cigar.resize(cigar_base.back());
  d.known.resize(2 * known_base.back());
  oneapi::tbb::parallel_for(std::size_t{0}, pieces.size(), [&](std::size_t p) {
    const Piece& piece = pieces[p];
    const std::size_t at = read_base[p];
    std::copy(piece.first_base.begin(), piece.first_base.end(), d.first_base.begin() + at);
    std::copy(piece.length.begin(), piece.length.end(), d.length.begin() + at);
    std::copy(piece.read_group.begin(), piece.read_group.end(), d.read_group.begin() + at);
    std::copy(piece.strand.begin(), piece.strand.end(), d.strand.begin() + at);
    std::copy(piece.contig.begin(), piece.contig.end(), d.contig.begin() + at);
    std::copy(piece.ref_start.begin(), piece.ref_start.end(), d.ref_start.begin() + at);
    std::copy(piece.cigar.begin(), piece.cigar.end(), d.cigar.begin() + cigar_base[p]);
    std::copy(piece.known.begin(), piece.known.end(), d.known.begin() + 2 * known_base[p]);
    auto cigar_end = static_cast<std::uint32_t>(cigar_base[p]);
    auto known_end = static_cast<std::uint32_t>(known_base[p]);
    for (std::size_t k = 0; k < piece.length.size(); ++k) {
      d.cigar_offset[at + k] = cigar_end;
      d.known_offset[at + k] = known_end;
      cigar_end += piece.cigar_count[k];
      known_end += piece.known_count[k];
    }
  });
  d.cigar_offset[counted] = static_cast<std::uint32_t>(cigar_base.back());
  d.known_offset[counted] = static_cast<std::uint32_t>(known_base.back());
  return d;
}

/// Chunk boundaries: consecutive records, at most kReadsPerChunk of them and kBasesPerChunk bases
/// (a single longer record makes a chunk of its own).
std::vector<std::size_t> chunk_starts(const io::ReadBatch& reads) {
  std::vector<std::size_t> starts{0};
  while (starts.back() < reads.size()) {
    const std::size_t first = starts.back();
    std::size_t last = first + 1;
    while (last < reads.size() && last - first < kReadsPerChunk &&
           reads.seq_offset[last + 1] - reads.seq_offset[first] <= kBasesPerChunk)
      ++last;
    starts.push_back(last);
  }
  return starts;
}

RecalTables tables_from_counts(const kb::CovariateCounts& counts, const kb::CountingShape& shape,
                               const CovariateOptions& options) {
  constexpr int kMismatch = static_cast<int>(EventType::kMismatch);
  RecalTables tables(shape.read_groups, options, 1);  // mismatches only
  for (int rg = 0; rg < shape.read_groups; ++rg) {
    for (int q = 0; q < kQualCount; ++q) {
      const std::size_t rq =
          static_cast<std::size_t>(rg) * kQualCount + static_cast<std::size_t>(q);
      // Every counted base counts in its quality bin: a quality without one has no other bins
      // (and the tables allocate none for it).
      if (counts.quality_observations[rq] == 0) continue;
      // A bin with observations goes into its table row.
      auto add = [](RecalBin& row, const auto& observations, const auto& errors, std::size_t bin) {
        if (observations[bin] != 0)
          row.add(static_cast<std::int64_t>(observations[bin]), static_cast<double>(errors[bin]));
      };
      add(tables.quality(rg, q, kMismatch), counts.quality_observations, counts.quality_errors, rq);
      for (int key = 0; key < shape.context_slots; ++key) {
        add(tables.context(rg, q, key, kMismatch), counts.context_observations,
            counts.context_errors,
            rq * static_cast<std::size_t>(shape.context_slots) + static_cast<std::size_t>(key));
      }
      for (int key = 0; key < shape.cycle_slots; ++key) {
        add(tables.cycle(rg, q, key, kMismatch), counts.cycle_observations, counts.cycle_errors,
            rq * static_cast<std::size_t>(shape.cycle_slots) + static_cast<std::size_t>(key));
      }
    }
  }
  tables.finalize();
  return tables;
}

}  // namespace

KernelCounting::KernelCounting(const io::Header& header, const CovariateOptions& options,
                               kernels::Backend backend, kernels::bqsr::CountingMethod method,
                               PhaseTimes* times)
    : header_(header), options_(options), keys_(read_group_keys(header)), times_(times) {
  if (keys_.identifiers.empty())
    throw Error("the input has no @RG read group in its header; BQSR needs read groups");
  shape_ = {static_cast<int>(keys_.identifiers.size()), options.mismatches_context_size,
            options.low_quality_tail, context_key_count(options.mismatches_context_size),
            cycle_key_count(options.maximum_cycle_value)};
  const ScopedPhase phase(times, "device set-up");
  counter_ =
      std::make_unique<kb::CovariateCounter>(shape_, header.contigs().size(), backend, method);
  contig_given_.assign(header.contigs().size(), false);
}

KernelCounting::~KernelCounting() = default;

std::uint64_t KernelCounting::count_bytes(int read_groups, const CovariateOptions& options) {
  const std::uint64_t bins_per_quality =
      1 + static_cast<std::uint64_t>(context_key_count(options.mismatches_context_size)) +
      static_cast<std::uint64_t>(cycle_key_count(options.maximum_cycle_value));
  return static_cast<std::uint64_t>(read_groups) * kQualCount * bins_per_quality * 2 *
         sizeof(std::uint64_t);
}

void KernelCounting::add(const io::ReadBatch& reads, const GenomeContext& genome) {
  for (std::size_t t = 0; t < contig_given_.size(); ++t) {
    if (contig_given_[t] || t >= genome.contig_bases.size() || genome.contig_bases[t].empty())
      continue;
    const ScopedPhase phase(times_, "reference to the device");
    counter_->set_contig(t, genome.contig_bases[t]);
    contig_given_[t] = true;
  }
  const std::vector<std::size_t> starts = chunk_starts(reads);
  if (starts.size() < 2) return;
  auto describe = [&](std::size_t c) {
    const ScopedPhase phase(times_, "describe reads (cpu)");
    return describe_chunk(reads, starts[c], starts[c + 1], header_, genome, options_, keys_);
  };
  ChunkDescriptors current = describe(0);
  for (std::size_t c = 0; c + 1 < starts.size(); ++c) {
    ChunkDescriptors next;
    oneapi::tbb::task_group describing;
    if (c + 2 < starts.size()) {
      describing.run([&] { next = describe(c + 1); });
    }
    try {
      const ScopedPhase phase(times_, "count chunks (waiting on the backend)");
      counter_->count(current.view(reads));
    } catch (...) {
      describing.wait();
      throw;
    }
    describing.wait();
    current = std::move(next);
  }
}

RecalTables KernelCounting::finish() {
  const ScopedPhase phase(times_, "finish and tables");
  return tables_from_counts(counter_->finish(), shape_, options_);
}

RecalTables count_covariates_with_kernels(const io::ReadBatch& reads, const io::Header& header,
                                          const GenomeContext& genome,
                                          const CovariateOptions& options, kernels::Backend backend,
                                          kernels::bqsr::CountingMethod method, PhaseTimes* times) {
  KernelCounting counting(header, options, backend, method, times);
  counting.add(reads, genome);
  return counting.finish();
}

}  // namespace gpp::stages::bqsr
