// GATK HaplotypeCaller's engine arguments (assembly regions, activity priors, padding, read
// preparation, PairHMM inputs, likelihoods, assembly graph, phasing), each bound to the
// HaplotypeCallerOptions field that already carries GATK's default; see caller_arguments.hpp.
#include "pipeline/caller_arguments.hpp"

namespace gpp::pipeline {

void add_caller_engine_options(CLI::App& app, CallerArguments& arguments) {
  stages::call::HaplotypeCallerOptions& caller = arguments.caller;
  // Assembly regions (AssemblyRegionArgumentCollection).
  app.add_option("--min-assembly-region-size", caller.regions.min_region_size,
                 "shortest assembly region (default 50)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--max-assembly-region-size", caller.regions.max_region_size,
                 "longest assembly region (default 300)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--assembly-region-padding", caller.regions.padding,
                 "reference bases around an assembly region (default 100)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--active-probability-threshold", caller.regions.active_prob_threshold,
                 "activity above which a locus is active (default 0.002)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--max-prob-propagation-distance", caller.regions.max_prob_propagation_distance,
                 "bases an active locus's probability spreads (default 50)")
      ->check(CLI::Range(0, 1 << 20));
  // Priors of the activity and genotyping models (GenotypeCalculationArgumentCollection).
  app.add_option("--heterozygosity", arguments.heterozygosity,
                 "prior SNP heterozygosity (default 0.001)")
      ->check(CLI::Range(1e-12, 1.0));
  app.add_option("--indel-heterozygosity", arguments.indel_heterozygosity,
                 "prior indel heterozygosity (default 1/8000)")
      ->check(CLI::Range(1e-12, 1.0));
  app.add_option("--heterozygosity-stdev", arguments.heterozygosity_stdev,
                 "standard deviation of the heterozygosity prior (default 0.01)")
      ->check(CLI::Range(1e-12, 1.0));
  app.add_option("--max-genotype-count", caller.max_genotype_count,
                 "alternate alleles are dropped where a site would have more genotypes (1024)")
      ->check(CLI::Range(1, 1 << 24));
  app.add_option("--max-mnp-distance", caller.max_mnp_distance,
                 "substitutions this close on a haplotype are one MNP (default 0: none; also "
                 "-mnp-dist)")
      ->check(CLI::Range(0, 1 << 20));
  // Where variants are genotyped (the trimmed region's padding).
  app.add_option("--padding-around-snps", caller.padding.snp,
                 "reference bases kept around a SNP when trimming (default 20)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--padding-around-indels", caller.padding.indel,
                 "reference bases kept around an indel when trimming (default 75)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--padding-around-strs", caller.padding.str,
                 "reference bases kept around a tandem repeat when trimming (default 75)")
      ->check(CLI::Range(0, 1 << 20));
  // Read preparation.
  app.add_flag_callback(
      "--do-not-correct-overlapping-quality",
      [&caller] { caller.finalization.correct_overlapping_base_qualities = false; },
      "leave the qualities of a fragment's overlapping mates as they are");
  app.add_flag("--soft-clip-low-quality-ends", caller.finalization.soft_clip_low_quality_ends,
               "soft-clip low-quality read ends instead of hard-clipping them");
  app.add_flag("--override-fragment-softclip-check",
               caller.finalization.override_softclip_fragment_check,
               "use soft-clipped bases even of reads whose fragment size is not well defined");
  // PairHMM inputs and likelihoods (LikelihoodEngineArgumentCollection).
  app.add_option("--base-quality-score-threshold", caller.hmm_inputs.base_quality_score_threshold,
                 "base qualities below this become the minimum in the PairHMM (default 18)")
      ->check(CLI::Range(0, 93));
  app.add_flag_callback(
      "--disable-cap-base-qualities-to-map-quality",
      [&caller] { caller.hmm_inputs.cap_base_qualities_to_map_quality = false; },
      "do not cap base qualities at the read's mapping quality");
  app.add_option("--pair-hmm-gap-continuation-penalty", caller.hmm_inputs.gap_continuation_penalty,
                 "PairHMM gap continuation penalty (default 10)")
      ->check(CLI::Range(0, 93));
  app.add_option("--phred-scaled-global-read-mismapping-rate",
                 caller.likelihoods.phred_scaled_global_read_mismapping_rate,
                 "cap of a read's likelihood loss to mismapping, Phred (default 45; -1: none)")
      ->check(CLI::Range(-1, 1000));
  app.add_flag_callback(
      "--disable-symmetric-hmm-normalizing",
      [&caller] { caller.likelihoods.symmetrically_normalize_alleles_to_reference = false; },
      "normalise likelihoods to the best haplotype only, not symmetrically to the reference");
  app.add_option("--expected-mismatch-rate-for-read-disqualification",
                 caller.likelihoods.expected_error_rate_per_base,
                 "error rate per base a read may show before it is disqualified (default 0.02)")
      ->check(CLI::Range(0.0, 1.0));
  // Assembly graphs (ReadThreadingAssemblerArgumentCollection).
  app.add_flag("--dont-increase-kmer-sizes-for-cycles",
               caller.assembly.dont_increase_kmer_sizes_for_cycles,
               "do not try larger k-mers when a graph has cycles");
  app.add_flag("--allow-non-unique-kmers-in-ref", caller.assembly.allow_non_unique_kmers_in_ref,
               "assemble with k-mers that repeat in the reference");
  app.add_option("--num-pruning-samples", caller.assembly.num_pruning_samples,
                 "samples a chain needs --min-pruning support in (default 1)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_flag("--recover-all-dangling-branches", caller.assembly.recover_all_dangling_branches,
               "recover every dangling branch, not only those with a reference match");
  app.add_flag_callback(
      "--do-not-recover-dangling-branches",
      [&caller] { caller.assembly.recover_dangling_branches = false; },
      "do not recover dangling heads and tails into the graphs");
  app.add_option("--num-matching-bases-in-dangling-end-to-recover",
                 caller.assembly.min_matching_bases_to_dangling_end_recovery,
                 "bases a dangling end must match to be recovered (default -1: GATK's legacy "
                 "rules)")
      ->check(CLI::Range(-1, 1 << 20));
  app.add_flag_callback(
      "--do-not-run-physical-phasing", [&caller] { caller.physical_phasing = false; },
      "no PGT/PID/PS in a gVCF");
}

}  // namespace gpp::pipeline
