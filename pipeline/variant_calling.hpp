// Variant calling over reads held in memory, shared by `call` and `run`: the sample, the contigs
// the reads and intervals need (checked against the reference before any work), each contig's
// reference bases and reads handed to the caller, and the VCF written.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/genome/intervals.hpp"
#include "io/genome/reference.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "stages/call/caller_options.hpp"
#include "stages/call/haplotype_caller.hpp"
#include "stages/call/variant_call.hpp"

namespace gpp::pipeline {

/// The one sample of the read groups (SM); `input` names the file in the error.
/// @throws gpp::Error when there is no read group, a read group has no SM, or SMs differ
std::string single_sample(const io::Header& header, const std::string& input);

/// Which header contigs the work needs: those with an interval, or without intervals those with
/// reads.
std::vector<bool> contigs_in_use(const io::ReadBatch& reads, const io::Header& header,
                                 const std::vector<io::Interval>& intervals);

/// Errors (naming the reference) for a needed contig the reference lacks and for any contig of a
/// different length; one warning for header contigs it lacks that nothing needs.
void check_reference(const io::Header& header, const std::string& input,
                     const io::Reference& reference, const std::vector<bool>& needed);

/**
 * @brief Calls variants from `reads` visited in `order` (coordinate order) into `sink`, contig by
 * contig in header order.
 *
 * A header contig absent from the reference is an error only when a read or an interval lies on
 * it; contigs of different lengths are an error (both before any work). In reference-confidence
 * mode every contig with reads (or every interval) is covered base by base.
 * @param intervals  -L intervals (empty: every contig with reads)
 */
void call_variants(const io::ReadBatch& reads, std::span<const std::uint32_t> order,
                   const io::Header& header, const std::string& input,
                   const io::Reference& reference, const std::vector<io::Interval>& intervals,
                   const stages::call::HaplotypeCallerOptions& options,
                   stages::call::CallerEngines& engines, stages::call::CallSink& sink);

/// INFO lines: the phases, the GPU's share, the call count.
void log_calling_summary(const stages::call::CallerEngines& engines, std::size_t calls,
                         double seconds);

}  // namespace gpp::pipeline
