// Reading and writing alignment files for the subcommands: thread counts, reference, @PG line,
// progress messages. The work itself is io::AlignmentReader / io::write_alignments.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/phase_times.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "io/bam/inflate_offload.hpp"
#include "io/genome/intervals.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "io/reads/record_visitor.hpp"
#include "pipeline/common_options.hpp"

namespace gpp::pipeline {

/// Every record of `path` (SAM/BAM/CRAM; `reference` needed for CRAM), and its header. With
/// `keep_bam_records` (for commands that change nothing but FLAG), BAM records are kept as read
/// (io::ReaderOptions::keep_bam_records). A `visitor` visits each record as it is decoded. With
/// the GPU backend (unless --no-gpu-read), the blocks of a BAM file are inflated on the GPU, on
/// the CPU's threads until its decoder is ready (GpuSession::inflate_offload).
io::ReadBatch load_alignments(const std::string& path, const std::string& reference,
                              const CommonOptions& common, io::Header& header,
                              bool keep_bam_records = false, io::RecordVisitor* visitor = nullptr);

/// Reader settings for a command that streams its input in batches: --threads, the CRAM
/// `reference`, read-ahead steps sized to --max-memory and, as load_alignments has it, the GPU
/// block decoder (its page-locked buffers set aside from --max-memory: decoder_host_bytes).
io::ReaderOptions streaming_reader_options(const CommonOptions& common,
                                           const std::string& reference);

/// With `intervals`, makes `reader` read only the records within `padding` bases of one (each
/// once) through the input's index, as GATK's tools read -L, and says so in the log. Without
/// intervals, or where the input has no index or is a stream, every record is read.
void read_near_intervals(io::AlignmentReader& reader, const std::vector<io::Interval>& intervals,
                         std::int64_t padding);

/// Writer settings from the common options: threads, compression level and, with --gpu-write,
/// the block encoder on the --device backend (reference and index are the caller's to set).
io::WriterOptions writer_options(const CommonOptions& common);
/// Options for the runs a command spills: writer_options at deflate level 1 (with --gpu-write, the
/// GPU block encoder, borrowed until the options go).
io::WriterOptions spill_writer_options(const CommonOptions& common);

/// A writer for `path` with this program's @PG line added to `header` and the settings of
/// writer_options; indexes the output when `coordinate_sorted`.
std::unique_ptr<io::AlignmentWriter> open_alignment_output(const std::string& path,
                                                           const io::Header& header,
                                                           const std::string& reference,
                                                           const CommonOptions& common,
                                                           bool coordinate_sorted);

/// The BAM writer's stages (filling blocks, compressing them, framing them for a block encoder,
/// waiting for the disk) added to `times` as "of the writing: ..." phases.
void add_write_stages(PhaseTimes& times, const io::AlignmentWriter& writer);

/// Writes `batch` in `order` to `path` with this program's @PG line added to `header`;
/// indexes the output when `coordinate_sorted`. Returns the closed writer: the output is named by
/// its commit(), once the command's other outputs are complete too.
[[nodiscard]] std::unique_ptr<io::AlignmentWriter> save_alignments(
    const std::string& path, const io::Header& header, const io::ReadBatch& batch,
    std::span<const std::uint32_t> order, const std::string& reference, const CommonOptions& common,
    bool coordinate_sorted);

}  // namespace gpp::pipeline
