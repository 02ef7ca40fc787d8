#include "pipeline/variant_writer.hpp"

#include "stages/call/annotations/known_variant_overlap.hpp"
#include "stages/call/gvcf_format.hpp"

namespace gpp::pipeline {

namespace {

/// Text gathered before it goes to the (compressing) output.
constexpr std::size_t kFlushBytes = std::size_t{4} << 20;

std::vector<stages::call::VcfContig> vcf_contigs(const io::Header& header) {
  std::vector<stages::call::VcfContig> contigs;
  for (const io::Contig& contig : header.contigs()) contigs.push_back({contig.name, contig.length});
  return contigs;
}

}  // namespace

VariantFileWriter::VariantFileWriter(const std::string& path, const io::Header& header,
                                     const std::string& sample, const std::string& command_line,
                                     const stages::call::HaplotypeCallerOptions& caller,
                                     stages::call::GvcfOptions gvcf, const io::KnownVariants* dbsnp)
    : contigs_(vcf_contigs(header)), output_(path) {
  stages::call::AnnotationSet annotations = caller.annotations;
  if (dbsnp) {
    std::vector<std::string> names;
    for (const stages::call::VcfContig& contig : contigs_) names.push_back(contig.name);
    dbsnp_.emplace(*dbsnp, std::move(names));
    annotations.add(stages::call::Annotation::kDbsnpMembership);
  }
  if (!caller.emits_reference_confidence()) {
    pending_ = stages::call::vcf_header(contigs_, sample, command_line, annotations);
    return;
  }
  gvcf.mode = caller.reference_confidence;
  blocks_.emplace(contigs_, std::move(gvcf));
  pending_ = stages::call::gvcf_header(contigs_, sample, command_line, blocks_->bands(),
                                       annotations, caller.physical_phasing);
}

void VariantFileWriter::expect_calls_from(const std::vector<io::Interval>& intervals,
                                          const io::Header& header) {
  if (!dbsnp_ || header.contigs().empty()) return;
  if (intervals.empty()) {
    dbsnp_->read_from(0, 0);
  } else {
    dbsnp_->read_from(header.contig_index(intervals.front().contig), intervals.front().start);
  }
}

void VariantFileWriter::add_call(stages::call::VariantCall&& call) {
  ++calls_;
  if (dbsnp_) {
    stages::call::annotate_known_variants(call, dbsnp_->at(call.contig, call.position));
  }
  if (blocks_) {
    blocks_->add(call, pending_);
  } else {
    pending_ += stages::call::vcf_record(call, contigs_);
  }
  flush_if_large();
}

void VariantFileWriter::add_reference_site(const stages::call::ReferenceSite& site) {
  blocks_->add(site, pending_);
  flush_if_large();
}

void VariantFileWriter::flush_if_large() {
  if (pending_.size() < kFlushBytes) return;
  output_.write(pending_);
  pending_.clear();
}

void VariantFileWriter::close() {
  if (closed_) return;
  if (blocks_) blocks_->finish(pending_);
  output_.write(pending_);
  pending_.clear();
  output_.close();
  closed_ = true;
}

void VariantFileWriter::commit() {
  close();
  output_.commit();
}

}  // namespace gpp::pipeline
