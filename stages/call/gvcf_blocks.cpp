#include "stages/call/gvcf_blocks.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "stages/call/genotype_assignment.hpp"
#include "stages/call/gvcf_format.hpp"
#include "stages/call/reference_confidence.hpp"

namespace gpp::stages::call {

namespace {

bool within(const GqBand& band, int gq) { return gq >= band.lower && gq < band.upper; }

std::string site_text(std::int32_t contig, std::int64_t position) {
  return "contig index " + std::to_string(contig) + " position " + std::to_string(position + 1);
}

}  // namespace

std::vector<int> default_gq_band_upper_bounds() {
  std::vector<int> bounds;
  for (int gq = 1; gq <= 60; ++gq) bounds.push_back(gq);
  for (int gq : {70, 80, 90, 99}) bounds.push_back(gq);
  return bounds;
}

std::vector<GqBand> gq_bands(std::span<const int> upper_bounds) {
  const auto malformed = [](const std::string& what) {
    return Error("-GQB (--gvcf-gq-bands): the GQ bands are malformed: " + what +
                 "; give strictly increasing exclusive upper bounds in [1, 100]");
  };
  if (upper_bounds.empty()) throw malformed("the list is empty");
  std::vector<GqBand> bands;
  int last = 0;
  for (const int value : upper_bounds) {
    const std::string text = std::to_string(value);
    if (value < 0) throw malformed(text + " is negative");
    if (value > kMaxGenotypeQuality + 1) throw malformed(text + " is above 100");
    if (value < last) throw malformed(text + " comes after " + std::to_string(last));
    if (value == last) throw malformed(text + " appears twice (or is 0)");
    bands.push_back({last, value});
    last = value;
  }
  // GATK adds a top band when the last bound leaves GQs up to 99 uncovered.
  if (last <= kMaxGenotypeQuality) bands.push_back({last, kMaxGenotypeQuality + 1});
  return bands;
}

HomRefBlock::HomRefBlock(const ReferenceSite& first, GqBand band) { restart(first, band); }

void HomRefBlock::restart(const ReferenceSite& first, GqBand band) {
  if (band.lower < 0 || band.lower > band.upper || band.upper > kMaxGenotypeQuality + 1) {
    throw Error("internal error: GQ band [" + std::to_string(band.lower) + ", " +
                std::to_string(band.upper) + ") outside [0, 100]");
  }
  contig_ = first.contig;
  start_ = first.position;
  end_ = first.position + 1;
  ref_base_ = first.ref_base;
  band_ = band;
  ploidy_ = first.ploidy;
  depths_.assign(1, std::max(first.depth, 0));  // GVCFBlock: DP must be >= 0
  min_pls_.assign(first.pls.begin(), first.pls.end());
  gq_ = first.pls.empty() ? first.gq : gq_from_pls(first.pls);
}

bool HomRefBlock::is_contiguous(std::int32_t contig, std::int64_t position) const {
  return contig == contig_ && position >= start_ - 1 && position <= end_;
}

bool HomRefBlock::can_merge(const ReferenceSite& site) const {
  return within(band_, std::min(site.gq, kMaxGenotypeQuality)) && site.ploidy == ploidy_ &&
         (min_pls_.empty() || site.pls.empty() || site.pls.size() == min_pls_.size());
}

void HomRefBlock::add(const ReferenceSite& site) {
  if (site.contig != contig_ || site.position != end_) {
    throw Error("internal error: reference site at " + site_text(site.contig, site.position) +
                " does not follow the hom-ref block ending at " + site_text(contig_, end_ - 1));
  }
  if (!can_merge(site)) {
    throw Error("internal error: reference site at " + site_text(site.contig, site.position) +
                " does not fit the hom-ref block's GQ band, ploidy or PL count");
  }
  if (min_pls_.empty()) {
    min_pls_ = site.pls;
  } else {
    for (std::size_t i = 0; i < site.pls.size(); ++i) {
      min_pls_[i] = std::min(min_pls_[i], site.pls[i]);
    }
  }
  gq_ = min_pls_.empty() ? std::min(gq_, site.gq) : gq_from_pls(min_pls_);
  end_ = site.position + 1;
  depths_.push_back(std::max(site.depth, 0));
}

int HomRefBlock::min_depth() const { return *std::min_element(depths_.begin(), depths_.end()); }

int HomRefBlock::median_depth() const {
  // MathUtils.median (the mean of the two middle values for an even count), then Math.round:
  // depths are >= 0, so x.5 rounds up.
  std::vector<int>& depths = median_scratch_;
  depths = depths_;
  const std::size_t middle = depths.size() / 2;
  std::nth_element(depths.begin(), depths.begin() + static_cast<std::ptrdiff_t>(middle),
                   depths.end());
  const std::int64_t upper = depths[middle];
  if (depths.size() % 2 == 1) return static_cast<int>(upper);
  const std::int64_t lower =
      *std::max_element(depths.begin(), depths.begin() + static_cast<std::ptrdiff_t>(middle));
  return static_cast<int>((lower + upper + 1) / 2);
}

ReferenceBlock HomRefBlock::record(bool floor_blocks) const {
  ReferenceBlock block;
  block.contig = contig_;
  block.start = start_;
  block.end = end_;
  block.ref_base = ref_base_;
  block.ploidy = ploidy_;
  block.depth = median_depth();
  if (floor_blocks) {
    block.gq = band_.lower;
  } else {
    block.min_depth = min_depth();
    block.gq = gq_;
    block.pls = min_pls_;
  }
  return block;
}

GvcfBlockCombiner::GvcfBlockCombiner(std::vector<VcfContig> contigs, GvcfOptions options)
    : contigs_(std::move(contigs)), mode_(options.mode), floor_blocks_(options.floor_blocks) {
  if (mode_ == ReferenceConfidenceMode::kNone) {
    throw Error("internal error: gVCF output without a reference-confidence mode");
  }
  if (mode_ == ReferenceConfidenceMode::kGvcf) bands_ = gq_bands(options.gq_band_upper_bounds);
}

const GqBand& GvcfBlockCombiner::band_of(int gq) const {
  // GVCFBlockCombiner.createNewBlock: a site without a GQ goes to the band of 0.
  const int banded = std::clamp(gq, 0, kMaxGenotypeQuality);
  const auto band = std::upper_bound(bands_.begin(), bands_.end(), banded,
                                     [](int value, const GqBand& b) { return value < b.upper; });
  return *band;  // the bands cover [0, 100)
}

void GvcfBlockCombiner::write_block(std::string& out) {
  if (!block_open_) return;
  append_gvcf_block_record(out, block_->record(floor_blocks_), contigs_);
  block_open_ = false;
}

void GvcfBlockCombiner::add(const ReferenceSite& site, std::string& out) {
  if (mode_ == ReferenceConfidenceMode::kBpResolution) {
    append_gvcf_site_record(out, site, contigs_);
    return;
  }
  if (block_open_ && !block_->is_contiguous(site.contig, site.position)) write_block(out);
  if (covered_end_ >= 0) {
    // GVCFBlockCombiner.addHomRefSite: a site under the last call's reference span is dropped.
    if (site.contig == covered_contig_ && site.position < covered_end_) return;
    covered_contig_ = -1;
    covered_end_ = -1;
  }
  if (block_open_ && block_->can_merge(site)) {
    block_->add(site);
    return;
  }
  write_block(out);
  // The block's buffers are kept from block to block (millions of blocks in a genome).
  if (block_) {
    block_->restart(site, band_of(site.gq));
  } else {
    block_.emplace(site, band_of(site.gq));
  }
  block_open_ = true;
}

void GvcfBlockCombiner::add(const VariantCall& call, std::string& out) {
  if (mode_ == ReferenceConfidenceMode::kGvcf) {
    write_block(out);
    covered_contig_ = call.contig;
    covered_end_ = call.end();
  }
  append_gvcf_call_record(out, call, contigs_);
}

void GvcfBlockCombiner::finish(std::string& out) { write_block(out); }

}  // namespace gpp::stages::call
