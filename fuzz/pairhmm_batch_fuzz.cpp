// The PairHMM batch text format (io/text/pairhmm_batch_file.hpp) into a kernels::PairHmmBatch,
// then scored by the CPU engine, as `gpu-pipeline pairhmm` does (small batches only, so each
// input takes milliseconds).
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "io/text/pairhmm_batch_file.hpp"
#include "kernels/pairhmm/pairhmm.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static gpp::kernels::PairHmm engine(gpp::kernels::Backend::kCpu);
  const std::string text(gpp::fuzz::as_text(data, size));
  gpp::fuzz::expect_parsed_or_refused([&] {
    gpp::kernels::PairHmmBatch batch;
    gpp::io::BatchSink<gpp::kernels::PairHmmBatch> sink(batch);
    gpp::io::parse_pairhmm_batch(text, "fuzz.in", sink);
    const auto view = batch.view();
    if (view.cell_count() <= (1u << 20)) engine.compute(view);
  });
  return 0;
}
