#pragma once
// Log-log roofline plots through gnuplot: the library writes a data file and a script next to the
// output and runs gnuplot on them, so a plot can be regenerated or restyled from those two files.
// The perf suite passes its measurements as points on the same plot.
#include <string>
#include <vector>

#include "ridgeline/ceilings.hpp"
#include "ridgeline/device_spec.hpp"
#include "ridgeline/roofline.hpp"

namespace ridgeline {

struct MeasuredPoint {
  std::string label;
  double intensity = 0;  // FLOP/B
  double gflops = 0;     // GFLOP/s achieved
  // The implementation that ran it ("ridgeline", "openblas", "cublas", "kokkos-kernels", ...): picks the
  // point's colour, marker and legend entry. Empty: one "measured" series.
  std::string series;
};

// How one implementation's points look. Fixed per implementation, not per plot, so that Ridgeline is
// the same colour in every figure a reader compares.
struct SeriesStyle {
  std::string title;   // legend entry
  std::string color;   // "#rrggbb"
  int point_type = 7;  // gnuplot pt: 7 circle, 5 square, 9 triangle, 13 diamond, 3 star
};
SeriesStyle series_style(const std::string& series);

// Where a point's number goes, in gnuplot graph coordinates (0..1 across the plot area, log scale
// already applied). Points are numbered from 1 in the order given; the number keys a table under the
// plot (roofline_point_key_markdown), because full labels pile up where points cluster (the six GEMV
// rows of a quick host run sit at 0.25-0.5 FLOP/B). A label that had to move off its point gets a
// leader line (leader == true).
struct LabelPlacement {
  int number = 0;
  double point_x = 0, point_y = 0;  // graph coordinates of the point
  double x = 0, y = 0;              // graph coordinates of the label's left edge, vertical centre
  double width = 0, height = 0;     // the box the placement keeps free of other labels
  bool leader = false;
};

struct RoofSelection {
  DType dtype = DType::fp64;
  Unit unit = Unit::vector;
};

// A measured ceiling (`ridgeline ceilings`), drawn dashed beside the spec's solid roofs. A bandwidth
// ceiling is a slope that stops at the device's highest compute roof; a compute ceiling is flat from
// where the device's measured memory bandwidth (the spec's where none was measured) reaches it.
struct MeasuredRoofLine {
  std::size_t spec_index = 0;  // the device it was measured on: an index into the plot's specs
  bool bandwidth = false;
  ceilings::Level level = ceilings::Level::memory;  // bandwidth ceilings
  DType dtype = DType::fp64;                        // compute ceilings: drawn when the plot selects
  Unit unit = Unit::vector;                         // their dtype and unit, in that spec roof's colour
  double value = 0;                                 // GB/s or GFLOP/s
  std::string label;                                // legend text: what was measured
  // A static estimate instead of a measurement (a compute rate that a code-object report allows; nothing
  // ran): dotted, not dashed, named so in the legend, and its ridge is never marked as a measured one.
  bool estimate = false;
};
// The roofs of a measured set to draw: per level the faster of copy and triad, and every compute roof.
std::vector<MeasuredRoofLine> measured_roof_lines(const ceilings::DeviceCeilings&, std::size_t spec_index);

struct PlotOptions {
  std::string title = "Roofline";
  // Measured ceilings, dashed, and static estimates, dotted. Spec roofs are solid and their legend says
  // where their figures come from (datasheet or estimate).
  std::vector<MeasuredRoofLine> measured;
  roofline::MemoryLevel level = roofline::MemoryLevel::dram;
  std::string gnuplot;  // program to run; empty: $RIDGELINE_GNUPLOT, else "gnuplot" from PATH
  // With an .svg output, also write <stem>.png (gnuplot's pngcairo terminal: no other tool needed), so
  // the plot opens anywhere.
  bool png_twin = true;
};

struct PlotFiles {
  std::string output, script, data;
  std::string png;  // an SVG's PNG twin, written by the same gnuplot run (cairo); empty otherwise
  std::string
      key;  // <out>.key.md: the numbered points' table (roofline_point_key_markdown); empty without points
};

// One roof per spec and selection (selections a spec lacks are skipped), its ridge point marked, and
// the measured points, one colour and marker per series and numbered. With several specs, each spec's
// roofs take one colour family. A measured compute ceiling reached along its device's measured bandwidth
// has its ridge marked too (hollow, "measured ridge points"); ridge labels are kept clear of each other. The
// output's extension picks the format: .svg, .png or .pdf. Writes <out>.gp, <out>.dat and, with points,
// <out>.key.md beside it, and an .svg's .png twin. Throws std::invalid_argument for bad input and
// std::runtime_error when gnuplot is missing or fails.
PlotFiles write_roofline_plot(const std::vector<DeviceSpec>& specs, const std::vector<RoofSelection>& roofs,
                              const std::vector<MeasuredPoint>& points, const std::string& out_path,
                              const PlotOptions& options = {});

// The label of every measured point: numbers placed so that no two label boxes overlap.
std::vector<LabelPlacement> place_point_labels(const std::vector<DeviceSpec>& specs,
                                               const std::vector<RoofSelection>& roofs,
                                               const std::vector<MeasuredPoint>& points,
                                               const PlotOptions& options = {});

// The key of the numbered points as a Markdown table: number, implementation, label, FLOP/B, GFLOP/s.
std::string roofline_point_key_markdown(const std::vector<MeasuredPoint>& points);

// The two generated files' contents, without running anything.
std::string roofline_plot_data(const std::vector<DeviceSpec>& specs, const std::vector<RoofSelection>& roofs,
                               const std::vector<MeasuredPoint>& points, const PlotOptions& options = {});
std::string roofline_plot_script(const std::vector<DeviceSpec>& specs,
                                 const std::vector<RoofSelection>& roofs,
                                 const std::vector<MeasuredPoint>& points, const std::string& data_path,
                                 const std::string& out_path, const PlotOptions& options = {});

}  // namespace ridgeline
