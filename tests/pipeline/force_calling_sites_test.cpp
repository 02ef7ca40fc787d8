// `call --alleles` at the edges of GATK 4.6's force-calling rules, on reads made here over two
// contigs: given records on each contig are called there; a given locus far (> 1 kb) from every
// read is active but gets no record (HaplotypeCallerEngine.callRegion returns the reference
// model when no read is left for genotyping); a given allele the reads do not support is written
// (0/0 where it is alone); and --max-alternate-alleles drops a forced allele, as
// GenotypingEngine.calculateGenotypes subsets the alleles before it looks at the forced ones.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/pipeline/synthetic_reads.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;
using test::synthetic::chr22_bases;
using test::synthetic::planted_base;

constexpr std::int64_t kHetSnp = 20100;  // chrA, 0-based; reads over 19,960..20,250
constexpr std::int64_t kHomSnp = 10000;  // chrB; reads over 9,860..10,150

/// A base other than `base` and planted_base(base).
char third_base(char base) {
  for (const char candidate : {'C', 'T', 'G'}) {
    if (candidate != base && candidate != planted_base(base)) return candidate;
  }
  return 'N';
}

/// A VCF line of a given SNP at 0-based `position` of `contig` with `alts`.
std::string given_snp(const std::string& contig, std::int64_t position, const std::string& alts) {
  return contig + "\t" + std::to_string(position + 1) + "\t.\t" +
         chr22_bases()[static_cast<std::size_t>(position)] + "\t" + alts + "\t.\t.\t.\n";
}

struct Inputs {
  std::string fasta, bam, given;
};

Inputs write_inputs(const test::TempDir& dir) {
  const std::string& bases = chr22_bases();
  const std::string length = std::to_string(bases.size());
  Inputs inputs{dir.file("ab.fa"), dir.file("reads.bam"), dir.file("given.vcf.gz")};
  std::ofstream(inputs.fasta) << ">chrA\n" << bases << "\n>chrB\n" << bases << "\n";
  std::ofstream(dir.file("reads.sam"))
      << "@HD\tVN:1.6\tSO:coordinate\n@SQ\tSN:chrA\tLN:" << length
      << "\n@SQ\tSN:chrB\tLN:" << length << "\n@RG\tID:rg\tSM:s\n"
      << test::synthetic::reads_over("a", "chrA", bases, kHetSnp)
      << test::synthetic::reads_over("b", "chrB", bases, kHomSnp, true);
  const auto base = [&](std::int64_t position) {
    return bases[static_cast<std::size_t>(position)];
  };
  std::ofstream(dir.file("given.vcf"))
      << "##fileformat=VCFv4.2\n##contig=<ID=chrA,length=" << length
      << ">\n##contig=<ID=chrB,length=" << length
      << ">\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
      << given_snp("chrA", kHetSnp,
                   std::string(1, planted_base(base(kHetSnp))) + "," + third_base(base(kHetSnp)))
      << given_snp("chrA", 30000, std::string(1, planted_base(base(30000))))
      << given_snp("chrB", 5000, std::string(1, planted_base(base(5000))))
      << given_snp("chrB", kHomSnp, std::string(1, planted_base(base(kHomSnp))))
      << given_snp("chrB", kHomSnp + 50, std::string(1, third_base(base(kHomSnp + 50))));
  const auto r =
      run_command("samtools faidx " + shell_quote(inputs.fasta) + " && samtools view -b -o " +
                  shell_quote(inputs.bam) + " " + shell_quote(dir.file("reads.sam")) +
                  " && bgzip -c " + shell_quote(dir.file("given.vcf")) + " > " +
                  shell_quote(inputs.given) + " && tabix -p vcf " + shell_quote(inputs.given));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return inputs;
}

/// CHROM POS REF ALT GT of each record of a call with `args`.
std::string forced_calls(const test::TempDir& dir, const Inputs& inputs,
                         const std::string& args = "") {
  const std::string vcf = dir.file("forced.vcf");
  const auto r =
      run_command(shell_quote(test::binary_path()) + " call -I " + shell_quote(inputs.bam) +
                  " -R " + shell_quote(inputs.fasta) + " -O " + shell_quote(vcf) + " --alleles " +
                  shell_quote(inputs.given) + " --device cpu --verbosity WARNING" + args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return run_command("bcftools query -f '%CHROM %POS %REF %ALT[ %GT]\\n' " + shell_quote(vcf)).out;
}

TEST(ForceCallingSites, GivenRecordsOnTwoContigsReadsOrNone) {
  test::TempDir dir;
  const Inputs inputs = write_inputs(dir);
  const std::string& bases = chr22_bases();
  const auto ref = [&](std::int64_t position) {
    return std::string(1, bases[static_cast<std::size_t>(position)]);
  };
  const auto planted = [&](std::int64_t position) {
    return std::string(1, planted_base(bases[static_cast<std::size_t>(position)]));
  };
  const std::string het_site = "chrA 20101 " + ref(kHetSnp) + " " + planted(kHetSnp) + ",";
  const std::string calls = forced_calls(dir, inputs);
  EXPECT_EQ(calls, het_site + third_base(bases[kHetSnp]) + " 0/1\n" + "chrB 10001 " + ref(kHomSnp) +
                       " " + planted(kHomSnp) + " 1/1\n" + "chrB 10051 " + ref(kHomSnp + 50) + " " +
                       third_base(bases[kHomSnp + 50]) + " 0/0\n");
  // One alternate allele at most: the supported one stays, the forced third base goes.
  const std::string one_alt = forced_calls(dir, inputs, " --max-alternate-alleles 1");
  EXPECT_EQ(one_alt.substr(0, one_alt.find('\n') + 1),
            "chrA 20101 " + ref(kHetSnp) + " " + planted(kHetSnp) + " 0/1\n");
  // Without --alleles only the two SNPs the reads carry.
  const std::string vcf = dir.file("plain.vcf");
  ASSERT_EQ(run_command(shell_quote(test::binary_path()) + " call -I " + shell_quote(inputs.bam) +
                        " -R " + shell_quote(inputs.fasta) + " -O " + shell_quote(vcf) +
                        " --device cpu --verbosity WARNING")
                .exit_code,
            0);
  EXPECT_EQ(run_command("bcftools query -f '%CHROM %POS[ %GT]\\n' " + shell_quote(vcf)).out,
            "chrA 20101 0/1\nchrB 10001 1/1\n");
}

}  // namespace
}  // namespace gpp::pipeline
