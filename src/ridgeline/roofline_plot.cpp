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
};

struct Layout {
  std::vector<Curve> curves;
  double xmin, xmax, ymin, ymax;
};

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
          {&s, static_cast<int>(si), static_cast<int>(ri), roofs[ri], p / 1e9, bw / 1e9, ridge});
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
  return l;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string gp_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string terminal_for(const std::string& out_path) {
  const auto dot = out_path.rfind('.');
  std::string ext = dot == std::string::npos ? "" : out_path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == "svg") return "svg size 1100,760 dynamic background rgb 'white' font 'sans,12'";
  if (ext == "png") return "pngcairo size 1100,760 font 'sans,11'";
  if (ext == "pdf") return "pdfcairo size 11in,7.6in font 'sans,11'";
  throw std::invalid_argument("roofline plot: output '" + out_path + "' must end in .svg, .png or .pdf");
}

const char* device_color(int i) {
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"};
  return colors[i % 7];
}

}  // namespace

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
  // Roofs that share a ridge (FP64 matrix and FP32 vector on Hopper) get one mark and one label.
  std::vector<std::pair<double, double>> marked;
  for (const auto& c : l.curves) {
    const std::pair<double, double> at{c.ridge, c.peak_gflops};
    if (std::find(marked.begin(), marked.end(), at) != marked.end()) continue;
    marked.push_back(at);
    os << c.ridge << " " << c.peak_gflops << " \"I*=" << fmt(c.ridge) << "\"\n";
  }
  os << "\n\n";
  if (!points.empty()) {
    os << "# measured: intensity GFLOP/s label\n";
    for (const auto& p : points)
      os << p.intensity << " " << p.gflops << " \"" << clean_label(p.label) << "\"\n";
    os << "\n\n";
  }
  return os.str();
}

std::string roofline_plot_script(const std::vector<DeviceSpec>& specs,
                                 const std::vector<RoofSelection>& roofs,
                                 const std::vector<MeasuredPoint>& points, const std::string& data_path,
                                 const std::string& out_path, const PlotOptions& opt) {
  const Layout l = layout(specs, roofs, points, opt);
  std::ostringstream os;
  os << "# Generated by Ridgeline (roofline_plot.cpp); run: gnuplot " << out_path << ".gp\n";
  os << "set terminal " << terminal_for(out_path) << "\n";
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
  os << "set key top left box opaque font ',10'\n";
  const std::string data = gp_quote(data_path);
  std::vector<std::string> plots;
  for (std::size_t i = 0; i < l.curves.size(); ++i) {
    const Curve& c = l.curves[i];
    const std::string title = c.spec->key + " " + to_string(c.roof.dtype) + " " + to_string(c.roof.unit) +
                              " (" + fmt(c.peak_gflops / 1e3, 4) + " TF/s, " + fmt(c.bw_gbs / 1e3, 3) +
                              " TB/s, I*=" + fmt(c.ridge) + ")";
    plots.push_back(data + " index " + std::to_string(i) + " using 1:2 with lines lw 2 lc rgb '" +
                    device_color(c.spec_index) + "' dt " + std::to_string(1 + c.roof_index % 5) + " title " +
                    gp_quote(clean_label(title)));
  }
  const std::size_t ridge_block = l.curves.size();
  plots.push_back(data + " index " + std::to_string(ridge_block) +
                  " using 1:2 with points pt 7 ps 1.1 lc rgb 'black' title 'ridge points'");
  plots.push_back(data + " index " + std::to_string(ridge_block) +
                  " using 1:2:3 with labels left offset 0.6,-0.7 font ',9' notitle");
  if (!points.empty()) {
    plots.push_back(data + " index " + std::to_string(ridge_block + 1) +
                    " using 1:2 with points pt 5 ps 1.0 lc rgb '#e377c2' title 'measured'");
    plots.push_back(data + " index " + std::to_string(ridge_block + 1) +
                    " using 1:2:3 with labels left offset 0.6,0.7 font ',9' notitle");
  }
  os << "plot ";
  for (std::size_t i = 0; i < plots.size(); ++i) os << (i ? ", \\\n     " : "") << plots[i];
  os << "\n";
  return os.str();
}

PlotFiles write_roofline_plot(const std::vector<DeviceSpec>& specs, const std::vector<RoofSelection>& roofs,
                              const std::vector<MeasuredPoint>& points, const std::string& out_path,
                              const PlotOptions& opt) {
  PlotFiles files{out_path, out_path + ".gp", out_path + ".dat"};
  const std::string script = roofline_plot_script(specs, roofs, points, files.data, out_path, opt);
  const std::string data = roofline_plot_data(specs, roofs, points, opt);
  for (const auto& [path, text] : {std::pair{files.data, data}, std::pair{files.script, script}}) {
    std::ofstream f(path);
    if (!f || !(f << text)) throw std::runtime_error("roofline plot: cannot write '" + path + "'");
  }
  std::string gnuplot = opt.gnuplot;
  if (gnuplot.empty()) {
    const char* env = std::getenv("RIDGELINE_GNUPLOT");
    gnuplot = env && *env ? env : "gnuplot";
  }
  std::remove(out_path.c_str());  // so a stale plot cannot pass for a new one
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
  return files;
}

}  // namespace ridgeline
