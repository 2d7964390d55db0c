// The browser's build (tools/web) compiles stb_image_write here; the native viewer links Debian's
// libstb, which holds it.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
