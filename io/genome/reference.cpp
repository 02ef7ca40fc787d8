#include "io/genome/reference.hpp"

#include <htslib/faidx.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "core/error.hpp"
#include "io/genome/fasta_index_line.hpp"
#include "io/genome/plain_fasta.hpp"

namespace gpp::io {

namespace {
void destroy_faidx(faidx_t* fai) {
  if (fai != nullptr) fai_destroy(fai);
}

// HTSlib's faidx trusts the index it loads (a line of 0 bases per line divides by zero in
// faidx_fetch_seq64): every line of an existing index must be one it reads safely.
void check_index_lines(const std::string& index_path) {
  std::ifstream in(index_path);
  if (!in) return;  // none yet: HTSlib builds it
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!parse_fasta_index_line(line)) {
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
