// The tables of tunables (common/host/tunables.hpp): each step's kTunables gives its options, its
// Config and back, and its traced registry entry.
#include <gtest/gtest.h>

#include <set>
#include <string>

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

TEST(Tunables, EveryStepsTableIsConsistent) {
  expect_table_consistent(step06::kTunables, step06::kConfigs);
  expect_table_consistent(step07::kTunables, step07::kConfigs);
  expect_table_consistent(step08::kTunables, step08::kConfigs);
  expect_table_consistent(step09::kTunables, step09::kConfigs);
  expect_table_consistent(step10::kTunables, step10::kConfigs);
  expect_table_consistent(step11::kTunables, step11::kConfigs);
  expect_table_consistent(step12::kTunables, step12::kConfigs);
  expect_table_consistent(step13::kTunables, step13::kConfigs);
  expect_table_consistent(step14::kTunables, step14::kConfigs);
  expect_table_consistent(step15::kTunables, step15::kConfigs);
  expect_table_consistent(step16::kTunables, step16::kConfigs);
  expect_table_consistent(step17::kTunables, step17::kConfigs);
  expect_table_consistent(step18::kTunables, step18::kConfigs);
  expect_table_consistent(step19::kTunables, step19::kConfigs);
  expect_table_consistent(step20::kTunables, step20::kConfigs);
  expect_table_consistent(step21::kTunables, step21::kConfigs);
  expect_table_consistent(step22::kTunables, step22::kConfigs);
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

// The registry's default_params and configs are the table's fields over kConfigs.
TEST(Tunables, RegistryEntriesFollowTheTables) {
  std::set<std::string> checked;
  for (const gemm::TracedProgram& program : gemm::traced_programs()) {
    if (program.step == "09_warptiling") {
      EXPECT_EQ(program.default_params, step09::to_params(step09::kConfigs[0]));
      ASSERT_EQ(program.configs.size(), std::size_t(step09::kConfigCount));
      for (int i = 0; i < step09::kConfigCount; ++i) EXPECT_EQ(program.configs[size_t(i)], step09::to_params(step09::kConfigs[i]));
    }
    if (program.step == "15_tma_wgmma") expect_entry_follows_table(program, step15::kTunables, step15::kConfigs);
    if (program.step == "16_warp_specialized") expect_entry_follows_table(program, step16::kTunables, step16::kConfigs);
    if (program.step == "17_persistent_clusters") expect_entry_follows_table(program, step17::kTunables, step17::kConfigs);
    if (program.step >= "15") {
      checked.insert(program.step);
    }
    if (program.step == "11_split_k_tail") {
      EXPECT_EQ(program.default_params.count("SPLIT"), 0u);
    }
    if (program.step == "18_tma_store_epilogue") {
      EXPECT_EQ(program.default_params, (gemm::Params{{"BM", 128}, {"BN", 256}, {"BK", 64}, {"STAGES", 4},
                                                      {"GROUP_M", 16}, {"CLUSTER", 2}}));
      expect_entry_follows_table(program, step18::kTunables, step18::kConfigs);
    }
    if (program.step == "19_fp8") {
      EXPECT_EQ(program.default_params, (gemm::Params{{"BM", 128}, {"BN", 192}, {"BK", 128}, {"STAGES", 4},
                                                      {"GROUP_M", 16}, {"CLUSTER", 2}, {"PROMOTE", 1}}));
      expect_entry_follows_table(program, step19::kTunables, step19::kConfigs);
    }
    if (program.step == "20_overlapped_epilogue") expect_entry_follows_table(program, step20::kTunables, step20::kConfigs);
    if (program.step == "21_uniform_datapath") expect_entry_follows_table(program, step21::kTunables, step21::kConfigs);
    if (program.step == "22_tile_width") expect_entry_follows_table(program, step22::kTunables, step22::kConfigs);
  }
  EXPECT_EQ(checked, (std::set<std::string>{"15_tma_wgmma", "16_warp_specialized", "17_persistent_clusters",
                                            "18_tma_store_epilogue", "19_fp8", "20_overlapped_epilogue",
                                            "21_uniform_datapath", "22_tile_width"}));
}

}  // namespace
