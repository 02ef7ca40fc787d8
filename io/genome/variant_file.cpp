#include "io/genome/variant_file.hpp"

#include <htslib/kseq.h>
#include <htslib/kstring.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>

#include "core/error.hpp"
#include "io/detail/bgzf_end.hpp"

namespace gpp::io::detail {

VariantFile open_variant_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path + ": no such file");
  VariantFile opened;
  opened.file.reset(hts_open(path.c_str(), "r"));
  if (!opened.file) {
    // HTSlib reports bytes of no format it knows as ENOEXEC ("Exec format error").
    throw Error(path + (errno == ENOEXEC
                            ? std::string(": not a VCF or BCF file")
                            : ": cannot open (" + std::string(std::strerror(errno)) + ")"));
  }
  const htsFormat* format = hts_get_format(opened.file.get());
  if (format->format != vcf && format->format != bcf) throw Error(path + ": not a VCF or BCF file");
  if (format->compression == bgzf) {
    require_bgzf_end_marker(hts_get_bgzfp(opened.file.get()), path);
  }
  opened.is_bcf = format->format == bcf;
  if (opened.is_bcf) {
    opened.header.reset(bcf_hdr_read(opened.file.get()));
    if (!opened.header) throw Error(path + ": cannot read the BCF header");
    opened.bcf_index.reset(bcf_index_load(path.c_str()));
  } else if (format->compression == bgzf) {
    opened.tabix.reset(tbx_index_load3(path.c_str(), nullptr, HTS_IDX_SILENT_FAIL));
  }
  return opened;
}

void for_each_vcf_line(htsFile* file, const std::string& path,
                       const std::function<bool(std::string_view line)>& record) {
  kstring_t line = KS_INITIALIZE;
  const std::unique_ptr<kstring_t, void (*)(kstring_t*)> owned(&line,
                                                               [](kstring_t* k) { ks_free(k); });
  int status = 0;
  std::size_t line_number = 0;
  while ((status = hts_getline(file, KS_SEP_LINE, &line)) >= 0) {
    ++line_number;
    if (line.l == 0 || line.s[0] == '#') continue;
    if (!record({line.s, line.l})) {
      throw Error(path + ": malformed VCF record at line " + std::to_string(line_number));
    }
  }
  if (status < -1) throw Error(path + ": truncated or corrupt VCF");
}

std::size_t split_vcf_fields(std::string_view line, std::span<std::string_view> fields) {
  std::size_t n = 0;
  std::size_t from = 0;
  while (n < fields.size()) {
    const std::size_t tab = line.find('\t', from);
    fields[n++] =
        line.substr(from, tab == std::string_view::npos ? std::string_view::npos : tab - from);
    if (tab == std::string_view::npos) break;
    from = tab + 1;
  }
  return n;
}

std::optional<std::int64_t> parse_vcf_position(std::string_view text) {
  std::int64_t pos = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), pos);
  // A larger one is malformed for htsjdk (and POS - 1 + len(REF) stays far from overflowing).
  if (ec != std::errc() || ptr != text.data() + text.size() || pos < 1 ||
      pos > std::numeric_limits<std::int32_t>::max())
    return std::nullopt;
  return pos;
}

}  // namespace gpp::io::detail
