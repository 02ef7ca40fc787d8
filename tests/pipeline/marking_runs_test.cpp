// MarkingRuns merged in pieces side by side visits every record once, with the index a stable
// sort of the whole input by coordinate key gives it (the order SpilledRuns merges records in),
// whatever the number of pieces.
#include "pipeline/marking_runs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "io/bam/alignment_reader.hpp"
#include "stages/markdup/read_ends.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

struct Visited {
  std::size_t pieces = 0;
  std::vector<std::int32_t> record;  ///< by index: the record (its row in the input)
  std::vector<std::size_t> piece;    ///< by index: the piece that visited it
  std::vector<std::uint16_t> flag;
  std::vector<std::int32_t> tid;
  std::vector<std::string> name;
  std::vector<std::size_t> run;       ///< by index: the run it was read from
  std::vector<std::uint64_t> row;     ///< by index: its place in that run
  std::vector<std::size_t> run_of;    ///< by record: the run it was added in
  std::vector<std::uint64_t> row_of;  ///< by record: its place in that run (coordinate order)
  /// By piece, by run: the rows MarkingRuns::first_rows gave.
  std::vector<std::vector<std::uint64_t>> first_rows;
};

// The records of `reads` in `order` as runs of `run_size` consecutive records, merged in at most
// `most` pieces; the library column carries each record's row in `reads`.
Visited merge_in_pieces(const io::ReadBatch& reads, const io::Header& header,
                        const std::vector<std::uint32_t>& order, std::size_t run_size,
                        std::size_t most, std::uint64_t memory = std::uint64_t{1} << 30) {
  test::TempDir dir;
  MarkingRuns runs(dir.path().string());
  Visited visited;
  visited.run_of.assign(reads.size(), 0);
  visited.row_of.assign(reads.size(), 0);
  for (std::size_t first = 0; first < order.size(); first += run_size) {
    io::ReadBatch chunk;
    std::vector<std::int32_t> rows;
    for (std::size_t k = first; k < std::min(order.size(), first + run_size); ++k) {
      chunk.append_row(reads, order[k]);
      rows.push_back(static_cast<std::int32_t>(order[k]));
    }
    stages::markdup::EndFeatures features("");
    features.compute(chunk, header);
    const std::vector<std::uint32_t> sorted =
        stages::sort::coordinate_order(chunk, kernels::Backend::kCpu);
    for (std::size_t j = 0; j < sorted.size(); ++j) {
      const auto record = static_cast<std::size_t>(rows[sorted[j]]);
      visited.run_of[record] = first / run_size;
      visited.row_of[record] = j;
    }
    runs.add(chunk, sorted, features, rows);
  }
  visited.pieces = runs.cut(most, memory);
  const std::size_t n = reads.size();
  visited.record.assign(n, -1);
  visited.piece.assign(n, 0);
  visited.flag.assign(n, 0);
  visited.tid.assign(n, 0);
  visited.name.assign(n, "");
  visited.run.assign(n, 0);
  visited.row.assign(n, 0);
  runs.merge(64 << 20, [&](std::size_t piece, const MarkingRuns::Block& block, std::size_t row,
                           std::uint64_t index) {
    const auto at = static_cast<std::size_t>(index);
    if (at >= n || visited.record[at] != -1) {
      ADD_FAILURE() << "index " << index << " out of range or visited twice";
      return;
    }
    visited.record[at] = block.columns.library[row];
    visited.piece[at] = piece;
    visited.flag[at] = block.columns.flag[row];
    visited.tid[at] = block.columns.tid[row];
    visited.name[at] = std::string(block.columns.read_name(row));
    visited.run[at] = block.run;
    visited.row[at] = block.first_row + row;
  });
  for (std::size_t piece = 0; piece < visited.pieces; ++piece) {
    visited.first_rows.push_back(runs.first_rows(piece));
  }
  return visited;
}

TEST(MarkingRuns, PiecesSideBySideVisitTheMergedOrder) {
  io::Header header;
  const io::ReadBatch bam = io::read_alignments(
      test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam"), {}, header);
  ASSERT_GT(bam.size(), 5000u);
  // The records 12 times over (equal keys in many runs), shuffled (so that every run spans the
  // genome), with every tenth record moved to no reference, unmapped.
  io::ReadBatch reads;
  for (int copy = 0; copy < 12; ++copy) reads.append(bam);
  const std::size_t n = reads.size();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937 random(7);
  for (std::size_t i = n - 1; i > 0; --i) std::swap(order[i], order[random() % (i + 1)]);
  io::ReadBatch input = reads;
  for (std::size_t i = 0; i < n; i += 10) {
    input.tid[i] = -1;
    input.pos[i] = static_cast<std::int32_t>(i % 3) - 1;
    input.flag[i] |= io::flag::kUnmapped;
  }
  const auto unplaced =
      static_cast<std::size_t>(std::count(input.tid.begin(), input.tid.end(), -1));
  // What the merge must give: one stable sort of the shuffled input by coordinate key.
  io::ReadBatch shuffled;
  for (const std::uint32_t i : order) shuffled.append_row(input, i);
  const std::vector<std::uint32_t> sorted =
      stages::sort::coordinate_order(shuffled, kernels::Backend::kCpu);

  const Visited one = merge_in_pieces(input, header, order, 15000, 1);
  EXPECT_EQ(one.pieces, 1u);
  // A budget too small for a cursor on every run in a second piece keeps one.
  EXPECT_EQ(merge_in_pieces(input, header, order, 15000, 16, 1 << 20).pieces, 1u);
  for (const std::size_t most : {2, 7, 16}) {
    SCOPED_TRACE("at most " + std::to_string(most) + " pieces");
    const Visited some = merge_in_pieces(input, header, order, 15000, most);
    EXPECT_GE(some.pieces, most / 2 + 1);  // bounds at the blocks' first keys (4096 records)
    EXPECT_LE(some.pieces, most);
    std::size_t last_piece_unplaced = 0;
    for (std::size_t k = 0; k < n; ++k) {
      ASSERT_EQ(some.record[k], static_cast<std::int32_t>(order[sorted[k]])) << "index " << k;
      ASSERT_EQ(one.record[k], some.record[k]) << "index " << k;
      ASSERT_EQ(some.flag[k], input.flag[static_cast<std::size_t>(some.record[k])]);
      ASSERT_EQ(some.tid[k], input.tid[static_cast<std::size_t>(some.record[k])]);
      const std::uint16_t f = some.flag[k];
      if (stages::markdup::makes_read_end(f) && stages::markdup::may_pair(f)) {
        ASSERT_EQ(some.name[k], reads.read_name(static_cast<std::size_t>(some.record[k])));
      }
      if (k > 0) {
        ASSERT_LE(some.piece[k - 1], some.piece[k]) << "index " << k;
      }
      // Where the record lies in the spilled runs.
      const auto record = static_cast<std::size_t>(some.record[k]);
      ASSERT_EQ(some.run[k], some.run_of[record]) << "index " << k;
      ASSERT_EQ(some.row[k], some.row_of[record]) << "index " << k;
      if (input.tid[static_cast<std::size_t>(some.record[k])] == -1) {
        last_piece_unplaced += some.piece[k] == some.pieces - 1;
      }
    }
    EXPECT_EQ(last_piece_unplaced, unplaced);
    // Each piece starts every run at the rows the pieces before it visited.
    const std::size_t run_count = (n + 14999) / 15000;
    std::vector<std::uint64_t> before(run_count, 0);
    for (std::size_t piece = 0; piece < some.pieces; ++piece) {
      EXPECT_EQ(some.first_rows[piece], before) << "piece " << piece;
      for (std::size_t k = 0; k < n; ++k) before[some.run[k]] += some.piece[k] == piece;
    }
  }
}

}  // namespace
}  // namespace gpp::pipeline
