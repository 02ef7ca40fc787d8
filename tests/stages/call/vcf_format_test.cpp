// The VCF text of a call, against records GATK HaplotypeCaller wrote
// (gatk_golden/hc_na12878_chr20/expected.testVCFMode.gatk4.vcf): the same fields give the same
// line, and the header declares what the records use.
#include "stages/call/vcf_format.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"

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
  EXPECT_EQ(line.substr(line.find("\t.\t.\t") + 5), "GT:AD:DP:GQ:PL\t./.:.:.:.:0,0,0\n");
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

TEST(VcfFormat, CallOnAnUnknownContigIsAnError) {
  VariantCall call = het_snp();
  call.contig = 5;
  EXPECT_THROW(vcf_record(call, kContigs), Error);
}

}  // namespace
}  // namespace gpp::stages::call
