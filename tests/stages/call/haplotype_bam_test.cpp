// Tests of a region's haplotype BAM records (haplotype_bam_records): which haplotypes and reads a
// writer type gives, their names' indices, positions and tags (GATK HaplotypeBAMWriter and
// AssemblyBasedCallerUtils' tags), BI/BD clipped as GATK's ClippingOp clips them, htsjdk's tag
// order.
#include "stages/call/haplotype_bam.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "io/reads/aux_fields.hpp"
#include "stages/call/region_work.hpp"

namespace gpp::stages::call {
namespace {

std::string tag_text(std::span<const std::uint8_t> aux) {
  std::string out;
  const std::uint8_t* p = aux.data();
  const std::uint8_t* end = p + aux.size();
  while (p < end) {
    const std::size_t size = io::aux_field_size(p, end);
    out += std::string(reinterpret_cast<const char*>(p), 2) + ":";
    out += p[2] == 'Z' ? std::string(reinterpret_cast<const char*>(p + 3)) : std::string("#");
    out += " ";
    p += size;
  }
  return out;
}

/// A region of two haplotypes (reference ACGTACGTAC, alternate ACGTTCGTAC) over contig positions
/// 100..109, calling span 104..104, one read favouring the alternate; the read was clipped from
/// 10 to 8 bases and kept its BI tag of 10 (no BD).
RegionWork two_haplotype_region() {
  RegionWork work;
  work.full_reference.start = 100;
  const std::vector<std::uint32_t> ten_matches = {cigar_element(CigarOp::kMatch, 10)};
  Haplotype reference = make_haplotype("ACGTACGTAC", ten_matches, 0, {100, 109}, true);
  Haplotype alternate = make_haplotype("ACGTTCGTAC", ten_matches, 0, {100, 109}, false);
  work.genotyping_haplotypes = {reference, alternate};
  work.window.variant_span = {104, 104};
  CallRead read;
  read.name = "r1";
  read.contig = 0;
  read.start = 101;
  read.cigar = {cigar_element(CigarOp::kHardClip, 1), cigar_element(CigarOp::kMatch, 8),
                cigar_element(CigarOp::kHardClip, 1)};
  read.bases = "CGTTCGTA";
  read.quals.assign(8, 30);
  read.insertion_quals.assign(8, 40);
  const std::string bi = "IIIIIIIIII";  // ten Q40s, as the read had them before its clipping
  read.aux = {'X', 'A', 'Z', 'b', 'w', 'a', 0, 'B', 'I', 'Z'};
  read.aux.insert(read.aux.end(), bi.begin(), bi.end());
  read.aux.push_back(0);
  work.genotyping_reads = {read};
  work.likelihoods.values = {-10.0, -1.0};  // the alternate, informatively
  work.likelihoods.read_count = 1;
  work.likelihoods.haplotype_count = 2;
  work.supported_alleles = {"chr1:105=1"};
  work.called_haplotypes_in_order = {0, 1, 1};
  return work;
}

TEST(HaplotypeBamRecords, CalledHaplotypesThenTheTaggedReads) {
  const RegionWork work = two_haplotype_region();
  const ContigReference contig{0, "NNNNNNNNNNNN", "chr1"};
  const std::vector<HaplotypeBamRecord> records =
      haplotype_bam_records(work, contig, BamWriterType::kCalledHaplotypes);
  ASSERT_EQ(records.size(), 3u);
  // Two called haplotypes in Java HashSet order (by bucket of their hash), indices 0 and 1.
  std::vector<std::int32_t> hashes = {java_hash_code("ACGTACGTAC"), java_hash_code("ACGTTCGTAC")};
  const std::vector<std::size_t> order =
      java_hash_set_order(work.called_haplotypes_in_order, hashes);
  for (std::size_t i = 0; i < 2; ++i) {
    const CallRead& h = records[i].read;
    EXPECT_EQ(records[i].haplotype_index, static_cast<int>(i));
    EXPECT_EQ(h.bases, work.genotyping_haplotypes[order[i]].bases);
    EXPECT_EQ(h.start, 100);
    EXPECT_EQ(h.flag, 0x10);
    EXPECT_EQ(h.mapping_quality, 60);
    EXPECT_EQ(h.quals, std::vector<std::uint8_t>(10, 33));
    EXPECT_EQ(tag_text(h.aux), "HC:# RG:ArtificialHaplotypeRG CR:chr1:105-105 ");
  }
  // The read: its XA extended, AR its best (alternate) haplotype's span, CR the calling span, BI
  // clipped to its 8 bases and BD added as 45s (ClippingOp writes both), in htsjdk's tag order.
  const CallRead& read = records[2].read;
  EXPECT_EQ(records[2].haplotype_index, -1);
  EXPECT_EQ(read.name, "r1");
  EXPECT_EQ(tag_text(read.aux),
            "XA:bwa, chr1:105=1 BD:NNNNNNNN BI:IIIIIIII AR:chr1:101-110 CR:chr1:105-105 ");
}

TEST(HaplotypeBamRecords, WriterTypesAndRegionsWithoutCalls) {
  RegionWork work = two_haplotype_region();
  const ContigReference contig{0, "NNNNNNNNNNNN", "chr1"};
  EXPECT_EQ(haplotype_bam_records(work, contig, BamWriterType::kCalledHaplotypesNoReads).size(),
            2u);
  EXPECT_EQ(haplotype_bam_records(work, contig, BamWriterType::kNoHaplotypes).size(), 1u);
  const auto all = haplotype_bam_records(work, contig, BamWriterType::kAllPossibleHaplotypes);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].read.bases, "ACGTACGTAC");  // list order
  EXPECT_EQ(all[1].read.bases, "ACGTTCGTAC");
  work.called_haplotypes_in_order.clear();  // no call in the region
  EXPECT_TRUE(haplotype_bam_records(work, contig, BamWriterType::kCalledHaplotypes).empty());
  EXPECT_EQ(haplotype_bam_records(work, contig, BamWriterType::kAllPossibleHaplotypes).size(), 3u);
  work.likelihoods.values.pop_back();
  EXPECT_THROW(haplotype_bam_records(work, contig, BamWriterType::kAllPossibleHaplotypes), Error);
}

}  // namespace
}  // namespace gpp::stages::call
