// bench_generate: large, realistic paired-end BAMs for benchmarks, fast enough to run on the GPU
// host (no simulator or aligner there). Reads are cut from the reference at known positions, so
// they need no alignment: FR pairs with a normal insert size, sequencing errors that grow along the
// read, qualities that overstate the error rate (BQSR has work), PCR duplicates (copies of earlier
// fragments) and optical duplicates (same tile, nearby x/y), soft clips, mates on the other contig,
// unmapped mates, two read groups in one library, Illumina-style names.
//
//   bench_generate REF.fa OUT.bam PAIRS [--seed S] [--duplicates 0.08] [--sorted] [--threads N]
//
// OUT.bam is in generation order (like an aligner's output) unless --sorted.
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "io/alignment_writer.hpp"
#include "io/bam_bin.hpp"
#include "io/reference.hpp"
#include "kernels/error.hpp"
#include "stages/sort/coordinate_sort.hpp"

namespace {

using gpp::io::ReadBatch;
namespace flag = gpp::io::flag;

constexpr int kReadLength = 150;
constexpr std::int64_t kPairsPerChunk = 1 << 16;

struct Contig {
  std::string name;
  std::string bases;
  std::vector<std::int64_t> valid_starts;  // starts of 1 kb windows without N
};

struct Options {
  std::string reference;
  std::string output;
  std::int64_t pairs = 0;
  unsigned seed = 1;
  double duplicates = 0.08;
  bool sorted = false;
  int threads = 0;
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

void append_aux_rg(ReadBatch& b, const std::string& rg) {
  const std::uint8_t head[3] = {'R', 'G', 'Z'};
  b.aux.insert(b.aux.end(), head, head + 3);
  b.aux.insert(b.aux.end(), rg.begin(), rg.end());
  b.aux.push_back(0);
}

// One read: bases from the reference (reverse-complemented for the reverse strand), errors that
// rise along the read, reported qualities that overstate accuracy by a few points.
void add_read(ReadBatch& b, std::mt19937_64& rng, const std::string& name, std::uint16_t f, std::int32_t tid,
              std::int64_t pos, std::int32_t mate_tid, std::int64_t mate_pos, std::int64_t tlen, const Contig& contig,
              int soft_clip, bool clip_at_start, const std::string& rg) {
  b.tid.push_back(f & flag::kUnmapped ? (mate_tid) : tid);
  b.pos.push_back(pos);
  b.flag.push_back(f);
  b.mapq.push_back(f & flag::kUnmapped ? 0 : 60);
  b.mate_tid.push_back(mate_tid);
  b.mate_pos.push_back(mate_pos);
  b.tlen.push_back(tlen);
  b.read_group.push_back(0);
  b.library.push_back(0);
  b.name.insert(b.name.end(), name.begin(), name.end());
  b.name_offset.push_back(b.name.size());
  if (f & flag::kUnmapped) {
    b.end.push_back(pos + 1);
    b.bin.push_back(gpp::io::bam_bin(pos, pos + 1));
  } else {
    const int matched = kReadLength - soft_clip;
    if (soft_clip > 0 && clip_at_start) b.cigar.push_back(static_cast<std::uint32_t>(soft_clip) << 4 | 4);
    b.cigar.push_back(static_cast<std::uint32_t>(matched) << 4 | 0);
    if (soft_clip > 0 && !clip_at_start) b.cigar.push_back(static_cast<std::uint32_t>(soft_clip) << 4 | 4);
    b.end.push_back(pos + matched);
    b.bin.push_back(gpp::io::bam_bin(pos, pos + matched));
  }
  b.cigar_offset.push_back(b.cigar.size());
  const std::int64_t from = std::clamp<std::int64_t>(pos - (clip_at_start ? soft_clip : 0), 0,
                                                     static_cast<std::int64_t>(contig.bases.size()) - kReadLength);
  std::string seq = contig.bases.substr(from, kReadLength);
  const bool reverse = f & flag::kReverse;
  const CycleModel& model = cycle_model();
  for (char& ch : seq) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (int k = 0; k < kReadLength; ++k) {
    const int c = reverse ? kReadLength - 1 - k : k;  // sequencing cycle
    const std::uint64_t draw = rng();
    if (draw < model.error_threshold[c]) {  // a substitution to one of the three other bases
      static constexpr char kNext[4][3] = {{'C', 'G', 'T'}, {'A', 'G', 'T'}, {'A', 'C', 'T'}, {'A', 'C', 'G'}};
      const int base = seq[k] == 'A' ? 0 : seq[k] == 'C' ? 1 : seq[k] == 'G' ? 2 : seq[k] == 'T' ? 3 : -1;
      if (base >= 0) seq[k] = kNext[base][(draw >> 32) % 3];
    }
    // Reported quality: the true one overstated by 2-6 points (BQSR has something to correct).
    b.qual.push_back(static_cast<std::uint8_t>(std::clamp(model.true_quality[c] + 2 + static_cast<int>((draw >> 40) % 5), 2, 41)));
  }
  b.seq.insert(b.seq.end(), seq.begin(), seq.end());
  b.seq_offset.push_back(b.seq.size());
  append_aux_rg(b, rg);
  b.aux_offset.push_back(b.aux.size());
}

struct Fragment {
  std::int32_t tid;
  std::int64_t start;
  int insert;
};

void generate_chunk(const std::vector<Contig>& contigs, const Options& o, std::int64_t chunk, ReadBatch& b) {
  std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(chunk));
  std::normal_distribution<double> insert_size(400, 60);
  std::uniform_real_distribution<double> unit(0, 1);
  const std::int64_t first = chunk * kPairsPerChunk;
  const std::int64_t count = std::min(kPairsPerChunk, o.pairs - first);
  std::vector<Fragment> recent;
  for (std::int64_t p = 0; p < count; ++p) {
    const std::int64_t id = first + p;
    Fragment frag;
    const bool duplicate = !recent.empty() && unit(rng) < o.duplicates;
    if (duplicate) {
      frag = recent[rng() % recent.size()];
    } else {
      frag.tid = unit(rng) < 0.75 ? 0 : static_cast<std::int32_t>(contigs.size() - 1);
      const Contig& c = contigs[frag.tid];
      const std::int64_t window = c.valid_starts[rng() % c.valid_starts.size()];
      frag.start = window + static_cast<std::int64_t>(rng() % 600);
      frag.insert = std::clamp(static_cast<int>(insert_size(rng)), kReadLength + 10, 900);
      if (recent.size() < 4096) recent.push_back(frag); else recent[rng() % recent.size()] = frag;
    }
    const Contig& contig = contigs[frag.tid];
    const int tile = 1101 + static_cast<int>(rng() % 24);
    int x = static_cast<int>(rng() % 30000);
    int y = static_cast<int>(rng() % 30000);
    if (duplicate && unit(rng) < 0.2) {  // an optical duplicate: next to a cluster on the same tile
      x = 5000 + static_cast<int>(rng() % 50);
      y = 5000 + static_cast<int>(rng() % 50);
    }
    const std::string name = "SIM:1:FC0:1:" + std::to_string(tile) + ":" + std::to_string(x) + ":" + std::to_string(y) +
                             "_" + std::to_string(id);
    const std::string rg = (id & 1) ? "rg2" : "rg1";
    const std::int64_t pos1 = frag.start;
    const std::int64_t pos2 = frag.start + frag.insert - kReadLength;
    const double fate = unit(rng);
    const int clip = unit(rng) < 0.05 ? 1 + static_cast<int>(rng() % 20) : 0;
    if (fate < 0.005) {  // mate unmapped, placed at its mate
      add_read(b, rng, name, flag::kPaired | flag::kFirstOfPair | flag::kMateUnmapped, frag.tid, pos1, frag.tid, pos1, 0,
               contig, clip, true, rg);
      add_read(b, rng, name, flag::kPaired | flag::kSecondOfPair | flag::kUnmapped, frag.tid, pos1, frag.tid, pos1, 0,
               contig, 0, true, rg);
      continue;
    }
    const bool other_contig = fate < 0.01 && contigs.size() > 1;
    const std::int32_t tid2 = other_contig ? static_cast<std::int32_t>(contigs.size() - 1 - frag.tid) : frag.tid;
    const Contig& contig2 = contigs[tid2];
    const std::int64_t mate_pos = other_contig ? contig2.valid_starts[rng() % contig2.valid_starts.size()] : pos2;
    const std::int64_t tlen = other_contig ? 0 : frag.insert;
    const std::uint16_t f1 = flag::kPaired | flag::kFirstOfPair | flag::kMateReverse | (other_contig ? 0 : flag::kProperPair);
    const std::uint16_t f2 = flag::kPaired | flag::kSecondOfPair | flag::kReverse | (other_contig ? 0 : flag::kProperPair);
    add_read(b, rng, name, f1, frag.tid, pos1, tid2, mate_pos, tlen, contig, clip, true, rg);
    add_read(b, rng, name, f2, tid2, mate_pos, frag.tid, pos1, -tlen, contig2, clip / 2, false, rg);
  }
}

std::vector<Contig> load_contigs(const std::string& path) {
  gpp::io::Reference reference(path);
  std::vector<Contig> contigs;
  for (const auto& c : reference.contigs()) {
    Contig contig{c.name, reference.fetch(c.name, 0, c.length), {}};
    for (std::int64_t w = 0; w + 1000 < c.length; w += 1000) {
      const auto window = std::string_view(contig.bases).substr(w, 1000);
      if (window.find_first_of("Nn") == std::string_view::npos) contig.valid_starts.push_back(w);
    }
    if (!contig.valid_starts.empty()) contigs.push_back(std::move(contig));
    if (contigs.size() == 2) break;  // two contigs are enough for mates on another contig
  }
  if (contigs.empty()) throw gpp::Error(path + ": no contig with 1 kb free of N");
  return contigs;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<std::string> positional;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--seed" && a + 1 < argc) o.seed = static_cast<unsigned>(std::atoi(argv[++a]));
    else if (arg == "--duplicates" && a + 1 < argc) o.duplicates = std::atof(argv[++a]);
    else if (arg == "--threads" && a + 1 < argc) o.threads = std::atoi(argv[++a]);
    else if (arg == "--sorted") o.sorted = true;
    else positional.push_back(arg);
  }
  if (positional.size() != 3) {
    std::fprintf(stderr, "usage: bench_generate REF.fa OUT.bam PAIRS [--seed S] [--duplicates F] [--sorted] [--threads N]\n");
    return 2;
  }
  o.reference = positional[0];
  o.output = positional[1];
  o.pairs = std::atoll(positional[2].c_str());
  std::unique_ptr<oneapi::tbb::global_control> limit;
  if (o.threads > 0) {
    limit = std::make_unique<oneapi::tbb::global_control>(oneapi::tbb::global_control::max_allowed_parallelism, o.threads);
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<Contig> contigs = load_contigs(o.reference);
    std::string text = "@HD\tVN:1.6\tSO:" + std::string(o.sorted ? "coordinate" : "unsorted") + "\n";
    for (const Contig& c : contigs) text += "@SQ\tSN:" + c.name + "\tLN:" + std::to_string(c.bases.size()) + "\n";
    text += "@RG\tID:rg1\tSM:SIM\tLB:simlib\tPL:ILLUMINA\tPU:FC0.1\n@RG\tID:rg2\tSM:SIM\tLB:simlib\tPL:ILLUMINA\tPU:FC0.2\n";
    text += "@PG\tID:bench_generate\tPN:bench_generate\n";
    const gpp::io::Header header = gpp::io::Header::from_text(text);
    const std::int64_t chunks = (o.pairs + kPairsPerChunk - 1) / kPairsPerChunk;
    std::vector<ReadBatch> parts(chunks);
    oneapi::tbb::parallel_for(std::int64_t{0}, chunks, [&](std::int64_t c) { generate_chunk(contigs, o, c, parts[c]); });
    const auto generated = std::chrono::steady_clock::now();
    std::int64_t records = 0;
    if (o.sorted) {
      ReadBatch all;
      for (ReadBatch& part : parts) {
        all.append(part);
        part = ReadBatch();
      }
      const auto order = gpp::stages::sort::coordinate_order(all, gpp::kernels::Backend::kCpu);
      gpp::io::write_alignments(o.output, header, all, order, {.compression_level = 1, .write_index = true});
      records = static_cast<std::int64_t>(all.size());
    } else {
      gpp::io::AlignmentWriter writer(o.output, header, {.compression_level = 1});
      for (const ReadBatch& part : parts) writer.write(part);
      writer.finish();
      records = static_cast<std::int64_t>(writer.records_written());
    }
    const auto done = std::chrono::steady_clock::now();
    const double total = std::chrono::duration<double>(done - start).count();
    std::fprintf(stderr, "bench_generate: %lld pairs, %lld records in %.2f s (generate %.2f s): %.2f M pairs/s\n",
                 static_cast<long long>(o.pairs), static_cast<long long>(records), total,
                 std::chrono::duration<double>(generated - start).count(), o.pairs / total / 1e6);
  } catch (const gpp::Error& e) {
    std::fprintf(stderr, "bench_generate: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
