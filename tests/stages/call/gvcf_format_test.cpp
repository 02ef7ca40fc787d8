// The gVCF text of calls, blocks and sites, and of the block combiner's output, against what GATK
// wrote: HaplotypeCaller's golden (gatk_golden/hc_na12878_chr20/expected.testGVCFMode.gatk4.g.vcf),
// the writers test resource small.g.vcf of GVCFWriterUnitTest.testAgainstExampleGVCF, and the
// BP_RESOLUTION records of src/test/resources/.../CombineGVCFs/gvcf.basepairResolution.vcf. The
// same fields give the same line, and the header is GATK's header line for line.
#include "stages/call/gvcf_format.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::call {
namespace {

const std::vector<VcfContig> kContigs = {{"20", 63025520}, {"21", 48129895}};

std::string call_text(const VariantCall& call) {
  std::string text;
  append_gvcf_call_record(text, call, kContigs);
  return text;
}

// GATK: 20 10000117 . C T,<NON_REF> 926.64 ... GT:AD:DP:GQ:PL:SB.
VariantCall het_snp() {
  VariantCall call;
  call.contig = 0;
  call.position = 10000116;
  call.alleles = {"C", "T", kNonRefAllele};
  call.qual = 926.64;
  call.info = {{"BaseQRankSum", "2.136"},    {"DP", "66"},
               {"ExcessHet", "0.0000"},      {"MLEAC", "1,0"},
               {"MLEAF", "0.500,0.00"},      {"MQRankSum", "0.913"},
               {"RAW_MQandDP", "235369,66"}, {"ReadPosRankSum", "-0.223"}};
  call.genotype.alleles = {0, 1};
  call.genotype.pls = {934, 0, 1248, 1042, 1332, 2374};
  call.genotype.gq = 99;
  call.sample.allele_depths = std::vector<int>{36, 28, 0};
  call.sample.depth = 64;
  call.sample.strand_bias = std::array<int, 4>{16, 20, 19, 9};
  return call;
}

TEST(GvcfFormat, CallRecordEqualsGatksLine) {
  EXPECT_EQ(call_text(het_snp()),
            "20\t10000117\t.\tC\tT,<NON_REF>\t926.64\t.\tBaseQRankSum=2.136;DP=66;"
            "ExcessHet=0.0000;MLEAC=1,0;MLEAF=0.500,0.00;MQRankSum=0.913;RAW_MQandDP=235369,66;"
            "ReadPosRankSum=-0.223\tGT:AD:DP:GQ:PL:SB\t0/1:36,28,0:64:99:934,0,1248,1042,1332,"
            "2374:16,20,19,9\n");
}

TEST(GvcfFormat, PhasedCallRecordEqualsGatksLine) {
  VariantCall call = het_snp();
  call.position = 10001660;
  call.alleles = {"T", "C", kNonRefAllele};
  call.qual = 3621.06;
  call.info = {{"DP", "85"},
               {"ExcessHet", "0.0000"},
               {"MLEAC", "2,0"},
               {"MLEAF", "1.00,0.00"},
               {"RAW_MQandDP", "287215,85"}};
  call.genotype.alleles = {1, 1};
  call.genotype.pls = {3635, 249, 0, 3635, 249, 3635};
  call.sample.allele_depths = std::vector<int>{0, 83, 0};
  call.sample.depth = 83;
  call.sample.strand_bias = std::array<int, 4>{0, 0, 49, 34};
  call.phase = PhaseInfo{"0|1", "10001661_T_C", 10001661};
  EXPECT_EQ(call_text(call),
            "20\t10001661\t.\tT\tC,<NON_REF>\t3621.06\t.\tDP=85;ExcessHet=0.0000;MLEAC=2,0;"
            "MLEAF=1.00,0.00;RAW_MQandDP=287215,85\tGT:AD:DP:GQ:PGT:PID:PL:PS:SB\t1|1:0,83,0:83:99:"
            "0|1:10001661_T_C:3635,249,0,3635,249,3635:10001661:0,0,49,34\n");
}

TEST(GvcfFormat, PhasedHetIsWrittenInTheStoredAlleleOrder) {
  // GATK: 20 10007175 ... 1|0:23,38,0:61:99:1|0:10007150_G_C:...: phaseVC swapped the alleles.
  VariantCall call = het_snp();
  call.position = 10007174;
  call.qual = 1371.64;
  call.info = {{"DP", "63"}};
  call.genotype.alleles = {1, 0};
  call.genotype.pls = {1379, 0, 780, 1448, 894, 2343};
  call.sample.allele_depths = std::vector<int>{23, 38, 0};
  call.sample.depth = 61;
  call.sample.strand_bias = std::array<int, 4>{9, 14, 18, 20};
  call.phase = PhaseInfo{"1|0", "10007150_G_C", 10007150};
  EXPECT_EQ(call_text(call),
            "20\t10007175\t.\tC\tT,<NON_REF>\t1371.64\t.\tDP=63\tGT:AD:DP:GQ:PGT:PID:PL:PS:SB\t"
            "1|0:23,38,0:61:99:1|0:10007150_G_C:1379,0,780,1448,894,2343:10007150:9,14,18,20\n");
}

TEST(GvcfFormat, MultiAllelicIndelRecordEqualsGatksLine) {
  VariantCall call = het_snp();
  call.position = 10002457;
  call.alleles = {"G", "GT", "GTTT", "GTTTTT", kNonRefAllele};
  call.qual = 2154.96;
  call.info = {{"DP", "65"},
               {"ExcessHet", "0.0000"},
               {"MLEAC", "1,1,0,0"},
               {"MLEAF", "0.500,0.500,0.00,0.00"},
               {"RAW_MQandDP", "166903,65"}};
  call.genotype.alleles = {1, 2};
  call.genotype.pls = {2172, 655, 493, 249, 0, 82, 352, 33, 9, 214, 876, 512, 167, 254, 730};
  call.genotype.gq = 9;
  call.sample.allele_depths = std::vector<int>{0, 6, 6, 6, 0};
  call.sample.depth = 18;
  call.sample.strand_bias = std::array<int, 4>{0, 0, 12, 6};
  EXPECT_EQ(call_text(call),
            "20\t10002458\t.\tG\tGT,GTTT,GTTTTT,<NON_REF>\t2154.96\t.\tDP=65;ExcessHet=0.0000;"
            "MLEAC=1,1,0,0;MLEAF=0.500,0.500,0.00,0.00;RAW_MQandDP=166903,65\tGT:AD:DP:GQ:PL:SB\t"
            "1/2:0,6,6,6,0:18:9:2172,655,493,249,0,82,352,33,9,214,876,512,167,254,730:0,0,12,6\n");
}

TEST(GvcfFormat, QualZeroIsWrittenWithoutDecimals) {
  // GATK: 20 10077008 . T A,<NON_REF> 0 ... 0|0:49,4,0:53:42:0|1:10077008_T_A:...
  VariantCall call = het_snp();
  call.position = 10077007;
  call.alleles = {"T", "A", kNonRefAllele};
  call.qual = 0.0;
  call.info = {{"DP", "68"}};
  call.genotype.alleles = {0, 0};
  call.genotype.pls = {0, 42, 1971, 148, 1983, 2089};
  call.genotype.gq = 42;
  call.sample.allele_depths = std::vector<int>{49, 4, 0};
  call.sample.depth = 53;
  call.sample.strand_bias = std::array<int, 4>{18, 31, 4, 0};
  call.phase = PhaseInfo{"0|1", "10077008_T_A", 10077008};
  EXPECT_EQ(call_text(call),
            "20\t10077008\t.\tT\tA,<NON_REF>\t0\t.\tDP=68\tGT:AD:DP:GQ:PGT:PID:PL:PS:SB\t"
            "0|0:49,4,0:53:42:0|1:10077008_T_A:0,42,1971,148,1983,2089:10077008:18,31,4,0\n");
}

TEST(GvcfFormat, QualTextFollowsHtsjdk) {
  // VCFEncoder.formatQualValue: "%.2f" without a trailing ".00".
  EXPECT_EQ(vcf_qual_text(926.64), "926.64");
  EXPECT_EQ(vcf_qual_text(56.01), "56.01");
  EXPECT_EQ(vcf_qual_text(1011.6), "1011.60");
  EXPECT_EQ(vcf_qual_text(0.0), "0");
  EXPECT_EQ(vcf_qual_text(30.0), "30");
  EXPECT_EQ(vcf_qual_text(0.001), "0");
}

TEST(GvcfFormat, BlockRecordEqualsGatksLine) {
  // GATK: 20 10000000 . T <NON_REF> . . END=10000116 GT:DP:GQ:MIN_DP:PL 0/0:84:99:64:0,120,1800;
  // the block's GQ from its PLs is 120, written capped at 99.
  const ReferenceBlock block{0, 9999999, 10000116, 'T', 2, 84, 64, 120, {0, 120, 1800}};
  std::string text;
  append_gvcf_block_record(text, block, kContigs);
  EXPECT_EQ(text,
            "20\t10000000\t.\tT\t<NON_REF>\t.\t.\tEND=10000116\tGT:DP:GQ:MIN_DP:PL\t"
            "0/0:84:99:64:0,120,1800\n");
}

TEST(GvcfFormat, FloorBlockHasNeitherMinDpNorPl) {
  // HomRefBlock.createHomRefGenotype with floorBlocks: GT, DP and GQ only.
  const ReferenceBlock block{1, 99, 110, 'G', 2, 35, std::nullopt, 50, {}};
  std::string text;
  append_gvcf_block_record(text, block, kContigs);
  EXPECT_EQ(text, "21\t100\t.\tG\t<NON_REF>\t.\t.\tEND=110\tGT:DP:GQ\t0/0:35:50\n");
}

TEST(GvcfFormat, BpResolutionSiteRecordsEqualGatksLines) {
  ReferenceSite site{0, 9999999, 'T', 2, {52, 0}, 52, 99, {0, 120, 1800}};
  std::string text;
  append_gvcf_site_record(text, site, kContigs);
  site = {0, 10001436, 'A', 2, {2, 42}, 44, 0, {0, 0, 0}};
  append_gvcf_site_record(text, site, kContigs);
  EXPECT_EQ(text,
            "20\t10000000\t.\tT\t<NON_REF>\t.\t.\t.\tGT:AD:DP:GQ:PL\t0/0:52,0:52:99:0,120,1800\n"
            "20\t10001437\t.\tA\t<NON_REF>\t.\t.\t.\tGT:AD:DP:GQ:PL\t0/0:2,42:44:0:0,0,0\n");
}

TEST(GvcfFormat, HeaderEqualsGatksHeader) {
  const std::string golden = test::read_file(
      test::data_path("gatk_golden/hc_na12878_chr20/expected.testGVCFMode.gatk4.g.vcf"));
  ASSERT_FALSE(golden.empty());
  std::vector<std::string> expected;
  for (const std::string& line : test::lines_of(golden)) {
    if (line.starts_with('#')) expected.push_back(line);
  }
  // GATK's golden has no ##source / command-line lines; ours keep vcf_header's.
  std::vector<std::string> actual;
  const std::string header = gvcf_header(kContigs, "NA12878", "gpu-pipeline call -ERC GVCF",
                                         gq_bands(default_gq_band_upper_bounds()));
  for (const std::string& line : test::lines_of(header)) {
    if (line.starts_with("##source=") || line.starts_with("##gpu-pipelineCommand=")) continue;
    actual.push_back(line);
  }
  EXPECT_EQ(actual, expected);
  EXPECT_NE(header.find("##gpu-pipelineCommand=gpu-pipeline call -ERC GVCF\n"), std::string::npos);
}

// -G AS_StandardAnnotation: GATK's gVCF header with the allele-specific lines (the same run as the
// golden above, expected.testGVCFMode.gatk4.alleleSpecific.g.vcf).
TEST(GvcfFormat, AlleleSpecificHeaderEqualsGatksHeader) {
  std::vector<std::string> expected;
  for (const std::string& line : test::lines_of(test::read_file(test::data_path(
           "gatk_golden/hc_na12878_chr20/expected.testGVCFMode.gatk4.alleleSpecific.g.vcf")))) {
    if (line.starts_with('#')) expected.push_back(line);
  }
  ASSERT_GT(expected.size(), 30u);
  AnnotationSet annotations = AnnotationSet::haplotype_caller_defaults();
  for (const char* name : {"AS_BaseQualityRankSumTest", "AS_FisherStrand", "AS_InbreedingCoeff",
                           "AS_MappingQualityRankSumTest", "AS_QualByDepth", "AS_RMSMappingQuality",
                           "AS_ReadPosRankSumTest", "AS_StrandOddsRatio"}) {
    annotations.add(*annotation_named(name));
  }
  std::vector<std::string> actual;
  const std::string header =
      gvcf_header(kContigs, "NA12878", "cmd", gq_bands(default_gq_band_upper_bounds()),
                  annotations.for_reference_confidence());
  for (const std::string& line : test::lines_of(header)) {
    if (line.starts_with("##source=") || line.starts_with("##gpu-pipelineCommand=")) continue;
    actual.push_back(line);
  }
  EXPECT_EQ(actual, expected);
}

TEST(GvcfFormat, BpResolutionHeaderDeclaresNoBlocks) {
  const std::string header = gvcf_header(kContigs, "NA12878", "cmd", {});
  EXPECT_EQ(header.find("##GVCFBlock"), std::string::npos);
  EXPECT_EQ(header.find("##INFO=<ID=END,"), std::string::npos);
  EXPECT_EQ(header.find("##FORMAT=<ID=MIN_DP,"), std::string::npos);
  EXPECT_NE(header.find("##ALT=<ID=NON_REF,"), std::string::npos);
  EXPECT_NE(header.find("##FORMAT=<ID=SB,"), std::string::npos);
  EXPECT_TRUE(header.ends_with("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tNA12878\n"));
}

TEST(GvcfFormat, BlockHeaderLineEqualsGatks) {
  // GVCFWriterUnitTest.testToVCFHeaderLine.
  EXPECT_EQ(gvcf_block_header_line({10, 20}),
            "##GVCFBlock10-20=minGQ=10(inclusive),maxGQ=20(exclusive)\n");
}

TEST(GvcfFormat, CallWithoutNonRefOrOnAnUnknownContigIsAnError) {
  VariantCall call = het_snp();
  call.alleles = {"C", "T"};
  EXPECT_THROW(call_text(call), Error);
  call = het_snp();
  call.contig = 5;
  EXPECT_THROW(call_text(call), Error);
}

// --- GvcfBlockCombiner's text against whole runs of GATK records ---

ReferenceSite site_at(std::int64_t position, char base, int depth, int gq, std::vector<int> pls) {
  return {0, position - 1, base, 2, {depth, 0}, depth, gq, std::move(pls)};
}

std::vector<ReferenceSite> small_gvcf_sites() {
  // GVCFWriterUnitTest.testAgainstExampleGVCF, before and after its SNP at 1:14673.
  std::vector<ReferenceSite> sites;
  const int block1_depths[] = {35, 35, 33, 35};
  for (int i = 0; i < 4; ++i)
    sites.push_back(site_at(14663 + i, 'C', block1_depths[i], 57, {0, 57, 855}));
  for (int p = 14667; p < 14673; ++p) sites.push_back(site_at(p, 'G', 34, 60, {0, 60, 900}));
  sites.push_back(site_at(14674, 'G', 28, 54, {1, 54, 980}));
  sites.push_back(site_at(14675, 'G', 29, 54, {0, 56, 900}));
  sites.push_back(site_at(14676, 'G', 29, 54, {0, 59, 810}));
  return sites;
}

std::string small_gvcf_text(bool floor_blocks) {
  GvcfOptions options;
  options.gq_band_upper_bounds = {1, 10, 20, 30, 40, 50, 60};
  options.floor_blocks = floor_blocks;
  GvcfBlockCombiner combiner({{"1", 249250621}}, options);
  VariantCall snp;
  snp.contig = 0;
  snp.position = 14672;
  snp.alleles = {"G", "C", kNonRefAllele};
  snp.qual = 541.77;
  snp.info = {{"BaseQRankSum", "-1.814"},
              {"ClippingRankSum", "2.599"},
              {"DP", "30"},
              {"MLEAC", "1,0"},
              {"MLEAF", "0.500,0.00"},
              {"MQ", "26.87"},
              {"MQ0", "0"},
              {"MQRankSum", "0.245"},
              {"ReadPosRankSum", "0.294"}};
  snp.genotype = {{0, 1}, {570, 0, 212, 591, 281, 872}, 99, 99};
  snp.sample = {std::vector<int>{7, 23, 0}, 30, std::array<int, 4>{4, 3, 23, 0}};
  std::string text;
  for (const ReferenceSite& site : small_gvcf_sites()) {
    if (site.position == 14673) combiner.add(snp, text);
    combiner.add(site, text);
  }
  combiner.finish(text);
  return text;
}

TEST(GvcfBlockCombinerText, EqualsGatksSmallGvcf) {
  // The records of GATK's writers test resource small.g.vcf.
  EXPECT_EQ(
      small_gvcf_text(false),
      "1\t14663\t.\tC\t<NON_REF>\t.\t.\tEND=14666\tGT:DP:GQ:MIN_DP:PL\t0/0:35:57:33:0,57,855\n"
      "1\t14667\t.\tG\t<NON_REF>\t.\t.\tEND=14672\tGT:DP:GQ:MIN_DP:PL\t0/0:34:60:34:0,60,900\n"
      "1\t14673\t.\tG\tC,<NON_REF>\t541.77\t.\tBaseQRankSum=-1.814;ClippingRankSum=2.599;"
      "DP=30;MLEAC=1,0;MLEAF=0.500,0.00;MQ=26.87;MQ0=0;MQRankSum=0.245;ReadPosRankSum=0.294\t"
      "GT:AD:DP:GQ:PL:SB\t0/1:7,23,0:30:99:570,0,212,591,281,872:4,3,23,0\n"
      "1\t14674\t.\tG\t<NON_REF>\t.\t.\tEND=14676\tGT:DP:GQ:MIN_DP:PL\t0/0:29:54:28:0,54,810\n");
}

TEST(GvcfBlockCombinerText, FloorBlocksWriteTheBandsLowerBound) {
  // HomRefBlock.createHomRefGenotype with floorBlocks: GQ 57 -> 50, 60 -> 60, 54 -> 50.
  const std::string text = small_gvcf_text(true);
  EXPECT_NE(text.find("1\t14663\t.\tC\t<NON_REF>\t.\t.\tEND=14666\tGT:DP:GQ\t0/0:35:50\n"),
            std::string::npos);
  EXPECT_NE(text.find("1\t14667\t.\tG\t<NON_REF>\t.\t.\tEND=14672\tGT:DP:GQ\t0/0:34:60\n"),
            std::string::npos);
  EXPECT_TRUE(text.ends_with("1\t14674\t.\tG\t<NON_REF>\t.\t.\tEND=14676\tGT:DP:GQ\t0/0:29:50\n"));
}

TEST(GvcfBlockCombinerText, BandChangesAndAnInsertionEqualGatksRecords) {
  GvcfBlockCombiner combiner(kContigs, GvcfOptions{});
  std::string text;
  for (const ReferenceSite& site :
       {site_at(10001427, 'T', 53, 5, {0, 5, 1899}), site_at(10001428, 'T', 53, 99, {0, 120, 1800}),
        site_at(10001429, 'C', 54, 99, {0, 125, 1810}), site_at(10001430, 'G', 56, 0, {0, 0, 1743}),
        site_at(10001431, 'A', 56, 0, {0, 0, 1760}), site_at(10001432, 'A', 56, 99, {0, 120, 1800}),
        site_at(10001433, 'T', 56, 0, {0, 0, 1779}), site_at(10001434, 'G', 56, 99, {0, 120, 1800}),
        site_at(10001435, 'A', 55, 0, {0, 0, 1790})}) {
    combiner.add(site, text);
  }
  VariantCall insertion = het_snp();
  insertion.position = 10001435;
  insertion.alleles = {"A", "AAGGCT", kNonRefAllele};
  insertion.qual = 2325.03;
  insertion.info = {{"DP", "58"},
                    {"ExcessHet", "0.0000"},
                    {"MLEAC", "2,0"},
                    {"MLEAF", "1.00,0.00"},
                    {"RAW_MQandDP", "98542,58"}};
  insertion.genotype = {{1, 1}, {2339, 156, 0, 2340, 157, 2340}, 99, 156};
  insertion.sample = {std::vector<int>{0, 52, 0}, 52, std::array<int, 4>{0, 0, 43, 9}};
  combiner.add(insertion, text);
  combiner.finish(text);
  EXPECT_EQ(text,
            "20\t10001427\t.\tT\t<NON_REF>\t.\t.\tEND=10001427\tGT:DP:GQ:MIN_DP:PL\t0/"
            "0:53:5:53:0,5,1899\n"
            "20\t10001428\t.\tT\t<NON_REF>\t.\t.\tEND=10001429\tGT:DP:GQ:MIN_DP:PL\t0/"
            "0:54:99:53:0,120,1800\n"
            "20\t10001430\t.\tG\t<NON_REF>\t.\t.\tEND=10001431\tGT:DP:GQ:MIN_DP:PL\t0/"
            "0:56:0:56:0,0,1743\n"
            "20\t10001432\t.\tA\t<NON_REF>\t.\t.\tEND=10001432\tGT:DP:GQ:MIN_DP:PL\t0/"
            "0:56:99:56:0,120,1800\n"
            "20\t10001433\t.\tT\t<NON_REF>\t.\t.\tEND=10001433\tGT:DP:GQ:MIN_DP:PL\t0/"
            "0:56:0:56:0,0,1779\n"
            "20\t10001434\t.\tG\t<NON_REF>\t.\t.\tEND=10001434\tGT:DP:GQ:MIN_DP:PL\t0/"
            "0:56:99:56:0,120,1800\n"
            "20\t10001435\t.\tA\t<NON_REF>\t.\t.\tEND=10001435\tGT:DP:GQ:MIN_DP:PL\t0/"
            "0:55:0:55:0,0,1790\n"
            "20\t10001436\t.\tA\tAAGGCT,<NON_REF>\t2325.03\t.\tDP=58;ExcessHet=0.0000;MLEAC=2,0;"
            "MLEAF=1.00,0.00;RAW_MQandDP=98542,58\tGT:AD:DP:GQ:PL:SB\t1/1:0,52,0:52:99:2339,156,0,"
            "2340,157,2340:0,0,43,9\n");
}

VariantCall golden_deletion() {
  // GATK: 20 10004769 . TAAAACTATGC T,<NON_REF> 1011.60 ...
  VariantCall call = het_snp();
  call.position = 10004768;
  call.alleles = {"TAAAACTATGC", "T", kNonRefAllele};
  call.qual = 1011.6;
  call.info = {{"BaseQRankSum", "0.599"},    {"DP", "80"},
               {"ExcessHet", "0.0000"},      {"MLEAC", "1,0"},
               {"MLEAF", "0.500,0.00"},      {"MQRankSum", "-6.625"},
               {"RAW_MQandDP", "222985,80"}, {"ReadPosRankSum", "1.879"}};
  call.genotype = {{0, 1}, {1019, 0, 1471, 1130, 1554, 2684}, 99, 1019};
  call.sample = {std::vector<int>{37, 27, 0}, 64, std::array<int, 4>{14, 23, 7, 20}};
  return call;
}

const char* const kGoldenDeletionLine =
    "20\t10004769\t.\tTAAAACTATGC\tT,<NON_REF>\t1011.60\t.\tBaseQRankSum=0.599;DP=80;"
    "ExcessHet=0.0000;MLEAC=1,0;MLEAF=0.500,0.00;MQRankSum=-6.625;RAW_MQandDP=222985,80;"
    "ReadPosRankSum=1.879\tGT:AD:DP:GQ:PL:SB\t0/1:37,27,0:64:99:1019,0,1471,1130,1554,2684:"
    "14,23,7,20\n";

TEST(GvcfBlockCombinerText, SitesUnderADeletionAreDroppedAsGatkDoes) {
  GvcfBlockCombiner combiner(kContigs, GvcfOptions{});
  std::string text;
  // 43 sites: DP 62 once, 66 and 70 21 times each -> median 66, MIN_DP 62.
  for (int i = 0; i < 43; ++i) {
    const int depth = i == 0 ? 62 : i <= 21 ? 66 : 70;
    combiner.add(site_at(10004726 + i, i == 0 ? 'T' : 'A', depth, 99, {0, 120 + i, 1800}), text);
  }
  combiner.add(golden_deletion(), text);
  // The reference model's sites under the deletion (low GQ, low DP) must not start a block.
  for (int p = 10004770; p <= 10004779; ++p) combiner.add(site_at(p, 'A', 5, 3, {0, 3, 45}), text);
  // 94 sites: DP 69 once, 77 47 times, 80 46 times -> the two middle values are 77.
  for (int i = 0; i < 94; ++i) {
    const int depth = i == 0 ? 69 : i <= 47 ? 77 : 80;
    combiner.add(site_at(10004780 + i, i == 0 ? 'A' : 'C', depth, 99, {0, 120, 1800 + i}), text);
  }
  combiner.finish(text);
  EXPECT_EQ(text, std::string("20\t10004726\t.\tT\t<NON_REF>\t.\t.\tEND=10004768\t"
                              "GT:DP:GQ:MIN_DP:PL\t0/0:66:99:62:0,120,1800\n") +
                      kGoldenDeletionLine +
                      "20\t10004780\t.\tA\t<NON_REF>\t.\t.\tEND=10004873\tGT:DP:GQ:MIN_DP:PL\t"
                      "0/0:77:99:69:0,120,1800\n");
}

TEST(GvcfBlockCombinerText, BpResolutionWritesEverySite) {
  // Without a GVCFWriter HaplotypeCaller writes every site, those under a deletion too; -GQB is
  // not read.
  GvcfOptions options;
  options.mode = ReferenceConfidenceMode::kBpResolution;
  options.gq_band_upper_bounds = {};
  GvcfBlockCombiner combiner(kContigs, options);
  EXPECT_TRUE(combiner.bands().empty());
  std::string text;
  combiner.add(ReferenceSite{0, 9999999, 'T', 2, {52, 0}, 52, 99, {0, 120, 1800}}, text);
  combiner.add(ReferenceSite{0, 10000000, 'T', 2, {54, 0}, 54, 99, {0, 120, 1800}}, text);
  combiner.add(golden_deletion(), text);
  combiner.add(ReferenceSite{0, 10004769, 'A', 2, {31, 16}, 47, 0, {0, 0, 506}}, text);
  combiner.finish(text);
  EXPECT_EQ(
      text,
      std::string(
          "20\t10000000\t.\tT\t<NON_REF>\t.\t.\t.\tGT:AD:DP:GQ:PL\t0/0:52,0:52:99:0,120,1800\n"
          "20\t10000001\t.\tT\t<NON_REF>\t.\t.\t.\tGT:AD:DP:GQ:PL\t0/0:54,0:54:99:0,120,1800\n") +
          kGoldenDeletionLine +
          "20\t10004770\t.\tA\t<NON_REF>\t.\t.\t.\tGT:AD:DP:GQ:PL\t0/0:31,16:47:0:0,0,506\n");
}

}  // namespace
}  // namespace gpp::stages::call
