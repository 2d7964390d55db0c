// The tables of tunables (common/host/tunables.hpp): each step's kTunables gives its options, its
// Config and back, and its traced registry entry.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "declared_steps.hpp"
#include "traced_steps.hpp"
#include "tunables.hpp"

namespace {

// Every compiled configuration survives the trip to the tunables by name and back, every name is
// declared once, and the options list the table in its order with kConfigs[0]'s values.
template <typename Config, std::size_t N, std::size_t M>
void expect_table_consistent(const gemm::Tunable<Config> (&table)[N], const Config (&configs)[M]) {
  std::set<std::string> names;
  std::size_t fields = 0;
  for (const gemm::Tunable<Config>& t : table) {
    EXPECT_TRUE(names.insert(t.name).second) << t.name << " declared twice";
    if (!t.member) continue;
    ++fields;
    Config changed = configs[0];  // Config's operator== compares the field
    changed.*(t.member) += 1;
    EXPECT_FALSE(changed == configs[0]) << t.name << " is left out of Config's operator==";
  }
  // Every field of Config (all of them ints) has its line in the table.
  EXPECT_EQ(sizeof(Config), fields * sizeof(int)) << "a field of Config has no line in kTunables";
  for (const Config& c : configs) EXPECT_TRUE(gemm::config_from(table, gemm::to_params(table, c)) == c);
  const std::vector<gemm::ParamSpec> specs = gemm::param_specs(table, configs[0]);
  ASSERT_EQ(specs.size(), N);
  for (std::size_t i = 0; i < N; ++i) {
    EXPECT_EQ(specs[i].name, table[i].name);
    EXPECT_EQ(specs[i].help, table[i].help);
    EXPECT_FALSE(specs[i].help.empty()) << table[i].name;
    if (table[i].member) {
      EXPECT_EQ(specs[i].default_value, configs[0].*(table[i].member)) << table[i].name;
    }
  }
}

// Every step whose mapping declares a table (declared_steps.hpp, from the steps' declarations).
TEST(Tunables, EveryStepsTableIsConsistent) {
  int tables = 0;
  gemm::declared::for_each_table_of_tunables([&](const char* step, const auto& table, const auto& configs) {
    SCOPED_TRACE(step);
    expect_table_consistent(table, configs);
    ++tables;
  });
  int declared = 0;
  for (const gemm::declared::Step& step : gemm::declared::kSteps) declared += step.tunables;
  EXPECT_EQ(tables, declared);
  EXPECT_GT(tables, 0);
}

// The options of step 09 as main.cu listed them by hand before the table: names, order, defaults.
TEST(Tunables, OptionsKeepTheirOrderAndDefaults) {
  const std::vector<gemm::ParamSpec> specs = gemm::param_specs(step09::kTunables, step09::kConfigs[0]);
  std::string listed;
  for (const gemm::ParamSpec& spec : specs) listed += spec.name + "=" + std::to_string(spec.default_value) + " ";
  EXPECT_EQ(listed, "BM=128 BN=128 BK=16 WM=64 WN=32 TM=8 TN=8 MINB=2 ");
}

// Step 11's SPLIT is no field of Config: the options list it last with its own default, a Config
// and the traced registry leave it out, and to_params over the defaults keeps its value.
TEST(Tunables, ATunableThatIsNoFieldKeepsItsOwnDefault) {
  const std::vector<gemm::ParamSpec> specs = gemm::param_specs(step11::kTunables, step11::kConfigs[0]);
  ASSERT_FALSE(specs.empty());
  EXPECT_EQ(specs.back().name, "SPLIT");
  EXPECT_EQ(specs.back().default_value, 1);
  const gemm::Params plain = step11::to_params(step11::kConfigs[0]);
  EXPECT_EQ(plain.count("SPLIT"), 0u);
  gemm::Params defaults;
  for (const gemm::ParamSpec& spec : specs) defaults[spec.name] = spec.default_value;
  defaults["SPLIT"] = 0;
  const gemm::Params chosen = step11::to_params(step11::kConfigs[step11::kTallConfig], defaults);
  EXPECT_EQ(chosen.at("SPLIT"), 0);
  EXPECT_EQ(step11::config_from(chosen), step11::kConfigs[step11::kTallConfig]);
  EXPECT_EQ(std::string(step11::split_rule(chosen)), "");
}

// A registry entry's default_params and configs are its table's fields over its kConfigs, in order.
template <typename Config, std::size_t N, std::size_t M>
void expect_entry_follows_table(const gemm::TracedProgram& program, const gemm::Tunable<Config> (&table)[N],
                                const Config (&configs)[M]) {
  EXPECT_EQ(program.default_params, gemm::to_params(table, configs[0])) << program.step;
  ASSERT_EQ(program.configs.size(), M) << program.step;
  for (std::size_t i = 0; i < M; ++i) EXPECT_EQ(program.configs[i], gemm::to_params(table, configs[i])) << program.step;
}

// The registry's default_params and configs are the table's fields over kConfigs, for every traced
// step with a table.
TEST(Tunables, RegistryEntriesFollowTheTables) {
  const std::vector<gemm::TracedProgram> programs = gemm::traced_programs();
  std::set<std::string> checked;
  gemm::declared::for_each_table_of_tunables([&](const char* step, const auto& table, const auto& configs) {
    for (const gemm::TracedProgram& program : programs)
      if (program.step == step) {
        expect_entry_follows_table(program, table, configs);
        checked.insert(program.step);
      }
  });
  std::set<std::string> expected;
  for (const gemm::declared::Step& step : gemm::declared::kSteps)
    if (step.traced && step.tunables) expected.insert(step.name);
  EXPECT_EQ(checked, expected);
  for (const gemm::TracedProgram& program : programs) {
    if (program.step == "09_warptiling") {
      EXPECT_EQ(program.default_params, step09::to_params(step09::kConfigs[0]));
      ASSERT_EQ(program.configs.size(), std::size_t(step09::kConfigCount));
      for (int i = 0; i < step09::kConfigCount; ++i) EXPECT_EQ(program.configs[size_t(i)], step09::to_params(step09::kConfigs[i]));
    }
    if (program.step == "11_split_k_tail") {
      EXPECT_EQ(program.default_params.count("SPLIT"), 0u);
    }
    if (program.step == "18_tma_store_epilogue") {
      EXPECT_EQ(program.default_params, (gemm::Params{{"BM", 128}, {"BN", 256}, {"BK", 64}, {"STAGES", 4},
                                                      {"GROUP_M", 16}, {"CLUSTER", 2}}));
    }
    if (program.step == "19_fp8") {
      EXPECT_EQ(program.default_params, (gemm::Params{{"BM", 128}, {"BN", 192}, {"BK", 128}, {"STAGES", 4},
                                                      {"GROUP_M", 16}, {"CLUSTER", 2}, {"PROMOTE", 1}}));
    }
  }
}

}  // namespace
