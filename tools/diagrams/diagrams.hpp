// The docs' concept diagrams (tools/draw_diagrams.cpp lists them with their file names), a file of
// tools/diagrams/ per family, each drawn from the steps' own mapping functions and configurations
// (steps/*/mapping.hpp): nothing here is a second copy of a mapping.
#pragma once

#include <string>

namespace diagrams {

// The SMs of the GPU the shipped results come from (an H100 SXM): the diagrams of a grid's schedule
// (its waves, rounds and tile order) are cut for a GPU.
constexpr int kDiagramSms = 132;

std::string loop_order_00();   // loop_order.cpp
std::string tiling_09();       // tiling.cpp
std::string pipeline_10();     // timelines.cpp
std::string handoff_16();      // timelines.cpp
std::string overlap_20();      // timelines.cpp
std::string wave_split_11();   // wave_split.cpp
std::string swizzle_14();      // swizzle.cpp
std::string tile_order_17();   // tile_order.cpp
std::string descriptors_21();  // descriptors.cpp
std::string rounds_22();       // rounds.cpp

}  // namespace diagrams
