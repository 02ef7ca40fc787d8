// Several -I, read as GATK reads them: the headers merged and the records merged in the order of
// htsjdk's MergingSamRecordIterator. Picard's MergeSamFiles (Debian picard-tools) merges with the
// same classes (SamFileHeaderMerger, MergingSamRecordIterator), so its output is the peer: the
// merged header's @RG/@PG lines and the record order must be its own, and calling the inputs must
// equal calling its merged BAM. The inputs: NA12878's reads over chr20:10.0-10.1 Mb split in two
// by read name (b's read group differs from a's under the same ID, so the merge renames it, and
// the two files' programs collide), and c, a's very records under another read group: every
// record of c ties with one of a under htsjdk's comparator, so their order is the priority
// queue's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/reads/aux_fields.hpp"
#include "pipeline/alignment_inputs.hpp"
#include "tests/pipeline/na12878_truth.hpp"
#include "tests/stages/markdup/picard_peer.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;
namespace na12878 = test::na12878;

void shell(const std::string& command) {
  const auto r = run_command("bash -o pipefail -c " + shell_quote(command));
  ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.err;
}

bool picard_installed() {
  return run_command("command -v java >/dev/null && command -v PicardCommandLine >/dev/null")
             .exit_code == 0;
}

class MultipleInputs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    const std::string bam = shell_quote(na12878::bam());
    // The input's header has no @HD: each part says it is coordinate-sorted.
    const std::string header =
        "(printf '@HD\\tVN:1.6\\tSO:coordinate\\n'; samtools view -H --no-PG " + bam +
        " | grep -v '^@RG' | grep -v '^@PG'; printf ";
    const std::string body = "samtools view " + bam + " | awk 'substr($1, length($1), 1) % 2 == ";
    const std::string to_bam = ") | samtools view --no-PG -b -o ";
    shell(header +
          "'@RG\\tID:NA12878\\tSM:NA12878\\n@PG\\tID:bwa\\tPN:bwa\\n@PG\\tID:md\\tPN:md\\tPP:"
          "bwa\\n'; " +
          body + "0'" + to_bam + file("a.bam"));
    shell(header +
          "'@RG\\tID:NA12878\\tSM:NA12878\\tPL:ILLUMINA\\n@PG\\tID:bwa\\tPN:bwa\\n@PG\\tID:md\\t"
          "PN:other\\tPP:bwa\\n'; " +
          body + "1' | sed 's/\\tRG:Z:NA12878/\\tRG:Z:NA12878\\tPG:Z:md/'" + to_bam +
          file("b.bam"));
    shell(header + "'@RG\\tID:lane3\\tSM:NA12878\\n'; " + body +
          "0' | sed 's/\\tRG:Z:NA12878/\\tRG:Z:lane3/'" + to_bam + file("c.bam"));
    // d: a's reads renamed, in a library of their own (each ties in position with one of a).
    shell("samtools view -h --no-PG " + file("a.bam") +
          " | sed 's/^@RG\tID:NA12878\tSM:NA12878/@RG\tID:lane4\tSM:NA12878\tLB:lib2/; "
          "s/\tRG:Z:NA12878/\tRG:Z:lane4/' | awk 'BEGIN{OFS=\"\\t\"} /^@/ {print; next} "
          "{$1 = $1 \"x\"; print}' | samtools view --no-PG -b -o " +
          file("d.bam"));
    for (const char* name : {"a.bam", "b.bam", "c.bam"}) {
      shell("samtools index " + file(name));
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string file(const std::string& name) { return dir_->file(name); }

  /// Picard MergeSamFiles of `inputs` (presorted: its MergingSamRecordIterator) into `output`.
  static void picard_merge(const std::vector<std::string>& inputs, const std::string& output) {
    std::string command =
        "PicardCommandLine MergeSamFiles ASSUME_SORTED=true SO=coordinate "
        "VALIDATION_STRINGENCY=SILENT QUIET=true O=" +
        shell_quote(output);
    for (const std::string& input : inputs) command += " I=" + shell_quote(input);
    shell(command + " && samtools index " + shell_quote(output));
  }

  void SetUp() override {
    if (needs_picard_ && !picard_installed()) {
      if (std::getenv("GPP_REQUIRE_PEERS") != nullptr) FAIL() << "Picard missing";
      GTEST_SKIP() << "Picard (java, PicardCommandLine) not installed";
    }
    if (!needs_picard_ && !test::gpu_available()) GTEST_SKIP() << "no usable GPU";
  }

  bool needs_picard_ = true;  ///< false: the GPU tests, which need a GPU instead

  static test::TempDir* dir_;
};

test::TempDir* MultipleInputs::dir_ = nullptr;

/// The header lines of `type` ("@RG", "@PG") of a BAM.
std::string header_lines(const std::string& bam, const std::string& type) {
  return run_command("samtools view -H --no-PG " + shell_quote(bam) + " | grep '^" + type + "'")
      .out;
}

/// gpu-pipeline call of `inputs` (each "-I x") to `vcf`, with `args`.
test::CommandResult call(const std::string& inputs, const std::string& vcf,
                         const std::string& args = "") {
  return run_command(shell_quote(test::binary_path()) + " call " + inputs + " -R " +
                     shell_quote(na12878::reference()) + " -O " + shell_quote(vcf) +
                     " --device cpu --verbosity WARNING" + args);
}

std::string records_of(const std::string& vcf) {
  return run_command("grep -v '^##' " + shell_quote(vcf)).out;
}

/// QNAME, FLAG, RNAME and POS of every record of a BAM, sorted: markdup writes samtools' order,
/// Picard its input's, so the flags are compared record by record, not in order.
std::string sorted_flag_table(const std::string& bam) {
  return run_command("samtools view " + shell_quote(bam) + " | cut -f 1-4 | LC_ALL=C sort").out;
}

/// The records of a BAM as SAM lines with their tags sorted: Picard writes the records it merges
/// with their tags in htsjdk's order, so tags are compared as sets.
std::string records_with_sorted_tags(const std::string& bam) {
  std::string records;
  for (const std::string& line : test::lines_of(run_command("samtools view " + bam).out)) {
    std::vector<std::string> fields = test::split(line, '\t');
    std::sort(fields.begin() + 11, fields.end());
    for (const std::string& field : fields) records += field + "\t";
    records += "\n";
  }
  return records;
}

/// Each record's name, flag, position and RG/PG values, in the order `inputs` give them.
std::string merged_table(AlignmentInputs& inputs) {
  std::string table;
  inputs.read_in_batches({}, [&](io::ReadBatch& batch) {
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const std::span<const std::uint8_t> aux = batch.read_aux(i);
      auto tag = [&](const char name[2]) {
        const std::uint8_t* field = io::find_aux_field(aux, name);
        return field == nullptr ? std::string("-")
                                : std::string(reinterpret_cast<const char*>(field + 1));
      };
      table += std::string(batch.read_name(i)) + "\t" + std::to_string(batch.flag[i]) + "\t" +
               std::to_string(batch.pos[i] + 1) + "\t" + tag("RG") + "\t" + tag("PG") + "\n";
    }
  });
  return table;
}

/// The same table of a BAM's records in file order.
std::string bam_table(const std::string& bam) {
  return run_command("samtools view " + shell_quote(bam) +
                     " | awk 'BEGIN{OFS=\"\\t\"} {rg=\"-\"; pg=\"-\"; for (i = 12; i <= NF; ++i) {"
                     " if ($i ~ /^RG:Z:/) rg=substr($i, 6); if ($i ~ /^PG:Z:/) pg=substr($i, 6) }"
                     " print $1, $2, $4, rg, pg}'")
      .out;
}

TEST_F(MultipleInputs, RecordsAndHeaderAsPicardMergesThem) {
  const std::vector<std::string> inputs{file("a.bam"), file("b.bam"), file("c.bam")};
  const std::string merged = file("abc.bam");
  picard_merge(inputs, merged);

  AlignmentInputs ours(inputs, {});
  const std::string table = merged_table(ours);
  const std::string picard = bam_table(merged);
  ASSERT_GT(picard.size(), 1000u);
  auto count = [](const std::string& bam) {
    return std::stoul(run_command("samtools view -c " + shell_quote(bam)).out);
  };
  EXPECT_EQ(test::lines_of(table).size(), count(na12878::bam()) + count(file("a.bam")))
      << "a, b and a's records again";
  EXPECT_TRUE(table == picard) << "the merged records differ from Picard's";
  // b's read group and md program renamed (NA12878.1, md.2 as Picard names them).
  EXPECT_NE(table.find("\tNA12878.1\tmd.2\n"), std::string::npos);
  const io::Header& header = ours.header();
  const std::string text = header.text();
  std::string our_groups, our_programs;
  for (const std::string& line : test::lines_of(text)) {
    if (line.starts_with("@RG")) our_groups += line + "\n";
    if (line.starts_with("@PG")) our_programs += line + "\n";
  }
  EXPECT_EQ(our_groups, header_lines(merged, "@RG"));
  EXPECT_EQ(our_programs, header_lines(merged, "@PG"));
  EXPECT_EQ(text.substr(0, text.find('\n')), "@HD\tVN:1.6\tGO:none\tSO:coordinate");
  EXPECT_EQ(text.substr(0, text.find('\n')),
            header_lines(merged, "@HD").substr(0, text.find('\n')));
  EXPECT_EQ(header.read_groups().size(), 3u);
}

// Calling the three inputs (through their indexes, with -L) = calling Picard's merge of them;
// the haplotype BAM too, header and records. Without -L, two inputs read whole.
TEST_F(MultipleInputs, CallEqualsCallOfPicardsMerge) {
  const std::string merged = file("abc_call.bam");
  picard_merge({file("a.bam"), file("b.bam"), file("c.bam")}, merged);
  const std::string interval = " -L chr20:10000000-10100000";
  auto r = call("-I " + file("a.bam") + " -I " + file("b.bam") + " -I " + file("c.bam"),
                file("three.vcf"), interval + " -bamout " + file("three_out.bam"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = call("-I " + merged, file("merged.vcf"), interval + " -bamout " + file("merged_out.bam"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string records = records_of(file("three.vcf"));
  EXPECT_GT(test::lines_of(records).size(), 200u);
  EXPECT_EQ(records, records_of(file("merged.vcf")));
  EXPECT_EQ(run_command("samtools view " + file("three_out.bam")).out,
            run_command("samtools view " + file("merged_out.bam")).out);
  EXPECT_EQ(header_lines(file("three_out.bam"), "@RG"),
            header_lines(file("merged_out.bam"), "@RG"));
  EXPECT_EQ(header_lines(file("three_out.bam"), "@PG"),
            header_lines(file("merged_out.bam"), "@PG"));

  const std::string two = file("ab.bam");
  picard_merge({file("a.bam"), file("b.bam")}, two);
  r = call("-I " + file("a.bam") + " -I " + file("b.bam"), file("two.vcf.gz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = call("-I " + two, file("ab.vcf.gz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto body = [](const std::string& vcf) {
    return run_command("bgzip -dc " + shell_quote(vcf) + " | grep -v '^##'").out;
  };
  EXPECT_EQ(body(file("two.vcf.gz")), body(file("ab.vcf.gz")));
  // The reads are NA12878's, split: the calls are those of the file they came from.
  r = call("-I " + na12878::bam(), file("whole.vcf.gz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(body(file("two.vcf.gz")), body(file("whole.vcf.gz")));
}

// Inputs sorted by name are merged by htsjdk's queryname comparator, as MergeSamFiles
// SO=queryname merges them (a and c hold the same names: every tie is broken by the pair flags,
// then the queue); markdup of a, b and d sorted by name is Picard MarkDuplicates' (queryname
// semantics: whole templates).
TEST_F(MultipleInputs, QuerynameInputsMergedAsPicardMergesThem) {
  // htsjdk's queryname order (samtools sort -n orders numbers within names by value).
  for (const char* name : {"a", "b", "c", "d"}) {
    shell("PicardCommandLine SortSam SO=queryname QUIET=true VALIDATION_STRINGENCY=SILENT I=" +
          file(std::string(name) + ".bam") + " O=" + file(std::string(name) + "_n.bam"));
  }
  const std::vector<std::string> inputs{file("a_n.bam"), file("b_n.bam"), file("c_n.bam")};
  shell(
      "PicardCommandLine MergeSamFiles ASSUME_SORTED=true SO=queryname QUIET=true "
      "VALIDATION_STRINGENCY=SILENT O=" +
      file("abc_n.bam") + " I=" + inputs[0] + " I=" + inputs[1] + " I=" + inputs[2]);
  AlignmentInputs ours(inputs, {});
  EXPECT_EQ(ours.header().sort_order(), "queryname");
  const std::string table = merged_table(ours);
  EXPECT_GT(test::lines_of(table).size(), 70000u);
  EXPECT_TRUE(table == bam_table(file("abc_n.bam")));

  const std::string marked = " I=" + inputs[0] + " I=" + inputs[1] + " I=" + file("d_n.bam");
  shell("PicardCommandLine MarkDuplicates QUIET=true VALIDATION_STRINGENCY=SILENT" + marked +
        " O=" + file("n_picard.bam") + " M=" + file("n_picard.txt"));
  std::string options = marked;
  for (std::size_t at; (at = options.find(" I=")) != std::string::npos;) {
    options.replace(at, 3, " -I ");
  }
  const auto r = run_command(shell_quote(test::binary_path()) + " markdup" + options + " -O " +
                             file("n_ours.bam") + " -M " + file("n_ours.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(sorted_flag_table(file("n_ours.bam")) == sorted_flag_table(file("n_picard.bam")));
  EXPECT_EQ(test::metrics_body(file("n_ours.txt")), test::metrics_body(file("n_picard.txt")));

  // Inputs of two sort orders: Picard's error.
  const auto mixed = run_command(shell_quote(test::binary_path()) + " markdup -I " + inputs[0] +
                                 " -I " + file("b.bam") + " -O " + file("mixed.bam"));
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_NE(mixed.err.find(file("b.bam") + ": sort order coordinate, while " + inputs[0] +
                           " is queryname"),
            std::string::npos)
      << mixed.err;
}

// BaseRecalibrator and ApplyBQSR of the inputs = of Picard's merge: the same table (b's renamed
// read group a row of its own) and the same recalibrated records, in the merged order.
TEST_F(MultipleInputs, BqsrAndApplyBqsrEqualThoseOfPicardsMerge) {
  // BaseRecalibrator needs every contig of the header in the reference, which holds chr20 only.
  for (const char* name : {"a", "b", "c"}) {
    shell("samtools view -h --no-PG " + file(std::string(name) + ".bam") +
          " | grep -v -P '^@SQ\\tSN:(?!chr20\\t)' | samtools view --no-PG -b -o " +
          file(std::string(name) + "20.bam"));
  }
  const std::string merged = file("abc_bqsr.bam");
  picard_merge({file("a20.bam"), file("b20.bam"), file("c20.bam")}, merged);
  const std::string three =
      " -I " + file("a20.bam") + " -I " + file("b20.bam") + " -I " + file("c20.bam");
  const std::string bin = shell_quote(test::binary_path());
  const std::string known =
      " --known-sites " +
      shell_quote(test::data_path(na12878::kDir + "test_nist.b37_chr20_100kbp_at_10mb.vcf.gz"));
  const std::string common = " -R " + shell_quote(na12878::reference()) + " --device cpu";
  auto r = run_command(bin + " bqsr" + three + known + common + " -O " + file("three.table"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_command(bin + " bqsr -I " + merged + known + common + " -O " + file("merged.table"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string table = test::read_file(file("three.table"));
  EXPECT_NE(table.find("NA12878.1"), std::string::npos);
  EXPECT_EQ(table, test::read_file(file("merged.table")));

  r = run_command(bin + " applybqsr" + three + common + " --bqsr-recal-file " +
                  file("three.table") + " -O " + file("three_recal.bam"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_command(bin + " applybqsr -I " + merged + common + " --bqsr-recal-file " +
                  file("three.table") + " -O " + file("merged_recal.bam"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string records = records_with_sorted_tags(file("three_recal.bam"));
  EXPECT_GT(test::lines_of(records).size(), 70000u);
  EXPECT_TRUE(records == records_with_sorted_tags(file("merged_recal.bam")));
  EXPECT_EQ(header_lines(file("three_recal.bam"), "@RG"),
            header_lines(file("merged_recal.bam"), "@RG"));
}

// Picard MarkDuplicates given the inputs (it merges them as MergeSamFiles does) against markdup
// given them: the same flags and metrics. Here d is a's reads renamed, in a library of their own,
// so that every one of them ties in position with one of a. The records come in samtools' order
// (as for one input: markdup equals Picard on `samtools sort` of its input), the flags compared
// record by record. Under a tight --max-memory the spilled path writes the same BAM.
TEST_F(MultipleInputs, MarkdupEqualsPicardGivenTheInputs) {
  const std::string inputs =
      " -I " + file("a.bam") + " -I " + file("b.bam") + " -I " + file("d.bam");
  shell("PicardCommandLine MarkDuplicates QUIET=true VALIDATION_STRINGENCY=SILENT I=" +
        file("a.bam") + " I=" + file("b.bam") + " I=" + file("d.bam") + " O=" + file("picard.bam") +
        " M=" + file("picard.txt"));
  const std::string bin = shell_quote(test::binary_path());
  auto r = run_command(bin + " markdup" + inputs + " -O " + file("ours.bam") + " -M " +
                       file("ours.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string table = sorted_flag_table(file("ours.bam"));
  EXPECT_GT(test::lines_of(table).size(), 70000u);
  EXPECT_TRUE(table == sorted_flag_table(file("picard.bam")));
  EXPECT_EQ(test::metrics_body(file("ours.txt")), test::metrics_body(file("picard.txt")));
  EXPECT_NE(test::read_file(file("ours.txt")).find("\nlib2\t"), std::string::npos);

  r = run_command(bin + " markdup" + inputs + " -O " + file("bounded.bam") + " --max-memory 512K" +
                  " --tmp-dir " + dir_->path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("spilled run 2 "), std::string::npos) << r.err;
  EXPECT_TRUE(run_command("samtools view " + file("bounded.bam")).out ==
              run_command("samtools view " + file("ours.bam")).out);
}

// run given the inputs = run given Picard's merge of them: the BAM and the VCF, in memory and
// within a --max-memory that spills.
TEST_F(MultipleInputs, RunEqualsRunOfPicardsMerge) {
  for (const char* name : {"a", "b"}) {
    shell("samtools view -h --no-PG " + file(std::string(name) + ".bam") +
          " | grep -v -P '^@SQ\\tSN:(?!chr20\\t)' | samtools view --no-PG -b -o " +
          file(std::string(name) + "_run.bam"));
  }
  const std::string merged = file("ab_run.bam");
  picard_merge({file("a_run.bam"), file("b_run.bam")}, merged);
  const std::string bin = shell_quote(test::binary_path());
  const std::string known =
      " --known-sites " +
      shell_quote(test::data_path(na12878::kDir + "test_nist.b37_chr20_100kbp_at_10mb.vcf.gz"));
  const std::string common = " -R " + shell_quote(na12878::reference()) + known +
                             " --device cpu --prefix s -L chr20:10000000-10100000";
  for (const std::string& budget :
       {std::string(), " --max-memory 512K --tmp-dir " + dir_->path().string()}) {
    test::TempDir two, one;
    auto r = run_command(bin + " run -I " + file("a_run.bam") + " -I " + file("b_run.bam") +
                         common + budget + " -o " + two.path().string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run_command(bin + " run -I " + merged + common + budget + " -o " + one.path().string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string records = records_with_sorted_tags(two.file("s.md.bqsr.bam"));
    EXPECT_GT(test::lines_of(records).size(), 50000u);
    EXPECT_TRUE(records == records_with_sorted_tags(one.file("s.md.bqsr.bam"))) << budget;
    auto calls = [](const std::string& vcf) {
      return run_command("bgzip -dc " + vcf + " | grep -v '^##'").out;
    };
    EXPECT_GT(test::lines_of(calls(two.file("s.vcf.gz"))).size(), 200u);
    EXPECT_EQ(calls(two.file("s.vcf.gz")), calls(one.file("s.vcf.gz"))) << budget;
    EXPECT_EQ(test::read_file(two.file("s.recal.table")),
              test::read_file(one.file("s.recal.table")));
  }
}

// Inputs not marked sorted are held and put in samtools' coordinate order, as one such input is:
// the calls of `samtools sort` of the records of both.
TEST_F(MultipleInputs, UnsortedInputsAreSortedTogether) {
  for (const char* name : {"a", "b"}) {
    shell("samtools view -h --no-PG " + file(std::string(name) + ".bam") +
          " | grep -v '^@HD' | samtools view --no-PG -b -o " + file(std::string(name) + "_u.bam"));
  }
  shell("samtools cat --no-PG " + file("a_u.bam") + " " + file("b_u.bam") +
        " | samtools sort --no-PG -o " + file("ab_sorted.bam"));
  auto r = call("-I " + file("a_u.bam") + " -I " + file("b_u.bam"), file("u.vcf"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = call("-I " + file("ab_sorted.bam"), file("s.vcf"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(test::lines_of(records_of(file("u.vcf"))).size(), 200u);
  EXPECT_EQ(records_of(file("u.vcf")), records_of(file("s.vcf")));
}

// An input without records changes nothing, and one of the inputs may be standard input.
TEST_F(MultipleInputs, EmptyInputAndStandardInputAmongThem) {
  shell("samtools view -H -b -o " + file("empty.bam") + " " + file("a.bam"));
  const std::string interval = " -L chr20:10000000-10100000";
  auto r = call("-I " + file("a.bam") + " -I " + file("b.bam"), file("ab_plain.vcf"), interval);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = call("-I " + file("a.bam") + " -I " + file("empty.bam") + " -I " + file("b.bam"),
           file("with_empty.vcf"), interval);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_command("cat " + file("a.bam") + " | " + shell_quote(test::binary_path()) +
                  " call -I - -I " + file("b.bam") + " -R " + shell_quote(na12878::reference()) +
                  " -O " + file("stdin.vcf") + " --device cpu --verbosity WARNING" + interval);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string records = records_of(file("ab_plain.vcf"));
  EXPECT_GT(test::lines_of(records).size(), 200u);
  EXPECT_EQ(records_of(file("with_empty.vcf")), records);
  EXPECT_EQ(records_of(file("stdin.vcf")), records);
}

TEST_F(MultipleInputs, BadInputsAreErrorsNamingTheFile) {
  // Another sample in b: two samples, one called with --sample-name.
  shell("samtools view -h --no-PG " + file("b.bam") +
        " | sed 's/^\\(@RG.*\\)SM:NA12878/\\1SM:other/' | samtools view --no-PG -b -o " +
        file("other.bam"));
  auto r = call("-I " + file("a.bam") + " -I " + file("other.bam"), file("x.vcf"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(file("a.bam") + ", " + file("other.bam") +
                       ": 2 samples in the read groups ('NA12878', 'other')"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(file("x.vcf")));
  r = call("-I " + file("a.bam") + " -I " + file("other.bam"), file("x.vcf"),
           " --sample-name NA12878");
  EXPECT_EQ(r.exit_code, 0) << r.err;

  // A contig of another length.
  shell("samtools view -h --no-PG " + file("b.bam") +
        " | sed 's/^\\(@SQ\\tSN:chr20\\tLN:\\)[0-9]*/\\1123/' | samtools view --no-PG -b -o " +
        file("length.bam") + " 2>/dev/null || true");
  r = call("-I " + file("a.bam") + " -I " + file("length.bam"), file("y.vcf"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(file("length.bam") + ": its contigs differ from those of " + file("a.bam")),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(file("y.vcf")));

  // Records out of order in an input marked coordinate-sorted.
  shell("(samtools view -H --no-PG " + file("b.bam") + "; samtools view " + file("b.bam") +
        " | tac) | samtools view --no-PG -b -o " + file("reversed.bam"));
  r = call("-I " + file("a.bam") + " -I " + file("reversed.bam"), file("z.vcf"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(file("reversed.bam") + ": the records are not in coordinate order"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(file("z.vcf")));

  r = call("-I - -I -", file("w.vcf"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("standard input (-) can be given once among the inputs"), std::string::npos)
      << r.err;
}

class MultipleInputsGpu : public MultipleInputs {
 protected:
  MultipleInputsGpu() { needs_picard_ = false; }
};

// The merged reads on the GPU: run (markdup, BQSR, calling) and call give the CPU's outputs.
TEST_F(MultipleInputsGpu, RunAndCallEqualCpu) {
  for (const char* name : {"a", "b"}) {
    shell("samtools view -h --no-PG " + file(std::string(name) + ".bam") +
          " | grep -v -P '^@SQ\\tSN:(?!chr20\\t)' | samtools view --no-PG -b -o " +
          file(std::string(name) + "_gpu.bam"));
  }
  const std::string bin = shell_quote(test::binary_path());
  const std::string inputs = " -I " + file("a_gpu.bam") + " -I " + file("b_gpu.bam");
  const std::string common =
      " -R " + shell_quote(na12878::reference()) + " --known-sites " +
      shell_quote(test::data_path(na12878::kDir + "test_nist.b37_chr20_100kbp_at_10mb.vcf.gz")) +
      " --prefix s -L chr20:10000000-10100000";
  test::TempDir gpu, cpu;
  auto r = run_command(bin + " run" + inputs + common + " --device gpu -o " + gpu.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_command(bin + " run" + inputs + common + " --device cpu -o " + cpu.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(run_command("samtools view " + gpu.file("s.md.bqsr.bam")).out ==
              run_command("samtools view " + cpu.file("s.md.bqsr.bam")).out);
  auto calls = [](const std::string& vcf) {
    return run_command("bgzip -dc " + vcf + " | grep -v '^##'").out;
  };
  EXPECT_GT(test::lines_of(calls(gpu.file("s.vcf.gz"))).size(), 200u);
  EXPECT_EQ(calls(gpu.file("s.vcf.gz")), calls(cpu.file("s.vcf.gz")));
  EXPECT_EQ(test::read_file(gpu.file("s.recal.table")), test::read_file(cpu.file("s.recal.table")));
}

// Lanes large enough that the GPU block decoder is running while they are read: it is lent to
// one input's reader, the others inflate on the CPU (readers sharing it corrupted records).
TEST_F(MultipleInputsGpu, LanesReadWhileTheDecoderRuns) {
  const std::string ref = file("gen.fa");
  shell("samtools faidx " +
        shell_quote(test::data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz")) +
        " chr20 > " + ref + " && samtools faidx " + ref);
  shell(shell_quote(test::bench_generate_path()) + " " + ref + " " + file("gen.bam") +
        " 400000 --sorted --duplicates 0.06 > /dev/null 2>&1");
  shell("samtools view -b -o " + file("lane1.bam") + " -e 'qname =~ \"[02468]$\"' " +
        file("gen.bam") + " && samtools view -b -o " + file("lane2.bam") +
        " -e '!(qname =~ \"[02468]$\")' " + file("gen.bam"));
  const std::string bin = shell_quote(test::binary_path());
  auto r = run_command(bin + " markdup -I " + file("lane1.bam") + " -I " + file("lane2.bam") +
                       " --device gpu -O " + file("lanes_md.bam") + " -M " + file("lanes.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_command(bin + " markdup -I " + file("gen.bam") + " --device gpu -O " +
                  file("gen_md.bam") + " -M " + file("gen.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string table = sorted_flag_table(file("lanes_md.bam"));
  EXPECT_EQ(test::lines_of(table).size(), 800000u);
  EXPECT_TRUE(table == sorted_flag_table(file("gen_md.bam")));
  EXPECT_EQ(test::metrics_body(file("lanes.txt")), test::metrics_body(file("gen.txt")));
}

}  // namespace
}  // namespace gpp::pipeline
