// Smith-Waterman dispatcher and the host code both backends share: names, CIGAR text, the pair
// container, and the conversion of a traceback into GATK's offset and CIGAR.
#include "kernels/smith_waterman.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "kernels/error.hpp"
#include "kernels/smith_waterman_core.hpp"

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

std::string cigar_to_string(std::span<const std::uint32_t> cigar) {
  if (cigar.empty()) return "*";
  static constexpr char kOps[] = "MIDNSHP=X";
  std::string text;
  for (std::uint32_t element : cigar) {
    text += std::to_string(cigar_length(element));
    const std::uint32_t op = element & 0xF;
    text += op < 9 ? kOps[op] : '?';
  }
  return text;
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

/// A batch's per-pair results, built and destroyed by all threads: for a million pairs that is
/// tens of megabytes, a serial cost of its own otherwise.
class ResultArray {
 public:
  explicit ResultArray(std::size_t size)
      : size_(size),
        data_(static_cast<detail::PairResult*>(::operator new(size * sizeof(detail::PairResult)))) {
    for_each_block([this](std::size_t i) { new (data_ + i) detail::PairResult(); });
  }
  ~ResultArray() {
    for_each_block([this](std::size_t i) { data_[i].~PairResult(); });
    ::operator delete(data_);
  }
  ResultArray(const ResultArray&) = delete;
  ResultArray& operator=(const ResultArray&) = delete;
  std::span<detail::PairResult> span() { return {data_, size_}; }
  const detail::PairResult& operator[](std::size_t i) const { return data_[i]; }

 private:
  template <typename F>
  void for_each_block(const F& f) {
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, size_, 16384),
                              [&f](const oneapi::tbb::blocked_range<std::size_t>& r) {
                                for (std::size_t i = r.begin(); i != r.end(); ++i) f(i);
                              });
  }
  std::size_t size_;
  detail::PairResult* data_;
};

}  // namespace

SwAlignments smith_waterman(const SequencePairs& pairs, const SwParameters& parameters,
                            OverhangStrategy strategy, Backend backend, SwStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  SwStats local_stats;
  SwStats& st = stats != nullptr ? *stats : local_stats;
  st = SwStats{};
  st.cells = pairs.cells();

  // GATK's aligner rejects empty sequences: those pairs get no alignment.
  std::vector<std::uint32_t> indices;
  indices.reserve(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (!pairs.ref(i).empty() && !pairs.alt(i).empty())
      indices.push_back(static_cast<std::uint32_t>(i));
  }
  ResultArray results(pairs.size());
  const auto prepared = std::chrono::steady_clock::now();
  if (backend == Backend::kGpu) {
#ifdef GPP_WITH_CUDA
    detail::smith_waterman_cuda(pairs, indices, parameters, strategy, results.span(), st);
#else
    throw Error("smith-waterman: the GPU backend is not part of this build (built without CUDA)");
#endif
  } else {
    st.substring_pairs = detail::smith_waterman_cpu(pairs, indices, parameters, strategy,
                                                     results.span());
    st.cpu_pairs = indices.size();
  }

  const auto aligned = std::chrono::steady_clock::now();
  SwAlignments out;
  out.offsets.resize(pairs.size());
  out.cigar_starts.resize(pairs.size() + 1);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, pairs.size(), 16384),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t i = r.begin(); i != r.end(); ++i) {
                                out.offsets[i] = results[i].offset;
                                out.cigar_starts[i] = results[i].cigar.size();
                              }
                            });
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::uint64_t count = out.cigar_starts[i];
    out.cigar_starts[i] = total;
    total += count;
  }
  out.cigar_starts[pairs.size()] = total;
  out.cigar_elements.resize(total);
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, pairs.size(), 4096),
      [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          std::copy(results[i].cigar.begin(), results[i].cigar.end(),
                    out.cigar_elements.begin() + static_cast<std::ptrdiff_t>(out.cigar_starts[i]));
        }
      });
  const auto end = std::chrono::steady_clock::now();
  st.seconds = std::chrono::duration<double>(end - start).count();
  if (std::getenv("GPP_SW_PROFILE") != nullptr) {
    const auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
    std::fprintf(stderr, "smith-waterman: prepare %.4f s, align %.4f s, assemble %.4f s\n",
                 seconds(start, prepared), seconds(prepared, aligned), seconds(aligned, end));
  }
  return out;
}

}  // namespace gpp::kernels
