// GATK AssemblyBasedCallerUtils.phaseCalls and its parts (constructHaplotypeMapping,
// getSiteSpecificAlternateAllele, isBiallelicWithOneSiteSpecificAlternateAllele,
// isSiteSpecificAltAllele, constructPhaseSetMapping, constructPhaseGroups, createUniqueID,
// phaseVC) and HaplotypeCallerGenotypingEngine.assignGenotypeLikelihoods' calledHaplotypes.
//
// GATK keeps haplotype sets in HashSets of Haplotype (equal by bases, the likelihood matrix's
// haplotypes are distinct) and the phase-set mapping in a HashMap keyed by call; its result
// depends on neither's iteration order. Here the sets are sorted vectors of haplotype indices and
// the mapping a vector parallel to the calls.
#include "stages/call/physical_phasing.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "stages/call/alleles_at_locus.hpp"

namespace gpp::stages::call {

namespace {

using HaplotypeSet = std::vector<std::size_t>;  // sorted, each index once

HaplotypeSet normalised(std::vector<std::size_t> haplotypes) {
  std::sort(haplotypes.begin(), haplotypes.end());
  haplotypes.erase(std::unique(haplotypes.begin(), haplotypes.end()), haplotypes.end());
  return haplotypes;
}

bool contains_all(const HaplotypeSet& set, const HaplotypeSet& subset) {
  return std::includes(set.begin(), set.end(), subset.begin(), subset.end());
}

bool disjoint(const HaplotypeSet& a, const HaplotypeSet& b) {
  HaplotypeSet common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  return common.empty();
}

PhaseGroup opposite(PhaseGroup group) {
  return group == PhaseGroup::k01 ? PhaseGroup::k10 : PhaseGroup::k01;
}

/// htsjdk Genotype.isHet: every allele called and at least two of them different.
bool is_het(const std::vector<int>& alleles) {
  if (alleles.empty()) return false;
  for (int allele : alleles) {
    if (allele == kNoCallAlleleIndex) return false;
  }
  return std::any_of(alleles.begin(), alleles.end(), [&](int a) { return a != alleles[0]; });
}

/// AssemblyBasedCallerUtils.createUniqueID: "POS_REF_ALT" with the 1-based start and the first
/// alternate allele, whatever it is.
std::string phase_set_id(const VariantCall& call) {
  if (call.alleles.size() < 2) {
    throw Error("physical phasing: the call at " + std::to_string(call.position + 1) +
                " has no alternate allele");
  }
  return std::to_string(call.position + 1) + "_" + call.alleles[0] + "_" + call.alleles[1];
}

/// AssemblyBasedCallerUtils.phaseVC for the call's one sample. GATK writes PGT "0|1" even for a
/// hom-alt genotype (only GenotypeGVCFs rewrites it), so a hom keeps its alleles and gets the PGT
/// of its group.
void phase_call(VariantCall& call, const std::string& id, PhaseGroup group, std::int64_t ps) {
  std::vector<int>& alleles = call.genotype.alleles;
  const std::size_t alt_side = group == PhaseGroup::k01 ? 1 : 0;
  if (is_het(alleles) &&
      !is_site_specific_alt_allele(call.alleles, static_cast<std::size_t>(alleles[alt_side]))) {
    std::reverse(alleles.begin(), alleles.end());
  }
  call.phase = PhaseInfo{group == PhaseGroup::k01 ? "0|1" : "1|0", id, ps};
}

}  // namespace

bool is_site_specific_alt_allele(std::span<const std::string> alleles, std::size_t index) {
  if (index >= alleles.size()) {
    throw Error("physical phasing: allele index " + std::to_string(index) + " of a call with " +
                std::to_string(alleles.size()) + " alleles");
  }
  return index != 0 && alleles[index] != kNonRefAllele && alleles[index] != kSpanningDeletion;
}

void add_called_haplotypes(std::span<const std::vector<std::size_t>> haplotypes_of_allele,
                           std::span<const int> call_alleles,
                           std::vector<std::size_t>& called_haplotypes,
                           std::vector<std::size_t>* in_order) {
  for (int allele : call_alleles) {
    // GATK: alleleMapper.get(allele), null (skipped) for <NON_REF>
    if (allele < 0 || static_cast<std::size_t>(allele) >= haplotypes_of_allele.size()) continue;
    const std::vector<std::size_t>& carriers =
        haplotypes_of_allele[static_cast<std::size_t>(allele)];
    called_haplotypes.insert(called_haplotypes.end(), carriers.begin(), carriers.end());
    if (in_order) in_order->insert(in_order->end(), carriers.begin(), carriers.end());
  }
  called_haplotypes = normalised(std::move(called_haplotypes));
}

std::vector<std::vector<std::size_t>> haplotypes_with_site_specific_alt(
    std::span<const VariantCall> calls, std::span<const EventMap> event_maps,
    std::span<const std::size_t> called_haplotypes) {
  const HaplotypeSet called = normalised({called_haplotypes.begin(), called_haplotypes.end()});
  if (!called.empty() && called.back() >= event_maps.size()) {
    throw Error("physical phasing: called haplotype " + std::to_string(called.back()) +
                " of a region with " + std::to_string(event_maps.size()) + " haplotypes");
  }
  std::vector<std::vector<std::size_t>> result(calls.size());
  for (std::size_t c = 0; c < calls.size(); ++c) {
    const VariantCall& call = calls[c];
    // isBiallelicWithOneSiteSpecificAlternateAllele, then getSiteSpecificAlternateAllele
    const std::string* alt = nullptr;
    int site_specific = 0;
    for (std::size_t a = 1; a < call.alleles.size(); ++a) {
      if (!is_site_specific_alt_allele(call.alleles, a)) continue;
      if (site_specific++ == 0) alt = &call.alleles[a];
    }
    if (site_specific != 1) continue;
    for (std::size_t h : called) {
      const auto& events = event_maps[h].by_start();
      const auto event = events.find(call.position);
      if (event != events.end() && event->second.alt == *alt) result[c].push_back(h);
    }
  }
  return result;
}

std::vector<std::optional<PhaseSetMember>> phase_set_mapping(
    std::span<const std::vector<std::size_t>> haplotypes_by_call) {
  const std::size_t n = haplotypes_by_call.size();
  std::vector<HaplotypeSet> sets;
  sets.reserve(n);
  HaplotypeSet all;
  for (const std::vector<std::size_t>& haplotypes : haplotypes_by_call) {
    sets.push_back(normalised(haplotypes));
    all.insert(all.end(), sets.back().begin(), sets.back().end());
  }
  // totalAvailableHaplotypes: the haplotypes carrying any call's alternate allele
  const std::size_t total = normalised(std::move(all)).size();

  std::vector<std::optional<PhaseSetMember>> mapping(n);
  int next_set = 0;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const HaplotypeSet& call = sets[i];
    if (call.empty()) continue;
    // on all alternate haplotypes: not necessarily hom, the reference haplotype is not counted
    const bool call_on_all = call.size() == total;
    // the call's haplotypes still usable to phase later calls once it was phased with a call on
    // only some of them
    HaplotypeSet available = call;
    for (std::size_t j = i + 1; j < n; ++j) {
      const HaplotypeSet& comp = sets[j];
      if (comp.empty()) continue;
      const bool comp_on_all = comp.size() == total;
      if (call == comp || (call_on_all && contains_all(available, comp)) || comp_on_all) {
        // together on the alternate haplotypes: same phase ("0|1" even for a hom, phaseVC keeps
        // a hom's genotype)
        if (!mapping[i]) {
          // comp already phased with another call but not with this one: unphasable, drop all
          if (mapping[j]) return std::vector<std::optional<PhaseSetMember>>(n);
          mapping[i] = PhaseSetMember{next_set, PhaseGroup::k01};
          mapping[j] = PhaseSetMember{next_set, PhaseGroup::k01};
          HaplotypeSet narrowed;
          std::set_intersection(available.begin(), available.end(), comp.begin(), comp.end(),
                                std::back_inserter(narrowed));
          available = std::move(narrowed);
          ++next_set;
        } else if (!mapping[j]) {
          mapping[j] = mapping[i];
        }
      } else if (call.size() + comp.size() == total && disjoint(call, comp)) {
        // apart on every alternate haplotype: opposite phases
        if (!mapping[i]) {
          if (mapping[j]) return std::vector<std::optional<PhaseSetMember>>(n);
          mapping[i] = PhaseSetMember{next_set, PhaseGroup::k01};
          mapping[j] = PhaseSetMember{next_set, PhaseGroup::k10};
          ++next_set;
        } else if (!mapping[j]) {
          mapping[j] = PhaseSetMember{mapping[i]->phase_set, opposite(mapping[i]->group)};
        }
      }
    }
  }
  return mapping;
}

void apply_phase_sets(std::span<VariantCall> calls,
                      std::span<const std::optional<PhaseSetMember>> mapping) {
  if (calls.size() != mapping.size()) {
    throw Error("physical phasing: " + std::to_string(mapping.size()) + " phase entries for " +
                std::to_string(calls.size()) + " calls");
  }
  // phaseCalls' uniqueCounterEndValue: the number of distinct phase sets
  std::vector<int> distinct;
  for (const std::optional<PhaseSetMember>& member : mapping) {
    if (member) distinct.push_back(member->phase_set);
  }
  std::sort(distinct.begin(), distinct.end());
  const auto set_count =
      static_cast<int>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());

  for (int set = 0; set < set_count; ++set) {
    std::vector<std::size_t> members;
    for (std::size_t c = 0; c < calls.size(); ++c) {
      if (mapping[c] && mapping[c]->phase_set == set) members.push_back(c);
    }
    if (members.size() < 2) {
      throw Error("physical phasing: phase set " + std::to_string(set) +
                  " has fewer than 2 members");
    }
    // PID and PS come from the set's leftmost call; phasing changes no call's alleles
    const VariantCall& first = calls[members.front()];
    const std::string id = phase_set_id(first);
    const std::int64_t ps = first.position + 1;
    for (std::size_t c : members) phase_call(calls[c], id, mapping[c]->group, ps);
  }
}

void phase_calls(std::span<VariantCall> calls,
                 std::span<const std::vector<std::size_t>> haplotypes_by_call) {
  if (calls.size() != haplotypes_by_call.size()) {
    throw Error("physical phasing: " + std::to_string(haplotypes_by_call.size()) +
                " haplotype sets for " + std::to_string(calls.size()) + " calls");
  }
  apply_phase_sets(calls, phase_set_mapping(haplotypes_by_call));
}

}  // namespace gpp::stages::call
