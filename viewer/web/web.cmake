# The viewer for a browser (tools/web; included by viewer/CMakeLists.txt under Emscripten): the
# same sources and model as the native viewer (GEMM_VIEWER_SOURCES, gemm_viewer_model), drawn by
# Dear ImGui over Emscripten's GLFW and WebGL 2 (OpenGL ES 3.0), with the shipped results built in.
# What differs from the native window lives in this folder: web_main.cpp (the page's main loop, the
# link, opening a file from the browser), index.html (the page), glad/gl.h (no loader to generate).

if(NOT GEMM_IMGUI_SOURCE OR NOT EXISTS ${GEMM_IMGUI_SOURCE}/imgui.h)
  message(FATAL_ERROR "GEMM_IMGUI_SOURCE must name Dear ImGui's sources (tools/web unpacks Debian's source package)")
endif()
if(NOT GEMM_WEB_OUT)
  set(GEMM_WEB_OUT ${CMAKE_BINARY_DIR}/page)
endif()

# Dear ImGui 1.86 with its GLFW and OpenGL 3 backends, the latter for OpenGL ES 3 (WebGL 2).
set(_imgui ${GEMM_IMGUI_SOURCE})
add_library(gemm_imgui STATIC ${_imgui}/imgui.cpp ${_imgui}/imgui_draw.cpp ${_imgui}/imgui_tables.cpp
                              ${_imgui}/imgui_widgets.cpp ${_imgui}/backends/imgui_impl_glfw.cpp
                              ${_imgui}/backends/imgui_impl_opengl3.cpp ${_imgui}/misc/cpp/imgui_stdlib.cpp)
# The native viewer includes <imgui.h>, <backends/imgui_impl_glfw.h> and <imgui_stdlib.h>.
target_include_directories(gemm_imgui SYSTEM PUBLIC ${_imgui} ${_imgui}/misc/cpp)
target_compile_definitions(gemm_imgui PUBLIC IMGUI_IMPL_OPENGL_ES3)

# stb_image_write (Debian's libstb-dev, header-only here): the PNG that "Save screenshot" downloads.
find_path(GEMM_STB_INCLUDE stb_image_write.h PATHS /usr/include/stb NO_CMAKE_FIND_ROOT_PATH REQUIRED)

# The shipped results files, at the path the native viewer reads them from in a checkout
# (GEMM_SOURCE_DIR/docs/results): the main <gpu>.json files, as results_files_in lists them (not
# the sweep, model-vs-ncu or fp8-accuracy files, which the viewer does not read).
set(_gemm_site_root /gemm-steps)
file(GLOB _results CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/results/*.json)
list(FILTER _results EXCLUDE REGEX "/(sweep-|model-vs-ncu-|fp8-accuracy-|ceilings-|viewer-frame-times)[^/]*$")
set(_preload "")
foreach(_file IN LISTS _results)
  get_filename_component(_name ${_file} NAME)
  list(APPEND _preload "SHELL:--preload-file ${_file}@${_gemm_site_root}/docs/results/${_name}")
endforeach()

add_executable(gemm_viewer ${GEMM_VIEWER_SOURCES} web/web_main.cpp web/stb_image_write.c)
target_include_directories(gemm_viewer PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/web ${GEMM_STB_INCLUDE})
target_link_libraries(gemm_viewer PRIVATE gemm_viewer_model gemm_imgui)
target_compile_definitions(gemm_viewer PRIVATE GEMM_SOURCE_DIR="${_gemm_site_root}")
# Exceptions are caught (a malformed results file, a bad link) as in the native viewer.
target_link_options(gemm_viewer PRIVATE -sUSE_GLFW=3 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2
                    -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=web -sEXPORTED_RUNTIME_METHODS=ccall,FS
                    ${_preload})
set_target_properties(gemm_viewer PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${GEMM_WEB_OUT}
                      LINK_DEPENDS "${_results};${CMAKE_CURRENT_SOURCE_DIR}/web/index.html")
gemm_warnings(gemm_viewer)
configure_file(web/index.html ${GEMM_WEB_OUT}/index.html COPYONLY)
