// Base alignment quality (BAQ) as GATK's BAQ.java computes it for BaseRecalibrator --enable-baq:
// Heng Li's profile-HMM forward-backward ("hmm_glocal", gap open 10^-4, extension 0.1, band 7,
// qualities raised to at least 4), then each aligned base's quality capped by its posterior.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace gpp::stages::bqsr {

/**
 * @brief hmm_glocal: posterior state and phred-scaled error of each query base in
 * [qstart, qstart + l_query) aligned glocally against `ref`.
 * @param state  out: per base (k - 1) << 2 | (0 match, 1 insertion), -1 when unaligned
 * @param q      out: phred posterior error, capped to 4..99
 */
void hmm_glocal(std::string_view ref, std::string_view query, int qstart, int l_query,
                std::span<const std::uint8_t> quals, std::vector<int>& state,
                std::vector<std::uint8_t>& q);

/**
 * @brief BAQ.calcBAQFromHMM + capBaseByBAQ for a read without soft clips: BAQ-capped qualities of
 * every base, or false when the reference window (read span padded by 3 and by leading/trailing
 * insertions) runs past the contig end, as GATK then skips the read.
 * @param cigar             the read's CIGAR without clipping operations
 * @param leading_hard_clip true when GATK's CIGAR starts with H (then a leading I is not padded)
 * @param start0            0-based alignment start
 */
bool baq_qualities(std::string_view contig, std::int64_t start0,
                   std::span<const std::uint32_t> cigar, bool leading_hard_clip,
                   bool trailing_hard_clip, std::string_view bases,
                   std::span<const std::uint8_t> quals, std::vector<std::uint8_t>& baq);

}  // namespace gpp::stages::bqsr
