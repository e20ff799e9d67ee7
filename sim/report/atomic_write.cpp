#include "sim/report/atomic_write.h"

#include <cstdio>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "sim/units/error.h"

namespace tgsim::report {

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("{}: cannot open for writing", path.string()));
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      out.close();
      std::error_code ignore;
      std::filesystem::remove(tmp, ignore);
      throw InputError(fmt::format("{}: write failed (disk full?)", path.string()));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignore;
    std::filesystem::remove(tmp, ignore);
    throw InputError(fmt::format("{}: cannot write: {}", path.string(), ec.message()));
  }
}

}  // namespace tgsim::report
