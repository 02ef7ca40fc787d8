// The caller's output file: VCF records, or in reference-confidence mode gVCF records (hom-ref
// blocks or per-base sites, and calls with <NON_REF>), formatted as the caller produces them and
// streamed into a .vcf / .vcf.gz (+ .tbi) under a temporary name, committed when complete; with
// known variants (--dbsnp) each call gets their IDs as GATK's VariantOverlapAnnotator gives them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "io/genome/intervals.hpp"
#include "io/genome/known_variants.hpp"
#include "io/reads/header.hpp"
#include "io/text/indexed_vcf_output.hpp"
#include "pipeline/known_variant_cursor.hpp"
#include "stages/call/caller_options.hpp"
#include "stages/call/gvcf_blocks.hpp"
#include "stages/call/haplotype_caller.hpp"
#include "stages/call/vcf_format.hpp"

namespace gpp::pipeline {

class VariantFileWriter final : public stages::call::CallSink {
 public:
  /**
   * @param caller the caller's options: their reference_confidence mode (NONE writes a VCF; GVCF
   *               / BP_RESOLUTION a gVCF with `gvcf`'s bands) and annotations (header lines and
   *               FORMAT keys)
   * @param dbsnp  known variants (--dbsnp): their IDs and the flag DB on the calls that match
   *               them (known_variant_overlap.hpp); none when null
   * @throws gpp::Error naming `path` when it cannot be created, or for malformed GQ bands
   */
  VariantFileWriter(const std::string& path, const io::Header& header, const std::string& sample,
                    const std::string& command_line,
                    const stages::call::HaplotypeCallerOptions& caller,
                    stages::call::GvcfOptions gvcf = {}, const io::KnownVariants* dbsnp = nullptr);

  void add_call(stages::call::VariantCall&& call) override;
  void add_reference_site(const stages::call::ReferenceSite& site) override;

  /// With known variants: starts reading them where the first calls are expected (the first
  /// interval, or the first contig), before the first call comes.
  void expect_calls_from(const std::vector<io::Interval>& intervals, const io::Header& header);

  /// Writes what is pending and closes the file (and its index), still unnamed.
  void close();
  /// close() unless done, then moves the file (and its index) into place.
  void commit();

  std::size_t calls() const { return calls_; }

 private:
  void flush_if_large();

  std::vector<stages::call::VcfContig> contigs_;
  io::VcfOutput output_;
  std::optional<stages::call::GvcfBlockCombiner> blocks_;
  std::optional<KnownVariantCursor> dbsnp_;
  std::string pending_;
  std::size_t calls_ = 0;
  bool closed_ = false;
};

}  // namespace gpp::pipeline
