// The PairHMM batch text format of gpuPairHMM and MauricioCarneiro/PairHMM (shared/data/README.md):
//   R H                              a region: R reads, H haplotypes
//   read qual ins del gcp            x R, five fields of equal length, qualities Phred+33
//   haplotype                        x H
// repeated; blank lines between records are allowed. Used by `gpu-pipeline pairhmm`, the tests and
// bench_pairhmm.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace gpp::io {

/// Where the parser puts what it reads (kernels::PairHmmBatch through BatchSink below).
class PairHmmRecordSink {
 public:
  virtual ~PairHmmRecordSink() = default;
  virtual void clear() = 0;
  /// A read's bases and its four quality columns as Phred values.
  virtual void add_read(std::string_view bases, std::span<const std::uint8_t> base_quals,
                        std::span<const std::uint8_t> insertion_quals,
                        std::span<const std::uint8_t> deletion_quals,
                        std::span<const std::uint8_t> gap_continuation_quals) = 0;
  virtual void add_haplotype(std::string_view bases) = 0;
  /// The reads and haplotypes since the last call form one region.
  virtual void end_group() = 0;
};

/**
 * @brief Reads a batch file into `sink` (cleared first).
 * @throws gpp::Error "FILE:LINE: what is wrong" for an unreadable file, a malformed count line, a
 *         read line without exactly five fields, fields of unequal length, bases other than
 *         A, C, G, T, N (either case), quality characters outside '!'..'~', or a truncated record
 */
void read_pairhmm_batch_file(const std::string& path, PairHmmRecordSink& sink);

/// Parses batch text (as read from `name`, which only appears in error messages).
void parse_pairhmm_batch(const std::string& text, const std::string& name, PairHmmRecordSink& sink);

/// A PairHmmRecordSink over any batch with the same four members (kernels::PairHmmBatch).
template <typename Batch>
class BatchSink final : public PairHmmRecordSink {
 public:
  explicit BatchSink(Batch& batch) : batch_(batch) {}
  void clear() override { batch_.clear(); }
  void add_read(std::string_view bases, std::span<const std::uint8_t> base_quals,
                std::span<const std::uint8_t> insertion_quals,
                std::span<const std::uint8_t> deletion_quals,
                std::span<const std::uint8_t> gap_continuation_quals) override {
    batch_.add_read(bases, base_quals, insertion_quals, deletion_quals, gap_continuation_quals);
  }
  void add_haplotype(std::string_view bases) override { batch_.add_haplotype(bases); }
  void end_group() override { batch_.end_group(); }

 private:
  Batch& batch_;
};

/// read_pairhmm_batch_file into a batch object, e.g. a kernels::PairHmmBatch.
template <typename Batch>
requires(!std::is_base_of_v<PairHmmRecordSink, Batch>) void read_pairhmm_batch_file(
    const std::string& path, Batch& batch) {
  BatchSink<Batch> sink(batch);
  read_pairhmm_batch_file(path, static_cast<PairHmmRecordSink&>(sink));
}

}  // namespace gpp::io
