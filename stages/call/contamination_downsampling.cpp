// HaplotypeCaller's contamination filter; see contamination_downsampling.hpp.
#include "stages/call/contamination_downsampling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "core/error.hpp"
#include "core/fields.hpp"
#include "stages/call/best_haplotype.hpp"

namespace gpp::stages::call {

namespace {

// AlleleBiasedDownsamplingUtils.scoreAlleleCounts.
int score_allele_counts(std::vector<int> counts) {
  if (counts.size() < 2) return 0;
  std::sort(counts.begin(), counts.end());
  const int max_count = counts[counts.size() - 1];
  const int next_count = counts[counts.size() - 2];
  const int remainder = std::accumulate(counts.begin(), counts.end(), 0) - max_count - next_count;
  return std::min(max_count - next_count + remainder, std::abs(next_count + remainder));
}

// SplitMix64: the draws that choose which reads of an allele are removed.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// `count` of the rows `rows`, drawn without replacement (a partial Fisher-Yates shuffle).
std::vector<std::size_t> draw(std::vector<std::size_t> rows, std::size_t count,
                              SplitMix64& random) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(random.next() % (rows.size() - i));
    std::swap(rows[i], rows[j]);
  }
  rows.resize(count);
  return rows;
}

// Java's String.trim: the characters up to ' ' removed from both ends.
std::string_view trimmed(std::string_view text) {
  while (!text.empty() && static_cast<unsigned char>(text.front()) <= ' ') text.remove_prefix(1);
  while (!text.empty() && static_cast<unsigned char>(text.back()) <= ' ') text.remove_suffix(1);
  return text;
}

// Java's String.split("\t"): the fields, trailing empty ones dropped.
std::vector<std::string_view> tab_fields(std::string_view line) {
  std::vector<std::string_view> fields = split_fields(line, '\t');
  while (!fields.empty() && fields.back().empty()) fields.pop_back();
  return fields;
}

}  // namespace

std::map<std::string, double> parse_contamination_fractions(std::string_view text,
                                                            const std::string& path,
                                                            const std::set<std::string>* samples) {
  std::map<std::string, double> fractions;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t eol = std::min(text.find('\n'), text.size());
    const std::string_view line = trimmed(text.substr(0, eol));
    text.remove_prefix(std::min(eol + 1, text.size()));
    ++line_number;
    if (line.empty()) continue;
    const std::string where = path + " line " + std::to_string(line_number) + ": ";
    const std::vector<std::string_view> fields = tab_fields(line);
    if (fields.size() != 2) {
      throw Error(where +
                  "a contamination file has exactly two tab-separated columns, sample and "
                  "fraction");
    }
    if (fields[0].empty() || fields[1].empty()) throw Error(where + "an empty column");
    const std::string number(trimmed(fields[1]));
    char* end = nullptr;
    const double fraction = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size()) {
      throw Error(where + "the fraction '" + number + "' is not a number");
    }
    if (fraction < 0.0 || fraction > 1.0) {
      throw Error(where + "the fraction " + number + " is outside 0..1");
    }
    const std::string sample(fields[0]);
    if (samples != nullptr && !samples->contains(sample)) continue;
    if (!fractions.emplace(sample, fraction).second) {
      throw Error(where + "sample " + sample + " is given twice");
    }
  }
  return fractions;
}

std::vector<int> target_allele_counts(std::span<const int> allele_counts, int reads_to_remove) {
  const std::vector<int> original(allele_counts.begin(), allele_counts.end());
  int best_score = score_allele_counts(original);
  std::vector<int> best = original;
  const int per_allele = reads_to_remove / 2;
  for (std::size_t i = 0; i < original.size(); ++i) {
    for (std::size_t j = i; j < original.size(); ++j) {
      std::vector<int> counts = original;
      if (i == j) {
        counts[i] = std::max(0, counts[i] - reads_to_remove);
      } else {
        counts[i] = std::max(0, counts[i] - per_allele);
        counts[j] = std::max(0, counts[j] - per_allele);
      }
      const int score = score_allele_counts(counts);
      if (score < best_score) {
        best_score = score;
        best = std::move(counts);
      }
    }
  }
  return best;
}

std::uint64_t locus_seed(std::int32_t contig, std::int64_t start) {
  SplitMix64 mix{(static_cast<std::uint64_t>(static_cast<std::uint32_t>(contig)) << 40) ^
                 static_cast<std::uint64_t>(start)};
  return mix.next();
}

void remove_contamination(ReadAlleleLikelihoods& reads, double fraction, std::uint64_t seed) {
  if (std::isnan(fraction) || fraction <= 0.0) return;
  const std::size_t rows = reads.reads.size();
  std::vector<bool> removed(rows, fraction >= 1.0);
  if (fraction < 1.0) {
    std::vector<std::vector<std::size_t>> by_best_allele(reads.allele_count);
    for (std::size_t r = 0; r < rows; ++r) {
      const BestAllele best = best_allele_by_priority(
          std::span(reads.log10_likelihoods).subspan(r * reads.allele_count, reads.allele_count),
          {});
      if (best.informative) by_best_allele[static_cast<std::size_t>(best.allele)].push_back(r);
    }
    std::vector<int> counts;
    for (const auto& allele_rows : by_best_allele)
      counts.push_back(static_cast<int>(allele_rows.size()));
    const int informative = std::accumulate(counts.begin(), counts.end(), 0);
    // Java's (int) of the product: truncated.
    const int to_remove = static_cast<int>(static_cast<double>(informative) * fraction);
    if (to_remove == 0) return;
    const std::vector<int> targets = target_allele_counts(counts, to_remove);
    for (std::size_t a = 0; a < by_best_allele.size(); ++a) {
      if (counts[a] <= targets[a]) continue;
      SplitMix64 random{seed ^ (0x632BE59BD9B4E019ull * (a + 1))};
      const auto count = static_cast<std::size_t>(counts[a] - targets[a]);
      for (std::size_t r : draw(by_best_allele[a], count, random)) removed[r] = true;
    }
  }
  std::size_t kept = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    if (removed[r]) continue;
    reads.reads[kept] = reads.reads[r];
    std::copy_n(
        reads.log10_likelihoods.begin() + static_cast<std::ptrdiff_t>(r * reads.allele_count),
        reads.allele_count,
        reads.log10_likelihoods.begin() + static_cast<std::ptrdiff_t>(kept * reads.allele_count));
    ++kept;
  }
  reads.reads.resize(kept);
  reads.log10_likelihoods.resize(kept * reads.allele_count);
}

}  // namespace gpp::stages::call
