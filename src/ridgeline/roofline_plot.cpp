#include "ridgeline/roofline_plot.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ridgeline {

namespace {

struct Curve {
  const DeviceSpec* spec;
  int spec_index;
  int roof_index;
  RoofSelection roof;
  double peak_gflops;
  double bw_gbs;
  double ridge;
  std::string color;
};

// A measured ceiling as drawn: a polyline in data coordinates.
struct MeasuredCurve {
  const MeasuredRoofLine* line;
  std::string color;
  std::vector<std::pair<double, double>> points;
  // A compute ceiling reached along its device's measured bandwidth: its ridge is a measured one, marked
  // as such. Against a spec's bandwidth the corner mixes sources and is left unmarked.
  bool measured_ridge = false;
};

struct Layout {
  std::vector<Curve> curves;
  std::vector<MeasuredCurve> measured;
  double xmin, xmax, ymin, ymax;
};

// Spec roofs, one colour each, kept clear of the implementations' point colours (series_style).
const char* roof_color(std::size_t i) {
  static const char* colors[] = {"#1f77b4", "#d62728", "#17becf", "#bcbd22", "#393b79", "#ad494a", "#637939"};
  return colors[i % 7];
}

// With several devices, each takes its roofs from its own family (blues, reds, browns), so that which
// device a line belongs to shows before the legend is read; a fourth device falls back to roof_color.
std::string device_roof_color(std::size_t spec_index, std::size_t roof_of_spec, std::size_t overall) {
  static const char* families[3][5] = {{"#1f77b4", "#17becf", "#393b79", "#2b8cbe", "#637939"},
                                       {"#d62728", "#ad494a", "#bcbd22", "#843c39", "#7b4173"},
                                       {"#8c6d31", "#bd9e39", "#636363", "#e7ba52", "#5254a3"}};
  return spec_index < 3 ? families[spec_index][roof_of_spec % 5] : roof_color(overall);
}

// Measured bandwidth ceilings: one shade per level, light to dark from scratch to memory.
const char* level_color(ceilings::Level l) {
  switch (l) {
    case ceilings::Level::scratch:
      return "#6baed6";
    case ceilings::Level::cache:
      return "#756bb1";
    case ceilings::Level::memory:
      return "#252525";
  }
  return "#252525";
}

bool selected(const std::vector<RoofSelection>& roofs, DType d, Unit u) {
  return std::any_of(roofs.begin(), roofs.end(),
                     [&](const RoofSelection& r) { return r.dtype == d && r.unit == u; });
}

std::string source_word(const DeviceSpec& s) {
  return s.estimated ? "estimate" : "datasheet";
}

std::string clean_label(std::string s) {
  std::replace(s.begin(), s.end(), '"', '\'');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::string fmt(double v, int precision = 4) {
  std::ostringstream os;
  os.precision(precision);
  os << v;
  return os.str();
}

Layout layout(const std::vector<DeviceSpec>& specs, const std::vector<RoofSelection>& roofs,
              const std::vector<MeasuredPoint>& points, const PlotOptions& opt) {
  if (specs.empty()) throw std::invalid_argument("roofline plot: no device specs");
  if (roofs.empty()) throw std::invalid_argument("roofline plot: no dtype/unit selected");
  Layout l;
  for (std::size_t si = 0; si < specs.size(); ++si)
    for (std::size_t ri = 0; ri < roofs.size(); ++ri) {
      const DeviceSpec& s = specs[si];
      if (s.peak_flops(roofs[ri].dtype, roofs[ri].unit) == 0) continue;
      // Both throw std::invalid_argument naming the field for a NaN, infinite or negative figure.
      const double p = roofline::peak(s, roofs[ri].dtype, roofs[ri].unit);
      const double bw = roofline::bandwidth(s, opt.level);
      const double ridge = p / bw;
      if (!std::isfinite(ridge) || ridge <= 0) {
        const std::string d = to_string(roofs[ri].dtype), u = to_string(roofs[ri].unit);
        const std::string bw_field =
            opt.level == roofline::MemoryLevel::dram ? "dram_bw_bytes_per_s" : "l2_bw_bytes_per_s";
        throw std::invalid_argument("roofline plot: device '" + s.key + "' " + d + " " + u +
                                    ": the ridge point, field 'peak_flops." + d + "." + u + "' (" + fmt(p) +
                                    ") over field '" + bw_field + "' (" + fmt(bw) + "), is beyond a double");
      }
      l.curves.push_back(
          {&s, static_cast<int>(si), static_cast<int>(ri), roofs[ri], p / 1e9, bw / 1e9, ridge, ""});
    }
  // Colours: by position with one device (as every single-device plot has been drawn); per device
  // family with several. A device's measured compute ceilings continue its family.
  std::vector<std::size_t> used(specs.size(), 0);
  for (std::size_t i = 0; i < l.curves.size(); ++i) {
    const auto si = static_cast<std::size_t>(l.curves[i].spec_index);
    l.curves[i].color = specs.size() == 1 ? roof_color(i) : device_roof_color(si, used[si], i);
    ++used[si];
  }
  if (l.curves.empty())
    throw std::invalid_argument(
        "roofline plot: none of the devices has a peak for the selected dtypes/units");
  double imin = l.curves[0].ridge, imax = imin, pmax = 0, bwmin = l.curves[0].bw_gbs;
  for (const auto& c : l.curves) {
    imin = std::min(imin, c.ridge);
    imax = std::max(imax, c.ridge);
    pmax = std::max(pmax, c.peak_gflops);
    bwmin = std::min(bwmin, c.bw_gbs);
  }
  // Measured ceilings: bandwidths always, compute roofs of the selected dtypes and units. A compute
  // ceiling is reached along the same device's measured bandwidth at the plot's level, else the spec's.
  const ceilings::Level slope_level =
      opt.level == roofline::MemoryLevel::dram ? ceilings::Level::memory : ceilings::Level::cache;
  auto measured_slope = [&](std::size_t spec_index) {
    double bw = 0;
    for (const auto& m : opt.measured)
      if (m.bandwidth && m.spec_index == spec_index && m.level == slope_level) bw = std::max(bw, m.value);
    return bw;
  };
  auto slope_of = [&](std::size_t spec_index) {
    const double bw = measured_slope(spec_index);
    return bw > 0 ? bw : roofline::bandwidth(specs[spec_index], opt.level) / 1e9;
  };
  std::vector<const MeasuredRoofLine*> drawn;
  for (const auto& m : opt.measured) {
    if (m.spec_index >= specs.size())
      throw std::invalid_argument("roofline plot: measured ceiling '" + m.label + "' names device " +
                                  std::to_string(m.spec_index) + " of " + std::to_string(specs.size()));
    if (!(m.value > 0) || !std::isfinite(m.value))
      throw std::invalid_argument("roofline plot: measured ceiling '" + m.label +
                                  "' needs a positive, finite figure");
    if (m.estimate && m.bandwidth)
      throw std::invalid_argument("roofline plot: static estimate '" + m.label +
                                  "' is a bandwidth; only compute rates are estimated");
    if (m.bandwidth) {
      bwmin = std::min(bwmin, m.value);
      drawn.push_back(&m);
    } else if (selected(roofs, m.dtype, m.unit)) {
      const double ridge = m.value / slope_of(m.spec_index);
      imin = std::min(imin, ridge);
      imax = std::max(imax, ridge);
      pmax = std::max(pmax, m.value);
      drawn.push_back(&m);
    }
  }
  for (const auto& p : points) {
    if (!(p.intensity > 0) || !(p.gflops > 0) || !std::isfinite(p.intensity) || !std::isfinite(p.gflops))
      throw std::invalid_argument("roofline plot: measured point '" + p.label +
                                  "' needs a positive, finite intensity and GFLOP/s");
    imin = std::min(imin, p.intensity);
    imax = std::max(imax, p.intensity);
    pmax = std::max(pmax, p.gflops);
  }
  // Whole decades with room on both sides of the ridges and points.
  l.xmin = std::pow(10.0, std::floor(std::log10(imin / 30)));
  l.xmax = std::pow(10.0, std::ceil(std::log10(imax * 30)));
  l.ymax = std::pow(10.0, std::ceil(std::log10(pmax * 2)));
  double ymin = bwmin * l.xmin;
  for (const auto& p : points) ymin = std::min(ymin, p.gflops / 2);
  l.ymin = std::pow(10.0, std::floor(std::log10(ymin)));
  // Figures finite in themselves can still put an axis end past a double (a 1e308 FLOP/s peak) or at
  // 0; a log-scale plot of that would be a gnuplot error, so it is ours, naming the figures.
  for (double v : {l.xmin, l.xmax, l.ymin, l.ymax})
    if (!std::isfinite(v) || v <= 0)
      throw std::invalid_argument(
          "roofline plot: the axes cannot span the figures (intensity " + fmt(imin) + " to " + fmt(imax) +
          " FLOP/B, up to " + fmt(pmax) + " GFLOP/s, bandwidth from " + fmt(bwmin) +
          " GB/s): check field 'peak_flops' and field '" +
          (opt.level == roofline::MemoryLevel::dram ? "dram_bw_bytes_per_s" : "l2_bw_bytes_per_s") +
          "' of the specs");
  // The polylines, now that the axes are known.
  std::size_t extra_color = l.curves.size();
  for (const MeasuredRoofLine* m : drawn) {
    MeasuredCurve mc{m, "", {}};
    if (m->bandwidth) {
      // Up to the device's highest compute roof drawn, spec or measured.
      double cap = 0;
      for (const auto& c : l.curves)
        if (c.spec_index == static_cast<int>(m->spec_index)) cap = std::max(cap, c.peak_gflops);
      for (const MeasuredRoofLine* o : drawn)
        if (!o->bandwidth && o->spec_index == m->spec_index) cap = std::max(cap, o->value);
      if (!(cap > 0)) cap = l.ymax;
      mc.color = level_color(m->level);
      mc.points = {{l.xmin, m->value * l.xmin},
                   {std::min(l.xmax, cap / m->value), std::min(cap, m->value * l.xmax)}};
    } else {
      const double bw = slope_of(m->spec_index);
      // The colour of the spec roof it measures; one of its own where the spec has none.
      for (const auto& c : l.curves)
        if (c.spec_index == static_cast<int>(m->spec_index) && c.roof.dtype == m->dtype &&
            c.roof.unit == m->unit)
          mc.color = c.color;
      if (mc.color.empty())
        mc.color = specs.size() == 1 ? roof_color(extra_color++)
                                     : device_roof_color(m->spec_index, used[m->spec_index]++, extra_color++);
      // Flat from where the measured memory slope (drawn by its own line) reaches it.
      mc.points.push_back({std::max(l.xmin, m->value / bw), m->value});
      mc.points.push_back({l.xmax, m->value});
      mc.measured_ridge = !m->estimate && measured_slope(m->spec_index) > 0 && m->value / bw >= l.xmin;
    }
    l.measured.push_back(mc);
  }
  return l;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A legend entry wider than the figure makes gnuplot leave the whole legend out, silently; past this
// many characters (about 930 of the 1100 pixels at the legend's font, beside its line sample) an entry
// is cut short.
constexpr std::size_t kMaxLegendChars = 125;

std::string legend_title(const std::string& s) {
  return s.size() <= kMaxLegendChars ? s : s.substr(0, kMaxLegendChars - 3) + "...";
}

std::string gp_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// height: pixels (the PDF's in hundredths of an inch); taller than 860 when the legend has many rows.
std::string terminal_for(const std::string& out_path, int height = 860) {
  const auto dot = out_path.rfind('.');
  std::string ext = dot == std::string::npos ? "" : out_path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::string h = std::to_string(height);
  if (ext == "svg") return "svg size 1100," + h + " dynamic background rgb 'white' font 'sans,12'";
  if (ext == "png") return "pngcairo size 1100," + h + " background rgb 'white' font 'sans,11'";
  if (ext == "pdf") return "pdfcairo size 11in," + fmt(height / 100.0) + "in font 'sans,11'";
  throw std::invalid_argument("roofline plot: output '" + out_path + "' must end in .svg, .png or .pdf");
}

// The measured points' series in order of first appearance: one data block and legend entry each.
std::vector<std::string> series_of(const std::vector<MeasuredPoint>& points) {
  std::vector<std::string> out;
  for (const auto& p : points)
    if (std::find(out.begin(), out.end(), p.series) == out.end()) out.push_back(p.series);
  return out;
}

double graph_fraction(double v, double lo, double hi) {
  return std::log(v / lo) / std::log(hi / lo);
}

// Label boxes in graph units for the default 1100x760 terminals and a 9-point font: a digit is about
// 0.8% of the plot's width and a line 2.8% of its height.
constexpr double kCharWidth = 0.0085, kLineHeight = 0.028, kGap = 0.012, kMarker = 0.007;

struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

std::vector<LabelPlacement> place_labels(const Layout& l, const std::vector<MeasuredPoint>& points) {
  std::vector<LabelPlacement> out;
  std::vector<Box> taken;
  // Every marker is an obstacle too, so a number never sits on another point.
  for (const auto& p : points) {
    const double px = graph_fraction(p.intensity, l.xmin, l.xmax),
                 py = graph_fraction(p.gflops, l.ymin, l.ymax);
    taken.push_back({px - kMarker, py - kMarker, px + kMarker, py + kMarker});
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    LabelPlacement lp;
    lp.number = static_cast<int>(i + 1);
    lp.point_x = graph_fraction(points[i].intensity, l.xmin, l.xmax);
    lp.point_y = graph_fraction(points[i].gflops, l.ymin, l.ymax);
    lp.width = kCharWidth * static_cast<double>(std::to_string(lp.number).size()) + 0.006;
    lp.height = kLineHeight;
    const Box own_marker{lp.point_x - kMarker, lp.point_y - kMarker, lp.point_x + kMarker,
                         lp.point_y + kMarker};
    // Right of the point first, then left, each stepping up and down a line at a time.
    bool placed = false;
    for (int step = 0; step <= 24 && !placed; ++step) {
      const double dy = (step % 2 ? 1 : -1) * ((step + 1) / 2) * lp.height;
      for (int side = 0; side < 2 && !placed; ++side) {
        const double x = side == 0 ? lp.point_x + kGap : lp.point_x - kGap - lp.width;
        const double y = lp.point_y + dy;
        const Box b{x, y - lp.height / 2, x + lp.width, y + lp.height / 2};
        if (b.x0 < 0 || b.x1 > 1 || b.y0 < 0 || b.y1 > 1) continue;
        bool free = true;
        for (const auto& t : taken)
          if (b.overlaps(t) && !(t.x0 == own_marker.x0 && t.y0 == own_marker.y0)) free = false;
        if (!free) continue;
        lp.x = x;
        lp.y = y;
        lp.leader = step > 0;
        taken.push_back(b);
        placed = true;
      }
    }
    if (!placed) {  // nowhere free within 12 lines: beside the point, overlapping (never seen in practice)
      lp.x = std::min(lp.point_x + kGap, 1 - lp.width);
      lp.y = lp.point_y;
    }
    out.push_back(lp);
  }
  return out;
}

// The spec roofs' ridge points. Roofs that share a ridge (FP64 matrix and FP32 vector on Hopper) get one
// mark and one label.
std::vector<std::pair<double, double>> spec_ridges(const Layout& l) {
  std::vector<std::pair<double, double>> marked;
  for (const auto& c : l.curves) {
    const std::pair<double, double> at{c.ridge, c.peak_gflops};
    if (std::find(marked.begin(), marked.end(), at) == marked.end()) marked.push_back(at);
  }
  return marked;
}

// Where the measured compute ceilings meet their device's measured bandwidth, one mark per distinct
// label and height (FP16 and BF16 matrix rates differ in the fourth digit).
std::vector<std::pair<double, double>> measured_ridges(const Layout& l) {
  std::vector<std::pair<double, double>> out;
  std::vector<std::string> seen;
  for (const auto& mc : l.measured) {
    if (!mc.measured_ridge) continue;
    const auto& [x, y] = mc.points.front();
    const std::string key = fmt(x) + " " + fmt(y, 3);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    out.push_back({x, y});
  }
  return out;
}

// A ridge point's "I*=..." label in graph coordinates (left edge, vertical centre).
struct RidgeLabel {
  double x = 0, y = 0;
  std::string text;
  // A label that had to move more than a line from its mark gets a leader line from the mark to the
  // label's near edge (leader_x).
  bool leader = false;
  double mark_x = 0, mark_y = 0, leader_x = 0;
  // Left of its mark: drawn right-aligned at leader_x, so that the text ends next to the mark whatever
  // the estimate of its width.
  bool left_of_mark = false;
};

// Labels for the spec ridges, then the measured ones, each kept off every ridge mark, every measured
// point and its number, and the labels placed before it: with two devices, ridges cluster (the H200's
// FP64 matrix ridge at 14 FLOP/B, the MI300X's FP64 vector one at 15, the H200's measured ones at 16-18).
// Spec labels try below-right first, measured ones above-left, so each kind reads in one place.
std::vector<RidgeLabel> place_ridge_labels(const Layout& l, const std::vector<MeasuredPoint>& points) {
  std::vector<Box> taken;
  auto mark_box = [](double x, double y) { return Box{x - kMarker, y - kMarker, x + kMarker, y + kMarker}; };
  struct Mark {
    double x, y;
    bool measured;
  };
  std::vector<Mark> marks;
  for (const auto& [i, p] : spec_ridges(l))
    marks.push_back({graph_fraction(i, l.xmin, l.xmax), graph_fraction(p, l.ymin, l.ymax), false});
  for (const auto& [i, p] : measured_ridges(l))
    marks.push_back({graph_fraction(i, l.xmin, l.xmax), graph_fraction(p, l.ymin, l.ymax), true});
  for (const auto& m : marks) taken.push_back(mark_box(m.x, m.y));
  for (const auto& p : points)
    taken.push_back(
        mark_box(graph_fraction(p.intensity, l.xmin, l.xmax), graph_fraction(p.gflops, l.ymin, l.ymax)));
  for (const auto& lp : place_labels(l, points))
    taken.push_back({lp.x, lp.y - lp.height / 2, lp.x + lp.width, lp.y + lp.height / 2});
  std::vector<RidgeLabel> out;
  const std::vector<std::pair<double, double>> spec_at = spec_ridges(l);
  for (std::size_t k = 0; k < marks.size(); ++k) {
    const Mark& m = marks[k];
    const double intensity =
        k < spec_at.size() ? spec_at[k].first : measured_ridges(l)[k - spec_at.size()].first;
    RidgeLabel rl{0, 0, "I*=" + fmt(intensity), false, m.x, m.y, 0, false};
    const double w = kCharWidth * static_cast<double>(rl.text.size()) + 0.006, h = kLineHeight;
    const Box own = mark_box(m.x, m.y);
    bool placed = false;
    // Down (spec) or up (measured) a line at a time, on the preferred side first.
    for (int step = 1; step <= 10 && !placed; ++step)
      for (int side = 0; side < 2 && !placed; ++side) {
        const bool right = (side == 0) != m.measured;
        const double dir = m.measured ? 1 : -1;
        for (double sign : {dir, -dir}) {
          const double x = right ? m.x + kGap : m.x - kGap - w;
          const double y = m.y + sign * step * h * 0.8;
          const Box b{x, y - h / 2, x + w, y + h / 2};
          if (b.x0 < 0 || b.x1 > 1 || b.y0 < 0 || b.y1 > 1) continue;
          bool free = true;
          for (const auto& t : taken)
            if (b.overlaps(t) && !(t.x0 == own.x0 && t.y0 == own.y0)) free = false;
          if (!free) continue;
          rl.x = x;
          rl.y = y;
          rl.leader = step > 1;
          rl.leader_x = right ? x : x + w;
          rl.left_of_mark = !right;
          taken.push_back(b);
          placed = true;
          break;
        }
      }
    if (!placed) {  // nowhere free nearby: below-right of the mark, overlapping
      rl.x = std::min(m.x + kGap, 1 - w);
      rl.y = m.y - h;
    }
    out.push_back(rl);
  }
  return out;
}

std::string png_twin_of(const std::string& out_path, const PlotOptions& opt) {
  const auto dot = out_path.rfind('.');
  if (!opt.png_twin || dot == std::string::npos) return "";
  std::string ext = out_path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == "svg" ? out_path.substr(0, dot) + ".png" : "";
}

}  // namespace

std::vector<MeasuredRoofLine> measured_roof_lines(const ceilings::DeviceCeilings& c, std::size_t spec_index) {
  std::vector<MeasuredRoofLine> out;
  for (const ceilings::Roof* r : ceilings::plotted_roofs(c)) {
    MeasuredRoofLine m;
    m.spec_index = spec_index;
    m.bandwidth = r->kind == "bandwidth";
    m.level = r->level;
    m.dtype = r->dtype;
    m.unit = r->unit;
    m.value = r->value / 1e9;
    // The kernel's caveat stays ("this build's 16-bit GEMM runs wgmma, not measured here": Ridgeline's
    // own HGEMM points sit above that roof); the micro-kernel's class name, in parentheses, goes, so that
    // the legend line fits the figure's width (the ceilings table keeps it).
    std::string kernel = r->kernel;
    const auto open = kernel.find(" (");
    const auto close = open == std::string::npos ? open : kernel.find(')', open);
    if (close != std::string::npos) kernel.erase(open, close - open + 1);
    m.label = m.bandwidth ? r->label : to_string(r->dtype) + " " + to_string(r->unit) + ", " + kernel;
    out.push_back(m);
  }
  return out;
}

SeriesStyle series_style(const std::string& series) {
  if (series == "ridgeline") return {"Ridgeline", "#e6550d", 7};
  if (series == "openblas") return {"OpenBLAS (vendor BLAS)", "#2ca02c", 5};
  if (series == "cublas") return {"cuBLAS (vendor BLAS)", "#2ca02c", 5};
  if (series == "rocblas") return {"rocBLAS (vendor BLAS)", "#2ca02c", 5};
  if (series == "kokkos-kernels") return {"Kokkos Kernels", "#9467bd", 9};
  if (series == "ridgeline-team_gemm") return {"Ridgeline team_gemm", "#8c564b", 13};
  if (series.empty()) return {"measured", "#e377c2", 7};
  return {series, "#7f7f7f", 3};
}

std::vector<LabelPlacement> place_point_labels(const std::vector<DeviceSpec>& specs,
                                               const std::vector<RoofSelection>& roofs,
                                               const std::vector<MeasuredPoint>& points,
                                               const PlotOptions& opt) {
  return place_labels(layout(specs, roofs, points, opt), points);
}

std::string roofline_point_key_markdown(const std::vector<MeasuredPoint>& points) {
  std::ostringstream os;
  os << "| # | implementation | case | FLOP/B | GFLOP/s |\n|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::string label = points[i].label;
    std::replace(label.begin(), label.end(), '|', '/');
    os << "| " << i + 1 << " | " << series_style(points[i].series).title << " | " << label << " | "
       << fmt(points[i].intensity, 3) << " | " << fmt(points[i].gflops, 4) << " |\n";
  }
  return os.str();
}

std::string roofline_plot_data(const std::vector<DeviceSpec>& specs, const std::vector<RoofSelection>& roofs,
                               const std::vector<MeasuredPoint>& points, const PlotOptions& opt) {
  const Layout l = layout(specs, roofs, points, opt);
  std::ostringstream os;
  os.precision(10);
  // One block per roof (gnuplot 'index i'): the bandwidth slope up to the ridge, then the flat peak.
  for (const auto& c : l.curves) {
    os << "# " << c.spec->key << " " << to_string(c.roof.dtype) << " " << to_string(c.roof.unit)
       << ": intensity[FLOP/B] GFLOP/s\n";
    os << l.xmin << " " << c.bw_gbs * l.xmin << "\n";
    os << c.ridge << " " << c.peak_gflops << "\n";
    os << l.xmax << " " << c.peak_gflops << "\n\n\n";
  }
  os << "# ridge points: intensity GFLOP/s label\n";
  for (const auto& [x, y] : spec_ridges(l)) os << x << " " << y << " \"I*=" << fmt(x) << "\"\n";
  os << "\n\n";
  // One block per series; each point carries its number (the key) and its full label.
  for (const auto& series : series_of(points)) {
    os << "# measured, " << series_style(series).title << ": intensity GFLOP/s number label\n";
    for (std::size_t i = 0; i < points.size(); ++i)
      if (points[i].series == series)
        os << points[i].intensity << " " << points[i].gflops << " " << i + 1 << " \""
           << clean_label(points[i].label) << "\"\n";
    os << "\n\n";
  }
  // One block per measured ceiling, after the points so that the blocks above keep their indices.
  for (const auto& mc : l.measured) {
    os << (mc.line->estimate ? "# static estimate, " : "# measured ceiling, ") << mc.line->label
       << ": intensity[FLOP/B] GFLOP/s\n";
    for (const auto& [x, y] : mc.points) os << x << " " << y << "\n";
    os << "\n\n";
  }
  // The measured ridge points last, when there are any (gnuplot warns about an empty block).
  const auto ridges = measured_ridges(l);
  if (!ridges.empty()) {
    os << "# measured ridge points: intensity GFLOP/s label\n";
    for (const auto& [x, y] : ridges) os << x << " " << y << " \"I*=" << fmt(x) << "\"\n";
    os << "\n\n";
  }
  return os.str();
}

std::string roofline_plot_script(const std::vector<DeviceSpec>& specs,
                                 const std::vector<RoofSelection>& roofs,
                                 const std::vector<MeasuredPoint>& points, const std::string& data_path,
                                 const std::string& out_path, const PlotOptions& opt) {
  const Layout l = layout(specs, roofs, points, opt);
  const auto series = series_of(points);
  const bool measured_ridge_block = !measured_ridges(l).empty();
  // The legend sits below the plot. With measured ceilings (long entries) or many entries it is one
  // column, as two columns of those no longer fit the width and gnuplot then draws no legend at all;
  // the figure grows by a line's height for every row past the nine the default height holds.
  const std::size_t entries =
      l.curves.size() + 1 + series.size() + l.measured.size() + (measured_ridge_block ? 1 : 0);
  const bool one_column = !opt.measured.empty() || entries > 12;
  const std::size_t rows = one_column ? entries : std::min<std::size_t>(entries, 6);
  const int height = 860 + 20 * static_cast<int>(rows > 9 ? rows - 9 : 0);
  std::ostringstream os;
  os << "# Generated by Ridgeline (roofline_plot.cpp); run: gnuplot " << out_path << ".gp\n";
  os << "set terminal " << terminal_for(out_path, height) << "\n";
  os << "set output " << gp_quote(out_path) << "\n";
  os << "set termoption noenhanced\n";
  os << "set title " << gp_quote(clean_label(opt.title) + " (" + roofline::to_string(opt.level) + ")")
     << "\n";
  os << "set logscale xy\n";
  os << "set xrange [" << l.xmin << ":" << l.xmax << "]\n";
  os << "set yrange [" << l.ymin << ":" << l.ymax << "]\n";
  os << "set xlabel 'Arithmetic intensity [FLOP/B]'\n";
  os << "set ylabel 'Attainable performance [GFLOP/s]'\n";
  os << "set format x '%g'\nset format y '%g'\n";
  os << "set grid xtics ytics mxtics mytics lc rgb '#dddddd'\n";
  // Below the plot area, so the legend never covers a point or a roof.
  os << "set key below font ',10' maxrows " << (one_column ? entries : 6) << "\n";
  const std::string data = gp_quote(data_path);
  std::vector<std::string> plots;
  for (std::size_t i = 0; i < l.curves.size(); ++i) {
    const Curve& c = l.curves[i];
    // Solid: the spec's roof, named by where its figures come from; measured ceilings are dashed and
    // static estimates dotted.
    const std::string title = c.spec->key + " " + to_string(c.roof.dtype) + " " + to_string(c.roof.unit) +
                              ", " + source_word(*c.spec) + " (" + fmt(c.peak_gflops / 1e3, 4) + " TF/s, " +
                              fmt(c.bw_gbs / 1e3, 3) + " TB/s, I*=" + fmt(c.ridge) + ")";
    plots.push_back(data + " index " + std::to_string(i) + " using 1:2 with lines lw 2 lc rgb '" + c.color +
                    "' dt 1 title " + gp_quote(legend_title(clean_label(title))));
  }
  const std::size_t ridge_block = l.curves.size();
  plots.push_back(data + " index " + std::to_string(ridge_block) +
                  " using 1:2 with points pt 7 ps 1.1 lc rgb 'black' title " +
                  (measured_ridge_block ? "'spec ridge points'" : "'ridge points'"));
  for (std::size_t k = 0; k < series.size(); ++k) {
    const SeriesStyle st = series_style(series[k]);
    plots.push_back(data + " index " + std::to_string(ridge_block + 1 + k) + " using 1:2 with points pt " +
                    std::to_string(st.point_type) + " ps 1.1 lc rgb '" + st.color + "' title " +
                    gp_quote(legend_title(clean_label(st.title))));
  }
  const std::size_t measured_block = ridge_block + 1 + series.size();
  for (std::size_t k = 0; k < l.measured.size(); ++k) {
    const MeasuredCurve& mc = l.measured[k];
    const std::string figure =
        mc.line->bandwidth ? fmt(mc.line->value, 4) + " GB/s" : fmt(mc.line->value, 4) + " GFLOP/s";
    const std::string who = specs.size() > 1 ? specs[mc.line->spec_index].key + " " : "";
    // Cut in the middle, so that the figure at the end stays.
    const std::string head = (mc.line->estimate ? "static estimate: " : "measured: ") + who,
                      tail = ": " + figure;
    std::string label = mc.line->label;
    if (head.size() + label.size() + tail.size() > kMaxLegendChars) {
      const std::size_t fixed = head.size() + tail.size() + 3;
      label = label.substr(0, fixed < kMaxLegendChars ? kMaxLegendChars - fixed : 0) + "...";
    }
    plots.push_back(data + " index " + std::to_string(measured_block + k) +
                    " using 1:2 with lines lw 1.6 lc rgb '" + mc.color + "' dt " +
                    (mc.line->estimate ? "3" : "2") + " title " + gp_quote(clean_label(head + label + tail)));
  }
  if (measured_ridge_block) {
    // Hollow, and labelled above-left where the spec's ridge labels sit below-right.
    const std::string index = " index " + std::to_string(measured_block + l.measured.size());
    plots.push_back(data + index +
                    " using 1:2 with points pt 6 ps 1.4 lc rgb 'black' title 'measured ridge points'");
  }
  // Numbers, not labels, beside the points (the key is a table under the plot); a number that had to
  // move away from a crowded point gets a thin leader line back to it.
  for (const auto& lp : place_labels(l, points)) {
    os << "set label " << lp.number << " '" << lp.number << "' at graph " << lp.x << ", graph " << lp.y
       << " left font ',9' front\n";
    if (lp.leader)
      os << "set arrow " << lp.number << " from graph " << lp.point_x << ", graph " << lp.point_y
         << " to graph " << lp.x << ", graph " << lp.y << " nohead lw 0.6 lc rgb '#777777' front\n";
  }
  // The ridge points' labels, placed clear of each other (their data blocks carry the same text).
  for (const auto& rl : place_ridge_labels(l, points)) {
    os << "set label " << gp_quote(rl.text) << " at graph " << (rl.left_of_mark ? rl.leader_x : rl.x)
       << ", graph " << rl.y << (rl.left_of_mark ? " right" : " left") << " font ',9' front\n";
    if (rl.leader)
      os << "set arrow from graph " << rl.mark_x << ", graph " << rl.mark_y << " to graph " << rl.leader_x
         << ", graph " << rl.y << " nohead lw 0.8 lc rgb '#555555' front\n";
  }
  os << "plot ";
  for (std::size_t i = 0; i < plots.size(); ++i) os << (i ? ", \\\n     " : "") << plots[i];
  os << "\n";
  const std::string png = png_twin_of(out_path, opt);
  if (!png.empty()) {
    // The same figure again through cairo, so the PNG matches the SVG point for point.
    os << "set terminal " << terminal_for(png, height) << "\n";
    os << "set output " << gp_quote(png) << "\n";
    os << "replot\n";
  }
  return os.str();
}

PlotFiles write_roofline_plot(const std::vector<DeviceSpec>& specs, const std::vector<RoofSelection>& roofs,
                              const std::vector<MeasuredPoint>& points, const std::string& out_path,
                              const PlotOptions& opt) {
  PlotFiles files{out_path, out_path + ".gp", out_path + ".dat", png_twin_of(out_path, opt)};
  const std::string script = roofline_plot_script(specs, roofs, points, files.data, out_path, opt);
  const std::string data = roofline_plot_data(specs, roofs, points, opt);
  if (!points.empty()) files.key = out_path + ".key.md";
  for (const auto& [path, text] : {std::pair{files.data, data}, std::pair{files.script, script},
                                   std::pair{files.key, roofline_point_key_markdown(points)}}) {
    if (path.empty()) continue;
    std::ofstream f(path);
    if (!f || !(f << text)) throw std::runtime_error("roofline plot: cannot write '" + path + "'");
  }
  std::string gnuplot = opt.gnuplot;
  if (gnuplot.empty()) {
    const char* env = std::getenv("RIDGELINE_GNUPLOT");
    gnuplot = env && *env ? env : "gnuplot";
  }
  std::remove(out_path.c_str());  // so a stale plot cannot pass for a new one
  if (!files.png.empty()) std::remove(files.png.c_str());
  const std::string cmd = shell_quote(gnuplot) + " " + shell_quote(files.script) + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("roofline plot: cannot start '" + gnuplot + "'");
  std::string output;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) output += buf;
  const int status = pclose(pipe);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 127)
    throw std::runtime_error("roofline plot: '" + gnuplot +
                             "' not found; install gnuplot (Debian: gnuplot-nox) or set RIDGELINE_GNUPLOT");
  if (code != 0)
    throw std::runtime_error("roofline plot: gnuplot failed (exit " + std::to_string(code) + "): " + output);
  std::ifstream check(out_path);
  if (!check) throw std::runtime_error("roofline plot: gnuplot wrote no '" + out_path + "': " + output);
  if (!files.png.empty() && !std::ifstream(files.png))
    throw std::runtime_error("roofline plot: gnuplot wrote no '" + files.png +
                             "' (its pngcairo terminal; Debian's gnuplot-nox has it): " + output);
  return files;
}

}  // namespace ridgeline
