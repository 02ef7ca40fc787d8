// GATK AssemblyBasedCallerUtils.getVariantsFromActiveHaplotypes / createAlleleMapper,
// HaplotypeCallerGenotypingEngine.replaceSpanDels / removeAltAllelesIfTooManyGenotypes /
// whichAllelesToKeepBasedonHapScores, GATKVariantContextUtils.simpleMerge / createAlleleMapping /
// determineReferenceAllele, GenotypeIndexCalculator.computeMaxAcceptableAlleleCount.
#include "stages/call/alleles_at_locus.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/java_priority_queue.hpp"

namespace gpp::stages::call {

std::vector<Event> events_at_locus(std::int64_t loc, std::span<const EventMap> event_maps,
                                   bool include_spanning_events) {
  std::vector<Event> result;
  for (const EventMap& map : event_maps) {
    for (Event& event : map.overlapping_events(loc)) {
      if (!include_spanning_events && event.start != loc) continue;
      if (std::find(result.begin(), result.end(), event) == result.end()) {
        result.push_back(std::move(event));
      }
    }
  }
  return result;
}

std::optional<MergedAlleles> merge_alleles_at_locus(std::int64_t loc, std::span<const Event> events,
                                                    char reference_base) {
  if (events.empty()) return std::nullopt;
  // replaceSpanDels: an event starting before loc stands in as REF/* at loc
  struct Record {
    std::string ref;
    std::string alt;
  };
  std::vector<Record> records;
  records.reserve(events.size());
  for (const Event& e : events) {
    if (e.start == loc) {
      records.push_back({e.ref, e.alt});
    } else {
      records.push_back({std::string(1, reference_base), std::string(kSpanningDeletion)});
    }
  }
  // determineReferenceAllele: the longest; two of one length must be equal
  std::string ref;
  for (const Record& r : records) {
    if (ref.empty() || ref.size() < r.ref.size()) {
      ref = r.ref;
    } else if (ref.size() == r.ref.size() && ref != r.ref) {
      throw Error("The provided reference alleles do not appear to represent the same position, " +
                  ref + " vs. " + r.ref);
    }
  }
  // simpleMerge: each record's alleles remapped to the common reference (createAlleleMapping);
  // VariantContext puts the reference first and keeps the alternates in first-seen order
  MergedAlleles merged;
  merged.start = loc;
  merged.stop = loc + static_cast<std::int64_t>(ref.size()) - 1;
  merged.alleles.push_back(ref);
  for (const Record& r : records) {
    std::string alt = r.alt;
    if (alt != kSpanningDeletion && r.ref.size() < ref.size()) alt += ref.substr(r.ref.size());
    if (alt == ref) throw Error("Duplicate allele added to VariantContext: " + alt);
    if (std::find(merged.alleles.begin() + 1, merged.alleles.end(), alt) == merged.alleles.end()) {
      merged.alleles.push_back(std::move(alt));
    }
  }
  return merged;
}

LocusAlleles map_alleles_to_haplotypes(const MergedAlleles& merged, std::int64_t loc,
                                       std::span<const EventMap> event_maps,
                                       bool emit_spanning_deletions) {
  LocusAlleles result;
  result.loc = loc;
  result.merged = merged;
  result.alleles = merged.alleles;
  result.merged_allele_count = merged.alleles.size();
  result.haplotypes.resize(result.alleles.size());
  const std::string& ref = merged.alleles.front();

  auto alt_index = [&](std::string_view allele) -> std::optional<std::size_t> {
    for (std::size_t a = 1; a < result.alleles.size(); ++a) {
      if (result.alleles[a] == allele) return a;
    }
    return std::nullopt;
  };

  for (std::size_t h = 0; h < event_maps.size(); ++h) {
    const std::vector<Event> overlapping = event_maps[h].overlapping_events(loc);
    if (overlapping.empty()) {  // no event: this haplotype carries the reference here
      result.haplotypes[0].push_back(h);
      continue;
    }
    for (const Event& event : overlapping) {
      if (event.start == loc) {
        std::optional<std::size_t> index;
        if (event.ref.size() == ref.size()) {
          index = alt_index(event.alt);
        } else if (event.ref.size() < ref.size()) {
          index = alt_index(event.alt + ref.substr(event.ref.size()));
        }
        // an allele missing from the merged list (given-alleles mode) takes no haplotype
        if (index) result.haplotypes[*index].push_back(h);
        continue;
      }
      // the event starts before loc: a spanning deletion (GATK stops at the first one)
      if (emit_spanning_deletions) {
        std::optional<std::size_t> index = alt_index(kSpanningDeletion);
        if (!index) {
          result.alleles.emplace_back(kSpanningDeletion);
          result.haplotypes.emplace_back();
          index = result.alleles.size() - 1;
        }
        result.haplotypes[*index].push_back(h);
      } else {
        result.haplotypes[0].push_back(h);
      }
      break;
    }
  }
  return result;
}

std::vector<LocusAlleles> alleles_in_calling_window(std::span<const EventMap> event_maps,
                                                    const ReferenceWindow& reference,
                                                    ContigInterval calling_window) {
  std::vector<LocusAlleles> loci;
  for (std::int64_t loc : event_start_positions(event_maps)) {
    if (loc < calling_window.first || loc > calling_window.last) continue;
    const std::int64_t offset = loc - reference.start;
    if (offset < 0 || offset >= static_cast<std::int64_t>(reference.bases.size())) {
      throw Error("event start " + std::to_string(loc) + " lies outside the reference window");
    }
    const std::vector<Event> events = events_at_locus(loc, event_maps, true);
    std::optional<MergedAlleles> merged =
        merge_alleles_at_locus(loc, events, reference.bases[static_cast<std::size_t>(offset)]);
    if (!merged) continue;
    loci.push_back(map_alleles_to_haplotypes(*merged, loc, event_maps, true));
  }
  return loci;
}

int max_acceptable_allele_count(int ploidy, int max_genotype_count) {
  if (ploidy < 1) throw Error("ploidy must be at least 1, got " + std::to_string(ploidy));
  if (max_genotype_count < 1) throw Error("max genotype count must be at least 1");
  if (ploidy == 1) return max_genotype_count;
  // genotypes of a alleles at ploidy p: C(p + a - 1, a - 1); C for a + 1 = C for a * (p + a) / a
  std::uint64_t genotypes = 1;  // a = 1
  int alleles = 1;
  while (true) {
    const std::uint64_t next = genotypes * static_cast<std::uint64_t>(ploidy + alleles) /
                               static_cast<std::uint64_t>(alleles);
    if (next > static_cast<std::uint64_t>(max_genotype_count)) return alleles;
    genotypes = next;
    ++alleles;
  }
}

namespace {

/// Double.compareTo: -0.0 before 0.0, NaN after everything, NaN equal to NaN.
int java_double_compare(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  const bool a_nan = std::isnan(a);
  const bool b_nan = std::isnan(b);
  if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
  return std::signbit(a) == std::signbit(b) ? 0 : (std::signbit(a) ? -1 : 1);
}

bool java_double_equals(double a, double b) { return java_double_compare(a, b) == 0; }

struct ScoredAllele {
  std::size_t index;
  bool is_reference;
  std::string_view bases;
  double best;
  double second_best;
};

/// Allele.compareTo: the reference first, then bases byte by byte, then length.
int allele_compare(const ScoredAllele& a, const ScoredAllele& b) {
  if (a.is_reference && !b.is_reference) return -1;
  if (!a.is_reference && b.is_reference) return 1;
  const std::size_t n = std::min(a.bases.size(), b.bases.size());
  for (std::size_t i = 0; i < n; ++i) {
    const int diff = static_cast<signed char>(a.bases[i]) - static_cast<signed char>(b.bases[i]);
    if (diff != 0) return diff < 0 ? -1 : 1;
  }
  return a.bases.size() < b.bases.size() ? -1 : (a.bases.size() > b.bases.size() ? 1 : 0);
}

/// AlleleScoredByHaplotypeScores.compareTo.
int scored_compare(const ScoredAllele& a, const ScoredAllele& b) {
  if (a.is_reference && !b.is_reference) return -1;
  if (!a.is_reference && b.is_reference) return 1;
  if (a.best > b.best) return -1;
  if (a.best < b.best) return 1;
  if (!java_double_equals(a.second_best, b.second_best)) {
    return a.second_best > b.second_best ? -1 : 1;
  }
  return allele_compare(a, b);
}

/// ScoredAllele's compareTo as a comparator (java.util.PriorityQueue of Comparable elements).
struct ScoredAlleleOrder {
  int operator()(const ScoredAllele& a, const ScoredAllele& b) const {
    return scored_compare(a, b);
  }
};

}  // namespace

std::vector<std::size_t> alleles_to_keep_by_haplotype_scores(
    std::span<const std::string> alleles,
    std::span<const std::vector<std::size_t>> haplotypes_of_allele,
    std::span<const double> haplotype_scores, std::size_t desired) {
  std::vector<std::size_t> kept;
  if (alleles.size() <= desired) {
    for (std::size_t a = 0; a < alleles.size(); ++a) kept.push_back(a);
    return kept;
  }
  JavaPriorityQueue<ScoredAllele, ScoredAlleleOrder> queue;
  for (std::size_t a = 0; a < alleles.size(); ++a) {
    std::vector<double> scores;
    for (std::size_t h : haplotypes_of_allele[a]) scores.push_back(haplotype_scores[h]);
    std::sort(scores.begin(), scores.end(),
              [](double x, double y) { return java_double_compare(x, y) < 0; });
    const double none = -std::numeric_limits<double>::infinity();
    queue.offer({a, a == 0, alleles[a], scores.empty() ? none : scores.back(),
                 scores.size() > 1 ? scores[scores.size() - 2] : none});
  }
  std::vector<bool> keep(alleles.size(), false);
  for (std::size_t n = 0; n < desired; ++n) keep[queue.poll().index] = true;
  for (std::size_t a = 0; a < alleles.size(); ++a) {
    if (keep[a]) kept.push_back(a);
  }
  return kept;
}

bool remove_alleles_if_too_many_genotypes(LocusAlleles& locus,
                                          std::span<const double> haplotype_scores, int ploidy,
                                          int max_genotype_count) {
  const auto practical =
      static_cast<std::size_t>(max_acceptable_allele_count(ploidy, max_genotype_count));
  if (locus.alleles.size() <= practical) return false;
  const std::vector<std::size_t> kept = alleles_to_keep_by_haplotype_scores(
      locus.alleles, locus.haplotypes, haplotype_scores, practical);
  std::vector<std::string> alleles;
  std::vector<std::vector<std::size_t>> haplotypes;
  for (std::size_t a : kept) {
    alleles.push_back(locus.alleles[a]);
    haplotypes.push_back(locus.haplotypes[a]);
  }
  // the merged allele list keeps the same alleles, in its own order
  std::vector<std::string> merged;
  for (std::size_t a = 0; a < locus.merged.alleles.size(); ++a) {
    const std::string& allele = locus.merged.alleles[a];
    const bool is_kept =
        a == 0 ? std::find(kept.begin(), kept.end(), 0) != kept.end()
               : std::find(alleles.begin() + 1, alleles.end(), allele) != alleles.end();
    if (is_kept) merged.push_back(allele);
  }
  locus.alleles = std::move(alleles);
  locus.haplotypes = std::move(haplotypes);
  locus.merged.alleles = std::move(merged);
  return true;
}

}  // namespace gpp::stages::call
