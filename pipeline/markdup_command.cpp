// gpu-pipeline markdup: Picard MarkDuplicates semantics (flags and metrics identical).
#include <memory>

#include "pipeline/commands.hpp"

namespace gpp::pipeline {

namespace {
struct MarkdupOptions {
  std::string input;
  std::string output;
  std::string metrics;
  bool remove_duplicates = false;
  int optical_pixel_distance = 100;
  std::string read_name_regex;
  std::string assume_sort_order;
};
}  // namespace

Command add_markdup_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<MarkdupOptions>();
  CLI::App* app = root.add_subcommand("markdup", "Mark duplicates as Picard MarkDuplicates does");
  add_input_option(*app, options->input, "input SAM/BAM/CRAM, any order");
  add_output_option(*app, options->output, "output BAM, coordinate-sorted", true);
  app->add_option("-M,--metrics-file,--out-duplicate-metrics", options->metrics,
                  "Picard DuplicationMetrics file");
  app->add_flag("--remove-duplicates", options->remove_duplicates, "drop duplicates instead of flagging");
  app->add_option("--optical-duplicate-pixel-distance", options->optical_pixel_distance,
                  "maximum pixel distance of optical duplicates");
  app->add_option("--read-name-regex", options->read_name_regex, "regex for tile/x/y in read names");
  app->add_option("--assume-sort-order", options->assume_sort_order, "queryname or coordinate");
  add_common_options(*app, common);
  return {app, [] { not_implemented("markdup"); }};
}

}  // namespace gpp::pipeline
