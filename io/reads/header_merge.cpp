#include "io/reads/header_merge.hpp"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/error.hpp"

namespace gpp::io {

namespace {

// One @RG or @PG line: its tags in the order written, and the input it came from.
struct HeaderLine {
  std::vector<std::pair<std::string, std::string>> tags;
  std::size_t input = 0;

  std::string tag(std::string_view key) const {
    for (const auto& [k, v] : tags) {
      if (k == key) return v;
    }
    return {};
  }
  bool has(std::string_view key) const {
    return std::any_of(tags.begin(), tags.end(), [&](const auto& t) { return t.first == key; });
  }
  void set(std::string_view key, const std::string& value) {
    for (auto& [k, v] : tags) {
      if (k == key) v = value;
    }
  }
  std::string id() const { return tag("ID"); }
  /// htsjdk's record equality: the same ID and the same tags, whatever their order.
  bool same_record(const HeaderLine& other) const {
    std::set<std::pair<std::string, std::string>> a(tags.begin(), tags.end());
    std::set<std::pair<std::string, std::string>> b(other.tags.begin(), other.tags.end());
    return a == b;
  }
  std::string text(std::string_view type) const {
    std::string line = "@" + std::string(type) + "\tID:" + id();
    for (const auto& [k, v] : tags) {
      if (k != "ID") line += "\t" + k + ":" + v;
    }
    return line + "\n";
  }
};

struct ParsedHeader {
  std::vector<HeaderLine> read_groups;
  std::vector<HeaderLine> programs;
  std::vector<std::string> comments;  ///< whole @CO lines
  std::string sequences;              ///< the @SQ lines as written
};

ParsedHeader parse(const Header& header, std::size_t input) {
  ParsedHeader parsed;
  const std::string text = header.text();
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    const std::string_view line(text.data() + at, eol - at);
    at = eol + 1;
    if (line.starts_with("@SQ\t")) {
      parsed.sequences.append(line).push_back('\n');
    } else if (line.starts_with("@CO\t")) {
      parsed.comments.emplace_back(line);
    } else if (line.starts_with("@RG\t") || line.starts_with("@PG\t")) {
      HeaderLine record{header_line_tags(line), input};
      (line[1] == 'R' ? parsed.read_groups : parsed.programs).push_back(std::move(record));
    }
  }
  return parsed;
}

using Translation = std::vector<std::unordered_map<std::string, std::string>>;

// SamFileHeaderMerger.mergeHeaderRecords: the distinct lines of `lines` by ID in order of first
// appearance, the first of an ID not yet taken keeping it, the others renamed ID.<counter>.
std::vector<HeaderLine> merge_lines(const std::vector<HeaderLine>& lines,
                                    std::unordered_set<std::string>& taken, int& counter,
                                    Translation& translation) {
  struct Distinct {
    HeaderLine line;
    std::vector<std::size_t> inputs;
  };
  std::vector<std::pair<std::string, std::vector<Distinct>>> by_id;
  std::unordered_map<std::string, std::size_t> id_index;
  for (const HeaderLine& line : lines) {
    const std::string id = line.id();
    auto [it, added] = id_index.emplace(id, by_id.size());
    if (added) by_id.emplace_back(id, std::vector<Distinct>{});
    std::vector<Distinct>& same_id = by_id[it->second].second;
    auto found = std::find_if(same_id.begin(), same_id.end(),
                              [&](const Distinct& d) { return d.line.same_record(line); });
    if (found == same_id.end()) {
      same_id.push_back({line, {}});
      found = same_id.end() - 1;
    }
    found->inputs.push_back(line.input);
  }
  std::vector<HeaderLine> merged;
  for (auto& [id, same_id] : by_id) {
    for (Distinct& distinct : same_id) {
      std::string new_id = id;
      if (!taken.contains(id)) {
        taken.insert(id);
        ++counter;
      } else {
        do {
          new_id = id + "." + base36(counter++);
        } while (taken.contains(new_id));
        taken.insert(new_id);
      }
      for (std::size_t input : distinct.inputs) translation[input][id] = new_id;
      distinct.line.set("ID", new_id);
      merged.push_back(std::move(distinct.line));
    }
  }
  return merged;
}

void check_unique_ids(const std::vector<HeaderLine>& lines, std::string_view type,
                      const std::string& name) {
  std::unordered_set<std::string> ids;
  for (const HeaderLine& line : lines) {
    if (!ids.insert(line.id()).second) {
      throw Error(name + ": more than one @" + std::string(type) + " line with ID " + line.id());
    }
  }
}

void sort_by_id(std::vector<HeaderLine>& lines) {
  std::stable_sort(lines.begin(), lines.end(),
                   [](const HeaderLine& a, const HeaderLine& b) { return a.id() < b.id(); });
}

// SamFileHeaderMerger.mergeProgramGroups: the chains' roots first, then the lines whose PP names
// a line just merged (of the same input), their IDs and PPs as renamed so far.
std::vector<HeaderLine> merge_programs(std::vector<HeaderLine> left, Translation& translation,
                                       std::span<const std::string> names) {
  std::unordered_set<std::string> taken;
  int counter = 0;
  std::vector<HeaderLine> current;
  std::erase_if(left, [&](const HeaderLine& line) {
    if (line.has("PP")) return false;
    current.push_back(line);
    return true;
  });
  auto translate = [&](std::vector<HeaderLine>& lines, bool previous_too) {
    for (HeaderLine& line : lines) {
      const auto& table = translation[line.input];
      if (auto it = table.find(line.id()); it != table.end()) line.set("ID", it->second);
      if (!previous_too || !line.has("PP")) continue;
      if (auto it = table.find(line.tag("PP")); it != table.end()) line.set("PP", it->second);
    }
  };
  std::vector<HeaderLine> merged;
  while (!current.empty()) {
    std::vector<HeaderLine> level = merge_lines(current, taken, counter, translation);
    merged.insert(merged.end(), level.begin(), level.end());
    translate(current, false);
    translate(left, true);
    std::vector<HeaderLine> next;
    std::erase_if(left, [&](const HeaderLine& line) {
      const std::string previous = line.tag("PP");
      const bool follows = std::any_of(current.begin(), current.end(), [&](const HeaderLine& c) {
        return c.input == line.input && c.id() == previous;
      });
      if (follows) next.push_back(line);
      return follows;
    });
    current = std::move(next);
  }
  if (!left.empty()) {
    throw Error(names[left.front().input] + ": @PG " + left.front().id() + " has PP:" +
                left.front().tag("PP") + ", which no @PG line of the file has as its ID");
  }
  sort_by_id(merged);
  return merged;
}

std::string sort_order_of(const Header& header) {
  const std::string order = header.sort_order();
  return order == "unknown" ? "unsorted" : order;
}

std::vector<std::map<std::string, std::string>> ordered(const Translation& translation) {
  std::vector<std::map<std::string, std::string>> tables;
  for (const auto& table : translation) tables.emplace_back(table.begin(), table.end());
  return tables;
}

bool renames_any(const Translation& translation) {
  return std::any_of(translation.begin(), translation.end(), [](const auto& table) {
    return std::any_of(table.begin(), table.end(),
                       [](const auto& entry) { return entry.first != entry.second; });
  });
}

}  // namespace

std::string base36(int n) {
  if (n == 0) return "0";
  std::string digits;
  for (; n > 0; n /= 36) digits.push_back("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % 36]);
  std::reverse(digits.begin(), digits.end());
  return digits;
}

HeaderMerge merge_headers(std::span<const Header> headers, std::span<const std::string> names) {
  const std::size_t n = headers.size();
  std::vector<ParsedHeader> parsed;
  std::vector<HeaderLine> read_groups;
  std::vector<HeaderLine> programs;
  std::string sort_order = n == 0 ? "unsorted" : sort_order_of(headers[0]);
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<Contig>& first = headers[0].contigs();
    const std::vector<Contig>& contigs = headers[i].contigs();
    for (std::size_t c = 0; c < std::max(first.size(), contigs.size()); ++c) {
      if (c >= first.size() || c >= contigs.size() || first[c].name != contigs[c].name ||
          first[c].length != contigs[c].length) {
        auto describe = [c](const std::vector<Contig>& list) {
          return c < list.size() ? list[c].name + " of " + std::to_string(list[c].length)
                                 : std::string("none");
        };
        throw Error(names[i] + ": its contigs differ from those of " + names[0] + " (contig " +
                    std::to_string(c + 1) + ": " + describe(contigs) + " against " +
                    describe(first) + "); the inputs must share one sequence dictionary");
      }
    }
    parsed.push_back(parse(headers[i], i));
    check_unique_ids(parsed.back().read_groups, "RG", names[i]);
    check_unique_ids(parsed.back().programs, "PG", names[i]);
    read_groups.insert(read_groups.end(), parsed.back().read_groups.begin(),
                       parsed.back().read_groups.end());
    programs.insert(programs.end(), parsed.back().programs.begin(), parsed.back().programs.end());
    if (sort_order_of(headers[i]) != sort_order) sort_order = "unsorted";
  }
  Translation group_translation(n);
  Translation program_translation(n);
  std::unordered_set<std::string> taken;
  int counter = 0;
  std::vector<HeaderLine> merged_groups =
      merge_lines(read_groups, taken, counter, group_translation);
  sort_by_id(merged_groups);
  const std::vector<HeaderLine> merged_programs =
      merge_programs(programs, program_translation, names);

  // htsjdk's merged header: a new SAMFileHeader (VN), group order none, then the sort order.
  std::string text = "@HD\tVN:1.6\tGO:none\tSO:" + sort_order + "\n";
  if (n > 0) text += parsed[0].sequences;
  for (const HeaderLine& line : merged_groups) text += line.text("RG");
  for (const HeaderLine& line : merged_programs) text += line.text("PG");
  for (const ParsedHeader& p : parsed) {
    for (const std::string& comment : p.comments) text += comment + "\n";
  }
  HeaderMerge merge;
  merge.header = Header::from_text(text);
  merge.read_group.resize(n);
  merge.library.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (const ReadGroup& group : headers[i].read_groups()) {
      merge.read_group[i].push_back(
          merge.header.read_group_index(group_translation[i].at(group.id)));
    }
    const std::vector<std::string>& libraries = merge.header.libraries();
    for (const std::string& library : headers[i].libraries()) {
      merge.library[i].push_back(static_cast<std::int32_t>(
          std::find(libraries.begin(), libraries.end(), library) - libraries.begin()));
    }
  }
  merge.read_group_id = ordered(group_translation);
  merge.program_id = ordered(program_translation);
  merge.read_group_collisions = renames_any(group_translation);
  merge.program_collisions = renames_any(program_translation);
  return merge;
}

}  // namespace gpp::io
