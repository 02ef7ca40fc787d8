// BaseRecalibrator counting through the batch kernels; see kernel_counting.hpp.
//
// Reads are taken in chunks (at most 2^20 reads and 2^27 bases); while the kernel counts one
// chunk, the CPU describes the next.
#include "stages/bqsr/kernel_counting.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_group.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/error.hpp"
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
  std::vector<std::uint32_t> cigar_offset{0};
  std::vector<std::uint32_t> cigar;
  std::vector<std::uint32_t> known_offset{0};
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

struct PreparedRead {
  int read_group = -1;  ///< -1: not counted
  ClippedRead clipped;
  std::vector<std::pair<int, int>> known;
};

ChunkDescriptors describe_chunk(const io::ReadBatch& reads, std::size_t first, std::size_t last,
                                const io::Header& header, const GenomeContext& genome,
                                const CovariateOptions& options, const ReadGroupKeys& keys) {
  std::vector<PreparedRead> prepared(last - first);
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(first, last, 1024),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        std::vector<int> cycle;
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
          PreparedRead& p = prepared[i - first];
          const int rg = counted_read_group(reads, i, header, genome, keys);
          if (rg < 0) continue;
          p.clipped = clip_for_recalibration(reads, i);
          if (p.clipped.empty()) continue;  // the whole read was adaptor
          if (p.clipped.length > options.maximum_cycle_value) {
            // The CPU path's error, word for word.
            const std::uint16_t f = reads.flag[i];
            cycle_keys({reads.read_seq(i).substr(static_cast<std::size_t>(p.clipped.first),
                                                 static_cast<std::size_t>(p.clipped.length)),
                        reads.read_qual(i).subspan(static_cast<std::size_t>(p.clipped.first),
                                                   static_cast<std::size_t>(p.clipped.length)),
                        static_cast<bool>(f & io::flag::kReverse),
                        (f & io::flag::kPaired) && (f & io::flag::kSecondOfPair)},
                       options.maximum_cycle_value, cycle, nullptr);
          }
          const auto t = static_cast<std::size_t>(reads.tid[i]);
          known_site_ranges(p.clipped, genome.known_sites[t], genome.max_site_span[t], p.known);
          p.read_group = rg;
        }
      });
  ChunkDescriptors d;
  d.base_begin = reads.seq_offset[first];
  d.base_end = reads.seq_offset[last];
  std::vector<std::size_t> slot(prepared.size());  // index among the counted reads
  std::size_t counted = 0;
  for (std::size_t k = 0; k < prepared.size(); ++k) {
    const PreparedRead& p = prepared[k];
    if (p.read_group < 0) continue;
    slot[k] = counted++;
    d.cigar_offset.push_back(d.cigar_offset.back() +
                             static_cast<std::uint32_t>(p.clipped.cigar.size()));
    d.known_offset.push_back(d.known_offset.back() + static_cast<std::uint32_t>(p.known.size()));
  }
  d.first_base.resize(counted);
  d.length.resize(counted);
  d.read_group.resize(counted);
  d.strand.resize(counted);
  d.contig.resize(counted);
  d.ref_start.resize(counted);
  d.cigar.resize(d.cigar_offset.back());
  d.known.resize(2 * static_cast<std::size_t>(d.known_offset.back()));
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, prepared.size(), 4096),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        for (std::size_t k = range.begin(); k != range.end(); ++k) {
          const PreparedRead& p = prepared[k];
          if (p.read_group < 0) continue;
          const std::size_t i = first + k;
          const std::size_t s = slot[k];
          const std::uint16_t f = reads.flag[i];
          d.first_base[s] =
              reads.seq_offset[i] - d.base_begin + static_cast<std::uint64_t>(p.clipped.first);
          d.length[s] = static_cast<std::uint32_t>(p.clipped.length);
          d.read_group[s] = p.read_group;
          d.strand[s] = static_cast<std::uint8_t>(
              ((f & io::flag::kReverse) ? kb::kReverseStrand : 0) |
              ((f & io::flag::kPaired) && (f & io::flag::kSecondOfPair) ? kb::kSecondOfPair : 0));
          d.contig[s] = reads.tid[i];
          d.ref_start[s] = p.clipped.start;
          std::copy(p.clipped.cigar.begin(), p.clipped.cigar.end(),
                    d.cigar.begin() + d.cigar_offset[s]);
          std::uint32_t* known = d.known.data() + 2 * static_cast<std::size_t>(d.known_offset[s]);
          for (const auto& [lo, hi] : p.known) {
            *known++ = static_cast<std::uint32_t>(lo);
            *known++ = static_cast<std::uint32_t>(hi);
          }
        }
      });
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
  RecalTables tables(shape.read_groups, options);
  for (int rg = 0; rg < shape.read_groups; ++rg) {
    for (int q = 0; q < kQualCount; ++q) {
      const std::size_t rq =
          static_cast<std::size_t>(rg) * kQualCount + static_cast<std::size_t>(q);
      if (counts.quality_observations[rq] != 0)
        tables.quality(rg, q, kMismatch)
            .add(static_cast<std::int64_t>(counts.quality_observations[rq]),
                 static_cast<double>(counts.quality_errors[rq]));
      for (int key = 0; key < shape.context_slots; ++key) {
        const std::size_t bin =
            rq * static_cast<std::size_t>(shape.context_slots) + static_cast<std::size_t>(key);
        if (counts.context_observations[bin] != 0)
          tables.context(rg, q, key, kMismatch)
              .add(static_cast<std::int64_t>(counts.context_observations[bin]),
                   static_cast<double>(counts.context_errors[bin]));
      }
      for (int key = 0; key < shape.cycle_slots; ++key) {
        const std::size_t bin =
            rq * static_cast<std::size_t>(shape.cycle_slots) + static_cast<std::size_t>(key);
        if (counts.cycle_observations[bin] != 0)
          tables.cycle(rg, q, key, kMismatch)
              .add(static_cast<std::int64_t>(counts.cycle_observations[bin]),
                   static_cast<double>(counts.cycle_errors[bin]));
      }
    }
  }
  tables.finalize();
  return tables;
}

}  // namespace

RecalTables count_covariates_with_kernels(const io::ReadBatch& reads, const io::Header& header,
                                          const GenomeContext& genome,
                                          const CovariateOptions& options, kernels::Backend backend,
                                          kernels::bqsr::CountingMethod method) {
  const ReadGroupKeys keys = read_group_keys(header);
  if (keys.identifiers.empty())
    throw Error("the input has no @RG read group in its header; BQSR needs read groups");
  const kb::CountingShape shape{static_cast<int>(keys.identifiers.size()),
                                options.mismatches_context_size, options.low_quality_tail,
                                context_key_count(options.mismatches_context_size),
                                cycle_key_count(options.maximum_cycle_value)};
  std::vector<std::span<const char>> contigs;
  for (const std::string& bases : genome.contig_bases) contigs.emplace_back(bases);
  kb::CovariateCounter counter(shape, contigs, backend, method);
  const std::vector<std::size_t> starts = chunk_starts(reads);
  if (starts.size() > 1) {
    ChunkDescriptors current =
        describe_chunk(reads, starts[0], starts[1], header, genome, options, keys);
    for (std::size_t c = 0; c + 1 < starts.size(); ++c) {
      ChunkDescriptors next;
      oneapi::tbb::task_group describing;
      if (c + 2 < starts.size()) {
        describing.run([&] {
          next = describe_chunk(reads, starts[c + 1], starts[c + 2], header, genome, options, keys);
        });
      }
      try {
        counter.count(current.view(reads));
      } catch (...) {
        describing.wait();
        throw;
      }
      describing.wait();
      current = std::move(next);
    }
  }
  return tables_from_counts(counter.finish(), shape, options);
}

}  // namespace gpp::stages::bqsr
