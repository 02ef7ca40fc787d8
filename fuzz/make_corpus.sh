#!/usr/bin/env bash
# Builds the fuzz targets' seed corpora from the repository's test files:
#   fuzz/make_corpus.sh OUT_DIR      -> OUT_DIR/<target>/ for every target in fuzz/CMakeLists.txt
# Each seed is small (a few KiB: libFuzzer mutates small inputs best): the heads of the test
# files in the form each target reads, plus the hand-written seeds in fuzz/seeds/<target>/.
# Needs samtools, bgzip and python3 (scripts/install_deps.sh installs them).
# No pipefail: the heads below close their pipes early.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: fuzz/make_corpus.sh OUT_DIR}"
data="$root/tests/data"
targets=(alignment_file bam_records bgzf_blocks deflate_stream fasta_index intervals known_sites
  pairhmm_batch recal_table sw_pairs)
for t in "${targets[@]}"; do
  mkdir -p "$out/$t"
  if [ -d "$root/fuzz/seeds/$t" ]; then cp "$root/fuzz/seeds/$t"/* "$out/$t/"; fi
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

bams=(
  "$data/gatk_golden/bqsr_chr17/NA12878.chr17_69k_70k.dictFix.bam"
  "$data/gatk_golden/applybqsr/HiSeq.1mb.1RG.2k_lines.alternate.bam"
  "$data/nfcore_chr22_40kb/test.paired_end.sorted.bam"
  "$data/real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"
)
n=0
for bam in "${bams[@]}"; do
  n=$((n + 1))
  # alignment_file: an uncompressed BAM stream (the target compresses it) and SAM text.
  bgzip -dc "$bam" | head -c 12288 >"$out/alignment_file/bam$n" || true
  samtools view -h "$bam" 2>/dev/null | head -n 40 >"$out/alignment_file/sam$n.sam" || true
  # bam_records: the records after the header.
  header_bytes=$(samtools view -H -b "$bam" | bgzip -dc | wc -c)
  bgzip -dc "$bam" | tail -c +$((header_bytes + 1)) | head -c 4096 >"$out/bam_records/records$n" || true
done
cp "$data/edge_cases/edge_cases.sam" "$out/alignment_file/edge_cases.sam"
samtools view -b --no-PG "$data/edge_cases/edge_cases.sam" | bgzip -dc >"$out/alignment_file/edge_cases.bam"
header_bytes=$(samtools view -H -b --no-PG "$data/edge_cases/edge_cases.sam" | bgzip -dc | wc -c)
tail -c +$((header_bytes + 1)) "$out/alignment_file/edge_cases.bam" >"$out/bam_records/edge_cases"

# bgzf_blocks: small BGZF files; deflate_stream: their blocks' DEFLATE streams behind the size.
printf 'ACGT\n%.0s' $(seq 1 50) | bgzip -c >"$out/bgzf_blocks/text.gz"
samtools view -b --no-PG "$data/edge_cases/edge_cases.sam" >"$out/bgzf_blocks/edge_cases.bam"
samtools view -b --no-PG -s 0.05 "$data/gatk_golden/bqsr_chr17/NA12878.chr17_69k_70k.dictFix.bam" \
  >"$out/bgzf_blocks/sample.bam"
cp "$data/nfcore_chr22_40kb/mills_and_1000G.indels.vcf.gz" "$out/bgzf_blocks/"
python3 - "$out" <<'PY'
import os, struct, sys, zlib
out = sys.argv[1]
src = os.path.join(out, "bgzf_blocks")
n = 0
for name in sorted(os.listdir(src)):
    data = open(os.path.join(src, name), "rb").read()
    at = 0
    while at + 18 <= len(data) and n < 40:
        bsize = struct.unpack_from("<H", data, at + 16)[0]
        block = data[at:at + bsize + 1]
        if len(block) < 26:
            break
        stream, isize = block[18:-8], struct.unpack_from("<I", block, len(block) - 4)[0]
        if 0 < len(stream) <= 8192:
            size = struct.pack("<I", isize)[:3]
            open(os.path.join(out, "deflate_stream", f"{name}.{n}"), "wb").write(size + stream)
            n += 1
        at += bsize + 1
# Streams of each block type: stored, fixed and dynamic codes.
text = b"ACGTTGCA" * 40 + bytes(range(256))
for level, tag in ((0, "stored"), (1, "fast"), (9, "best")):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    stream = c.compress(text) + c.flush()
    open(os.path.join(out, "deflate_stream", tag), "wb").write(
        struct.pack("<I", len(text))[:3] + stream)
PY

# fasta_index, intervals, known_sites, pairhmm_batch, sw_pairs, recal_table: text heads.
for fai in "$data"/*/*.fai "$data"/*/*/*.fai; do
  cp "$fai" "$out/fasta_index/$(basename "$fai")"
done
{ printf '\001'; cat "$data/nfcore_chr22_40kb/genome.bed"; } >"$out/intervals/genome.bed"
{ printf '\001'; cat "$data/real_na12878_chr20_hg19/test_nist.b37_chr20_100kbp_at_10mb.bed"; } \
  >"$out/intervals/nist.bed"
for v in "$data/gatk_golden/bqsr_chr17/bqsr.fakeSitesForTesting.b37.chr17.vcf" \
  "$data/gatk_golden/bqsr_chr17/dbsnp_132.b37.excluding_sites_after_129.chr17_69k_70k.vcf" \
  "$data/nfcore_chr22_40kb/mills_and_1000G.indels.vcf.gz" \
  "$data/nfcore_chr22_40kb/dbsnp_146.hg38.vcf.gz"; do
  # The target writes ##fileformat itself; keep a few header lines and the first records.
  if [[ $v == *.gz ]]; then bgzip -dc "$v"; else cat "$v"; fi | grep -v '^##fileformat' | grep -v '^##' | head -n 30 \
    >"$out/known_sites/$(basename "$v" .gz)"
done
head -n 24 "$data/pairhmm_bench/tiny.in" >"$out/pairhmm_batch/tiny.in"
head -n 3 "$data/pairhmm_bench/10s.in" | cut -c1-2000 >"$out/pairhmm_batch/10s_head.in" || true
for tsv in "$data/gatk_golden/sw/aligner_cases.tsv"; do
  # The test cases carry expected columns after the seven the command reads.
  grep -v '^#' "$tsv" | cut -f1-7 | head -n 20 >"$out/sw_pairs/aligner_cases.tsv"
done
grep -v '^#' "$data/gatk_golden/sw/calculate_cigar_cases.tsv" | head -n 20 |
  awk -F'\t' '{print $1 "\t" $2 "\t200\t-150\t-260\t-11\tHAPLOTYPE_TO_REFERENCE"}' \
    >"$out/sw_pairs/calculate_cigar_cases.tsv"
python3 - "$out/recal_table" "$data/gatk_golden/bqsr_chr17/expected.NA12878.chr17_69k_70k.txt" \
  "$data/nfcore_chr22_40kb/test.baserecalibrator.table" <<'PY'
# A recalibration table cut to its first rows per table (row counts in the definitions fixed).
import os, sys
out = sys.argv[1]
for path in sys.argv[2:]:
    lines = open(path).read().split("\n")
    result, i = [lines[0]], 1
    keep = 6
    while i < len(lines):
        line = lines[i]
        if line.startswith("#:GATKTable:") and line.endswith(":;"):
            parts = line.split(":")
            rows = int(parts[3])
            parts[3] = str(min(rows, keep))
            result += [":".join(parts), lines[i + 1], lines[i + 2]]
            result += lines[i + 3:i + 3 + min(rows, keep)]
            result.append("")
            i += 3 + rows + 1
        else:
            i += 1
    open(os.path.join(out, os.path.basename(path)), "w").write("\n".join(result) + "\n")
PY
find "$out" -type f -size 0 -delete
for t in "${targets[@]}"; do
  count=$(find "$out/$t" -type f | wc -l)
  echo "$t: $count seeds" >&2
  [ "$count" -gt 0 ] || { echo "make_corpus: no seeds for $t" >&2; exit 1; }
done
