// What the browser's page adds to the viewer (web_main.cpp), for the File menu (controls.cpp).
#pragma once

namespace gemm::viewer {

// Opens the browser's file picker; the file chosen (or one dropped on the page) is opened as the
// native viewer's File > Open opens a path (open_results).
void web_choose_results_file();
// After the next frame: the window as a PNG, downloaded by the browser (the native --screenshot).
void web_save_screenshot();

}  // namespace gemm::viewer
