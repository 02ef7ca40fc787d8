// RecordVisitor: work a stage does on each record while the reader decodes it, with the record's
// bytes still in cache, instead of in a later pass over gigabytes of records.
//
// @code
//   struct Lengths : io::RecordVisitor {
//     std::vector<std::size_t> length;
//     void resize(std::size_t records) override { length.resize(records); }
//     void visit(const io::ReadBatch& batch, const io::Header&, std::size_t begin, std::size_t end)
//     override {
//       for (std::size_t i = begin; i < end; ++i) length[i] = batch.seq_length(i);
//     }
//   } lengths;
//   io::AlignmentReader reader("in.bam", {.visitor = &lengths});
// @endcode
#pragma once

#include <cstddef>

#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"

namespace gpp::io {

class RecordVisitor {
 public:
  virtual ~RecordVisitor() = default;
  /// About `records` records are expected in all (a hint, to reserve room once).
  virtual void reserve(std::size_t /*records*/) {}
  /// The batch is growing to `records` records; called on one thread, never during a visit.
  virtual void resize(std::size_t records) = 0;
  /// Records [begin, end) of `batch` are decoded, every column. Called once for every record the
  /// reader appends, in any order and concurrently for disjoint ranges.
  virtual void visit(const ReadBatch& batch, const Header& header, std::size_t begin,
                     std::size_t end) = 0;
};

}  // namespace gpp::io
