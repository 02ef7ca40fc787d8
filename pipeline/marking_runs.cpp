#include "pipeline/marking_runs.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>

#include "core/error.hpp"
#include "stages/markdup/read_ends.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "stages/sort/run_merge.hpp"

namespace gpp::pipeline {

namespace {

// Rows are written in blocks: a header, then each field of every row of the block in turn.
constexpr std::size_t kRowsPerBlock = 4096;

struct BlockHeader {
  std::uint64_t rows = 0;
  std::uint64_t name_bytes = 0;
};

template <typename T>
void append_gathered(std::string& out, const T* values, std::span<const std::uint32_t> rows) {
  // The block's bytes have no alignment for T: values are copied in, not stored through a T*.
  const std::size_t at = out.size();
  out.resize(at + rows.size() * sizeof(T));
  char* to = out.data() + at;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    std::memcpy(to + k * sizeof(T), &values[rows[k]], sizeof(T));
  }
}

// One block: its header, then each field of its rows in turn, then the name offsets and names.
std::string encode_block(const io::ReadBatch& chunk, std::span<const std::uint32_t> rows,
                         const io::Column<std::uint64_t>& keys,
                         const stages::markdup::EndFeatures& features,
                         std::span<const std::int32_t> libraries) {
  // Names only of ends that may pair: nothing else reads them.
  std::vector<std::uint64_t> name_offset{0};
  std::string names;
  for (const std::uint32_t i : rows) {
    if (stages::markdup::makes_read_end(chunk.flag[i]) &&
        stages::markdup::may_pair(chunk.flag[i])) {
      names.append(chunk.read_name(i));
    }
    name_offset.push_back(names.size());
  }
  std::string out;
  const BlockHeader header{rows.size(), names.size()};
  out.append(reinterpret_cast<const char*>(&header), sizeof header);
  append_gathered(out, keys.data(), rows);
  append_gathered(out, chunk.tid.data(), rows);
  append_gathered(out, chunk.flag.data(), rows);
  append_gathered(out, chunk.mate_tid.data(), rows);
  append_gathered(out, libraries.data(), rows);
  append_gathered(out, features.five_prime.data(), rows);
  append_gathered(out, features.score.data(), rows);
  append_gathered(out, features.location.data(), rows);
  append_gathered(out, features.location_read_group.data(), rows);
  append_gathered(out, features.name_hash.data(), rows);
  out.append(reinterpret_cast<const char*>(name_offset.data()),
             name_offset.size() * sizeof(std::uint64_t));
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

// One run being merged: the block loaded and the next row to visit.
struct RunCursor {
  SpillFile::Reader in;
  MarkingRuns::Block block;
  std::size_t next = 0;

  bool load() {
    next = 0;
    BlockHeader header;
    if (!in.read(&header, sizeof header)) return false;
    const auto rows = static_cast<std::size_t>(header.rows);
    read_column(in, block.keys, rows);
    io::ReadBatch& c = block.columns;
    read_column(in, c.tid, rows);
    read_column(in, c.flag, rows);
    read_column(in, c.mate_tid, rows);
    read_column(in, c.library, rows);
    stages::markdup::EndFeatures& f = block.features;
    read_column(in, f.five_prime, rows);
    read_column(in, f.score, rows);
    read_column(in, f.location, rows);
    read_column(in, f.location_read_group, rows);
    read_column(in, f.name_hash, rows);
    read_column(in, c.name_offset, rows + 1);
    c.name.resize(static_cast<std::size_t>(header.name_bytes));
    if (header.name_bytes > 0 && !in.read(c.name.data(), c.name.size())) {
      throw Error("internal error: a marking run ends inside a block");
    }
    return rows > 0;
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
    for (std::size_t b = first; b < last; ++b)
      file.write(bytes[b - first].data(), bytes[b - first].size());
  }
  file.finish();
  records_ += sorted.size();
}

void MarkingRuns::merge(
    std::uint64_t memory_bytes,
    const std::function<void(const Block&, std::size_t row, std::uint64_t index)>& visit) {
  const std::size_t buffer = static_cast<std::size_t>(std::clamp<std::uint64_t>(
      memory_bytes / 8 / std::max<std::size_t>(runs_.size(), 1), 1 << 16, 4 << 20));
  std::vector<RunCursor> cursors;
  cursors.reserve(runs_.size());
  for (const auto& run : runs_) cursors.push_back({run->reader(buffer), {}, 0});
  // By key, ties to the earlier run: SpilledRuns' merge order.
  stages::sort::RunMerge order(
      cursors.size(), [&](std::size_t r) { return cursors[r].load(); },
      [&](std::size_t a, std::size_t b) {
        return cursors[a].block.keys[cursors[a].next] <=> cursors[b].block.keys[cursors[b].next];
      });
  std::uint64_t index = 0;
  while (!order.empty()) {
    RunCursor& cursor = cursors[order.top()];
    visit(cursor.block, cursor.next, index++);
    order.advanced(++cursor.next < cursor.block.size() || cursor.load());
  }
  if (index != records_) throw Error("internal error: the marking runs lost records");
}

}  // namespace gpp::pipeline
