#include "pipeline/caller_arguments.hpp"

#include <map>
#include <set>

#include "io/text/text_input.hpp"
#include "pipeline/log.hpp"
#include "pipeline/variant_calling.hpp"
#include "stages/call/contamination_downsampling.hpp"
#include "stages/call/read_filters.hpp"

namespace gpp::pipeline {

namespace {

stages::call::PcrIndelModelKind pcr_model(const std::string& name) {
  using stages::call::PcrIndelModelKind;
  if (name == "NONE") return PcrIndelModelKind::kNone;
  if (name == "HOSTILE") return PcrIndelModelKind::kHostile;
  if (name == "AGGRESSIVE") return PcrIndelModelKind::kAggressive;
  return PcrIndelModelKind::kConservative;
}

stages::call::OutputMode output_mode_named(const std::string& name) {
  using stages::call::OutputMode;
  if (name == "EMIT_ALL_CONFIDENT_SITES") return OutputMode::kAllConfidentSites;
  if (name == "EMIT_ALL_ACTIVE_SITES") return OutputMode::kAllActiveSites;
  return OutputMode::kVariantsOnly;
}

stages::call::BamWriterType bam_writer_type_named(const std::string& name) {
  using stages::call::BamWriterType;
  if (name == "CALLED_HAPLOTYPES_NO_READS") return BamWriterType::kCalledHaplotypesNoReads;
  if (name == "ALL_POSSIBLE_HAPLOTYPES") return BamWriterType::kAllPossibleHaplotypes;
  if (name == "NO_HAPLOTYPES") return BamWriterType::kNoHaplotypes;
  return BamWriterType::kCalledHaplotypes;
}

// Parabricks' --filter-reads-too-long: "Ignore all input BAM reads with size > 500bp".
constexpr std::int64_t kLongReadBases = 500;

// GATK's --adaptive-pruning and the parameters of its model (Mutect2's pruner).
void add_adaptive_pruning_options(CLI::App& app, AdaptivePruningArguments& pruning) {
  app.add_flag("--adaptive-pruning", pruning.enabled,
               "prune assembly graph chains by their log odds of being real variation "
               "(Mutect2's adaptive pruner; --min-pruning is then not used)");
  app.add_option("--adaptive-pruning-initial-error-rate", pruning.model.initial_error_rate,
                 "adaptive pruning: initial base error rate estimate")
      ->check(CLI::Range(1e-300, 1.0));
  app.add_option("--pruning-lod-threshold", pruning.model.log_odds_threshold,
                 "adaptive pruning: natural log odds a chain needs to be kept (default ln 10)");
  app.add_option("--pruning-seeding-lod-threshold", pruning.model.seeding_log_odds_threshold,
                 "adaptive pruning: natural log odds that seed the kept subgraph (default "
                 "4 ln 10)");
  app.add_option("--max-unpruned-variants", pruning.model.max_unpruned_variants,
                 "adaptive pruning: most variants kept in one graph")
      ->check(CLI::Range(0, 1 << 20));
}

}  // namespace

stages::call::HaplotypeCallerOptions CallerArguments::options(
    stages::call::ReferenceConfidenceMode mode, std::uint64_t budget) const {
  stages::call::HaplotypeCallerOptions options = caller;
  options.reference_confidence = mode;
  std::vector<std::string> warnings;  // warn_about_annotations() gives them
  options.annotations = stages::call::resolve_annotations(annotations, warnings);
  if (annotate_discovered_alleles) {
    options.annotations.add(stages::call::Annotation::kNumberOfDiscoveredAlleles);
  }
  // Allele-specific annotations are the raw data of a gVCF (GenotypeGVCFs finalizes them).
  if (!options.emits_reference_confidence()) {
    options.annotations = options.annotations.without_allele_specific();
  }
  if (!ploidy_regions.empty()) {
    options.ploidy_regions =
        stages::call::parse_ploidy_regions(io::read_text_file(ploidy_regions), ploidy_regions);
  }
  options.disabled_read_filters = stages::call::disabled_read_filters(disabled_read_filters);
  options.pcr_indel_model = pcr_model(pcr_indel_model);
  options.activity.snp_heterozygosity = heterozygosity;
  options.activity.heterozygosity_stdev = heterozygosity_stdev;
  options.genotyping.priors = stages::call::priors_from_heterozygosity(
      heterozygosity, indel_heterozygosity, heterozygosity_stdev);
  if (adaptive_pruning.enabled) options.assembly.adaptive_pruning = adaptive_pruning.model;
  options.genotyping.output_mode = output_mode_named(output_mode);
  options.bam_output.enabled = !bam_output.empty();
  options.bam_output.type = bam_writer_type_named(bam_writer_type);
  options.derive();
  options.regions.validate();
  options.regions_per_batch = regions_per_batch(budget);
  return options;
}

std::vector<std::string> CallerArguments::input_files() const {
  std::vector<std::string> files;
  for (const std::string* file : {&dbsnp, &alleles, &ploidy_regions, &contamination_file}) {
    if (!file->empty()) files.push_back(*file);
  }
  return files;
}

double CallerArguments::contamination_fraction(const std::string& sample) const {
  if (!contamination_file.empty()) {
    const std::set<std::string> called{sample};
    const std::map<std::string, double> fractions = stages::call::parse_contamination_fractions(
        io::read_text_file(contamination_file), contamination_file, &called);
    const auto found = fractions.find(sample);
    if (found != fractions.end()) return found->second;
  }
  return caller.contamination_fraction;
}

bool CallerArguments::allele_specific() const {
  std::vector<std::string> warnings;
  return stages::call::resolve_annotations(annotations, warnings).has_allele_specific();
}

void CallerArguments::warn_about_annotations() const {
  std::vector<std::string> warnings;
  stages::call::resolve_annotations(annotations, warnings);
  for (const std::string& warning : warnings) log::warning(warning);
}

void warn_about_mnps_in_gvcf(const stages::call::HaplotypeCallerOptions& options) {
  if (options.emits_reference_confidence() && options.max_mnp_distance > 0) {
    log::warning(
        "MNP support enabled in GVCF mode: gVCFs that contain MNPs can only be genotyped "
        "individually");
  }
}

void add_caller_options(CLI::App& app, CallerArguments& arguments) {
  stages::call::HaplotypeCallerOptions& caller = arguments.caller;
  // Listed under a heading of their own in --help (the options declared after them are not).
  const std::string group = app.option_defaults()->get_group();
  app.option_defaults()->group("HaplotypeCaller");
  app.add_option("--sample-ploidy,--ploidy", caller.sample_ploidy, "ploidy of the sample")
      ->check(CLI::Range(1, stages::call::kMaxSamplePloidy));
  app.add_option("--standard-min-confidence-threshold-for-calling",
                 caller.genotyping.standard_confidence_for_calling,
                 "minimum QUAL of an emitted call")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--min-base-quality-score", caller.min_base_quality,
                 "bases below this quality are not used")
      ->check(CLI::Range(1, 60));
  app.add_option("--minimum-mapping-quality", caller.min_mapping_quality,
                 "reads below this mapping quality are not used (MappingQualityReadFilter)")
      ->check(CLI::Range(0, 255));
  app.add_option("--disable-read-filter", arguments.disabled_read_filters,
                 "turn off one of HaplotypeCaller's read filters (also -DF; repeatable): "
                 "MappingQualityReadFilter, MappingQualityAvailableReadFilter, "
                 "NotSecondaryAlignmentReadFilter, NotDuplicateReadFilter, "
                 "PassesVendorQualityCheckReadFilter");
  // GATK's engine choices: one engine computes here whichever is named (the Smith-Waterman
  // alignments are GATK's exactly; the PairHMM within 1e-5 log10 of its double-precision one).
  app.add_option("--smith-waterman", arguments.smith_waterman,
                 "GATK's Smith-Waterman implementation (accepted: the alignments are GATK's "
                 "whichever is named)")
      ->check(CLI::IsMember({"FASTEST_AVAILABLE", "AVX_ENABLED", "JAVA"}));
  app.add_option("--pair-hmm-implementation", arguments.pair_hmm,
                 "GATK's PairHMM implementation (also -pairHMM; accepted: one PairHMM computes "
                 "here whichever is named)")
      ->check(CLI::IsMember({"EXACT", "ORIGINAL", "LOGLESS_CACHING", "AVX_LOGLESS_CACHING",
                             "AVX_LOGLESS_CACHING_OMP", "FASTEST_AVAILABLE"}));
  app.add_flag_callback(
      "--filter-reads-too-long", [&caller] { caller.max_read_length = kLongReadBases; },
      "leave reads of more than 500 bases out (Parabricks' option; GATK's ReadLengthReadFilter)");
  app.add_flag("--enable-dynamic-read-disqualification-for-genotyping",
               caller.likelihoods.dynamic_read_disqualification,
               "disqualify low base quality reads less strictly (DRAGEN-GATK's dynamic threshold)");
  app.add_option("--dynamic-read-disqualification-threshold",
                 caller.likelihoods.read_disqualification_scale,
                 "scale of the dynamic read disqualification threshold")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--mapping-quality-threshold-for-genotyping",
                 caller.genotyping_filter.mapping_quality_threshold,
                 "reads below this mapping quality are assembled but not genotyped")
      ->check(CLI::Range(0, 255));
  app.add_option("--max-reads-per-alignment-start", caller.max_reads_per_alignment_start,
                 "downsampling: reads kept per start position (0: off)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option(
         "--max-reads-per-region", caller.max_reads_per_region,
         "reads kept in one assembly region (whole fragments chosen by name hash; 0: no bound)")
      ->check(CLI::Range(0, 1 << 24));
  app.add_option("--pcr-indel-model", arguments.pcr_indel_model, "PCR indel error model")
      ->check(CLI::IsMember({"NONE", "HOSTILE", "AGGRESSIVE", "CONSERVATIVE"}));
  app.add_flag("--dont-use-soft-clipped-bases", caller.finalization.dont_use_soft_clipped_bases,
               "do not use soft-clipped bases");
  app.add_option("--max-num-haplotypes-in-population",
                 caller.assembly.max_num_haplotypes_in_population, "haplotypes kept per region")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--min-pruning", caller.assembly.prune_factor,
                 "assembly graph chains with less support are pruned")
      ->check(CLI::Range(0, 1 << 20));
  add_adaptive_pruning_options(app, arguments.adaptive_pruning);
  add_caller_engine_options(app, arguments);
  app.add_option("--min-dangling-branch-length", caller.assembly.min_dangling_branch_length,
                 "shortest dangling head or tail path recovered into the assembly graph")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--kmer-size", caller.assembly.kmer_sizes, "assembly k-mer sizes (repeatable)")
      ->check(CLI::Range(5, 200));
  app.add_flag("--all-site-pls", caller.genotyping.all_site_pls,
               "QUAL of a monomorphic site from P(no variant), as of a variant site (GATK's "
               "annotateAllSitesWithPLs; sites written with --output-mode EMIT_ALL_*)");
  app.add_option("--max-alternate-alleles", caller.genotyping.max_alternate_alleles,
                 "alternate alleles genotyped at one site")
      ->check(CLI::Range(1, 50));
  app.add_option("--gvcf-gq-bands", arguments.blocks.gq_band_upper_bounds,
                 "exclusive upper bounds of the gVCF GQ bands (repeatable; also -GQB; default "
                 "1..60 by 1, 70, 80, 90, 99)");
  app.add_flag("--floor-blocks", arguments.blocks.floor_blocks,
               "write a block's GQ as its band's lower bound (no PL or MIN_DP)");
  app.add_option("--indel-size-to-eliminate-in-ref-model",
                 caller.reference_model.indel_size_to_eliminate,
                 "largest indel the reference model rules out")
      ->check(CLI::Range(0, 1000));
  app.add_option("--sample-name", arguments.sample_name,
                 "the sample to call (GATK's; also -ALIAS): on an input of several samples "
                 "the others' reads count for the activity only, as GATK's");
  app.add_option("--contamination-fraction-to-filter", caller.contamination_fraction,
                 "fraction of each site's informative reads removed before genotyping, as "
                 "contamination (GATK's; also -contamination; default 0: none; 1 or more: all)");
  app.add_option("--contamination-fraction-per-sample-file", arguments.contamination_file,
                 "SAMPLE<TAB>FRACTION lines: the called sample's fraction, if it has a line "
                 "(GATK's; also -contamination-file)");
  app.add_flag("--use-filtered-read-map-for-annotations",
               caller.annotate_contamination_filtered_reads,
               "annotate with the reads the contamination filter left (default: all reads)");
  app.add_option("-D,--dbsnp", arguments.dbsnp,
                 "dbSNP VCF/BCF (indexed): a call matching its records gets their IDs and INFO DB");
  app.add_option("--alleles,--htvc-alleles", arguments.alleles,
                 "VCF/BCF (indexed) of alleles to genotype whatever the reads say (GATK's "
                 "force-calling): their loci are active, the alleles are added to the "
                 "haplotypes, and a site with one of them is written at any QUAL");
  app.add_flag("--force-call-filtered-alleles,--genotype-filtered-alleles",
               caller.force_call_filtered_alleles,
               "--alleles records are force-called whatever their FILTER (else only PASS and .)");
  app.add_option("--ploidy-regions", arguments.ploidy_regions,
                 "BED whose name column is the ploidy there (e.g. 1 on chrX outside its PARs for "
                 "a male); elsewhere --sample-ploidy")
      ->check(CLI::ExistingFile);
  app.add_option("--output-mode", arguments.output_mode,
                 "sites written: EMIT_VARIANTS_ONLY, EMIT_ALL_CONFIDENT_SITES (also confident "
                 "hom-ref sites, ALT '.') or EMIT_ALL_ACTIVE_SITES (every genotyped site, LowQual "
                 "below the threshold)")
      ->check(CLI::IsMember(
          {"EMIT_VARIANTS_ONLY", "EMIT_ALL_CONFIDENT_SITES", "EMIT_ALL_ACTIVE_SITES"}));
  app.add_option("-A,--annotation", arguments.annotations.enabled,
                 "also write this annotation (GATK class name, repeatable; StrandBiasBySample: "
                 "FORMAT SB)");
  app.add_option("--annotations-to-exclude", arguments.annotations.excluded,
                 "do not write this annotation (GATK class name, repeatable; also -AX), e.g. "
                 "FisherStrand");
  app.add_option("-G,--annotation-group", arguments.annotations.groups,
                 "also write this group (StandardAnnotation, StandardHCAnnotation: the defaults; "
                 "AS_StandardAnnotation: allele-specific raw data, gVCF only)");
  app.add_flag("--disable-tool-default-annotations", arguments.annotations.disable_tool_defaults,
               "write only the annotations -A and -G name (FORMAT GT, GQ, PL and INFO MLEAC, "
               "MLEAF stay)");
  app.add_flag("--annotate-with-num-discovered-alleles", arguments.annotate_discovered_alleles,
               "write INFO NDA: the alternate alleles discovered at a site (not necessarily "
               "genotyped)");
  app.add_flag("--no-alt-contigs", caller.skip_alternate_contigs,
               "no calls on alternate contigs (names ending in _alt, and HLA-*), as Parabricks");
  add_sex_options(app, arguments.sex);
  app.add_option("--bam-output,--htvc-bam-output", arguments.bam_output,
                 "also write the called haplotypes and the reads realigned to them (GATK's "
                 "-bamout, Parabricks' --htvc-bam-output; BAM with an index, or SAM)");
  app.add_option("--bam-writer-type", arguments.bam_writer_type,
                 "records of --bam-output: CALLED_HAPLOTYPES (default), "
                 "CALLED_HAPLOTYPES_NO_READS, ALL_POSSIBLE_HAPLOTYPES or NO_HAPLOTYPES")
      ->check(CLI::IsMember({"CALLED_HAPLOTYPES", "CALLED_HAPLOTYPES_NO_READS",
                             "ALL_POSSIBLE_HAPLOTYPES", "NO_HAPLOTYPES"}));
  app.option_defaults()->group(group);
}

}  // namespace gpp::pipeline
