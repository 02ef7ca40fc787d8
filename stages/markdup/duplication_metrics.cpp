#include "stages/markdup/duplication_metrics.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

namespace gpp::stages::markdup {

namespace {
double f(double x, double c, double n) { return c / x - 1 + std::exp(-n / x); }

// Java Double.toString for the histogram keys (whole numbers below 10^7: "12.0").
std::string java_double_key(double v) {
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e7) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", v);
  }
  return buf;
}
}  // namespace

std::optional<std::int64_t> estimate_library_size(std::int64_t read_pairs,
                                                  std::int64_t unique_read_pairs) {
  const std::int64_t duplicates = read_pairs - unique_read_pairs;
  if (read_pairs <= 0 || duplicates <= 0) return std::nullopt;
  const double n = static_cast<double>(read_pairs);
  const double c = static_cast<double>(unique_read_pairs);
  double m = 1.0;
  double M = 100.0;
  while (f(M * c, c, n) > 0) M *= 10.0;
  for (int i = 0; i < 40; ++i) {
    const double r = (m + M) / 2.0;
    const double u = f(r * c, c, n);
    if (u == 0) break;
    if (u > 0) m = r;
    if (u < 0) M = r;
  }
  return static_cast<std::int64_t>(c * (m + M) / 2.0);
}

void calculate_derived_fields(LibraryMetrics& metrics) {
  metrics.estimated_library_size =
      estimate_library_size(metrics.read_pairs_examined - metrics.read_pair_optical_duplicates,
                            metrics.read_pairs_examined - metrics.read_pair_duplicates);
  const std::int64_t examined = metrics.unpaired_reads_examined + metrics.read_pairs_examined * 2;
  metrics.percent_duplication = metrics.unpaired_reads_examined + metrics.read_pairs_examined != 0
                                    ? static_cast<double>(metrics.unpaired_read_duplicates +
                                                          metrics.read_pair_duplicates * 2) /
                                          static_cast<double>(examined)
                                    : 0.0;
}

std::map<double, double> coverage_multiple_histogram(const LibraryMetrics& metrics) {
  std::map<double, double> histogram;
  if (!metrics.estimated_library_size) return histogram;
  const double size = static_cast<double>(*metrics.estimated_library_size);
  const double pairs = static_cast<double>(metrics.read_pairs_examined);
  const double unique =
      static_cast<double>(metrics.read_pairs_examined - metrics.read_pair_duplicates);
  for (int x = 1; x <= 100; ++x) histogram[x] = size * (1 - std::exp(-(x * pairs) / size)) / unique;
  return histogram;
}

std::string format_picard_double(double value) {
  if (std::isnan(value)) return "?";
  if (std::isinf(value)) return value > 0 ? "\u221e" : "-\u221e";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f",
                value);  // correctly rounded, ties to even on the exact value
  std::string text = buf;
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

std::string format_metrics_file(const std::string& command_line, const std::string& started_on,
                                const std::vector<LibraryMetrics>& rows, bool single_library,
                                const SetSizeHistograms& histograms) {
  std::string out;
  out += "## htsjdk.samtools.metrics.StringHeader\n# " + command_line + "\n";
  out += "## htsjdk.samtools.metrics.StringHeader\n# Started on: " + started_on + "\n\n";
  out += "## METRICS CLASS\tpicard.sam.DuplicationMetrics\n";
  out +=
      "LIBRARY\tUNPAIRED_READS_EXAMINED\tREAD_PAIRS_EXAMINED\tSECONDARY_OR_SUPPLEMENTARY_RDS\t"
      "UNMAPPED_READS\tUNPAIRED_READ_DUPLICATES\tREAD_PAIR_DUPLICATES\tREAD_PAIR_OPTICAL_"
      "DUPLICATES\t"
      "PERCENT_DUPLICATION\tESTIMATED_LIBRARY_SIZE\n";
  for (const LibraryMetrics& m : rows) {
    out += m.library + "\t" + std::to_string(m.unpaired_reads_examined) + "\t" +
           std::to_string(m.read_pairs_examined) + "\t" +
           std::to_string(m.secondary_or_supplementary_reads) + "\t" +
           std::to_string(m.unmapped_reads) + "\t" + std::to_string(m.unpaired_read_duplicates) +
           "\t" + std::to_string(m.read_pair_duplicates) + "\t" +
           std::to_string(m.read_pair_optical_duplicates) + "\t" +
           format_picard_double(m.percent_duplication) + "\t" +
           (m.estimated_library_size ? std::to_string(*m.estimated_library_size) : "") + "\n";
  }
  out += "\n";
  {
    // htsjdk MetricsFile: non-empty histograms side by side over the union of their keys; the
    // coverage histogram only for a single library, the set-size histograms always.
    std::vector<std::pair<std::string, const std::map<double, double>*>> columns;
    const std::map<double, double> coverage = single_library && rows.size() == 1
                                                  ? coverage_multiple_histogram(rows[0])
                                                  : std::map<double, double>{};
    if (!coverage.empty()) columns.emplace_back("CoverageMult", &coverage);
    if (!histograms.all_sets.empty()) columns.emplace_back("all_sets", &histograms.all_sets);
    if (!histograms.optical_sets.empty())
      columns.emplace_back("optical_sets", &histograms.optical_sets);
    if (!histograms.non_optical_sets.empty())
      columns.emplace_back("non_optical_sets", &histograms.non_optical_sets);
    if (!columns.empty()) {
      std::map<double, bool> keys;
      for (const auto& [label, histogram] : columns) {
        for (const auto& [key, value] : *histogram) keys[key] = true;
      }
      // The first histogram names the key column: ROI's "BIN", the set-size ones' "set_size".
      out += "## HISTOGRAM\tjava.lang.Double\n";
      out += coverage.empty() ? "set_size" : "BIN";
      for (const auto& [label, histogram] : columns) {
        out += '\t';
        out += label;
      }
      out += "\n";
      for (const auto& [key, unused] : keys) {
        out += java_double_key(key);
        for (const auto& [label, histogram] : columns) {
          const auto it = histogram->find(key);
          out += '\t';
          out += format_picard_double(it == histogram->end() ? 0.0 : it->second);
        }
        out += "\n";
      }
    }
  }
  out += "\n";  // htsjdk ends the histogram section with a blank line, histogram or not
  return out;
}

}  // namespace gpp::stages::markdup
