// The haplotype BAM of `call -bamout` / `--bam-output` (Parabricks' --htvc-bam-output): GATK
// HaplotypeBAMWriter's records (stages/call/haplotype_bam.hpp) written as its SAMFileDestination
// writes them:
//  - header: @HD VN:1.6 SO:coordinate, the input's @SQ, @RG and @PG lines, an @RG
//    ArtificialHaplotypeRG (SM:HC, CN:BI) unless no haplotype is written, and an
//    @PG ID:HaplotypeBAMWriter;
//  - records in htsjdk's coordinate order (SAMRecordCoordinateComparator: contig, start, strand,
//    name, flag, MAPQ, mate contig, mate start, insert size; records equal in all of these in the
//    order they came), haplotypes named HC_<n>_<index> as they come, n from 1;
//  - a BAI beside a BAM (GATK's --create-output-bam-index default), no file until the end.
// Records are held until no later region can sort before them (a region's records start at
// or after its padded reference start, which grows from region to region) and enough of them
// make a write of their own, so memory follows the regions in flight rather than the genome.
//
// @code
//   HaplotypeBamOutput bam("out.bam", header, stages::call::BamWriterType::kCalledHaplotypes);
//   CallSinkWithHaplotypeBam sink(vcf_writer, bam);   // the caller's sink
//   ... call ...
//   bam.close();   // then, with the VCF complete too:
//   bam.commit();
// @endcode
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/bam/alignment_writer.hpp"
#include "io/reads/header.hpp"
#include "pipeline/common_options.hpp"
#include "stages/call/haplotype_bam.hpp"
#include "stages/call/haplotype_caller.hpp"

namespace gpp::pipeline {

/// The writer options of a haplotype BAM: the command's threads and level, compressed on the CPU
/// (the GPU's block encoder is not started for it).
io::WriterOptions haplotype_bam_writer_options(const CommonOptions& common);

/// The output header for haplotype BAM records from an input of `source` (see above).
io::Header haplotype_bam_header(const io::Header& source, stages::call::BamWriterType type);

class HaplotypeBamOutput {
 public:
  /// @throws gpp::Error naming `path` when it cannot be created
  /// `options`: the writer's threads and level (its index and reference are set here).
  /// `records_per_write`: released records wait for this many before they are written.
  HaplotypeBamOutput(const std::string& path, const io::Header& source,
                     stages::call::BamWriterType type, io::WriterOptions options = {},
                     const std::string& reference = {},
                     std::size_t records_per_write = kRecordsPerWrite);

  /// Released records are written this many at a time or more (the writer compresses them on its
  /// threads), not region by region.
  static constexpr std::size_t kRecordsPerWrite = std::size_t{1} << 16;

  /// A region's records (any order); every later record of `contig` starts at or after
  /// `later_start` (0-based).
  void add(std::vector<stages::call::HaplotypeBamRecord>&& records, std::int64_t later_start);

  /// Writes what is held and closes the file and its index, still unnamed.
  void close();
  /// close() unless done, then moves the file and its index into place.
  void commit();

  std::uint64_t records_written() const { return written_; }
  const std::string& path() const { return path_; }

 private:
  struct Pending {
    stages::call::CallRead read;  ///< named
    std::uint64_t arrival = 0;
  };
  /// Writes, sorted, the held records before (contig, start).
  void write_before(std::int32_t contig, std::int64_t start);

  std::string path_;
  std::size_t records_per_write_;
  io::Header header_;
  std::unique_ptr<io::AlignmentWriter> writer_;
  std::vector<Pending> held_;
  std::uint64_t haplotypes_named_ = 0;
  std::uint64_t arrivals_ = 0;
  std::uint64_t written_ = 0;
  bool closed_ = false;
};

/// The caller's sink for `call` with -bamout: calls and reference sites to `calls`, haplotype
/// BAM records to `bam`.
class CallSinkWithHaplotypeBam final : public stages::call::CallSink {
 public:
  CallSinkWithHaplotypeBam(stages::call::CallSink& calls, HaplotypeBamOutput& bam)
      : calls_(calls), bam_(bam) {}
  void add_call(stages::call::VariantCall&& call) override { calls_.add_call(std::move(call)); }
  void add_reference_site(const stages::call::ReferenceSite& site) override {
    calls_.add_reference_site(site);
  }
  void add_bam_records(std::vector<stages::call::HaplotypeBamRecord>&& records,
                       std::int64_t later_start) override {
    bam_.add(std::move(records), later_start);
  }

 private:
  stages::call::CallSink& calls_;
  HaplotypeBamOutput& bam_;
};

}  // namespace gpp::pipeline
