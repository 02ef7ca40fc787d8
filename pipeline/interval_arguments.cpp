#include "pipeline/interval_arguments.hpp"

namespace gpp::pipeline {

void add_interval_options(CLI::App& app, IntervalArguments& arguments, const std::string& what) {
  app.add_option("-L,--intervals,--interval-file,--interval", arguments.specs,
                 what + ": chr:start-end, BED, .interval_list, .list (repeatable)");
  app.add_option("--interval-padding", arguments.padding,
                 "bases added on each side of every -L interval (also -ip, as GATK; default 0)")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace gpp::pipeline
