#pragma once
// Progress of a long sweep on the terminal: which case, its place in the list and the time left. Only
// when stderr is a terminal (the caller checks isatty), so logs and CI output stay as they were.
#include <cstdio>
#include <string>

namespace ridgeline_perf {

// "1:05", "12:00", "1:02:03"
inline std::string clock_text(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

// The line shown while case `index` (0-based) of `count` runs. The estimate is the mean time of the
// finished cases times the cases left, this one included: crude (a sweep's cases differ in size), and
// said to be an estimate; before any case has finished there is none.
inline std::string progress_line(std::size_t index, std::size_t count, const std::string& label,
                                 double elapsed_s) {
  std::string line = "[" + std::to_string(index + 1) + "/" + std::to_string(count) + "] " + label +
                     "  elapsed " + clock_text(elapsed_s);
  if (index > 0) line += ", about " + clock_text(elapsed_s / double(index) * double(count - index)) + " left";
  return line;
}

}  // namespace ridgeline_perf
