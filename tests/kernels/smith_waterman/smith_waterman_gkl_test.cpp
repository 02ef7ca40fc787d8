// An independent oracle where one is installed: Intel GKL's AVX Smith-Waterman (Debian
// libgkl-jni, the aligner GATK uses by default), called through its native entry point. GKL
// follows GATK's Java aligner except for IGNORE, where it soft-clips a trailing overhang that the
// Java aligner (and so we) writes as M; that case is checked for exactly that difference. 500
// tie-heavy random pairs x 4 parameter sets x 4 strategies.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kernels/smith_waterman/smith_waterman.hpp"
#include "tests/kernels/smith_waterman/sw_test_pairs.hpp"

namespace gpp::kernels {
namespace {

using GklFunction = std::int32_t (*)(std::int32_t, std::int32_t, std::int32_t, std::int32_t,
                                     std::uint8_t*, std::uint8_t*, std::int16_t, std::int16_t,
                                     std::int8_t, char*, std::int32_t, std::uint32_t*,
                                     std::int32_t*);

GklFunction load_gkl() {
  const char* path = "/usr/lib/jni/libgkl_smithwaterman.so";
  if (!std::filesystem::exists(path)) return nullptr;
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return nullptr;
  return reinterpret_cast<GklFunction>(dlsym(library, "_Z19runSWOnePairBT_avx2iiiiPhS_ssaPciPjPi"));
}

/// "...<k>M<t>S" -> "...<k+t>M", "...<k>D<t>S" -> "...<k>D<t>M": GATK's Java IGNORE.
std::string trailing_clip_as_match(const std::string& cigar) {
  std::vector<std::pair<int, char>> elements;
  for (std::size_t at = 0; at < cigar.size();) {
    std::size_t used = 0;
    const int length = std::stoi(cigar.substr(at), &used);
    elements.emplace_back(length, cigar[at + used]);
    at += used + 1;
  }
  if (elements.empty() || elements.back().second != 'S') return cigar;
  elements.back().second = 'M';
  if (elements.size() > 1 && elements[elements.size() - 2].second == 'M') {
    elements[elements.size() - 2].first += elements.back().first;
    elements.pop_back();
  }
  std::string text;
  for (const auto& [length, op] : elements) text += std::to_string(length) + op;
  return text;
}

TEST(SmithWatermanGkl, AgreesWithIntelGkl) {
  const GklFunction gkl = __builtin_cpu_supports("avx2") ? load_gkl() : nullptr;
  if (gkl == nullptr) GTEST_SKIP() << "Intel GKL (libgkl-jni) not installed";
  const SequencePairs pairs = test::random_pairs(500, 1000, 7);
  const std::int8_t codes[] = {9, 10, 11, 12};  // GKL's SOFTCLIP, INDEL, LEADING_INDEL, IGNORE
  for (const auto& p : test::gatk_parameter_sets()) {
    for (std::size_t s = 0; s < 4; ++s) {
      const OverhangStrategy strategy = test::all_strategies()[s];
      const SwAlignments ours = SmithWaterman(Backend::kCpu).align(pairs, p, strategy);
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        std::string ref(pairs.ref(i)), alt(pairs.alt(i));
        std::vector<char> text(2 * (ref.size() + alt.size()) + 16, 0);
        std::uint32_t count = 0;
        std::int32_t offset = 0;
        gkl(p.match, p.mismatch, p.gap_open, p.gap_extend,
            reinterpret_cast<std::uint8_t*>(ref.data()),
            reinterpret_cast<std::uint8_t*>(alt.data()), static_cast<std::int16_t>(ref.size()),
            static_cast<std::int16_t>(alt.size()), codes[s], text.data(),
            static_cast<std::int32_t>(text.size()), &count, &offset);
        std::string expected = cigar_to_string(ours.cigar(i));
        std::string theirs = text.data();
        if (strategy == OverhangStrategy::kIgnore) theirs = trailing_clip_as_match(theirs);
        EXPECT_EQ(offset, ours.offset(i))
            << overhang_strategy_name(strategy) << " " << ref << " " << alt;
        EXPECT_EQ(theirs, expected) << overhang_strategy_name(strategy) << " " << ref << " " << alt;
      }
    }
  }
}

}  // namespace
}  // namespace gpp::kernels
