// EndFeatures: what a read end takes from its record (Picard's ReadEndsForMarkDuplicates fields
// that depend on the record alone), one row per record in input order.
//
// Computing them reads each record's qualities, CIGAR and name: gigabytes for a genome. As the
// reader's io::RecordVisitor they are computed while each record is decoded, its bytes still in
// cache; compute() does the same in one pass over records already read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "io/reads/record_visitor.hpp"
#include "stages/markdup/duplicate_score.hpp"
#include "stages/markdup/read_name_location.hpp"

namespace gpp::stages::markdup {

/// EndFeatures::name_hash of a record named `name`.
std::uint32_t end_name_hash(std::string_view name);

class EndFeatures : public io::RecordVisitor {
 public:
  /// `read_name_regex` as MarkDuplicatesOptions::read_name_regex.
  explicit EndFeatures(const std::string& read_name_regex);

  const ReadNameParser& parser() const { return parser_; }
  std::size_t size() const { return five_prime.size(); }

  /// The features of every record of `reads` (in parallel).
  void compute(const io::ReadBatch& reads, const io::Header& header);

  /// Appends the rows of `other` (features of the records that follow).
  void append(const EndFeatures& other);

  void reserve(std::size_t records) override;
  void resize(std::size_t records) override;
  void visit(const io::ReadBatch& reads, const io::Header& header, std::size_t begin,
             std::size_t end) override;

  // Rows of records that make an end (mapped, primary); other rows are left unset.
  io::Column<std::int32_t> five_prime;  ///< 1-based unclipped 5' position
  io::Column<std::int16_t> score;  ///< SUM_OF_BASE_QUALITIES with Picard's cap and QC-fail penalty
  std::vector<ClusterLocation, io::UninitializedAllocator<ClusterLocation>>
      location;  ///< when parsed
  io::Column<std::int16_t>
      location_read_group;  ///< read group for optical duplicates; -1: name did not parse
  /// Records that may pair (paired, mate mapped): 32 bits of the name's hash, enough to bring a
  /// name's records together (names are compared within a group, so a collision only joins two
  /// groups) in half the radix passes of a 64-bit key.
  io::Column<std::uint32_t> name_hash;

 private:
  ReadNameParser parser_;
};

}  // namespace gpp::stages::markdup
