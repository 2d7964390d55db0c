// Step 04: shared-memory bank conflicts with a rectangular tile. See docs/04-smem-banks-rectangular.md.
#include "bank_demo_run.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::BankDemoDescription demo;
  demo.name = "04_smem_banks_rectangular";
  demo.title = "shared-memory banks: a 32-wide x 16-high int tile, by rows, by columns, transposed, padded by 1 and 2";
  demo.tile = step04::kTile;
  demo.variants.assign(std::begin(step04::kVariants), std::end(step04::kVariants));
  demo.launch = step04::launch;
  return gemm::run_bank_demo(argc, argv, demo);
}
