#include "pipeline/alignment_inputs.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include "core/error.hpp"
#include "core/java_priority_queue.hpp"
#include "core/task_thread.hpp"
#include "io/reads/aux_fields.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/memory_budget.hpp"

namespace gpp::pipeline {

namespace {

// A record's aux bytes with its RG:Z (PG:Z) value set through `groups` (`programs`) where that
// is given: to the table's value, or removed when the table lacks it (htsjdk's setAttribute of
// null); the other fields as they are.
void translate_tags(std::span<const std::uint8_t> aux,
                    const std::map<std::string, std::string>* groups,
                    const std::map<std::string, std::string>* programs,
                    io::Column<std::uint8_t>& out) {
  const std::uint8_t* p = aux.data();
  const std::uint8_t* end = p + aux.size();
  while (p < end) {
    const std::size_t size = io::aux_field_size(p, end);
    if (size == 0) {  // malformed: kept as it is
      out.insert(out.end(), p, end);
      return;
    }
    const std::map<std::string, std::string>* table = p[2] != 'Z'                    ? nullptr
                                                      : (p[0] == 'R' && p[1] == 'G') ? groups
                                                      : (p[0] == 'P' && p[1] == 'G') ? programs
                                                                                     : nullptr;
    if (table != nullptr) {
      const auto it = table->find(reinterpret_cast<const char*>(p + 3));
      if (it != table->end()) {
        out.insert(out.end(), p, p + 3);
        out.insert(out.end(), it->second.begin(), it->second.end());
        out.push_back(0);
      }
      p += size;
      continue;
    }
    out.insert(out.end(), p, p + size);
    p += size;
  }
}

// Where a record lies for the order check: contig (unplaced last), then start.
std::pair<std::int64_t, std::int64_t> placement(const io::ReadBatch& batch, std::size_t i) {
  const std::int32_t tid = batch.tid[i];
  return {tid < 0 ? std::int64_t{1} << 40 : tid, tid < 0 ? 0 : batch.pos[i]};
}

}  // namespace

namespace {

// The HI tag's integer value, if the record has one of an integer type.
std::optional<std::int64_t> hit_index(std::span<const std::uint8_t> aux) {
  const std::uint8_t* p = io::find_aux_field(aux, "HI");
  if (p == nullptr) return std::nullopt;
  const std::uint8_t* v = p + 1;
  auto read = [&](auto value) {
    std::memcpy(&value, v, sizeof(value));
    return static_cast<std::int64_t>(value);
  };
  switch (p[0]) {
    case 'c':
      return read(std::int8_t{});
    case 'C':
      return read(std::uint8_t{});
    case 's':
      return read(std::int16_t{});
    case 'S':
      return read(std::uint16_t{});
    case 'i':
      return read(std::int32_t{});
    case 'I':
      return read(std::uint32_t{});
    default:
      return std::nullopt;
  }
}

}  // namespace

int compare_query_names(const io::ReadBatch& a, std::size_t i, const io::ReadBatch& b,
                        std::size_t j) {
  if (int c = a.read_name(i).compare(b.read_name(j))) return c < 0 ? -1 : 1;
  const std::uint16_t fa = a.flag[i];
  const std::uint16_t fb = b.flag[j];
  const bool paired_a = (fa & io::flag::kPaired) != 0;
  const bool paired_b = (fb & io::flag::kPaired) != 0;
  if (paired_a || paired_b) {
    if (!paired_a) return 1;
    if (!paired_b) return -1;
    if ((fa & io::flag::kFirstOfPair) && (fb & io::flag::kSecondOfPair)) return -1;
    if ((fa & io::flag::kSecondOfPair) && (fb & io::flag::kFirstOfPair)) return 1;
  }
  auto differ = [&](std::uint16_t bit) { return ((fa & bit) != 0) != ((fb & bit) != 0); };
  if (differ(io::flag::kReverse)) return (fa & io::flag::kReverse) ? 1 : -1;
  if (differ(io::flag::kSecondary)) return (fb & io::flag::kSecondary) ? -1 : 1;
  if (differ(io::flag::kSupplementary)) return (fb & io::flag::kSupplementary) ? -1 : 1;
  const std::optional<std::int64_t> hit_a = hit_index(a.read_aux(i));
  const std::optional<std::int64_t> hit_b = hit_index(b.read_aux(j));
  if (hit_a) {
    if (!hit_b) return 1;
    return (*hit_a > *hit_b) - (*hit_a < *hit_b);
  }
  return hit_b ? -1 : 0;
}

std::string inputs_name(const std::vector<std::string>& paths) {
  std::string name;
  for (const std::string& path : paths) name += (name.empty() ? "" : ", ") + path;
  return name;
}

void naming_inputs_of_read_errors(const std::vector<std::string>& paths,
                                  const std::function<void()>& work) {
  try {
    work();
  } catch (const ReadError& e) {
    throw Error(inputs_name(paths) + ": " + e.what());
  }
}

int compare_coordinates(const io::ReadBatch& a, std::size_t i, const io::ReadBatch& b,
                        std::size_t j) {
  auto order = [](auto x, auto y) { return (x > y) - (x < y); };
  const std::int32_t tid_a = a.tid[i];
  const std::int32_t tid_b = b.tid[j];
  if (tid_a < 0 || tid_b < 0) {
    if (tid_a >= 0) return -1;
    if (tid_b >= 0) return 1;
  } else {
    if (int c = order(tid_a, tid_b)) return c;
    if (int c = order(a.pos[i], b.pos[j])) return c;
  }
  const bool reverse_a = (a.flag[i] & io::flag::kReverse) != 0;
  const bool reverse_b = (b.flag[j] & io::flag::kReverse) != 0;
  if (reverse_a != reverse_b) return reverse_a ? 1 : -1;
  if (int c = a.read_name(i).compare(b.read_name(j))) return c < 0 ? -1 : 1;
  if (int c = order(a.flag[i], b.flag[j])) return c;
  if (int c = order(a.mapq[i], b.mapq[j])) return c;
  if (int c = order(a.mate_tid[i], b.mate_tid[j])) return c;
  if (int c = order(a.mate_pos[i], b.mate_pos[j])) return c;
  return order(a.tlen[i], b.tlen[j]);
}

AlignmentInputs::AlignmentInputs(const std::vector<std::string>& paths,
                                 const io::ReaderOptions& options)
    : paths_(paths), name_(inputs_name(paths)) {
  if (paths.empty()) throw Error("no input");
  if (std::count(paths.begin(), paths.end(), std::string(io::kStandardInput)) > 1) {
    throw Error("standard input (-) can be given once among the inputs");
  }
  // The GPU block decoder is lent to one reader (pipeline::GpuSession::inflate_offload): the
  // first input's; the others inflate on the CPU's threads.
  io::ReaderOptions each = options;
  if (paths.size() > 1) {  // the read-ahead shared out
    each.read_ahead_bytes =
        std::max<std::size_t>(options.read_ahead_bytes / paths.size(), std::size_t{1} << 20);
  }
  for (const std::string& path : paths) {
    readers_.push_back(std::make_unique<io::AlignmentReader>(path, each));
    each.inflate_offload = {};
    each.inflate_first = false;
  }
  if (readers_.size() > 1) {
    std::vector<io::Header> headers;
    for (const auto& reader : readers_) headers.push_back(reader->header());
    merge_ = io::merge_headers(headers, paths_);
  }
}

const io::Header& AlignmentInputs::header() const {
  return merge_ ? merge_->header : readers_.front()->header();
}

void AlignmentInputs::read_near_intervals(const std::vector<io::Interval>& intervals,
                                          std::int64_t padding) {
  for (const auto& reader : readers_) pipeline::read_near_intervals(*reader, intervals, padding);
}

std::optional<std::vector<std::uint64_t>> AlignmentInputs::indexed_mapped_counts() const {
  std::vector<std::uint64_t> total(header().contigs().size());
  for (const auto& reader : readers_) {
    const std::optional<std::vector<std::uint64_t>> counts = reader->indexed_mapped_counts();
    if (!counts) return std::nullopt;
    for (std::size_t c = 0; c < std::min(counts->size(), total.size()); ++c)
      total[c] += (*counts)[c];
  }
  return total;
}

bool AlignmentInputs::fit_in_memory(std::uint64_t budget, double bytes_per_bam_byte) const {
  return fits_in_memory(paths_, budget, bytes_per_bam_byte);
}

void AlignmentInputs::adopt(io::ReadBatch& batch, std::size_t from, std::size_t input) const {
  if (!merge_) return;
  const std::vector<std::int32_t>& groups = merge_->read_group[input];
  const std::vector<std::int32_t>& libraries = merge_->library[input];
  for (std::size_t r = from; r < batch.size(); ++r) {
    if (batch.read_group[r] >= 0) batch.read_group[r] = groups[batch.read_group[r]];
    if (batch.library[r] >= 0) batch.library[r] = libraries[batch.library[r]];
  }
  if (!merge_->read_group_collisions && !merge_->program_collisions) return;
  const auto* group_table = merge_->read_group_collisions ? &merge_->read_group_id[input] : nullptr;
  const auto* program_table = merge_->program_collisions ? &merge_->program_id[input] : nullptr;
  if (batch.keeps_bam_records()) {
    throw Error(paths_[input] + ": read group or program IDs renamed by the merge of the inputs");
  }
  // The records' aux bytes from `from` on, rebuilt with the translated values.
  io::Column<std::uint8_t> aux(batch.aux.begin(), batch.aux.begin() + batch.aux_offset[from]);
  std::uint64_t start = batch.aux_offset[from];
  for (std::size_t r = from; r < batch.size(); ++r) {
    const std::uint64_t end = batch.aux_offset[r + 1];
    translate_tags({batch.aux.data() + start, batch.aux.data() + end}, group_table, program_table,
                   aux);
    batch.aux_offset[r + 1] = aux.size();
    start = end;
  }
  batch.aux = std::move(aux);
}

std::uint64_t AlignmentInputs::read_in_batches(const BatchSize& size,
                                               const std::function<void(io::ReadBatch&)>& consume,
                                               PhaseTimes* times) {
  if (!merge_) return pipeline::read_in_batches(*readers_.front(), size, consume, times);
  // Batch k + 1 is merged on a thread of its own while batch k is consumed (only that thread
  // reads the inputs).
  std::array<io::ReadBatch, 2> batches;
  auto read = [this, &size](io::ReadBatch& batch) {
    batch.clear();
    return read_batch(batch, size);
  };
  // Declared after what its tasks use: on an exception it finishes them first.
  TaskThread reading;
  std::future<std::size_t> next = reading.submit([&] { return read(batches[0]); });
  std::uint64_t records = 0;
  for (std::size_t k = 0;; ++k) {
    std::size_t count = 0;
    {
      const ScopedPhase phase(times, "waiting for input");
      count = next.get();
    }
    if (count == 0) break;
    records += count;
    next = reading.submit([&, following = (k + 1) % 2] { return read(batches[following]); });
    consume(batches[k % 2]);
  }
  return records;
}

std::uint64_t AlignmentInputs::stream_to(io::AlignmentWriter& writer, const BatchSize& size,
                                         const std::function<void(io::ReadBatch&)>& transform,
                                         PhaseTimes* times) {
  if (!merge_) return stream_alignments(*readers_.front(), writer, size, transform, times);
  return read_in_batches(
      size,
      [&](io::ReadBatch& batch) {
        transform(batch);
        const ScopedPhase phase(times, "writing");
        writer.write(batch);
      },
      times);
}

void AlignmentInputs::read_into(io::ReadBatch& batch, io::RecordVisitor* visitor) {
  while (read_batch(batch, {.records = ~std::size_t{0}}) > 0) {
  }
  if (visitor == nullptr) return;
  visitor->resize(batch.size());
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, batch.size(), 1024),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              visitor->visit(batch, header(), r.begin(), r.end());
                            });
}

std::size_t AlignmentInputs::read_batch(io::ReadBatch& batch, const BatchSize& size) {
  if (!merge_) return pipeline::read_batch(*readers_.front(), batch, size);
  const std::string order = header().sort_order();
  if (order == "coordinate" || order == "queryname") return read_merged(batch, size);
  for (; reading_ < readers_.size(); ++reading_) {
    const std::size_t read = pipeline::read_batch(*readers_[reading_], batch, size);
    if (read > 0) {
      adopt(batch, batch.size() - read, reading_);
      return read;
    }
  }
  return 0;
}

// MergingSamRecordIterator.next: the queue's head input gives its record and goes back in
// keyed by its next one. The records are gathered as references into the inputs' batches and
// copied out together before a batch is refilled.
struct AlignmentInputs::Merge {
  std::vector<io::ReadBatch> batches;  ///< each input's records being merged
  std::vector<std::size_t> next;       ///< where each input's next record lies in its batch
  std::vector<const io::ReadBatch*> sources;
  std::vector<std::pair<std::int64_t, std::int64_t>> last;  ///< each input's last placement
  bool by_name;  ///< queryname order (SAMRecordQueryNameComparator), else coordinate
  JavaPriorityQueue<std::size_t, std::function<int(std::size_t, std::size_t)>> queue;
  BatchSize per_input;

  Merge(std::size_t n, bool queryname)
      : batches(n),
        next(n, 0),
        last(n, {-1, -1}),
        by_name(queryname),
        queue([this](std::size_t x, std::size_t y) {
          return by_name ? compare_query_names(batches[x], next[x], batches[y], next[y])
                         : compare_coordinates(batches[x], next[x], batches[y], next[y]);
        }) {
    for (const io::ReadBatch& batch : batches) sources.push_back(&batch);
  }
};

AlignmentInputs::~AlignmentInputs() = default;

bool AlignmentInputs::refill(std::size_t input) {
  io::ReadBatch& batch = merging_->batches[input];
  batch.clear();
  merging_->next[input] = 0;
  pipeline::read_batch(*readers_[input], batch, merging_->per_input);
  adopt(batch, 0, input);
  return !batch.empty();
}

std::size_t AlignmentInputs::read_merged(io::ReadBatch& batch, const BatchSize& size) {
  const std::size_t n = readers_.size();
  // Half of `size`'s bytes for the merged batch, half for the inputs' batches it is taken from.
  const std::uint64_t bytes_out = std::max<std::uint64_t>(size.bytes / 2, 1);
  const BatchSize per_input{std::clamp<std::size_t>(size.records / n, 4096, 1 << 20),
                            std::max<std::uint64_t>(bytes_out / n, 1)};
  if (!merging_) {
    merging_ = std::make_unique<Merge>(n, header().sort_order() == "queryname");
    merging_->per_input = per_input;
    for (std::size_t input = 0; input < n; ++input) {
      if (refill(input)) merging_->queue.offer(input);
    }
  }
  Merge& m = *merging_;
  m.per_input = per_input;
  std::vector<io::ReadBatch::RowRef> rows;
  std::size_t appended = 0;
  std::uint64_t bytes = batch.memory_bytes();
  auto copy_out = [&] {
    batch.append_rows(m.sources, rows);
    appended += rows.size();
    rows.clear();
  };
  // A step of records whatever the bytes (a batch of none would read as the inputs' end), as
  // one input's read_batch takes.
  const std::size_t least = std::min<std::size_t>(size.records, kRecordsPerStep);
  while (!m.queue.empty() && (appended + rows.size() < least ||
                              (batch.size() + rows.size() < size.records && bytes < bytes_out))) {
    const std::size_t input = m.queue.poll();
    const io::ReadBatch& from = m.batches[input];
    const std::size_t row = m.next[input];
    // Coordinate order is checked; names are not (samtools' queryname order is not htsjdk's).
    const std::pair<std::int64_t, std::int64_t> at =
        m.by_name ? m.last[input] : placement(from, row);
    if (at < m.last[input]) {
      throw Error(paths_[input] + ": the records are not in coordinate order (" +
                  std::string(from.read_name(row)) +
                  " comes after a record placed further on); several inputs are merged in "
                  "coordinate order");
    }
    m.last[input] = at;
    rows.push_back({static_cast<std::uint32_t>(input), static_cast<std::uint32_t>(row)});
    bytes += from.rows_memory_bytes(row, row + 1);
    if (++m.next[input] == from.size()) {
      copy_out();  // the rows taken from the input's batch go before it is refilled
      if (refill(input)) m.queue.offer(input);
    } else {
      m.queue.offer(input);
    }
  }
  copy_out();
  return appended;
}

}  // namespace gpp::pipeline
