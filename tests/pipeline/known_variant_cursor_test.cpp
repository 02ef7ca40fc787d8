// KnownVariantCursor: the records at each position asked for, whatever the order of the
// positions (forward within and across the windows read ahead, jumps past them, back, another
// contig and back) and wherever it was told to start reading, equal to one window read at that
// position alone.
#include "pipeline/known_variant_cursor.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

TEST(KnownVariantCursor, AnyOrderOfPositionsGivesTheirRecords) {
  test::TempDir dir;
  const std::string plain = dir.file("known.vcf");
  {
    std::ofstream out(plain);
    out << "##fileformat=VCFv4.2\n##contig=<ID=a,length=20000000>\n"
           "##contig=<ID=b,length=20000000>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
    for (const char* contig : {"a", "b"}) {
      // A record every 997 bases over 12 Mb (windows of 1 Mb, four read ahead), two at some.
      for (std::int64_t pos = 1; pos < 12'000'000; pos += 997) {
        out << contig << '\t' << pos << "\trs" << contig << pos << "\tA\tC\t.\tPASS\t.\n";
        if (pos % 7 == 0) out << contig << '\t' << pos << "\tx" << pos << "\tA\tG\t.\tPASS\t.\n";
      }
    }
  }
  const std::string gz = plain + ".gz";
  ASSERT_EQ(test::run_command("bgzip -c " + test::shell_quote(plain) + " > " +
                              test::shell_quote(gz) + " && tabix -p vcf " + test::shell_quote(gz))
                .exit_code,
            0);
  const io::KnownVariants known(gz);
  KnownVariantCursor cursor(known, {"a", "b", "c"});
  cursor.read_from(1, 500'000);  // reading ahead where no call comes first
  std::vector<std::pair<std::int32_t, std::int64_t>> asked;
  std::mt19937 random(7);
  for (std::int64_t p = 0; p < 3'000'000; p += 997 * (1 + random() % 50)) asked.push_back({0, p});
  for (const std::int64_t p : {9'000'000, 9'000'997, 1'000'000, 11'999'999, 15'000'000}) {
    asked.push_back({0, p - p % 997});  // a jump past the windows ahead, back, past the records
  }
  asked.push_back({1, 4'985});
  asked.push_back({2, 10});  // a contig without records
  asked.push_back({0, 4'985});
  asked.push_back({1, 5'982'000 - 5'982'000 % 997});
  std::size_t found = 0;
  for (const auto& [contig, position] : asked) {
    SCOPED_TRACE(std::to_string(contig) + ":" + std::to_string(position));
    const std::string name = contig == 0 ? "a" : contig == 1 ? "b" : "c";
    const std::vector<io::KnownVariant> expected =
        known.window(name, position, position + 1).starting_at(position);
    EXPECT_EQ(cursor.at(contig, position), expected);
    found += expected.size();
  }
  EXPECT_GT(found, asked.size() / 2);
}

}  // namespace
}  // namespace gpp::pipeline
