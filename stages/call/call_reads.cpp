#include "stages/call/call_reads.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <cstring>

#include "core/error.hpp"
#include "io/reads/aux_fields.hpp"

namespace gpp::stages::call {

namespace {

/// A BI/BD tag's qualities (a Z string of Phred+33 characters), or none when absent or when its
/// length is not the read's.
std::vector<std::uint8_t> tag_qualities(std::span<const std::uint8_t> aux, const char tag[2],
                                        std::size_t length) {
  const std::uint8_t* field = io::find_aux_field(aux, tag);
  if (field == nullptr || field[0] != 'Z') return {};
  const auto* text = reinterpret_cast<const char*>(field + 1);
  const std::size_t size =
      strnlen(text, static_cast<std::size_t>(aux.data() + aux.size() - field - 1));
  if (size != length) return {};
  std::vector<std::uint8_t> quals(size);
  for (std::size_t i = 0; i < size; ++i) quals[i] = static_cast<std::uint8_t>(text[i] - 33);
  return quals;
}

char upper_base(char base) {
  return base >= 'a' && base <= 'z' ? static_cast<char>(base - 32) : base;
}

}  // namespace

void call_reads_into(std::span<const io::ReadBatch* const> sources,
                     std::span<const io::ReadBatch::RowRef> rows, std::span<CallRead> out,
                     bool keep_aux) {
  if (out.size() != rows.size())
    throw Error("internal error: call_reads_into needs a read per row");
  oneapi::tbb::parallel_for(std::size_t{0}, rows.size(), [&](std::size_t k) {
    const io::ReadBatch& reads = *sources[rows[k].source];
    const std::size_t i = rows[k].row;
    CallRead& read = out[k];
    read.name = std::string(reads.read_name(i));
    read.contig = reads.tid[i];
    read.start = reads.pos[i];
    const auto cigar = reads.read_cigar(i);
    read.cigar.assign(cigar.begin(), cigar.end());
    const std::string_view seq = reads.read_seq(i);
    read.bases.resize(seq.size());
    for (std::size_t b = 0; b < seq.size(); ++b) read.bases[b] = upper_base(seq[b]);
    const auto quals = reads.read_qual(i);
    read.quals.assign(quals.begin(), quals.end());
    const auto aux = reads.read_aux(i);
    read.insertion_quals = tag_qualities(aux, "BI", seq.size());
    read.deletion_quals = tag_qualities(aux, "BD", seq.size());
    if (keep_aux) read.aux.assign(aux.begin(), aux.end());
    read.flag = reads.flag[i];
    read.mapping_quality = reads.mapq[i];
    read.mate_contig = reads.mate_tid[i];
    read.mate_start = reads.mate_pos[i];
    read.insert_size = reads.tlen[i];
    read.read_group =
        reads.read_group[i] < 0 ? kNoReadGroup : static_cast<std::uint32_t>(reads.read_group[i]);
  });
}

}  // namespace gpp::stages::call
