#include "pipeline/marking_runs.hpp"

#include <algorithm>
#include <queue>

#include "core/error.hpp"
#include "stages/markdup/read_ends.hpp"
#include "stages/sort/coordinate_sort.hpp"

namespace gpp::pipeline {

namespace {

// Rows are written in blocks: a header, then each field of every row of the block in turn.
constexpr std::size_t kRowsPerBlock = 4096;

struct BlockHeader {
  std::uint64_t rows = 0;
  std::uint64_t name_bytes = 0;
};

template <typename T>
void write_gathered(SpillFile& file, const T* values, std::span<const std::uint32_t> rows,
                    std::vector<T>& scratch) {
  scratch.resize(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) scratch[k] = values[rows[k]];
  file.write(scratch.data(), scratch.size() * sizeof(T));
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
  runs_.push_back(std::make_unique<SpillFile>(directory_));
  SpillFile& file = *runs_.back();
  const io::Column<std::uint64_t> keys = stages::sort::coordinate_keys(chunk);
  std::vector<std::uint64_t> u64;
  std::vector<std::int32_t> i32;
  std::vector<std::uint16_t> u16;
  std::vector<std::int16_t> i16;
  std::vector<std::uint32_t> u32;
  std::vector<stages::markdup::ClusterLocation> locations;
  for (std::size_t begin = 0; begin < sorted.size(); begin += kRowsPerBlock) {
    const std::span<const std::uint32_t> rows =
        sorted.subspan(begin, std::min(kRowsPerBlock, sorted.size() - begin));
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
    const BlockHeader header{rows.size(), names.size()};
    file.write(&header, sizeof header);
    write_gathered(file, keys.data(), rows, u64);
    write_gathered(file, chunk.tid.data(), rows, i32);
    write_gathered(file, chunk.flag.data(), rows, u16);
    write_gathered(file, chunk.mate_tid.data(), rows, i32);
    write_gathered(file, libraries.data(), rows, i32);
    write_gathered(file, features.five_prime.data(), rows, i32);
    write_gathered(file, features.score.data(), rows, i16);
    write_gathered(file, features.location.data(), rows, locations);
    write_gathered(file, features.location_read_group.data(), rows, i16);
    write_gathered(file, features.name_hash.data(), rows, u32);
    file.write(name_offset.data(), name_offset.size() * sizeof(std::uint64_t));
    file.write(names.data(), names.size());
  }
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
  // The heap orders by key, then by run (an earlier run first): SpilledRuns' merge order.
  const auto later = [&](std::size_t a, std::size_t b) {
    const std::uint64_t ka = cursors[a].block.keys[cursors[a].next];
    const std::uint64_t kb = cursors[b].block.keys[cursors[b].next];
    return ka != kb ? ka > kb : a > b;
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
  for (std::size_t r = 0; r < cursors.size(); ++r) {
    if (cursors[r].load()) heap.push(r);
  }
  std::uint64_t index = 0;
  while (!heap.empty()) {
    const std::size_t r = heap.top();
    heap.pop();
    RunCursor& cursor = cursors[r];
    visit(cursor.block, cursor.next, index++);
    if (++cursor.next < cursor.block.size() || cursor.load()) heap.push(r);
  }
  if (index != records_) throw Error("internal error: the marking runs lost records");
}

}  // namespace gpp::pipeline
