// Step 03: shared-memory bank conflicts with a square tile. See docs/03-smem-banks-square.md.
#include "bank_demo_run.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::BankDemoDescription demo;
  demo.name = "03_smem_banks_square";
  demo.title = "shared-memory banks: a 32x32 int tile stored and loaded by rows, by columns, transposed, padded";
  demo.tile = step03::kTile;
  demo.variants.assign(std::begin(step03::kVariants), std::end(step03::kVariants));
  demo.launch = step03::launch;
  return gemm::run_bank_demo(argc, argv, demo);
}
