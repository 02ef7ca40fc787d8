// The pairs table of `gpu-pipeline sw` (pipeline/sw_pairs.hpp), then each pair aligned on the CPU
// with its model, as the command does (small tables only, so each input takes milliseconds).
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"
#include "pipeline/sw_pairs.hpp"
#include "stages/call/haplotype_cigar.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(gpp::fuzz::as_text(data, size))};
  gpp::fuzz::expect_parsed_or_refused([&] {
    const auto rows = gpp::pipeline::parse_sw_pairs(in, "fuzz.tsv");
    gpp::kernels::SmithWaterman aligner(gpp::kernels::Backend::kCpu);
    for (const auto& row : rows) {
      if (row.ref.size() * row.alt.size() > (1u << 16)) continue;
      gpp::kernels::SequencePairs pairs;
      pairs.add(row.ref, row.alt);
      const auto& model = row.model;
      if (model.haplotype_to_reference) {
        gpp::stages::call::calculate_cigars(pairs, aligner, model.parameters);
      } else {
        aligner.align(pairs, model.parameters, model.strategy);
      }
    }
  });
  return 0;
}
