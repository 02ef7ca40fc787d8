#include "tests/kernels/smith_waterman/sw_test_pairs.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tests/test_support.hpp"

namespace gpp::test {

namespace {

std::vector<std::vector<std::string>> read_rows(const std::string& relative) {
  std::ifstream in(data_path(relative));
  if (!in) throw std::runtime_error("cannot read " + relative);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) fields.push_back(field == "-" ? "" : field);
    rows.push_back(fields);
  }
  return rows;
}

std::string random_bases(std::mt19937_64& rng, int length, const char* alphabet, int size) {
  std::string s(static_cast<std::size_t>(length), 'A');
  for (char& c : s) c = alphabet[rng() % static_cast<unsigned>(size)];
  return s;
}

int uniform(std::mt19937_64& rng, int lo, int hi) {  // [lo, hi]
  return lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
}

// Tandem repeat of a short unit with occasional errors: many equal-scoring alignments.
std::string repeat(std::mt19937_64& rng, int length) {
  const std::string unit = random_bases(rng, uniform(rng, 1, 4), "ACGT", 4);
  std::string s;
  while (static_cast<int>(s.size()) < length) s += unit;
  s.resize(static_cast<std::size_t>(length));
  for (char& c : s) {
    if (rng() % 20 == 0) c = "ACGTN"[rng() % 5];
  }
  return s;
}

// Homopolymer runs of random lengths.
std::string homopolymers(std::mt19937_64& rng, int length) {
  std::string s;
  while (static_cast<int>(s.size()) < length)
    s.append(static_cast<std::size_t>(uniform(rng, 1, 15)), "ACGT"[rng() % 4]);
  s.resize(static_cast<std::size_t>(length));
  return s;
}

// A copy of `source` with substitutions, insertions, deletions, and clipped/extended ends.
std::string mutate(std::mt19937_64& rng, const std::string& source, int max_length) {
  std::string s;
  const int rate = uniform(rng, 0, 3) == 0 ? 4 : 40;
  for (char c : source) {
    const int roll = static_cast<int>(rng() % static_cast<unsigned>(rate));
    if (roll == 0) {
      s += "ACGT"[rng() % 4];
    } else if (roll == 1) {
      s.append(static_cast<std::size_t>(uniform(rng, 1, 6)), "ACGT"[rng() % 4]);
      s += c;
    } else if (roll == 2) {
      // deletion: skip
    } else {
      s += c;
    }
  }
  if (rng() % 3 == 0 && s.size() > 2)
    s.erase(0, static_cast<std::size_t>(uniform(rng, 1, static_cast<int>(s.size()) / 2)));
  if (rng() % 3 == 0 && s.size() > 2)
    s.resize(s.size() - static_cast<std::size_t>(uniform(rng, 1, static_cast<int>(s.size()) / 2)));
  if (rng() % 4 == 0) s = random_bases(rng, uniform(rng, 1, 20), "ACGT", 4) + s;
  if (rng() % 4 == 0) s += random_bases(rng, uniform(rng, 1, 20), "ACGT", 4);
  if (s.empty()) s.push_back('A');
  if (static_cast<int>(s.size()) > max_length) s.resize(static_cast<std::size_t>(max_length));
  return s;
}

}  // namespace

std::vector<AlignerCase> load_aligner_cases() {
  std::vector<AlignerCase> cases;
  for (const auto& f : read_rows("gatk_golden/sw/aligner_cases.tsv")) {
    AlignerCase c;
    c.ref = f.at(0);
    c.alt = f.at(1);
    c.parameters = {std::stoi(f.at(2)), std::stoi(f.at(3)), std::stoi(f.at(4)), std::stoi(f.at(5))};
    c.strategy = kernels::parse_overhang_strategy(f.at(6)).value();
    c.offset = std::stoi(f.at(7));
    c.cigar = f.at(8);
    cases.push_back(c);
  }
  return cases;
}

std::vector<CalculateCigarCase> load_calculate_cigar_cases() {
  std::vector<CalculateCigarCase> cases;
  for (const auto& f : read_rows("gatk_golden/sw/calculate_cigar_cases.tsv")) {
    cases.push_back({f.at(0), f.at(1), f.at(2)});
  }
  return cases;
}

const std::vector<kernels::SwParameters>& gatk_parameter_sets() {
  static const std::vector<kernels::SwParameters> sets = {
      kernels::kSwOriginalDefault, kernels::kSwStandardNgs, kernels::kSwNewParameters,
      kernels::kSwReadToHaplotype};
  return sets;
}

const std::vector<kernels::OverhangStrategy>& all_strategies() {
  static const std::vector<kernels::OverhangStrategy> strategies = {
      kernels::OverhangStrategy::kSoftClip, kernels::OverhangStrategy::kIndel,
      kernels::OverhangStrategy::kLeadingIndel, kernels::OverhangStrategy::kIgnore};
  return strategies;
}

kernels::SequencePairs random_pairs(std::size_t count, int max_length, std::uint64_t seed,
                                    bool long_pairs) {
  std::mt19937_64 rng(seed);
  kernels::SequencePairs pairs;
  for (std::size_t k = 0; k < count; ++k) {
    // Mostly short pairs, some up to max_length.
    const int cap = long_pairs || rng() % 8 == 0 ? max_length : std::min(max_length, 300);
    const int ref_length = uniform(rng, long_pairs ? std::max(1, max_length / 2) : 1, cap);
    std::string ref;
    switch (rng() % 5) {
      case 0:
        ref = random_bases(rng, ref_length, "ACGT", 4);
        break;
      case 1:
        ref = repeat(rng, ref_length);
        break;
      case 2:
        ref = homopolymers(rng, ref_length);
        break;
      case 3:
        ref = random_bases(rng, ref_length, "ACGTN", 5);
        break;
      default:
        ref = random_bases(rng, ref_length, "AC", 2);
        break;
    }
    std::string alt;
    switch (rng() % 6) {
      case 0:
        alt = random_bases(rng, uniform(rng, 1, cap), "ACGT", 4);
        break;   // unrelated
      case 1: {  // exact substring (the shortcut)
        const int len = uniform(rng, 1, ref_length);
        alt = ref.substr(static_cast<std::size_t>(uniform(rng, 0, ref_length - len)),
                         static_cast<std::size_t>(len));
        break;
      }
      case 2:
        alt = repeat(rng, uniform(rng, 1, cap));
        break;
      default:
        alt = mutate(rng, ref, max_length);
        break;
    }
    if (rng() % 2 == 0 && alt.size() > ref.size()) std::swap(ref, alt);  // mostly alt <= ref
    pairs.add(ref, alt);
  }
  return pairs;
}

}  // namespace gpp::test
