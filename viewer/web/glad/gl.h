// The browser's build (tools/web) in place of glad's generated OpenGL loader: WebGL 2 is OpenGL
// ES 3.0, whose functions Emscripten links directly, so there is nothing to load.
#pragma once
#include <GLES3/gl3.h>
