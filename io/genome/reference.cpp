#include "io/genome/reference.hpp"

#include <htslib/faidx.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "io/genome/fasta_index_line.hpp"
#include "io/genome/plain_fasta.hpp"

namespace gpp::io {

namespace {
void destroy_faidx(faidx_t* fai) {
  if (fai != nullptr) fai_destroy(fai);
}

// HTSlib's faidx trusts the index it loads: a line of 0 bases per line divides by zero in
// faidx_fetch_seq64. Each line of an existing FASTA index must be NAME, LENGTH, OFFSET, LINEBASES,
// LINEWIDTH (and QUALOFFSET for FASTQ), with LINEWIDTH >= LINEBASES > 0 unless LENGTH is 0
// (samtools faidx's format).
void check_index_lines(const std::string& index_path) {
  std::ifstream in(index_path);
  if (!in) return;  // none yet: HTSlib builds it
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::vector<std::string_view> fields = fasta_index_fields(line);
    std::int64_t value[5] = {};
    bool numbers = fields.size() == 5 || fields.size() == 6;
    for (std::size_t k = 0; numbers && k + 1 < fields.size(); ++k) {
      const std::string_view f = fields[k + 1];
      const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), value[k]);
      numbers = ec == std::errc() && end == f.data() + f.size() && value[k] >= 0;
    }
    // HTSlib keeps bases and bytes per line as int: larger values wrap (to 0: a division by 0).
    constexpr std::int64_t kIntMax = std::numeric_limits<std::int32_t>::max();
    const bool lines_ok = value[2] <= kIntMax && value[3] <= kIntMax &&
                          (value[0] == 0 || (value[2] > 0 && value[3] >= value[2]));
    // HTSlib reads the line as C text: a NUL byte in it hides the fields after it; and its name
    // ends at the first white space of any kind (a vertical tab shifts every field after it).
    const bool text_ok = line.find('\0') == std::string::npos &&
                         std::none_of(fields[0].begin(), fields[0].end(), [](char c) {
                           return std::isspace(static_cast<unsigned char>(c)) != 0;
                         });
    if (!numbers || fields[0].empty() || !lines_ok || !text_ok) {
      throw Error(index_path + ": line " + std::to_string(number) +
                  " is not a FASTA index line (name, length, offset, bases per line, bytes per "
                  "line; `samtools faidx` rebuilds the index)");
    }
  }
}
}  // namespace

Reference::Reference(const std::string& path) : path_(path), fai_(nullptr, destroy_faidx) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path + ": no such file");
  check_index_lines(path + ".fai");
  fai_.reset(fai_load3(path.c_str(), nullptr, nullptr, FAI_CREATE));
  if (!fai_) {
    throw Error(path +
                ": not a readable FASTA (plain, or bgzip with .fai and .gzi; "
                "`samtools faidx` indexes it)");
  }
  plain_ = PlainFasta::open(path);
  const int n = faidx_nseq(fai_.get());
  contigs_.reserve(n);
  for (int i = 0; i < n; ++i) {
    const char* name = faidx_iseq(fai_.get(), i);
    contigs_.push_back({name, static_cast<std::int64_t>(faidx_seq_len(fai_.get(), name))});
  }
}

Reference::~Reference() = default;
Reference::Reference(Reference&&) noexcept = default;
Reference& Reference::operator=(Reference&&) noexcept = default;

bool Reference::has_contig(const std::string& name) const {
  return faidx_has_seq(fai_.get(), name.c_str()) != 0;
}

std::int64_t Reference::contig_length(const std::string& name) const {
  return has_contig(name) ? static_cast<std::int64_t>(faidx_seq_len(fai_.get(), name.c_str())) : -1;
}

std::string Reference::fetch(const std::string& contig, std::int64_t start,
                             std::int64_t end) const {
  const std::int64_t length = contig_length(contig);
  if (length < 0) throw Error(path_ + ": no contig '" + contig + "'");
  start = std::max<std::int64_t>(start, 0);
  end = std::min(end, length);
  if (end <= start) return {};
  if (plain_) {
    if (std::optional<std::string> bases = plain_->fetch(contig, start, end)) return *bases;
  }
  hts_pos_t got = 0;
  char* bases = faidx_fetch_seq64(fai_.get(), contig.c_str(), start, end - 1, &got);
  if (bases == nullptr || got < 0) {
    std::free(bases);
    throw Error(path_ + ": cannot read " + contig + ":" + std::to_string(start + 1) + "-" +
                std::to_string(end));
  }
  std::string result(bases, static_cast<std::size_t>(got));
  std::free(bases);
  return result;
}

void Reference::check_matches(const Header& header, const std::string& alignment_path) const {
  for (const Contig& contig : header.contigs()) {
    const std::int64_t length = contig_length(contig.name);
    if (length < 0) {
      throw Error(path_ + ": the reference has no contig '" + contig.name +
                  "' named in the header of " + alignment_path);
    }
    if (length != contig.length) {
      throw Error(path_ + ": contig '" + contig.name + "' is " + std::to_string(length) +
                  " bp here but " + std::to_string(contig.length) + " bp in the header of " +
                  alignment_path);
    }
  }
}

}  // namespace gpp::io
