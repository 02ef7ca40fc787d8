#include "io/genome/known_sites.hpp"

#include <htslib/kseq.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

#include "core/error.hpp"
#include "io/bam/hts_handles.hpp"
#include "io/genome/variant_file.hpp"

namespace gpp::io {

struct KnownSites::State : detail::VariantFile {
  // Unindexed files: every record, per contig, sorted by start; longest span per contig.
  bool loaded = false;
  std::map<std::string, std::vector<VariantSpan>, std::less<>> spans;
  std::map<std::string, std::int64_t, std::less<>> longest;
};

namespace {

constexpr std::int64_t kWholeContig = std::numeric_limits<std::int32_t>::max();

// Parses CHROM, POS, REF and INFO END= of a VCF data line. Text VCF is read by hand rather than
// through HTSlib's VCF parser because real known-sites files (GATK's own test resources among
// them) carry header quirks, such as a trailing tab on #CHROM, that HTSlib rejects and htsjdk
// accepts. Returns false when the line is malformed.
bool parse_vcf_line(std::string_view line, std::string_view& chrom, VariantSpan& span) {
  std::string_view fields[8];
  const std::size_t n = detail::split_vcf_fields(line, fields);
  if (n < 5 || fields[3].empty()) return false;
  const std::optional<std::int64_t> position = detail::parse_vcf_position(fields[1]);
  if (!position) return false;
  const std::int64_t pos = *position;
  chrom = fields[0];
  span = {pos - 1, pos - 1 + static_cast<std::int64_t>(fields[3].size())};
  if (n == 8) {  // END= in INFO overrides the REF length, as in htsjdk's VariantContext.getEnd()
    const std::string_view info = fields[7];
    std::size_t at = info.rfind("END=", 0) == 0 ? 0 : info.find(";END=");
    if (at != std::string_view::npos) {
      at += at == 0 ? 4 : 5;
      std::int64_t end = 0;
      const auto [p, e] = std::from_chars(info.data() + at, info.data() + info.size(), end);
      (void)p;
      if (e == std::errc() && end >= pos) span.end = end;
    }
  }
  return true;
}

// Contig bases whose records one task reads (KnownSites::contig_sites).
constexpr std::int64_t kPieceBases = std::int64_t{4} << 20;

// The records of tabix contig `tid` of `file` that overlap [start, end) and start at `first` or
// later (pieces side by side read each record once), in file order.
std::vector<VariantSpan> read_text_records(htsFile* file, tbx_t* tabix, int tid, std::int64_t start,
                                           std::int64_t end, std::int64_t first,
                                           const std::string& path, const std::string& contig) {
  std::vector<VariantSpan> result;
  hts::Iterator itr(tbx_itr_queryi(tabix, tid, start, end));
  if (!itr) throw Error(path + ": cannot query " + contig);
  kstring_t line = KS_INITIALIZE;
  int status = 0;
  while ((status = tbx_itr_next(file, tabix, itr.get(), &line)) >= 0) {
    std::string_view chrom;
    VariantSpan span;
    if (!parse_vcf_line({line.s, line.l}, chrom, span)) {
      ks_free(&line);
      throw Error(path + ": malformed VCF record in " + contig);
    }
    if (span.start >= first) result.push_back(span);
  }
  ks_free(&line);
  if (status < -1) throw Error(path + ": malformed or truncated data in " + contig);
  return result;
}

}  // namespace

KnownSites::KnownSites(const std::string& path) : path_(path), state_(std::make_unique<State>()) {
  static_cast<detail::VariantFile&>(*state_) = detail::open_variant_file(path);
}

KnownSites::~KnownSites() = default;
KnownSites::KnownSites(KnownSites&&) noexcept = default;
KnownSites& KnownSites::operator=(KnownSites&&) noexcept = default;

bool KnownSites::indexed() const { return state_->indexed(); }

std::vector<VariantSpan> KnownSites::query(const std::string& contig, std::int64_t start,
                                           std::int64_t end) {
  if (indexed()) return query_index(contig, start, end);
  load_all();
  return query_loaded(contig, start, end);
}

std::vector<VariantSpan> KnownSites::query_index(const std::string& contig, std::int64_t start,
                                                 std::int64_t end) {
  State& s = *state_;
  std::vector<VariantSpan> result;
  if (!s.is_bcf) {
    const int tid = tbx_name2id(s.tabix.get(), contig.c_str());
    if (tid < 0) return result;
    return read_text_records(s.file.get(), s.tabix.get(), tid, start, end,
                             std::numeric_limits<std::int64_t>::min(), path_, contig);
  }
  const int rid = bcf_hdr_name2id(s.header.get(), contig.c_str());
  if (rid < 0) return result;
  hts::Iterator itr(bcf_itr_queryi(s.bcf_index.get(), rid, start, end));
  if (!itr) throw Error(path_ + ": cannot query " + contig);
  hts::VcfRecord record(bcf_init());
  int status = 0;
  while ((status = bcf_itr_next(s.file.get(), itr.get(), record.get())) >= 0) {
    result.push_back({record->pos, record->pos + record->rlen});
  }
  if (status < -1) throw Error(path_ + ": malformed or truncated data in " + contig);
  return result;
}

void KnownSites::load_all() {
  State& s = *state_;
  if (s.loaded) return;
  auto add = [&](std::string_view chrom, const VariantSpan& span) {
    auto it = s.spans.find(chrom);
    if (it == s.spans.end())
      it = s.spans.emplace(std::string(chrom), std::vector<VariantSpan>{}).first;
    it->second.push_back(span);
    std::int64_t& longest = s.longest[it->first];
    longest = std::max(longest, span.end - span.start);
  };
  if (s.is_bcf) {
    hts::VcfRecord record(bcf_init());
    int status = 0;
    while ((status = bcf_read(s.file.get(), s.header.get(), record.get())) == 0) {
      add(bcf_hdr_id2name(s.header.get(), record->rid), {record->pos, record->pos + record->rlen});
    }
    if (status < -1) throw Error(path_ + ": malformed BCF record");
  } else {
    detail::for_each_vcf_line(s.file.get(), path_, [&](std::string_view line) {
      std::string_view chrom;
      VariantSpan span;
      if (!parse_vcf_line(line, chrom, span)) return false;
      add(chrom, span);
      return true;
    });
  }
  for (auto& [name, spans] : s.spans) {
    std::stable_sort(spans.begin(), spans.end(),
                     [](const VariantSpan& a, const VariantSpan& b) { return a.start < b.start; });
  }
  s.loaded = true;
}

std::vector<VariantSpan> KnownSites::query_loaded(const std::string& contig, std::int64_t start,
                                                  std::int64_t end) const {
  const State& s = *state_;
  std::vector<VariantSpan> result;
  const auto it = s.spans.find(contig);
  if (it == s.spans.end()) return result;
  const std::vector<VariantSpan>& spans = it->second;
  // Records starting before start - longest cannot reach start.
  const std::int64_t from = start - s.longest.at(contig);
  auto first = std::lower_bound(spans.begin(), spans.end(), from,
                                [](const VariantSpan& v, std::int64_t x) { return v.start < x; });
  for (; first != spans.end() && first->start < end; ++first) {
    if (first->end > start) result.push_back(*first);
  }
  return result;
}

std::vector<VariantSpan> KnownSites::contig_sites(const std::string& contig, std::int64_t length) {
  State& s = *state_;
  const int tid = s.tabix ? tbx_name2id(s.tabix.get(), contig.c_str()) : -1;
  if (tid < 0 || length <= kPieceBases) return query(contig, 0, kWholeContig);
  // Pieces of the contig by record start, and one for records past its end; the index is shared
  // (read only), the file handles are the pieces' own.
  const auto pieces = static_cast<std::size_t>((length + kPieceBases - 1) / kPieceBases) + 1;
  std::vector<std::vector<VariantSpan>> found(pieces);
  oneapi::tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t k) {
    const std::int64_t start = std::min(static_cast<std::int64_t>(k) * kPieceBases, length);
    const std::int64_t end = k + 1 == pieces ? kWholeContig : std::min(length, start + kPieceBases);
    if (start >= end) return;
    hts::File file(hts_open(path_.c_str(), "r"));
    if (!file) throw Error(path_ + ": cannot open (" + std::strerror(errno) + ")");
    found[k] = read_text_records(file.get(), s.tabix.get(), tid, start, end, start, path_, contig);
  });
  std::size_t total = 0;
  for (const auto& piece : found) total += piece.size();
  std::vector<VariantSpan> result;
  result.reserve(total);
  for (const auto& piece : found) result.insert(result.end(), piece.begin(), piece.end());
  return result;
}

bool KnownSites::has_record(int id) {
  State& s = *state_;
  if (id < 0) return false;
  hts::Iterator itr(s.is_bcf ? bcf_itr_queryi(s.bcf_index.get(), id, 0, HTS_POS_MAX)
                             : tbx_itr_queryi(s.tabix.get(), id, 0, HTS_POS_MAX));
  if (!itr) return false;
  if (s.is_bcf) {
    hts::VcfRecord record(bcf_init());
    return bcf_itr_next(s.file.get(), itr.get(), record.get()) >= 0;
  }
  kstring_t line = KS_INITIALIZE;
  const bool found = tbx_itr_next(s.file.get(), s.tabix.get(), itr.get(), &line) >= 0;
  ks_free(&line);
  return found;
}

std::vector<std::string> KnownSites::contigs_with_sites() {
  State& s = *state_;
  std::vector<std::string> names;
  int n = 0;
  const char** listed = nullptr;
  if (s.bcf_index) {
    listed = bcf_index_seqnames(s.bcf_index.get(), s.header.get(), &n);
  } else if (s.tabix) {
    listed = tbx_seqnames(s.tabix.get(), &n);
  } else {
    if (!s.loaded) load_all();
    for (const auto& [contig, spans] : s.spans) names.push_back(contig);
    return names;
  }
  const hts_idx_t* index = s.bcf_index ? s.bcf_index.get() : s.tabix.get()->idx;
  for (int i = 0; i < n; ++i) {
    // A CSI index lists every contig of the header; its statistics say which hold records.
    const int id = s.bcf_index ? bcf_hdr_name2id(s.header.get(), listed[i])
                               : tbx_name2id(s.tabix.get(), listed[i]);
    std::uint64_t with_position = 0, without = 0;
    const bool counted = id >= 0 && hts_idx_get_stat(index, id, &with_position, &without) == 0;
    if (counted ? with_position + without > 0 : has_record(id)) names.emplace_back(listed[i]);
  }
  std::free(listed);  // the array only: the names belong to the index
  return names;
}

}  // namespace gpp::io
