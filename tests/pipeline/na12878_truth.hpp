// The real NA12878 set (HiSeq 2x101, hg19 chr20:10.0-10.1 Mb) and its GIAB truth: the files, and
// the TP/FP/FN of a VCF against the truth by bench/call/vcf_eval.sh (bcftools norm and isec,
// allele-exact).
#pragma once

#include <sstream>
#include <string>

#include "tests/test_support.hpp"

namespace gpp::test::na12878 {

inline const std::string kDir = "real_na12878_chr20_hg19/";

inline std::string bam() { return data_path(kDir + "NA12878_S1.chr20.10_10p1mb.bam"); }
inline std::string reference() { return data_path(kDir + "ucsc.hg19.chr20.unittest.fasta.gz"); }
/// GIAB's confident regions within the set.
inline std::string confident_bed() {
  return data_path(kDir + "test_nist.b37_chr20_100kbp_at_10mb.bed");
}

struct Counts {
  int tp = -1, fp = -1, fn = -1;
};

/// TP/FP/FN of `vcf` for `type` (snps or indels) inside `bed`; vcf_eval.sh's files in `dir`.
inline Counts evaluate(const TempDir& dir, const std::string& vcf, const std::string& bed,
                       const std::string& type) {
  const std::string script = std::string(GPP_SOURCE_ROOT) + "/bench/call/vcf_eval.sh";
  const auto r =
      run_command("bash " + shell_quote(script) + " " + shell_quote(reference()) + " " +
                  shell_quote(data_path(kDir + "test_nist.b37_chr20_100kbp_at_10mb.vcf.gz")) + " " +
                  shell_quote(bed) + " " + shell_quote(vcf) + " " +
                  shell_quote(dir.file("eval." + type)) + " 2>/dev/null");
  std::istringstream lines(r.out);
  std::string name;
  Counts counts;
  while (lines >> name) {
    if (name == type) {
      lines >> counts.tp >> counts.fp >> counts.fn;
      break;
    }
    std::getline(lines, name);
  }
  return counts;
}

}  // namespace gpp::test::na12878
