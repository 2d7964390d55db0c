// The docs' concept diagrams: a file of tools/diagrams/ per family, each drawing its diagrams from
// the steps' own mapping functions and configurations (steps/*/mapping.hpp: nothing here is a second
// copy of a mapping) and registering each with the file it is written to, so that a new diagram is a
// new file (or a function in its family's) and nothing else; tools/draw_diagrams.cpp writes them all.
#pragma once

#include <map>
#include <string>

namespace diagrams {

// A diagram's drawing: the SVG document.
using Draw = std::string (*)();

// Every registered diagram, by the file it is written to (docs/images/diagram-NN-name.svg), in the
// order of their names (the steps' order).
const std::map<std::string, Draw>& registered();

// Registers a diagram at start-up, in its own file:
//   const Registration tiling_09_registered("diagram-09-tiling.svg", tiling_09);
struct Registration {
  Registration(const std::string& file, Draw draw);
};

// The SMs of the GPU the shipped results come from (an H100 SXM): the diagrams of a grid's schedule
// (its waves, rounds and tile order) are cut for a GPU.
constexpr int kDiagramSms = 132;

}  // namespace diagrams
