// The subcommands. Each add_*_command() declares its options on `root` and returns the action to
// run when that subcommand was given on the command line.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "pipeline/common_options.hpp"

namespace gpp::pipeline {

struct Command {
  CLI::App* app = nullptr;
  std::function<void()> run;
};

Command add_run_command(CLI::App& root, CommonOptions& common);
Command add_sort_command(CLI::App& root, CommonOptions& common);
Command add_markdup_command(CLI::App& root, CommonOptions& common);
Command add_bqsr_command(CLI::App& root, CommonOptions& common);
Command add_applybqsr_command(CLI::App& root, CommonOptions& common);
Command add_call_command(CLI::App& root, CommonOptions& common);
Command add_pairhmm_command(CLI::App& root, CommonOptions& common);
Command add_sw_command(CLI::App& root, CommonOptions& common);

}  // namespace gpp::pipeline
