// The command line as the commands declare it: GATK's and Parabricks' spellings rewritten before
// CLI11 parses them, and the checks that need the whole command line.
#pragma once

#include <string>
#include <vector>

namespace gpp::pipeline {

/**
 * @brief `args` (argv, the program name first) rewritten for the commands' declarations:
 *  - GATK's single-dash short names (-ERC, -GQB, -stand-call-conf, -ALIAS, -bamout, ...) as the
 *    long names, which CLI11 (one-letter short names only) cannot declare;
 *  - Parabricks' --haplotypecaller-options "<options>" as arguments of their own (a long name
 *    may take one dash there: "-min-pruning 3");
 *  - the CPU-thread options of GATK (--native-pair-hmm-threads, which nf-core's module passes)
 *    and Parabricks (--num-htvc-threads, --num-threads, --num-worker-threads, --num-zip-threads,
 *    --num-cpu-threads-per-stage) as one --threads, the largest, unless --threads is given;
 *  - Parabricks' --mem-limit GB as --max-memory unless that is given, and
 *    --markdups-assume-sortorder-queryname as --assume-sort-order queryname.
 * Options rewritten here may be written `--name value` or `--name=value`.
 * @throws CLI::ValidationError for a thread count that is not a whole number
 */
std::vector<std::string> normalized_arguments(const std::vector<std::string>& args);

/**
 * @brief Refuses a --logfile path that another argument also names (an input or an output,
 * however spelled: `--in-bam=x.bam`, `./x.bam`), before the log file is created over it.
 * @param args the command line as given (argv, the program name first)
 * @throws gpp::Error naming the path
 */
void check_log_file_is_no_other_argument(const std::string& logfile,
                                         const std::vector<std::string>& args);

}  // namespace gpp::pipeline
