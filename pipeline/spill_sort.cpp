#include "pipeline/spill_sort.hpp"

#include <filesystem>
#include <memory>
#include <queue>
#include <vector>

#include "core/error.hpp"
#include "gpp/build_info.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "io/output_file.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/log.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "stages/sort/queryname_sort.hpp"

namespace gpp::pipeline {

namespace {

constexpr std::size_t kReadStep = 4096;        // records read between memory checks
constexpr std::size_t kMergeBatch = 20'000;    // records per run read back at a time
constexpr std::size_t kOutputBatch = 100'000;  // merged records written at a time

// One spilled run being merged: its reader, the records loaded, and the next one to emit.
struct Run {
  std::unique_ptr<io::AlignmentReader> reader;
  io::ReadBatch batch;
  io::Column<std::uint64_t> keys;  // coordinate keys of batch
  std::size_t next = 0;

  bool refill(bool by_name) {
    batch.clear();
    next = 0;
    if (reader->read_into(batch, kMergeBatch) == 0) return false;
    if (!by_name) keys = stages::sort::coordinate_keys(batch);
    return true;
  }
};

}  // namespace

std::uint64_t parse_memory_size(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (...) {
    throw Error("--max-memory: '" + text + "' is not a size (e.g. 768M, 2G)");
  }
  const std::string unit = text.substr(used);
  double scale = 1;
  if (unit == "K" || unit == "k")
    scale = 1024.0;
  else if (unit == "M" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty())
    throw Error("--max-memory: '" + text + "' is not a size (e.g. 768M, 2G)");
  if (value <= 0) throw Error("--max-memory: '" + text + "' must be positive");
  return static_cast<std::uint64_t>(value * scale);
}

void spill_sort(const SpillSortOptions& options, const CommonOptions& common) {
  const kernels::Backend backend = choose_backend(common);
  io::check_output_writable(options.output);
  io::AlignmentReader reader(options.input,
                             {.threads = thread_count(common), .reference = options.reference});
  io::Header header = reader.header().clone();
  header.set_sort_order(options.by_name ? "queryname" : "coordinate");
  header.add_program("gpu-pipeline", build_info::kVersion, common.command_line);
  auto order_of = [&](const io::ReadBatch& batch) {
    return options.by_name ? stages::sort::queryname_order(batch)
                           : stages::sort::coordinate_order(batch, backend);
  };

  // Phase 1: read up to max_memory of records, sort them, spill the run.
  const std::filesystem::path out_dir = std::filesystem::path(options.output).parent_path();
  std::vector<std::unique_ptr<io::OutputFile>>
      run_files;  // removed at scope exit (never committed)
  io::ReadBatch chunk;
  bool more = true;
  while (more) {
    chunk.clear();
    while (chunk.memory_bytes() < options.max_memory) {
      if (reader.read_into(chunk, kReadStep) == 0) {
        more = false;
        break;
      }
    }
    if (chunk.empty()) break;
    const std::vector<std::uint32_t> order = order_of(chunk);
    if (run_files.empty() && !more) {  // everything fit: write the output directly
      io::WriterOptions output_options = writer_options(common);
      output_options.reference = options.reference;
      output_options.write_index = !options.by_name;
      io::write_alignments(options.output, header, chunk, order, output_options);
      return;
    }
    const std::string run_path =
        (out_dir / ("." + std::filesystem::path(options.output).filename().string() + ".run" +
                    std::to_string(run_files.size()) + ".bam"))
            .string();
    run_files.push_back(std::make_unique<io::OutputFile>(run_path));
    io::write_alignments(run_files.back()->temp_path(), header, chunk, order,
                         {.compression_level = 1});
  }
  log::info("merging " + std::to_string(run_files.size()) + " sorted runs");

  // Phase 2: k-way merge. The heap orders by key, then by run (earlier input first): stable.
  std::vector<Run> runs(run_files.size());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    runs[r].reader = std::make_unique<io::AlignmentReader>(
        run_files[r]->temp_path(), io::ReaderOptions{.read_ahead_bytes = 1 << 20});
    runs[r].refill(options.by_name);
  }
  auto after = [&](std::size_t a, std::size_t b) {  // true when run a's head comes after run b's
    const Run& x = runs[a];
    const Run& y = runs[b];
    if (options.by_name) {
      const int names =
          stages::sort::natural_name_compare(x.batch.read_name(x.next), y.batch.read_name(y.next));
      if (names != 0) return names > 0;
      const int fx = x.batch.flag[x.next] & 0xC0;
      const int fy = y.batch.flag[y.next] & 0xC0;
      if (fx != fy) return fx > fy;
    } else if (x.keys[x.next] != y.keys[y.next]) {
      return x.keys[x.next] > y.keys[y.next];
    }
    return a > b;
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(after)> heap(after);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (!runs[r].batch.empty()) heap.push(r);
  }
  io::WriterOptions output_options = writer_options(common);
  output_options.reference = options.reference;
  output_options.write_index = !options.by_name;
  io::AlignmentWriter writer(options.output, header, output_options);
  io::ReadBatch merged;
  while (!heap.empty()) {
    const std::size_t r = heap.top();
    heap.pop();
    Run& run = runs[r];
    merged.append_row(run.batch, run.next);
    if (++run.next < run.batch.size() || run.refill(options.by_name)) heap.push(r);
    if (merged.size() >= kOutputBatch) {
      writer.write(merged);
      merged.clear();
    }
  }
  writer.write(merged);
  writer.finish();
  log::info("wrote " + std::to_string(writer.records_written()) + " records to " + options.output);
}

}  // namespace gpp::pipeline
