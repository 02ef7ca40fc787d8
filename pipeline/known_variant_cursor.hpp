// The known variants (--dbsnp) at each call's position, read ahead: a window of the contig at a
// time, the next eight windows read side by side, each on a thread of its own, while the calls
// of this one are written (dbSNP holds a record every three bases or so: one thread reads about
// 6 Mb of it a second). Calls come in coordinate order; a position beyond the windows read ahead
// starts the reading again there.
#pragma once

#include <cstdint>
#include <deque>
#include <future>
#include <string>
#include <vector>

#include "io/genome/known_variants.hpp"

namespace gpp::pipeline {

class KnownVariantCursor {
 public:
  /// @param contig_names the contig of each index the calls name (the BAM header's order)
  KnownVariantCursor(const io::KnownVariants& source, std::vector<std::string> contig_names);
  ~KnownVariantCursor();
  KnownVariantCursor(const KnownVariantCursor&) = delete;
  KnownVariantCursor& operator=(const KnownVariantCursor&) = delete;

  /// Starts reading ahead from `position` of contig index `contig` (where the first calls are
  /// expected), before any call comes.
  void read_from(std::int32_t contig, std::int64_t position);

  /// The records that start at `position` (0-based) on contig index `contig`, in file order.
  /// @throws gpp::Error naming the file for a malformed record
  std::vector<io::KnownVariant> at(std::int32_t contig, std::int64_t position);

 private:
  /// Whether `position` of contig_ is in a window read ahead (those before it are dropped).
  bool advance_to(std::int64_t position);
  void read_ahead();

  const io::KnownVariants& source_;
  std::vector<std::string> names_;
  std::int32_t contig_ = -1;
  io::KnownVariantWindow current_;
  std::deque<std::future<io::KnownVariantWindow>> ahead_;  ///< the windows after current_
  std::int64_t next_start_ = 0;  ///< where the window after the last one ahead starts
};

}  // namespace gpp::pipeline
