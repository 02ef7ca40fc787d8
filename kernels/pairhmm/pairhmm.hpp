// PairHMM: GATK's read-versus-haplotype likelihood (the forward algorithm of LoglessPairHMM /
// Intel GKL's AVX PairHMM), batched over many regions, on the CPU or the GPU.
//
// Model (GATK4 PairHMMModel / LoglessPairHMM, see research/pairhmm_sw.md section 3): for a read of
// length m and a haplotype of length n, with e = 10^(-q/10) per base quality,
//   prior(i,j) = read[i] == hap[j] or either is N ? 1 - e_i : e_i / 3
//   M(i,j) = prior(i,j) * (M(i-1,j-1) t_MM(i) + (I(i-1,j-1) + D(i-1,j-1)) t_GM(i))
//   I(i,j) = M(i-1,j) t_MI(i) + I(i-1,j) t_II(i)        D(i,j) = M(i,j-1) t_MD(i) + D(i,j-1)
//   t_DD(i) D(0,j) = 1/n (a free start anywhere on the haplotype), result = log10 sum_j M(m,j) +
//   I(m,j)
// with t_MM from GATK's match-to-match table, t_MI = 10^(-ins/10), t_MD = 10^(-del/10),
// t_II = t_DD = 10^(-gcp/10) and t_GM = 1 - t_II.
//
// Precision follows GKL: every pair is computed in fp32 first and recomputed in fp64 when the fp32
// sum falls below GKL's threshold (1e-28 at GKL's 2^120 scaling, i.e. log10 likelihood < -64.1).
// Both backends agree with the double-precision reference within 1e-5 (log10) on every pair, and
// likelihoods too small for a double (very long, very dissimilar pairs) are still finite and
// exact: the fp64 paths rescale by powers of two instead of underflowing to -infinity, and pairs
// below 10^-300, where no common scale keeps every needed cell of a row inside the double range,
// are recomputed in log space on the host. (GATK returns -infinity below about 10^-600.)
//
// @code
//   PairHmmBatch batch;                                // one region: 1 read x 2 haplotypes
//   batch.add_read("ACGT", quals, ins, del, gcp);      // quality values, not Phred+33 characters
//   batch.add_haplotype("ACGT");
//   batch.add_haplotype("AGGT");
//   batch.end_group();
//   PairHmm hmm(Backend::kCpu);
//   std::vector<double> log10_lk = hmm.compute(batch.view());   // {read0 x hap0, read0 x hap1}
// @endcode
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/device/device.hpp"

namespace gpp::kernels {

/// Reads of a batch: five columns of equal length per read, concatenated; read r covers
/// [offsets[r], offsets[r+1]). Bases A, C, G, T in either case; any other byte counts as N, which
/// matches every base. Qualities are Phred values (0-127; higher bits are ignored, as in GKL).
struct PairHmmReadsView {
  std::span<const char> bases;
  std::span<const std::uint8_t> base_quals;
  std::span<const std::uint8_t> insertion_quals;  ///< insertion gap-open (GATK's BI, default 45)
  std::span<const std::uint8_t> deletion_quals;   ///< deletion gap-open (GATK's BD, default 45)
  std::span<const std::uint8_t> gap_continuation_quals;  ///< GATK's flat 10 in HaplotypeCaller
  std::span<const std::uint32_t> offsets;                ///< reads + 1 entries, offsets[0] == 0

  std::size_t size() const { return offsets.empty() ? 0 : offsets.size() - 1; }
};

/// Haplotypes of a batch, concatenated; haplotype h covers [offsets[h], offsets[h+1]).
struct PairHmmHaplotypesView {
  std::span<const char> bases;
  std::span<const std::uint32_t> offsets;

  std::size_t size() const { return offsets.empty() ? 0 : offsets.size() - 1; }
};

/// One region as GATK groups the work: every read of [first_read, first_read + read_count) against
/// every haplotype of [first_haplotype, first_haplotype + haplotype_count).
struct PairHmmGroup {
  std::uint32_t first_read = 0;
  std::uint32_t read_count = 0;
  std::uint32_t first_haplotype = 0;
  std::uint32_t haplotype_count = 0;
};

/// A batch of regions. Results are laid out group after group, read-major within a group: the
/// likelihood of (read r, haplotype h) of group g is at result_offset(g) + r * haplotype_count + h,
/// where result_offset(g) is the sum of read_count * haplotype_count over the groups before g.
struct PairHmmBatchView {
  PairHmmReadsView reads;
  PairHmmHaplotypesView haplotypes;
  std::span<const PairHmmGroup> groups;

  /// Number of (read, haplotype) pairs, i.e. of results.
  std::size_t pair_count() const;
  /// Sum over pairs of read length x haplotype length (dynamic-programming cells).
  std::uint64_t cell_count() const;
};

namespace detail {
/// Host memory for batches: page-locked (CUDA builds with a usable driver) or ordinary.
void* allocate_host(std::size_t bytes, bool page_locked);
void free_host(void* pointer, bool page_locked) noexcept;
/// True when `pointer` lies in page-locked host memory the GPU can copy from directly.
bool is_page_locked(const void* pointer);

template <typename T>
struct HostAllocator {
  using value_type = T;
  bool page_locked = false;
  HostAllocator() = default;
  explicit HostAllocator(bool locked) : page_locked(locked) {}
  template <typename U>
  HostAllocator(const HostAllocator<U>& other) : page_locked(other.page_locked) {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_host(n * sizeof(T), page_locked)); }
  void deallocate(T* p, std::size_t) noexcept { free_host(p, page_locked); }
  friend bool operator==(const HostAllocator& a, const HostAllocator& b) {
    return a.page_locked == b.page_locked;
  }
};
template <typename T>
using HostVector = std::vector<T, HostAllocator<T>>;
}  // namespace detail

/// An owning batch, built region by region.
class PairHmmBatch {
 public:
  /// `page_locked`: keep the columns in page-locked host memory, from which the GPU backend copies
  /// directly, without staging them (falls back to ordinary memory without a CUDA driver).
  explicit PairHmmBatch(bool page_locked = false);
  /// Appends a read to the current group; the five columns must have the same, non-zero length.
  /// @throws gpp::Error for unequal or zero lengths
  void add_read(std::string_view bases, std::span<const std::uint8_t> base_quals,
                std::span<const std::uint8_t> insertion_quals,
                std::span<const std::uint8_t> deletion_quals,
                std::span<const std::uint8_t> gap_continuation_quals);
  /// Appends a haplotype to the current group. @throws gpp::Error when empty
  void add_haplotype(std::string_view bases);
  /// Closes the current group (the reads and haplotypes added since the last call).
  /// @throws gpp::Error when the group has reads but no haplotypes or the reverse
  void end_group();
  /// Appends every group of `other` (a convenient way to replicate a batch).
  void append(const PairHmmBatchView& other);
  void clear();
  /// Reserves room for `reads` reads of `read_bases` bases in total and `haplotype_bases` bases.
  void reserve(std::size_t reads, std::size_t read_bases, std::size_t haplotype_bases);

  PairHmmBatchView view() const;

 private:
  bool page_locked_;
  detail::HostVector<char> read_bases_;
  detail::HostVector<std::uint8_t> base_quals_, insertion_quals_, deletion_quals_, gcp_quals_;
  std::vector<std::uint32_t> read_offsets_{0};
  detail::HostVector<char> haplotype_bases_;
  std::vector<std::uint32_t> haplotype_offsets_{0};
  std::vector<PairHmmGroup> groups_;
  std::uint32_t group_first_read_ = 0;
  std::uint32_t group_first_haplotype_ = 0;
};

enum class PairHmmPrecision {
  kAuto,   ///< the fastest mode meeting the 1e-5 tolerance; currently kFloat
  kFloat,  ///< fp32, with fp64 recomputation of pairs below GKL's threshold (GKL's default)
  kDouble  ///< fp64 for every pair (GKL's useDoublePrecision)
};

/// Parses "auto", "float" or "double"; throws gpp::Error otherwise.
PairHmmPrecision parse_pairhmm_precision(const std::string& text);

/// Engine settings for measurements and tests; the defaults are the tuned values. (The command
/// line tools take overrides from GPP_PAIRHMM_* variables: pipeline/tuning_overrides.hpp.)
struct PairHmmTuning {
  /// CPU: the widest SIMD sweep to use, "avx512", "avx2" or "generic" (a CPU without it runs the
  /// next narrower one).
  std::string cpu_simd = "avx512";
  /// GPU: a work item is one read against a run of its group's haplotypes of at least this many
  /// bases (1: one haplotype per item).
  std::uint32_t gpu_item_columns = 256;
  /// GPU: chunks of about 1/gpu_chunk_divisor of a batch's cells, the first of about
  /// 1/gpu_first_chunk_divisor (each next one twice the one before), so that packing and copies
  /// overlap the kernels.
  std::uint64_t gpu_chunk_divisor = 6;
  std::uint64_t gpu_first_chunk_divisor = 32;
  /// GPU: streams the length bins are dealt to (1..8).
  int gpu_bin_streams = 4;
  /// GPU: single-tile kernels of at most 12 rows per thread below 320 bases.
  bool gpu_narrow_tiles = false;
  /// GPU: where each compute()'s wall time goes, on stderr: 2 the timeline, 1 that and the
  /// kernel time per length bin (the bins then run one after another: slower); 0 nothing.
  int gpu_profile = 0;
};

/// What the last PairHmm::compute() did.
struct PairHmmStats {
  std::uint64_t pairs = 0;
  std::uint64_t cells = 0;
  std::uint64_t double_pairs = 0;  ///< pairs computed (or recomputed) in fp64
  double seconds = 0;              ///< wall time of compute(), host<->device transfers included
  double compute_seconds = 0;      ///< time of the dynamic programming alone (GPU: kernel time)
};

/**
 * @brief A PairHMM engine on one backend; it keeps its buffers (on the GPU: device memory, pinned
 * staging, streams) from one batch to the next, so scoring many batches allocates once.
 *
 * Not thread-safe: use one engine per thread.
 */
class PairHmm {
 public:
  /// @throws gpp::Error for kGpu without CUDA or without a usable GPU
  explicit PairHmm(Backend backend, PairHmmPrecision precision = PairHmmPrecision::kAuto,
                   const PairHmmTuning& tuning = {});
  ~PairHmm();
  PairHmm(PairHmm&&) noexcept;
  PairHmm& operator=(PairHmm&&) noexcept;
  PairHmm(const PairHmm&) = delete;
  PairHmm& operator=(const PairHmm&) = delete;

  /**
   * @brief log10 P(read | haplotype) for every pair of the batch, laid out as PairHmmBatchView
   * says.
   * @throws gpp::Error for an inconsistent batch (offsets, group ranges, empty reads or
   *         haplotypes, more than 2^32 - 1 bases) or a CUDA failure
   */
  std::vector<double> compute(const PairHmmBatchView& batch);
  /// As above, into `log10_likelihoods` (batch.pair_count() entries).
  void compute(const PairHmmBatchView& batch, std::span<double> log10_likelihoods);

  const PairHmmStats& stats() const;
  Backend backend() const { return backend_; }

  /// A backend implementation (see detail/backends.hpp, cpu/ and cuda/). compute gets a
  /// batch that passed detail::validate_pairhmm_batch_shape, and checks the offsets of what it
  /// reads (detail::validate_pairhmm_offsets) before reading it.
  class Engine {
   public:
    virtual ~Engine() = default;
    virtual void compute(const PairHmmBatchView& batch, std::span<double> out,
                         PairHmmStats& stats) = 0;
  };

 private:
  Backend backend_;
  std::unique_ptr<Engine> engine_;
  PairHmmStats stats_;
};

/**
 * @brief The double-precision reference for one pair: GATK's LoglessPairHMM literally (2^1020
 * initial condition, no fp32), except that rows are rescaled by powers of two when they approach
 * the bottom of the double range, and that pairs below 10^-300 are computed in log space: the
 * result is exact and finite where GATK would return -infinity.
 */
double pairhmm_reference_log10(std::string_view read_bases,
                               std::span<const std::uint8_t> base_quals,
                               std::span<const std::uint8_t> insertion_quals,
                               std::span<const std::uint8_t> deletion_quals,
                               std::span<const std::uint8_t> gap_continuation_quals,
                               std::string_view haplotype);

}  // namespace gpp::kernels
