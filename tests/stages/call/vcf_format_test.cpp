// The VCF text of a call, against records GATK HaplotypeCaller wrote
// (gatk_golden/hc_na12878_chr20/expected.testVCFMode.gatk4.vcf): the same fields give the same
// line, and the header declares what the records use.
#include "stages/call/vcf_format.hpp"

#include <gtest/gtest.h>

#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::call {
namespace {

const std::vector<VcfContig> kContigs = {{"20", 63025520}, {"21", 48129895}};

VariantCall het_snp() {
  VariantCall call;
  call.contig = 0;
  call.position = 10000116;  // 1-based 10000117
  call.alleles = {"C", "T"};
  call.qual = 926.64;
  call.info = {{"AC", "1"},
               {"AF", "0.500"},
               {"AN", "2"},
               {"BaseQRankSum", "2.136"},
               {"DP", "66"},
               {"ExcessHet", "0.0000"},
               {"FS", "11.007"},
               {"MLEAC", "1"},
               {"MLEAF", "0.500"},
               {"MQ", "59.72"},
               {"MQRankSum", "0.913"},
               {"QD", "14.48"},
               {"ReadPosRankSum", "-0.223"},
               {"SOR", "1.538"}};
  call.genotype.alleles = {0, 1};
  call.genotype.pls = {934, 0, 1248};
  call.genotype.gq = 99;
  call.sample.allele_depths = std::vector<int>{36, 28};
  call.sample.depth = 64;
  return call;
}

TEST(VcfFormat, RecordEqualsGatksLine) {
  EXPECT_EQ(vcf_record(het_snp(), kContigs),
            "20\t10000117\t.\tC\tT\t926.64\t.\tAC=1;AF=0.500;AN=2;BaseQRankSum=2.136;DP=66;"
            "ExcessHet=0.0000;FS=11.007;MLEAC=1;MLEAF=0.500;MQ=59.72;MQRankSum=0.913;QD=14.48;"
            "ReadPosRankSum=-0.223;SOR=1.538\tGT:AD:DP:GQ:PL\t0/1:36,28:64:99:934,0,1248\n");
}

TEST(VcfFormat, MultiAllelicIndelAndQualRounding) {
  // GATK: 20 10002458 . G GTTT 2154.96 ... GT:AD:DP:GQ:PL 1/1:0,56:56:99:2090,167,0; a second
  // alt and a QUAL that Java rounds half up (x.xx5 -> up) as htsjdk writes it.
  VariantCall call = het_snp();
  call.position = 10002457;
  call.alleles = {"G", "GTTT", "GTT"};
  call.qual = 2154.955;
  call.info = {{"AC", "1,1"}, {"AN", "2"}};
  call.genotype.alleles = {1, 2};
  call.genotype.pls = {2090, 167, 0, 2100, 150, 2200};
  call.sample.allele_depths = std::vector<int>{0, 30, 26};
  call.sample.depth = 56;
  EXPECT_EQ(vcf_record(call, kContigs),
            "20\t10002458\t.\tG\tGTTT,GTT\t2154.96\t.\tAC=1,1;AN=2\tGT:AD:DP:GQ:PL\t"
            "1/2:0,30,26:56:99:2090,167,0,2100,150,2200\n");
}

TEST(VcfFormat, NoCallWithoutDepths) {
  VariantCall call = het_snp();
  call.genotype.alleles = {kNoCallAlleleIndex, kNoCallAlleleIndex};
  call.genotype.gq = -1;
  call.genotype.pls = {0, 0, 0};
  call.sample.allele_depths.reset();
  call.sample.depth.reset();
  call.info.clear();
  const std::string line = vcf_record(call, kContigs);
  // htsjdk's VCFEncoder.calcVCFGenotypeKeys: only the keys the genotype has.
  EXPECT_EQ(line.substr(line.find("\t.\t.\t") + 5), "GT:PL\t./.:0,0,0\n");
}

TEST(VcfFormat, HeaderDeclaresFieldsContigsAndSample) {
  const std::string header = vcf_header(kContigs, "NA12878", "gpu-pipeline call -I x.bam");
  EXPECT_EQ(header.rfind("##fileformat=VCFv4.2\n", 0), 0u);
  for (const char* id : {"AC", "AF", "AN", "BaseQRankSum", "DP", "ExcessHet", "FS", "MLEAC",
                         "MLEAF", "MQ", "MQRankSum", "QD", "ReadPosRankSum", "SOR"}) {
    EXPECT_NE(header.find(std::string("##INFO=<ID=") + id + ","), std::string::npos) << id;
  }
  for (const char* id : {"GT", "AD", "DP", "GQ", "PL"}) {
    EXPECT_NE(header.find(std::string("##FORMAT=<ID=") + id + ","), std::string::npos) << id;
  }
  EXPECT_NE(header.find("##contig=<ID=21,length=48129895>\n"), std::string::npos);
  EXPECT_NE(header.find("##gpu-pipelineCommand=gpu-pipeline call -I x.bam\n"), std::string::npos);
  EXPECT_TRUE(header.ends_with("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tNA12878\n"));
}

TEST(VcfFormat, HeaderEqualsGatksHeader) {
  std::vector<std::string> expected;
  for (const std::string& line : test::lines_of(test::read_file(
           test::data_path("gatk_golden/hc_na12878_chr20/expected.testVCFMode.gatk4.vcf")))) {
    if (line.starts_with('#')) expected.push_back(line);
  }
  ASSERT_GT(expected.size(), 20u);
  // GATK's golden has no ##source / command-line lines; ours keep vcf_header's.
  std::vector<std::string> actual;
  for (const std::string& line : test::lines_of(vcf_header(kContigs, "NA12878", "cmd"))) {
    if (line.starts_with("##source=") || line.starts_with("##gpu-pipelineCommand=")) continue;
    actual.push_back(line);
  }
  EXPECT_EQ(actual, expected);
}

// -AX DepthPerAlleleBySample -AX FisherStrand -A StrandBiasBySample: htsjdk's FORMAT keys (GT,
// then those the genotype has, sorted) without AD and with SB, the header declaring what is
// written.
TEST(VcfFormat, AnnotationsChooseFormatKeysAndDefinitions) {
  AnnotationSet annotations = AnnotationSet::haplotype_caller_defaults();
  annotations.remove(Annotation::kDepthPerAlleleBySample);
  annotations.remove(Annotation::kFisherStrand);
  annotations.add(Annotation::kStrandBiasBySample);
  VariantCall call = het_snp();
  call.sample.allele_depths.reset();
  call.sample.strand_bias = std::array<int, 4>{20, 16, 14, 14};
  const std::string line = vcf_record(call, kContigs);
  EXPECT_TRUE(line.ends_with("\tGT:DP:GQ:PL:SB\t0/1:64:99:934,0,1248:20,16,14,14\n")) << line;
  const std::string header = vcf_header(kContigs, "NA12878", "cmd", annotations);
  EXPECT_EQ(header.find("##FORMAT=<ID=AD,"), std::string::npos);
  EXPECT_EQ(header.find("##INFO=<ID=FS,"), std::string::npos);
  EXPECT_NE(header.find("##FORMAT=<ID=SB,"), std::string::npos);
  EXPECT_NE(header.find("##FORMAT=<ID=DP,"), std::string::npos);  // a standard line
  EXPECT_NE(header.find("##INFO=<ID=SOR,"), std::string::npos);
  // Nothing but the genotype's own fields and the genotyper's INFO.
  const std::string bare = vcf_header(kContigs, "NA12878", "cmd", AnnotationSet());
  EXPECT_EQ(bare.find("##INFO=<ID=DP,"), std::string::npos);
  EXPECT_NE(bare.find("##INFO=<ID=MLEAC,"), std::string::npos);
}

// --output-mode: a hom-ref site (REF alone) has ALT '.', the genotype GT:AD:DP only
// (subsetToRefOnly keeps no GQ or PL); a site under stand_call_conf has FILTER LowQual.
TEST(VcfFormat, HomRefAndLowQualSites) {
  VariantCall call = het_snp();
  call.alleles = {"C"};
  call.qual = 12.3;
  call.low_qual = true;
  call.info = {{"AN", "2"}, {"DP", "30"}, {"MQ", "60.00"}};
  call.genotype = Genotype{};
  call.genotype.alleles = {0, 0};
  call.sample.allele_depths = std::vector<int>{30};
  call.sample.depth = 30;
  EXPECT_EQ(vcf_record(call, kContigs),
            "20\t10000117\t.\tC\t.\t12.30\tLowQual\tAN=2;DP=30;MQ=60.00\tGT:AD:DP\t0/0:30:30\n");
}

TEST(VcfFormat, CallOnAnUnknownContigIsAnError) {
  VariantCall call = het_snp();
  call.contig = 5;
  EXPECT_THROW(vcf_record(call, kContigs), Error);
}

}  // namespace
}  // namespace gpp::stages::call
