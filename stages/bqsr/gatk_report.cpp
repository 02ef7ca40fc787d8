// GATKReport v1.1 tables; see gatk_report.hpp.
#include "stages/bqsr/gatk_report.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/error.hpp"

namespace gpp::stages::bqsr {

namespace {

/// commons-lang3 NumberUtils.isNumber for the values a recalibration report holds: optional sign,
/// digits with at most one point, optional exponent, optional type suffix (d, f, l); or hex.
bool is_number(const std::string& s) {
  if (s.empty()) return false;
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i + 1 < s.size() && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    if (i + 2 == s.size()) return false;
    for (std::size_t k = i + 2; k < s.size(); ++k) {
      if (!std::isxdigit(static_cast<unsigned char>(s[k]))) return false;
    }
    return true;
  }
  bool digits = false, point = false, exponent = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits = true;
    } else if (c == '.') {
      if (point || exponent) return false;
      point = true;
    } else if ((c == 'e' || c == 'E') && digits && !exponent) {
      exponent = true;
      if (i + 1 < s.size() && (s[i + 1] == '-' || s[i + 1] == '+')) ++i;
      if (i + 1 == s.size()) return false;
    } else if (i + 1 == s.size() && digits && std::string("dDfFlL").find(c) != std::string::npos) {
      if ((c == 'l' || c == 'L') && (point || exponent)) return false;
      return true;
    } else {
      return false;
    }
  }
  return digits;
}

bool right_aligned(const std::string& value) {
  return value == "null" || value == "NA" || value == "Infinity" || value == "-Infinity" ||
         value == "NaN" || is_number(value);
}

void pad(std::string& out, const std::string& value, std::size_t width, bool right) {
  if (right) out.append(width - std::min(width, value.size()), ' ');
  out += value;
  if (!right) out.append(width - std::min(width, value.size()), ' ');
}

}  // namespace

std::string format_report(const std::vector<ReportTable>& tables) {
  std::string out = "#:GATKReport.v1.1:" + std::to_string(tables.size()) + "\n";
  for (const ReportTable& table : tables) {
    const std::size_t columns = table.column_names.size();
    out += "#:GATKTable:" + std::to_string(columns) + ":" + std::to_string(table.rows.size());
    for (const std::string& format : table.column_formats) out += ":" + format;
    out += ":;\n#:GATKTable:" + table.name + ":" + table.description + "\n";
    std::vector<std::size_t> width(columns);
    std::vector<bool> right(columns, true);
    for (std::size_t c = 0; c < columns; ++c) {
      width[c] = table.column_names[c].size();
      for (const auto& row : table.rows) {
        width[c] = std::max(width[c], row[c].size());
        if (right[c] && !row[c].empty() && !right_aligned(row[c])) right[c] = false;
      }
    }
    // Column names are always left-aligned (GATKReportColumnFormat name format "%-<width>s").
    for (std::size_t c = 0; c < columns; ++c) {
      if (c > 0) out += "  ";
      pad(out, table.column_names[c], width[c], false);
    }
    out += "\n";
    for (const auto& row : table.rows) {
      for (std::size_t c = 0; c < columns; ++c) {
        if (c > 0) out += "  ";
        pad(out, row[c], width[c], right[c]);
      }
      out += "\n";
    }
    out += "\n";
  }
  return out;
}

std::vector<ReportTable> parse_report(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string line;
  auto fail = [&](const std::string& what) -> Error {
    return Error(source + ": malformed GATK report (" + what + ")");
  };
  if (!std::getline(in, line) || line.rfind("#:GATKReport.v1.1:", 0) != 0)
    throw fail("no #:GATKReport.v1.1 header");
  const int count = std::atoi(line.c_str() + 18);
  std::vector<ReportTable> tables;
  for (int t = 0; t < count; ++t) {
    ReportTable table;
    if (!std::getline(in, line) || line.rfind("#:GATKTable:", 0) != 0)
      throw fail("missing table definition");
    std::vector<std::string> parts;
    {
      std::istringstream fields(line);
      std::string field;
      while (std::getline(fields, field, ':')) parts.push_back(field);
    }
    if (parts.size() < 4) throw fail("bad table definition: " + line);
    const int columns = std::atoi(parts[2].c_str());
    const int rows = std::atoi(parts[3].c_str());
    for (int c = 0; c < columns && 4 + c < static_cast<int>(parts.size()); ++c)
      table.column_formats.push_back(parts[4 + static_cast<std::size_t>(c)]);
    if (!std::getline(in, line) || line.rfind("#:GATKTable:", 0) != 0)
      throw fail("missing table name");
    const std::string rest = line.substr(12);
    const std::size_t colon = rest.find(':');
    table.name = rest.substr(0, colon);
    table.description = colon == std::string::npos ? "" : rest.substr(colon + 1);
    auto split = [](const std::string& s) {
      std::istringstream fields(s);
      std::vector<std::string> cells;
      std::string cell;
      while (fields >> cell) cells.push_back(cell);
      return cells;
    };
    if (!std::getline(in, line)) throw fail("table " + table.name + " has no column names");
    table.column_names = split(line);
    if (static_cast<int>(table.column_names.size()) != columns)
      throw fail("table " + table.name + " column count");
    for (int r = 0; r < rows; ++r) {
      if (!std::getline(in, line)) throw fail("table " + table.name + " is truncated");
      std::vector<std::string> cells = split(line);
      if (static_cast<int>(cells.size()) != columns)
        throw fail("table " + table.name + " row " + std::to_string(r + 1));
      table.rows.push_back(std::move(cells));
    }
    std::getline(in, line);  // blank line ending the table
    tables.push_back(std::move(table));
  }
  return tables;
}

}  // namespace gpp::stages::bqsr
