#include "pipeline/haplotype_bam_output.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <string_view>

#include "core/cigar.hpp"
#include "io/bam/bam_bin.hpp"

namespace gpp::pipeline {

namespace {

using stages::call::CallRead;

/// htsjdk's SAMRecordCoordinateComparator over the fields a record here has (every record is
/// placed).
int compare_coordinates(const CallRead& a, const CallRead& b) {
  auto order = [](auto x, auto y) { return (x > y) - (x < y); };
  if (int c = order(a.contig, b.contig)) return c;
  if (int c = order(a.start, b.start)) return c;
  if (a.is_reverse_strand() != b.is_reverse_strand()) return a.is_reverse_strand() ? 1 : -1;
  if (int c = a.name.compare(b.name)) return c < 0 ? -1 : 1;
  if (int c = order(a.flag, b.flag)) return c;
  if (int c = order(a.mapping_quality, b.mapping_quality)) return c;
  if (int c = order(a.mate_contig, b.mate_contig)) return c;
  if (int c = order(a.mate_start, b.mate_start)) return c;
  return order(a.insert_size, b.insert_size);
}

void append_row(const CallRead& read, io::ReadBatch& batch) {
  const std::int64_t end =
      read.start + static_cast<std::int64_t>(cigar_reference_length(read.cigar));
  batch.tid.push_back(read.contig);
  batch.pos.push_back(read.start);
  batch.end.push_back(std::max(end, read.start + 1));
  batch.flag.push_back(read.flag);
  batch.mapq.push_back(read.mapping_quality);
  batch.bin.push_back(io::bam_bin(read.start, std::max(end, read.start + 1)));
  batch.mate_tid.push_back(read.mate_contig);
  batch.mate_pos.push_back(read.mate_start);
  batch.tlen.push_back(read.insert_size);
  batch.read_group.push_back(-1);
  batch.library.push_back(-1);
  batch.name.insert(batch.name.end(), read.name.begin(), read.name.end());
  batch.name_offset.push_back(batch.name.size());
  batch.cigar.insert(batch.cigar.end(), read.cigar.begin(), read.cigar.end());
  batch.cigar_offset.push_back(batch.cigar.size());
  batch.seq.insert(batch.seq.end(), read.bases.begin(), read.bases.end());
  batch.qual.insert(batch.qual.end(), read.quals.begin(), read.quals.end());
  batch.seq_offset.push_back(batch.seq.size());
  batch.aux.insert(batch.aux.end(), read.aux.begin(), read.aux.end());
  batch.aux_offset.push_back(batch.aux.size());
}

}  // namespace

io::WriterOptions haplotype_bam_writer_options(const CommonOptions& common) {
  io::WriterOptions options;
  options.threads = thread_count(common);
  options.compression_level = common.compression_level;
  return options;
}

io::Header haplotype_bam_header(const io::Header& source, stages::call::BamWriterType type) {
  std::string sequences, read_groups, programs;
  std::istringstream lines(source.text());
  for (std::string line; std::getline(lines, line);) {
    const std::string_view kind = std::string_view(line).substr(0, 3);
    if (kind == "@SQ") sequences += line + "\n";
    if (kind == "@RG") read_groups += line + "\n";
    if (kind == "@PG") programs += line + "\n";
  }
  if (type != stages::call::BamWriterType::kNoHaplotypes) {
    read_groups += "@RG\tID:" + std::string(stages::call::kHaplotypeReadGroup) + "\tSM:HC\tCN:BI\n";
  }
  return io::Header::from_text("@HD\tVN:1.6\tSO:coordinate\n" + sequences + read_groups + programs +
                               "@PG\tID:HaplotypeBAMWriter\n");
}

HaplotypeBamOutput::HaplotypeBamOutput(const std::string& path, const io::Header& source,
                                       stages::call::BamWriterType type, io::WriterOptions options,
                                       const std::string& reference, std::size_t records_per_write)
    : path_(path),
      records_per_write_(std::max<std::size_t>(records_per_write, 1)),
      header_(haplotype_bam_header(source, type)) {
  options.reference = reference;
  options.write_index = io::output_format_for(path) != "sam";
  writer_ = std::make_unique<io::AlignmentWriter>(path, header_, options);
}

void HaplotypeBamOutput::add(std::vector<stages::call::HaplotypeBamRecord>&& records,
                             std::int64_t later_start) {
  if (records.empty()) return;
  const std::int32_t contig = records.front().read.contig;
  // Another contig's records are all released; one contig's once there are enough to write.
  if (!held_.empty() && held_.front().read.contig != contig) {
    write_before(contig, std::numeric_limits<std::int64_t>::min());
  }
  // Records of the last few regions are not released yet: with twice a write held, most are.
  if (held_.size() >= 2 * records_per_write_) write_before(contig, later_start);
  for (stages::call::HaplotypeBamRecord& record : records) {
    if (record.haplotype_index >= 0) {
      record.read.name = "HC_" + std::to_string(++haplotypes_named_) + "_" +
                         std::to_string(record.haplotype_index);
    }
    held_.push_back({std::move(record.read), arrivals_++});
  }
}

void HaplotypeBamOutput::write_before(std::int32_t contig, std::int64_t start) {
  auto released = [&](const Pending& p) {
    return p.read.contig < contig || (p.read.contig == contig && p.read.start < start);
  };
  const auto split = std::stable_partition(held_.begin(), held_.end(), released);
  if (split == held_.begin()) return;
  std::stable_sort(held_.begin(), split, [](const Pending& a, const Pending& b) {
    const int c = compare_coordinates(a.read, b.read);
    return c != 0 ? c < 0 : a.arrival < b.arrival;
  });
  io::ReadBatch batch;
  for (auto it = held_.begin(); it != split; ++it) append_row(it->read, batch);
  writer_->write(batch);
  written_ += batch.size();
  held_.erase(held_.begin(), split);
}

void HaplotypeBamOutput::close() {
  if (closed_) return;
  write_before(std::numeric_limits<std::int32_t>::max(), 0);
  writer_->close();
  closed_ = true;
}

void HaplotypeBamOutput::commit() {
  close();
  writer_->commit();
}

}  // namespace gpp::pipeline
