#include "bench/generator/truth_set.hpp"

#include <algorithm>

namespace gpp::bench {

namespace {

constexpr char kBases[] = "ACGT";

bool is_acgt(char base) { return base == 'A' || base == 'C' || base == 'G' || base == 'T'; }

char transition(char base) {
  switch (base) {
    case 'A':
      return 'G';
    case 'G':
      return 'A';
    case 'C':
      return 'T';
    default:
      return 'C';
  }
}

char transversion(char base, std::uint64_t draw) {
  const bool purine = base == 'A' || base == 'G';
  return purine ? "CT"[draw & 1] : "AG"[draw & 1];
}

// A deletion of bases [p + 1, p + 1 + length) or an insertion of `inserted` after base p,
// shifted left while the haplotype stays the same (the leftmost representation, as left-aligning
// aligners and `bcftools norm` write it); the shift stops at an N (draw_truth drops those).
Variant left_aligned_deletion(std::string_view bases, std::int64_t p, int length) {
  while (p > 1 && bases[p] == bases[p + length] && is_acgt(bases[p - 1])) --p;
  return {
      .pos = p, .ref = std::string(bases.substr(p, length + 1)), .alt = std::string(1, bases[p])};
}

Variant left_aligned_insertion(std::string_view bases, std::int64_t p, std::string inserted) {
  while (p > 1 && bases[p] == inserted.back() && is_acgt(bases[p - 1])) {
    inserted.pop_back();
    inserted.insert(inserted.begin(), bases[p]);
    --p;
  }
  return {.pos = p, .ref = std::string(1, bases[p]), .alt = bases[p] + inserted};
}

}  // namespace

std::string Variant::genotype() const {
  return haplotypes == 1 ? "1|0" : haplotypes == 2 ? "0|1" : "1|1";
}

std::vector<Variant> draw_truth(std::string_view bases, const VariantRates& rates,
                                std::mt19937_64& rng) {
  std::vector<Variant> truth;
  const double rate = rates.snp + rates.indel;
  if (rate <= 0) return truth;
  std::exponential_distribution<double> distance(rate);
  std::uniform_real_distribution<double> unit(0, 1);
  std::geometric_distribution<int> extra_length(0.4);
  const auto size = static_cast<std::int64_t>(bases.size());
  std::int64_t first_allowed = kMinVariantGap;  // the next variant starts here or later
  double at = 0;
  while (true) {
    at += distance(rng);
    const auto p = static_cast<std::int64_t>(at);
    if (p + 12 >= size) break;
    if (p < first_allowed || !is_acgt(bases[p])) continue;
    Variant v;
    if (unit(rng) < rates.snp / rate) {
      const std::uint64_t draw = rng();
      const char alt = draw % 3 != 0 ? transition(bases[p]) : transversion(bases[p], draw >> 8);
      v = {.pos = p, .ref = std::string(1, bases[p]), .alt = std::string(1, alt)};
    } else {
      const int length = std::min(10, 1 + extra_length(rng));
      if (rng() & 1) {
        v = left_aligned_deletion(bases, p, length);
      } else {
        std::string inserted;
        for (int k = 0; k < length; ++k) inserted += kBases[rng() & 3];
        v = left_aligned_insertion(bases, p, std::move(inserted));
      }
    }
    // Not past the previous variant, and left-aligned all the way (not stopped by an N).
    if (v.pos < first_allowed || !is_acgt(bases[v.pos - 1])) continue;
    const std::string_view span = bases.substr(v.pos, v.ref.size() + 1);
    if (!std::all_of(span.begin(), span.end(), is_acgt)) continue;
    const double zygosity = unit(rng);
    v.haplotypes = zygosity < 0.3 ? 1 : zygosity < 0.6 ? 2 : 3;
    first_allowed = v.ref_end() + kMinVariantGap;
    truth.push_back(std::move(v));
  }
  return truth;
}

std::vector<Variant> draw_known_sites(std::string_view bases, const std::vector<Variant>& truth,
                                      const VariantRates& rates, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<Variant> known;
  for (const Variant& v : truth) {
    if (unit(rng) < rates.known) known.push_back({.pos = v.pos, .ref = v.ref, .alt = v.alt});
  }
  const auto novel =
      static_cast<std::int64_t>(rates.novel_known * static_cast<double>(truth.size()) + 0.5);
  std::uniform_int_distribution<std::int64_t> position(1,
                                                       static_cast<std::int64_t>(bases.size()) - 2);
  for (std::int64_t k = 0; k < novel && bases.size() > 3; ++k) {
    const std::int64_t p = position(rng);
    if (!is_acgt(bases[p])) continue;
    // Away from every truth variant: the first one that ends near or after p must start after it.
    const auto next = std::partition_point(truth.begin(), truth.end(), [p](const Variant& v) {
      return v.ref_end() + kMinVariantGap <= p;
    });
    if (next != truth.end() && next->pos - kMinVariantGap <= p) continue;
    known.push_back(
        {.pos = p, .ref = std::string(1, bases[p]), .alt = std::string(1, transition(bases[p]))});
  }
  std::stable_sort(known.begin(), known.end(),
                   [](const Variant& a, const Variant& b) { return a.pos < b.pos; });
  known.erase(std::unique(known.begin(), known.end(),
                          [](const Variant& a, const Variant& b) { return a.pos == b.pos; }),
              known.end());
  return known;
}

}  // namespace gpp::bench
