#include "pipeline/marking_runs.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <utility>

#include "core/error.hpp"
#include "core/prefetch.hpp"
#include "stages/markdup/read_ends.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "stages/sort/run_merge.hpp"

namespace gpp::pipeline {

namespace {

// Rows are written in blocks: a header, then each field of every row of the block in turn.
constexpr std::size_t kRowsPerBlock = 4096;
// Memory one run's cursor in a merge holds at least: its read buffer (64 KiB) and a block decoded
// (about 42 bytes of columns per row and the names of the ends that may pair).
constexpr std::uint64_t kCursorBytes = std::uint64_t{512} << 10;
// Rows ahead whose fields a block's gathering asks the memory for.
constexpr std::size_t kRowsAhead = 16;

struct BlockHeader {
  std::uint64_t rows = 0;
  std::uint64_t name_bytes = 0;
};

template <typename T>
void append_gathered(std::string& out, const T* values, std::span<const std::uint32_t> rows) {
  // The block's bytes have no alignment for T: values are copied in, not stored through a T*.
  // Rows are scattered over a chunk larger than the caches: each is asked for ahead.
  const std::size_t at = out.size();
  out.resize(at + rows.size() * sizeof(T));
  char* to = out.data() + at;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (k + kRowsAhead < rows.size()) prefetch(&values[rows[k + kRowsAhead]]);
    std::memcpy(to + k * sizeof(T), &values[rows[k]], sizeof(T));
  }
}

// One block: its header, then each field of its rows in turn, then the name lengths and names.
std::string encode_block(const io::ReadBatch& chunk, std::span<const std::uint32_t> rows,
                         const io::Column<std::uint64_t>& keys,
                         const stages::markdup::EndFeatures& features,
                         std::span<const std::int32_t> libraries) {
  // Names only of ends that may pair: nothing else reads them. A BAM name has at most 254 bytes.
  std::vector<std::uint8_t> name_length;
  name_length.reserve(rows.size());
  std::string names;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (k + kRowsAhead < rows.size()) {
      const std::uint32_t ahead = rows[k + kRowsAhead];
      prefetch(&chunk.flag[ahead], &chunk.name_offset[ahead]);
    }
    if (k + kRowsAhead / 2 < rows.size()) {
      prefetch(chunk.name.data() + chunk.name_offset[rows[k + kRowsAhead / 2]]);
    }
    const std::uint32_t i = rows[k];
    const bool named =
        stages::markdup::makes_read_end(chunk.flag[i]) && stages::markdup::may_pair(chunk.flag[i]);
    const std::string_view name = named ? chunk.read_name(i) : std::string_view();
    if (name.size() > 0xFF) throw Error("internal error: a read name longer than BAM allows");
    names.append(name);
    name_length.push_back(static_cast<std::uint8_t>(name.size()));
  }
  std::string out;
  const BlockHeader header{rows.size(), names.size()};
  out.append(reinterpret_cast<const char*>(&header), sizeof header);
  append_gathered(out, keys.data(), rows);  // the reference too (key_reference)
  append_gathered(out, chunk.flag.data(), rows);
  append_gathered(out, chunk.mate_tid.data(), rows);
  append_gathered(out, libraries.data(), rows);
  append_gathered(out, features.five_prime.data(), rows);
  append_gathered(out, features.score.data(), rows);
  append_gathered(out, features.location.data(), rows);
  append_gathered(out, features.location_read_group.data(), rows);
  out.append(reinterpret_cast<const char*>(name_length.data()), name_length.size());
  out.append(names);
  return out;
}

template <typename Column>
void read_column(SpillFile::Reader& in, Column& column, std::size_t rows) {
  column.resize(rows);
  if (rows > 0 && !in.read(column.data(), rows * sizeof(column[0]))) {
    throw Error("internal error: a marking run ends inside a block");
  }
}

// One run being merged within a piece: the block loaded and the next row to visit.
struct RunCursor {
  SpillFile::Reader in;
  bool bounded = false;  ///< a later piece starts at end_key
  std::uint64_t end_key = 0;
  MarkingRuns::Block block;
  std::size_t next = 0;
  std::uint64_t next_block_row = 0;       ///< the run's row the next block loaded starts at
  std::vector<std::uint8_t> name_length;  ///< the block's, as read

  // The next block (false, and no rows left, at the end of the run).
  bool load() {
    next = 0;
    block.first_row = next_block_row;
    BlockHeader header;
    if (!in.read(&header, sizeof header)) {
      block.keys.clear();
      return false;
    }
    const auto rows = static_cast<std::size_t>(header.rows);
    next_block_row += rows;
    read_column(in, block.keys, rows);
    io::ReadBatch& c = block.columns;
    c.tid.resize(rows);
    for (std::size_t k = 0; k < rows; ++k) c.tid[k] = stages::sort::key_reference(block.keys[k]);
    read_column(in, c.flag, rows);
    read_column(in, c.mate_tid, rows);
    read_column(in, c.library, rows);
    stages::markdup::EndFeatures& f = block.features;
    read_column(in, f.five_prime, rows);
    read_column(in, f.score, rows);
    read_column(in, f.location, rows);
    read_column(in, f.location_read_group, rows);
    read_column(in, name_length, rows);
    c.name_offset.resize(rows + 1);
    c.name_offset[0] = 0;
    for (std::size_t k = 0; k < rows; ++k) c.name_offset[k + 1] = c.name_offset[k] + name_length[k];
    c.name.resize(static_cast<std::size_t>(header.name_bytes));
    if (header.name_bytes > 0 && !in.read(c.name.data(), c.name.size())) {
      throw Error("internal error: a marking run ends inside a block");
    }
    return rows > 0;
  }
  // Whether the run has a row at `next` (loading the next block when needed) of this piece.
  bool has_head() {
    if (next == block.size() && !load()) return false;
    return !bounded || block.keys[next] < end_key;
  }
};

}  // namespace

MarkingRuns::MarkingRuns(std::string directory) : directory_(std::move(directory)) {}
MarkingRuns::~MarkingRuns() = default;

std::uint64_t MarkingRuns::disk_bytes() const {
  std::uint64_t bytes = 0;
  for (const auto& run : runs_) bytes += run->size();
  return bytes;
}

void MarkingRuns::add(const io::ReadBatch& chunk, std::span<const std::uint32_t> sorted,
                      const stages::markdup::EndFeatures& features,
                      std::span<const std::int32_t> libraries) {
  runs_.push_back(std::make_unique<SpillFile>(directory_, 64 << 10));
  SpillFile& file = *runs_.back();
  std::vector<BlockStart>& starts = blocks_.emplace_back();
  const io::Column<std::uint64_t> keys = stages::sort::coordinate_keys(chunk);
  // Blocks are gathered in parallel (each row a scattered read of the chunk), written in order.
  const std::size_t block_count = (sorted.size() + kRowsPerBlock - 1) / kRowsPerBlock;
  constexpr std::size_t kBlocksAtOnce = 64;
  std::vector<std::string> bytes(std::min(block_count, kBlocksAtOnce));
  for (std::size_t first = 0; first < block_count; first += kBlocksAtOnce) {
    const std::size_t last = std::min(block_count, first + kBlocksAtOnce);
    oneapi::tbb::parallel_for(first, last, [&](std::size_t b) {
      const std::span<const std::uint32_t> rows = sorted.subspan(
          b * kRowsPerBlock, std::min(kRowsPerBlock, sorted.size() - b * kRowsPerBlock));
      bytes[b - first] = encode_block(chunk, rows, keys, features, libraries);
    });
    for (std::size_t b = first; b < last; ++b) {
      starts.push_back({keys[sorted[b * kRowsPerBlock]], file.size(), b * kRowsPerBlock});
      file.write(bytes[b - first].data(), bytes[b - first].size());
    }
  }
  file.finish();
  records_ += sorted.size();
}

std::size_t MarkingRuns::cut(std::size_t most, std::uint64_t memory_bytes) {
  // Each piece reads every run through a cursor: its smallest read buffer and a decoded block.
  most = std::clamp<std::size_t>(
      static_cast<std::size_t>(memory_bytes / 8 /
                               (std::max<std::size_t>(runs_.size(), 1) * kCursorBytes)),
      1, std::max<std::size_t>(most, 1));
  // Bounds at quantiles of the blocks' first keys (blocks hold equal numbers of rows).
  std::vector<std::uint64_t> first_keys;
  for (const std::vector<BlockStart>& run : blocks_) {
    for (const BlockStart& block : run) {
      if (block.first_key < stages::sort::kUnplacedKey) first_keys.push_back(block.first_key);
    }
  }
  std::sort(first_keys.begin(), first_keys.end());
  bounds_.clear();
  for (std::size_t p = 1; p < most && !first_keys.empty(); ++p) {
    const std::uint64_t bound = first_keys[p * first_keys.size() / most];
    if (bound > (bounds_.empty() ? first_keys.front() : bounds_.back())) bounds_.push_back(bound);
  }
  return bounds_.size() + 1;
}

std::uint64_t MarkingRuns::merge_piece(std::size_t piece, std::size_t buffer_bytes,
                                       const Visit& visit,
                                       std::vector<std::uint64_t>& first_rows) const {
  const bool first = piece == 0;
  const std::uint64_t begin_key = first ? 0 : bounds_[piece - 1];
  std::vector<RunCursor> cursors;
  cursors.reserve(runs_.size());
  first_rows.assign(runs_.size(), 0);
  std::uint64_t index = 0;  // rows of every run before the piece
  for (std::size_t r = 0; r < runs_.size(); ++r) {
    // From the last block that starts before the piece's first key, its rows before it skipped.
    const std::vector<BlockStart>& starts = blocks_[r];
    auto from = std::lower_bound(
        starts.begin(), starts.end(), begin_key,
        [](const BlockStart& block, std::uint64_t key) { return block.first_key < key; });
    if (from != starts.begin()) --from;
    const std::uint64_t offset = from == starts.end() ? runs_[r]->size() : from->offset;
    const bool bounded = piece < bounds_.size();
    const std::uint64_t from_row = from == starts.end() ? 0 : from->first_row;
    RunCursor& cursor = cursors.emplace_back(RunCursor{.in = runs_[r]->reader(buffer_bytes, offset),
                                                       .bounded = bounded,
                                                       .end_key = bounded ? bounds_[piece] : 0,
                                                       .block = {},
                                                       .next = 0,
                                                       .next_block_row = from_row,
                                                       .name_length = {}});
    cursor.block.run = r;
    if (from == starts.end() || !cursor.load()) {
      first_rows[r] = from_row;
      continue;
    }
    std::uint64_t skipped = 0;
    while (!first && cursor.block.keys[cursor.next] < begin_key) {
      ++skipped;
      if (++cursor.next == cursor.block.size() && !cursor.load()) break;
    }
    first_rows[r] = from_row + skipped;
    index += first_rows[r];
  }
  // By key, ties to the earlier run: SpilledRuns' merge order.
  stages::sort::RunMerge order(
      cursors.size(), [&](std::size_t r) { return cursors[r].has_head(); },
      [&](std::size_t a, std::size_t b) {
        return cursors[a].block.keys[cursors[a].next] <=> cursors[b].block.keys[cursors[b].next];
      });
  const std::uint64_t first_index = index;
  while (!order.empty()) {
    RunCursor& cursor = cursors[order.top()];
    visit(piece, cursor.block, cursor.next, index++);
    ++cursor.next;
    order.advanced(cursor.has_head());
  }
  return index - first_index;
}

void MarkingRuns::merge(std::uint64_t memory_bytes, const Visit& visit) {
  const std::size_t pieces = bounds_.size() + 1;
  first_rows_.assign(pieces, {});
  const std::size_t buffer = static_cast<std::size_t>(std::clamp<std::uint64_t>(
      memory_bytes / 8 / std::max<std::size_t>(runs_.size() * pieces, 1), 1 << 16, 4 << 20));
  std::atomic<std::uint64_t> visited{0};
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, pieces, 1),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        for (std::size_t piece = range.begin(); piece != range.end(); ++piece) {
          visited += merge_piece(piece, buffer, visit, first_rows_[piece]);
        }
      },
      oneapi::tbb::simple_partitioner());
  if (visited != records_) throw Error("internal error: the marking runs lost records");
}

}  // namespace gpp::pipeline
