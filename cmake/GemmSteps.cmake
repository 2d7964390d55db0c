# Shared build settings for the harness and the steps, and the one declaration of a step.

set(GEMM_CXX_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)

# Warnings for host code; for .cu files, nvcc forwards them to the host compiler.
function(gemm_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${GEMM_CXX_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=all-warnings>)
endfunction()

# The compute capability of a step that declares none: the oldest architecture CUDA 13 compiles
# for (Turing, sm_75).
set(GEMM_OLDEST_ARCH 75)

# A step is declared once, by one call in its folder's CMakeLists.txt (steps/NN_name/CMakeLists.txt),
# followed there by its own tests (cmake/GemmStepTests.cmake):
#
#   gemm_add_step(NN_name [KIND] [ALIGNED_ROWS] [MIN_ARCH cc] [CUDA_ARCHITECTURES arch...]
#                 [SOURCES file...] [BENCH_SHAPES shape...] [BENCH_RUNS "label: argument..."...]
#                 [NCU_SHAPES shape...] [NCU_ARGS argument...])
#
# The program is steps/NN_name/main.cu (plus mapping.hpp, kernel.cuh), named after its folder, in
# build/bin. KIND picks the runner and the tests and benchmarks every step of that kind gets
# (tests/CMakeLists.txt, tools/bench_all.py, tools/check_model_ncu.py); one of:
#   (none)       an fp32 GEMM step (run_step)
#   TENSOR_CORE  an f16/bf16 step (run_tc_step)
#   FP8          an FP8 step (run_fp8_step)
#   DEMO         a program that is not a GEMM (the bank demos): the demo tests, not the GEMM ones
#   CPU          the CPU reference: host code (SOURCES main.cpp), linked with gemm_host alone
# ALIGNED_ROWS: a tensor-core step that copies whole 16-byte chunks of the stored rows (cp.async,
#   TMA) and so refuses rows that do not start on 16 bytes: its tests and benchmarks use shapes
#   whose stored rows are multiples of 8 in NN and TN.
# MIN_ARCH: the compute capability the step needs as an integer (80 for cp.async and mma.sync);
#   the build's architectures below it are left out, since the program refuses those GPUs before
#   any launch (exit 77); with none left it builds for MIN_ARCH. Default: GEMM_OLDEST_ARCH.
# CUDA_ARCHITECTURES overrides the build's list for this step: an architecture-specific target
#   ("90a" for wgmma and setmaxnreg, the Hopper steps), whose number is then its minimum.
# BENCH_SHAPES: shapes tools/bench_all.py runs besides its kind's standard ones (where the step's
#   choice of tile by shape decides); BENCH_RUNS: runs besides its kind's, each "label: arguments"
#   (the label is the results file's variant).
# NCU_SHAPES: shapes tools/check_model_ncu.py profiles besides its kind's cases; NCU_ARGS: the
#   arguments its profiled runs need to run what the trace draws.
# Each step's declaration goes into build/steps.json (gemm_write_step_manifest), which the tools
# read, and the step's name is left in GEMM_STEP for the test functions that follow the call.
# _gemm_mapping_has(OUT TEXT PATTERN): OUT is true where a step's mapping.hpp (TEXT) matches PATTERN.
function(_gemm_mapping_has out text pattern)
  if(text MATCHES "${pattern}")
    set(${out} true PARENT_SCOPE)
  else()
    set(${out} false PARENT_SCOPE)
  endif()
endfunction()

function(gemm_add_step name)
  cmake_parse_arguments(STEP "DEMO;TENSOR_CORE;FP8;CPU;ALIGNED_ROWS" "MIN_ARCH"
                        "SOURCES;CUDA_ARCHITECTURES;BENCH_SHAPES;BENCH_RUNS;NCU_SHAPES;NCU_ARGS" ${ARGN})
  if(STEP_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gemm_add_step(${name}): unknown arguments ${STEP_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(_folder "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  if(NOT name STREQUAL _folder)
    message(FATAL_ERROR "gemm_add_step(${name}) in steps/${_folder}: a step is named after its folder")
  endif()
  set(_kind fp32)
  set(_kinds 0)
  foreach(_flag DEMO TENSOR_CORE FP8 CPU)
    if(STEP_${_flag})
      string(TOLOWER ${_flag} _kind)
      math(EXPR _kinds "${_kinds} + 1")
    endif()
  endforeach()
  if(_kinds GREATER 1)
    message(FATAL_ERROR "gemm_add_step(${name}): one kind at most (DEMO, TENSOR_CORE, FP8 or CPU)")
  endif()
  if(STEP_ALIGNED_ROWS AND NOT _kind STREQUAL "tensor_core")
    message(FATAL_ERROR "gemm_add_step(${name}): ALIGNED_ROWS is a rule of the TENSOR_CORE steps' shapes")
  endif()
  if(NOT STEP_SOURCES)
    set(STEP_SOURCES main.cu)
  endif()

  if(_kind STREQUAL "cpu")
    add_executable(${name} ${STEP_SOURCES})
    target_link_libraries(${name} PRIVATE gemm_host)
    set(_min_arch "")
    set(_architectures "")
  else()
    # The minimum: MIN_ARCH, or the number of an architecture-specific target, or the oldest.
    set(_min_arch ${GEMM_OLDEST_ARCH})
    if(STEP_MIN_ARCH)
      set(_min_arch ${STEP_MIN_ARCH})
    elseif(STEP_CUDA_ARCHITECTURES)
      list(GET STEP_CUDA_ARCHITECTURES 0 _first)
      string(REGEX MATCH "^[0-9]+" _min_arch "${_first}")
    endif()
    if(STEP_MIN_ARCH AND NOT STEP_CUDA_ARCHITECTURES)
      set(STEP_CUDA_ARCHITECTURES "")
      foreach(_arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
        string(REGEX MATCH "^[0-9]+" _number "${_arch}")
        if(_number AND _number GREATER_EQUAL STEP_MIN_ARCH)
          list(APPEND STEP_CUDA_ARCHITECTURES ${_arch})
        endif()
      endforeach()
      if(NOT STEP_CUDA_ARCHITECTURES)
        set(STEP_CUDA_ARCHITECTURES ${STEP_MIN_ARCH})
      endif()
    endif()
    add_executable(${name} ${STEP_SOURCES})
    target_link_libraries(${name} PRIVATE gemm_common)
    target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
    if(STEP_CUDA_ARCHITECTURES)
      set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${STEP_CUDA_ARCHITECTURES}")
    endif()
    get_target_property(_architectures ${name} CUDA_ARCHITECTURES)
  endif()
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  gemm_warnings(${name})

  # The lists tests/CMakeLists.txt gives each kind's tests.
  if(STEP_ALIGNED_ROWS)
    set_property(GLOBAL APPEND PROPERTY GEMM_ALIGNED_ROWS_STEPS ${name})
  endif()
  if(_kind STREQUAL "demo")
    set_property(GLOBAL APPEND PROPERTY GEMM_DEMO_STEPS ${name})
  elseif(_kind STREQUAL "tensor_core")
    set_property(GLOBAL APPEND PROPERTY GEMM_TC_STEPS ${name})
  elseif(_kind STREQUAL "fp8")
    set_property(GLOBAL APPEND PROPERTY GEMM_FP8_STEPS ${name})
  elseif(_kind STREQUAL "fp32")
    set_property(GLOBAL APPEND PROPERTY GEMM_GPU_STEPS ${name})
  endif()

  # Its entry in the manifest (build/steps.json).
  set(_runs "")
  foreach(_run IN LISTS STEP_BENCH_RUNS)
    if(NOT _run MATCHES "^([a-z0-9-]+): *(.+)$")
      message(FATAL_ERROR "gemm_add_step(${name}): BENCH_RUNS \"${_run}\" is not \"label: arguments\"")
    endif()
    set(_label ${CMAKE_MATCH_1})
    separate_arguments(_arguments UNIX_COMMAND "${CMAKE_MATCH_2}")
    _gemm_json_strings(_arguments_json ${_arguments})
    list(APPEND _runs "{\"label\": \"${_label}\", \"args\": ${_arguments_json}}")
  endforeach()
  list(JOIN _runs ", " _runs)
  if(STEP_ALIGNED_ROWS)
    set(_aligned true)
  else()
    set(_aligned false)
  endif()
  if(_min_arch STREQUAL "")
    set(_min_arch null)
  endif()
  # What its mapping declares, which the host tests derive their lists from
  # (tests/host/declared_steps.hpp.in): a trace, a table of tunables. CMake reads the mapping again
  # when it changes.
  set(_mapping ${CMAKE_CURRENT_SOURCE_DIR}/mapping.hpp)
  # What the mapping declares, read from its text; the host and viewer tests' lists follow from it.
  set(_text "")
  if(EXISTS ${_mapping})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_mapping})
    file(READ ${_mapping} _text)
  endif()
  _gemm_mapping_has(_traced "${_text}" "void trace_warp\\(")
  _gemm_mapping_has(_tunables "${_text}" "kTunables\\[\\] *=")
  # A kernel compiled a second time with C stored by TMA alone (tests/host/store_path_steps.hpp.in).
  _gemm_mapping_has(_store_paths "${_text}" "has_tma_only_kernel\\(")
  # A k-loop through stages of shared memory (a STAGES tunable), and a persistent grid
  # (persistent_clusters, with grid_time where its rounds are counted): what the viewer's timeline
  # draws, which its tests take from here (tests/viewer/test_timeline_model.cpp).
  _gemm_mapping_has(_pipelined "${_text}" "{\"STAGES\"")
  _gemm_mapping_has(_persistent "${_text}" "persistent_clusters\\(")
  _gemm_mapping_has(_grid_time "${_text}" "[ :]grid_time\\(")
  # A grid dealt by a walk of its own (step 25's places: single_units, first_unit, next_unit), not
  # the round robin of units.
  _gemm_mapping_has(_walk "${_text}" "int single_units\\(")
  string(SUBSTRING ${name} 0 2 _number)
  _gemm_json_strings(_architectures_json ${_architectures})
  _gemm_json_strings(_bench_shapes_json ${STEP_BENCH_SHAPES})
  _gemm_json_strings(_ncu_shapes_json ${STEP_NCU_SHAPES})
  _gemm_json_strings(_ncu_args_json ${STEP_NCU_ARGS})
  set(_entry "{\"name\": \"${name}\", \"number\": \"${_number}\", \"kind\": \"${_kind}\", ")
  string(APPEND _entry "\"min_arch\": ${_min_arch}, \"architectures\": ${_architectures_json}, ")
  string(APPEND _entry "\"aligned_rows\": ${_aligned}, \"traced\": ${_traced}, \"tunables\": ${_tunables}, ")
  string(APPEND _entry "\"bench_shapes\": ${_bench_shapes_json}, \"bench_runs\": [${_runs}], ")
  string(APPEND _entry "\"ncu_shapes\": ${_ncu_shapes_json}, \"ncu_args\": ${_ncu_args_json}}")
  set_property(GLOBAL APPEND PROPERTY GEMM_STEP_MANIFEST "${_entry}")
  set_property(GLOBAL APPEND PROPERTY GEMM_STEPS ${name})
  set_property(GLOBAL PROPERTY GEMM_STEP_KIND_${name} ${_kind})
  set_property(GLOBAL PROPERTY GEMM_STEP_TRACED_${name} ${_traced})
  set_property(GLOBAL PROPERTY GEMM_STEP_TUNABLES_${name} ${_tunables})
  set_property(GLOBAL PROPERTY GEMM_STEP_STORE_PATHS_${name} ${_store_paths})
  set_property(GLOBAL PROPERTY GEMM_STEP_PIPELINED_${name} ${_pipelined})
  set_property(GLOBAL PROPERTY GEMM_STEP_PERSISTENT_${name} ${_persistent})
  set_property(GLOBAL PROPERTY GEMM_STEP_GRID_TIME_${name} ${_grid_time})
  set_property(GLOBAL PROPERTY GEMM_STEP_WALK_${name} ${_walk})
  set_property(GLOBAL PROPERTY GEMM_STEP_MIN_ARCH_${name} "${_min_arch}")
  set(GEMM_STEP ${name} PARENT_SCOPE)
endfunction()

# A JSON list of strings.
function(_gemm_json_strings out)
  set(_items "")
  foreach(_item IN LISTS ARGN)
    list(APPEND _items "\"${_item}\"")
  endforeach()
  list(JOIN _items ", " _items)
  set(${out} "[${_items}]" PARENT_SCOPE)
endfunction()

# Writes what every step declared, once all are: build/steps.json for the tools (tools/bench_all.py,
# tools/check_model_ncu.py, tests/check_steps_registered.py), build/generated/declared_steps.hpp,
# fp8_steps.hpp and store_path_steps.hpp for the host tests (the lists of traced steps, of tables of
# tunables, of FP8 steps and of steps with a TMA-only kernel that they check every step of), and
# build/generated/traced_registry.hpp (gemm_write_traced_registry). Each is rewritten only when it
# changes.
function(gemm_write_step_manifest)
  get_property(_entries GLOBAL PROPERTY GEMM_STEP_MANIFEST)
  list(JOIN _entries ",\n    " _entries)
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/steps.json
       CONTENT "{\n  \"schema\": \"gemm-steps-manifest/1\",\n  \"steps\": [\n    ${_entries}\n  ]\n}\n" @ONLY)

  get_property(_steps GLOBAL PROPERTY GEMM_STEPS)
  set(GEMM_DECLARED_STEP_INCLUDES "")
  set(GEMM_DECLARED_STEPS "")
  set(GEMM_DECLARED_TABLES "")
  set(GEMM_DECLARED_PERSISTENT "")
  set(GEMM_FP8_STEP_INCLUDES "")
  set(GEMM_FP8_STEP_ALIASES "")
  set(GEMM_STORE_PATH_STEP_INCLUDES "")
  set(GEMM_STORE_PATH_STEP_ALIASES "")
  foreach(_step IN LISTS _steps)
    get_property(_kind GLOBAL PROPERTY GEMM_STEP_KIND_${_step})
    get_property(_traced GLOBAL PROPERTY GEMM_STEP_TRACED_${_step})
    get_property(_tunables GLOBAL PROPERTY GEMM_STEP_TUNABLES_${_step})
    get_property(_store_paths GLOBAL PROPERTY GEMM_STEP_STORE_PATHS_${_step})
    get_property(_pipelined GLOBAL PROPERTY GEMM_STEP_PIPELINED_${_step})
    get_property(_persistent GLOBAL PROPERTY GEMM_STEP_PERSISTENT_${_step})
    get_property(_grid_time GLOBAL PROPERTY GEMM_STEP_GRID_TIME_${_step})
    get_property(_walk GLOBAL PROPERTY GEMM_STEP_WALK_${_step})
    get_property(_min_arch GLOBAL PROPERTY GEMM_STEP_MIN_ARCH_${_step})
    if(NOT _min_arch MATCHES "^[0-9]+$")
      set(_min_arch 0)  # the CPU reference
    endif()
    string(SUBSTRING ${_step} 0 2 _number)
    string(APPEND GEMM_DECLARED_STEPS
           "    {\"${_step}\", \"${_kind}\", ${_traced}, ${_tunables}, ${_min_arch}, ${_pipelined}, ${_persistent}},\n")
    if(_persistent)
      set(_grid_time_fn nullptr)
      if(_grid_time)
        set(_grid_time_fn "[](const GemmShape& s, const step${_number}::Config& c, int sms) { return step${_number}::grid_time(s, c, sms); }")
      endif()
      # The units cluster q of `clusters` takes, in the kernel's order: the step's own walk, else
      # nullptr (the round robin: q, q + clusters, ...).
      set(_walk_fn nullptr)
      if(_walk)
        string(CONCAT _walk_fn "[](const GemmShape& s, const step${_number}::Config& c, int q, int clusters) { "
                              "std::vector<int> taken; const int single = step${_number}::single_units(s, c, clusters); "
                              "for (int u = step${_number}::first_unit(q, single); u < step${_number}::units(s, c); "
                              "u = step${_number}::next_unit(u, clusters, single)) taken.push_back(u); return taken; }")
      endif()
      if(NOT _tunables)
        string(APPEND GEMM_DECLARED_STEP_INCLUDES "#include \"${_step}/mapping.hpp\"\n")
      endif()
      string(APPEND GEMM_DECLARED_PERSISTENT
             "  visit(\"${_step}\", [](const Params& p) { return step${_number}::config_from(p); }, step${_number}::tile_at,\n"
             "        step${_number}::persistent_clusters, step${_number}::units, step${_number}::tiles_m, step${_number}::tiles_n,\n"
             "        ${_grid_time_fn},\n        ${_walk_fn});\n")
    endif()
    if(_tunables)
      string(APPEND GEMM_DECLARED_STEP_INCLUDES "#include \"${_step}/mapping.hpp\"\n")
      string(APPEND GEMM_DECLARED_TABLES
             "  visit(\"${_step}\", step${_number}::kTunables, step${_number}::kConfigs);\n")
    endif()
    if(_kind STREQUAL "fp8")
      string(APPEND GEMM_FP8_STEP_INCLUDES "#include \"${_step}/mapping.hpp\"\n")
      string(APPEND GEMM_FP8_STEP_ALIASES
             "using Step${_number} = Fp8Step<step${_number}::Config, step${_number}::kConfigs, "
             "&step${_number}::launch_shape, &step${_number}::shared_bytes, &step${_number}::units, "
             "&step${_number}::tile_at, &step${_number}::to_params, &step${_number}::trace_launch_shape, "
             "&step${_number}::trace_warp>;\n")
    endif()
    if(_store_paths)
      string(APPEND GEMM_STORE_PATH_STEP_INCLUDES "#include \"${_step}/mapping.hpp\"\n")
      string(APPEND GEMM_STORE_PATH_STEP_ALIASES
             "using StorePaths${_number} = StorePathStep<step${_number}::StorePath, step${_number}::kConfigs, "
             "&step${_number}::store_path, &step${_number}::has_tma_only_kernel, "
             "&step${_number}::epilogue_under_next_tile, &step${_number}::launches_tma_only_kernel, "
             "&step${_number}::tma_stores_c>;\n")
    endif()
  endforeach()
  configure_file(${PROJECT_SOURCE_DIR}/tests/host/declared_steps.hpp.in
                 ${PROJECT_BINARY_DIR}/generated/declared_steps.hpp @ONLY)
  configure_file(${PROJECT_SOURCE_DIR}/tests/host/fp8_steps.hpp.in
                 ${PROJECT_BINARY_DIR}/generated/fp8_steps.hpp @ONLY)
  configure_file(${PROJECT_SOURCE_DIR}/tests/host/store_path_steps.hpp.in
                 ${PROJECT_BINARY_DIR}/generated/store_path_steps.hpp @ONLY)
  gemm_write_traced_registry(${_steps})
endfunction()

# Writes build/generated/traced_registry.hpp (from steps/traced_registry.hpp.in): for each of the
# given steps, in order, whose folder has a traced.hpp (its registration in the traced registry:
# its TracedProgram and what the viewer's panels need of it), that file's include and its
# add_stepNN call. The main build passes the declared steps; the browser's build, which declares
# none (viewer/web/project.cmake), every step folder. A traced step without its traced.hpp is
# left out, which Traces.EveryProgramIsRegisteredOnce and docs.step_registered report.
function(gemm_write_traced_registry)
  set(GEMM_TRACED_STEP_INCLUDES "")
  set(GEMM_TRACED_STEP_CALLS "")
  foreach(_step IN LISTS ARGN)
    set(_registration ${PROJECT_SOURCE_DIR}/steps/${_step}/traced.hpp)
    if(EXISTS ${_registration})
      string(SUBSTRING ${_step} 0 2 _number)
      string(APPEND GEMM_TRACED_STEP_INCLUDES "#include \"${_step}/traced.hpp\"\n")
      string(APPEND GEMM_TRACED_STEP_CALLS "  add_step${_number}(list);\n")
    endif()
  endforeach()
  configure_file(${PROJECT_SOURCE_DIR}/steps/traced_registry.hpp.in
                 ${PROJECT_BINARY_DIR}/generated/traced_registry.hpp @ONLY)
endfunction()
