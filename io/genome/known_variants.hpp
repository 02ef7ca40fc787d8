// KnownVariants: the records of a VCF or BCF of known variants (dbSNP) by start position, with
// their ID, alleles and FILTER status: what HaplotypeCaller's --dbsnp annotation compares calls
// with. Read a window of a contig at a time through the index (.tbi / .csi); a file without one is
// read whole when opened.
//
// @code
//   const KnownVariants dbsnp("dbsnp.vcf.gz");
//   const KnownVariantWindow window = dbsnp.window("chr22", 0, 1'000'000);
//   for (const KnownVariant& v : window.starting_at(1981)) ...  // POS 1982: rs7287620 A G
// @endcode
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpp::io {

/// One record as htsjdk's VariantContext gives it to VariantOverlapAnnotator.
struct KnownVariant {
  std::int64_t position = 0;         ///< 0-based (POS - 1)
  std::string id;                    ///< the ID column as written ("." when it has none)
  std::vector<std::string> alleles;  ///< REF, then each ALT (none for ALT '.'); bases upper-cased
  bool filtered = false;             ///< FILTER other than PASS and '.'

  bool operator==(const KnownVariant&) const = default;
};

/// The records that start within [start, end) of one contig, parsed only when asked for.
class KnownVariantWindow {
 public:
  std::int64_t start() const { return start_; }
  std::int64_t end() const { return end_; }
  bool contains(std::int64_t position) const { return position >= start_ && position < end_; }
  std::size_t size() const { return positions_.size(); }

  /// The records starting at `position` (0-based), in file order.
  std::vector<KnownVariant> starting_at(std::int64_t position) const;
  /// Every record of the window, by position (file order among those of one position).
  std::vector<KnownVariant> records() const;

 private:
  friend class KnownVariants;
  void add(std::int64_t position, std::string_view fields);
  KnownVariantWindow slice(std::int64_t start, std::int64_t end) const;
  /// Records [first, last) parsed.
  std::vector<KnownVariant> parsed(std::size_t first, std::size_t last) const;

  std::int64_t start_ = 0;
  std::int64_t end_ = 0;
  std::vector<std::int64_t> positions_;  ///< non-decreasing
  std::vector<std::size_t> offsets_{0};  ///< record i's text is text_[offsets_[i], offsets_[i+1])
  std::string text_;                     ///< per record "ID\tREF\tALT\tFILTER"
};

class KnownVariants {
 public:
  /// Opens `path` (VCF or BCF, plain or bgzipped); a file without an index is read whole here.
  /// @throws gpp::Error naming the file when it is missing, not VCF/BCF, or malformed
  explicit KnownVariants(const std::string& path);
  ~KnownVariants();
  KnownVariants(KnownVariants&&) noexcept;
  KnownVariants& operator=(KnownVariants&&) noexcept;

  const std::string& path() const { return path_; }

  /// The records of `contig` that start within [start, end) (0-based), in file order; none on a
  /// contig the file does not have. Safe to call from several threads at once (each indexed read
  /// goes through a handle of its own). @throws gpp::Error naming the file for a malformed record
  KnownVariantWindow window(const std::string& contig, std::int64_t start, std::int64_t end) const;

  /// The contigs that hold records.
  std::vector<std::string> contigs() const;

 private:
  struct State;
  std::string path_;
  std::unique_ptr<State> state_;
};

}  // namespace gpp::io
