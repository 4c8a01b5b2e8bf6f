#pragma once
// Log-log roofline plots through gnuplot: the library writes a data file and a script next to the
// output and runs gnuplot on them, so a plot can be regenerated or restyled from those two files.
// The perf suite passes its measurements as points on the same plot.
#include <string>
#include <vector>

#include "ridgeline/device_spec.hpp"
#include "ridgeline/roofline.hpp"

namespace ridgeline {

struct MeasuredPoint {
  std::string label;
  double intensity = 0;  // FLOP/B
  double gflops = 0;     // GFLOP/s achieved
};

struct RoofSelection {
  DType dtype = DType::fp64;
  Unit unit = Unit::vector;
};

struct PlotOptions {
  std::string title = "Roofline";
  roofline::MemoryLevel level = roofline::MemoryLevel::dram;
  std::string gnuplot;  // program to run; empty: $RIDGELINE_GNUPLOT, else "gnuplot" from PATH
};

struct PlotFiles {
  std::string output, script, data;
};

// One roof per spec and selection (selections a spec lacks are skipped), its ridge point marked, and
// the measured points. The output's extension picks the format: .svg, .png or .pdf. Writes
// <out>.gp and <out>.dat beside it. Throws std::invalid_argument for bad input and
// std::runtime_error when gnuplot is missing or fails.
PlotFiles write_roofline_plot(const std::vector<DeviceSpec>& specs, const std::vector<RoofSelection>& roofs,
                              const std::vector<MeasuredPoint>& points, const std::string& out_path,
                              const PlotOptions& options = {});

// The two generated files' contents, without running anything.
std::string roofline_plot_data(const std::vector<DeviceSpec>& specs, const std::vector<RoofSelection>& roofs,
                               const std::vector<MeasuredPoint>& points, const PlotOptions& options = {});
std::string roofline_plot_script(const std::vector<DeviceSpec>& specs,
                                 const std::vector<RoofSelection>& roofs,
                                 const std::vector<MeasuredPoint>& points, const std::string& data_path,
                                 const std::string& out_path, const PlotOptions& options = {});

}  // namespace ridgeline
