# What a step's own tests are written with, in its CMakeLists.txt after its gemm_add_step: the
# shapes the tests share, the programs that run them, and one small function for each form of test.
# The tests every step of a kind gets are in tests/CMakeLists.txt; each step's CMakeLists.txt adds
# its own (non-default tunables, the rules of its check_params, its tile by shape...).
#
# Each function adds tests of the step named by GEMM_STEP (set by gemm_add_step in the same folder;
# tests/CMakeLists.txt sets it in its loops over a kind's steps), named STEP.gpu.NAME (label gpu,
# exit 77 = skipped: no suitable GPU) or STEP.cli.NAME (label cli: no GPU needed).

set(GEMM_EXPECT_EXIT ${PROJECT_SOURCE_DIR}/tests/expect_exit.sh)  # CODE PATTERN COMMAND...
set(GEMM_GPU_ONLY ${PROJECT_SOURCE_DIR}/tests/gpu_test.sh)        # COMMAND... when a GPU answers, else 77

# Correctness on odd shapes with (alpha, beta) != (1, 0), as every fp32 step runs them.
set(GEMM_TEST_SHAPES "1x1x1,17x33x65,1000x999x1001,128,257x129x63,31x1x700,1x45x3")
# The tensor-core steps' shapes: odd M and N, K a multiple of 8.
set(GEMM_TC_TEST_SHAPES "1x1x8,17x33x24,129x65x40,100x300x8,257x129x64,31x7x1000")
# The general path's shapes: K in {1, 3, 7, 9, 431} with odd M and N (every stored row odd).
set(GEMM_TC_GENERAL_SHAPES "1x1x1,33x17x3,17x33x7,65x63x9,129x127x431,257x255x9")
# Steps that copy whole 16-byte chunks (ALIGNED_ROWS) take in each layout the shapes whose stored
# rows are multiples of 8 (N in NN; M and N in TN; any M, N in NT), still ragged against every tile.
set(GEMM_TC_ALIGNED_TEST_SHAPES_nn "1x8x8,17x40x24,129x72x40,100x296x8,257x136x64,31x8x1000")
set(GEMM_TC_ALIGNED_TEST_SHAPES_nt "${GEMM_TC_TEST_SHAPES}")
set(GEMM_TC_ALIGNED_TEST_SHAPES_tn "8x8x8,24x40x24,136x72x40,104x296x8,264x136x64,32x8x1000")
# The FP8 steps' shapes: odd M and N, K a multiple of 16.
set(GEMM_FP8_TEST_SHAPES "1x1x16,17x33x32,129x65x128,100x300x16,257x129x384,31x7x1024,136x520x272")

find_program(GEMM_COMPUTE_SANITIZER compute-sanitizer HINTS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin)
if(NOT GEMM_COMPUTE_SANITIZER)
  message(STATUS "GEMM Steps: compute-sanitizer not found: sanitizer tests skipped")
endif()
find_package(Python3 COMPONENTS Interpreter)

# A configuration a test names (--param, --defaults: the H100's tile) that needs more shared memory
# per block than a GPU before Hopper (or an RTX 50) has is refused there with exit 2, the program's
# answer to a user who asks for it (launch_limits_rule). For a test that is "this GPU cannot run it":
# skipped, as exit 77 is. On compute capability 9.x the same refusal fails the test, since every
# compiled configuration fits there (config_rule).
set(GEMM_SKIP_ON_SMALLER_GPU
    "of shared memory per block. this GPU \\(compute capability ([0-8]|1[0-9])\\.[0-9]\\) allows")

function(_gemm_need_step caller)
  if(NOT GEMM_STEP)
    message(FATAL_ERROR "${caller}: no step (call it after gemm_add_step, in the step's CMakeLists.txt)")
  endif()
endfunction()

# gemm_step_check(NAME ARG...): STEP.gpu.NAME runs the step with --check-only ARG... (verified, not
# timed).
function(gemm_step_check name)
  _gemm_need_step(gemm_step_check)
  add_test(NAME ${GEMM_STEP}.gpu.${name} COMMAND ${GEMM_STEP} --check-only ${ARGN})
  set_tests_properties(${GEMM_STEP}.gpu.${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       SKIP_REGULAR_EXPRESSION "${GEMM_SKIP_ON_SMALLER_GPU}")
endfunction()

# gemm_step_refuses(NAME PATTERN ARG...): STEP.cli.NAME passes when the step refuses ARG... with
# exit 2 and a one-line message matching PATTERN (a rule of its check_params, say).
function(gemm_step_refuses name pattern)
  _gemm_need_step(gemm_step_refuses)
  add_test(NAME ${GEMM_STEP}.cli.${name} COMMAND ${GEMM_EXPECT_EXIT} 2 "${pattern}" $<TARGET_FILE:${GEMM_STEP}> ${ARGN})
  set_tests_properties(${GEMM_STEP}.cli.${name} PROPERTIES LABELS cli)
endfunction()

# gemm_step_sanitized(SUFFIX TOOLS tool... ARGS arg...): STEP.gpu.TOOL_SUFFIX (STEP.gpu.TOOL when
# SUFFIX is "") runs the step with ARG... under each compute-sanitizer tool (label sanitizer too);
# none without compute-sanitizer.
function(gemm_step_sanitized)
  _gemm_need_step(gemm_step_sanitized)
  cmake_parse_arguments(S "" "SUFFIX" "TOOLS;ARGS" ${ARGN})
  if(NOT GEMM_COMPUTE_SANITIZER)
    return()
  endif()
  set(_suffix "")
  if(S_SUFFIX)
    set(_suffix _${S_SUFFIX})
  endif()
  foreach(_tool IN LISTS S_TOOLS)
    add_test(NAME ${GEMM_STEP}.gpu.${_tool}${_suffix}
             COMMAND ${GEMM_GPU_ONLY} ${GEMM_COMPUTE_SANITIZER} --tool ${_tool} --error-exitcode 1
                     $<TARGET_FILE:${GEMM_STEP}> ${S_ARGS})
    set_tests_properties(${GEMM_STEP}.gpu.${_tool}${_suffix} PROPERTIES LABELS "gpu;sanitizer" SKIP_RETURN_CODE 77
                         SKIP_REGULAR_EXPRESSION "${GEMM_SKIP_ON_SMALLER_GPU}")
  endforeach()
endfunction()

# A check by a script of tests/ that runs the step itself: STEP.gpu.NAME runs
# `python3 tests/SCRIPT <the step's program> ARG...`; none without Python.
function(_gemm_step_script_check name script)
  if(NOT Python3_FOUND)
    return()
  endif()
  add_test(NAME ${GEMM_STEP}.gpu.${name}
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/${script} $<TARGET_FILE:${GEMM_STEP}> ${ARGN})
  set_tests_properties(${GEMM_STEP}.gpu.${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       SKIP_REGULAR_EXPRESSION "${GEMM_SKIP_ON_SMALLER_GPU}")
endfunction()

# gemm_step_tile_by_shape_recorded(SHAPE...): for a step that chooses its tile by shape, what each
# shape ran (the results file, the line above its row) is the mapping's choice for the GPU's SM
# count, as model_predict computes it (tests/check_params_by_shape.py).
function(gemm_step_tile_by_shape_recorded)
  _gemm_need_step(gemm_step_tile_by_shape_recorded)
  _gemm_step_script_check(tile_by_shape_recorded check_params_by_shape.py $<TARGET_FILE:model_predict> ${ARGN})
endfunction()

# gemm_step_kernel_by_shape_recorded(SUFFIX ARG... -- SHAPE[:own]...): the resource report follows
# the instance a shape launches (tests/check_kernel_by_shape.py); STEP.gpu.kernel_by_shape_recorded
# or, with a SUFFIX other than "", STEP.gpu.kernel_by_shape_recorded_SUFFIX.
function(gemm_step_kernel_by_shape_recorded suffix)
  _gemm_need_step(gemm_step_kernel_by_shape_recorded)
  set(_name kernel_by_shape_recorded)
  if(suffix)
    set(_name ${_name}_${suffix})
  endif()
  _gemm_step_script_check(${_name} check_kernel_by_shape.py ${ARGN})
endfunction()

# gemm_step_tf32_reference(): an fp32 step times cuBLAS in TF32 as a reference line on sm_80 and
# later, and only there (tests/check_tf32_reference.py).
function(gemm_step_tf32_reference)
  _gemm_need_step(gemm_step_tf32_reference)
  _gemm_step_script_check(tf32_reference check_tf32_reference.py)
endfunction()

# gemm_step_linear_layer(): a tensor-core step that the linear-layer test covers (a forward pass and
# both gradients in its three layouts, tests/gpu/linear_layer.cu) with its kernels in
# tests/gpu/linear_layer_NN.cu; tests/CMakeLists.txt builds them for the step's architectures.
function(gemm_step_linear_layer)
  _gemm_need_step(gemm_step_linear_layer)
  set_property(GLOBAL APPEND PROPERTY GEMM_LINEAR_LAYER_STEPS ${GEMM_STEP})
endfunction()

# gemm_step_test_program(TARGET SOURCE...): a GPU test program of the step's own, built from
# SOURCE... (paths under tests/gpu/) with the step's kernels, for the step's architectures.
function(gemm_step_test_program target)
  _gemm_need_step(gemm_step_test_program)
  list(TRANSFORM ARGN PREPEND ${PROJECT_SOURCE_DIR}/tests/gpu/)
  add_executable(${target} ${ARGN})
  get_target_property(_architectures ${GEMM_STEP} CUDA_ARCHITECTURES)
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${_architectures}")
  target_link_libraries(${target} PRIVATE gemm_common)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/steps ${CMAKE_CURRENT_SOURCE_DIR})
  gemm_warnings(${target})
endfunction()

# ---- Test sets that several steps share, each named by the property the steps share ------------

# The cp.async pipeline's tunables and its tile by shape (the steps with a cp.async fp32 pipeline,
# step 10's kernel): each compiled tile besides the default, the tile chosen by shape and recorded,
# the resource report of each instance, a bad STAGES, and every stage refilled under the sanitizers.
function(gemm_cp_async_pipeline_tests)
  _gemm_need_step(gemm_cp_async_pipeline_tests)
  gemm_step_check(check_small_tiles --shapes ${GEMM_TEST_SHAPES} --beta 0.5 --param BM=128 --param BN=128
                  --param BK=16 --param WM=64 --param WN=32 --param TM=8 --param TN=8 --param STAGES=3 --param MINB=0)
  gemm_step_check(check_four_stages --shapes ${GEMM_TEST_SHAPES} --beta 0.5 --param BK=16 --param WM=64 --param WN=64
                  --param STAGES=4)
  gemm_step_check(check_4x8_lanes --shapes ${GEMM_TEST_SHAPES} --beta -1 --param BM=64 --param BN=128 --param BK=8
                  --param WM=32 --param WN=64 --param TM=8 --param TN=8 --param STAGES=4 --param MINB=3)
  gemm_step_check(check_tall --shapes ${GEMM_TEST_SHAPES} --param BM=256 --param BN=128 --param BK=8 --param WM=64
                  --param WN=64 --param TM=16 --param TN=8)
  # Without --param the tile is chosen by shape: 4095 x 4097 takes the 256 x 128 tile on a 132-SM GPU.
  gemm_step_check(check_tile_by_shape --shapes 4095x4097x40,1000x999x1001 --beta 0.5)
  gemm_step_tile_by_shape_recorded(4095x4097x40 1000x999x1001)
  # The resource report follows the instance: 258 columns are not whole 16-byte chunks, so that shape
  # runs the instance with scalar B and C (vector_bc), and its row records that kernel's report.
  gemm_step_kernel_by_shape_recorded("" --defaults -- 256x256x64 256x258x64:own 300x260x40)
  gemm_step_refuses(bad_stages "STAGES must be 3..8" --param STAGES=2)
  # The sanitizers of every step run at 33 x 17 x 45: 3 k-tiles, each stage filled once. Here K = 520
  # (33 k-tiles of 16, 65 of 8): every stage is refilled while the others are read, as in the main loop
  # of a large problem, with the aligned (40 x 24) and the element-wise (33 x 17) copies of B.
  gemm_step_sanitized(SUFFIX refill TOOLS memcheck racecheck synccheck
                      ARGS --check-only --shapes 33x17x520,40x24x520 --beta 0.5)
endfunction()

# The Hopper steps that take one tile a block or a persistent grid, with no tile by shape: every
# layout x type x output comes from the tensor-core tests of tests/CMakeLists.txt. Here: odd shapes
# of several tiles (264 x 520 x 72: ragged in M, N and K, C read back) in every layout, f16 output
# stored by the threads, and more k-tiles than stages under the sanitizers with several blocks and B
# N-major (NN; the kind's tests run them in TN at 40 x 24 x 520).
function(gemm_hopper_odd_shape_tests)
  _gemm_need_step(gemm_hopper_odd_shape_tests)
  foreach(_layout nn nt tn)
    gemm_step_check(check_odd_${_layout} --shapes 264x520x72,104x296x8 --alpha 1.5 --beta 0.5 --layout ${_layout})
    gemm_step_check(check_odd_${_layout}_f16_out --shapes 264x520x72,40x72x16 --alpha 0.5 --layout ${_layout} --out f16)
  endforeach()
  gemm_step_sanitized(SUFFIX refill_nn TOOLS memcheck racecheck
                      ARGS --check-only --shapes 264x520x520 --beta 0.5 --layout nn)
endfunction()

# The default of a tensor-core step that chooses its tile by shape without --param (a smaller one at
# every shape of the kind's tests, each of which the default would cut into too few tiles), checked at
# those shapes too (--defaults: the default tunables at every shape), in every layout, with beta != 0
# (C read back) and beta = 0 (C poisoned; stored by TMA where its rows allow, in the steps that
# store so), f16 and bf16 output, and under the sanitizers; and what SHAPE... ran, against the
# mapping's choice for the GPU's SM count (tile_by_shape_recorded).
function(gemm_tc_default_by_shape_tests)
  _gemm_need_step(gemm_tc_default_by_shape_tests)
  foreach(_layout nn nt tn)
    set(_beta0_shapes 40x72x16,512x256x384)
    if(_layout STREQUAL "nt")
      set(_beta0_shapes 33x65x16,${_beta0_shapes})  # C's rows not 16-byte aligned: no TMA store
    endif()
    gemm_step_check(check_default_${_layout} --shapes ${GEMM_TC_ALIGNED_TEST_SHAPES_${_layout}} --alpha 1.5
                    --beta -0.75 --layout ${_layout} --defaults)
    gemm_step_check(check_default_${_layout}_beta0 --shapes ${_beta0_shapes} --alpha 0.5 --layout ${_layout}
                    --dtype bf16 --defaults)
  endforeach()
  gemm_step_check(check_default_f16_out --shapes ${GEMM_TC_ALIGNED_TEST_SHAPES_nn},40x72x16 --beta 0.5 --layout nn
                  --out f16 --defaults)
  gemm_step_check(check_default_bf16_out --shapes ${GEMM_TC_ALIGNED_TEST_SHAPES_nn},40x72x16 --beta 0.5 --layout nn
                  --dtype bf16 --out bf16 --defaults)
  gemm_step_tile_by_shape_recorded(${ARGN})
  gemm_step_sanitized(SUFFIX default TOOLS memcheck racecheck
                      ARGS --check-only --shapes 40x24x520 --beta 0.5 --layout tn --defaults)
endfunction()

# One compiled configuration of an FP8 step by name (PARAM... as KEY=VALUE), at the kind's shapes and
# a few of several tiles, C read back; and with beta = 0 and 16-bit output, where the Tensor Memory
# Accelerator stores C where its rows are 16-byte aligned (N a multiple of 8; in the steps that
# overlap the epilogue, the 192-column tile's instance without the read-back path), the read-back
# path elsewhere. STEP.gpu.config_<PARAM... joined by _, without '='>[_beta0_f16|_beta0_bf16].
function(gemm_fp8_config_check)
  _gemm_need_step(gemm_fp8_config_check)
  set(_args "")
  foreach(_param IN LISTS ARGN)
    list(APPEND _args --param ${_param})
  endforeach()
  list(JOIN ARGN "_" _suffix)
  string(REPLACE "=" "" _suffix "${_suffix}")
  gemm_step_check(config_${_suffix} --shapes ${GEMM_FP8_TEST_SHAPES},1024x1024x1024,2056x4104x256 --beta 0.5 ${_args})
  foreach(_out f16 bf16)
    gemm_step_check(config_${_suffix}_beta0_${_out}
                    --shapes ${GEMM_FP8_TEST_SHAPES},129x200x384,1024x1024x1024,2056x4104x256 --out ${_out} --dtype e5m2
                    ${_args})
  endforeach()
endfunction()
