// PlainFasta against HTSlib's faidx_fetch_seq64 on the same file and index (built by `samtools
// faidx`): lines of several widths, CRLF line ends, lower case and IUPAC codes, a short last
// line; a file shorter than its index says is an error; compressed FASTA is left to faidx.
#include "io/genome/plain_fasta.hpp"

#include <gtest/gtest.h>
#include <htslib/faidx.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "io/genome/reference.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

struct Contig {
  std::string name;
  std::string bases;
  std::size_t width;
};

void write_fasta(const std::string& path, const std::vector<Contig>& contigs,
                 const std::string& line_end) {
  std::ofstream out(path, std::ios::binary);
  for (const Contig& c : contigs) {
    out << ">" << c.name << " description" << line_end;
    for (std::size_t i = 0; i < c.bases.size(); i += c.width) {
      out << c.bases.substr(i, c.width) << line_end;
    }
  }
}

void index(const std::string& path) {
  const auto r = test::run_command("samtools faidx " + test::shell_quote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

std::string faidx_bases(const std::string& path, const std::string& contig, std::int64_t start,
                        std::int64_t end) {
  faidx_t* fai = fai_load(path.c_str());
  hts_pos_t got = 0;
  char* s = faidx_fetch_seq64(fai, contig.c_str(), start, end - 1, &got);
  std::string bases = s != nullptr && got >= 0 ? std::string(s, static_cast<std::size_t>(got)) : "";
  std::free(s);
  fai_destroy(fai);
  return bases;
}

std::vector<Contig> random_contigs(std::mt19937& rng) {
  const std::string alphabet = "ACGTacgtNnRYKM";
  std::vector<Contig> contigs;
  for (const auto& [name, length, width] :
       std::vector<std::tuple<std::string, std::size_t, std::size_t>>{
           {"chr1", 10007, 60}, {"chrM", 1, 70}, {"chr_x", 4096, 7}, {"c4", 333, 1000}}) {
    std::string bases(length, 'A');
    for (char& b : bases) b = alphabet[std::uniform_int_distribution<std::size_t>(0, 13)(rng)];
    contigs.push_back({name, bases, width});
  }
  return contigs;
}

TEST(PlainFasta, BasesAreFaidxsForEveryRangeAndLineEnd) {
  test::TempDir dir;
  std::mt19937 rng(7);
  for (const std::string line_end : {"\n", "\r\n"}) {
    const std::string path = dir.file("g" + std::to_string(line_end.size()) + ".fa");
    const std::vector<Contig> contigs = random_contigs(rng);
    write_fasta(path, contigs, line_end);
    index(path);
    const std::unique_ptr<PlainFasta> plain = PlainFasta::open(path);
    ASSERT_NE(plain, nullptr);
    for (const Contig& c : contigs) {
      const auto length = static_cast<std::int64_t>(c.bases.size());
      EXPECT_EQ(plain->fetch(c.name, 0, length), c.bases) << c.name;
      for (int k = 0; k < 200; ++k) {
        const std::int64_t start = std::uniform_int_distribution<std::int64_t>(0, length - 1)(rng);
        const std::int64_t end =
            std::uniform_int_distribution<std::int64_t>(start + 1, length)(rng);
        ASSERT_EQ(plain->fetch(c.name, start, end), faidx_bases(path, c.name, start, end))
            << c.name << ":" << start << "-" << end << " line end " << line_end.size();
      }
    }
    EXPECT_EQ(plain->fetch("chr2", 0, 1), std::nullopt);  // not in the index: faidx says why
    // Reference reads the same bases through it.
    const Reference reference(path);
    EXPECT_EQ(reference.fetch("chr_x", 100, 3000), contigs[2].bases.substr(100, 2900));
  }
}

TEST(PlainFasta, FileShorterThanItsIndexIsAnErrorAndCompressedFastaIsFaidxs) {
  test::TempDir dir;
  const std::string path = dir.file("short.fa");
  write_fasta(path, {{"chr1", std::string(1000, 'G'), 50}}, "\n");
  index(path);
  std::filesystem::resize_file(path, 600);  // the index still says 1,000 bases
  const std::unique_ptr<PlainFasta> plain = PlainFasta::open(path);
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->fetch("chr1", 0, 100), std::string(100, 'G'));
  try {
    plain->fetch("chr1", 500, 1000);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": cannot read chr1:501-1000"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(PlainFasta::open(test::data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz")),
            nullptr);
  EXPECT_EQ(PlainFasta::open(dir.file("none.fa")), nullptr);
}

// An index made before the file was wrapped again (here 60 bases a line, the index saying 70)
// would read the bases at the wrong places, silently in faidx: it is an error naming both files.
TEST(PlainFasta, IndexOfAnotherWrappingIsAnError) {
  test::TempDir dir;
  std::mt19937 rng(3);
  const std::vector<Contig> contigs = random_contigs(rng);
  const std::string path = dir.file("rewrapped.fa");
  write_fasta(path, {{contigs[0].name, contigs[0].bases, 70}}, "\n");
  index(path);
  const std::string index_text = test::read_file(path + ".fai");
  write_fasta(path, {{contigs[0].name, contigs[0].bases, 60}}, "\n");
  index(path);
  {
    const std::unique_ptr<PlainFasta> plain = PlainFasta::open(path);
    ASSERT_NE(plain, nullptr);
    EXPECT_EQ(plain->fetch("chr1", 0, 100), contigs[0].bases.substr(0, 100));  // index made again
  }
  std::ofstream(path + ".fai") << index_text;
  const std::unique_ptr<PlainFasta> plain = PlainFasta::open(path);
  ASSERT_NE(plain, nullptr);
  for (const auto& [start, end] : {std::pair<std::int64_t, std::int64_t>{0, 10}, {9000, 10007}}) {
    try {
      plain->fetch("chr1", start, end);
      FAIL() << "expected an error for " << start << "-" << end;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                path + ": its index " + path + ".fai does not match the file (the lines of chr1 " +
                    "lie elsewhere); make the index again (samtools faidx " + path + ")");
    }
  }
}

}  // namespace
}  // namespace gpp::io
