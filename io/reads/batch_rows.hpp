// Records to visit in an order, without copying them together: the k-th is row(k) of batch(k).
// RowsOf is one batch in an order of its own (what a sort makes); RowsAcross takes each record
// from one of several batches (what a merge of sorted runs makes: the runs' batches as read,
// and where each merged record lies in them). Writers and the caller take either.
//
// @code
//   io::RowsOf sorted(batch, order);                   // batch's records in `order`
//   io::RowsAcross merged(sources, refs);              // sources[refs[k].source], row refs[k].row
//   for (std::size_t k = 0; k < merged.size(); ++k) use(merged.batch(k), merged.row(k));
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "io/reads/read_batch.hpp"

namespace gpp::io {

class RowsOf {
 public:
  RowsOf(const ReadBatch& batch, std::span<const std::uint32_t> order)
      : batch_(&batch), order_(order) {}

  std::size_t size() const { return order_.size(); }
  const ReadBatch& batch(std::size_t /*k*/) const { return *batch_; }
  std::size_t row(std::size_t k) const { return order_[k]; }
  ReadBatch::RowRef ref(std::size_t k) const { return {0, order_[k]}; }
  /// The one batch: ref(k).source indexes it.
  std::span<const ReadBatch* const> sources() const { return {&batch_, 1}; }
  RowsOf subspan(std::size_t from, std::size_t count) const {
    return {*batch_, order_.subspan(from, count)};
  }

 private:
  const ReadBatch* batch_;
  std::span<const std::uint32_t> order_;
};

class RowsAcross {
 public:
  RowsAcross(std::span<const ReadBatch* const> sources, std::span<const ReadBatch::RowRef> rows)
      : sources_(sources), rows_(rows) {}

  std::size_t size() const { return rows_.size(); }
  const ReadBatch& batch(std::size_t k) const { return *sources_[rows_[k].source]; }
  std::size_t row(std::size_t k) const { return rows_[k].row; }
  ReadBatch::RowRef ref(std::size_t k) const { return rows_[k]; }
  std::span<const ReadBatch* const> sources() const { return sources_; }
  RowsAcross subspan(std::size_t from, std::size_t count) const {
    return {sources_, rows_.subspan(from, count)};
  }

 private:
  std::span<const ReadBatch* const> sources_;
  std::span<const ReadBatch::RowRef> rows_;
};

}  // namespace gpp::io
