// Reads made in a test from the nf-core chr22 piece (tests/data/nfcore_chr22_40kb/genome.fasta,
// 40,001 bases): SAM lines of perfect 150-base reads, a base changed where a SNP is planted.
#pragma once

#include <cctype>
#include <cstdint>
#include <fstream>
#include <string>

#include "tests/test_support.hpp"

namespace gpp::test::synthetic {

/// The bases of genome.fasta's one contig (chr22), upper case.
inline const std::string& chr22_bases() {
  static const std::string bases = [] {
    std::ifstream in(data_path("nfcore_chr22_40kb/genome.fasta"));
    std::string sequence;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line[0] != '>') sequence += line;
    }
    for (char& base : sequence) base = static_cast<char>(std::toupper(base));
    return sequence;
  }();
  return bases;
}

/// The base a planted SNP puts in place of `base`: G for A, else A.
inline char planted_base(char base) { return base == 'A' ? 'G' : 'A'; }

/// A forward read of `bases` (the contig `contig`'s) from 0-based `start`, 150 bases, 150M,
/// MAPQ 60, qualities 40, read group rg; `snp` (0-based, when within) carries planted_base.
inline std::string read_line(const std::string& name, const std::string& contig,
                             const std::string& bases, std::int64_t start, std::int64_t snp = -1) {
  std::string sequence = bases.substr(static_cast<std::size_t>(start), 150);
  if (snp >= start && snp < start + 150) {
    char& base = sequence[static_cast<std::size_t>(snp - start)];
    base = planted_base(base);
  }
  return name + "\t0\t" + contig + "\t" + std::to_string(start + 1) + "\t60\t150M\t*\t0\t0\t" +
         sequence + "\t" + std::string(150, 'I') + "\tRG:Z:rg\n";
}

/// 40 reads over 0-based `snp` of `contig`, starting every 3 bases; every other one (a
/// heterozygous SNP) or every one (`homozygous`) carries it.
inline std::string reads_over(const std::string& prefix, const std::string& contig,
                              const std::string& bases, std::int64_t snp, bool homozygous = false) {
  std::string sam;
  for (int i = 0; i < 40; ++i) {
    sam += read_line(prefix + std::to_string(i), contig, bases, snp - 140 + 3 * i,
                     homozygous || i % 2 == 1 ? snp : -1);
  }
  return sam;
}

}  // namespace gpp::test::synthetic
