#include "sim/units/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "sim/units/error.h"

namespace tgsim {
namespace {

InputError write_error(const std::filesystem::path& path, int err) {
  return InputError(fmt::format("cannot write {}: {}", path.string(), std::generic_category().message(err)));
}

// Writes `text` to a fresh temporary file in `path`'s directory, flushed to disk; returns its name.
std::string write_temporary(const std::filesystem::path& path, std::string_view text) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string temp = (dir / fmt::format(".{}.tmp-XXXXXX", path.filename().string())).string();
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw write_error(path, errno);
  std::size_t written = 0;
  bool ok = fchmod(fd, 0644) == 0;
  while (ok && written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) written += static_cast<std::size_t>(n);
  }
  ok = ok && fsync(fd) == 0;
  const int saved_errno = errno;
  ok = (close(fd) == 0) && ok;
  if (!ok) {
    unlink(temp.c_str());
    throw write_error(path, saved_errno);
  }
  return temp;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  const std::string temp = write_temporary(path, contents);
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw InputError(fmt::format("cannot write {}: {}", path.string(), ec.message()));
  }
}

}  // namespace tgsim
