#include "io/text/text_output.hpp"

#include <cstdio>
#include <memory>

#include "core/error.hpp"

namespace gpp::io {

std::unique_ptr<OutputFile> stage_text_file(const std::string& path, const std::string& text) {
  check_output_writable(path);
  auto output = std::make_unique<OutputFile>(path);
  {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(open_output_stream(output->temp_path()),
                                                         std::fclose);
    if (!file) throw Error(path + ": cannot create");
    if (std::fwrite(text.data(), 1, text.size(), file.get()) != text.size() ||
        std::fclose(file.release()) != 0) {
      throw Error(path + ": cannot write (disk full?)");
    }
  }
  return output;
}

void write_text_file(const std::string& path, const std::string& text) {
  stage_text_file(path, text)->commit();
}

}  // namespace gpp::io
