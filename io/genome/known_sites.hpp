// KnownSites: variant positions from a VCF or BCF (plain or bgzipped; indexed or not).
//
// With an index (.tbi or .csi) queries read only the requested region; without one the file is
// scanned once and kept in memory, sorted per contig. Only each record's reference span is kept:
// that is what BQSR masking and interval logic need.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpp::io {

/// Reference span of one VCF record: 0-based, half-open [start, end) = POS-1 .. POS-1+len(REF).
struct VariantSpan {
  std::int64_t start = 0;
  std::int64_t end = 0;
  bool operator==(const VariantSpan&) const = default;
};

class KnownSites {
 public:
  /// Opens `path`; throws gpp::Error naming the file when missing, not VCF/BCF, or malformed.
  explicit KnownSites(const std::string& path);
  ~KnownSites();
  KnownSites(KnownSites&&) noexcept;
  KnownSites& operator=(KnownSites&&) noexcept;

  const std::string& path() const { return path_; }
  bool indexed() const;

  /// Records overlapping [start, end) on `contig`, in file order (sorted by start for sorted
  /// files). An unknown contig has no records. Not thread-safe.
  std::vector<VariantSpan> query(const std::string& contig, std::int64_t start, std::int64_t end);

  /// Every record on `contig`, in file order. Given the contig's `length`, a bgzipped VCF with a
  /// tabix index is read in pieces of the contig side by side, each through a handle of its own
  /// (dbSNP holds millions of records per chromosome: read on one thread, they take seconds).
  std::vector<VariantSpan> contig_sites(const std::string& contig, std::int64_t length = 0);

  /// The contigs that hold records (from the index, or from the records of an unindexed file).
  std::vector<std::string> contigs_with_sites();

 private:
  std::vector<VariantSpan> query_index(const std::string& contig, std::int64_t start,
                                       std::int64_t end);
  void load_all();
  bool has_record(int id);  ///< whether the indexed contig `id` holds a record
  std::vector<VariantSpan> query_loaded(const std::string& contig, std::int64_t start,
                                        std::int64_t end) const;

  struct State;
  std::string path_;
  std::unique_ptr<State> state_;
};

}  // namespace gpp::io
