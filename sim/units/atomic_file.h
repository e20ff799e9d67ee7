// Output files are written whole or not at all: a fresh temporary file next to the target,
// flushed to disk, then renamed over it. A failed run never leaves a half-written result.
#pragma once

#include <filesystem>
#include <string_view>

namespace tgsim {

// Throws InputError ("cannot write PATH: reason") when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace tgsim
