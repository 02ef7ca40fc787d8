// Tests of the htsjdk aux encoding and the Java hash codes of a haplotype BAM: GATK's own value
// (HaplotypeBAMWriterUnitTest's expected HC tag), htsjdk's integer-type boundaries
// (BinaryTagCodec.getIntegerType), and HashSet orders derived from Java's HashMap rules (bucket =
// (h ^ h >>> 16) & (capacity - 1), insertion order within a bucket, capacity the power of two
// above count / 0.75 + 1, at least 16).
#include "stages/call/bam_tags.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/reads/aux_fields.hpp"

namespace gpp::stages::call {
namespace {

std::vector<std::uint8_t> bytes(std::string_view text) { return {text.begin(), text.end()}; }

TEST(BamTags, JavaHashCodeOfBases) {
  // HaplotypeBAMWriterUnitTest: the haplotype ACTGAAGGTTCC is written with HC:i:1835413366.
  EXPECT_EQ(java_hash_code("ACTGAAGGTTCC"), 1835413366);
  EXPECT_EQ(java_hash_code(""), 1);
  EXPECT_EQ(java_hash_code("A"), 31 + 65);
  // Long sequences wrap around as Java's int arithmetic does (a negative code).
  EXPECT_LT(java_hash_code(std::string(100, 'T')), 0);
}

TEST(BamTags, HashSetOrderFollowsBucketsThenInsertion) {
  // Sixteen buckets for four entries: 0x10000 spreads to bucket 1, 5 and 21 share bucket 5.
  const std::vector<std::int32_t> hashes = {5, 3, 0x10000, 21};
  const std::vector<std::size_t> inserted = {0, 1, 2, 3, 0, 1};  // repeats ignored
  EXPECT_EQ(java_hash_set_order(inserted, hashes), (std::vector<std::size_t>{2, 1, 0, 3}));
  // Twelve entries make a table of 32 (12 / 0.75 + 1 = 17): 16 and 0 part, 16 after 15.
  std::vector<std::int32_t> twelve = {16, 0};
  for (int h = 4; h < 14; ++h) twelve.push_back(h);
  std::vector<std::size_t> order(twelve.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::vector<std::size_t> got = java_hash_set_order(order, twelve);
  EXPECT_EQ(got.front(), 1u);  // hash 0
  EXPECT_EQ(got.back(), 0u);   // hash 16, after 4..13
  // With eleven entries the table has 16 buckets: 16 and 0 share bucket 0, in insertion order.
  twelve.pop_back();
  order.pop_back();
  const std::vector<std::size_t> eleven = java_hash_set_order(order, twelve);
  EXPECT_EQ(eleven[0], 0u);
  EXPECT_EQ(eleven[1], 1u);
}

TEST(BamTags, IntegerTypesAreHtsjdks) {
  const std::pair<std::int64_t, char> cases[] = {
      {0, 'c'},          {127, 'c'},        {128, 'C'},        {255, 'C'},   {256, 's'},
      {32767, 's'},      {32768, 'S'},      {65535, 'S'},      {65536, 'i'}, {2147483647, 'i'},
      {2147483648, 'I'}, {4294967295, 'I'}, {-1, 'c'},         {-128, 'c'},  {-129, 's'},
      {-32768, 's'},     {-32769, 'i'},     {-2147483648, 'i'}};
  for (const auto& [value, type] : cases) EXPECT_EQ(htsjdk_integer_type(value), type) << value;
  EXPECT_THROW(htsjdk_integer_type(4294967296), Error);
  EXPECT_THROW(htsjdk_integer_type(-2147483649), Error);
}

TEST(BamTags, SetAttributeReplacesInPlaceOrAppends) {
  std::vector<std::uint8_t> aux = bytes(std::string("XAZbwa\0NMC\x02", 11));
  set_string_tag(aux, "XA", "chr1:5=1");
  set_integer_tag(aux, "HC", -5);
  EXPECT_EQ(aux, bytes(std::string("XAZchr1:5=1\0NMC\x02HCc\xfb", 20)));
  EXPECT_EQ(string_tag(aux, "XA"), "chr1:5=1");
  EXPECT_EQ(string_tag(aux, "NM"), "");  // present, not a string
  EXPECT_EQ(string_tag(aux, "AR"), std::nullopt);
  set_integer_tag(aux, "NM", 70000);  // widened in place
  EXPECT_EQ(aux, bytes(std::string("XAZchr1:5=1\0NMi\x70\x11\x01\x00HCc\xfb", 23)));
}

TEST(BamTags, FieldsAreWrittenAsHtsjdkWritesThem) {
  // NM:i:2 read as 'i' is written as 'c'; AS:S:300 as 's'; a string and an array stay as they
  // are; the fields are sorted by (second character, first character): MD, ZB, NM, AS -> by key
  // 'D'M < 'M'N < 'S'A < 'B'Z ... i.e. MD (0x444D), NM (0x4D4E), AS (0x5341), ZB (0x425A).
  const std::vector<std::uint8_t> aux =
      bytes(std::string("NMi\x02\x00\x00\x00"
                        "ASS\x2c\x01"
                        "MDZ5A3\0"
                        "ZBBc\x01\x00\x00\x00\x07",
                        28));
  EXPECT_EQ(as_htsjdk_writes(aux), bytes(std::string("ZBBc\x01\x00\x00\x00\x07"
                                                     "MDZ5A3\0"
                                                     "NMc\x02"
                                                     "ASs\x2c\x01",
                                                     25)));
  // An NA12878 read's tags in htsjdk's order (GATK's -bamout of such a read).
  std::vector<std::uint8_t> read;
  for (const char* tag : {"RG", "XT", "NM", "SM", "AM", "X0", "X1", "XM", "XO", "XG", "MD"}) {
    set_string_tag(read, tag, "v");
  }
  set_integer_tag(read, "HC", 1);
  set_string_tag(read, "AR", "a");
  set_string_tag(read, "CR", "c");
  set_string_tag(read, "XA", "x");
  const std::vector<std::uint8_t> sorted = as_htsjdk_writes(read);
  std::string order;
  for (const std::uint8_t* p = sorted.data(); p < sorted.data() + sorted.size();
       p += io::aux_field_size(p, sorted.data() + sorted.size())) {
    order += std::string(reinterpret_cast<const char*>(p), 2) + " ";
  }
  EXPECT_EQ(order, "X0 X1 XA HC MD RG XG AM NM SM XM XO AR CR XT ");
  const std::vector<std::uint8_t> malformed = bytes("NMi\x02");
  EXPECT_THROW(as_htsjdk_writes(malformed), Error);
}

}  // namespace
}  // namespace gpp::stages::call
