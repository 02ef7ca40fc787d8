// Picard MarkDuplicates 2.27.5 (Debian picard-tools) as the markdup conformance peer. Where Java
// and Picard are installed it runs, and its fresh output is also compared with the golden stored
// in tests/data/picard_golden/ (so a golden cannot go stale unnoticed); where they are not (a GPU
// host), the golden stands in for it. tests/data/picard_golden/README.md gives the commands.
#pragma once

#include <functional>
#include <string>

namespace gpp::test {

/// What a conformance test compares with ours: the flag table of Picard's output (see
/// flag_table) and its metrics file without the header comments (see metrics_body).
struct PicardVerdict {
  std::string table;    ///< the whole flag table; empty when the verdict is read from a golden
  std::string summary;  ///< table_summary(table), the form the golden stores
  std::string metrics;  ///< metrics_body of Picard's metrics file
};

/// QNAME, FLAG, RNAME and POS of every record of `bam`, in file order (`samtools view | cut -f
/// 1-4`).
std::string flag_table(const std::string& bam);

/// A metrics file without its first five lines (command line and date comments).
std::string metrics_body(const std::string& path);

/// The golden form of a flag table: "# N records, sha256 HEX" (N lines, HEX the SHA-256 of the
/// whole table), then every row whose FLAG has the duplicate bit (0x400) as "ROW\tQNAME\tFLAG\t
/// RNAME\tPOS", ROW counted from 1. Equal summaries mean equal tables.
/// @code
///   table:   "a\t99\tchr1\t10\nb\t1123\tchr1\t10\n"
///   summary: "# 2 records, sha256 <64 hex digits>\n2\tb\t1123\tchr1\t10\n"
/// @endcode
std::string table_summary(const std::string& table);

/// Picard's verdict for the golden `case_name` (files picard_golden/<case_name>.duplicates.tsv.gz
/// and picard_golden/<case_name>.metrics.txt under tests/data). `run_picard` runs Picard and fills
/// `table` and `metrics`; it is called unless Picard is absent or GPP_PICARD=golden. With Picard
/// the fresh verdict must equal the golden; GPP_PICARD=update rewrites the golden instead
/// (make_goldens.sh). Without Picard the golden is read, unless GPP_REQUIRE_PEERS is set and
/// GPP_PICARD is not `golden`: then Picard's absence is a failure. Fatal failures are reported
/// through GoogleTest (call it inside ASSERT_NO_FATAL_FAILURE).
void picard_verdict(const std::string& case_name,
                    const std::function<void(PicardVerdict&)>& run_picard, PicardVerdict& verdict);

/// Expects our flag table and metrics body to equal Picard's: the whole table when Picard ran,
/// its summary when the verdict is a golden.
void expect_same_verdict(const PicardVerdict& picard, const std::string& our_table,
                         const std::string& our_metrics, const std::string& label);

}  // namespace gpp::test
