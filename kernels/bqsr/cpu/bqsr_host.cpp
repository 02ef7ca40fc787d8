// Host backend of the BQSR kernels: the per-base rules of bqsr_core.hpp driven read by read with
// oneTBB. It is the model the CUDA kernels are tested against on machines without a GPU.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>

#include "core/cigar.hpp"
#include "kernels/bqsr/bqsr.hpp"
#include "kernels/bqsr/detail/backends.hpp"

namespace gpp::kernels::bqsr::detail {

namespace {

/// M, = and X: a base compared with the reference.
bool aligned(CigarOp op) { return consumes_query(op) && consumes_reference(op); }

bool masked(const CountingChunk& chunk, std::size_t i, std::uint32_t offset) {
  for (std::uint32_t j = chunk.known_offset[i]; j < chunk.known_offset[i + 1]; ++j) {
    if (offset >= chunk.known[2 * j] && offset < chunk.known[2 * j + 1]) return true;
  }
  return false;
}

void count_read(const CountingShape& shape, std::span<const char> contig,
                const CountingChunk& chunk, std::size_t i, CovariateCounts& counts) {
  const int length = static_cast<int>(chunk.length[i]);
  const char* bases = chunk.bases.data() + chunk.first_base[i];
  const std::uint8_t* quals = chunk.quals.data() + chunk.first_base[i];
  const GoodBases good = good_bases(quals, length, shape.low_quality_tail);
  const std::uint8_t strand = chunk.strand[i];
  const long long rg = chunk.read_group[i];
  auto count_base = [&](int offset, bool mismatch) {
    const int q = quals[offset];
    if (base_code(bases[offset]) < 0 || q < kMinUsableQ ||
        masked(chunk, i, static_cast<std::uint32_t>(offset)))
      return;
    const long long rq = rg * kQualCount + std::min(q, kQualCount - 1);
    const int context =
        context_key_at(bases, length, good, strand & kReverseStrand, shape.context_size, offset);
    const int cycle = cycle_key_at(length, strand, offset);
    counts.quality_observations[rq] += 1;
    counts.quality_errors[rq] += mismatch;
    if (context >= 0) {
      counts.context_observations[rq * shape.context_slots + context] += 1;
      counts.context_errors[rq * shape.context_slots + context] += mismatch;
    }
    counts.cycle_observations[rq * shape.cycle_slots + cycle] += 1;
    counts.cycle_errors[rq * shape.cycle_slots + cycle] += mismatch;
  };
  int read_pos = 0;
  std::int64_t ref_pos = chunk.ref_start[i];
  for (std::uint32_t c = chunk.cigar_offset[i]; c < chunk.cigar_offset[i + 1]; ++c) {
    const CigarOp op = cigar_op(chunk.cigar[c]);
    const int op_length = static_cast<int>(cigar_length(chunk.cigar[c]));
    if (consumes_query(op)) {
      for (int k = 0; k < op_length; ++k) {
        bool mismatch = false;
        if (aligned(op)) {
          const std::int64_t r = ref_pos + k;
          const char ref = r < static_cast<std::int64_t>(contig.size()) ? contig[r] : 'N';
          mismatch = base_code(bases[read_pos + k]) != base_code(ref);
        }
        count_base(read_pos + k, mismatch);
      }
      read_pos += op_length;
    }
    if (consumes_reference(op)) ref_pos += op_length;
  }
}

void add_into(std::vector<std::uint64_t>& into, const std::vector<std::uint64_t>& from) {
  for (std::size_t k = 0; k < into.size(); ++k) into[k] += from[k];
}

}  // namespace

CovariateCounts empty_counts(const CountingShape& shape) {
  const std::size_t rq = static_cast<std::size_t>(shape.read_groups) * kQualCount;
  CovariateCounts c;
  c.quality_observations.assign(rq, 0);
  c.quality_errors.assign(rq, 0);
  c.context_observations.assign(rq * static_cast<std::size_t>(shape.context_slots), 0);
  c.context_errors.assign(rq * static_cast<std::size_t>(shape.context_slots), 0);
  c.cycle_observations.assign(rq * static_cast<std::size_t>(shape.cycle_slots), 0);
  c.cycle_errors.assign(rq * static_cast<std::size_t>(shape.cycle_slots), 0);
  return c;
}

void count_chunk_host(const CountingShape& shape, std::span<const std::span<const char>> contigs,
                      const CountingChunk& chunk, CovariateCounts& counts) {
  oneapi::tbb::enumerable_thread_specific<CovariateCounts> partial(
      [&] { return empty_counts(shape); });
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, chunk.size(), 1024),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        CovariateCounts& local = partial.local();
        for (std::size_t i = range.begin(); i != range.end(); ++i)
          count_read(shape, contigs[static_cast<std::size_t>(chunk.contig[i])], chunk, i, local);
      });
  for (const CovariateCounts& p : partial) {
    add_into(counts.quality_observations, p.quality_observations);
    add_into(counts.quality_errors, p.quality_errors);
    add_into(counts.context_observations, p.context_observations);
    add_into(counts.context_errors, p.context_errors);
    add_into(counts.cycle_observations, p.cycle_observations);
    add_into(counts.cycle_errors, p.cycle_errors);
  }
}

void recalibrate_qualities_host(const RecalibrationModel& model, const ApplyReads& reads,
                                std::span<std::uint8_t> out) {
  const PosteriorTables tables{model.y2.data(),          model.context_delta.data(),
                               model.cycle_delta.data(), model.quantized.data(),
                               model.static_map.data(),  model.context_slots,
                               model.cycle_slots,        model.preserve_below};
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, reads.read_group.size(), 1024),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
          const std::uint64_t begin = reads.offsets[i];
          const int length = static_cast<int>(reads.offsets[i + 1] - begin);
          const std::uint8_t* quals = reads.quals.data() + begin;
          std::uint8_t* result = out.data() + begin;
          const std::int32_t rg = reads.read_group[i];
          if (rg == kKeepQualities) {
            std::copy(quals, quals + length, result);
            continue;
          }
          if (rg == kQuantizeOnly) {
            for (int k = 0; k < length; ++k)
              result[k] = static_cast<std::uint8_t>(
                  model.quantized[std::min<int>(quals[k], kQualCount - 1)]);
            continue;
          }
          const char* bases = reads.bases.data() + begin;
          const GoodBases good = good_bases(quals, length, model.low_quality_tail);
          const std::uint8_t strand = reads.strand[i];
          for (int k = 0; k < length; ++k) {
            const int context =
                context_key_at(bases, length, good, strand & kReverseStrand, model.context_size, k);
            result[k] = recalibrated_quality(tables, rg, quals[k], context,
                                             cycle_key_at(length, strand, k));
          }
        }
      });
}

}  // namespace gpp::kernels::bqsr::detail
