// Step 24: a consumer alone in its block, its promotion under the next k-tile's products.
#include <algorithm>
#include <string>
#include <vector>

#include "24_overlapped_promotion/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

// One block's first k-tiles with the 64 x 128 tile the program takes at 1024 x 1024 x 8192
// (step24::config_for_shape): one consumer warpgroup, promotion every k-tile. Above, as step 23's
// kernel orders a k-tile (wgmma, wait for all of them, add, then the next wgmma); below, as this
// step's does (step24::overlapped_promotion): the next k-tile's wgmma first, into the other interval
// sum, then the wait for the one before and its addition. The times are schematic, the order the kernels'.
std::string promotion_24() {
  using namespace step24;
  const GemmShape shape{1024, 1024, 8192};
  const Config c = config_for_shape(shape, kDiagramSms);
  const bool overlapped = overlapped_promotion(c);
  const int k_count = k_tiles(shape, c), shown = 5;
  const std::string kIdle = "#f0f0f0", kEven = "#a1d99b", kOdd = "#74c476", kAdd = "#fdd0a2";
  const double unit = 150, x0 = 150, lane_h = 46, add_w = 0.36;
  Svg svg(x0 + unit * 6.6 + 40, 640);
  svg.text(30, 30, "Step 24: the promotion under the next k-tile's products", 20, "start", "#1a1a1a", true);
  svg.text(30, 56, "The " + std::to_string(c.bm) + " × " + std::to_string(c.bn) + " tile the program takes at " +
                       std::to_string(shape.m) + " × " + std::to_string(shape.n) + " × " + std::to_string(shape.k) + " (" +
                       std::to_string(k_count) + " k-tiles a tile): " + std::to_string(consumers(c)) +
                       " consumer warpgroup, promotion every k-tile; a tile's first k-tiles.",
           14);
  svg.text(30, 76, std::string("overlapped_promotion(this tile) = ") + (overlapped ? "true" : "false") + ": " +
                       std::to_string(interval_sums(c)) + " interval sums of " + std::to_string(c.bn / 2) +
                       " registers a thread beside the " + std::to_string(c.bn / 2) +
                       " of acc. Times are schematic; the order is the kernels'.",
           14);
  struct Box {
    double start, width;
    std::string label, fill;
  };
  auto draw_panel = [&](double top, const std::string& title, bool overlap) {
    svg.text(30, top, title, 16, "start", "#1a1a1a", true);
    const double consumer_y = top + 18, tensor_y = consumer_y + lane_h + 14;
    svg.text(x0 - 12, consumer_y + lane_h / 2 + 5, "consumer", 14, "end");
    svg.text(x0 - 12, tensor_y + lane_h / 2 + 5, "tensor cores", 14, "end");
    std::vector<Box> consumer, tensor, idle;
    if (!overlap) {
      // Step 23: k-tile kt's products into interval_sum; the wait for them (wgmma.wait_group 0); the
      // sum added into acc; only then k-tile kt + 1's wgmma, which write interval_sum again.
      double t = 0;
      for (int kt = 0; kt < shown; ++kt) {
        tensor.push_back({t, 1, "k-tile " + std::to_string(kt) + " → sum", kEven});
        consumer.push_back({t + 1, add_w, "add", kAdd});
        idle.push_back({t + 1, add_w, "", ""});
        t += 1 + add_w;
      }
    } else {
      // Step 24: even k-tiles into the first sum, odd ones into the second; k-tile kt + 1's wgmma are
      // issued before the wait for k-tile kt (wgmma.wait_group 1), whose sum is added while they run.
      for (int kt = 0; kt < shown; ++kt) {
        const bool even = kt % 2 == 0;
        tensor.push_back({double(kt), 1, "k-tile " + std::to_string(kt) + (even ? " → even" : " → odd"), even ? kEven : kOdd});
        if (kt > 0) consumer.push_back({double(kt), add_w, std::string("add ") + (even ? "odd" : "even"), kAdd});
      }
    }
    for (const Box& b : idle) svg.rect(x0 + unit * b.start + 1, tensor_y, unit * b.width - 2, lane_h, kIdle, "#bbbbbb", 0.8);
    for (const Box& b : tensor) {
      svg.rect(x0 + unit * b.start + 1, tensor_y, unit * b.width - 2, lane_h, b.fill, "#555555", 0.8);
      svg.text(x0 + unit * (b.start + b.width / 2), tensor_y + lane_h / 2 + 5, b.label, 13, "middle");
    }
    for (const Box& b : consumer) {
      svg.rect(x0 + unit * b.start + 1, consumer_y, unit * b.width - 2, lane_h, b.fill, "#555555", 0.8);
      svg.text(x0 + unit * (b.start + b.width / 2), consumer_y + lane_h / 2 + 5, b.label, 12, "middle");
    }
  };
  draw_panel(120, "As step 23 orders a k-tile: the consumer waits for all its products, then adds (the tensor cores wait)", false);
  draw_panel(300, "Step 24: the next k-tile's products issued first, the sum before them added while they run", true);
  svg.text(30, 480, "With two consumer warpgroups (the other tiles), one's products fill the other's additions: step 19's "
                    "order, kept for them.", 14);
  const double ly = 530;
  const Box legend[] = {{0, 0, "products of a k-tile into an interval sum (wgmma), the even k-tiles' sum", kEven},
                        {0, 0, "the odd k-tiles' sum (step 24's second set of registers)", kOdd},
                        {0, 0, "promotion: an interval's sum added into acc in f32", kAdd},
                        {0, 0, "the tensor cores have nothing to do", kIdle}};
  for (int i = 0; i < 4; ++i) {
    const double lx = 30 + (i % 2) * 560, y = ly + (i / 2) * 24;
    svg.rect(lx, y - 12, 28, 16, legend[i].fill, "#555555", 0.8);
    svg.text(lx + 38, y + 1, legend[i].label, 13);
  }
  return svg.str();
}

const Registration promotion_24_registered("diagram-24-promotion.svg", promotion_24);

}  // namespace
}  // namespace diagrams
