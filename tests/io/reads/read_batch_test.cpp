// ReadBatch::append_rows (the parallel gather of a merge) against append_row record by record,
// on records of real BAM files.
#include "io/reads/read_batch.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "io/bam/alignment_reader.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

void expect_same_columns(const ReadBatch& a, const ReadBatch& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.tid, b.tid);
  EXPECT_EQ(a.pos, b.pos);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.flag, b.flag);
  EXPECT_EQ(a.mapq, b.mapq);
  EXPECT_EQ(a.bin, b.bin);
  EXPECT_EQ(a.mate_tid, b.mate_tid);
  EXPECT_EQ(a.mate_pos, b.mate_pos);
  EXPECT_EQ(a.tlen, b.tlen);
  EXPECT_EQ(a.read_group, b.read_group);
  EXPECT_EQ(a.library, b.library);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.name_offset, b.name_offset);
  EXPECT_EQ(a.cigar, b.cigar);
  EXPECT_EQ(a.cigar_offset, b.cigar_offset);
  EXPECT_EQ(a.seq, b.seq);
  EXPECT_EQ(a.qual, b.qual);
  EXPECT_EQ(a.seq_offset, b.seq_offset);
  EXPECT_EQ(a.aux, b.aux);
  EXPECT_EQ(a.aux_offset, b.aux_offset);
}

TEST(ReadBatch, AppendRowsGathersAsAppendRowDoes) {
  const auto bams = test::data_files_with_suffix(".bam");
  ASSERT_GE(bams.size(), 2u);
  Header h1, h2;
  const ReadBatch first = read_alignments(bams[0], {}, h1);
  const ReadBatch second = read_alignments(bams[1], {}, h2);
  ASSERT_GT(first.size(), 3u);
  ASSERT_GT(second.size(), 3u);
  // Rows taken alternately, some twice, some skipped, onto a batch that already holds records.
  std::vector<ReadBatch::RowRef> rows;
  for (std::uint32_t i = 0; i < std::max(first.size(), second.size()); i += 2) {
    if (i < first.size()) rows.push_back({0, i});
    if (i < second.size()) rows.push_back({1, i});
    if (i % 6 == 0 && i < first.size()) rows.push_back({0, i});
  }
  const ReadBatch* sources[] = {&first, &second};
  ReadBatch expected;
  ReadBatch gathered;
  expected.append_row(second, 1);
  gathered.append_row(second, 1);
  for (const ReadBatch::RowRef& row : rows) expected.append_row(*sources[row.source], row.row);
  gathered.append_rows(sources, rows);
  expect_same_columns(gathered, expected);
  gathered.append_rows(sources, {});  // nothing
  expect_same_columns(gathered, expected);
}

TEST(ReadBatch, AppendRowsRefusesKeptBamRecords) {
  const auto bams = test::data_files_with_suffix(".bam");
  ASSERT_FALSE(bams.empty());
  Header header;
  const ReadBatch kept = read_alignments(bams[0], {.keep_bam_records = true}, header);
  const ReadBatch* sources[] = {&kept};
  const ReadBatch::RowRef row{0, 0};
  ReadBatch batch;
  EXPECT_THROW(batch.append_rows(sources, {&row, 1}), std::logic_error);
}

}  // namespace
}  // namespace gpp::io
