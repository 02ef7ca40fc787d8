// HaplotypeCaller's arguments, declared once for every command that calls (`call` and `run`), so
// that an option added here reaches both.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/sample_sex.hpp"
#include "stages/call/annotations/annotation_set.hpp"
#include "stages/call/caller_options.hpp"
#include "stages/call/gvcf_blocks.hpp"

namespace gpp::pipeline {

/// --adaptive-pruning and its model's parameters (used only with the flag).
struct AdaptivePruningArguments {
  bool enabled = false;
  stages::call::AdaptivePruning model;
};

struct CallerArguments {
  stages::call::HaplotypeCallerOptions caller;  ///< as given; options() derives the rest
  std::string pcr_indel_model = "CONSERVATIVE";
  std::string output_mode = "EMIT_VARIANTS_ONLY";
  std::string ploidy_regions;                      ///< --ploidy-regions BED
  std::string dbsnp;                               ///< -D / --dbsnp: known variants' IDs
  std::string alleles;                             ///< --alleles: alleles to force-call
  std::string sample_name;                         ///< --sample-name: the sample to call
  std::string contamination_file;                  ///< --contamination-fraction-per-sample-file
  std::vector<std::string> disabled_read_filters;  ///< -DF / --disable-read-filter
  std::string smith_waterman;                      ///< GATK's --smith-waterman (accepted)
  std::string pair_hmm;                            ///< GATK's --pair-hmm-implementation
  stages::call::GvcfOptions blocks;                ///< -GQB, --floor-blocks (gVCF outputs)
  stages::call::AnnotationArguments annotations;   ///< -A, -AX, -G, as given
  AdaptivePruningArguments adaptive_pruning;
  /// --heterozygosity, --indel-heterozygosity, --heterozygosity-stdev: the activity's and the
  /// genotyping's priors (options() sets both).
  double heterozygosity = stages::call::kDefaultSnpHeterozygosity;
  double indel_heterozygosity = stages::call::kDefaultIndelHeterozygosity;
  double heterozygosity_stdev = stages::call::kDefaultHeterozygosityStdev;
  SexArguments sex;        ///< --sample-sex, --range-male, --range-female, --use-GRCh37-regions
  std::string bam_output;  ///< -bamout / --htvc-bam-output: the haplotype BAM (`call`)
  std::string bam_writer_type = "CALLED_HAPLOTYPES";  ///< --bam-writer-type
  bool annotate_discovered_alleles = false;  ///< --annotate-with-num-discovered-alleles (NDA)

  /**
   * @brief The caller's options for an output of `mode`: the derived fields set (ploidy and
   * minimum base quality into activity and assembly; the mode's calling threshold and
   * annotations, a VCF without the allele-specific ones), engine batches sized for a memory
   * `budget`.
   * @throws gpp::Error for inconsistent assembly-region sizes, annotation options naming what is
   *         not computed here, or an unreadable or malformed --ploidy-regions file
   */
  stages::call::HaplotypeCallerOptions options(stages::call::ReferenceConfidenceMode mode,
                                               std::uint64_t budget) const;

  /// Whether the annotation options ask for allele-specific annotations (-G AS_StandardAnnotation),
  /// which are written to gVCF outputs only. @throws gpp::Error as options()
  bool allele_specific() const;

  /// The contamination fraction of `sample`: its line of --contamination-fraction-per-sample-file,
  /// else --contamination-fraction-to-filter. @throws gpp::Error for an unreadable or malformed
  /// file
  double contamination_fraction(const std::string& sample) const;

  /// The files these options read (--dbsnp, --alleles, --ploidy-regions, the contamination
  /// file), those given.
  std::vector<std::string> input_files() const;

  /// GATK's warnings about the annotation options (a default enabled again, an annotation
  /// excluded that was not enabled), logged once. @throws gpp::Error as options()
  void warn_about_annotations() const;
};

/// Declares GATK HaplotypeCaller's options (read filters, downsampling, assembly, genotyping,
/// reference model, gVCF bands) and Parabricks' (--ploidy, --filter-reads-too-long,
/// --no-alt-contigs, the sample's sex) on `app`. The output and its mode (-ERC, --gvcf) are each
/// command's own.
void add_caller_options(CLI::App& app, CallerArguments& arguments);

/// HaplotypeCaller's warning for --max-mnp-distance in a gVCF: such gVCFs can only be genotyped
/// one by one.
void warn_about_mnps_in_gvcf(const stages::call::HaplotypeCallerOptions& options);

/// GATK HaplotypeCaller's engine options (assembly regions, priors, trimming padding, read
/// preparation, PairHMM inputs, likelihoods, assembly graphs, phasing) on `app`, bound to
/// `arguments` (caller_engine_arguments.cpp); add_caller_options declares them too.
void add_caller_engine_options(CLI::App& app, CallerArguments& arguments);

}  // namespace gpp::pipeline
