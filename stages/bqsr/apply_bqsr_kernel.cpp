// ApplyBQSR through the batch kernels; see apply_bqsr_kernel.hpp.
#include "stages/bqsr/apply_bqsr_kernel.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/bqsr/bqsr.hpp"
#include "stages/bqsr/covariates.hpp"

namespace gpp::stages::bqsr {

namespace kb = kernels::bqsr;

KernelRecalibration::KernelRecalibration(const ApplySetup& setup, const ApplyOptions& options,
                                         kernels::Backend backend)
    : setup_(setup),
      options_(options),
      quantized_(setup.quantized.begin(), setup.quantized.end()),
      static_map_(setup.static_map.begin(), setup.static_map.end()) {
  const kb::RecalibrationModel model{static_cast<int>(setup.y1.size()),
                                     setup.context_size,
                                     setup.low_quality_tail,
                                     options.preserve_qscores_less_than,
                                     static_cast<int>(setup.context_slots),
                                     static_cast<int>(setup.cycle_slots),
                                     setup.y2,
                                     setup.context_delta,
                                     setup.cycle_delta,
                                     quantized_,
                                     static_map_};
  engine_ = std::make_unique<kb::QualityRecalibration>(model, backend);
}

KernelRecalibration::~KernelRecalibration() = default;

void KernelRecalibration::recalibrate(const io::ReadBatch& reads, io::Column<std::uint8_t>& qual,
                                      PhaseTimes* times) {
  const ApplySetup& setup = setup_;
  const ApplyOptions& options = options_;
  const std::size_t n = reads.size();
  std::optional<ScopedPhase> phase(std::in_place, times, "descriptors (cpu)");
  std::vector<std::int32_t> read_group(n);
  std::vector<std::uint8_t> strand(n);
  // -OQ: the kernel recalibrates a copy of the stored qualities with OQ substituted.
  io::Column<std::uint8_t> original_qualities;
  if (options.use_original_qualities)
    original_qualities.assign(reads.qual.begin(), reads.qual.end());
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, n, 4096),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        std::vector<int> cycle;
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
          read_group[i] = kb::kKeepQualities;
          strand[i] = 0;
          const std::size_t length = reads.seq_length(i);
          if (length == 0 || reads.read_qual(i)[0] == 0xFF) continue;
          if (options.use_original_qualities)
            substitute_original_qualities(reads, i,
                                          original_qualities.data() + reads.seq_offset[i]);
          const std::int32_t header_rg = reads.read_group[i];
          const int rg = header_rg < 0 ? -1 : setup.rg_key[static_cast<std::size_t>(header_rg)];
          if (rg < 0) {
            if (!options.allow_missing_read_group) throw_missing_read_group(reads.read_name(i));
            read_group[i] = kb::kQuantizeOnly;
            continue;
          }
          if (std::isnan(setup.y1[static_cast<std::size_t>(rg)])) continue;
          const std::uint16_t f = reads.flag[i];
          const bool reverse = f & io::flag::kReverse;
          const bool second = (f & io::flag::kPaired) && (f & io::flag::kSecondOfPair);
          if (length > static_cast<std::size_t>(setup.maximum_cycle_value)) {
            // The CPU path's error, word for word.
            cycle_keys({reads.read_seq(i), reads.read_qual(i), reverse, second},
                       setup.maximum_cycle_value, cycle, nullptr);
          }
          read_group[i] = rg;
          strand[i] = static_cast<std::uint8_t>((reverse ? kb::kReverseStrand : 0) |
                                                (second ? kb::kSecondOfPair : 0));
        }
      });
  const io::Column<std::uint8_t>& input =
      options.use_original_qualities ? original_qualities : reads.qual;
  qual.resize(reads.qual.size());
  phase.emplace(times, "qualities (kernel, transfers included)");
  engine_->recalibrate({reads.seq, input, reads.seq_offset, read_group, strand}, qual);
}

void recalibrate_with_kernels(const io::ReadBatch& reads, const ApplySetup& setup,
                              const ApplyOptions& options, kernels::Backend backend,
                              io::Column<std::uint8_t>& qual, PhaseTimes* times) {
  KernelRecalibration(setup, options, backend).recalibrate(reads, qual, times);
}

}  // namespace gpp::stages::bqsr
