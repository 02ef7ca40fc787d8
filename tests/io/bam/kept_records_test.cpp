// Records kept as their BAM bytes (ReaderOptions::keep_bam_records): the accessors give what the
// columns give, and a writer copies the bytes with FLAG from its column, so the output equals
// samtools' and what the columns write, in any order, as BAM and as SAM.
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

using test::run_command;
using test::shell_quote;

ReadBatch read(const std::string& path, bool keep, Header& header) {
  return read_alignments(path, {.keep_bam_records = keep}, header);
}

std::string samtools_view(const std::string& path) {
  const auto result = run_command("samtools view --no-PG -h " + shell_quote(path));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

TEST(KeptRecords, AccessorsGiveWhatTheColumnsHold) {
  const auto bams = test::data_files_with_suffix(".bam");
  ASSERT_GE(bams.size(), 10u);
  for (const std::string& bam : bams) {
    Header h1, h2;
    const ReadBatch columns = read(bam, false, h1);
    const ReadBatch kept = read(bam, true, h2);
    ASSERT_EQ(kept.size(), columns.size()) << bam;
    ASSERT_TRUE(kept.keeps_bam_records()) << bam;
    EXPECT_FALSE(columns.keeps_bam_records());
    EXPECT_TRUE(kept.seq.empty() && kept.qual.empty() && kept.aux.empty()) << bam;
    std::size_t differing = 0;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const auto q1 = columns.read_qual(i), q2 = kept.read_qual(i);
      const auto a1 = columns.read_aux(i), a2 = kept.read_aux(i);
      const auto c1 = columns.read_cigar(i), c2 = kept.read_cigar(i);
      const bool same = kept.flag[i] == columns.flag[i] && kept.pos[i] == columns.pos[i] &&
                        kept.end[i] == columns.end[i] && kept.tid[i] == columns.tid[i] &&
                        kept.mate_pos[i] == columns.mate_pos[i] &&
                        kept.library[i] == columns.library[i] &&
                        kept.read_name(i) == columns.read_name(i) &&
                        kept.seq_length(i) == columns.seq_length(i) &&
                        std::equal(q1.begin(), q1.end(), q2.begin(), q2.end()) &&
                        std::equal(a1.begin(), a1.end(), a2.begin(), a2.end()) &&
                        std::equal(c1.begin(), c1.end(), c2.begin(), c2.end());
      differing += same ? 0 : 1;
    }
    EXPECT_EQ(differing, 0u) << bam;
  }
}

TEST(KeptRecords, WrittenAsReadTheyEqualSamtoolsBytes) {
  test::TempDir dir;
  for (const std::string& bam : test::data_files_with_suffix(".bam")) {
    Header header;
    const ReadBatch batch = read(bam, true, header);
    write_alignments(dir.file("ours.bam"), header, batch, {.threads = 2});
    ASSERT_EQ(run_command("samtools view --no-PG -b -o " + shell_quote(dir.file("peer.bam")) + " " +
                          shell_quote(bam))
                  .exit_code,
              0);
    EXPECT_TRUE(test::read_file(dir.file("ours.bam")) == test::read_file(dir.file("peer.bam")))
        << bam;
  }
}

TEST(KeptRecords, SortedWithNewFlagsTheyEqualTheColumnsAsBamAndSam) {
  test::TempDir dir;
  const std::string bam = test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam");
  Header h1, h2;
  ReadBatch columns = read(bam, false, h1);
  ReadBatch kept = read(bam, true, h2);
  ASSERT_GT(kept.size(), 10000u);
  for (std::size_t i = 0; i < kept.size(); i += 3) {
    columns.flag[i] ^= flag::kDuplicate;
    kept.flag[i] ^= flag::kDuplicate;
  }
  const auto order = stages::sort::coordinate_order(columns, kernels::Backend::kCpu);
  ASSERT_EQ(stages::sort::coordinate_order(kept, kernels::Backend::kCpu), order);
  for (const char* suffix : {".bam", ".sam"}) {
    write_alignments(dir.file(std::string("columns") + suffix), h1, columns, order, {});
    write_alignments(dir.file(std::string("kept") + suffix), h2, kept, order, {});
    const std::string expected = samtools_view(dir.file(std::string("columns") + suffix));
    EXPECT_GT(expected.size(), 1000000u);
    EXPECT_TRUE(samtools_view(dir.file(std::string("kept") + suffix)) == expected) << suffix;
  }
  // The flags written are the column's, not the bytes': one flipped record reads back flipped.
  Header again;
  const ReadBatch back = read(dir.file("kept.bam"), true, again);
  ASSERT_EQ(back.size(), order.size());
  std::size_t wrong = 0, flipped = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    wrong += back.flag[k] != kept.flag[order[k]] ? 1 : 0;
    flipped += order[k] % 3 == 0 && (back.flag[k] & flag::kDuplicate) ? 1 : 0;
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(flipped, order.size() / 4);
}

// A CIGAR held in a CG tag: BAM output keeps the stored form (as samtools writes it); SAM output
// shows the real CIGAR without the tag, as from the columns.
TEST(KeptRecords, CigarsInCgTagsStayWhole) {
  test::TempDir dir;
  std::ofstream sam(dir.file("cg.sam"));
  sam << "@HD\tVN:1.6\n@SQ\tSN:c\tLN:1000000\n";
  std::string cigar, seq;
  for (int k = 0; k < 35'000; ++k) {
    cigar += "1M1I";
    seq += "AC";
  }
  sam << "long\t0\tc\t100\t60\t" << cigar << "\t*\t0\t0\t" << seq << "\t*\tNM:i:1\tXY:Z:after\n";
  sam.close();
  ASSERT_EQ(run_command("samtools view --no-PG -b -o " + shell_quote(dir.file("peer.bam")) + " " +
                        shell_quote(dir.file("cg.sam")))
                .exit_code,
            0);
  Header h1, h2;
  const ReadBatch columns = read(dir.file("peer.bam"), false, h1);
  const ReadBatch kept = read(dir.file("peer.bam"), true, h2);
  ASSERT_EQ(kept.read_cigar(0).size(), 70'000u);
  write_alignments(dir.file("kept.bam"), h2, kept, {});
  EXPECT_TRUE(test::read_file(dir.file("kept.bam")) == test::read_file(dir.file("peer.bam")));
  write_alignments(dir.file("columns.sam"), h1, columns, {});
  write_alignments(dir.file("kept.sam"), h2, kept, {});
  const std::string expected = test::read_file(dir.file("columns.sam"));
  EXPECT_NE(expected.find("NM:i:1\tXY:Z:after"), std::string::npos);
  EXPECT_EQ(expected.find("CG:B"), std::string::npos);
  EXPECT_TRUE(test::read_file(dir.file("kept.sam")) == expected);
}

// Converts `sam` (in `dir`) to BAM, reads it in chunks of 64 KiB with its records kept, and expects
// `records` records in at least `buffers` buffers, each with the name and qualities the columns
// give, written back as samtools reads the input.
void expect_kept_as_read(const test::TempDir& dir, const std::string& sam, std::size_t records,
                         std::size_t buffers) {
  const std::string bam = dir.file("kept_input.bam");
  ASSERT_EQ(run_command("samtools view --no-PG -b -o " + shell_quote(bam) + " " +
                        shell_quote(dir.file(sam)))
                .exit_code,
            0);
  AlignmentReader reader(bam, {.read_ahead_bytes = 1 << 16, .keep_bam_records = true});
  ReadBatch kept;
  reader.read_into(kept);
  Header header;
  const ReadBatch columns = read(bam, false, header);
  ASSERT_EQ(kept.size(), records);
  EXPECT_GE(kept.bam_record_owners.size(), buffers);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const auto q1 = columns.read_qual(i), q2 = kept.read_qual(i);
    differing += kept.read_name(i) == columns.read_name(i) &&
                         std::equal(q1.begin(), q1.end(), q2.begin(), q2.end())
                     ? 0
                     : 1;
  }
  EXPECT_EQ(differing, 0u);
  write_alignments(dir.file("kept.bam"), reader.header(), kept, {});
  EXPECT_TRUE(samtools_view(dir.file("kept.bam")) == samtools_view(bam));
}

// A fixed pseudo-random sequence.
struct Random {
  std::uint64_t state;
  std::uint64_t operator()() {
    return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33;
  }
};

// Records are inflated into slabs sized from the compression ratio seen so far. Records that
// compress badly first and well later make the first estimate short: more slabs follow, and
// every record still reads and writes back as it was.
TEST(KeptRecords, SlabsOutgrownByBetterCompressedRecords) {
  test::TempDir dir;
  std::ofstream sam(dir.file("mixed.sam"));
  sam << "@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:c\tLN:1000000\n";
  Random next{12345};
  for (int r = 0; r < 22'000; ++r) {
    std::string seq(150, 'A'), qual(150, 'I');
    if (r < 2'000) {  // random bases and qualities first
      for (char& b : seq) b = "ACGT"[next() % 4];
      for (char& q : qual) q = static_cast<char>('#' + next() % 40);
    }
    sam << "r" << r << "\t0\tc\t" << 1 + r % 900'000 << "\t60\t150M\t*\t0\t0\t" << seq << "\t"
        << qual << "\n";
  }
  sam.close();
  expect_kept_as_read(dir, "mixed.sam", 22'000,
                      3);  // the first slab was too small, and so was the next
}

// Chunks are inflated into the slabs one after the other, and a record cut by a chunk's end goes
// on in the next. Records of megabytes (longer than a chunk and than a new slab's headroom) that
// compress far better than the records before them end slabs early: they are joined in memory of
// their own, and every record still reads and writes back as it was.
TEST(KeptRecords, RecordsOfMegabytesAcrossSlabs) {
  test::TempDir dir;
  std::ofstream sam(dir.file("huge.sam"));
  sam << "@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:c\tLN:10000000\n";
  Random next{777};
  for (int r = 0; r < 2'000; ++r) {
    const bool huge = r >= 1'000 && r % 125 == 0;  // 8 records of megabytes
    const std::size_t length = huge ? 4'000'000 + 1'000 * (r % 7) : 150;
    std::string seq(length, 'C'), qual(length, 'F');
    for (char& b : seq) b = "ACGT"[next() % 4];
    if (r < 1'000) {  // random qualities first: the first slabs are sized for those
      for (char& q : qual) q = static_cast<char>('#' + next() % 40);
    }
    sam << "r" << r << "\t0\tc\t" << 1 + r << "\t60\t" << length << "M\t*\t0\t0\t" << seq << "\t"
        << qual << "\n";
  }
  sam.close();
  expect_kept_as_read(dir, "huge.sam", 2'000, 4);  // slabs, and records joined on their own
}

TEST(KeptRecords, BatchesDoNotMixWithColumnBatches) {
  const std::string bam = test::data_path("nfcore_chr22_40kb/test2.paired_end.sorted.bam");
  Header h1, h2;
  ReadBatch columns = read(bam, false, h1);
  ReadBatch kept = read(bam, true, h2);
  EXPECT_THROW(columns.append(kept), std::logic_error);
  ReadBatch empty;
  EXPECT_THROW(empty.append_row(kept, 0), std::logic_error);
  empty.append(kept);  // an empty batch takes kept records, and the buffers they lie in
  EXPECT_TRUE(empty.keeps_bam_records());
  EXPECT_EQ(empty.size(), kept.size());
  kept = ReadBatch();
  EXPECT_EQ(empty.read_name(5), columns.read_name(5));
  EXPECT_EQ(empty.read_qual(5).size(), columns.read_qual(5).size());
  EXPECT_EQ(empty.read_qual(5)[0], columns.read_qual(5)[0]);
}

}  // namespace
}  // namespace gpp::io
