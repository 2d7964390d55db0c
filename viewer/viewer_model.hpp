// What the viewer shows, computed without any graphics: plain C++ over the steps' own traces
// (steps/traced_steps.hpp), the access model and the results files. The panels draw these
// structures; the viewer tests check them (and the pixels drawn from them) against the model.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "traced_steps.hpp"

namespace gemm::viewer {

// ---- Colours (RGBA, 8 bits each, alpha in the top byte as ImGui's IM_COL32 packs them) ----------
using Rgba = std::uint32_t;
constexpr Rgba rgba(int r, int g, int b, int a = 255) {
  return Rgba(r) | (Rgba(g) << 8) | (Rgba(b) << 16) | (Rgba(a) << 24);
}
constexpr Rgba kUntouched = rgba(58, 58, 64);   // a cell no lane touches
constexpr Rgba kNoOwner = rgba(24, 24, 28);     // an element outside the problem
Rgba lane_colour(int lane);                     // 32 distinct hues, lane 0 red, around the wheel
Rgba index_colour(std::uint32_t index);         // a stable colour for a block, warp or thread index
int red(Rgba c);
int green(Rgba c);
int blue(Rgba c);

// ---- The program and problem on screen ---------------------------------------------------------
struct Selection {
  int program = 0;  // index into traced_programs()
  TraceProblem problem;
};
// The parameters the program runs the problem with (run_params): the problem's, else its choice by
// shape for the problem's SM count, with its defaults for the rest.
TraceProblem with_defaults(const TracedProgram& program, const TraceProblem& problem);
// "05_smem_tiling" or "03_smem_banks_square / row_col".
std::string program_label(const TracedProgram& program);

// ---- Thread map: who computes each element of C (the demos: of their output) -------------------
// Built from the traces: the lane whose store writes an element owns it. The stores do not depend
// on K, so the map is traced with a short K of the same residue mod 16 (which keeps each step's
// 16-byte-path decisions).
enum class ColourBy { block, warp, thread };
struct Owner {
  int block = -1;  // linear block index (x fastest), -1: nobody writes this element
  Dim3 block_coord;
  int thread = -1, warp = -1, lane = -1;
};
struct OwnerMap {
  int rows = 0, cols = 0;
  LaunchShape launch;
  std::vector<std::uint32_t> packed;  // per element: block << 10 | thread, or kNone
  static constexpr std::uint32_t kNone = 0xffffffffu;
  Owner at(int row, int col) const;
  Rgba colour(int row, int col, ColourBy by) const;
  // Whether any thread stores an element (step 15 with the copy engine storing C: none does).
  bool any_owned() const;
};
OwnerMap owner_map(const TracedProgram& program, const TraceProblem& problem);
// The largest side the viewer traces a thread map for.
constexpr int kMaxMapSide = 4096;

// ---- Warp access -------------------------------------------------------------------------------
struct WarpTrace {
  Dim3 block;
  int warp = 0;
  std::vector<TraceInstruction> instructions;
  std::vector<int> iterations;  // the distinct iteration numbers, ascending
  // Indices into `instructions` of the ones issued at `iteration`.
  std::vector<int> at_iteration(int iteration) const;
};
WarpTrace warp_trace(const TracedProgram& program, const TraceProblem& problem, const Dim3& block, int warp);
// The first warp of the block that issues a memory instruction (0 if none does): in step 15 the
// producer warps 0-3 issue none.
int first_traced_warp(const TracedProgram& program, const TraceProblem& problem, const Dim3& block);

// How an operand is drawn: a matrix of rows x cols elements (A, B, C, a demo's output), or a shared
// buffer as rows of 32 words, one column per bank.
struct OperandGrid {
  Operand operand = Operand::A;
  int rows = 0, cols = 0;
  bool banked = false;  // shared memory: column = bank
};
OperandGrid operand_grid(Operand operand, const TracedProgram& program, const TraceProblem& problem,
                         const WarpTrace& trace);
struct Touch {
  int row = 0, col = 0, lane = 0;
};
// Every element an instruction's active lanes touch (a 16-byte access touches 4), in lane order.
std::vector<Touch> touches(const TraceInstruction& instruction, const OperandGrid& grid);

// The 32-bank picture of a shared access: per phase, the lanes in each bank and the conflict degree.
struct BankPhase {
  std::array<std::vector<int>, kSharedBanks> lanes;  // lanes whose words are in each bank
  std::array<int, kSharedBanks> distinct_words{};    // distinct words per bank (the conflict degree)
};
std::vector<BankPhase> bank_phases(const WarpAccess& access);

// The model's counts for one instruction and for the whole launch.
struct InstructionCost {
  bool shared = false;
  GlobalCost global;
  SharedCost shared_cost;
};
InstructionCost instruction_cost(const TraceInstruction& instruction);
AccessTotals launch_totals(const TracedProgram& program, const TraceProblem& problem);

// ---- Results files -----------------------------------------------------------------------------
struct ResultPoint {
  int m = 0, n = 0, k = 0;
  double gflops = 0, cublas_gflops = 0, median_ms = 0;
  double tf32_gflops = 0;  // fp32 runs on sm_80+: cuBLAS in TF32 on the tensor cores, a reference (0: none)
  std::string verdict;
};
struct ResultRun {
  std::string step, variant, commit, date;
  std::string dtype = "f32", layout = "nn", out = "f32";  // tensor-core runs: their types and layout
  bool tensor_core() const { return dtype != "f32"; }
  std::string label() const;        // "09_warptiling" or "12_wmma NT bf16->f32"
  std::string types_label() const;  // "" or "NT bf16->f32"
  std::vector<ResultPoint> points;
};
struct ResultsFile {
  std::string path, error;  // error: why the file could not be used ("" when it loaded)
  std::string gpu, compute_capability;
  int sms = 0, clock_mhz = 0;
  std::vector<ResultRun> runs;  // GEMM runs only (the bank demos have no GFLOPS)
  double fp32_peak_gflops() const;
  bool ok() const { return error.empty(); }
};
// Never throws: a missing or malformed file comes back with `error` set.
ResultsFile load_results(const std::string& path);
// Every <gpu>.json in a folder (not the sweep or model-vs-ncu files), sorted by name.
std::vector<std::string> results_files_in(const std::string& folder);

}  // namespace gemm::viewer
