// How much memory a command may hold (--max-memory) and where its temporary files go (--tmp-dir).
//
// Every command that reads alignments keeps its resident memory near its budget whatever the size
// of its input: inputs that fit are worked on whole (the fast paths), larger ones stream in
// batches or through sorted runs spilled to temporary files (pipeline/spilled_runs.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "pipeline/common_options.hpp"

namespace gpp::pipeline {

/// Parses sizes like 768M, 2G, 500000K or plain bytes; throws gpp::Error naming `option`
/// otherwise.
std::uint64_t parse_memory_size(const std::string& text,
                                const std::string& option = "--max-memory");

/// Memory this process could take now: MemAvailable of /proc/meminfo, or less under a cgroup
/// limit (memory.max less memory.current); 0 when neither can be read.
std::uint64_t available_memory();

/// All the process may hold: --max-memory, or by default three quarters of available_memory()
/// (8 GiB when unknown).
std::uint64_t memory_limit(const CommonOptions& common);

/// The GPU BAM decoder's page-locked buffers under `limit`: a sixteenth of it, in whole parts in
/// flight of 2 x kernels::BlockInflater::kPartStreamBytes (32 MiB), 2 to kMaxGpuParts of them; 0
/// where 2 do not fit (limits under 1 GiB: the CPU inflates).
std::uint64_t decoder_host_bytes(std::uint64_t limit);

/// The GPU block encoder's page-locked buffers under `limit` (--gpu-write): an eighth of it, at
/// most kernels::BlockDeflater::kMostGpuHostBytes (1 GiB, from an 8 GiB limit on).
std::uint64_t encoder_host_bytes(std::uint64_t limit);

/// What a command's own work may hold: memory_limit() less decoder_host_bytes() where the GPU
/// may read BAM (GPU reading on) and less encoder_host_bytes() where it may write BAM
/// (--gpu-write), both only where the GPU may be used (--device not cpu, an NVIDIA device node
/// present).
std::uint64_t memory_budget(const CommonOptions& common);

/// The directory for the temporary files of a command writing `output`: --tmp-dir, else $TMPDIR,
/// else the output's directory (the current one for a streamed output).
std::string temporary_directory(const CommonOptions& common, const std::string& output);

/// Whether the whole of `input` is expected to fit in `budget` when held in memory, at about
/// `bytes_per_bam_byte` bytes of memory per byte of BAM (CRAM counts double, SAM a third). False
/// for inputs that are not regular files (their size is not known): they are read in batches.
bool fits_in_memory(const std::string& input, std::uint64_t budget, double bytes_per_bam_byte);
/// The same for several inputs held together.
bool fits_in_memory(std::span<const std::string> inputs, std::uint64_t budget,
                    double bytes_per_bam_byte);

/// Compressed bytes a BAM reader inflates per step (io::ReaderOptions::read_ahead_bytes) under
/// `budget`: 16 MiB, less for budgets under 2 GiB (a step inflates to about 4 times its size,
/// and one is read ahead).
std::size_t read_ahead_bytes(std::uint64_t budget);

/// The most resident memory this process has held so far (getrusage), 0 when unknown.
std::uint64_t peak_resident_memory();

/// "1.5 GiB", "730 MiB": sizes for log lines.
std::string format_bytes(std::uint64_t bytes);

}  // namespace gpp::pipeline
