// bench_generate: valid BAMs (HTSlib and samtools accept them, samtools view round-trips them),
// sorted output really sorted and indexed; a truth VCF that the reads carry (every variant in the
// reads of its haplotypes, indels as CIGAR I/D at their positions, nothing in the other
// haplotype's reads); known sites that are most of the truth plus a few extra sites; duplicates
// at the requested rate in two libraries; reported qualities overstated by the requested amount.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "io/bam/alignment_reader.hpp"
#include "io/genome/known_sites.hpp"
#include "io/reads/aux_fields.hpp"
#include "tests/test_support.hpp"

namespace gpp::test {
namespace {

std::string reference() { return data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz"); }

CommandResult run_generator(const std::string& ref, const std::string& out,
                            const std::string& extra) {
  return run_command(shell_quote(bench_generate_path()) + " " + shell_quote(ref) + " " +
                     shell_quote(out) + " 20000 --seed 3" + extra);
}

// Two contigs small enough for 20,000 pairs to cover them 15-30x: GRCh38 chr20:2.00-2.15 Mb as
// chrA, and chr21:8.00-8.15 Mb (its first 50 kb are N) as chrB.
std::string small_reference(const TempDir& dir) {
  const std::string path = dir.file("small.fa");
  const CommandResult r =
      run_command("(samtools faidx " + shell_quote(reference()) +
                  " chr20:2000001-2150000 chr21:8000001-8150000 | sed 's/^>chr20.*/>chrA/; "
                  "s/^>chr21.*/>chrB/' > " +
                  shell_quote(path) + ")");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return path;
}

struct TruthVariant {
  std::string contig;
  std::int64_t pos = 0;  // 0-based
  std::string ref;
  std::string alt;
  int haplotypes = 0;  // bit 0: haplotype 1 (HP:i:1) carries alt; bit 1: haplotype 2
  bool is_snp() const { return ref.size() == 1 && alt.size() == 1; }
};

// The data lines of a bgzipped VCF, split into columns.
std::vector<std::vector<std::string>> vcf_records(const std::string& path) {
  const CommandResult r = run_command("bgzip -dc " + shell_quote(path));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::vector<std::string>> records;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::istringstream columns(line);
    std::string field;
    while (std::getline(columns, field, '\t')) fields.push_back(field);
    records.push_back(fields);
  }
  return records;
}

std::vector<TruthVariant> read_truth(const std::string& path) {
  std::vector<TruthVariant> truth;
  for (const auto& f : vcf_records(path)) {
    EXPECT_EQ(f.size(), 10u);
    if (f.size() != 10) continue;
    const std::string& gt = f[9];
    EXPECT_TRUE(gt == "0|1" || gt == "1|0" || gt == "1|1") << gt;
    truth.push_back(
        {f[0], std::stoll(f[1]) - 1, f[3], f[4], (gt[0] == '1' ? 1 : 0) | (gt[2] == '1' ? 2 : 0)});
  }
  return truth;
}

int haplotype_tag(const io::ReadBatch& b, std::size_t i) {
  const auto aux = b.read_aux(i);
  for (const std::uint8_t* p = aux.data(); p < aux.data() + aux.size();) {
    const std::size_t size = io::aux_field_size(p, aux.data() + aux.size());
    if (size == 0) break;
    if (p[0] == 'H' && p[1] == 'P' && p[2] == 'C') return p[3];
    p += size;
  }
  return 0;
}

// A read's alignment as reference-anchored pieces: matched runs, insertions, deletions.
struct ReadPieces {
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>
      matches;                                      // ref start -> (length, query start)
  std::map<std::int64_t, std::int64_t> insertions;  // ref position of the base after -> length
  std::map<std::int64_t, std::int64_t> deletions;   // first deleted ref position -> length
  bool matched(std::int64_t ref_pos) const {
    auto it = matches.upper_bound(ref_pos);
    return it != matches.begin() && ref_pos < std::prev(it)->first + std::prev(it)->second.first;
  }
};

ReadPieces pieces_of(const io::ReadBatch& b, std::size_t i) {
  ReadPieces pieces;
  std::int64_t r = b.pos[i];
  std::int64_t q = 0;
  for (std::uint32_t packed : b.read_cigar(i)) {
    const std::int64_t length = packed >> 4;
    switch (packed & 0xf) {
      case 0:
        pieces.matches[r] = {length, q};
        r += length;
        q += length;
        break;
      case 1:
        pieces.insertions[r] = length;
        q += length;
        break;
      case 2:
        pieces.deletions[r] = length;
        r += length;
        break;
      case 4:
        q += length;
        break;
      default:
        ADD_FAILURE() << "unexpected CIGAR op " << (packed & 0xf);
    }
  }
  return pieces;
}

enum class Allele { kNone, kRef, kAlt, kOther };

// What the read shows at `v`: for SNPs its base there; for indels, the indel as I/D right after
// the anchor base, or plain matches from the anchor through the base after the indel.
Allele observed(const io::ReadBatch& b, std::size_t i, const ReadPieces& pieces,
                const TruthVariant& v) {
  if (v.is_snp()) {
    auto it = pieces.matches.upper_bound(v.pos);
    if (it == pieces.matches.begin()) return Allele::kNone;
    --it;
    if (v.pos >= it->first + it->second.first) return Allele::kNone;
    const char base = b.read_seq(i)[it->second.second + v.pos - it->first];
    return base == v.alt[0] ? Allele::kAlt : base == v.ref[0] ? Allele::kRef : Allele::kOther;
  }
  const auto length = static_cast<std::int64_t>(std::max(v.ref.size(), v.alt.size()) - 1);
  const bool deletion = v.ref.size() > 1;
  const std::int64_t after = v.pos + 1 + (deletion ? length : 0);  // first reference base after it
  if (!pieces.matched(v.pos) || !pieces.matched(after)) return Allele::kNone;
  const auto& events = deletion ? pieces.deletions : pieces.insertions;
  const auto at = events.find(v.pos + 1);
  if (at != events.end()) return at->second == length ? Allele::kAlt : Allele::kOther;
  for (std::int64_t r = v.pos; r <= after; ++r) {
    if (!pieces.matched(r) || pieces.insertions.count(r) > 0) return Allele::kOther;
  }
  return Allele::kRef;
}

TEST(Generator, WritesValidUnsortedAndSortedBams) {
  TempDir dir;
  ASSERT_EQ(run_generator(reference(), dir.file("u.bam"), "").exit_code, 0);
  ASSERT_EQ(run_generator(reference(), dir.file("s.bam"), " --sorted").exit_code, 0);
  for (const char* name : {"u.bam", "s.bam"}) {
    EXPECT_EQ(run_command("samtools quickcheck " + shell_quote(dir.file(name))).exit_code, 0)
        << name;
    EXPECT_EQ(run_command("samtools view -c " + shell_quote(dir.file(name))).out, "40000\n")
        << name;
  }
  // Sorted output: samtools sort leaves it unchanged, and the index answers region queries.
  ASSERT_EQ(run_command("samtools sort -o " + shell_quote(dir.file("resorted.bam")) + " " +
                        shell_quote(dir.file("s.bam")))
                .exit_code,
            0);
  EXPECT_TRUE(run_command("samtools view " + shell_quote(dir.file("s.bam"))).out ==
              run_command("samtools view " + shell_quote(dir.file("resorted.bam"))).out);
  EXPECT_EQ(run_command("samtools view -c " + shell_quote(dir.file("s.bam")) + " chr20:1-10000000")
                .exit_code,
            0);
  // samtools view round-trips the records.
  ASSERT_EQ(run_command("samtools view -b -o " + shell_quote(dir.file("copy.bam")) + " " +
                        shell_quote(dir.file("u.bam")))
                .exit_code,
            0);
  EXPECT_TRUE(run_command("samtools view " + shell_quote(dir.file("copy.bam"))).out ==
              run_command("samtools view " + shell_quote(dir.file("u.bam"))).out);
}

TEST(Generator, SortedWithinAMemoryBoundEqualsSortedInMemory) {
  // --max-memory: generation order spilled and merged; the same records in the same order as
  // sorting everything in memory, an index, and no temporary file left beside the output.
  TempDir dir;
  ASSERT_EQ(run_generator(reference(), dir.file("s.bam"), " --sorted").exit_code, 0);
  const auto r = run_generator(reference(), dir.file("spilled.bam"), " --sorted --max-memory 2M");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string records = run_command("samtools view " + shell_quote(dir.file("s.bam"))).out;
  EXPECT_GT(records.size(), 1000000u);
  EXPECT_TRUE(run_command("samtools view " + shell_quote(dir.file("spilled.bam"))).out == records);
  EXPECT_TRUE(std::filesystem::exists(dir.file("spilled.bam.bai")));
  EXPECT_EQ(dir.entries().size(), 4u);  // s.bam, s.bam.bai, spilled.bam, spilled.bam.bai
}

TEST(Generator, ReadsCarryTheTruthOfTheirHaplotype) {
  TempDir dir;
  const std::string ref = small_reference(dir);
  const CommandResult r =
      run_generator(ref, dir.file("u.bam"),
                    " --indel-rate 0.001 --truth-vcf " + shell_quote(dir.file("truth.vcf.gz")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<TruthVariant> truth = read_truth(dir.file("truth.vcf.gz"));
  io::Header header;
  const io::ReadBatch reads = io::read_alignments(dir.file("u.bam"), {}, header);
  ASSERT_EQ(reads.size(), 40000u);
  std::map<std::string, std::vector<const TruthVariant*>> by_contig;
  int truth_indels = 0;
  for (const TruthVariant& v : truth) {
    by_contig[v.contig].push_back(&v);
    truth_indels += v.is_snp() ? 0 : 1;
  }
  ASSERT_GT(truth.size(), 300u);  // ~1/1000 SNPs and ~1/1000 indels on 250 kb without N
  ASSERT_GT(truth_indels, 100);

  // Per variant and haplotype (0, 1): reads showing alt / any allele.
  std::map<const TruthVariant*, std::array<std::array<int, 4>, 2>> seen;
  std::int64_t stray_indels = 0;  // I/D ops that are no truth indel of the read's haplotype
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (reads.flag[i] & io::flag::kUnmapped) continue;
    const int hp = haplotype_tag(reads, i);
    ASSERT_TRUE(hp == 1 || hp == 2) << reads.read_name(i);
    const ReadPieces pieces = pieces_of(reads, i);
    const auto& variants = by_contig[header.contigs()[reads.tid[i]].name];
    const auto first =
        std::lower_bound(variants.begin(), variants.end(), reads.pos[i] - 12,
                         [](const TruthVariant* v, std::int64_t p) { return v->pos < p; });
    std::set<std::int64_t> explained;
    for (auto it = first; it != variants.end() && (*it)->pos < reads.end[i]; ++it) {
      const Allele allele = observed(reads, i, pieces, **it);
      if (allele != Allele::kNone) ++seen[*it][hp - 1][static_cast<int>(allele)];
      if (allele == Allele::kAlt && !(*it)->is_snp()) explained.insert((*it)->pos + 1);
    }
    for (const auto& [at, length] : pieces.insertions) stray_indels += explained.count(at) ? 0 : 1;
    for (const auto& [at, length] : pieces.deletions) stray_indels += explained.count(at) ? 0 : 1;
  }
  EXPECT_EQ(stray_indels, 0);

  int observed_variants = 0;
  int observed_indels = 0;
  std::int64_t carrying_alt = 0, carrying_all = 0, other_alt = 0, other_all = 0;
  for (const TruthVariant& v : truth) {
    const auto found = seen.find(&v);
    if (found == seen.end()) continue;
    for (int h = 0; h < 2; ++h) {
      const auto& counts = found->second[h];
      const int all = counts[1] + counts[2] + counts[3];
      const int alt = counts[static_cast<int>(Allele::kAlt)];
      if ((v.haplotypes >> h & 1) == 0) {
        other_alt += alt;
        other_all += all;
        if (!v.is_snp()) {
          EXPECT_EQ(alt, 0) << v.contig << ":" << v.pos + 1 << " haplotype " << h + 1;
        }
        continue;
      }
      carrying_alt += alt;
      carrying_all += all;
      if (all == 0) continue;
      // Every variant is in the reads of each haplotype that carries it (errors aside).
      EXPECT_GT(2 * alt, all) << v.contig << ":" << v.pos + 1 << " " << v.ref << ">" << v.alt
                              << " haplotype " << h + 1;
      if (h == 0 || (v.haplotypes & 1) == 0) {
        ++observed_variants;
        observed_indels += v.is_snp() ? 0 : 1;
      }
    }
  }
  // 15-30x over two haplotypes: nearly every variant is seen; errors (0.1-1% per base) are rare.
  EXPECT_GT(observed_variants, 0.95 * static_cast<double>(truth.size()));
  EXPECT_GT(observed_indels, 0.95 * truth_indels);
  EXPECT_GT(static_cast<double>(carrying_alt) / static_cast<double>(carrying_all), 0.98);
  EXPECT_LT(static_cast<double>(other_alt) / static_cast<double>(other_all), 0.005);
}

TEST(Generator, TruthAndKnownSitesAreIndexedVcfs) {
  TempDir dir;
  const std::string ref = small_reference(dir);
  const CommandResult r =
      run_generator(ref, dir.file("u.bam"),
                    " --truth-vcf " + shell_quote(dir.file("truth.vcf.gz")) + " --known-sites " +
                        shell_quote(dir.file("known.vcf.gz")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<TruthVariant> truth = read_truth(dir.file("truth.vcf.gz"));
  ASSERT_GT(truth.size(), 200u);
  // HTSlib reads both through their tabix indexes.
  for (const char* name : {"truth.vcf.gz", "known.vcf.gz"}) {
    io::KnownSites sites(dir.file(name));
    EXPECT_TRUE(sites.indexed()) << name;
    const auto count = [&](const std::string& contig) {
      return sites.query(contig, 0, 150000).size();
    };
    if (std::string(name) == "truth.vcf.gz") {
      const auto on_a = std::count_if(truth.begin(), truth.end(),
                                      [](const TruthVariant& v) { return v.contig == "chrA"; });
      EXPECT_EQ(count("chrA"), static_cast<std::size_t>(on_a));
      EXPECT_EQ(count("chrA") + count("chrB"), truth.size());
    }
  }
  EXPECT_EQ(run_command("tabix -l " + shell_quote(dir.file("known.vcf.gz"))).out, "chrA\nchrB\n");
  // Truth alleles match the reference (and are normalised: bcftools would realign none).
  if (run_command("command -v bcftools").exit_code == 0) {
    const CommandResult norm =
        run_command("bcftools norm -c e -f " + shell_quote(ref) + " -o /dev/null " +
                    shell_quote(dir.file("truth.vcf.gz")));
    EXPECT_EQ(norm.exit_code, 0) << norm.err;
    EXPECT_NE(norm.err.find("/0/0/0"), std::string::npos)
        << norm.err;  // total/split/realigned/skipped
  }
  // Known sites: sites only; about 70% of the truth, plus a few sites away from every truth
  // variant.
  std::set<std::string> truth_keys;
  for (const TruthVariant& v : truth)
    truth_keys.insert(v.contig + ":" + std::to_string(v.pos + 1) + v.ref + ">" + v.alt);
  int shared = 0;
  int extra = 0;
  for (const auto& f : vcf_records(dir.file("known.vcf.gz"))) {
    ASSERT_EQ(f.size(), 8u);
    if (truth_keys.count(f[0] + ":" + f[1] + f[3] + ">" + f[4]) > 0) {
      ++shared;
      continue;
    }
    ++extra;
    const std::int64_t pos = std::stoll(f[1]) - 1;
    for (const TruthVariant& v : truth) {
      EXPECT_FALSE(v.contig == f[0] && pos > v.pos - 10 &&
                   pos < v.pos + static_cast<std::int64_t>(v.ref.size()) + 10)
          << f[0] << ":" << f[1] << " is next to a truth variant";
    }
  }
  EXPECT_NEAR(static_cast<double>(shared) / static_cast<double>(truth.size()), 0.7, 0.08);
  EXPECT_GT(extra, 0);
  EXPECT_LE(extra, 0.05 * static_cast<double>(truth.size()) + 1);
}

// Reported minus empirical quality of each read group, from a BQSR table made with the known sites.
std::vector<double> quality_overstatement(const TempDir& dir, const std::string& ref,
                                          const std::string& bam) {
  const std::string bin = shell_quote(binary_path());
  const std::string table = dir.file(bam + ".table");
  const CommandResult r = run_command(
      bin + " bqsr -I " + shell_quote(dir.file(bam)) + " -R " + shell_quote(ref) +
      " --known-sites " + shell_quote(dir.file("known.vcf.gz")) + " -O " + shell_quote(table));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(table);
  std::string line;
  bool in_rg_table = false;
  std::vector<double> overstatement;
  while (std::getline(in, line)) {
    if (line.rfind("#:GATKTable:RecalTable0", 0) == 0) in_rg_table = true;
    if (in_rg_table && line.empty()) break;  // the read-group table ends at its blank line
    if (!in_rg_table || line.rfind("FC0", 0) != 0) continue;
    std::istringstream fields(line);
    std::string group, event;
    double empirical = 0;
    double reported = 0;
    fields >> group >> event >> empirical >> reported;
    overstatement.push_back(reported - empirical);
  }
  return overstatement;
}

TEST(Generator, DuplicatesInTwoLibrariesAndRequestedQualityBias) {
  TempDir dir;
  const std::string ref = small_reference(dir);
  const std::string known = " --known-sites " + shell_quote(dir.file("known.vcf.gz"));
  ASSERT_EQ(run_generator(ref, dir.file("u.bam"), " --duplicates 0.08" + known).exit_code, 0);
  const std::string bin = shell_quote(binary_path());
  ASSERT_EQ(run_command(bin + " markdup -I " + shell_quote(dir.file("u.bam")) + " -O " +
                        shell_quote(dir.file("md.bam")) + " -M " + shell_quote(dir.file("md.txt")))
                .exit_code,
            0);
  const double duplicates =
      std::stod(run_command("samtools view -c -f 1024 " + shell_quote(dir.file("md.bam"))).out);
  EXPECT_GT(duplicates / 40000, 0.065);
  EXPECT_LT(duplicates / 40000, 0.095);
  // Both libraries have duplicates, about a fifth of them optical.
  std::ifstream metrics(dir.file("md.txt"));
  std::string line;
  int libraries = 0;
  while (std::getline(metrics, line)) {
    if (line.rfind("simlib", 0) != 0) continue;
    std::istringstream fields(line);
    std::string library;
    double unpaired = 0, pairs = 0, secondary = 0, unmapped = 0, unpaired_dups = 0, pair_dups = 0,
           optical = 0;
    fields >> library >> unpaired >> pairs >> secondary >> unmapped >> unpaired_dups >> pair_dups >>
        optical;
    EXPECT_NEAR(pair_dups / pairs, 0.08, 0.02) << line;
    EXPECT_NEAR(optical / pair_dups, 0.2, 0.07) << line;
    ++libraries;
  }
  EXPECT_EQ(libraries, 2);
  // Qualities overstated by 4 points on average (the default), and not at all with --quality-bias
  // 0: BQSR's empirical quality per read group (integer-valued) shows it, within 1.5.
  for (const double d : quality_overstatement(dir, ref, "md.bam")) EXPECT_NEAR(d, 4, 1.5);
  ASSERT_EQ(run_generator(ref, dir.file("calibrated.bam"), " --quality-bias 0").exit_code, 0);
  const std::vector<double> calibrated = quality_overstatement(dir, ref, "calibrated.bam");
  EXPECT_EQ(calibrated.size(), 4u);  // four read groups (PU FC0.1-FC0.4)
  for (const double d : calibrated) EXPECT_NEAR(d, 0, 1.5);
}

TEST(Generator, BadArgumentsGetOneLineAndNoOutput) {
  TempDir dir;
  for (const std::string args :
       {" --seed", " --duplicates 2", " --snp-rate x", " --frobnicate 1", " --threads 1 extra"}) {
    const CommandResult r = run_generator(reference(), dir.file("u.bam"), args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.err.rfind("bench_generate: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const CommandResult missing = run_generator(dir.file("missing.fa"), dir.file("u.bam"), "");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace gpp::test
