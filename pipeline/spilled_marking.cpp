#include "pipeline/spilled_marking.hpp"

#include <vector>

#include "core/error.hpp"
#include "pipeline/alignment_stream.hpp"
#include "pipeline/heap_reuse.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"
#include "stages/markdup/marking_columns.hpp"
#include "stages/sort/coordinate_sort.hpp"

namespace gpp::pipeline {

SpilledMarking::SpilledMarking(io::AlignmentReader& reader, const std::string& read_name_regex,
                               std::uint64_t budget, const std::string& directory,
                               kernels::Backend backend)
    : header_(reader.header()),
      runs_(directory, reader.header(), SpilledRuns::Order::kCoordinate),
      features_(std::in_place, read_name_regex) {
  // Runs of a third of the budget: a run's columns (which may grow to twice their size), its
  // order and what writing it holds fit beside the kept columns while those are small.
  const BatchSize run_size{.records = ~std::size_t{0}, .bytes = budget / 3};
  return_freed_memory();
  io::ReadBatch chunk;
  stages::markdup::EndFeatures chunk_features(read_name_regex);
  bool warned = false;
  for (;;) {
    chunk.clear();
    if (read_batch(reader, chunk, run_size) == 0) break;
    chunk_features.compute(chunk, header_);
    features_->append(chunk_features);
    stages::markdup::append_marking_columns(chunk, columns_);
    runs_.add(chunk, stages::sort::coordinate_order(chunk, backend));
    const std::size_t kept = stages::markdup::marking_bytes(columns_, *features_);
    log::info("spilled run " + std::to_string(runs_.count()) + " (" +
              std::to_string(runs_.records()) + " records so far, " +
              format_bytes(runs_.disk_bytes()) + " of temporary disk; duplicate keys " +
              format_bytes(kept) + ")");
    if (!warned && kept > budget / 3) {
      log::warning("the duplicate-marking keys (" + format_bytes(kept) +
                   " so far) take more than a third of --max-memory; marking them needs about "
                   "three times that");
      warned = true;
    }
  }
  chunk = io::ReadBatch();  // before the kept columns are copied to their size
  stages::markdup::shrink_to_fit(columns_, *features_);
  log::debug("duplicate keys of " + std::to_string(runs_.records()) +
             " records: " + format_bytes(stages::markdup::marking_bytes(columns_, *features_)) +
             "; peak resident memory so far " + format_bytes(peak_resident_memory()));
}

stages::markdup::MarkDuplicatesResult SpilledMarking::mark(
    const io::Header& header, stages::markdup::MarkDuplicatesOptions options,
    kernels::Backend backend) {
  options.features = &*features_;
  stages::markdup::MarkDuplicatesResult result =
      stages::markdup::mark_duplicates(columns_, header, options, backend);
  columns_ = io::ReadBatch();
  features_.reset();
  return result;
}

void SpilledMarking::merge(const stages::markdup::MarkDuplicatesResult& result,
                           bool remove_duplicates, std::uint64_t memory_bytes,
                           const std::function<void(io::ReadBatch&)>& consume) {
  std::uint64_t k = 0;  // position in coordinate order of the batch's first record
  runs_.merge(memory_bytes, [&](io::ReadBatch& batch) {
    if (k + batch.size() > result.order.size()) {
      throw Error("internal error: the spilled runs hold more records than were marked");
    }
    for (std::size_t j = 0; j < batch.size(); ++j) {
      const std::uint16_t flag = result.flags[result.order[k + j]];
      if ((flag & ~io::flag::kDuplicate) != (batch.flag[j] & ~io::flag::kDuplicate)) {
        throw Error("internal error: the spilled runs merge out of the marked order");
      }
      batch.flag[j] = flag;
    }
    k += batch.size();
    if (!remove_duplicates) {
      consume(batch);
      return;
    }
    io::ReadBatch unique;
    for (std::size_t j = 0; j < batch.size(); ++j) {
      if (!(batch.flag[j] & io::flag::kDuplicate)) unique.append_row(batch, j);
    }
    consume(unique);
  });
  if (k != result.order.size()) {
    throw Error("internal error: the spilled runs hold fewer records than were marked");
  }
}

}  // namespace gpp::pipeline
