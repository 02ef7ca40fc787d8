#include "pipeline/command_line.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "io/output_file.hpp"

namespace gpp::pipeline {

namespace {

/// GATK's single-dash short names of the options the commands share with GATK's tools.
constexpr std::pair<std::string_view, std::string_view> kGatkShortNames[] = {
    {"-ERC", "--emit-ref-confidence"},
    {"-GQB", "--gvcf-gq-bands"},
    {"-stand-call-conf", "--standard-min-confidence-threshold-for-calling"},
    {"-ploidy", "--sample-ploidy"},
    {"-mbq", "--min-base-quality-score"},
    {"-ip", "--interval-padding"},
    {"-XL", "--exclude-intervals"},
    {"-ixp", "--interval-exclusion-padding"},
    {"-AX", "--annotations-to-exclude"},
    {"-DF", "--disable-read-filter"},
    {"-pairHMM", "--pair-hmm-implementation"},
    {"-ALIAS", "--sample-name"},
    {"-bamout", "--bam-output"},
    {"-OQ", "--use-original-qualities"},
    {"-mnp-dist", "--max-mnp-distance"},
    {"-contamination", "--contamination-fraction-to-filter"},
    {"-contamination-file", "--contamination-fraction-per-sample-file"},
};

/// GATK's and Parabricks' options for the CPU threads of a tool.
constexpr std::string_view kThreadOptions[] = {
    "--native-pair-hmm-threads",  // GATK HaplotypeCaller
    "--num-htvc-threads",         // Parabricks haplotypecaller
    "--num-threads",              // Parabricks applybqsr
    "--num-worker-threads",       // Parabricks markdup
    "--num-zip-threads",          // Parabricks markdup (compression)
    "--num-cpu-threads-per-stage",
};

constexpr std::string_view kCallerOptions = "--haplotypecaller-options";
constexpr std::string_view kMemoryLimit = "--mem-limit";

std::string with_long_name(const std::string& arg) {
  for (const auto& [short_name, long_name] : kGatkShortNames) {
    if (arg == short_name) return std::string(long_name);
  }
  return arg;
}

void append_haplotypecaller_options(const std::string& text, std::vector<std::string>& args) {
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    word = with_long_name(word);
    const bool one_dash_long_name = word.size() > 2 && word[0] == '-' && word[1] != '-' &&
                                    std::isalpha(static_cast<unsigned char>(word[1]));
    args.push_back(one_dash_long_name ? "-" + word : word);
  }
}

/// A long option's name and, for `--name=value`, its value.
struct Token {
  std::string name;
  std::optional<std::string> value;
};

Token split_token(const std::string& arg) {
  const std::size_t equals = arg.find('=');
  if (!arg.starts_with("--") || equals == std::string::npos) return {arg, std::nullopt};
  return {arg.substr(0, equals), arg.substr(equals + 1)};
}

bool given(const std::vector<std::string>& args, std::string_view option) {
  return std::any_of(args.begin(), args.end(),
                     [&](const std::string& arg) { return split_token(arg).name == option; });
}

bool is_whole_number(const std::string& text) {
  return !text.empty() && text.size() < 10 &&
         std::all_of(text.begin(), text.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

std::vector<std::string> normalized_arguments(const std::vector<std::string>& args) {
  const bool threads_given = given(args, "--threads");
  const bool memory_given = given(args, "--max-memory");
  std::vector<std::string> out;
  std::optional<long> threads;  // the largest thread option's
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Token token = split_token(args[i]);
    const bool thread_option = std::find(std::begin(kThreadOptions), std::end(kThreadOptions),
                                         token.name) != std::end(kThreadOptions);
    const bool takes_value =
        thread_option || token.name == kMemoryLimit || token.name == kCallerOptions;
    if (takes_value && !token.value && i + 1 >= args.size()) {
      out.push_back(args[i]);  // no value: CLI11 says so
      continue;
    }
    const auto value = [&] { return token.value ? *token.value : args[++i]; };
    if (thread_option) {
      const std::string count = value();
      if (!is_whole_number(count)) {
        throw CLI::ValidationError(token.name, "'" + count + "' is not a number of threads");
      }
      threads = std::max(threads.value_or(0), std::stol(count));
    } else if (token.name == kMemoryLimit) {
      // Parabricks' --mem-limit is in GB; a size with a unit is taken as it is.
      const std::string limit = value();
      if (!memory_given) {
        out.push_back("--max-memory");
        out.push_back(is_whole_number(limit) ? limit + "G" : limit);
      }
    } else if (token.name == "--markdups-assume-sortorder-queryname") {
      out.push_back("--assume-sort-order");
      out.push_back("queryname");
    } else if (token.name == kCallerOptions) {
      append_haplotypecaller_options(value(), out);
    } else {
      out.push_back(with_long_name(args[i]));
    }
  }
  if (threads && !threads_given) {
    out.push_back("--threads");
    out.push_back(std::to_string(*threads));
  }
  return out;
}

void check_log_file_is_no_other_argument(const std::string& logfile,
                                         const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    const Token token = split_token(args[i]);
    if (token.name == "--logfile") {
      if (!token.value) ++i;  // its own value
      continue;
    }
    const std::string& value = token.value ? *token.value : args[i];
    if (value == "-" && io::is_standard_input(logfile)) {
      throw Error("--logfile " + logfile +
                  ": the file standard input reads; the log would overwrite it");
    }
    if (!value.empty() && (value == logfile || io::same_file(value, logfile))) {
      throw Error("--logfile " + logfile +
                  ": also given as another argument; the log would overwrite it");
    }
  }
}

}  // namespace gpp::pipeline
