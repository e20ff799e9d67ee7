// Output files are written whole or not at all: a temporary file next to the target, renamed over
// it once complete. A failed run never leaves a half-written result behind.
#pragma once

#include <filesystem>
#include <string_view>

namespace tgsim::report {

// Throws InputError (naming the path) when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace tgsim::report
