// smith-waterman: GATK's pairwise aligner (SmithWatermanJavaAligner semantics), batched, with
// traceback to an alignment offset and a CIGAR, on the CPU or the GPU.
//
// The model (GATK utils/smithwaterman/SmithWatermanJavaAligner.java; GKL mirrors it):
//  - ref along rows i = 1..n, alt along columns j = 1..m, integer scores, affine gaps: a gap of
//    length k scores gap_open + (k-1) * gap_extend; a match scores `match`, a mismatch `mismatch`
//    (bytes compared as they are: N == N is a match, 'a' != 'A').
//  - No zero floor (this is not local alignment): scores are only clamped at -1e8.
//  - Row 0 and column 0 are 0 for SOFTCLIP and IGNORE, gap scores for INDEL and LEADING_INDEL.
//  - Ties in a cell: diagonal over insertion over deletion; a newly opened gap replaces the running
//    best gap only when strictly better, so on a tie the longer gap is kept.
//  - End cell: INDEL ends at (n, m). Otherwise the best score of the last column (the largest i on
//    a tie), then, except for LEADING_INDEL, a strictly better cell of the bottom row, or an equal
//    one closer to the diagonal.
//  - SOFTCLIP and IGNORE first look for alt as an exact substring of ref (its last occurrence) and
//    return <m>M at that offset without running the dynamic programming.
//  - Overhangs: SOFTCLIP clips them (S); IGNORE folds them into the first/last element and returns
//    offset p1 - p2 (may be negative); INDEL and LEADING_INDEL turn a leading one into D or I.
// Both backends return identical offsets and CIGARs.
//
// @code
//   SequencePairs pairs;
//   pairs.add("AAACCCCC", "CCCCC");
//   auto a = SmithWaterman(Backend::kCpu).align(pairs, kSwOriginalDefault,
//   OverhangStrategy::kIndel);
//   // a.offset(0) == 0, cigar_to_string(a.cigar(0)) == "3D5M"
// @endcode
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cigar.hpp"
#include "kernels/device/device.hpp"
#include "kernels/smith_waterman/detail/cigar_builder.hpp"

namespace gpp::kernels {

/// Scores of one alignment model (GATK SWParameters). Penalties are negative numbers.
struct SwParameters {
  std::int32_t match = 0;
  std::int32_t mismatch = 0;
  std::int32_t gap_open = 0;
  std::int32_t gap_extend = 0;
  friend bool operator==(const SwParameters&, const SwParameters&) = default;
};

// The parameter sets of GATK's SmithWatermanAlignmentConstants.
inline constexpr SwParameters kSwOriginalDefault{3, -1, -4, -3};       ///< tests only
inline constexpr SwParameters kSwStandardNgs{25, -50, -110, -6};       ///< dangling ends
inline constexpr SwParameters kSwNewParameters{200, -150, -260, -11};  ///< haplotype -> reference
inline constexpr SwParameters kSwReadToHaplotype{10, -15, -30, -5};    ///< read -> best haplotype

/// GATK SWOverhangStrategy: what becomes of alt bases hanging over either end of ref.
enum class OverhangStrategy { kSoftClip, kIndel, kLeadingIndel, kIgnore };

/// "SOFTCLIP", "INDEL", "LEADING_INDEL", "IGNORE".
const char* overhang_strategy_name(OverhangStrategy strategy);
/// Inverse of overhang_strategy_name; std::nullopt for anything else.
std::optional<OverhangStrategy> parse_overhang_strategy(std::string_view name);

/// Pairs of (reference, alternate) byte sequences in one flat buffer.
class SequencePairs {
 public:
  void reserve(std::size_t pairs, std::size_t bases);
  void add(std::string_view ref, std::string_view alt);
  std::size_t size() const { return starts_.size() / 2; }
  std::string_view ref(std::size_t i) const { return view(starts_[2 * i], starts_[2 * i + 1]); }
  std::string_view alt(std::size_t i) const {
    return view(starts_[2 * i + 1],
                2 * i + 2 < starts_.size() ? starts_[2 * i + 2] : bases_.size());
  }
  /// Sum over pairs of ref length x alt length: the cells of the dynamic-programming matrices.
  std::uint64_t cells() const;

 private:
  std::string_view view(std::uint64_t begin, std::uint64_t end) const {
    return {bases_.data() + begin, static_cast<std::size_t>(end - begin)};
  }
  std::vector<char> bases_;
  std::vector<std::uint64_t> starts_;  ///< ref start, alt start of each pair
};

/// Allocator whose resize(n) leaves trivial elements uninitialised: SmithWaterman::align writes
/// every element of its result arrays from all threads, and a serial zero fill first would fault in
/// tens of megabytes of fresh pages on one thread.
template <typename T>
struct SwDefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = SwDefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <typename T>
using SwVector = std::vector<T, SwDefaultInitAllocator<T>>;

/// Offsets and CIGARs of a batch, in input order.
struct SwAlignments {
  /// offset of a pair with no alignment (GATK throws for an empty sequence).
  static constexpr std::int32_t kNoAlignment = std::numeric_limits<std::int32_t>::min();

  SwVector<std::int32_t> offsets;
  SwVector<std::uint32_t> cigar_elements;  ///< all CIGARs, concatenated
  SwVector<std::uint64_t> cigar_starts;    ///< size() + 1 entries

  std::size_t size() const { return offsets.size(); }
  bool aligned(std::size_t i) const { return offsets[i] != kNoAlignment; }
  std::int32_t offset(std::size_t i) const { return offsets[i]; }
  std::span<const std::uint32_t> cigar(std::size_t i) const {
    return {cigar_elements.data() + cigar_starts[i],
            static_cast<std::size_t>(cigar_starts[i + 1] - cigar_starts[i])};
  }
};

/// Settings for measurements and tests; the defaults are the tuned values. (The command line tools
/// take overrides from GPP_SW_* variables: pipeline/tuning_overrides.hpp.)
struct SwTuning {
  /// CPU: the widest vector unit to use, "avx512", "avx2", "baseline" or "scalar" (a CPU without
  /// it uses the next narrower one).
  std::string cpu_isa = "avx512";
  /// GPU: traceback bytes of one chunk; 0: a third of the available device memory (free, within
  /// --gpu-memory), between 64 MiB and 16 GiB.
  std::uint64_t gpu_chunk_bytes = 0;
  /// GPU: a pair whose traceback needs more bytes than this is aligned on the CPU; 0: the chunk's.
  std::uint64_t gpu_max_pair_bytes = 0;
  /// Where each call's time goes, on stderr.
  bool profile = false;
};

/// What a batch cost; filled when the caller passes a pointer.
struct SwStats {
  std::uint64_t cells = 0;               ///< sum of n x m over all pairs
  std::uint64_t substring_pairs = 0;     ///< answered by the exact-substring shortcut
  std::uint64_t gpu_pairs = 0;           ///< aligned on the GPU (dynamic programming or shortcut)
  std::uint64_t gpu_16_bit_pairs = 0;    ///< of those, by the 16-bit kernel (two pairs per warp)
  std::uint64_t cpu_pairs = 0;           ///< aligned on the CPU (CPU backend, or GPU fallback)
  double seconds = 0;                    ///< wall time of the call
  double gpu_kernel_seconds = 0;         ///< GPU: time in kernels only (transfers excluded)
  std::uint32_t gpu_memory_retries = 0;  ///< GPU out of memory: retried with smaller chunks
  bool gpu_memory_fallback = false;      ///< ... and in the end aligned on the CPU
};

/**
 * @brief GATK's Smith-Waterman aligner on one backend, batched. It keeps its buffers (on the GPU:
 * streams, device memory, page-locked staging) from one batch to the next, so aligning many
 * batches allocates once. Not thread-safe: use one aligner per thread.
 *
 * @code
 *   SmithWaterman aligner(Backend::kGpu);
 *   SwAlignments a = aligner.align(pairs, kSwReadToHaplotype, OverhangStrategy::kSoftClip);
 * @endcode
 */
class SmithWaterman {
 public:
  /// @throws gpp::Error for kGpu in a build without CUDA or without a usable GPU
  explicit SmithWaterman(Backend backend, const SwTuning& tuning = {});
  ~SmithWaterman();
  SmithWaterman(SmithWaterman&&) noexcept;
  SmithWaterman& operator=(SmithWaterman&&) noexcept;
  SmithWaterman(const SmithWaterman&) = delete;
  SmithWaterman& operator=(const SmithWaterman&) = delete;

  /**
   * @brief Aligns every alternate sequence to its reference sequence as GATK does.
   *
   * @param pairs      the (ref, alt) pairs; any bytes; either sequence may be empty
   * @param parameters match, mismatch, gap open, gap extend
   * @param strategy   overhang strategy
   * @param stats      optional: cells, pairs per backend, timings
   * @return offsets and CIGARs in input order; a pair with an empty sequence has no alignment
   *         (kNoAlignment and an empty CIGAR), since GATK's aligner rejects it. On the GPU, pairs
   *         whose traceback matrix does not fit the memory budget are aligned on the CPU; when the
   *         GPU runs out of memory the batch is retried in smaller chunks, then on the CPU, and
   *         `stats` says so.
   * @throws gpp::Error on a CUDA failure
   */
  SwAlignments align(const SequencePairs& pairs, const SwParameters& parameters,
                     OverhangStrategy strategy, SwStats* stats = nullptr);

  Backend backend() const { return backend_; }

  /// The buffers kept between batches (host scratch; the CUDA backend's streams and memory).
  struct Workspaces;

 private:
  Backend backend_;
  SwTuning tuning_;
  std::unique_ptr<Workspaces> workspaces_;
};

}  // namespace gpp::kernels
