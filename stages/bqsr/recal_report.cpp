// Recalibration report writing and parsing; see recal_report.hpp.
#include "stages/bqsr/recal_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <tuple>

#include "core/error.hpp"
#include "stages/bqsr/gatk_report.hpp"
#include "stages/bqsr/quantization.hpp"
#include "stages/bqsr/recal_math.hpp"

namespace gpp::stages::bqsr {

namespace {

std::string format_empirical(const RecalBin& bin) {
  return java_format_fixed(
      round_to_decimals(empirical_quality(bin.observations, bin.errors(), bin.estimated_quality),
                        4),
      4);
}

int context_size_for(const CovariateOptions& options, int event) {
  return event == static_cast<int>(EventType::kMismatch) ? options.mismatches_context_size
                                                         : options.indels_context_size;
}

ReportTable arguments_table(const CovariateOptions& o) {
  ReportTable table{"Arguments",
                    "Recalibration argument collection values used in this run",
                    {"Argument", "Value"},
                    {"%s", "%s"},
                    {}};
  table.rows = {
      {"binary_tag_name", "null"},
      {"covariate", "ReadGroupCovariate,QualityScoreCovariate,ContextCovariate,CycleCovariate"},
      {"default_platform", "null"},
      {"deletions_default_quality", std::to_string(o.deletions_default_quality)},
      {"force_platform", "null"},
      {"indels_context_size", std::to_string(o.indels_context_size)},
      {"insertions_default_quality", std::to_string(o.insertions_default_quality)},
      {"low_quality_tail", std::to_string(o.low_quality_tail)},
      {"maximum_cycle_value", std::to_string(o.maximum_cycle_value)},
      {"mismatches_context_size", std::to_string(o.mismatches_context_size)},
      {"mismatches_default_quality", std::to_string(o.mismatches_default_quality)},
      {"no_standard_covs", "false"},
      {"quantizing_levels", std::to_string(o.quantizing_levels)},
      {"recalibration_report", "null"},
      {"run_without_dbsnp", "false"},
      {"solid_nocall_strategy", "THROW_EXCEPTION"},
      {"solid_recal_mode", "SET_Q_ZERO"}};
  return table;
}

/// A RecalTable2 row before formatting, ordered as GATKReportTable's ROW_COMPARATOR orders it.
struct CovariateRow {
  const std::string* read_group;
  int quality;
  std::string value;
  const char* name;
  char event;
  const RecalBin* bin;
  auto key() const {
    return std::tuple<const std::string&, int, const std::string&, std::string_view, char>(
        *read_group, quality, value, name, event);
  }
};

}  // namespace

std::vector<std::int64_t> empirical_quality_histogram(const RecalTables& tables) {
  std::vector<std::int64_t> histogram(kQualCount, 0);
  for (int rg = 0; rg < tables.read_group_count(); ++rg) {
    for (int q = 0; q < kQualCount; ++q) {
      for (int event = 0; event < kEventCount; ++event) {
        const RecalBin& bin = tables.quality(rg, q, event);
        if (!bin.present) continue;
        const double emp = round_to_decimals(
            empirical_quality(bin.observations, bin.errors(), bin.estimated_quality), 4);
        histogram[static_cast<std::size_t>(fast_round(emp))] += bin.observations;
      }
    }
  }
  return histogram;
}

std::string format_recalibration_report(const RecalTables& tables,
                                        const std::vector<std::string>& read_groups) {
  const CovariateOptions& options = tables.options();
  std::vector<ReportTable> report;
  report.push_back(arguments_table(options));

  const std::vector<std::int64_t> histogram = empirical_quality_histogram(tables);
  const std::vector<int> quantized = quantize_qualities(histogram, options.quantizing_levels);
  ReportTable quantized_table{"Quantized",
                              "Quality quantization map",
                              {"QualityScore", "Count", "QuantizedScore"},
                              {"%d", "%d", "%d"},
                              {}};
  for (int q = 0; q < kQualCount; ++q) {
    quantized_table.rows.push_back({std::to_string(q),
                                    std::to_string(histogram[static_cast<std::size_t>(q)]),
                                    std::to_string(quantized[static_cast<std::size_t>(q)])});
  }
  report.push_back(std::move(quantized_table));

  // Read groups in identifier order (the rows sort by the ReadGroup string first).
  std::vector<int> rg_order(read_groups.size());
  for (std::size_t i = 0; i < rg_order.size(); ++i) rg_order[i] = static_cast<int>(i);
  std::sort(rg_order.begin(), rg_order.end(), [&](int a, int b) {
    return read_groups[static_cast<std::size_t>(a)] < read_groups[static_cast<std::size_t>(b)];
  });
  // EventType strings sort as "D" < "I" < "M".
  const int event_order[kEventCount] = {static_cast<int>(EventType::kDeletion),
                                        static_cast<int>(EventType::kInsertion),
                                        static_cast<int>(EventType::kMismatch)};

  ReportTable rg_table{"RecalTable0",
                       "",
                       {"ReadGroup", "EventType", "EmpiricalQuality", "EstimatedQReported",
                        "Observations", "Errors"},
                       {"%s", "%s", "%.4f", "%.4f", "%d", "%.2f"},
                       {}};
  ReportTable quality_table{
      "RecalTable1",
      "",
      {"ReadGroup", "QualityScore", "EventType", "EmpiricalQuality", "Observations", "Errors"},
      {"%s", "%d", "%s", "%.4f", "%d", "%.2f"},
      {}};
  for (const int rg : rg_order) {
    for (const int event : event_order) {
      const RecalBin& bin = tables.read_group(rg, event);
      if (!bin.present) continue;
      rg_table.rows.push_back(
          {read_groups[static_cast<std::size_t>(rg)], std::string(1, kEventNames[event]),
           format_empirical(bin), java_format_fixed(bin.estimated_quality, 4),
           std::to_string(bin.observations), java_format_fixed(bin.errors(), 2)});
    }
    for (int q = 0; q < kQualCount; ++q) {
      for (const int event : event_order) {
        const RecalBin& bin = tables.quality(rg, q, event);
        if (!bin.present) continue;
        quality_table.rows.push_back({read_groups[static_cast<std::size_t>(rg)], std::to_string(q),
                                      std::string(1, kEventNames[event]), format_empirical(bin),
                                      std::to_string(bin.observations),
                                      java_format_fixed(bin.errors(), 2)});
      }
    }
  }
  report.push_back(std::move(rg_table));
  report.push_back(std::move(quality_table));

  std::vector<CovariateRow> rows;
  for (int rg = 0; rg < tables.read_group_count(); ++rg) {
    for (int q = 0; q < kQualCount; ++q) {
      for (int event = 0; event < kEventCount; ++event) {
        const int size = context_size_for(options, event);
        for (int key = 0; key < context_key_count(size); ++key) {
          const RecalBin& bin = tables.context(rg, q, key, event);
          if (bin.present)
            rows.push_back({&read_groups[static_cast<std::size_t>(rg)], q,
                            format_context(key, size), "Context", kEventNames[event], &bin});
        }
        for (int key = 0; key < tables.cycle_slots(); ++key) {
          const RecalBin& bin = tables.cycle(rg, q, key, event);
          if (bin.present)
            rows.push_back({&read_groups[static_cast<std::size_t>(rg)], q,
                            std::to_string(cycle_from_key(key)), "Cycle", kEventNames[event],
                            &bin});
        }
      }
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const CovariateRow& a, const CovariateRow& b) { return a.key() < b.key(); });
  ReportTable covariate_table{"RecalTable2",
                              "",
                              {"ReadGroup", "QualityScore", "CovariateValue", "CovariateName",
                               "EventType", "EmpiricalQuality", "Observations", "Errors"},
                              {"%s", "%d", "%s", "%s", "%s", "%.4f", "%d", "%.2f"},
                              {}};
  covariate_table.rows.reserve(rows.size());
  for (const CovariateRow& row : rows) {
    covariate_table.rows.push_back({*row.read_group, std::to_string(row.quality), row.value,
                                    row.name, std::string(1, row.event), format_empirical(*row.bin),
                                    std::to_string(row.bin->observations),
                                    java_format_fixed(row.bin->errors(), 2)});
  }
  report.push_back(std::move(covariate_table));
  return format_report(report);
}

namespace {

const ReportTable& find_table(const std::vector<ReportTable>& tables, const std::string& name,
                              const std::string& source) {
  for (const ReportTable& table : tables) {
    if (table.name == name) return table;
  }
  throw Error(source + ": malformed recalibration table (no " + name + " table)");
}

int column_index(const ReportTable& table, const std::string& name, const std::string& source) {
  const auto it = std::find(table.column_names.begin(), table.column_names.end(), name);
  if (it == table.column_names.end())
    throw Error(source + ": malformed recalibration table (" + table.name + " has no " + name +
                " column)");
  return static_cast<int>(it - table.column_names.begin());
}

double parse_double(const std::string& text, const std::string& source) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0')
    throw Error(source + ": malformed recalibration table (bad number '" + text + "')");
  return value;
}

int parse_int(const std::string& text, const std::string& source) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw Error(source + ": malformed recalibration table (bad integer '" + text + "')");
  return value;
}

// Observations and Count cells: GATK writes whole numbers (sometimes as decimals); a value that
// is not a finite count would be undefined as an integer.
std::int64_t parse_count(const std::string& text, const std::string& source) {
  const double value = parse_double(text, source);
  if (!(value >= 0 && value < 9.2e18))
    throw Error(source + ": malformed recalibration table (bad count '" + text + "')");
  return static_cast<std::int64_t>(value);
}

// An Arguments value the tables' shape depends on, in the range `bqsr` accepts for its option
// (pipeline/bqsr_arguments.cpp; GATK's ContextCovariate refuses contexts outside 1..13).
int parse_argument(const std::vector<std::string>& row, int low, int high,
                   const std::string& source) {
  const int value = parse_int(row[1], source);
  if (value < low || value > high) {
    throw Error(source + ": malformed recalibration table (" + row[0] + " " + row[1] +
                " is outside " + std::to_string(low) + ".." + std::to_string(high) + ")");
  }
  return value;
}

int parse_event(const std::string& text, const std::string& source) {
  for (int e = 0; e < kEventCount; ++e) {
    if (text.size() == 1 && text[0] == kEventNames[e]) return e;
  }
  throw Error(source + ": malformed recalibration table (bad EventType '" + text + "')");
}

}  // namespace

RecalibrationReport parse_recalibration_report(const std::string& text, const std::string& source,
                                               std::uint64_t max_table_bytes) {
  const std::vector<ReportTable> tables = parse_report(text, source);
  RecalibrationReport report;
  CovariateOptions options;
  const ReportTable& arguments = find_table(tables, "Arguments", source);
  if (arguments.column_names.size() < 2) {
    throw Error(source + ": malformed recalibration table (Arguments has " +
                std::to_string(arguments.column_names.size()) + " columns, not 2)");
  }
  for (const auto& row : arguments.rows) {
    if (row[0] == "mismatches_context_size")
      options.mismatches_context_size = parse_argument(row, 1, 13, source);
    if (row[0] == "indels_context_size")
      options.indels_context_size = parse_argument(row, 1, 13, source);
    if (row[0] == "low_quality_tail") options.low_quality_tail = parse_argument(row, 0, 93, source);
    if (row[0] == "maximum_cycle_value")
      options.maximum_cycle_value = parse_argument(row, 1, 100000, source);
    if (row[0] == "quantizing_levels")
      options.quantizing_levels = parse_argument(row, 1, 94, source);
  }
  const ReportTable& quantized = find_table(tables, "Quantized", source);
  report.quantization_counts.assign(kQualCount, 0);
  report.quantized_quals.resize(kQualCount);
  for (int q = 0; q < kQualCount; ++q) report.quantized_quals[static_cast<std::size_t>(q)] = q;
  {
    const int qc = column_index(quantized, "QualityScore", source);
    const int cc = column_index(quantized, "Count", source);
    const int vc = column_index(quantized, "QuantizedScore", source);
    for (const auto& row : quantized.rows) {
      const int q = parse_int(row[static_cast<std::size_t>(qc)], source);
      if (q < 0 || q >= kQualCount) continue;
      report.quantization_counts[static_cast<std::size_t>(q)] =
          parse_count(row[static_cast<std::size_t>(cc)], source);
      // ApplyBQSR looks qualities up by the quantized value: it must be a quality itself.
      const std::string& quantized_text = row[static_cast<std::size_t>(vc)];
      const int quantized = parse_int(quantized_text, source);
      if (quantized < 0 || quantized >= kQualCount)
        throw Error(source + ": malformed recalibration table (quantized quality " +
                    quantized_text + ")");
      report.quantized_quals[static_cast<std::size_t>(q)] = quantized;
    }
  }
  const ReportTable& rg_table = find_table(tables, "RecalTable0", source);
  const ReportTable& quality_table = find_table(tables, "RecalTable1", source);
  const ReportTable& covariate_table = find_table(tables, "RecalTable2", source);
  std::map<std::string, int> rg_index;
  auto rg_of = [&](const std::string& name) {
    auto [it, inserted] = rg_index.emplace(name, static_cast<int>(report.read_groups.size()));
    if (inserted) report.read_groups.push_back(name);
    return it->second;
  };
  for (const auto& row : rg_table.rows)
    rg_of(row[static_cast<std::size_t>(column_index(rg_table, "ReadGroup", source))]);
  // Every bin is held, so a report's shape bounds its memory; refuse one this host cannot hold
  // rather than fail allocating it (a context size of 11 alone takes 38 GB per read group).
  if (max_table_bytes == 0) {
    max_table_bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                      static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  }
  const int read_group_count = static_cast<int>(report.read_groups.size());
  const std::uint64_t table_bytes =
      RecalTables::memory_bytes(read_group_count, options, kEventCount);
  if (table_bytes > max_table_bytes) {
    throw Error(source + ": the recalibration tables need " + std::to_string(table_bytes >> 20) +
                " MiB (read groups " + std::to_string(read_group_count) + ", context sizes " +
                std::to_string(options.mismatches_context_size) + " and " +
                std::to_string(options.indels_context_size) + ", maximum cycle " +
                std::to_string(options.maximum_cycle_value) + "), more than the " +
                std::to_string(max_table_bytes >> 20) + " MiB available");
  }
  report.tables = RecalTables(read_group_count, options, kEventCount);
  auto fill = [&](RecalBin& bin, const ReportTable& table, const std::vector<std::string>& row,
                  double estimated) {
    bin.observations = parse_count(
        row[static_cast<std::size_t>(column_index(table, "Observations", source))], source);
    // A bin's errors are some of its observations (BAQ's fractions of them).
    const std::string& errors =
        row[static_cast<std::size_t>(column_index(table, "Errors", source))];
    const double error_count = parse_double(errors, source);
    if (!(error_count >= 0 && error_count <= static_cast<double>(bin.observations))) {
      throw Error(source + ": malformed recalibration table (" + table.name + " has " + errors +
                  " errors in " + std::to_string(bin.observations) + " observations)");
    }
    bin.scaled_errors = error_count * RecalBin::kMultiplier;
    bin.estimated_quality = estimated;
    bin.present = true;
  };
  for (const auto& row : rg_table.rows) {
    const int rg = rg_of(row[0]);
    const int event = parse_event(
        row[static_cast<std::size_t>(column_index(rg_table, "EventType", source))], source);
    const std::string& reported =
        row[static_cast<std::size_t>(column_index(rg_table, "EstimatedQReported", source))];
    const double estimated = parse_double(reported, source);
    if (!(estimated >= 0 && estimated <= kMaxRecalibratedQ)) {  // a quality, NaN refused too
      throw Error(source + ": malformed recalibration table (EstimatedQReported " + reported +
                  " is not a quality of 0..93)");
    }
    fill(report.tables.read_group(rg, event), rg_table, row, estimated);
  }
  auto known_rg = [&](const std::string& name) {
    const auto it = rg_index.find(name);
    if (it == rg_index.end())
      throw Error(source + ": malformed recalibration table (read group " + name +
                  " missing from RecalTable0)");
    return it->second;
  };
  const int q1 = column_index(quality_table, "QualityScore", source);
  const int e1 = column_index(quality_table, "EventType", source);
  for (const auto& row : quality_table.rows) {
    const int q = parse_int(row[static_cast<std::size_t>(q1)], source);
    if (q < 0 || q >= kQualCount)
      throw Error(source + ": malformed recalibration table (quality " +
                  row[static_cast<std::size_t>(q1)] + ")");
    fill(report.tables.quality(known_rg(row[0]), q,
                               parse_event(row[static_cast<std::size_t>(e1)], source)),
         quality_table, row, q);
  }
  const int q2 = column_index(covariate_table, "QualityScore", source);
  const int v2 = column_index(covariate_table, "CovariateValue", source);
  const int n2 = column_index(covariate_table, "CovariateName", source);
  const int e2 = column_index(covariate_table, "EventType", source);
  for (const auto& row : covariate_table.rows) {
    const int rg = known_rg(row[0]);
    const int q = parse_int(row[static_cast<std::size_t>(q2)], source);
    if (q < 0 || q >= kQualCount)
      throw Error(source + ": malformed recalibration table (quality " +
                  row[static_cast<std::size_t>(q2)] + ")");
    const int event = parse_event(row[static_cast<std::size_t>(e2)], source);
    const std::string& value = row[static_cast<std::size_t>(v2)];
    const std::string& name = row[static_cast<std::size_t>(n2)];
    if (name == "Context") {
      const int key = parse_context(value, context_size_for(options, event));
      if (key < 0)
        throw Error(source + ": malformed recalibration table (context '" + value + "')");
      fill(report.tables.context(rg, q, key, event), covariate_table, row, q);
    } else if (name == "Cycle") {
      const int cycle = parse_int(value, source);
      if (cycle < -options.maximum_cycle_value || cycle > options.maximum_cycle_value)
        throw Error(source + ": malformed recalibration table (cycle " + value + ")");
      fill(report.tables.cycle(rg, q, key_from_cycle(cycle), event), covariate_table, row, q);
    } else {
      throw Error(source + ": unsupported covariate " + name + " in the recalibration table");
    }
  }
  return report;
}

}  // namespace gpp::stages::bqsr
