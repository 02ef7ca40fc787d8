// -L values (io/genome/intervals.hpp): the first byte picks the form, the rest is its text: a
// region string, or the contents of a .bed, .interval_list or .list file. Parsed against a
// dictionary with a short contig, one of the largest length BAM allows and a name with a colon.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "io/genome/intervals.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static gpp::fuzz::ScratchFile bed(".bed");
  static gpp::fuzz::ScratchFile interval_list(".interval_list");
  static gpp::fuzz::ScratchFile list(".list");
  static const std::vector<gpp::io::Contig> dictionary = {
      {"chr1", 1000}, {"chr2", 2147483647}, {"HLA-A*01:01", 3503}};
  const std::string text(gpp::fuzz::as_text(data + 1, size - 1));
  std::string spec;
  switch (data[0] % 4) {
    case 0:
      // A region string; one naming a path would read whatever file is there.
      if (text.find('/') != std::string::npos || text.find('\0') != std::string::npos) return 0;
      spec = text;
      break;
    case 1:
      spec = bed.write(text);
      break;
    case 2:
      spec = interval_list.write(text);
      break;
    default:
      spec = list.write(text);
      break;
  }
  gpp::fuzz::expect_parsed_or_refused([&] { gpp::io::parse_intervals({spec}, dictionary); });
  return 0;
}
