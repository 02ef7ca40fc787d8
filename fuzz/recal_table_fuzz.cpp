// A GATK recalibration table (GATKReport v1.1, stages/bqsr/recal_report.hpp) as ApplyBQSR and
// `call --bqsr-recal-file` read it; what parses is also written back out.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "stages/bqsr/recal_report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(gpp::fuzz::as_text(data, size));
  gpp::fuzz::expect_parsed_or_refused([&] {
    // 1 GiB of tables at most: libFuzzer's memory limit is 2 GiB.
    const auto report =
        gpp::stages::bqsr::parse_recalibration_report(text, "fuzz.table", std::uint64_t{1} << 30);
    (void)report;
  });
  return 0;
}
