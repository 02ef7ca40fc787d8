// VcfOutput: compressed text as `bgzip -d` reads it back, and an index built while writing that is
// byte for byte the one `tabix -p vcf` builds from the same file.
#include "io/text/indexed_vcf_output.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

const std::string kHeader =
    "##fileformat=VCFv4.2\n"
    "##INFO=<ID=END,Number=1,Type=Integer,Description=\"End\">\n"
    "##contig=<ID=chr1,length=10000000>\n##contig=<ID=chr2,length=10000000>\n"
    "##contig=<ID=chrM,length=16569>\n"
    "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tS1\n";

// gVCF-like records on three contigs: blocks with END (also not first in INFO, and one END not
// past POS, which tabix ignores), sites, a deletion, and one line longer than a BGZF block.
std::string records() {
  std::string text;
  long long position = 1;
  for (const char* contig : {"chr1", "chr2", "chrM"}) {
    for (int i = 0; i < 40'000; ++i) {
      const int span = 1 + i % 7;
      std::string info = i % 3 == 0 ? "END=" + std::to_string(position + span - 1)
                                    : (i % 3 == 1 ? "DP=4;END=" + std::to_string(position + span)
                                                  : "END=" + std::to_string(position - 1));
      std::string ref = i % 11 == 0 ? "ACGTA" : "A";
      if (i == 12'345) info = "BIG=" + std::string(70'000, 'x');
      text += std::string(contig) + "\t" + std::to_string(position) + "\t.\t" + ref +
              "\t<NON_REF>\t.\t.\t" + info + "\tGT:DP\t0/0:" + std::to_string(i % 50) + "\n";
      position += span;
    }
    position = 1;
  }
  return text;
}

// Writes `text` in chunks of the given sizes (cut at line ends) after the header.
void write_in_chunks(const std::string& path, const std::string& text, std::size_t chunk) {
  VcfOutput out(path);
  out.write(kHeader);
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = std::min(text.size(), at + chunk);
    end = text.find('\n', end == 0 ? 0 : end - 1);
    end = end == std::string::npos ? text.size() : end + 1;
    out.write(std::string_view(text).substr(at, end - at));
    at = end;
  }
  out.commit();
}

void expect_as_tabix_indexes_it(const test::TempDir& dir, const std::string& path,
                                const std::string& expected_text) {
  const auto text = test::run_command("bgzip -dc " + test::shell_quote(path));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(text.out == expected_text) << "decompressed text differs";
  const std::string copy = dir.file("copy.vcf.gz");
  std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
  const auto tabix = test::run_command("tabix -f -p vcf " + test::shell_quote(copy));
  ASSERT_EQ(tabix.exit_code, 0) << tabix.err;
  EXPECT_TRUE(test::read_file(path + ".tbi") == test::read_file(copy + ".tbi"))
      << "index differs from tabix's";
}

TEST(VcfOutput, IndexBuiltWhileWritingIsTabixs) {
  test::TempDir dir;
  const std::string text = records();
  for (std::size_t chunk : {std::size_t{1} << 22, std::size_t{65'280}, std::size_t{100'000}}) {
    SCOPED_TRACE(chunk);
    const std::string path = dir.file("out.g.vcf.gz");
    write_in_chunks(path, text, chunk);
    expect_as_tabix_indexes_it(dir, path, kHeader + text);
    const auto query = test::run_command("tabix " + test::shell_quote(path) + " chr2:1000-1010");
    EXPECT_EQ(query.exit_code, 0);
    EXPECT_NE(query.out.find("chr2\t"), std::string::npos);
  }
}

TEST(VcfOutput, HeaderOnlyFileIsIndexedAsTabixDoes) {
  test::TempDir dir;
  const std::string path = dir.file("empty.vcf.gz");
  write_in_chunks(path, "", 1);
  expect_as_tabix_indexes_it(dir, path, kHeader);
}

TEST(VcfOutput, PlainTextIsWrittenAsGiven) {
  test::TempDir dir;
  const std::string path = dir.file("out.vcf");
  write_in_chunks(path, "chr1\t5\t.\tA\tC\t.\t.\t.\n", 4);
  EXPECT_EQ(test::read_file(path), kHeader + "chr1\t5\t.\tA\tC\t.\t.\t.\n");
  EXPECT_FALSE(std::filesystem::exists(path + ".tbi"));
}

TEST(VcfOutput, UnsortedRecordsAreAnErrorNamingTheFileAndLeaveNothing) {
  test::TempDir dir;
  const std::string path = dir.file("bad.vcf.gz");
  try {
    write_in_chunks(path, "chr1\t50\t.\tA\tC\t.\t.\t.\nchr1\t20\t.\tA\tC\t.\t.\t.\n", 1 << 20);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": tabix index: records not sorted by contig and position at chr1:20");
  }
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace gpp::io
