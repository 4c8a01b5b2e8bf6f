#pragma once
// Output of ridgeline-perf: the human tables (results, then the roofline ledger), CSV and JSON.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "perf_record.hpp"

namespace ridgeline_perf {

// "2024-06-11T09:30:00Z"
std::string utc_now_iso8601();

void print_results_table(std::ostream& out, const std::vector<PerfRecord>& rows, const std::string& vendor);
void print_roofline_ledger(std::ostream& out, const std::vector<PerfRecord>& rows);

// Throws std::runtime_error when the file cannot be written.
void write_csv_file(const std::string& path, const std::vector<PerfRecord>& rows, const RunInfo& info);
// `metadata` is merged into the file's "metadata" object next to the RunInfo fields.
void write_json_file(const std::string& path, const std::vector<PerfRecord>& rows, const RunInfo& info,
                     const nlohmann::json& metadata);

}  // namespace ridgeline_perf
