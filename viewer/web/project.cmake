# The browser's build of the viewer (tools/web): the top-level CMakeLists.txt includes this instead
# of the CUDA project when GEMM_WEB is set, under Emscripten's toolchain (emcmake). It builds the
# host library (common/), the viewer's model and its panels (viewer/): the same files as the native
# viewer, nothing of the steps' GPU code. tools/web passes:
#   GEMM_IMGUI_SOURCE  Dear ImGui's sources (Debian's source package, unpacked into the build folder)
#   GEMM_WEB_OUT       the folder that receives index.html, gemm_viewer.js, .wasm and .data
if(NOT EMSCRIPTEN)
  message(FATAL_ERROR "GEMM_WEB builds the viewer for a browser: configure with emcmake cmake (tools/web does)")
endif()
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
include(${PROJECT_SOURCE_DIR}/cmake/GemmSteps.cmake)
# Exceptions caught as natively (a malformed results file, a bad link): Emscripten leaves them off
# unless asked.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)

# Header-only libraries of the build machine (Debian's nlohmann-json3-dev), seen through a folder
# of their own: /usr/include itself would put the machine's C library before Emscripten's.
find_path(GEMM_NLOHMANN_INCLUDE nlohmann/json.hpp PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
set(_gemm_web_include ${CMAKE_BINARY_DIR}/host-headers)
file(MAKE_DIRECTORY ${_gemm_web_include})
file(CREATE_LINK ${GEMM_NLOHMANN_INCLUDE}/nlohmann ${_gemm_web_include}/nlohmann SYMBOLIC)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json SYSTEM INTERFACE ${_gemm_web_include})

# The traced registry (build/generated/traced_registry.hpp) of every step folder: this build declares
# no steps (their programs are CUDA), and the viewer reaches them through the registry alone.
file(GLOB _gemm_step_dirs LIST_DIRECTORIES true RELATIVE ${PROJECT_SOURCE_DIR}/steps ${PROJECT_SOURCE_DIR}/steps/[0-9][0-9]_*)
list(SORT _gemm_step_dirs)
gemm_write_traced_registry(${_gemm_step_dirs})

add_subdirectory(common)
add_subdirectory(viewer)
