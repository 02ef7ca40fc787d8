// AssemblyResultSet.addGivenAlleles / makeHaplotypeWithInsertedEvent (GATK 4.6).
#include "stages/call/given_allele_haplotypes.hpp"

#include <algorithm>
#include <numeric>

#include "stages/call/given_alleles.hpp"
#include "stages/call/kbest_haplotype_finder.hpp"

namespace gpp::stages::call {

namespace {

bool overlaps(const Event& a, const Event& b) { return a.start <= b.stop() && b.start <= a.stop(); }

/// The haplotypes the given events go into: the reference, then by score descending
/// (Double.compare reversed: NaN first), ties in list order, at most
/// kHaplotypesToInjectGivenAllelesInto.
std::vector<std::size_t> base_haplotypes(std::span<const Haplotype> haplotypes) {
  std::vector<std::size_t> order(haplotypes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Haplotype& x = haplotypes[a];
    const Haplotype& y = haplotypes[b];
    if (x.is_reference != y.is_reference) return x.is_reference;
    return detail::java_double_compare(x.score, y.score) > 0;
  });
  order.resize(std::min(order.size(), kHaplotypesToInjectGivenAllelesInto));
  return order;
}

}  // namespace

std::vector<std::string> haplotypes_with_given_events(std::span<const Haplotype> haplotypes,
                                                      std::span<const Event> given,
                                                      const ReferenceWindow& reference,
                                                      int max_mnp_distance) {
  std::vector<std::string> added;
  if (given.empty()) return added;
  std::vector<std::vector<Event>> events;
  events.reserve(haplotypes.size());
  for (const Haplotype& haplotype : haplotypes) {
    events.push_back(event_map_from_haplotype(haplotype, reference, max_mnp_distance).events());
  }
  const auto assembled = [&](const Event& event) {
    return std::any_of(events.begin(), events.end(), [&](const std::vector<Event>& own) {
      return std::find(own.begin(), own.end(), event) != own.end();
    });
  };
  const auto present = [&](const std::string& bases) {
    const bool known = std::any_of(haplotypes.begin(), haplotypes.end(), [&](const Haplotype& h) {
      return !h.is_reference && h.bases == bases;
    });
    return known || std::find(added.begin(), added.end(), bases) != added.end();
  };
  const std::vector<std::size_t> bases = base_haplotypes(haplotypes);
  for (const Event& event : given) {
    if (assembled(event) || is_symbolic_allele(event.alt) || event.alt == "*") continue;
    for (const std::size_t h : bases) {
      const std::vector<Event>& own = events[h];
      if (std::any_of(own.begin(), own.end(), [&](const Event& e) { return overlaps(e, event); })) {
        continue;
      }
      std::optional<std::string> inserted =
          insert_allele(haplotypes[h], event.ref, event.alt, event.start);
      if (inserted && !present(*inserted)) added.push_back(std::move(*inserted));
    }
  }
  return added;
}

void add_given_haplotypes(std::vector<Haplotype>& haplotypes, std::size_t reference_index,
                          std::span<const std::string> bases, const HaplotypeCigars& cigars,
                          std::size_t first) {
  const Haplotype reference = haplotypes[reference_index];
  for (std::size_t i = 0; i < bases.size(); ++i) {
    if (!cigars.has_cigar(first + i)) continue;
    haplotypes.push_back(make_haplotype(bases[i], cigars.cigar(first + i),
                                        reference.alignment_start_wrt_ref, reference.location,
                                        false));
  }
}

}  // namespace gpp::stages::call
