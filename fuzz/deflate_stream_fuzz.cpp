// One raw DEFLATE stream (RFC 1951), as a BGZF block carries it, inflated by kernels'
// BlockInflater on the CPU (the GPU's block decoder run by one lane) and by libdeflate. The first
// three bytes give the expected size (at most 64 KiB, as in a BGZF footer); the rest is the
// stream. What we inflate, libdeflate inflates to the same bytes. What we refuse, libdeflate or
// zlib refuses too: libdeflate accepts some streams RFC 1951 forbids (zlib: "invalid
// literal/length code"), and refusing those is right.
#include <libdeflate.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/bgzf/bgzf_inflate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  using gpp::kernels::BlockInflater;
  static BlockInflater inflater(gpp::kernels::Backend::kCpu);
  static const std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)>
      reference(libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  const std::uint32_t expected =
      (data[0] | data[1] << 8 | (data[2] & 1u) << 16) % (BlockInflater::kMaxBlockBytes + 1);
  // The stream in memory of its own, so ASan sees a read past its end.
  const std::vector<std::uint8_t> stream(data + 3, data + size);
  const std::uint64_t in_offset = 0, out_offset = 0;
  const auto in_size = static_cast<std::uint32_t>(stream.size());
  // One spare byte: an empty block still gets memory (BlockInflater drops parts sent to null).
  std::vector<std::uint8_t> ours(expected + 1), theirs(expected + 1);
  const bool ours_ok = inflater.inflate({.data = stream.data(),
                                         .in_offsets = &in_offset,
                                         .in_sizes = &in_size,
                                         .count = 1,
                                         .out = ours.data(),
                                         .out_offsets = &out_offset,
                                         .out_sizes = &expected}) == 1;
  const bool theirs_ok =
      libdeflate_deflate_decompress(reference.get(), stream.data(), stream.size(), theirs.data(),
                                    expected, nullptr) == LIBDEFLATE_SUCCESS;
  ours.pop_back();
  theirs.pop_back();
  const auto zlib_accepts = [&] {
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) return false;
    std::vector<std::uint8_t> out(expected + 1);
    z.next_in = const_cast<Bytef*>(stream.data());
    z.avail_in = static_cast<uInt>(stream.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int status = inflate(&z, Z_FINISH);
    const bool ok = status == Z_STREAM_END && z.total_out == expected;
    inflateEnd(&z);
    return ok;
  };
  const bool disagree = ours_ok ? (!theirs_ok || ours != theirs) : (theirs_ok && zlib_accepts());
  if (disagree) {
    std::fprintf(stderr, "inflate of %zu stream bytes to %u: BlockInflater %s, libdeflate %s\n",
                 stream.size(), expected, ours_ok ? "ok" : "refused", theirs_ok ? "ok" : "refused");
    std::abort();
  }
  return 0;
}
