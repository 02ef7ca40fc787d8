// tabix's VCF index built as the file is written (see tabix_index.hpp).
#include "io/text/tabix_index.hpp"

#include <htslib/hts.h>
#include <htslib/tbx.h>

#include <array>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace gpp::io {

namespace {

// tbx_index's TBI geometry: 16 kb bins, 5 levels.
constexpr int kMinShift = 14;
constexpr int kLevels = 5;

/// strtoll(text, base 0) as tbx_parse1 reads a number, over a field that is not NUL-terminated.
bool parse_number(std::string_view field, long long& value) {
  const std::string text(field);
  char* end = nullptr;
  value = std::strtoll(text.c_str(), &end, 0);
  return end != text.c_str();
}

/// A record line's interval as tbx_parse1 (TBX_VCF) gives it.
struct Interval {
  std::string_view name;
  long long begin = -1;
  long long end = -1;
};

/// INFO's END= value (tbx_parse1: "END=" opening the column, else the first ";END="), if any.
const char* info_end_value(std::string_view info) {
  const std::size_t first = info.find("END=");
  if (first == std::string_view::npos) return nullptr;
  if (first == 0) return info.data() + 4;
  const std::size_t after_separator = info.find(";END=");
  return after_separator == std::string_view::npos ? nullptr : info.data() + after_separator + 5;
}

bool locate(std::string_view line, Interval& interval) {
  std::size_t column_start = 0;
  for (int column = 1;; ++column) {
    const std::size_t tab = line.find('\t', column_start);
    const std::size_t column_end = tab == std::string_view::npos ? line.size() : tab;
    const std::string_view field = line.substr(column_start, column_end - column_start);
    if (column == 1) {
      interval.name = field;
    } else if (column == 2) {
      long long position = 0;
      if (!parse_number(field, position)) return false;
      interval.begin = position - 1;
      interval.end = position;
      if (interval.begin < 0) interval.begin = 0;
      if (interval.end < 1) interval.end = 1;
    } else if (column == 4) {
      if (!field.empty()) interval.end = interval.begin + static_cast<long long>(field.size());
    } else if (column == 8) {
      const char* value = info_end_value(field);
      long long end = 0;
      if (value != nullptr && *value != '.' &&
          parse_number(field.substr(static_cast<std::size_t>(value - field.data())), end) &&
          end > interval.begin) {
        interval.end = end;
      }
    }
    if (tab == std::string_view::npos) break;
    column_start = tab + 1;
  }
  return interval.begin >= 0 && interval.end >= 0;
}

}  // namespace

TabixIndex::TabixIndex() = default;

TabixIndex::~TabixIndex() {
  if (index_ != nullptr) hts_idx_destroy(index_);
}

int TabixIndex::sequence_id(std::string_view name) {
  // Records come contig by contig: most lines name the last one.
  if (last_id_ >= 0 && name == names_[static_cast<std::size_t>(last_id_)]) return last_id_;
  const auto [it, added] = ids_.try_emplace(std::string(name), static_cast<int>(names_.size()));
  if (added) names_.emplace_back(name);
  last_id_ = it->second;
  return last_id_;
}

void TabixIndex::start_index() {
  if (index_ != nullptr) return;
  index_ = hts_idx_init(0, HTS_FMT_TBI, header_end_, kMinShift, kLevels);
  if (index_ == nullptr) throw Error("tabix index: out of memory");
}

void TabixIndex::add_line(std::string_view line, std::uint64_t virtual_end) {
  if (!line.empty() && line.front() == '#') {
    if (index_ == nullptr) header_end_ = virtual_end;
    return;
  }
  Interval interval;
  if (!locate(line, interval)) {
    throw Error("tabix index: cannot place the line \"" +
                std::string(line.substr(0, std::min<std::size_t>(line.size(), 80))) + "\"");
  }
  start_index();
  if (hts_idx_push(index_, sequence_id(interval.name), interval.begin, interval.end, virtual_end,
                   1) < 0) {
    throw Error("tabix index: records not sorted by contig and position at " +
                std::string(interval.name) + ":" + std::to_string(interval.begin + 1));
  }
}

void TabixIndex::save(const std::string& path, std::uint64_t virtual_end_of_data) {
  start_index();  // with no record: an index of nothing, as tabix writes for such a file
  if (hts_idx_finish(index_, virtual_end_of_data) != 0) throw Error(path + ": cannot build");
  // tbx_set_meta: the configuration (tbx_conf_vcf), then the sequence names, NUL-terminated.
  std::size_t names_length = 0;
  for (const std::string& name : names_) names_length += name.size() + 1;
  const std::array<std::int32_t, 7> head = {tbx_conf_vcf.preset,
                                            tbx_conf_vcf.sc,
                                            tbx_conf_vcf.bc,
                                            tbx_conf_vcf.ec,
                                            tbx_conf_vcf.meta_char,
                                            tbx_conf_vcf.line_skip,
                                            static_cast<std::int32_t>(names_length)};
  const std::size_t meta_length = sizeof head + names_length;
  auto* meta = static_cast<std::uint8_t*>(std::malloc(meta_length));  // owned by the index
  if (meta == nullptr) throw Error("tabix index: out of memory");
  std::memcpy(meta, head.data(), sizeof head);
  std::size_t at = sizeof head;
  for (const std::string& name : names_) {
    std::memcpy(meta + at, name.c_str(), name.size() + 1);
    at += name.size() + 1;
  }
  if (hts_idx_set_meta(index_, static_cast<std::uint32_t>(meta_length), meta, 0) != 0) {
    std::free(meta);
    throw Error("tabix index: out of memory");
  }
  if (hts_idx_save_as(index_, nullptr, path.c_str(), HTS_FMT_TBI) != 0) {
    throw Error(path + ": cannot write (disk full?)");
  }
}

}  // namespace gpp::io
