// The per-base rules of GATK BQSR, written once so that the CPU stages (stages/bqsr), the host
// preparation of the GPU work and the CUDA kernels cannot drift apart: base codes, the Context and
// Cycle covariate keys of one base, the low-quality tails, and ApplyBQSR's new quality of one base
// from precomputed posteriors. Compiles as host code and, under nvcc, as host+device code.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace gpp::kernels::bqsr {

/// Size of the quality axis of the tables (qualities 0..93).
inline constexpr int kQualCount = 94;
/// htsjdk SAMUtils.MAX_PHRED_SCORE: recalibrated qualities are bounded to 1..93.
inline constexpr int kMaxRecalibratedQ = 93;
/// QualityUtils.MIN_USABLE_Q_SCORE: bases below it are not counted.
inline constexpr int kMinUsableQ = 6;

/// Per-read strand bits of the descriptors the kernels take.
inline constexpr std::uint8_t kReverseStrand = 1;
inline constexpr std::uint8_t kSecondOfPair = 2;  ///< paired and second of pair: negative cycles

/// BaseUtils.simpleBaseToBaseIndex: A/C/G/T in either case to 0-3, anything else to -1.
GPP_HD_INLINE int base_code(char base) {
  switch (base) {
    case 'A':
    case 'a':
      return 0;
    case 'C':
    case 'c':
      return 1;
    case 'G':
    case 'g':
      return 2;
    case 'T':
    case 't':
      return 3;
    default:
      return -1;
  }
}

/// Double addition rounded to nearest, never fused with a neighbouring multiply (the host and the
/// GPU must produce the same bits).
GPP_HD_INLINE double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

/// ReadClipper.clipLowQualEnds(WRITE_NS) bounds: bases outside [first_good, last_good] count as
/// N; first_good > last_good when every base is in a tail.
struct GoodBases {
  int first_good = 0;
  int last_good = -1;
};

/// The leading and trailing runs of quality <= low_quality_tail, computed serially (host).
inline GoodBases good_bases(const std::uint8_t* quals, int length, int low_quality_tail) {
  GoodBases g;
  g.first_good = 0;
  while (g.first_good < length && quals[g.first_good] <= low_quality_tail) ++g.first_good;
  g.last_good = length - 1;
  while (g.last_good >= 0 && quals[g.last_good] <= low_quality_tail) --g.last_good;
  return g;
}

/**
 * @brief ContextCovariate key of the base at read offset `offset`: the `size` bases ending there in
 * sequencing order (the read reverse-complemented on the negative strand), A=0 C=1 G=2 T=3 with
 * the first base most significant; -1 when fewer than `size` bases precede it or one of them is
 * not ACGT or lies in a low-quality tail.
 */
GPP_HD_INLINE int context_key_at(const char* bases, int length, GoodBases good, bool reverse,
                                 int size, int offset) {
  int key = 0;
  if (!reverse) {
    const int from = offset - size + 1;
    if (from < 0 || from < good.first_good || offset > good.last_good) return -1;
    for (int j = from; j <= offset; ++j) {
      const int b = base_code(bases[j]);
      if (b < 0) return -1;
      key = (key << 2) | b;
    }
  } else {
    const int to = offset + size - 1;  // the earliest base in sequencing order
    if (to >= length || offset < good.first_good || to > good.last_good) return -1;
    for (int j = to; j >= offset; --j) {
      const int b = base_code(bases[j]);
      if (b < 0) return -1;
      key = (key << 2) | (3 - b);
    }
  }
  return key;
}

/// CycleCovariate's key of a (signed) cycle: |cycle| << 1 | (cycle < 0).
GPP_HD_INLINE int cycle_key(int cycle) { return cycle < 0 ? ((-cycle) << 1) | 1 : cycle << 1; }

/// CycleCovariate key of read offset `offset`: cycle = offset + 1 forward, length - offset
/// reverse, negated for the second of a pair. The caller has checked that length <=
/// maximum_cycle_value.
GPP_HD_INLINE int cycle_key_at(int length, std::uint8_t strand, int offset) {
  const int magnitude = (strand & kReverseStrand) ? length - offset : offset + 1;
  return cycle_key((strand & kSecondOfPair) ? -magnitude : magnitude);
}

/// MathUtils.fastRound.
GPP_HD_INLINE long long fast_round(double d) {
  return d > 0.0 ? static_cast<long long>(add_rn(d, 0.5)) : static_cast<long long>(add_rn(d, -0.5));
}

/// ApplyBQSR's tables after the empirical qualities were computed (stages/bqsr/apply_bqsr.cpp):
/// posterior y2 per (read group, quality) and the context and cycle deltas (NaN: bin absent).
struct PosteriorTables {
  const double* y2 = nullptr;                ///< [rg * 94 + q]
  const double* context_delta = nullptr;     ///< [(rg * 94 + q) * context_slots + key]
  const double* cycle_delta = nullptr;       ///< [(rg * 94 + q) * cycle_slots + key]
  const std::int32_t* quantized = nullptr;   ///< 94 entries
  const std::int32_t* static_map = nullptr;  ///< 254 entries
  int context_slots = 0;
  int cycle_slots = 0;
  int preserve_below = 6;
};

/// BQSRReadTransformer: the recalibrated quality of one base (read group `rg` in the tables)
/// from its reported quality and covariate keys: Q = y2 + context delta + cycle delta (absent
/// bins add nothing, in this order), then clamp(fastRound(Q), 1, 93), quantized, statically mapped.
/// Qualities below the preserve threshold are returned unchanged.
GPP_HD_INLINE std::uint8_t recalibrated_quality(const PosteriorTables& t, int rg, int quality,
                                                int context_key, int cycle_key) {
  if (quality < t.preserve_below) return static_cast<std::uint8_t>(quality);
  const long long rq =
      static_cast<long long>(rg) * kQualCount + (quality < kQualCount ? quality : kQualCount - 1);
  const double y2 = t.y2[rq];
  double delta = 0.0;
  if (context_key >= 0) {
    const double d = t.context_delta[rq * t.context_slots + context_key];
    if (d == d) delta = add_rn(delta, d);  // d == d: not NaN
  }
  const double d = t.cycle_delta[rq * t.cycle_slots + cycle_key];
  if (d == d) delta = add_rn(delta, d);
  long long rounded = fast_round(add_rn(y2, delta));
  if (rounded < 1) rounded = 1;
  if (rounded > kMaxRecalibratedQ) rounded = kMaxRecalibratedQ;
  return static_cast<std::uint8_t>(t.static_map[t.quantized[rounded]]);
}

}  // namespace gpp::kernels::bqsr
