// Step 07: the 2D block-tiled mapping, run on the host with the kernel's index functions for every
// compiled configuration, against the CPU reference.
#include <gtest/gtest.h>

#include <string>

#include "../../steps/07_2d_blocktiling/mapping.hpp"
#include "tiled_emulator.hpp"

namespace {
struct Step07 {
  step07::Config cfg;
  gemm::LaunchShape launch(const gemm::GemmShape& s) const { return step07::launch_shape(s, cfg); }
  int threads() const { return step07::threads(cfg); }
  int a_words() const { return cfg.bm * cfg.bk; }
  int b_words() const { return cfg.bk * cfg.bn; }
  int results() const { return cfg.tm * cfg.tn; }
  int k_tiles(const gemm::GemmShape& s) const { return step07::k_tiles(s, cfg); }
  void copy(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int kt, const std::vector<float>& a,
            const std::vector<float>& b, std::vector<float>& a_tile, std::vector<float>& b_tile) const {
    for (int copy = 0; copy < step07::a_copies(cfg); ++copy) {
      if (!step07::a_copy_exists(t, cfg, copy)) continue;
      const auto from = step07::a_tile_source(s, t, cfg, kt, copy);
      a_tile[size_t(step07::copy_element(t, cfg, copy))] = from.valid ? a[size_t(step07::a_index(s, from))] : 0.0f;
    }
    for (int copy = 0; copy < step07::b_copies(cfg); ++copy) {
      if (!step07::b_copy_exists(t, cfg, copy)) continue;
      const auto from = step07::b_tile_source(s, t, cfg, kt, copy);
      b_tile[size_t(step07::copy_element(t, cfg, copy))] = from.valid ? b[size_t(step07::b_index(s, from))] : 0.0f;
    }
  }
  void accumulate(const gemm::ThreadCoord& t, const std::vector<float>& a_tile, const std::vector<float>& b_tile,
                  float* acc) const {
    for (int dot = 0; dot < cfg.bk; ++dot)
      for (int i = 0; i < cfg.tm; ++i)
        for (int j = 0; j < cfg.tn; ++j)
          acc[i * cfg.tn + j] += a_tile[size_t(step07::a_tile_load_index(t, cfg, dot, i))] *
                                 b_tile[size_t(step07::b_tile_load_index(t, cfg, dot, j))];
  }
  gemm::CElement result(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int r) const {
    return step07::c_element(s, t, cfg, r / cfg.tn, r % cfg.tn);
  }
};
}  // namespace

TEST(Mapping07, HostEmulationMatchesReferenceForEveryConfig) {
  for (const step07::Config& cfg : step07::kConfigs) {
    ASSERT_STREQ(step07::config_rule(cfg), "");
    for (const gemm::GemmShape& s : gemm::testing::tiled_shapes()) gemm::testing::check_tiled_emulation(Step07{cfg}, s);
  }
}

TEST(Mapping07, RulesNameTheProblem) {
  EXPECT_NE(std::string(step07::config_rule({128, 128, 8, 3, 8, 2})).find("multiple of TM"), std::string::npos);
  EXPECT_NE(std::string(step07::config_rule({128, 128, 8, 1, 1, 2})).find("at most 1024"), std::string::npos);
  EXPECT_NE(std::string(step07::config_rule({128, 128, 8, 4, 8, 3})).find("not compiled in"), std::string::npos);
}
