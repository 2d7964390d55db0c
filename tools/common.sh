# Shared by tools/run and tools/test: install what is missing (Debian/Ubuntu), configure, build.
# Sourced, not run. Honours BUILD_DIR (default: build) and CUDA_ARCHS (default: the GPU present,
# else the documented list in CMakeLists.txt).

GEMM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$GEMM_ROOT/build}

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit "${2:-2}"; }

# Debian packages the build and tests use; the steps themselves need only the CUDA Toolkit and CMake.
# The viewer needs Dear ImGui, GLFW, glad (the GL loader generator), nlohmann-json and stb; its
# tests run under Xvfb with Mesa's software OpenGL.
GEMM_PACKAGES_BUILD="cmake g++ make python3 pkg-config libimgui-dev libglfw3-dev python3-glad nlohmann-json3-dev libstb-dev"
GEMM_PACKAGES_TEST="libgtest-dev xvfb xauth libgl1-mesa-dri"
# The viewer in a browser (tools/web): Emscripten, Dear ImGui's source package (apt-get source, from
# dpkg-dev) and the header-only libraries; its check (tools/web --check, a test) opens the page in
# Debian's Chromium.
GEMM_PACKAGES_WEB="cmake python3 emscripten dpkg-dev nlohmann-json3-dev libstb-dev"
GEMM_PACKAGES_WEB_CHECK="chromium"

install_missing() {
  local wanted="$*" missing=""
  command -v dpkg-query >/dev/null 2>&1 || { say "not a Debian/Ubuntu system: install by hand: $wanted"; return 0; }
  for package in $wanted; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
  done
  [ -z "$missing" ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; else
      say "missing packages:$missing (no root and no password-less sudo: install them, then run again)"
      return 0
    fi
  fi
  say "installing:$missing"
  # Bounded in time: on a machine that cannot reach a package mirror, apt-get would otherwise hang.
  timeout 300 $sudo apt-get update -qq || { say "apt-get update failed: not installing:$missing (continuing; CMake will say what it skips)"; return 0; }
  DEBIAN_FRONTEND=noninteractive timeout 600 $sudo apt-get install -y -qq $missing >/dev/null 2>&1 && return 0
  # One name this distribution lacks (Ubuntu calls Debian's chromium chromium-browser) makes apt-get
  # install none of the list: then one package at a time, so the others still come.
  local failed=""
  for package in $missing; do
    DEBIAN_FRONTEND=noninteractive timeout 600 $sudo apt-get install -y -qq "$package" >/dev/null 2>&1 || failed="$failed $package"
  done
  [ -z "$failed" ] || say "apt-get could not install:$failed (continuing; CMake will say what it skips)"
}

find_cuda() {
  if ! command -v nvcc >/dev/null 2>&1; then
    for dir in "${CUDA_HOME:-}" /usr/local/cuda /usr/local/cuda-13.0; do
      if [ -n "$dir" ] && [ -x "$dir/bin/nvcc" ]; then export PATH="$dir/bin:$PATH"; break; fi
    done
  fi
  command -v nvcc >/dev/null 2>&1 ||
    die "the CUDA Toolkit (nvcc) was not found: install CUDA 12.8 or newer (13.0 tested) and put its bin/ on PATH, or set CUDA_HOME"
}

configure_and_build() {
  local arch_flag=()
  [ -n "${CUDA_ARCHS:-}" ] && arch_flag=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
  say "configuring $BUILD_DIR"
  cmake -S "$GEMM_ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${arch_flag[@]}" || die "cmake configure failed" 3
  say "building"
  cmake --build "$BUILD_DIR" -j "$(nproc 2>/dev/null || echo 2)" || die "build failed" 3
}

have_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }
