// Header: the SAM header of an alignment file, with its contigs and read groups indexed.
//
// Stages see contigs and read groups through this type without touching HTSlib; io/ reads and
// writes it. Copies share the underlying header; clone() makes an independent one to edit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

struct sam_hdr_t;

namespace gpp::io {

struct ReadGroup {
  std::string id;
  std::string sample;               ///< SM, may be empty
  std::string library;              ///< LB, may be empty
  std::string platform;             ///< PL, may be empty
  std::string platform_unit;        ///< PU, may be empty
  std::int32_t library_index = -1;  ///< index into Header::libraries(); -1 without LB
};

/// The TAG:value fields of one header line ("@RG\tID:a\tSM:s"), in the order written; fields
/// that are not TAG:value are skipped.
std::vector<std::pair<std::string, std::string>> header_line_tags(std::string_view line);

struct Contig {
  std::string name;
  std::int64_t length = 0;
};

class Header {
 public:
  Header() = default;
  /// Takes ownership of an HTSlib header.
  explicit Header(sam_hdr_t* owned);

  sam_hdr_t* get() const { return header_.get(); }

  const std::vector<Contig>& contigs() const { return contigs_; }
  /// Index of a contig by name, or -1.
  std::int32_t contig_index(std::string_view name) const;

  /// One per ID, in order of first appearance, with the tags of the last @RG line of that ID
  /// (htsjdk's SAMFileHeader, so Picard's and GATK's reading of a header that repeats an ID).
  const std::vector<ReadGroup>& read_groups() const { return read_groups_; }
  /// Distinct LB values in order of first appearance among all the @RG lines.
  const std::vector<std::string>& libraries() const { return libraries_; }
  /// Index of a read group by ID, or -1.
  std::int32_t read_group_index(std::string_view id) const;

  /// A header parsed from SAM header text; throws gpp::Error when it is malformed.
  static Header from_text(const std::string& text);

  /// An independent copy that may be edited.
  Header clone() const;

  /// Appends a @PG line (ID made unique, PP chained to the last program) as samtools does.
  void add_program(const std::string& name, const std::string& version,
                   const std::string& command_line);
  /// Sets @HD SO (adds @HD VN:1.6 when absent).
  void set_sort_order(const std::string& sort_order);
  /// @HD SO value, or "unknown" when absent.
  std::string sort_order() const;

  /// The full header text.
  std::string text() const;

 private:
  void index_lines();

  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::shared_ptr<sam_hdr_t> header_;
  std::vector<Contig> contigs_;
  std::vector<ReadGroup> read_groups_;
  std::vector<std::string> libraries_;
  std::unordered_map<std::string, std::int32_t, StringHash, std::equal_to<>> read_group_by_id_;
};

}  // namespace gpp::io
