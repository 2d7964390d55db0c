# Shared build settings for the harness and the steps.

set(GEMM_CXX_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)

# Warnings for host code; for .cu files, nvcc forwards them to the host compiler.
function(gemm_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${GEMM_CXX_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=all-warnings>)
endfunction()

# A step program: steps/NN_name/main.cu (plus mapping.hpp, kernel.cuh), named after its folder.
# MIN_CC is the minimum compute capability as an integer (75, 80, 90): documented in --help,
# checked at run time by the harness.
# DEMO marks a program that is not a GEMM (the bank demos): it gets the demo tests, not the GEMM ones.
# TENSOR_CORE marks an f16/bf16 step (run_tc_step); ALIGNED_ROWS one of those that copies whole
# 16-byte chunks of the stored rows (cp.async, TMA) and so refuses rows that do not start on 16
# bytes: its tests use shapes whose stored rows are multiples of 8 in NN and TN.
# FP8 marks the FP8 step (run_fp8_step): it gets its own tests (tests/CMakeLists.txt).
# CUDA_ARCHITECTURES overrides the build's list for this step (the Hopper steps: 90a).
# MIN_ARCH leaves out the build's architectures below it (cp.async and mma.sync steps: 80), since
# the program refuses those GPUs before any launch (exit 77); with none left it builds for MIN_ARCH.
function(gemm_add_step name)
  cmake_parse_arguments(STEP "DEMO;TENSOR_CORE;ALIGNED_ROWS;FP8" "MIN_ARCH" "SOURCES;CUDA_ARCHITECTURES" ${ARGN})
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
  if(NOT STEP_SOURCES)
    set(STEP_SOURCES main.cu)
  endif()
  add_executable(${name} ${STEP_SOURCES})
  target_link_libraries(${name} PRIVATE gemm_common)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  gemm_warnings(${name})
  if(STEP_CUDA_ARCHITECTURES)
    set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${STEP_CUDA_ARCHITECTURES}")
  endif()
  if(STEP_ALIGNED_ROWS)
    set_property(GLOBAL APPEND PROPERTY GEMM_ALIGNED_ROWS_STEPS ${name})
  endif()
  if(STEP_DEMO)
    set_property(GLOBAL APPEND PROPERTY GEMM_DEMO_STEPS ${name})
  elseif(STEP_TENSOR_CORE)
    set_property(GLOBAL APPEND PROPERTY GEMM_TC_STEPS ${name})
  elseif(STEP_FP8)
    set_property(GLOBAL APPEND PROPERTY GEMM_FP8_STEPS ${name})
  else()
    set_property(GLOBAL APPEND PROPERTY GEMM_GPU_STEPS ${name})
  endif()
endfunction()
