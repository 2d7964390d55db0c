// What the viewer shows, computed without any graphics: plain C++ over the steps' own traces
// (steps/traced_steps.hpp), the access model and the results files. The panels draw these
// structures; the viewer tests check them (and the pixels drawn from them) against the model.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
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
constexpr int kWarpgroupThreads = 128;          // a warpgroup: the 4 warps that issue one wgmma
// printf into a std::string: the texts the panels write, with their numbers' formats (at most
// 1023 characters).
[[gnu::format(printf, 1, 2)]] std::string format(const char* pattern, ...);

Rgba lane_colour(int lane);                     // 32 distinct hues, lane 0 red, around the wheel
Rgba index_colour(std::uint32_t index);         // a stable colour for a block, warp or thread index
Rgba hue_colour(double hue, double saturation, double value);  // HSV, hue in turns, each 0..1
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
// "64x64x32".
std::string shape_text(const GemmShape& shape);
// M, N and K rounded up to multiples of 8 (a tensor-core step's shape rule).
GemmShape rounded_up_to_8(const GemmShape& shape);
// "BM=64 BN=64 " (each tunable followed by a space), as the top bar lists a configuration.
std::string params_text(const std::map<std::string, int>& params);
// "05_smem_tiling, 64 x 64 x 64; BM=64 BN=64" (a tensor-core step adds its layout): what a docs
// picture shows in place of the top bar.
std::string problem_text(const TracedProgram& program, const TraceProblem& problem);

// ---- Thread map: who computes each element of C (the demos: of their output) -------------------
// The fp32 steps and the demos: built from the traces, the lane whose store writes an element owns it.
// The stores do not depend on K, so the map is traced with a short K of the same residue mod 16
// (which keeps each step's 16-byte-path decisions). The tensor-core steps: who holds each element
// in its accumulators when the k-loop ends (held_map below), whoever stores it.
// thread: the lane's colour (WMMA, whose lanes are unspecified: the warp's fragment); warpgroup:
// the block's 128-thread groups (a wgmma's); reg: the accumulator register (WMMA: the fragment).
enum class ColourBy { block, warp, thread, warpgroup, reg };
const char* to_string(ColourBy by);                // "block", "warp", "thread", "warpgroup", "register"
ColourBy colour_by_named(const std::string& name);  // the reverse (--colour; "lane" is thread); anything else: thread
bool is_colour_by_name(const std::string& name);   // whether --colour takes it
// The colours of a block's warps, warpgroups (the block's colour, warpgroup 2 darker) and fragments
// (a warp's hue, in three shades), and of a register (the map's and the tests').
Rgba warp_colour(int block, int warp);
Rgba warpgroup_colour(int block, int warpgroup);
Rgba fragment_colour(int block, int warp, int fragment);
Rgba register_colour(int reg);
struct Owner {
  int block = -1;  // linear block index (x fastest), -1: nobody writes this element
  Dim3 block_coord;
  int thread = -1, warp = -1, lane = -1;  // lane -1 in a WMMA step's map (thread: the warp's first)
  int warpgroup = -1;
  int reg = -1;  // held maps: the accumulator register (WMMA: the fragment), -1 otherwise
  std::uint32_t key() const;  // as OwnerMap::packed holds it
  bool in_warp(const Dim3& block, int warp) const;  // whether the element is this warp's
};
// A held map's comparison with the traced stores: how many elements of C some thread stores, and
// of those, how many the thread (or, WMMA, the warp) that holds them.
struct StoreSummary {
  long long elements = 0, stored = 0, by_holding_thread = 0, by_holding_warp = 0;
};
struct OwnerMap {
  int rows = 0, cols = 0;
  LaunchShape launch;
  std::vector<std::uint32_t> packed;  // per element: block << 10 | thread, or kNone
  static constexpr std::uint32_t kNone = 0xffffffffu;
  // A tensor-core step's map: who holds each element (held), with its register; WMMA's lanes are
  // not known (lanes_known false: packed names the warp's first thread).
  bool held = false, lanes_known = true;
  MmaKind mma = MmaKind::wgmma;
  std::vector<std::uint16_t> regs;  // held maps: per element
  StoreSummary stores;              // held maps
  Owner at(int row, int col) const;
  Rgba colour(int row, int col, ColourBy by) const;
  // Whether any thread stores an element (step 18 with TMA storing C: none does).
  bool any_owned() const;
  // One pixel per element, row by row, coloured as asked.
  std::vector<Rgba> pixels(ColourBy by) const;
  // FNV-1a over every element's owner key: it changes when the mapping does.
  std::uint64_t digest() const;
};
OwnerMap owner_map(const TracedProgram& program, const TraceProblem& problem);
// The largest side the viewer traces a thread map for.
constexpr int kMaxMapSide = 4096;

// "Thread map: C of 05_smem_tiling, 64 x 64" ("the output" for a demo; a held map adds "by who
// holds it when the k-loop ends").
std::string thread_map_title(const TracedProgram& program, const OwnerMap& map);
// "grid 2 x 2 x 1 blocks of 32 x 32 x 1 threads".
std::string launch_text(const LaunchShape& launch);
// Why no element has an owner ("No thread stores an element here: <the program's c_writer>.").
std::string no_owner_text(const TracedProgram& program);

// ---- Thread map of the tensor-core steps: who holds each element of C ----------------------------
// From the step's own accumulator functions (TracedProgram::accumulators, its warp_accumulators):
// the thread and register that hold each element of C when the k-loop ends, whether or not the
// thread stores it (the steps with a TMA store epilogue hand C to the Tensor Memory Accelerator);
// compared with the traced stores (owner_map) for the caption.
OwnerMap held_map(const TracedProgram& program, const TraceProblem& problem);
// What the panel draws: held_map where the program has accumulators, else owner_map.
OwnerMap thread_map(const TracedProgram& program, const TraceProblem& problem);
// The element as the step's function gives it (its instruction, register, tile), for the hover.
std::optional<HeldElement> held_element(const TracedProgram& program, const TraceProblem& problem, const OwnerMap& map,
                                        int row, int col);
// "wgmma.m64n256k16", "mma.sync.m16n8k16", "wmma::mma_sync m16n16k16".
std::string instruction_name(const MmaShape& mma);
// "wgmma.m64n256k16: thread 133 (warpgroup 1, warp 5, lane 5), accumulator register 37" (mma.sync:
// "... register 13 = acc[0][3][1]"; WMMA: "... warp 3, fragment acc[1][2] (...)"), and a line on
// its tile and, with promotion, how the register is summed.
std::vector<std::string> held_text(const HeldElement& element, const Owner& owner, const LaunchShape& launch);
// How C is stored, from the comparison with the traced stores (and the program's c_writer).
std::string c_store_text(const TracedProgram& program, const OwnerMap& map);
// What the colours mean where that needs saying (WMMA's unspecified lanes; a colouring the map has
// no data for), else "".
std::string colour_note(const OwnerMap& map, ColourBy by);
// The colourings the panel offers for a map (warpgroup: wgmma's; register: held maps), and each one's
// label ("colour by block", "colour by thread (lane)", WMMA: "colour by warp and fragment", ...).
std::vector<ColourBy> colourings(const OwnerMap& map);
std::string colour_label(const OwnerMap& map, ColourBy by);

// The part of the map on screen: the cell size in pixels, and the rows and columns shown. zoom 0
// fits the map: the largest whole number of pixels per cell that shows it all (a fraction when the
// map is larger than the area). The pan (first row and column, fractional while dragging) is
// clamped to the map.
struct MapWindow {
  float cell = 1;
  int row0 = 0, col0 = 0, rows = 0, cols = 0;
};
MapWindow map_window(const OwnerMap& map, float area_w, float area_h, float zoom, float& pan_row, float& pan_col);

// The elements one thread owns: the first few, and how many in all.
struct ThreadElements {
  std::vector<std::pair<int, int>> first;  // (row, col), row by row
  long long count = 0;
};
ThreadElements elements_of(const OwnerMap& map, std::uint32_t key, size_t most = 8);
// "owns 4 elements: (0,0) (0,1) (1,0) (1,1)", " ..." when there are more than listed ("holds" in a
// held map).
std::string owned_text(const ThreadElements& elements, bool held = false);

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
// The first warp of the block that issues a memory instruction (0 if none does): in the
// warp-specialized steps the producer warps 0-3 issue none.
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

// ---- What the access panel writes --------------------------------------------------------------
// "k-tile 3" (the program's iteration unit).
std::string iteration_text(const TracedProgram& program, int iteration);
// "load A, 16 B": the instruction's label and width.
std::string instruction_text(const TraceInstruction& instruction);
// A row of the instruction list: "k-tile 3: load A, 16 B   4 sectors (ideal 4)" (shared memory:
// wavefronts).
std::string instruction_row_text(const TracedProgram& program, int iteration, const TraceInstruction& instruction);
// "this instruction: 1 request, 4 sectors (ideal 4), 1 lines" or "... 2 wavefronts, ideal 1, worst
// conflict 2-way".
std::string cost_text(const InstructionCost& cost);
// How the model counts a cp.async ("" for other instructions): through the L1, the sources' L1
// banks add wavefronts; around it, the profiler counts sectors by pairs of lanes.
std::string cp_async_note(const TraceInstruction& instruction);
// The whole launch's counts, a line each (the first names them).
std::vector<std::string> totals_text(const AccessTotals& totals);
// Why a warp has nothing to show (it issues no memory instruction).
std::string quiet_warp_text(const TracedProgram& program);

// The part of an operand drawn around the elements an instruction touches: at least 8 rows and 32
// columns (where the operand has them), at most 64 x 64, the touched ones centred; a banked grid
// always from bank 0.
struct OperandWindow {
  int row0 = 0, col0 = 0, rows = 0, cols = 0;
  // A pixel per cell, row by row: the lane colour of the lane that touches it, else kUntouched.
  std::vector<Rgba> pixels(const std::vector<Touch>& touched) const;
};
OperandWindow operand_window(const OperandGrid& grid, const std::vector<Touch>& touched);
// "global A (64 x 64), rows 0-7, columns 0-31" or "shared A (4 x 32, one column per bank), ...".
std::string operand_caption(const TraceInstruction& instruction, const OperandGrid& grid, const OperandWindow& window);
// What starts at element `index` of a row-major operand of `element_bytes`-byte elements (4 for fp32
// and C, 2 for the 16-bit A and B of steps 12-14): a 128-byte line, a 32-byte sector or neither.
enum class Boundary { none, sector, line };
Boundary boundary_at(long long index, int element_bytes);

// ---- Results files -----------------------------------------------------------------------------
struct ResultPoint {
  int m = 0, n = 0, k = 0;
  double gflops = 0, cublas_gflops = 0, median_ms = 0;
  double tf32_gflops = 0;  // fp32 runs on sm_80+: cuBLAS in TF32 on the tensor cores, a reference (0: none)
  std::string verdict;
};
// The performance panel's groups of runs, each against its own yardstick and scale: the fp32 steps
// (SGEMM, the fp32 peak), the 16-bit tensor-core steps (cublasGemmEx), the FP8 step (cuBLASLt, about
// twice the 16-bit rate, which would flatten the 16-bit bars on a shared scale).
enum class RunGroup { fp32, tensor, fp8 };
struct ResultRun {
  std::string step, variant, commit, date;
  std::string dtype = "f32", layout = "nn", out = "f32";  // tensor-core runs: their types and layout
  bool tensor_core() const { return dtype != "f32"; }
  RunGroup group() const {
    return !tensor_core() ? RunGroup::fp32 : (dtype == "e4m3" || dtype == "e5m2") ? RunGroup::fp8 : RunGroup::tensor;
  }
  std::string label() const;        // "09_warptiling", "12_wmma NT bf16->f32" or "19_fp8 / no-promotion NT e4m3->bf16"
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
// Every <gpu>.json in a folder (not the sweep, model-vs-ncu or fp8-accuracy files), sorted by name.
std::vector<std::string> results_files_in(const std::string& folder);
// "NVIDIA H100 80GB HBM3  (h100.json)" or "broken.json (unusable)": the file in the results list.
std::string results_name(const ResultsFile& file);

// ---- What the performance panel plots ------------------------------------------------------------
// "41.3 TFLOPS".
std::string tflops_text(double gflops);
using MeasuredShape = std::array<int, 3>;  // M, N, K
std::string shape_text(const MeasuredShape& shape);
struct RunPoint {
  size_t run = 0;  // index into PerformanceView::runs (also the run's colour: index_colour(run))
  const ResultPoint* point = nullptr;
  bool highlighted = false;  // a run of the step selected in the viewer
};
struct SizePoint {
  size_t size = 0;  // index into PerformanceView::sizes
  const ResultPoint* point = nullptr;
};
// One results file's runs of one kind (fp32, or tensor-core: their scales differ tenfold), as the
// panel plots them. The pointers point into the file.
struct PerformanceView {
  std::vector<const ResultRun*> runs;  // in the file's order
  std::vector<MeasuredShape> shapes;   // every shape measured, the square ones first, each part ascending
  int shape = -1;                      // index into shapes: the bars' shape (-1: no shapes)
  // The fp32 peak for fp32 runs (0 for tensor-core runs: their peak depends on the clock the tensor
  // cores sustain, which the file does not record; cuBLAS is the line to reach).
  double peak = 0;
  // cuBLAS in TF32 at the bars' shape (fp32 runs on sm_80+): a reference, named rather than drawn.
  double tf32 = 0;
  // Bars: every run's points at the bars' shape, cuBLAS there (the most of its runs), and the top
  // of the scale (5% above the highest of the peak, cuBLAS and 1).
  std::vector<RunPoint> bars;
  double bar_cublas = 0, bar_top = 0;
  // Lines: GFLOPS against the square sizes, ascending; per run its points in that order; the top of
  // the scale (5% above every point, cuBLAS's and the peak).
  std::vector<int> sizes;
  std::vector<std::vector<SizePoint>> lines;
  double line_top = 0;
};
// shape: the bars' shape asked for; out of range: 4096^3 where measured, else the first. The bars of
// the runs of step `highlight` (a folder name, e.g. "18_tma_store_epilogue") are highlighted.
PerformanceView performance_view(const ResultsFile& file, RunGroup group, int shape, const std::string& highlight = "");
// The group of a step's runs in a file (fp32, 16-bit tensor-core or FP8), none if it has no runs
// there (the bank demos): the panel follows the selected step to its ladder.
std::optional<RunGroup> group_of_step(const ResultsFile& file, const std::string& step);
// A run in the bars' labels ("09") and the legend ("09 ", "12 NT bf16->f32" or "19 no-promotion NT e4m3->bf16").
std::string short_name(const ResultRun& run);
std::string legend_text(const ResultRun& run);
// A bar's tooltip, a line each.
std::vector<std::string> bar_tooltip(const ResultRun& run, const ResultPoint& point, const MeasuredShape& shape);
// A point of the lines: "09_warptiling at 4096^3: 21000 GFLOPS, cuBLAS 24000".
std::string line_point_text(const ResultRun& run, int size, const ResultPoint& point);

}  // namespace gemm::viewer
