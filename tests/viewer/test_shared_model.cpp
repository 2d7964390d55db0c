// The shared-memory panel's model (viewer/shared_model.hpp) against the steps' own functions, called
// here directly rather than through the registry: every word names the element the step's layout
// puts there (step 14's tile_offset, the Hopper steps' tile_byte, FP8's 1-byte elements included);
// a TMA box's overlay is exactly the box's bytes, holding the box's elements (tma_box); a wgmma
// k-step's decoded reads are exactly its 64 (or BN) rows by 32 bytes; ldmatrix's phases load the
// banks the access model says. No graphics needed.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "shared_model.hpp"
#include "traced_steps.hpp"

namespace gv = gemm::viewer;
using gemm::Layout;
using gemm::Operand;

namespace {

const gemm::TracedProgram& program_named(const std::string& step) {
  static const std::vector<gemm::TracedProgram> programs = gemm::traced_programs();
  for (const auto& p : programs)
    if (p.step == step) return p;
  throw std::runtime_error("no program " + step);
}

gemm::TraceProblem problem_of(const gemm::TracedProgram& program, gemm::GemmShape shape, Layout layout,
                              const std::map<std::string, int>& params) {
  gemm::TraceProblem p;
  p.shape = shape;
  p.layout = layout;
  p.params = params;
  return gv::with_defaults(program, p);
}

gv::SharedView view_of(const gemm::TracedProgram& program, const gemm::TraceProblem& p, Operand operand, int k_tile,
                       int item = 0, const gv::WarpTrace& trace = {}) {
  gv::SharedSelection s;
  s.operand = operand;
  s.k_tile = k_tile;
  s.item = item;
  return gv::shared_view(program, p, {0, 0, 0}, trace, s);
}

// Every element (mn, k) of the shown tile is named by the bytes `byte(mn, k)` (from the buffer's
// start) and nothing else is: the view's cells are the inverse of the step's layout.
template <typename ByteFn>
void expect_cells_name(const gv::SharedView& view, int mn_extent, int k_extent, int element_bytes, ByteFn byte,
                       const std::string& what) {
  ASSERT_TRUE(view.why_not.empty()) << what;
  long long named = 0;
  for (int b : view.element_at) named += b >= 0;
  ASSERT_EQ(named, (long long)mn_extent * k_extent * element_bytes) << what;
  for (int mn = 0; mn < mn_extent; ++mn)
    for (int k = 0; k < k_extent; ++k)
      for (int e = 0; e < element_bytes; ++e) {
        const long long at = byte(mn, k) + e - view.first_byte;
        ASSERT_TRUE(at >= 0 && at < (long long)view.element_at.size()) << what;
        ASSERT_EQ(view.element_at[size_t(at)], mn * k_extent + k) << what << " element " << mn << "," << k;
      }
}

// The items of one kind in a view, by index into its list.
std::vector<int> items_of(const gv::SharedView& view, gv::SharedItemKind kind) {
  std::vector<int> out;
  for (size_t i = 0; i < view.items.size(); ++i)
    if (view.items[i].kind == kind) out.push_back(int(i));
  return out;
}

std::set<long long> touched_words(const gv::SharedView& view) {
  std::set<long long> words;
  for (size_t w = 0; w < view.touch.size(); ++w)
    if (view.touch[w] >= 0) words.insert(view.first_byte / 4 + (long long)w);
  return words;
}

}  // namespace

TEST(SharedModel, Step14CellsAreItsSwizzledTiles) {
  const auto& program = program_named("14_mma_ldmatrix");
  for (const auto& params : program.configs)
    for (Layout layout : {Layout::nn, Layout::nt, Layout::tn}) {
      const gemm::TraceProblem p = problem_of(program, {256, 256, 256}, layout, params);
      const step14::Config c = step14::config_from(p.params);
      const step14::OperandTile ta = step14::a_tile(layout, c), tb = step14::b_tile(layout, c);
      const int kt = 1, stage = kt % c.stages;
      const long long stage_base = (long long)stage * step14::stage_elements(layout, c) * step14::kElementBytes;
      for (Operand operand : {Operand::A, Operand::B}) {
        const bool a = operand == Operand::A;
        const step14::OperandTile& t = a ? ta : tb;
        const long long base = stage_base + (a ? 0 : (long long)step14::tile_elements(ta) * step14::kElementBytes);
        // Element (mn, k) is element `along` of chunk `along / 8` of tile row `row` (a row runs along
        // k in a k-major tile, along m or n otherwise).
        expect_cells_name(view_of(program, p, operand, kt), a ? c.bm : c.bn, c.bk, step14::kElementBytes,
                          [&](int mn, int k) {
                            const int row = t.k_major ? mn : k, along = t.k_major ? k : mn;
                            return base + (step14::tile_offset(t, row, along / step14::kChunk) + along % step14::kChunk) *
                                              step14::kElementBytes;
                          },
                          "14 " + std::string(gemm::to_string(layout)) + " " + gv::params_text(params));
      }
    }
}

TEST(SharedModel, HopperCellsAreTileByte) {
  // Step 15 (each layout, each configuration) and 18 (each layout; clusters of 2 cut B into boxes).
  for (const auto& params : program_named("15_tma_wgmma").configs)
    for (Layout layout : {Layout::nn, Layout::nt, Layout::tn}) {
      const auto& program = program_named("15_tma_wgmma");
      const gemm::TraceProblem p = problem_of(program, {256, 512, 256}, layout, params);
      const step15::Config c = step15::config_from(p.params);
      const int kt = 3, stage = kt % c.stages;
      for (Operand operand : {Operand::A, Operand::B}) {
        const bool a = operand == Operand::A;
        const step15::TmaOperand op = a ? step15::a_operand(p.shape, layout, c) : step15::b_operand(p.shape, layout, c);
        const long long base = (long long)stage * step15::stage_bytes(c) + (a ? 0 : step15::a_tile_bytes(c));
        expect_cells_name(view_of(program, p, operand, kt), a ? c.bm : c.bn, c.bk, step15::kElementBytes,
                          [&](int mn, int k) { return base + step15::tile_byte(op, mn, k); },
                          "15 " + std::string(gemm::to_string(layout)) + " " + gv::params_text(params));
      }
    }
  for (Layout layout : {Layout::nn, Layout::nt, Layout::tn}) {
    const auto& program = program_named("18_tma_store_epilogue");
    const gemm::TraceProblem p = problem_of(program, {256, 512, 256}, layout, program.default_params);
    const step18::Config c = step18::config_from(p.params);
    const int kt = 2, stage = kt % c.stages;
    for (Operand operand : {Operand::A, Operand::B}) {
      const bool a = operand == Operand::A;
      const step18::TmaOperand op = a ? step18::a_operand(p.shape, layout, c) : step18::b_operand(p.shape, layout, c);
      const long long base = (long long)stage * step18::stage_bytes(c) + (a ? 0 : step18::a_tile_bytes(c));
      expect_cells_name(view_of(program, p, operand, kt), a ? c.bm : c.bn, c.bk, step18::kElementBytes,
                        [&](int mn, int k) { return base + step18::tile_byte(op, mn, k); },
                        "18 " + std::string(gemm::to_string(layout)));
    }
  }
}

TEST(SharedModel, Fp8CellsAreTileByteWith128KsToALine) {
  // FP8: 1-byte elements, 128 k's in a 128-byte line; step 19's default and step 22's every tile
  // (the 176-column one included).
  const auto check = [](const std::string& step, const std::map<std::string, int>& params, auto config_from,
                        auto stage_bytes, auto a_tile_bytes, auto tile_byte) {
    const auto& program = program_named(step);
    const gemm::TraceProblem p = problem_of(program, {256, 384, 512}, Layout::nt, params);
    const auto c = config_from(p.params);
    ASSERT_EQ(c.bk, 128) << step;
    const int kt = 1, stage = kt % c.stages;
    for (Operand operand : {Operand::A, Operand::B}) {
      const bool a = operand == Operand::A;
      const gv::SharedView view = view_of(program, p, operand, kt);
      EXPECT_EQ(view.shown().element_bytes, 1);
      const long long base = (long long)stage * stage_bytes(c) + (a ? 0 : a_tile_bytes(c));
      expect_cells_name(view, a ? c.bm : c.bn, c.bk, 1, [&](int mn, int k) { return base + tile_byte(mn, k); },
                        step + " " + gv::params_text(params));
      // A line holds one row of 128 k's: the first line's words hold elements of row 0 only.
      for (int bank = 0; bank < gemm::kSharedBanks; ++bank) EXPECT_LT(view.element_of_word(0, bank), c.bk);
    }
  };
  check("19_fp8", program_named("19_fp8").default_params, step19::config_from,
        [](const step19::Config& c) { return step19::stage_bytes(c); },
        [](const step19::Config& c) { return step19::a_tile_bytes(c); }, step19::tile_byte);
  for (const auto& params : program_named("22_tile_width").configs)
    check("22_tile_width", params, step22::config_from, [](const step22::Config& c) { return step22::stage_bytes(c); },
          [](const step22::Config& c) { return step22::a_tile_bytes(c); }, step22::tile_byte);
}

TEST(SharedModel, TmaOverlayIsExactlyTheBox) {
  // Every box of A and B (step 15 in each layout: one box, or BM / 64 and BN / 64 of an M- or
  // N-major operand; step 22: B in two boxes of 88 rows for the cluster): the words it touches are
  // the box's bytes of the tile, and they hold the box's elements, which tma_box places.
  const auto check = [](const std::string& step, Layout layout, const std::map<std::string, int>& params) {
    const auto& program = program_named(step);
    const gemm::TraceProblem p = problem_of(program, {256, 528, 512}, layout, params);
    for (Operand operand : {Operand::A, Operand::B}) {
      const gv::SharedView first = view_of(program, p, operand, 1);
      const std::vector<int> boxes = items_of(first, gv::SharedItemKind::tma_box);
      ASSERT_FALSE(boxes.empty()) << step;
      long long covered = 0;
      for (int item : boxes) {
        const gv::SharedView view = view_of(program, p, operand, 1, item);
        const gemm::TmaBoxCopy& box = view.stage.boxes[size_t(view.items[size_t(item)].index)];
        const gemm::StagedTile& tile = view.shown();
        const long long start = view.stage.stage * view.stage.stage_bytes + tile.offset + box.landing;
        std::set<long long> expected;
        for (long long b = start; b < start + box.bytes; ++b) expected.insert(b / 4);
        EXPECT_EQ(touched_words(view), expected) << step << " box " << box.box;
        EXPECT_EQ(view.touched_bytes, box.bytes) << step;
        for (long long word : expected)
          for (int b = 0; b < 4; ++b) {
            const int element = view.element_at[size_t(word * 4 + b - view.first_byte)];
            const int mn = box.mn0 + element / tile.k, k = box.k0 + element % tile.k;
            const int inner = box.k_major ? k : mn, outer = box.k_major ? mn : k;
            ASSERT_TRUE(inner >= box.inner0 && inner < box.inner0 + box.inner && outer >= box.outer0 &&
                        outer < box.outer0 + box.outer)
                << step << " box " << box.box << " holds element " << mn << "," << k;
          }
        covered += box.bytes;
      }
      EXPECT_EQ(covered, first.shown().bytes) << step << ": the boxes of a k-tile fill the tile";
    }
  };
  for (Layout layout : {Layout::nn, Layout::nt, Layout::tn}) check("15_tma_wgmma", layout, program_named("15_tma_wgmma").default_params);
  check("22_tile_width", Layout::nt, program_named("22_tile_width").configs.back());  // 128 x 176
  // Each box's first element is where the step's tma_box puts it (step 15, NN: B in 4 boxes of 64 n's).
  const auto& program = program_named("15_tma_wgmma");
  const gemm::TraceProblem p = problem_of(program, {256, 512, 256}, Layout::nn, program.default_params);
  const step15::Config c = step15::config_from(p.params);
  const step15::TmaOperand b = step15::b_operand(p.shape, Layout::nn, c);
  const gv::SharedView view = view_of(program, p, Operand::B, 2);
  int seen = 0;
  for (const gemm::TmaBoxCopy& box : view.stage.boxes) {
    if (box.operand != Operand::B) continue;
    const step15::BoxCoord at = step15::tma_box(b, 0, 2, box.box, c);
    EXPECT_EQ(box.inner0, at.inner);
    EXPECT_EQ(box.outer0, at.outer);
    EXPECT_EQ(box.landing, (long long)box.box * step15::box_bytes(b));
    ++seen;
  }
  EXPECT_EQ(seen, b.boxes);
}

TEST(SharedModel, DescriptorReadsAreOneKStep) {
  // A k-step reads 32 bytes of each of its rows: 64 rows of A, BN of B; 16 k's of 2 bytes or 32 of 1.
  const auto check = [](const std::string& step, Layout layout, const std::map<std::string, int>& params) {
    const auto& program = program_named(step);
    const gemm::TraceProblem p = problem_of(program, {256, 528, 512}, layout, params);
    int reads = 0;
    for (Operand operand : {Operand::A, Operand::B}) {
      const gv::SharedView first = view_of(program, p, operand, 1);
      for (int item : items_of(first, gv::SharedItemKind::wgmma_read)) {
        const gv::SharedView view = view_of(program, p, operand, 1, item);
        const gemm::WgmmaRead& read = view.stage.reads[size_t(view.items[size_t(item)].index)];
        const gemm::StagedTile& tile = view.shown();
        const std::string what = step + " " + gemm::to_string(layout) + " " + gemm::to_string(operand) + " k-step " +
                                 std::to_string(read.k_step) + " consumer " + std::to_string(read.consumer);
        EXPECT_EQ(read.rows, operand == Operand::A ? 64 : tile.mn) << what;
        EXPECT_EQ(read.k * tile.element_bytes, 32) << what;
        EXPECT_EQ(view.touched_bytes, (long long)read.rows * 32) << what;
        std::set<int> elements;
        for (long long word : touched_words(view))
          for (int b = 0; b < 4; ++b) {
            const int element = view.element_at[size_t(word * 4 + b - view.first_byte)];
            const int mn = element / tile.k, k = element % tile.k;
            ASSERT_TRUE(mn >= read.mn0 && mn < read.mn0 + read.rows && k >= read.k0 && k < read.k0 + read.k)
                << what << " reads element " << mn << "," << k;
            elements.insert(element);
          }
        EXPECT_EQ(elements.size(), size_t(read.rows) * size_t(read.k)) << what;
        ++reads;
      }
    }
    EXPECT_GT(reads, 0) << step;
  };
  for (Layout layout : {Layout::nn, Layout::nt, Layout::tn}) {
    check("15_tma_wgmma", layout, program_named("15_tma_wgmma").default_params);
    check("18_tma_store_epilogue", layout, program_named("18_tma_store_epilogue").default_params);
  }
  check("19_fp8", Layout::nt, program_named("19_fp8").default_params);
  check("22_tile_width", Layout::nt, program_named("22_tile_width").configs.back());
}

TEST(SharedModel, LdmatrixPhasesAreTheAccessModels) {
  // Step 14's trace: each ldmatrix.x4 of a k-tile, in 4 phases of 8 lanes (one 8 x 8 matrix each,
  // a 16-byte row address per lane); the view's banks per phase and its wavefronts are the access
  // model's; its touched words are the lanes' 16-byte rows.
  const auto& program = program_named("14_mma_ldmatrix");
  for (Layout layout : {Layout::nn, Layout::nt, Layout::tn}) {
    const gemm::TraceProblem p = problem_of(program, {128, 256, 128}, layout, program.default_params);
    const gv::WarpTrace trace = gv::warp_trace(program, p, {0, 0, 0}, 0);
    int ldmatrix = 0, copies = 0;
    for (Operand operand : {Operand::A, Operand::B}) {
      const gv::SharedView first = view_of(program, p, operand, 1, 0, trace);
      for (int item : items_of(first, gv::SharedItemKind::instruction)) {
        const gv::SharedView view = view_of(program, p, operand, 1, item, trace);
        const gemm::TraceInstruction& ins = trace.instructions[size_t(view.items[size_t(item)].index)];
        const gemm::SharedCost cost = gemm::shared_cost(ins.access);
        EXPECT_EQ(view.cost.wavefronts, cost.wavefronts);
        ASSERT_EQ(view.phases.size(), 4u) << ins.label;  // 16-byte accesses: quarter warps
        for (int phase = 0; phase < 4; ++phase) {
          EXPECT_EQ(view.phases[size_t(phase)].distinct_words, gemm::bank_load(ins.access, phase)) << ins.label;
          ASSERT_EQ(view.phases[size_t(phase)].lanes.size(), 8u);
          for (int l = 0; l < 8; ++l) {
            const int lane = view.phases[size_t(phase)].lanes[size_t(l)];
            EXPECT_EQ(lane, phase * 8 + l);
            EXPECT_EQ(view.phases[size_t(phase)].bytes[size_t(l)], ins.access.address[size_t(lane)]);
          }
        }
        std::set<long long> expected;
        for (int lane = 0; lane < 32; ++lane)
          for (int b = 0; b < 16; b += 4) expected.insert((ins.access.address[size_t(lane)] + b) / 4);
        EXPECT_EQ(touched_words(view), expected) << ins.label;
        const std::string label = ins.label;
        ldmatrix += label.rfind("ldmatrix", 0) == 0;
        copies += ins.access.async_copy;
      }
    }
    EXPECT_GT(ldmatrix, 0) << gemm::to_string(layout);
    EXPECT_GT(copies, 0) << gemm::to_string(layout) << ": the k-tile's cp.async writes are listed too";
  }
}

TEST(SharedModel, StepsWithoutAStageSaySo) {
  const gv::SharedView view = view_of(program_named("05_smem_tiling"), {}, Operand::A, 0);
  EXPECT_FALSE(view.why_not.empty());
}
