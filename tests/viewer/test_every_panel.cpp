// Every traced program, in every layout it runs and with every compiled configuration, through what
// each panel computes: the thread map (stores or accumulators), a warp's accesses with their
// operands and banks, every item of the shared-memory panel of both operands, the timeline for the
// output types the step writes. Nothing may throw, and a panel that the step has must say something:
// a title, items, a pipeline. The program list is the registry's, so a new step is walked without an
// edit here.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "shared_model.hpp"
#include "timeline_model.hpp"
#include "traced_steps.hpp"
#include "viewer_model.hpp"

namespace gv = gemm::viewer;
using gemm::GemmShape;
using gemm::Layout;
using gemm::Operand;
using gemm::TracedProgram;
using gemm::TraceProblem;

namespace {

// A shape of a few tiles of every step's largest tile, with K several k-tiles deep, that every
// step's shape rule takes (K a multiple of 16 for FP8, rows a multiple of 8 for the aligned steps).
constexpr GemmShape kShape{256, 512, 512};

std::string what(const TracedProgram& program, Layout layout, const std::map<std::string, int>& params) {
  return gv::program_label(program) + " " + gemm::to_string(layout) + " " + gv::params_text(params);
}

}  // namespace

TEST(EveryPanel, EveryProgramLayoutAndConfigurationThroughEveryPanel) {
  int walked = 0, with_shared = 0, with_timeline = 0;
  for (const TracedProgram& program : gemm::traced_programs()) {
    std::vector<std::map<std::string, int>> configs = program.configs;
    if (configs.empty()) configs.push_back(program.default_params);
    for (const Layout layout : program.layouts)
      for (const auto& params : configs) {
        TraceProblem problem;
        problem.shape = kShape;
        problem.layout = layout;
        problem.params = params;
        problem = gv::with_defaults(program, problem);
        const std::string label = what(program, layout, problem.params);
        if (program.takes_shape && program.shape_rule) {
          ASSERT_EQ(program.shape_rule(problem.shape, layout), "") << label << ": the walk's shape is refused";
        }

        // The thread map: who stores, or who holds, each element of C.
        const gv::OwnerMap map = gv::thread_map(program, problem);
        EXPECT_FALSE(gv::thread_map_title(program, map).empty()) << label;

        // The warp access panel: the first warp with memory instructions, each instruction's touches.
        gv::WarpTrace trace;
        const int warp = gv::first_traced_warp(program, problem, {0, 0, 0});
        if (warp >= 0) {
          trace = gv::warp_trace(program, problem, {0, 0, 0}, warp);
          for (const auto& instruction : trace.instructions) {
            const gv::OperandGrid grid = gv::operand_grid(instruction.operand, program, problem, trace);
            gv::touches(instruction, grid);
            EXPECT_FALSE(gv::instruction_text(instruction).empty()) << label;
          }
        }

        // The shared-memory panel: both operands, every item of k-tile 0's list.
        if (program.shared_stage) {
          ++with_shared;
          for (const Operand operand : {Operand::A, Operand::B}) {
            gv::SharedSelection selection;
            selection.operand = operand;
            const gv::SharedView first = gv::shared_view(program, problem, {0, 0, 0}, trace, selection);
            ASSERT_TRUE(first.why_not.empty()) << label << ": " << first.why_not;
            ASSERT_FALSE(first.items.empty()) << label;
            for (int item = 0; item < int(first.items.size()); ++item) {
              selection.item = item;
              const gv::SharedView view = gv::shared_view(program, problem, {0, 0, 0}, trace, selection);
              EXPECT_EQ(gv::shared_pixels(view, gv::SharedColour::k).size(), size_t(view.lines) * 32) << label;
              EXPECT_FALSE(gv::shared_caption(view).empty()) << label;
            }
          }
        }

        // The timeline, for each output size the step writes (the FP8 steps choose their epilogue by it).
        for (const int out_bytes : {2, 4}) {
          const gv::TimelineView view = gv::timeline_view(program, problem, 0, out_bytes);
          if (program.pipeline) {
            EXPECT_TRUE(view.pipelined) << label << ": " << view.why_not;
            with_timeline += out_bytes == 4;
          } else {
            EXPECT_FALSE(view.why_not.empty()) << label;
          }
        }
        ++walked;
      }
  }
  // Every program was walked at least once, and the panels that need a stage or a pipeline found them.
  EXPECT_GE(walked, int(gemm::traced_programs().size()));
  EXPECT_GT(with_shared, 0);
  EXPECT_GT(with_timeline, 0);
}
