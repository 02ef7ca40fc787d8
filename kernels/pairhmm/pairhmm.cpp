// PairHMM dispatcher: the batch type, validation, GATK's quality tables and the engine front end.
#include "kernels/pairhmm/pairhmm.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>

#include "core/error.hpp"
#include "kernels/pairhmm/detail/backends.hpp"
#include "kernels/pairhmm/detail/pairhmm_model.hpp"

namespace gpp::kernels {

namespace {

// Batches hold hundreds of thousands of reads; the checks and counts that run on every compute
// go over blocks of indices in parallel, each block without branches, and look for the entry an
// error message names only on failure.
constexpr std::size_t kBlock = std::size_t{1} << 12;

/// True when is_bad(i) holds for some i in [0, count).
template <typename IsBad>
bool any_of_indices(std::size_t count, const IsBad& is_bad) {
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, count, kBlock), false,
      [&](const oneapi::tbb::blocked_range<std::size_t>& range, bool found) {
        bool bad = false;
        for (std::size_t i = range.begin(); i < range.end(); ++i) bad |= is_bad(i);
        return found || bad;
      },
      std::logical_or<>());
}

/// The sum of value(i) over [0, count).
template <typename Value>
std::uint64_t sum_of_indices(std::size_t count, const Value& value) {
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, count, kBlock), std::uint64_t{0},
      [&](const oneapi::tbb::blocked_range<std::size_t>& range, std::uint64_t sum) {
        for (std::size_t i = range.begin(); i < range.end(); ++i) sum += value(i);
        return sum;
      },
      std::plus<>());
}

/// The offsets of a column start at 0 and end at its size.
void check_offset_ends(std::span<const std::uint32_t> offsets, std::size_t bases,
                       const char* what) {
  if (offsets.empty() || offsets[0] != 0) {
    throw Error(std::string("pairhmm batch: ") + what + " offsets must start with 0");
  }
  if (offsets.back() != bases) {
    throw Error(std::string("pairhmm batch: ") + what + " offsets end at " +
                std::to_string(offsets.back()) + " but there are " + std::to_string(bases) +
                " bases");
  }
}

/// Entries [begin, end) of a column are not empty (their offsets increase).
void check_offsets_increase(std::span<const std::uint32_t> offsets, std::size_t begin,
                            std::size_t end, const char* what) {
  const bool bad = any_of_indices(
      end - begin, [&](std::size_t k) { return offsets[begin + k + 1] <= offsets[begin + k]; });
  for (std::size_t i = begin; bad && i < end; ++i) {
    if (offsets[i + 1] <= offsets[i]) {
      throw Error(std::string("pairhmm batch: ") + what + " " + std::to_string(i) +
                  (offsets[i + 1] == offsets[i] ? " is empty" : " has a decreasing offset"));
    }
  }
}

}  // namespace

std::size_t PairHmmBatchView::pair_count() const {
  return sum_of_indices(groups.size(), [&](std::size_t i) {
    return std::uint64_t{groups[i].read_count} * groups[i].haplotype_count;
  });
}

std::uint64_t PairHmmBatchView::cell_count() const {
  return sum_of_indices(groups.size(), [&](std::size_t i) {
    const auto& g = groups[i];
    const std::uint64_t read_bases =
        reads.offsets[g.first_read + g.read_count] - reads.offsets[g.first_read];
    const std::uint64_t hap_bases = haplotypes.offsets[g.first_haplotype + g.haplotype_count] -
                                    haplotypes.offsets[g.first_haplotype];
    return read_bases * hap_bases;
  });
}

PairHmmBatch::PairHmmBatch(bool page_locked)
    : page_locked_(page_locked),
      read_bases_(detail::HostAllocator<char>(page_locked)),
      base_quals_(detail::HostAllocator<std::uint8_t>(page_locked)),
      insertion_quals_(detail::HostAllocator<std::uint8_t>(page_locked)),
      deletion_quals_(detail::HostAllocator<std::uint8_t>(page_locked)),
      gcp_quals_(detail::HostAllocator<std::uint8_t>(page_locked)),
      haplotype_bases_(detail::HostAllocator<char>(page_locked)) {}

void PairHmmBatch::add_read(std::string_view bases, std::span<const std::uint8_t> base_quals,
                            std::span<const std::uint8_t> insertion_quals,
                            std::span<const std::uint8_t> deletion_quals,
                            std::span<const std::uint8_t> gap_continuation_quals) {
  const std::size_t n = bases.size();
  if (n == 0) throw Error("pairhmm batch: empty read");
  if (base_quals.size() != n || insertion_quals.size() != n || deletion_quals.size() != n ||
      gap_continuation_quals.size() != n) {
    throw Error("pairhmm batch: a read's bases and four quality columns differ in length");
  }
  if (read_bases_.size() + n > std::numeric_limits<std::uint32_t>::max()) {
    throw Error("pairhmm batch: more than 2^32 - 1 read bases; split the batch");
  }
  read_bases_.insert(read_bases_.end(), bases.begin(), bases.end());
  base_quals_.insert(base_quals_.end(), base_quals.begin(), base_quals.end());
  insertion_quals_.insert(insertion_quals_.end(), insertion_quals.begin(), insertion_quals.end());
  deletion_quals_.insert(deletion_quals_.end(), deletion_quals.begin(), deletion_quals.end());
  gcp_quals_.insert(gcp_quals_.end(), gap_continuation_quals.begin(), gap_continuation_quals.end());
  read_offsets_.push_back(static_cast<std::uint32_t>(read_bases_.size()));
}

void PairHmmBatch::add_haplotype(std::string_view bases) {
  if (bases.empty()) throw Error("pairhmm batch: empty haplotype");
  if (haplotype_bases_.size() + bases.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw Error("pairhmm batch: more than 2^32 - 1 haplotype bases; split the batch");
  }
  haplotype_bases_.insert(haplotype_bases_.end(), bases.begin(), bases.end());
  haplotype_offsets_.push_back(static_cast<std::uint32_t>(haplotype_bases_.size()));
}

void PairHmmBatch::end_group() {
  PairHmmGroup g;
  g.first_read = group_first_read_;
  g.read_count = static_cast<std::uint32_t>(read_offsets_.size() - 1) - group_first_read_;
  g.first_haplotype = group_first_haplotype_;
  g.haplotype_count =
      static_cast<std::uint32_t>(haplotype_offsets_.size() - 1) - group_first_haplotype_;
  if ((g.read_count == 0) != (g.haplotype_count == 0)) {
    throw Error("pairhmm batch: a group needs both reads and haplotypes");
  }
  groups_.push_back(g);
  group_first_read_ += g.read_count;
  group_first_haplotype_ += g.haplotype_count;
}

void PairHmmBatch::append(const PairHmmBatchView& other) {
  for (const auto& g : other.groups) {
    for (std::uint32_t r = g.first_read; r < g.first_read + g.read_count; ++r) {
      const std::uint32_t b = other.reads.offsets[r], e = other.reads.offsets[r + 1];
      add_read(std::string_view(other.reads.bases.data() + b, e - b),
               other.reads.base_quals.subspan(b, e - b),
               other.reads.insertion_quals.subspan(b, e - b),
               other.reads.deletion_quals.subspan(b, e - b),
               other.reads.gap_continuation_quals.subspan(b, e - b));
    }
    for (std::uint32_t h = g.first_haplotype; h < g.first_haplotype + g.haplotype_count; ++h) {
      const std::uint32_t b = other.haplotypes.offsets[h], e = other.haplotypes.offsets[h + 1];
      add_haplotype(std::string_view(other.haplotypes.bases.data() + b, e - b));
    }
    end_group();
  }
}

void PairHmmBatch::clear() { *this = PairHmmBatch(page_locked_); }

void PairHmmBatch::reserve(std::size_t reads, std::size_t read_bases, std::size_t haplotype_bases) {
  read_bases_.reserve(read_bases);
  base_quals_.reserve(read_bases);
  insertion_quals_.reserve(read_bases);
  deletion_quals_.reserve(read_bases);
  gcp_quals_.reserve(read_bases);
  read_offsets_.reserve(reads + 1);
  haplotype_bases_.reserve(haplotype_bases);
}

PairHmmBatchView PairHmmBatch::view() const {
  PairHmmBatchView v;
  v.reads = {read_bases_,     base_quals_, insertion_quals_,
             deletion_quals_, gcp_quals_,  read_offsets_};
  v.haplotypes = {haplotype_bases_, haplotype_offsets_};
  v.groups = groups_;
  return v;
}

PairHmmPrecision parse_pairhmm_precision(const std::string& text) {
  if (text == "auto") return PairHmmPrecision::kAuto;
  if (text == "float") return PairHmmPrecision::kFloat;
  if (text == "double") return PairHmmPrecision::kDouble;
  throw Error("--precision " + text + ": expected auto, float or double");
}

PairHmm::PairHmm(Backend backend, PairHmmPrecision precision, const PairHmmTuning& tuning)
    : backend_(backend) {
  if (backend == Backend::kGpu) {
#ifdef GPP_WITH_CUDA
    engine_ = detail::make_pairhmm_cuda_engine(precision, tuning);
#else
    throw Error("pairhmm: the GPU backend is not part of this build (built without CUDA)");
#endif
  } else {
    engine_ = detail::make_pairhmm_cpu_engine(precision, tuning);
  }
}

PairHmm::~PairHmm() = default;
PairHmm::PairHmm(PairHmm&&) noexcept = default;
PairHmm& PairHmm::operator=(PairHmm&&) noexcept = default;

std::vector<double> PairHmm::compute(const PairHmmBatchView& batch) {
  detail::validate_pairhmm_batch_shape(batch);  // before sizing the output from the groups
  std::vector<double> out(batch.pair_count());
  compute(batch, out);
  return out;
}

void PairHmm::compute(const PairHmmBatchView& batch, std::span<double> log10_likelihoods) {
  const auto start = std::chrono::steady_clock::now();
  detail::validate_pairhmm_batch_shape(batch);  // the engine checks the offsets it reads
  const std::size_t pairs = batch.pair_count();
  if (log10_likelihoods.size() != pairs) {
    throw Error("pairhmm: the output holds " + std::to_string(log10_likelihoods.size()) +
                " values but the batch has " + std::to_string(pairs) + " pairs");
  }
  stats_ = {};
  stats_.pairs = pairs;
  stats_.cells = batch.cell_count();
  if (stats_.pairs > 0) engine_->compute(batch, log10_likelihoods, stats_);
  stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const PairHmmStats& PairHmm::stats() const { return stats_; }

namespace detail {

#ifndef GPP_WITH_CUDA
void* allocate_host(std::size_t bytes, bool) { return ::operator new(bytes); }
void free_host(void* pointer, bool) noexcept { ::operator delete(pointer); }
bool is_page_locked(const void*) { return false; }
#endif

void validate_pairhmm_batch_shape(const PairHmmBatchView& batch) {
  const auto& r = batch.reads;
  const std::size_t n = r.bases.size();
  if (r.base_quals.size() != n || r.insertion_quals.size() != n || r.deletion_quals.size() != n ||
      r.gap_continuation_quals.size() != n) {
    throw Error("pairhmm batch: the read bases and the four quality columns differ in length");
  }
  check_offset_ends(r.offsets, n, "read");
  check_offset_ends(batch.haplotypes.offsets, batch.haplotypes.bases.size(), "haplotype");
  const auto past_the_end = [&](std::size_t i) {
    const auto& g = batch.groups[i];
    return std::uint64_t{g.first_read} + g.read_count > r.size() ||
           std::uint64_t{g.first_haplotype} + g.haplotype_count > batch.haplotypes.size();
  };
  const bool bad = any_of_indices(batch.groups.size(), past_the_end);
  for (std::size_t i = 0; bad && i < batch.groups.size(); ++i) {
    if (past_the_end(i)) {
      throw Error("pairhmm batch: group " + std::to_string(i) +
                  " refers past the last read or haplotype");
    }
  }
}

void validate_pairhmm_offsets(const PairHmmBatchView& batch, std::size_t read_begin,
                              std::size_t read_end, std::size_t hap_begin, std::size_t hap_end) {
  check_offsets_increase(batch.reads.offsets, read_begin, read_end, "read");
  check_offsets_increase(batch.haplotypes.offsets, hap_begin, hap_end, "haplotype");
}

void validate_pairhmm_batch(const PairHmmBatchView& batch) {
  validate_pairhmm_batch_shape(batch);
  validate_pairhmm_offsets(batch, 0, batch.reads.size(), 0, batch.haplotypes.size());
}

std::vector<std::uint64_t> pairhmm_result_offsets(std::span<const PairHmmGroup> groups) {
  std::vector<std::uint64_t> offsets(groups.size() + 1, 0);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    offsets[i + 1] = offsets[i] + std::uint64_t{groups[i].read_count} * groups[i].haplotype_count;
  }
  return offsets;
}

}  // namespace detail

namespace pairhmm {

namespace {

// GATK MathUtils.JacobianLogTable.get: log10(1 + 10^-k*1e-4) for the difference rounded to the
// table step (fastRound), and approximateLog10SumLog10 with MAX_TOLERANCE 8.
double jacobian_log10_correction(double difference) {
  constexpr double kStep = 0.0001;
  const double scaled = difference * (1.0 / kStep);
  const int k = scaled > 0.0 ? static_cast<int>(scaled + 0.5) : static_cast<int>(scaled - 0.5);
  return std::log10(1.0 + std::pow(10.0, -k * kStep));
}

double approximate_log10_sum_log10(double a, double b) {
  if (a > b) std::swap(a, b);
  if (a == -std::numeric_limits<double>::infinity()) return b;
  const double difference = b - a;
  return b + (difference < 8.0 ? jacobian_log10_correction(difference) : 0.0);
}

// GATK PairHMMModel's matchToMatchProb table entry for qualities (i, j):
// 10^(log1p(-min(1, 10^log10Sum)) / ln 10) with log10Sum = approximateLog10SumLog10(-i/10, -j/10).
double gatk_match_to_match(int i, int j) {
  const double log10_sum = approximate_log10_sum_log10(-0.1 * i, -0.1 * j);
  const double log10_mm =
      std::log1p(-std::min(1.0, std::pow(10.0, log10_sum))) * (1.0 / std::log(10.0));
  return std::pow(10.0, log10_mm);
}

QualityTables build_quality_tables() {
  QualityTables t{};
  for (int q = 0; q < kQualities; ++q) {
    t.error[q] = std::pow(10.0, q / -10.0);  // QualityUtils.qualToErrorProb
    t.inverse_error[q] = 1.0 / t.error[q];
  }
  for (int i = 0; i < kQualities; ++i) {
    for (int j = 0; j < kQualities; ++j) {
      const double mm = gatk_match_to_match(std::max(i, j), std::min(i, j));
      t.match_to_match[i * kQualities + j] = mm;
      t.inverse_match_to_match[i * kQualities + j] = mm > 0.0 ? 1.0 / mm : 0.0;
    }
  }
  return t;
}

}  // namespace

const QualityTables& quality_tables() {
  static const QualityTables tables = build_quality_tables();
  return tables;
}

}  // namespace pairhmm

}  // namespace gpp::kernels
