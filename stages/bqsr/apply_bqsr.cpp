// ApplyBQSR; see apply_bqsr.hpp. The CPU path lives here; the kernel path in apply_bqsr_kernel.cpp.
#include "stages/bqsr/apply_bqsr.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "stages/bqsr/apply_bqsr_kernel.hpp"
#include "stages/bqsr/apply_setup.hpp"
#include "stages/bqsr/aux_rewrite.hpp"
#include "stages/bqsr/covariates.hpp"
#include "stages/bqsr/recal_math.hpp"

namespace gpp::stages::bqsr {

namespace {

/// The CPU path: context and cycle keys of a read at a time, then every base.
void recalibrate_on_cpu(const io::ReadBatch& reads, const ApplySetup& setup,
                        const ApplyOptions& options, io::Column<std::uint8_t>& qual) {
  qual.resize(reads.qual.size());  // every record copies its qualities below, in parallel
  struct Scratch {
    std::vector<int> context;
    std::vector<int> cycle;
  };
  oneapi::tbb::enumerable_thread_specific<Scratch> scratch;
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, reads.size(), 1024),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        Scratch& local = scratch.local();
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
          const std::size_t length = reads.seq_length(i);
          std::uint8_t* quals = qual.data() + reads.seq_offset[i];
          std::copy_n(reads.qual.data() + reads.seq_offset[i], length, quals);
          if (length == 0 || reads.read_qual(i)[0] == 0xFF) continue;
          if (options.use_original_qualities) substitute_original_qualities(reads, i, quals);
          const std::int32_t header_rg = reads.read_group[i];
          const int rg = header_rg < 0 ? -1 : setup.rg_key[static_cast<std::size_t>(header_rg)];
          if (rg < 0) {
            if (!options.allow_missing_read_group) throw_missing_read_group(reads.read_name(i));
            for (std::size_t k = 0; k < length; ++k)
              quals[k] = static_cast<std::uint8_t>(
                  setup.quantized[std::min<std::size_t>(quals[k], kQualCount - 1)]);
            continue;
          }
          if (std::isnan(setup.y1[static_cast<std::size_t>(rg)])) continue;
          const std::uint16_t f = reads.flag[i];
          const CovariateRead read{reads.read_seq(i), std::span<const std::uint8_t>(quals, length),
                                   static_cast<bool>(f & io::flag::kReverse),
                                   (f & io::flag::kPaired) && (f & io::flag::kSecondOfPair)};
          context_keys(read, setup.context_size, setup.low_quality_tail, local.context);
          cycle_keys(read, setup.maximum_cycle_value, local.cycle, nullptr);
          for (std::size_t k = 0; k < length; ++k) {
            const int q = quals[k];
            if (q < options.preserve_qscores_less_than) continue;
            const std::size_t rq = static_cast<std::size_t>(rg) * kQualCount +
                                   static_cast<std::size_t>(std::min(q, kQualCount - 1));
            const double y2 = setup.y2[rq];
            double delta = 0.0;
            if (local.context[k] >= 0) {
              const double d = setup.context_delta[rq * setup.context_slots +
                                                   static_cast<std::size_t>(local.context[k])];
              if (!std::isnan(d)) delta += d;
            }
            const double d =
                setup
                    .cycle_delta[rq * setup.cycle_slots + static_cast<std::size_t>(local.cycle[k])];
            if (!std::isnan(d)) delta += d;
            const std::int64_t rounded =
                std::clamp<std::int64_t>(fast_round(y2 + delta), 1, kMaxRecalibratedQ);
            quals[k] = static_cast<std::uint8_t>(setup.static_map[static_cast<std::size_t>(
                setup.quantized[static_cast<std::size_t>(rounded)])]);
          }
        }
      });
}

}  // namespace

QualityRecalibrator::QualityRecalibrator(const io::Header& header,
                                         const RecalibrationReport& report,
                                         const ApplyOptions& options, kernels::Backend backend)
    : setup_(std::make_unique<const ApplySetup>(prepare_apply(header, report, options))),
      options_(options) {
  if (backend == kernels::Backend::kGpu)
    kernels_ = std::make_unique<KernelRecalibration>(*setup_, options, backend);
}

QualityRecalibrator::~QualityRecalibrator() = default;

void QualityRecalibrator::compute(const io::ReadBatch& reads, AppliedQualities& into,
                                  PhaseTimes* times) const {
  if (kernels_) {
    kernels_->recalibrate(reads, into.qual, times);
  } else {
    const ScopedPhase phase(times, "qualities (cpu)");
    recalibrate_on_cpu(reads, *setup_, options_, into.qual);
  }
  const ScopedPhase phase(times, "aux rewrite (cpu)");
  rewrite_aux_fields(reads, options_.emit_original_quals, into.aux, into.aux_offset);
}

AppliedQualities QualityRecalibrator::apply(const io::ReadBatch& reads, PhaseTimes* times) const {
  AppliedQualities result;
  compute(reads, result, times);
  return result;
}

void QualityRecalibrator::apply_in_place(io::ReadBatch& reads, PhaseTimes* times) {
  // The batch's old columns become the spare ones: the next batch is written into memory that is
  // already there instead of gigabytes of fresh pages.
  compute(reads, spare_, times);
  std::swap(reads.qual, spare_.qual);
  std::swap(reads.aux, spare_.aux);
  std::swap(reads.aux_offset, spare_.aux_offset);
}

RecalibratorPool::RecalibratorPool(const io::Header& header, RecalibrationReport report,
                                   const ApplyOptions& options, kernels::Backend backend,
                                   std::size_t most)
    : header_(header.clone()),
      report_(std::move(report)),
      options_(options),
      backend_(backend),
      most_(std::max<std::size_t>(1, most)) {
  idle_.push_back(std::make_unique<QualityRecalibrator>(header_, report_, options_, backend_));
  made_ = 1;
}

RecalibratorPool::~RecalibratorPool() = default;

std::size_t RecalibratorPool::most_within(std::uint64_t memory_bytes, std::uint64_t batch_bytes) {
  // Bases and qualities are about half of a batch's bytes.
  const std::uint64_t bases = batch_bytes / 2;
  constexpr std::uint64_t kMostStagedBases = std::uint64_t{2} << 26;  // two launches
  const std::uint64_t held = 3 * std::min(bases, kMostStagedBases) + bases;
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(
      memory_bytes / 16 / std::max<std::uint64_t>(held, 1), 1, kDefaultMost));
}

void RecalibratorPool::apply_in_place(io::ReadBatch& reads, PhaseTimes* times) {
  std::unique_ptr<QualityRecalibrator> recalibrator = borrow();
  try {
    recalibrator->apply_in_place(reads, times);
  } catch (...) {
    give_back(std::move(recalibrator));
    throw;
  }
  give_back(std::move(recalibrator));
}

std::unique_ptr<QualityRecalibrator> RecalibratorPool::borrow() {
  std::unique_lock lock(mutex_);
  if (idle_.empty() && made_ < most_) {
    ++made_;
    lock.unlock();
    try {
      return std::make_unique<QualityRecalibrator>(header_, report_, options_, backend_);
    } catch (...) {
      const std::lock_guard relock(mutex_);
      --made_;
      throw;
    }
  }
  returned_.wait(lock, [&] { return !idle_.empty(); });
  std::unique_ptr<QualityRecalibrator> recalibrator = std::move(idle_.back());
  idle_.pop_back();
  return recalibrator;
}

void RecalibratorPool::give_back(std::unique_ptr<QualityRecalibrator> recalibrator) {
  {
    const std::lock_guard lock(mutex_);
    idle_.push_back(std::move(recalibrator));
  }
  returned_.notify_one();
}

AppliedQualities apply_recalibration(const io::ReadBatch& reads, const io::Header& header,
                                     const RecalibrationReport& report, const ApplyOptions& options,
                                     kernels::Backend backend, PhaseTimes* times) {
  std::optional<QualityRecalibrator> recalibrator;
  {
    const ScopedPhase phase(times, "set-up (posteriors)");
    recalibrator.emplace(header, report, options, backend);
  }
  return recalibrator->apply(reads, times);
}

}  // namespace gpp::stages::bqsr
