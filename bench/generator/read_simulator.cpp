#include "bench/generator/read_simulator.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string_view>

#include "core/hash.hpp"
#include "io/bam/bam_bin.hpp"

namespace gpp::bench {

namespace {

using io::ReadBatch;
namespace flag = io::flag;

constexpr int kLibraries = 2;
constexpr int kReadGroupsPerLibrary = 2;

// SplitMix64 (Steele, Lea and Flood 2014): a 64-bit generator several times cheaper than
// std::mt19937_64 and statistically sound for simulation; the per-base draws (an error, the
// substituted base, the quality jitter) dominate the generator's own time.
class SplitMix64 {
 public:
  using result_type = std::uint64_t;
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    const std::uint64_t out = splitmix64(state_);
    state_ += kSplitmix64Gamma;
    return out;
  }

 private:
  std::uint64_t state_;
};

// Error rate rising along the read, 0.1% at the first cycle to 1% at the last.
struct CycleModel {
  std::uint64_t error_threshold[kReadLength];  // P(error) * 2^64
  int true_quality[kReadLength];
};
const CycleModel& cycle_model() {
  static const CycleModel model = [] {
    CycleModel m{};
    for (int c = 0; c < kReadLength; ++c) {
      const double error = 0.001 + 0.009 * c / kReadLength;
      m.error_threshold[c] = static_cast<std::uint64_t>(error * 18446744073709551616.0);
      m.true_quality[c] = static_cast<int>(-10 * std::log10(error));
    }
    return m;
  }();
  return model;
}

char complement(char base) {
  switch (base) {
    case 'A':
      return 'T';
    case 'C':
      return 'G';
    case 'G':
      return 'C';
    case 'T':
      return 'A';
    default:
      return 'N';
  }
}

void append_aux(ReadBatch& b, int read_group, int haplotype) {
  const std::string_view id = kReadGroups[read_group].id;
  const std::uint8_t rg[3] = {'R', 'G', 'Z'};
  b.aux.insert(b.aux.end(), rg, rg + 3);
  b.aux.insert(b.aux.end(), id.begin(), id.end());
  b.aux.push_back(0);
  // HP: the haplotype the read comes from (1 or 2), the tag phasing tools write.
  const std::uint8_t hp[4] = {'H', 'P', 'C', static_cast<std::uint8_t>(haplotype + 1)};
  b.aux.insert(b.aux.end(), hp, hp + 4);
  b.aux_offset.push_back(b.aux.size());
}

struct Mate {
  std::int32_t tid;
  std::int64_t pos;
};

// One read: `bases` as BAM stores them (reference strand), with errors that rise along the
// sequencing cycles and reported qualities that overstate the true ones by `quality_bias` +-2.
// `alignment` is null for an unmapped read, which is placed at `mate`.
void add_read(ReadBatch& b, SplitMix64& rng, const std::string& name, std::uint16_t f,
              std::int32_t tid, const ReadAlignment* alignment, Mate mate, std::int64_t tlen,
              std::string_view bases, int read_group, int haplotype, int quality_bias) {
  const bool unmapped = alignment == nullptr;
  b.tid.push_back(unmapped ? mate.tid : tid);
  b.pos.push_back(unmapped ? mate.pos : alignment->pos);
  b.flag.push_back(f);
  b.mapq.push_back(unmapped ? 0 : 60);
  b.mate_tid.push_back(mate.tid);
  b.mate_pos.push_back(mate.pos);
  b.tlen.push_back(tlen);
  b.read_group.push_back(read_group);
  b.library.push_back(read_group / kReadGroupsPerLibrary);
  b.name.insert(b.name.end(), name.begin(), name.end());
  b.name_offset.push_back(b.name.size());
  if (unmapped) {
    b.end.push_back(mate.pos + 1);
    b.bin.push_back(io::bam_bin(mate.pos, mate.pos + 1));
  } else {
    b.cigar.insert(b.cigar.end(), alignment->cigar.begin(), alignment->cigar.end());
    b.end.push_back(alignment->end);
    b.bin.push_back(io::bam_bin(alignment->pos, alignment->end));
  }
  b.cigar_offset.push_back(b.cigar.size());
  const std::size_t first = b.seq.size();
  b.seq.insert(b.seq.end(), bases.begin(), bases.end());
  b.qual.resize(first + kReadLength);
  char* seq = b.seq.data() + first;
  std::uint8_t* qual = b.qual.data() + first;
  const bool reverse = f & flag::kReverse;
  const CycleModel& model = cycle_model();
  for (int k = 0; k < kReadLength; ++k) {
    const int c = reverse ? kReadLength - 1 - k : k;  // sequencing cycle
    const std::uint64_t draw = rng();
    if (draw < model.error_threshold[c]) [[unlikely]] {  // a substitution to another base
      static constexpr char kOther[4][3] = {
          {'C', 'G', 'T'}, {'A', 'G', 'T'}, {'A', 'C', 'T'}, {'A', 'C', 'G'}};
      const int base = seq[k] == 'A'   ? 0
                       : seq[k] == 'C' ? 1
                       : seq[k] == 'G' ? 2
                       : seq[k] == 'T' ? 3
                                       : -1;
      if (base >= 0) seq[k] = kOther[base][rng() % 3];
    }
    const int reported =
        model.true_quality[c] + quality_bias - 2 + static_cast<int>((draw >> 40) % 5);
    qual[k] = static_cast<std::uint8_t>(std::clamp(reported, 2, 41));
  }
  b.seq_offset.push_back(b.seq.size());
  append_aux(b, read_group, haplotype);
}

// A DNA fragment (the template of a pair) and the cluster it was read from.
struct Fragment {
  std::int32_t tid;
  std::int64_t hap_start;  // first base of read 1 on the haplotype
  int insert;
  int haplotype;
  int read_group;
  int tile, x, y;
};

}  // namespace

std::string read_group_header_lines(const std::string& sample) {
  std::string lines;
  for (const ReadGroupLayout& rg : kReadGroups) {
    lines += std::string("@RG\tID:") + rg.id + "\tSM:" + sample + "\tLB:" + rg.library +
             "\tPL:ILLUMINA\tPU:" + rg.platform_unit + "\n";
  }
  return lines;
}

void simulate_chunk(const std::vector<SimulatedContig>& contigs, const SimulationSettings& o,
                    std::int64_t chunk, ReadBatch& b) {
  SplitMix64 rng(SplitMix64(o.seed)() ^ static_cast<std::uint64_t>(chunk) * 0xD1B54A32D192ED03ull);
  std::normal_distribution<double> insert_size(400, 60);
  std::uniform_real_distribution<double> unit(0, 1);
  const std::int64_t first = chunk * kPairsPerChunk;
  const std::int64_t count = std::min(kPairsPerChunk, o.pairs - first);
  b.reserve_more(static_cast<std::size_t>(2 * count), kReadLength, 40, 3, 12);
  std::vector<Fragment> recent[kLibraries];  // earlier fragments, per library, for duplicates
  const auto last_tid = static_cast<std::int32_t>(contigs.size() - 1);
  std::string reverse_bases(kReadLength, 'N');
  for (std::int64_t p = 0; p < count; ++p) {
    const std::int64_t id = first + p;
    const int library = static_cast<int>(rng() % kLibraries);
    std::vector<Fragment>& earlier = recent[library];
    Fragment frag;
    if (!earlier.empty() && unit(rng) < o.duplicates) {
      frag = earlier[rng() % earlier.size()];
      if (unit(rng) < 0.2) {  // optical: a cluster next to the original, same read group and tile
        frag.x = std::max(0, frag.x + static_cast<int>(rng() % 101) - 50);
        frag.y = std::max(0, frag.y + static_cast<int>(rng() % 101) - 50);
      } else {  // PCR: any lane of the library, anywhere on the flow cell
        frag.read_group =
            library * kReadGroupsPerLibrary + static_cast<int>(rng() % kReadGroupsPerLibrary);
        frag.tile = 1101 + static_cast<int>(rng() % 24);
        frag.x = static_cast<int>(rng() % 30000);
        frag.y = static_cast<int>(rng() % 30000);
      }
    } else {
      frag.tid = unit(rng) < 0.75 ? 0 : last_tid;
      const SimulatedContig& c = contigs[frag.tid];
      frag.haplotype = static_cast<int>(rng() & 1);
      frag.insert = std::clamp(static_cast<int>(insert_size(rng)), kReadLength + 10, 900);
      const Haplotype& hap = c.haplotypes[frag.haplotype];
      const std::int64_t window = c.valid_starts[rng() % c.valid_starts.size()];
      frag.hap_start = std::min(hap.from_reference(window + static_cast<std::int64_t>(rng() % 600)),
                                hap.size() - frag.insert);
      frag.read_group =
          library * kReadGroupsPerLibrary + static_cast<int>(rng() % kReadGroupsPerLibrary);
      frag.tile = 1101 + static_cast<int>(rng() % 24);
      frag.x = static_cast<int>(rng() % 30000);
      frag.y = static_cast<int>(rng() % 30000);
      if (earlier.size() < 4096)
        earlier.push_back(frag);
      else
        earlier[rng() % earlier.size()] = frag;
    }
    const SimulatedContig& contig = contigs[frag.tid];
    const Haplotype& hap = contig.haplotypes[frag.haplotype];
    const std::string name = "SIM:1:FC0:" + std::to_string(frag.read_group + 1) + ":" +
                             std::to_string(frag.tile) + ":" + std::to_string(frag.x) + ":" +
                             std::to_string(frag.y) + "_" + std::to_string(id);
    const double fate = unit(rng);
    const int clip = unit(rng) < 0.05 ? 1 + static_cast<int>(rng() % 20) : 0;
    const std::string_view bases1 =
        std::string_view(hap.bases()).substr(frag.hap_start, kReadLength);
    ReadAlignment read1 = hap.align(frag.hap_start, kReadLength);
    soft_clip(read1, clip, true);
    const std::int64_t hap_start2 = frag.hap_start + frag.insert - kReadLength;
    if (fate <
        0.005) {  // mate unmapped, placed at its mate; its bases as sequenced (reverse strand)
      const std::string_view forward =
          std::string_view(hap.bases()).substr(hap_start2, kReadLength);
      std::transform(forward.rbegin(), forward.rend(), reverse_bases.begin(), complement);
      const Mate at_read1{frag.tid, read1.pos};
      add_read(b, rng, name, flag::kPaired | flag::kFirstOfPair | flag::kMateUnmapped, frag.tid,
               &read1, at_read1, 0, bases1, frag.read_group, frag.haplotype, o.quality_bias);
      add_read(b, rng, name, flag::kPaired | flag::kSecondOfPair | flag::kUnmapped, frag.tid,
               nullptr, at_read1, 0, reverse_bases, frag.read_group, frag.haplotype,
               o.quality_bias);
      continue;
    }
    const bool other_contig = fate < 0.01 && contigs.size() > 1;
    const std::int32_t tid2 = other_contig ? last_tid - frag.tid : frag.tid;
    const Haplotype& hap2 = contigs[tid2].haplotypes[frag.haplotype];
    const std::int64_t start2 =
        other_contig ? hap2.from_reference(
                           contigs[tid2].valid_starts[rng() % contigs[tid2].valid_starts.size()])
                     : hap_start2;
    ReadAlignment read2 = hap2.align(start2, kReadLength);
    soft_clip(read2, clip / 2, false);
    const std::string_view bases2 = std::string_view(hap2.bases()).substr(start2, kReadLength);
    // TLEN: from the leftmost aligned base to the rightmost, plus for the leftmost read.
    std::int64_t tlen = 0;
    if (!other_contig) {
      tlen = std::max(read1.end, read2.end) - std::min(read1.pos, read2.pos);
      if (read1.pos > read2.pos) tlen = -tlen;
    }
    const std::uint16_t proper = other_contig ? 0 : flag::kProperPair;
    add_read(b, rng, name, flag::kPaired | flag::kFirstOfPair | flag::kMateReverse | proper,
             frag.tid, &read1, {tid2, read2.pos}, tlen, bases1, frag.read_group, frag.haplotype,
             o.quality_bias);
    add_read(b, rng, name, flag::kPaired | flag::kSecondOfPair | flag::kReverse | proper, tid2,
             &read2, {frag.tid, read1.pos}, -tlen, bases2, frag.read_group, frag.haplotype,
             o.quality_bias);
  }
}

}  // namespace gpp::bench
