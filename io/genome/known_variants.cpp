#include "io/genome/known_variants.hpp"

#include <htslib/bgzf.h>
#include <htslib/kseq.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string_view>

#include "core/error.hpp"
#include "io/genome/variant_file.hpp"

namespace gpp::io {

namespace {

std::string upper_case(std::string_view bases) {
  std::string out(bases);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

/// A symbolic allele (<DEL>, a breakend) keeps its text; bases are upper-cased as htsjdk's Allele.
std::string allele_text(std::string_view allele) {
  const bool symbolic = allele.find_first_of("<>[]") != std::string_view::npos;
  return symbolic ? std::string(allele) : upper_case(allele);
}

/// A text VCF line's POS and its "ID\tREF\tALT\tQUAL\tFILTER" (QUAL and FILTER when present).
bool parse_line(std::string_view line, std::string_view& chrom, std::int64_t& position,
                std::string_view& fields) {
  std::string_view parts[7];
  const std::size_t n = detail::split_vcf_fields(line, parts);
  if (n < 5 || parts[3].empty() || parts[4].empty()) return false;
  const std::optional<std::int64_t> pos = detail::parse_vcf_position(parts[1]);
  if (!pos) return false;
  chrom = parts[0];
  position = *pos - 1;
  const char* last_end = parts[n - 1].data() + parts[n - 1].size();
  fields = {parts[2].data(), static_cast<std::size_t>(last_end - parts[2].data())};
  return true;
}

}  // namespace

struct KnownVariants::State : detail::VariantFile {
  int pass_filter = -1;  ///< BCF: the header's id of PASS
  /// A file without an index: every record, per contig, ordered by start.
  std::map<std::string, KnownVariantWindow, std::less<>> loaded;
};

void KnownVariantWindow::add(std::int64_t position, std::string_view fields) {
  positions_.push_back(position);
  text_ += fields;
  offsets_.push_back(text_.size());
}

KnownVariantWindow KnownVariantWindow::slice(std::int64_t start, std::int64_t end) const {
  KnownVariantWindow out;
  out.start_ = start;
  out.end_ = end;
  const auto first = std::lower_bound(positions_.begin(), positions_.end(), start);
  const auto last = std::lower_bound(first, positions_.end(), end);
  for (auto it = first; it != last; ++it) {
    const auto i = static_cast<std::size_t>(it - positions_.begin());
    out.add(*it, std::string_view(text_).substr(offsets_[i], offsets_[i + 1] - offsets_[i]));
  }
  return out;
}

std::vector<KnownVariant> KnownVariantWindow::starting_at(std::int64_t position) const {
  const auto [first, last] = std::equal_range(positions_.begin(), positions_.end(), position);
  return parsed(static_cast<std::size_t>(first - positions_.begin()),
                static_cast<std::size_t>(last - positions_.begin()));
}

std::vector<KnownVariant> KnownVariantWindow::records() const {
  return parsed(0, positions_.size());
}

std::vector<KnownVariant> KnownVariantWindow::parsed(std::size_t first, std::size_t last) const {
  std::vector<KnownVariant> records;
  records.reserve(last - first);
  for (std::size_t i = first; i < last; ++i) {
    const std::int64_t position = positions_[i];
    std::string_view parts[5];
    const std::size_t n = detail::split_vcf_fields(
        std::string_view(text_).substr(offsets_[i], offsets_[i + 1] - offsets_[i]), parts);
    KnownVariant record;
    record.position = position;
    record.id = std::string(parts[0]);
    record.alleles.push_back(allele_text(parts[1]));
    if (parts[2] != ".") {
      for (std::size_t from = 0;;) {
        const std::size_t comma = parts[2].find(',', from);
        record.alleles.push_back(allele_text(parts[2].substr(from, comma - from)));
        if (comma == std::string_view::npos) break;
        from = comma + 1;
      }
    }
    record.filtered = n == 5 && parts[4] != "PASS" && parts[4] != ".";
    records.push_back(std::move(record));
  }
  return records;
}

namespace {

/// The window's text of a BCF record, as a text line would give it.
std::string bcf_fields(bcf1_t* record, int pass_filter) {
  std::string fields = record->d.id;
  fields += '\t';
  fields += record->d.allele[0];
  fields += '\t';
  if (record->n_allele < 2) fields += '.';
  for (int a = 1; a < record->n_allele; ++a) {
    if (a > 1) fields += ',';
    fields += record->d.allele[a];
  }
  fields += "\t.\t";
  const bool passed =
      record->d.n_flt == 0 || (record->d.n_flt == 1 && record->d.flt[0] == pass_filter);
  fields += record->d.n_flt == 0 ? "." : passed ? "PASS" : "FAIL";
  return fields;
}

}  // namespace

KnownVariants::KnownVariants(const std::string& path)
    : path_(path), state_(std::make_unique<State>()) {
  State& s = *state_;
  static_cast<detail::VariantFile&>(s) = detail::open_variant_file(path);
  if (s.is_bcf) s.pass_filter = bcf_hdr_id2int(s.header.get(), BCF_DT_ID, "PASS");
  if (s.indexed()) return;
  // Without an index every record is read now, kept per contig in start order.
  const auto add = [&](std::string_view chrom, std::int64_t position, std::string_view fields) {
    auto it = s.loaded.find(chrom);
    if (it == s.loaded.end()) it = s.loaded.emplace(std::string(chrom), KnownVariantWindow{}).first;
    it->second.add(position, fields);
  };
  if (s.is_bcf) {
    hts::VcfRecord record(bcf_init());
    int status = 0;
    while ((status = bcf_read(s.file.get(), s.header.get(), record.get())) == 0) {
      bcf_unpack(record.get(), BCF_UN_STR | BCF_UN_FLT);
      add(bcf_hdr_id2name(s.header.get(), record->rid), record->pos,
          bcf_fields(record.get(), s.pass_filter));
    }
    if (status < -1) throw Error(path_ + ": malformed BCF record");
  } else {
    detail::for_each_vcf_line(s.file.get(), path_, [&](std::string_view line) {
      std::string_view chrom, fields;
      std::int64_t position = 0;
      if (!parse_line(line, chrom, position, fields)) return false;
      add(chrom, position, fields);
      return true;
    });
  }
  for (auto& entry : s.loaded) {
    KnownVariantWindow& window = entry.second;
    if (std::is_sorted(window.positions_.begin(), window.positions_.end())) continue;
    std::vector<std::size_t> order(window.positions_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return window.positions_[a] < window.positions_[b];
    });
    KnownVariantWindow sorted;
    for (const std::size_t i : order) {
      sorted.add(window.positions_[i],
                 std::string_view(window.text_)
                     .substr(window.offsets_[i], window.offsets_[i + 1] - window.offsets_[i]));
    }
    window = std::move(sorted);
  }
}

KnownVariants::~KnownVariants() = default;
KnownVariants::KnownVariants(KnownVariants&&) noexcept = default;
KnownVariants& KnownVariants::operator=(KnownVariants&&) noexcept = default;

KnownVariantWindow KnownVariants::window(const std::string& contig, std::int64_t start,
                                         std::int64_t end) const {
  const State& s = *state_;
  if (!s.indexed()) {
    const auto it = s.loaded.find(contig);
    if (it != s.loaded.end()) return it->second.slice(start, end);
    KnownVariantWindow empty;
    empty.start_ = start;
    empty.end_ = end;
    return empty;
  }
  KnownVariantWindow window;
  window.start_ = start;
  window.end_ = end;
  const int id = s.is_bcf ? bcf_hdr_name2id(s.header.get(), contig.c_str())
                          : tbx_name2id(s.tabix.get(), contig.c_str());
  if (id < 0 || start >= end) return window;
  // A handle of this read's own; the index is shared (read only).
  hts::File file(hts_open(path_.c_str(), "r"));
  if (!file) throw Error(path_ + ": cannot open (" + std::strerror(errno) + ")");
  hts::Iterator itr(s.is_bcf ? bcf_itr_queryi(s.bcf_index.get(), id, start, end)
                             : tbx_itr_queryi(s.tabix.get(), id, start, end));
  if (!itr) throw Error(path_ + ": cannot query " + contig);
  int status = 0;
  if (s.is_bcf) {
    hts::VcfRecord record(bcf_init());
    while ((status = bcf_itr_next(file.get(), itr.get(), record.get())) >= 0) {
      if (record->pos < start) continue;  // overlaps the window, starts before it
      bcf_unpack(record.get(), BCF_UN_STR | BCF_UN_FLT);
      window.add(record->pos, bcf_fields(record.get(), s.pass_filter));
    }
  } else if (itr->n_off > 0) {
    // The lines from the index's first chunk on, read here rather than through tabix's iterator
    // (which parses each line's INFO for END=): the file is sorted, so the window's records are
    // those that follow until another contig or a start at the window's end.
    BGZF* text = hts_get_bgzfp(file.get());
    if (bgzf_seek(text, static_cast<std::int64_t>(itr->off[0].u), SEEK_SET) < 0) {
      throw Error(path_ + ": cannot seek to " + contig + " (truncated or corrupt?)");
    }
    kstring_t line = KS_INITIALIZE;
    while ((status = bgzf_getline(text, '\n', &line)) >= 0) {
      if (line.l == 0 || line.s[0] == '#') continue;
      std::string_view chrom, fields;
      std::int64_t position = 0;
      if (!parse_line({line.s, line.l}, chrom, position, fields)) {
        ks_free(&line);
        throw Error(path_ + ": malformed VCF record in " + contig);
      }
      if (chrom != contig || position >= end) break;
      if (position >= start) window.add(position, fields);
    }
    ks_free(&line);
  }
  if (status < -1) throw Error(path_ + ": malformed or truncated data in " + contig);
  return window;
}

std::vector<std::string> KnownVariants::contigs() const {
  const State& s = *state_;
  std::vector<std::string> names;
  if (!s.indexed()) {
    for (const auto& [name, window] : s.loaded) names.push_back(name);
    return names;
  }
  int n = 0;
  const char** listed = s.is_bcf ? bcf_index_seqnames(s.bcf_index.get(), s.header.get(), &n)
                                 : tbx_seqnames(s.tabix.get(), &n);
  for (int i = 0; i < n; ++i) names.emplace_back(listed[i]);
  std::free(listed);  // the array only: the names belong to the index
  return names;
}

}  // namespace gpp::io
