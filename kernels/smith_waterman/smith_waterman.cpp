// Smith-Waterman dispatcher and the host code both backends share: names, CIGAR text, the pair
// container, and the conversion of a traceback into GATK's offset and CIGAR.
#include "kernels/smith_waterman/smith_waterman.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "core/error.hpp"
#include "kernels/smith_waterman/detail/backends.hpp"
#include "kernels/smith_waterman/detail/smith_waterman_core.hpp"

namespace gpp::kernels {

const char* overhang_strategy_name(OverhangStrategy strategy) {
  switch (strategy) {
    case OverhangStrategy::kSoftClip:
      return "SOFTCLIP";
    case OverhangStrategy::kIndel:
      return "INDEL";
    case OverhangStrategy::kLeadingIndel:
      return "LEADING_INDEL";
    case OverhangStrategy::kIgnore:
      return "IGNORE";
  }
  return "?";
}

std::optional<OverhangStrategy> parse_overhang_strategy(std::string_view name) {
  for (OverhangStrategy s : {OverhangStrategy::kSoftClip, OverhangStrategy::kIndel,
                             OverhangStrategy::kLeadingIndel, OverhangStrategy::kIgnore}) {
    if (name == overhang_strategy_name(s)) return s;
  }
  return std::nullopt;
}

void SequencePairs::reserve(std::size_t pairs, std::size_t bases) {
  starts_.reserve(2 * pairs);
  bases_.reserve(bases);
}

void SequencePairs::add(std::string_view ref, std::string_view alt) {
  starts_.push_back(bases_.size());
  bases_.insert(bases_.end(), ref.begin(), ref.end());
  starts_.push_back(bases_.size());
  bases_.insert(bases_.end(), alt.begin(), alt.end());
}

std::uint64_t SequencePairs::cells() const {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < size(); ++i) {
    total += static_cast<std::uint64_t>(ref(i).size()) * alt(i).size();
  }
  return total;
}

namespace sw {

namespace {
void consolidate_into(std::span<const std::uint32_t> reversed, CigarBuilder& cigar) {
  // GATK AlignmentUtils.consolidateCigar: drop empty elements, merge neighbours with one operator.
  const std::size_t first = cigar.size();
  for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
    if (cigar_length(*it) == 0) continue;
    if (cigar.size() > first && cigar_op(cigar.back()) == cigar_op(*it)) {
      cigar.back() += cigar_length(*it) << 4;
    } else {
      cigar.push_back(*it);
    }
  }
}
}  // namespace

std::int32_t finish_alignment(OverhangStrategy strategy, std::int32_t m, const PathEnds& ends,
                              std::span<const std::uint32_t> runs_end_to_start,
                              CigarBuilder& cigar) {
  // Built end to start, as GATK builds its element list, then reversed.
  CigarBuilder reversed;
  const auto trailing = static_cast<std::uint32_t>(m - ends.end_p2);  // bottom-row end cell
  if (trailing > 0) {
    // SOFTCLIP clips the overhang; IGNORE counts it into the last M. (INDEL and LEADING_INDEL
    // always end in the last column.)
    reversed.push_back(cigar_element(
        strategy == OverhangStrategy::kSoftClip ? CigarOp::kSoftClip : CigarOp::kMatch, trailing));
  }
  for (const std::uint32_t run : runs_end_to_start) reversed.push_back(run);
  const auto p1 = static_cast<std::uint32_t>(ends.last_p1);
  const auto p2 = static_cast<std::uint32_t>(ends.last_p2);
  std::int32_t offset = 0;
  switch (strategy) {
    case OverhangStrategy::kSoftClip:
      if (p2 > 0) reversed.push_back(cigar_element(CigarOp::kSoftClip, p2));
      offset = ends.last_p1;
      break;
    case OverhangStrategy::kIgnore:
      // GATK adds the leading overhang to the last segment, whatever its operator.
      reversed.back() += p2 << 4;
      offset = ends.last_p1 - ends.last_p2;
      break;
    case OverhangStrategy::kIndel:
    case OverhangStrategy::kLeadingIndel:
      if (p1 > 0) {
        reversed.push_back(cigar_element(CigarOp::kDeletion, p1));
      } else if (p2 > 0) {
        reversed.push_back(cigar_element(CigarOp::kInsertion, p2));
      }
      offset = 0;
      break;
  }
  consolidate_into({reversed.data(), reversed.size()}, cigar);
  return offset;
}

}  // namespace sw

namespace {

/// Blocks of the dispatcher's parallel passes: fixed, so that per-block counts and the prefix
/// over them line up between passes.
constexpr std::size_t kBlock = 16384;

template <typename F>
void for_each_block(std::size_t count, const F& f) {
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  oneapi::tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    f(b, b * kBlock, std::min(count, (b + 1) * kBlock));
  });
}

/// A batch's per-pair results and index list. For a million pairs the results are about 70 MB;
/// constructing them (and faulting their pages in) on every call cost more than a tenth of the
/// GPU backend's wall time, so they are kept and reused: every backend sets a pair's offset and
/// clears its CIGAR before writing it, and the dispatcher resets the pairs it skips.
class Workspace {
 public:
  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() {
    destroy();
    ::operator delete(data_);
  }
  /// At least `size` results (constructed by all threads when the array grows).
  std::span<detail::PairResult> results(std::size_t size) {
    if (size > capacity_) {
      destroy();
      ::operator delete(data_);
      data_ = nullptr;
      capacity_ = 0;
      data_ = static_cast<detail::PairResult*>(::operator new(size * sizeof(detail::PairResult)));
      for_each_block(size, [this](std::size_t, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i != end; ++i) new (data_ + i) detail::PairResult();
      });
      capacity_ = size;
    }
    return {data_, size};
  }
  SwVector<std::uint32_t> indices;
  std::vector<std::uint64_t> block_counts;

 private:
  void destroy() {
    for_each_block(capacity_, [this](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i != end; ++i) data_[i].~PairResult();
    });
  }
  std::size_t capacity_ = 0;
  detail::PairResult* data_ = nullptr;
};

/// Exclusive prefix sums of `counts` in place; returns the total.
std::uint64_t exclusive_prefix(std::span<std::uint64_t> counts) {
  std::uint64_t total = 0;
  for (std::uint64_t& c : counts) {
    const std::uint64_t n = c;
    c = total;
    total += n;
  }
  return total;
}

}  // namespace

struct SmithWaterman::Workspaces {
  Workspace host;
#ifdef GPP_WITH_CUDA
  detail::SwGpuWorkspacePtr gpu;
#endif
};

SmithWaterman::SmithWaterman(Backend backend, const SwTuning& tuning)
    : backend_(backend), tuning_(tuning), workspaces_(std::make_unique<Workspaces>()) {
  if (backend == Backend::kGpu) {
#ifdef GPP_WITH_CUDA
    workspaces_->gpu = detail::make_sw_gpu_workspace();
#else
    throw Error("smith-waterman: the GPU backend is not part of this build (built without CUDA)");
#endif
  }
}

SmithWaterman::~SmithWaterman() = default;
SmithWaterman::SmithWaterman(SmithWaterman&&) noexcept = default;
SmithWaterman& SmithWaterman::operator=(SmithWaterman&&) noexcept = default;

SwAlignments SmithWaterman::align(const SequencePairs& pairs, const SwParameters& parameters,
                                  OverhangStrategy strategy, SwStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  SwStats local_stats;
  SwStats& st = stats != nullptr ? *stats : local_stats;
  st = SwStats{};
  const SwTuning& tuning = tuning_;
  Workspace& w = workspaces_->host;
  const std::size_t count = pairs.size();
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  const std::span<detail::PairResult> results = w.results(count);

  // GATK's aligner rejects empty sequences: those pairs get no alignment. One pass counts the
  // pairs to align per block and the cells (and resets the reused results of the skipped pairs),
  // a second writes their indices.
  w.block_counts.resize(blocks);
  std::vector<std::uint64_t> block_cells(blocks);
  for_each_block(count, [&](std::size_t b, std::size_t begin, std::size_t end) {
    std::uint64_t aligned = 0, cells = 0;
    for (std::size_t i = begin; i != end; ++i) {
      const std::uint64_t n = pairs.ref(i).size(), m = pairs.alt(i).size();
      cells += n * m;
      if (n != 0 && m != 0) {
        ++aligned;
      } else {
        results[i].offset = SwAlignments::kNoAlignment;
        results[i].cigar.clear();
      }
    }
    w.block_counts[b] = aligned;
    block_cells[b] = cells;
  });
  for (const std::uint64_t c : block_cells) st.cells += c;
  const std::uint64_t to_align = exclusive_prefix(w.block_counts);
  if (w.indices.size() < to_align) w.indices.resize(to_align);
  for_each_block(count, [&](std::size_t b, std::size_t begin, std::size_t end) {
    std::uint32_t* out = w.indices.data() + w.block_counts[b];
    for (std::size_t i = begin; i != end; ++i) {
      if (!pairs.ref(i).empty() && !pairs.alt(i).empty()) *out++ = static_cast<std::uint32_t>(i);
    }
  });
  const std::span<const std::uint32_t> indices(w.indices.data(), to_align);
  const auto prepared = std::chrono::steady_clock::now();
  if (backend_ == Backend::kGpu) {
#ifdef GPP_WITH_CUDA
    detail::smith_waterman_cuda(pairs, indices, parameters, strategy, results, st, tuning,
                                *workspaces_->gpu);
#endif
  } else {
    st.substring_pairs =
        detail::smith_waterman_cpu(pairs, indices, parameters, strategy, results, tuning);
    st.cpu_pairs = indices.size();
  }

  // Assembly in two parallel passes over fixed blocks (offsets and per-block CIGAR lengths, then
  // CIGAR starts and elements), into arrays that are not zero-filled first.
  const auto aligned = std::chrono::steady_clock::now();
  SwAlignments out;
  out.offsets.resize(count);
  out.cigar_starts.resize(count + 1);
  for_each_block(count, [&](std::size_t b, std::size_t begin, std::size_t end) {
    std::uint64_t elements = 0;
    for (std::size_t i = begin; i != end; ++i) {
      out.offsets[i] = results[i].offset;
      elements += results[i].cigar.size();
    }
    w.block_counts[b] = elements;
  });
  const std::uint64_t total = exclusive_prefix(w.block_counts);
  out.cigar_starts[count] = total;
  out.cigar_elements.resize(total);
  for_each_block(count, [&](std::size_t b, std::size_t begin, std::size_t end) {
    std::uint64_t at = w.block_counts[b];
    for (std::size_t i = begin; i != end; ++i) {
      out.cigar_starts[i] = at;
      const detail::PairResult& r = results[i];
      std::copy(r.cigar.begin(), r.cigar.end(),
                out.cigar_elements.begin() + static_cast<std::ptrdiff_t>(at));
      at += r.cigar.size();
    }
  });
  const auto end = std::chrono::steady_clock::now();
  st.seconds = std::chrono::duration<double>(end - start).count();
  if (tuning.profile) {
    const auto seconds = [](auto a, auto b) {
      return std::chrono::duration<double>(b - a).count();
    };
    std::fprintf(stderr, "smith-waterman: prepare %.4f s, align %.4f s, assemble %.4f s\n",
                 seconds(start, prepared), seconds(prepared, aligned), seconds(aligned, end));
  }
  return out;
}

}  // namespace gpp::kernels
