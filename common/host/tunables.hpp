// A step's tunables, declared once: one table in its mapping.hpp, next to its Config, with each
// tunable's name (as --param takes it), the field of Config it sets and one line of help:
//
//   inline constexpr gemm::Tunable<Config> kTunables[] = {
//       {"BM", &Config::bm, "rows of C per block"},
//       {"BN", &Config::bn, "columns of C per block"}, ...};
//
// Everything else about a tunable follows from that line and the compiled list kConfigs:
//  - the options and --help (param_specs: the table in its order, the defaults from kConfigs[0]);
//  - a Config from the parsed --param values (config_from), which check_params, launch_shape and the
//    kernels' dispatch read (params_rule, params_launch_shape adapt a step's functions of a Config);
//  - the tunables by name from a Config (to_params): what a choice by shape or by GPU hands the
//    runner, the header line and the results file's params, and the traced registry's
//    default_params and configs (detail::add_tunables in steps/traced_program.hpp, which each
//    step's steps/NN_name/traced.hpp calls).
// A tunable that is not a field of Config (step 11's SPLIT picks the launches, not a compiled
// kernel) has no member (nullptr) and carries its own default; config_from and to_params pass it by,
// so the compiled list and the traced registry do not see it, and to_params over `base` keeps its value.
// Plain C++ (the mappings include it; nvcc compiles it too).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gemm_types.hpp"
#include "hd.hpp"

namespace gemm {

template <typename Config>
struct Tunable {
  using Field = int Config::*;  // (an alias: nvcc's host code would put the declarator in parentheses)
  const char* name;       // as --param takes it, e.g. "BM"
  Field member;           // the field of Config it sets; nullptr: not a field of Config
  const char* help;       // one line for --help
  int default_value = 0;  // only where member is nullptr: its default (a field's is kConfigs[0]'s value)
};

// The options' list of tunables, in the table's order, with `defaults` (the step's kConfigs[0]).
template <typename Config, std::size_t N>
std::vector<ParamSpec> param_specs(const Tunable<Config> (&table)[N], const Config& defaults) {
  std::vector<ParamSpec> specs;
  for (const Tunable<Config>& t : table)
    specs.push_back({t.name, t.member ? defaults.*(t.member) : t.default_value, t.help});
  return specs;
}

// The Config the tunables by name describe (every field of the table present in `params`).
template <typename Config, std::size_t N>
Config config_from(const Tunable<Config> (&table)[N], const Params& params) {
  Config config{};
  for (const Tunable<Config>& t : table)
    if (t.member) config.*(t.member) = params.at(t.name);
  return config;
}

// The tunables by name of `config`: its fields, over `base` (whose other tunables, those that are
// not fields of Config, keep their values).
template <typename Config, std::size_t N>
Params to_params(const Tunable<Config> (&table)[N], const Config& config, Params base = {}) {
  for (const Tunable<Config>& t : table)
    if (t.member) base[t.name] = config.*(t.member);
  return base;
}

// A step's rule on a Config ("" or the rule broken) as a function of the tunables by name: a step
// description's check_params.
template <typename Config, std::size_t N, typename Rule>
auto params_rule(const Tunable<Config> (&table)[N], Rule rule) {
  const auto* entries = &table;  // the table lives as long as the program
  return [entries, rule](const Params& params) {
    return std::string(rule(config_from(*entries, params)));
  };
}

// A step's launch_shape(shape, Config) as a function of the tunables by name: a step description's
// launch_shape.
template <typename Config, std::size_t N, typename LaunchShapeOf>
auto params_launch_shape(const Tunable<Config> (&table)[N], LaunchShapeOf launch_shape) {
  const auto* entries = &table;  // the table lives as long as the program
  return [entries, launch_shape](const GemmShape& shape, const Params& params) {
    return LaunchShape(launch_shape(shape, config_from(*entries, params)));
  };
}

}  // namespace gemm
