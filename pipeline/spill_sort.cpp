#include "pipeline/spill_sort.hpp"

#include <vector>

#include "gpp/build_info.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "io/output_file.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/alignment_stream.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/heap_reuse.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/spilled_runs.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "stages/sort/queryname_sort.hpp"

namespace gpp::pipeline {

void spill_sort(const SpillSortOptions& options, const CommonOptions& common) {
  const kernels::Backend backend = gpu_session(common).backend();
  const std::uint64_t budget = memory_budget(common);
  io::AlignmentReader reader(options.input, streaming_reader_options(common, options.reference));
  io::Header header = reader.header().clone();
  header.set_sort_order(options.by_name ? "queryname" : "coordinate");
  header.add_program("gpu-pipeline", build_info::kVersion, common.command_line);
  auto order_of = [&](const io::ReadBatch& batch) {
    return options.by_name ? stages::sort::queryname_order(batch)
                           : stages::sort::coordinate_order(batch, backend);
  };
  // Made when the output is written: the GPU block encoder they borrow writes the runs first.
  auto output_options = [&] {
    io::WriterOptions made = writer_options(common);
    made.reference = options.reference;
    made.write_index = !options.by_name;
    return made;
  };

  // Runs of a third of the budget: a run's columns (which may grow to twice their size), its
  // order and what writing it holds fit in it.
  const BatchSize run_size{.records = ~std::size_t{0}, .bytes = budget / 3};
  return_freed_memory();
  SpilledRuns runs(
      temporary_directory(common, options.output), header,
      options.by_name ? SpilledRuns::Order::kQueryname : SpilledRuns::Order::kCoordinate,
      [&common] { return spill_writer_options(common); },
      [&common] { return gpu_session(common).share_inflater(); });
  io::ReadBatch chunk;
  for (;;) {
    chunk.clear();
    if (read_batch(reader, chunk, run_size) == 0) break;
    const std::vector<std::uint32_t> order = order_of(chunk);
    if (runs.count() == 0 && chunk.memory_bytes() < run_size.bytes) {
      // Everything fit: the output is written directly.
      io::write_alignments(options.output, header, chunk, order, output_options());
      return;
    }
    runs.add(chunk, order);
    log::info("spilled run " + std::to_string(runs.count()) + " (" +
              std::to_string(runs.records()) + " records so far, " +
              format_bytes(runs.disk_bytes()) + " of temporary disk)");
  }
  if (runs.count() == 0) {  // no records at all
    io::write_alignments(options.output, header, chunk, {}, output_options());
    return;
  }
  chunk = io::ReadBatch();  // its memory is the merge's now
  log::debug("peak resident memory while spilling: " + format_bytes(peak_resident_memory()));
  log::info("merging " + std::to_string(runs.count()) + " sorted runs");
  io::AlignmentWriter writer(options.output, header, output_options());
  runs.merge(
      budget, [&](MergedRows& merged) { writer.write(merged.rows()); }, nullptr, true);
  writer.finish();
  log::info("wrote " + std::to_string(writer.records_written()) + " records to " + options.output);
}

}  // namespace gpp::pipeline
