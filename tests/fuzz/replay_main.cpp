// Replays files through a fuzz target without libFuzzer, so every saved crash input and the
// seed corpus run as ordinary CTest tests in every build (docs/reliability.md).
// Usage: replay_<target> FILE_OR_DIR...
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int run_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> all;
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file()) all.push_back(e.path());
      std::sort(all.begin(), all.end());
      for (const auto& f : all) files += run_file(f);
    } else if (std::filesystem::exists(p)) {
      files += run_file(p);
    }
  }
  std::printf("replayed %d inputs\n", files);
  return 0;
}
