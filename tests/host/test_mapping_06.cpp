// Step 06: the 1D block-tiled mapping, run on the host with the kernel's index functions for every
// compiled configuration, against the CPU reference.
#include <gtest/gtest.h>

#include <string>

#include "../../steps/06_1d_blocktiling/mapping.hpp"
#include "tiled_emulator.hpp"

namespace {
struct Step06 {
  step06::Config cfg;
  gemm::LaunchShape launch(const gemm::GemmShape& s) const { return step06::launch_shape(s, cfg); }
  int threads() const { return step06::threads(cfg); }
  int a_words() const { return cfg.bm * cfg.bk; }
  int b_words() const { return cfg.bk * cfg.bn; }
  int results() const { return cfg.tm; }
  int k_tiles(const gemm::GemmShape& s) const { return step06::k_tiles(s, cfg); }
  void copy(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int kt, const std::vector<float>& a,
            const std::vector<float>& b, std::vector<float>& a_tile, std::vector<float>& b_tile) const {
    for (int copy = 0; copy < step06::a_copies(cfg); ++copy) {
      if (!step06::a_copy_exists(t, cfg, copy)) continue;
      const auto from = step06::a_tile_source(s, t, cfg, kt, copy);
      a_tile[size_t(step06::copy_element(t, cfg, copy))] = from.valid ? a[size_t(step06::a_index(s, from))] : 0.0f;
    }
    for (int copy = 0; copy < step06::b_copies(cfg); ++copy) {
      if (!step06::b_copy_exists(t, cfg, copy)) continue;
      const auto from = step06::b_tile_source(s, t, cfg, kt, copy);
      b_tile[size_t(step06::copy_element(t, cfg, copy))] = from.valid ? b[size_t(step06::b_index(s, from))] : 0.0f;
    }
  }
  void accumulate(const gemm::ThreadCoord& t, const std::vector<float>& a_tile, const std::vector<float>& b_tile,
                  float* acc) const {
    for (int dot = 0; dot < cfg.bk; ++dot) {
      const float b_value = b_tile[size_t(step06::b_tile_load_index(t, cfg, dot))];
      for (int i = 0; i < cfg.tm; ++i) acc[i] += a_tile[size_t(step06::a_tile_load_index(t, cfg, dot, i))] * b_value;
    }
  }
  gemm::CElement result(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int r) const {
    return step06::c_element(s, t, cfg, r);
  }
};
}  // namespace

TEST(Mapping06, HostEmulationMatchesReferenceForEveryConfig) {
  for (const step06::Config& cfg : step06::kConfigs) {
    ASSERT_STREQ(step06::config_rule(cfg), "");
    for (const gemm::GemmShape& s : gemm::testing::tiled_shapes()) gemm::testing::check_tiled_emulation(Step06{cfg}, s);
  }
}

TEST(Mapping06, RulesNameTheProblem) {
  EXPECT_NE(std::string(step06::config_rule({64, 64, 8, 3, 2})).find("multiple of TM"), std::string::npos);
  EXPECT_NE(std::string(step06::config_rule({64, 64, 8, 1, 2})).find("at most 1024"), std::string::npos);
  EXPECT_NE(std::string(step06::config_rule({96, 64, 8, 8, 2})).find("not compiled in"), std::string::npos);
}
