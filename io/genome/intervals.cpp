#include "io/genome/intervals.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "core/error.hpp"

namespace gpp::io {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Dictionary {
  std::unordered_map<std::string, std::size_t> index;
  const std::vector<Contig>& contigs;
  explicit Dictionary(const std::vector<Contig>& c) : contigs(c) {
    for (std::size_t i = 0; i < c.size(); ++i) index.emplace(c[i].name, i);
  }
  const Contig* find(const std::string& name) const {
    const auto it = index.find(name);
    return it == index.end() ? nullptr : &contigs[it->second];
  }
};

// Parses a non-negative integer with optional thousands commas; false if not a number. A sign
// is refused: from_chars would take "-9223372036854775808", and start - 1 would overflow.
bool parse_position(std::string text, std::int64_t& value) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty() || text[0] == '-') return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

Interval checked(const Dictionary& dict, const std::string& where, const std::string& contig,
                 std::int64_t start, std::int64_t end) {
  const Contig* c = dict.find(contig);
  if (c == nullptr)
    throw Error(where + ": contig '" + contig + "' is not in the sequence dictionary");
  if (start < 0 || end <= start || end > c->length) {
    throw Error(where + ": interval " + contig + ":" + std::to_string(start + 1) + "-" +
                std::to_string(end) + " is empty or outside the contig (length " +
                std::to_string(c->length) + ")");
  }
  return {contig, start, end};
}

// GATK region string: contig, contig:pos, contig:start-end (1-based inclusive).
Interval parse_region(const Dictionary& dict, const std::string& where, const std::string& text) {
  if (const Contig* whole = dict.find(text)) return {whole->name, 0, whole->length};
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    throw Error(where + ": contig '" + text + "' is not in the sequence dictionary");
  }
  const std::string contig = text.substr(0, colon);
  const std::string range = text.substr(colon + 1);
  const auto dash = range.find('-');
  std::int64_t start = 0;
  std::int64_t end = 0;
  if (dash == std::string::npos) {
    if (!parse_position(range, start)) throw Error(where + ": malformed interval '" + text + "'");
    end = start;
  } else if (!parse_position(range.substr(0, dash), start) ||
             !parse_position(range.substr(dash + 1), end)) {
    throw Error(where + ": malformed interval '" + text + "'");
  }
  return checked(dict, where, contig, start - 1, end);
}

std::vector<std::string> split_whitespace(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> fields;
  for (std::string f; in >> f;) fields.push_back(f);
  return fields;
}

void parse_file(const Dictionary& dict, const std::string& path, std::vector<Interval>& out) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot read the interval file");
  const bool bed = ends_with(path, ".bed");
  const bool interval_list = ends_with(path, ".interval_list");
  std::string line;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = path + ": line " + std::to_string(line_number);
    if (line.empty() || line[0] == '#' || line[0] == '@') continue;
    if (bed && (line.rfind("track", 0) == 0 || line.rfind("browser", 0) == 0)) continue;
    const auto fields = split_whitespace(line);
    if (fields.empty()) continue;
    if (bed || interval_list) {
      std::int64_t start = 0;
      std::int64_t end = 0;
      if (fields.size() < 3 || !parse_position(fields[1], start) ||
          !parse_position(fields[2], end)) {
        throw Error(where + ": expected '" +
                    std::string(bed ? "contig start end" : "contig start end strand name") + "'");
      }
      // BED is 0-based half-open; interval_list is 1-based inclusive.
      out.push_back(checked(dict, where, fields[0], bed ? start : start - 1, end));
    } else {
      out.push_back(parse_region(dict, where, fields[0]));
    }
  }
}

}  // namespace

std::vector<Interval> parse_intervals(const std::vector<std::string>& specs,
                                      const std::vector<Contig>& dictionary, std::int64_t padding,
                                      const std::string& option) {
  if (padding < 0) throw Error("the interval padding must not be negative");
  const Dictionary dict(dictionary);
  std::vector<Interval> all;
  for (const std::string& spec : specs) {
    std::error_code ec;
    const bool is_file = dict.find(spec) == nullptr && std::filesystem::is_regular_file(spec, ec);
    const bool names_a_file = ends_with(spec, ".bed") || ends_with(spec, ".interval_list") ||
                              ends_with(spec, ".list") || ends_with(spec, ".intervals") ||
                              spec.find('/') != std::string::npos;
    if (is_file) {
      // GATK (IntervalUtils.intervalFileToList) refuses a file without intervals: an empty list
      // would mean the whole genome.
      const std::size_t before = all.size();
      parse_file(dict, spec, all);
      if (all.size() == before) {
        throw Error(spec + ": the interval file contains no intervals (" + option +
                    " needs at least one)");
      }
    } else if (names_a_file && dict.find(spec) == nullptr) {
      throw Error(spec + ": no such interval file");
    } else {
      all.push_back(parse_region(dict, option + " " + spec, spec));
    }
  }
  // GATK's -ip: every interval flanked on both sides, within its contig, before merging.
  for (Interval& iv : all) {
    iv.start = std::max<std::int64_t>(0, iv.start - padding);
    iv.end = std::min(dict.find(iv.contig)->length, iv.end + padding);
  }
  std::sort(all.begin(), all.end(), [&](const Interval& a, const Interval& b) {
    const std::size_t ia = dict.index.at(a.contig);
    const std::size_t ib = dict.index.at(b.contig);
    return ia != ib ? ia < ib : (a.start != b.start ? a.start < b.start : a.end < b.end);
  });
  std::vector<Interval> merged;
  for (Interval& iv : all) {
    if (!merged.empty() && merged.back().contig == iv.contig && iv.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, iv.end);
    } else {
      merged.push_back(std::move(iv));
    }
  }
  return merged;
}

std::vector<Interval> whole_contigs(const std::vector<Contig>& dictionary) {
  std::vector<Interval> whole;
  for (const Contig& contig : dictionary) {
    if (contig.length > 0) whole.push_back({contig.name, 0, contig.length});
  }
  return whole;
}

std::vector<Interval> subtract_intervals(const std::vector<Interval>& included,
                                         const std::vector<Interval>& excluded) {
  // Each contig's cuts, in order (merged: they neither overlap nor abut).
  std::unordered_map<std::string, std::vector<const Interval*>> cuts;
  for (const Interval& cut : excluded) cuts[cut.contig].push_back(&cut);
  std::vector<Interval> left;
  for (const Interval& interval : included) {
    std::int64_t from = interval.start;
    const auto found = cuts.find(interval.contig);
    if (found != cuts.end()) {
      const std::vector<const Interval*>& on_contig = found->second;
      // The first cut that ends after the interval's start.
      auto cut = std::partition_point(on_contig.begin(), on_contig.end(),
                                      [&](const Interval* c) { return c->end <= from; });
      for (; cut != on_contig.end() && (*cut)->start < interval.end; ++cut) {
        if ((*cut)->start > from) left.push_back({interval.contig, from, (*cut)->start});
        from = std::max(from, (*cut)->end);
      }
    }
    if (from < interval.end) left.push_back({interval.contig, from, interval.end});
  }
  return left;
}

}  // namespace gpp::io
