#pragma once
// The `ridgeline` command line as a library: main() forwards to run(), and tests call run() with an
// argument list and string streams instead of spawning the program.
#include <iosfwd>
#include <ridgeline/device_spec.hpp>
#include <string>
#include <vector>

namespace ridgeline {
namespace cli {

// Exit codes beyond CLI11's own (which it uses for malformed command lines).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError =
    1;  // a well-formed request that cannot be served (unknown device, bad file)

// args: the arguments after the program name.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run(int argc, char** argv);

struct TileShape {
  int bm = 0, bn = 0, bk = 0;
};
// "64x64x32" (also "64,64,32"); throws std::invalid_argument.
TileShape parse_tile_shape(const std::string&);
// "8192x8192x4096" or "4096x4096": positive extents; throws std::invalid_argument.
std::vector<std::int64_t> parse_extents(const std::string&, std::size_t count);

}  // namespace cli
}  // namespace ridgeline
