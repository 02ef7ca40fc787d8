#include "io/text/text_input.hpp"

#include <htslib/bgzf.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/error.hpp"
#include "io/detail/bgzf_end.hpp"

namespace gpp::io {

std::string read_text_file(const std::string& path) {
  // HTSlib's BGZF reader also inflates plain gzip and passes uncompressed files through.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path + ": no such file");
  std::unique_ptr<BGZF, int (*)(BGZF*)> file(bgzf_open(path.c_str(), "r"), bgzf_close);
  if (!file) throw Error(path + ": cannot open for reading (" + std::strerror(errno) + ")");
  detail::require_bgzf_end_marker(file.get(), path);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = bgzf_read(file.get(), buffer, sizeof buffer);
    if (n < 0) throw Error(path + ": cannot read (corrupt compressed data?)");
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace gpp::io
