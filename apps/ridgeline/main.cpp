// `ridgeline`: device specs, rooflines and tile ledgers. All logic is in cli.cpp (ridgeline_cli).
#include "cli.hpp"

int main(int argc, char** argv) {
  return ridgeline::cli::run(argc, argv);
}
