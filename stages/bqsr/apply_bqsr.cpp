// ApplyBQSR; see apply_bqsr.hpp.
#include "stages/bqsr/apply_bqsr.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "io/aux_fields.hpp"
#include "kernels/error.hpp"
#include "stages/bqsr/covariates.hpp"
#include "stages/bqsr/quantization.hpp"
#include "stages/bqsr/recal_math.hpp"

namespace gpp::stages::bqsr {

namespace {

constexpr int kMismatch = static_cast<int>(EventType::kMismatch);

/// Empirical qualities precomputed per bin with the prior the hierarchy gives it (each bin is
/// always reached with the same prior, so GATK's per-datum cache holds exactly these values).
struct Posteriors {
  std::vector<double> y1;             ///< per read group; NaN when the read group has no M bin
  std::vector<double> y2;             ///< per (rg, q)
  std::vector<double> context_delta;  ///< per (rg, q, key); NaN when absent
  std::vector<double> cycle_delta;    ///< per (rg, q, key); NaN when absent
};

Posteriors compute_posteriors(const RecalTables& tables, double global_prior) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int rgs = tables.read_group_count();
  const int ctx_slots = context_key_count(tables.options().mismatches_context_size);
  Posteriors p;
  p.y1.assign(static_cast<std::size_t>(rgs), nan);
  p.y2.assign(static_cast<std::size_t>(rgs) * kQualCount, nan);
  p.context_delta.assign(
      static_cast<std::size_t>(rgs) * kQualCount * static_cast<std::size_t>(ctx_slots), nan);
  p.cycle_delta.assign(
      static_cast<std::size_t>(rgs) * kQualCount * static_cast<std::size_t>(tables.cycle_slots()),
      nan);
  for (int rg = 0; rg < rgs; ++rg) {
    const RecalBin& rg_bin = tables.read_group(rg, kMismatch);
    if (!rg_bin.present) continue;
    const double prior = global_prior > 0.0 ? global_prior : rg_bin.estimated_quality;
    const double y1 = empirical_quality(rg_bin.observations, rg_bin.errors(), prior);
    p.y1[static_cast<std::size_t>(rg)] = y1;
    for (int q = 0; q < kQualCount; ++q) {
      const RecalBin& q_bin = tables.quality(rg, q, kMismatch);
      const double y2 =
          q_bin.present ? empirical_quality(q_bin.observations, q_bin.errors(), y1) : y1;
      const std::size_t rq =
          static_cast<std::size_t>(rg) * kQualCount + static_cast<std::size_t>(q);
      p.y2[rq] = y2;
      for (int key = 0; key < ctx_slots; ++key) {
        const RecalBin& bin = tables.context(rg, q, key, kMismatch);
        if (bin.present)
          p.context_delta[rq * static_cast<std::size_t>(ctx_slots) +
                          static_cast<std::size_t>(key)] =
              empirical_quality(bin.observations, bin.errors(), y2) - y2;
      }
      for (int key = 0; key < tables.cycle_slots(); ++key) {
        const RecalBin& bin = tables.cycle(rg, q, key, kMismatch);
        if (bin.present)
          p.cycle_delta[rq * static_cast<std::size_t>(tables.cycle_slots()) +
                        static_cast<std::size_t>(key)] =
              empirical_quality(bin.observations, bin.errors(), y2) - y2;
      }
    }
  }
  return p;
}

/// The aux bytes of a record without BI and BD, with OQ appended when asked and absent.
void rewrite_aux(std::span<const std::uint8_t> aux, std::span<const std::uint8_t> original_quals,
                 bool emit_oq, io::Column<std::uint8_t>& out) {
  const std::uint8_t* p = aux.data();
  const std::uint8_t* end = aux.data() + aux.size();
  bool has_oq = false;
  while (p < end) {
    const std::size_t size = io::aux_field_size(p, end);
    if (size == 0) {  // malformed tail: keep it as it is
      out.insert(out.end(), p, end);
      break;
    }
    const bool bi_bd = p[0] == 'B' && (p[1] == 'I' || p[1] == 'D');
    if (p[0] == 'O' && p[1] == 'Q') has_oq = true;
    if (!bi_bd) out.insert(out.end(), p, p + size);
    p += size;
  }
  if (emit_oq && !has_oq) {
    out.push_back('O');
    out.push_back('Q');
    out.push_back('Z');
    for (const std::uint8_t q : original_quals) out.push_back(static_cast<std::uint8_t>(q + 33));
    out.push_back(0);
  }
}

}  // namespace

AppliedQualities apply_recalibration(const io::ReadBatch& reads, const io::Header& header,
                                     const RecalibrationReport& report,
                                     const ApplyOptions& options) {
  const RecalTables& tables = report.tables;
  const CovariateOptions& covariate_options = tables.options();
  const Posteriors posteriors = compute_posteriors(tables, options.global_qscore_prior);
  std::vector<int> quantized(kQualCount);
  if (options.quantize_quals == 0) {
    for (int q = 0; q < kQualCount; ++q) quantized[static_cast<std::size_t>(q)] = q;
  } else if (options.quantize_quals > 0 &&
             options.quantize_quals != covariate_options.quantizing_levels) {
    quantized = quantize_qualities(report.quantization_counts, options.quantize_quals);
  } else {
    quantized = report.quantized_quals;
  }
  const std::vector<int> static_map =
      static_quantization_map(options.static_quantized_quals, options.round_down_quantized);
  // Report read-group key of every header read group (-1 when the report lacks it).
  std::unordered_map<std::string, int> report_rg;
  for (std::size_t k = 0; k < report.read_groups.size(); ++k)
    report_rg.emplace(report.read_groups[k], static_cast<int>(k));
  std::vector<int> rg_key;
  for (const io::ReadGroup& rg : header.read_groups()) {
    const auto it = report_rg.find(read_group_identifier(rg));
    rg_key.push_back(it == report_rg.end() ? -1 : it->second);
  }
  const int ctx_size = covariate_options.mismatches_context_size;
  const std::size_t ctx_slots = static_cast<std::size_t>(context_key_count(ctx_size));
  const std::size_t cycle_slots = static_cast<std::size_t>(tables.cycle_slots());

  AppliedQualities result;
  result.qual.assign(reads.qual.begin(), reads.qual.end());
  struct Scratch {
    std::vector<int> context;
    std::vector<int> cycle;
    std::vector<std::uint8_t> oq;
  };
  oneapi::tbb::enumerable_thread_specific<Scratch> scratch;
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, reads.size(), 1024),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        Scratch& local = scratch.local();
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
          const std::size_t length = reads.seq_length(i);
          if (length == 0 || reads.read_qual(i)[0] == 0xFF) continue;
          std::uint8_t* quals = result.qual.data() + reads.seq_offset[i];
          if (options.use_original_qualities) {
            const std::uint8_t* oq = io::find_aux_field(reads.read_aux(i), "OQ");
            if (oq != nullptr && oq[0] == 'Z' &&
                std::strlen(reinterpret_cast<const char*>(oq + 1)) == length) {
              for (std::size_t k = 0; k < length; ++k)
                quals[k] = static_cast<std::uint8_t>(oq[1 + k] - 33);
            }
          }
          const std::int32_t header_rg = reads.read_group[i];
          const int rg = header_rg < 0 ? -1 : rg_key[static_cast<std::size_t>(header_rg)];
          if (rg < 0) {
            if (!options.allow_missing_read_group) {
              throw Error("read " + std::string(reads.read_name(i)) +
                          " has a read group that is not in the recalibration table (or none); use "
                          "--allow-missing-read-group to only quantize such reads");
            }
            for (std::size_t k = 0; k < length; ++k)
              quals[k] = static_cast<std::uint8_t>(
                  quantized[std::min<std::size_t>(quals[k], kQualCount - 1)]);
            continue;
          }
          const double y1 = posteriors.y1[static_cast<std::size_t>(rg)];
          if (std::isnan(y1)) continue;
          const std::uint16_t f = reads.flag[i];
          const CovariateRead read{reads.read_seq(i), std::span<const std::uint8_t>(quals, length),
                                   static_cast<bool>(f & io::flag::kReverse),
                                   (f & io::flag::kPaired) && (f & io::flag::kSecondOfPair)};
          context_keys(read, ctx_size, covariate_options.low_quality_tail, local.context);
          cycle_keys(read, covariate_options.maximum_cycle_value, local.cycle, nullptr);
          for (std::size_t k = 0; k < length; ++k) {
            const int q = quals[k];
            if (q < options.preserve_qscores_less_than) continue;
            const std::size_t rq = static_cast<std::size_t>(rg) * kQualCount +
                                   static_cast<std::size_t>(std::min(q, kQualCount - 1));
            const double y2 = posteriors.y2[rq];
            double delta = 0.0;
            if (local.context[k] >= 0) {
              const double d =
                  posteriors
                      .context_delta[rq * ctx_slots + static_cast<std::size_t>(local.context[k])];
              if (!std::isnan(d)) delta += d;
            }
            const double d =
                posteriors.cycle_delta[rq * cycle_slots + static_cast<std::size_t>(local.cycle[k])];
            if (!std::isnan(d)) delta += d;
            const std::int64_t rounded =
                std::clamp<std::int64_t>(fast_round(y2 + delta), 1, kMaxRecalibratedQ);
            quals[k] = static_cast<std::uint8_t>(
                static_map[static_cast<std::size_t>(quantized[static_cast<std::size_t>(rounded)])]);
          }
        }
      });
  // Aux fields: BI/BD removed, OQ added (serial: the output is one flat buffer).
  result.aux.reserve(reads.aux.size());
  result.aux_offset.push_back(0);
  for (std::size_t i = 0; i < reads.size(); ++i) {
    std::span<const std::uint8_t> original = reads.read_qual(i);
    const bool emit = options.emit_original_quals && !original.empty() && original[0] != 0xFF;
    rewrite_aux(reads.read_aux(i), original, emit, result.aux);
    result.aux_offset.push_back(result.aux.size());
  }
  return result;
}

}  // namespace gpp::stages::bqsr
