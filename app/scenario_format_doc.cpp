// SPDX-License-Identifier: GPL-3.0-or-later
// Keeps the key tables of docs/scenario-format.md equal to the scenario schema in the engine.
//   scenario_format_doc FILE          rewrites the tables in FILE (a regular file)
//   scenario_format_doc --check FILE  exits 1 when FILE's tables differ from the schema's
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "throttlelab/engine/scenario_doc.h"

int main(int argc, char** argv) {
  const bool check = argc == 3 && std::string_view(argv[1]) == "--check";
  if (argc != 2 && !check) {
    std::cerr << "usage: scenario_format_doc [--check] docs/scenario-format.md\n";
    return 2;
  }
  const std::filesystem::path path = argv[argc - 1];
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    std::cerr << path.string() << ": not a regular file\n";
    return 2;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << path.string() << ": cannot read the file\n";
    return 2;
  }
  std::string generated;
  try {
    generated = throttlelab::engine::withScenarioKeyTables(text.str());
  } catch (const std::invalid_argument& e) {
    std::cerr << path.string() << ": " << e.what() << "\n";
    return 2;
  }
  if (generated == text.str()) return 0;
  if (check) {
    std::cerr << path.string()
              << ": the key tables differ from the scenario key table in "
                 "engine/include/throttlelab/engine/scenario_keys.h; run scenario_format_doc "
              << path.string() << "\n";
    return 1;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << generated;
  out.close();
  if (!out) {
    std::cerr << path.string() << ": writing the file failed\n";
    return 2;
  }
  return 0;
}
