// HaplotypeCaller's physical phasing of the calls of one assembly region (GATK
// AssemblyBasedCallerUtils.phaseCalls), run in reference-confidence mode for diploid samples
// (HaplotypeCallerGenotypingEngine.assignGenotypeLikelihoods with doPhysicalPhasing):
//  - each call with exactly one site-specific alternate allele (not REF, <NON_REF> or '*') is
//    mapped to the called haplotypes whose events carry that allele at the call's start
//    (constructHaplotypeMapping);
//  - calls are joined pairwise, in order, into phase sets: in phase when they lie on the same
//    alternate haplotypes (or one lies on all of them), out of phase when they lie on disjoint
//    haplotypes that together make all of them; a contradiction drops every set
//    (constructPhaseSetMapping);
//  - each call of a set gets PGT "0|1" or "1|0", PID and PS from the set's first call, and its
//    genotype written phased, a het's alleles swapped so the alternate allele sits where PGT puts
//    it (constructPhaseGroups, phaseVC).
//
// A call is phased iff VariantCall::phase is set; Genotype::alleles then lists the alleles in
// phase order (no longer necessarily increasing).
//
// @code
//   // calls at 0-based 1 (A>C), 2 (A>C), 3 (A>T), genotypes 0/1; haplotype 0 carries the first
//   // and third, haplotype 1 the second
//   const std::vector<std::size_t> called = {0, 1};
//   auto by_call = haplotypes_with_site_specific_alt(calls, event_maps, called);
//   // by_call == {{0}, {1}, {0}}
//   phase_calls(calls, by_call);
//   // GT 0|1, 1|0, 0|1; PGT "0|1", "1|0", "0|1"; PID "2_A_C" and PS 2 on all three
// @endcode
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stages/call/event_map.hpp"
#include "stages/call/variant_call.hpp"

namespace gpp::stages::call {

/// AssemblyBasedCallerUtils.PhaseGroup: the alleles of the two phased haplotypes at a call, 0 for
/// REF or '*', 1 for the site-specific alternate allele.
enum class PhaseGroup {
  k01,  ///< PGT "0|1": the alternate allele on the second haplotype
  k10,  ///< PGT "1|0": the alternate allele on the first haplotype
};

/// One call's entry in constructPhaseSetMapping's result: its phase set and its phase within it.
struct PhaseSetMember {
  int phase_set = 0;  ///< 0, 1, ... in the order the sets were created
  PhaseGroup group = PhaseGroup::k01;

  bool operator==(const PhaseSetMember&) const = default;
};

/// AssemblyBasedCallerUtils.isSiteSpecificAltAllele: allele `index` of `alleles` (REF first) is
/// concrete variation starting at the site: not the reference, <NON_REF> or '*'.
bool is_site_specific_alt_allele(std::span<const std::string> alleles, std::size_t index);

/**
 * @brief assignGenotypeLikelihoods' calledHaplotypes, one call at a time: adds to
 * `called_haplotypes` the haplotypes carrying each allele of an emitted call.
 *
 * @param haplotypes_of_allele per allele of the locus (LocusAlleles::haplotypes), the haplotype
 *                             indices carrying it
 * @param call_alleles         the call's alleles as indices into haplotypes_of_allele (the
 *                             genotyping result's alleles, reference included); an index past the
 *                             end (<NON_REF>, which no haplotype carries) adds nothing
 * @param called_haplotypes    kept sorted, each index once
 * @param in_order             when given, also receives the carriers as GATK's HashSet receives
 *                             them (each allele's in turn, repeats included; -bamout's order)
 */
void add_called_haplotypes(std::span<const std::vector<std::size_t>> haplotypes_of_allele,
                           std::span<const int> call_alleles,
                           std::vector<std::size_t>& called_haplotypes,
                           std::vector<std::size_t>* in_order = nullptr);

/**
 * @brief AssemblyBasedCallerUtils.constructHaplotypeMapping: for each call, the called haplotypes
 * whose event map holds an event starting at the call's position with the call's site-specific
 * alternate allele as its alt.
 *
 * @param calls             the region's calls in order, alleles as they are written (after
 *                          reverse trimming, <NON_REF> included in reference-confidence mode)
 * @param event_maps        one per haplotype of the region, in the likelihood matrix's order
 * @param called_haplotypes indices into event_maps (add_called_haplotypes' result)
 * @return per call, ascending haplotype indices; empty for a call that does not have exactly one
 *         site-specific alternate allele
 * @throws gpp::Error for a haplotype index outside event_maps
 */
std::vector<std::vector<std::size_t>> haplotypes_with_site_specific_alt(
    std::span<const VariantCall> calls, std::span<const EventMap> event_maps,
    std::span<const std::size_t> called_haplotypes);

/**
 * @brief AssemblyBasedCallerUtils.constructPhaseSetMapping over the calls of one region.
 *
 * @param haplotypes_by_call per call in order, the haplotypes carrying its alternate allele
 *                           (haplotypes_with_site_specific_alt); any order, duplicates ignored
 * @return per call, its phase set and phase, or nullopt when unphased; all nullopt when the
 *         pairwise relations contradict each other
 */
std::vector<std::optional<PhaseSetMember>> phase_set_mapping(
    std::span<const std::vector<std::size_t>> haplotypes_by_call);

/**
 * @brief AssemblyBasedCallerUtils.constructPhaseGroups + phaseVC: sets VariantCall::phase of the
 * members of each phase set (PID "POS_REF_ALT" of the set's first call with its first alternate
 * allele, 1-based POS; PS that POS; PGT of the member's group) and puts a het genotype's alleles in
 * phase order (reversed when the allele at the PGT's alternate side is not site-specific).
 *
 * @param calls   the calls phase_set_mapping was computed for
 * @param mapping per call, as phase_set_mapping returns
 * @throws gpp::Error if the sizes differ or a phase set numbered below the number of distinct
 *         sets has fewer than two members (GATK's IllegalStateException)
 */
void apply_phase_sets(std::span<VariantCall> calls,
                      std::span<const std::optional<PhaseSetMember>> mapping);

/**
 * @brief AssemblyBasedCallerUtils.phaseCalls given the haplotype mapping: phase_set_mapping, then
 * apply_phase_sets. Calls left out of every phase set are not changed.
 * @throws gpp::Error if haplotypes_by_call does not have one entry per call
 */
void phase_calls(std::span<VariantCall> calls,
                 std::span<const std::vector<std::size_t>> haplotypes_by_call);

}  // namespace gpp::stages::call
