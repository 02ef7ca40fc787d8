#include "tests/stages/markdup/markdup_cases.hpp"

#include <algorithm>
#include <random>
#include <sstream>
#include <vector>

namespace gpp::test {

namespace {

struct Record {
  std::string name;
  int flag = 0;
  std::string contig = "*";
  long pos = 0;
  int mapq = 60;
  std::string cigar = "*";
  std::string mate_contig = "*";
  long mate_pos = 0;
  long tlen = 0;
  std::string seq = {};
  std::string qual = {};
  std::string tags = {};
};

std::string bases(std::mt19937& rng, int n) {
  static const char kBases[] = "ACGT";
  std::string s(n, 'A');
  for (char& c : s) c = kBases[rng() % 4];
  return s;
}

}  // namespace

std::string make_markdup_case(const MarkdupCaseOptions& o) {
  std::mt19937 rng(o.seed);
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  std::ostringstream sam;
  sam << "@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:chr1\tLN:200000\n@SQ\tSN:chr2\tLN:100000\n";
  sam << "@RG\tID:A\tSM:s\tLB:libA\tPL:ILLUMINA\n";
  if (o.multiple_libraries) {
    sam << "@RG\tID:B\tSM:s\tLB:libB\tPL:ILLUMINA\n@RG\tID:C\tSM:s\tPL:ILLUMINA\n";  // C: no LB
  } else {
    sam << "@RG\tID:B\tSM:s\tLB:libA\tPL:ILLUMINA\n";
  }
  const std::vector<std::string> groups = o.multiple_libraries
                                              ? std::vector<std::string>{"A", "B", "C", ""}
                                              : std::vector<std::string>{"A", "B"};
  std::vector<Record> records;
  const int read_length = 50;
  auto name_for = [&](int t) {
    // Optical clusters: a few tiles, x/y on a coarse grid so neighbours fall within 100 pixels;
    // some coordinates beyond 32767 (Picard 2.27 truncates them to 16 bits).
    const int tile = 1101 + static_cast<int>(rng() % 3);
    // One draw a statement: the order of the operands of + is unspecified in C++.
    int x = static_cast<int>(rng() % 20) * 60;
    if (chance(10)) x += 40000;
    const int y = static_cast<int>(rng() % 20) * 60;
    switch (rng() % 10) {
      case 0:
        return "odd_name_" + std::to_string(t);  // unparsable
      case 1:
        return "M1:7:FC1:1:" + std::to_string(tile) + ":" + std::to_string(x) + ":" +
               std::to_string(y);
      case 2:
        return "r" + std::to_string(t) + ":1:2";  // 3 fields: no location
      default:
        return "RUN" + std::to_string(t % 7) + ":" + std::to_string(t) + ":" +
               std::to_string(tile) + ":" + std::to_string(x) + ":" + std::to_string(y);
    }
  };
  auto cigar_for = [&](bool reverse) {
    const int clip = chance(30) ? 1 + static_cast<int>(rng() % 5) : 0;
    const bool hard = chance(30);
    if (clip == 0) return std::string("50M");
    const std::string c = std::to_string(clip) + (hard ? "H" : "S");
    // Clip at the 5' end (the start of a forward read, the end of a reverse one).
    if (!reverse) return c + std::to_string(read_length - (hard ? 0 : clip)) + "M";
    return std::to_string(read_length - (hard ? 0 : clip)) + "M" + c;
  };
  auto seq_length = [&](const std::string& cigar) {
    int n = 0;
    int num = 0;
    for (char ch : cigar) {
      if (std::isdigit(static_cast<unsigned char>(ch))) {
        num = num * 10 + (ch - '0');
      } else {
        if (ch == 'M' || ch == 'S' || ch == 'I') n += num;
        num = 0;
      }
    }
    return n;
  };
  auto qual_for = [&](int n) {
    if (chance(3)) return std::string("*");
    std::string q(n, 'I');
    const int base = chance(40) ? 10 : 30;  // quality 10 (< 15) scores 0: ties
    for (char& c : q)
      c = static_cast<char>(33 + base + (chance(20) ? static_cast<int>(rng() % 5) : 0));
    return q;
  };
  auto position = [&](const std::string& contig) {
    const long span = contig == "chr1" ? 150000 : 80000;
    return 1000 + static_cast<long>(rng() % o.positions) * (span / o.positions);
  };
  for (int t = 0; t < o.templates; ++t) {
    const std::string name = name_for(t);
    const std::string group = groups[rng() % groups.size()];
    const std::string rg = group.empty() ? "" : "\tRG:Z:" + group;
    const std::string contig1 = chance(70) ? "chr1" : "chr2";
    const long pos1 = position(contig1);
    const bool reverse1 = chance(50);
    const bool qc_fail = chance(3);
    if (o.single_end_only || chance(20)) {  // a fragment
      Record r{
          name, (reverse1 ? 16 : 0) | (qc_fail ? 512 : 0), contig1, pos1, 60, cigar_for(reverse1)};
      r.seq = bases(rng, seq_length(r.cigar));
      r.qual = qual_for(static_cast<int>(r.seq.size()));
      r.tags = rg;
      records.push_back(r);
      continue;
    }
    const bool other_contig = chance(5);
    const std::string contig2 = other_contig ? (contig1 == "chr1" ? "chr2" : "chr1") : contig1;
    const long pos2 = other_contig ? position(contig2) : pos1 + static_cast<long>(rng() % 3) * 100;
    const bool reverse2 = chance(80) ? !reverse1 : reverse1;  // mostly opposite strands, some FF/RR
    const bool mate_unmapped = chance(5);
    Record r1{name,    1 | 64 | (reverse1 ? 16 : 0) | (qc_fail ? 512 : 0),
              contig1, pos1,
              60,      cigar_for(reverse1)};
    Record r2{name,    1 | 128 | (reverse2 ? 16 : 0) | (qc_fail ? 512 : 0),
              contig2, pos2,
              60,      cigar_for(reverse2)};
    if (mate_unmapped) {  // the unmapped mate is placed at its mate's position
      r2.flag = 1 | 128 | 4;
      r2.contig = contig1;
      r2.pos = pos1;
      r2.cigar = "*";
      r2.mapq = 0;
      r1.flag |= 8;
    } else {
      r1.flag |= reverse2 ? 32 : 0;
      r2.flag |= reverse1 ? 32 : 0;
    }
    r1.mate_contig = r2.contig == r1.contig ? "=" : r2.contig;
    r1.mate_pos = r2.pos;
    r2.mate_contig = r1.contig == r2.contig ? "=" : r1.contig;
    r2.mate_pos = r1.pos;
    const bool drop_mate = chance(2);  // a mate record missing from the file
    for (Record* r : {&r1, &r2}) {
      r->seq = bases(rng, r->cigar == "*" ? read_length : seq_length(r->cigar));
      r->qual = qual_for(static_cast<int>(r->seq.size()));
      if (chance(1)) r->seq = r->qual = "*";  // no stored bases
      r->tags = rg;
      if (!(drop_mate && r == &r2)) records.push_back(*r);
    }
    if (chance(4)) {  // a secondary and a supplementary alignment of read 1
      Record s = r1;
      s.flag = (r1.flag & ~0x10) | 256;
      s.pos = position(contig1);
      s.mapq = 0;
      records.push_back(s);
      Record sup = r1;
      sup.flag = r1.flag | 2048;
      sup.pos = position(contig1);
      sup.cigar = "20M30H";
      sup.seq = sup.seq.substr(0, 20);
      sup.qual = sup.qual == "*" ? "*" : sup.qual.substr(0, 20);
      records.push_back(sup);
    }
  }
  for (int u = 0; u < 15; ++u) {  // unplaced unmapped reads
    Record r{"unplaced" + std::to_string(u), 4, "*", 0, 0, "*"};
    r.seq = bases(rng, read_length);
    r.qual = std::string(read_length, '5');
    r.tags = "\tRG:Z:A";
    records.push_back(r);
  }
  // Fisher-Yates with the generator's own numbers, not std::shuffle (whose use of them each
  // standard library chooses): the same bytes on every build, which the Picard goldens need.
  for (std::size_t i = records.size(); i > 1; --i) std::swap(records[i - 1], records[rng() % i]);
  for (const Record& r : records) {
    sam << r.name << '\t' << r.flag << '\t' << r.contig << '\t' << r.pos << '\t' << r.mapq << '\t'
        << r.cigar << '\t' << r.mate_contig << '\t' << r.mate_pos << '\t' << r.tlen << '\t' << r.seq
        << '\t' << r.qual << r.tags << '\n';
  }
  return sam.str();
}

}  // namespace gpp::test
