// The VCF text HaplotypeCaller writes in VCF mode (VCFv4.2, as htsjdk's VCFEncoder lays it out):
// the header lines of the default annotations, one ##contig line per reference contig, and one
// record per call with FORMAT GT:AD:DP:GQ:PL.
//
// @code
//   std::string text = vcf_header({{"20", 63025520}}, "NA12878", "gpu-pipeline call ...");
//   text += vcf_record(call, contig_names);
//   //
//   "20\t10000117\t.\tC\tT\t926.64\t.\tAC=1;AF=0.500;...\tGT:AD:DP:GQ:PL\t0/1:36,28:64:99:934,0,1248\n"
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stages/call/variant_call.hpp"

namespace gpp::stages::call {

struct VcfContig {
  std::string name;
  std::int64_t length = 0;
};

/// The header: fileformat, FILTER, FORMAT and INFO definitions, ##source and the command line,
/// the contigs, and the #CHROM line with the one sample.
std::string vcf_header(std::span<const VcfContig> contigs, const std::string& sample,
                       const std::string& command_line);

/// One record line (with its newline): POS 1-based, ID '.', QUAL "%.2f" as htsjdk writes it,
/// FILTER '.', INFO from call.info, and GT:AD:DP:GQ:PL (unphased, '.' for what is absent).
std::string vcf_record(const VariantCall& call, std::span<const VcfContig> contigs);

}  // namespace gpp::stages::call
