// A BGZF file (SAM spec 4.1) inflated by io's BgzfReader twice: with libdeflate on the CPU
// threads, and through an io::InflateOffload onto kernels' BlockInflater on the CPU (the same
// block decoder the GPU runs, one lane). Both must agree: the same bytes, or both refuse.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "io/bam/bgzf_reader.hpp"
#include "io/bam/byte_buffer.hpp"
#include "kernels/bgzf/bgzf_inflate.hpp"
#include "pipeline/gpu_session.hpp"

namespace {

// The whole file's contents, or nullopt when the reader refuses it.
std::optional<std::string> inflate_file(const std::string& path, gpp::io::InflateOffload offload) {
  try {
    gpp::io::detail::BgzfReader reader(path, 0, std::move(offload));
    gpp::io::detail::ByteBuffer out;
    while (reader.read(out, 1 << 16) > 0) {
    }
    return std::string(reinterpret_cast<const char*>(out.data()), out.size());
  } catch (const gpp::Error&) {
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static gpp::fuzz::ScratchFile file(".gz");
  static gpp::kernels::BlockInflater inflater(gpp::kernels::Backend::kCpu);
  const std::string& path = file.write(gpp::fuzz::as_text(data, size));
  const auto with_libdeflate = inflate_file(path, {});
  const auto with_block_inflater = inflate_file(path, gpp::pipeline::reader_inflater(inflater));
  if (with_libdeflate.has_value() != with_block_inflater.has_value() ||
      (with_libdeflate && *with_libdeflate != *with_block_inflater)) {
    std::fprintf(stderr, "BgzfReader: libdeflate %s, BlockInflater %s\n",
                 with_libdeflate ? "inflated the file" : "refused the file",
                 with_block_inflater ? "inflated it" : "refused it");
    std::abort();
  }
  return 0;
}
