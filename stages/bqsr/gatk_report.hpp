// GATKReport v1.1 text tables (GATK GATKReportTable / GATKReportColumn): the layout of the
// recalibration report.
#pragma once

#include <string>
#include <vector>

namespace gpp::stages::bqsr {

/// One table: cells already formatted as the column's format string would print them.
struct ReportTable {
  std::string name;
  std::string description;
  std::vector<std::string> column_names;
  std::vector<std::string> column_formats;  ///< "%s", "%d", "%.4f", ...
  std::vector<std::vector<std::string>> rows;
};

/**
 * @brief Writes tables as GATKReport v1.1: "#:GATKReport.v1.1:<n tables>", then per table
 * "#:GATKTable:<cols>:<rows>:<formats>:;", "#:GATKTable:<name>:<description>", the column names,
 * the rows in the given order and a blank line. Columns are separated by two spaces and padded
 * to the widest of name and values. Names are left-aligned; values right-aligned unless some value
 * is not a number (commons-lang
 * NumberUtils.isNumber, or null/NA/Infinity/NaN), then left-aligned; the last column is padded too.
 */
std::string format_report(const std::vector<ReportTable>& tables);

/// Parses GATKReport v1.1 text; cells split on whitespace. Throws gpp::Error naming `source`.
std::vector<ReportTable> parse_report(const std::string& text, const std::string& source);

}  // namespace gpp::stages::bqsr
