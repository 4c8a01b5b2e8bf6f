#pragma once
// Grouped dispatch (gemm_grouped): a plan for a list of uniform batches of different shapes, and its
// execution.
//
// Each group is planned as gemm_batched plans a batch alone (plan_gemm_batched: the small path or a
// tile entry, from the backend's table). Groups whose plans run the same kernel instance (the small
// path; or one tile entry in one operand orientation) share one launch, a league over all their teams
// (gemm_grouped_league.hpp). So a mix of sizes costs a launch per kernel, not per size: the groups of
// one launch fill the device together, where a launch per group would leave it idle during each small
// group's last wave and pay a launch per size.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ridgeline/detail/dispatch_batched.hpp"
#include "ridgeline/detail/gemm_grouped_league.hpp"

namespace ridgeline::detail {

// One launch of a grouped plan: a kernel instance and the groups it runs.
struct GroupedLaunch {
  BatchedPath path = BatchedPath::tiles;
  int entry = -1;                 // tiles: the index in the table's gemm_batched_entries
  bool a_m = false, b_n = false;  // tiles: op(A) walks m / op(B) walks n contiguously (the instance)
  std::vector<int> groups;        // indices into the call's group list, in list order
};

struct GroupedPlan {
  std::vector<BatchedPlan> group_plans;  // per group, as gemm_batched would plan it alone
  std::vector<GroupedLaunch> launches;   // in order of each kernel's first group
};

// The plan for groups (a[i], b[i]) (validated, every extent and count > 0), on a device of
// compute_units SMs or CUs (0: unknown; concurrency teams then stand in for the team slots). Pure.
template <class ExecSpace, class T>
GroupedPlan plan_gemm_grouped(const std::vector<StridedBatch<const T>>& a,
                              const std::vector<StridedBatch<const T>>& b, std::int64_t compute_units,
                              std::int64_t concurrency) {
  GroupedPlan plan;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const BatchedPlan p = plan_gemm_batched<ExecSpace, T>(a[i], b[i], compute_units, concurrency);
    plan.group_plans.push_back(p);
    GroupedLaunch key;
    key.path = p.path;
    if (p.path == BatchedPath::tiles) {
      key.entry = p.entry;
      key.a_m = rows_contiguous(a[i].first()), key.b_n = !rows_contiguous(b[i].first());
    }
    auto same = [&](const GroupedLaunch& l) {
      return l.path == key.path && l.entry == key.entry && l.a_m == key.a_m && l.b_n == key.b_n;
    };
    auto it = std::find_if(plan.launches.begin(), plan.launches.end(), same);
    if (it == plan.launches.end()) it = plan.launches.insert(plan.launches.end(), key);
    it->groups.push_back(static_cast<int>(i));
  }
  return plan;
}

template <class ExecSpace, class T>
GroupedPlan gemm_grouped_plan(const ExecSpace& exec, const std::vector<StridedBatch<const T>>& a,
                              const std::vector<StridedBatch<const T>>& b) {
  return plan_gemm_grouped<ExecSpace, T>(a, b, ComputeUnits<Backend<ExecSpace, T>, ExecSpace>::of(exec),
                                         static_cast<std::int64_t>(exec.concurrency()));
}

// ---- executing a plan ------------------------------------------------------------------------------
// The grouped calls' kernel values go to the device as bytes: each launch's values, then its first
// ranks, appended to one table that a single workspace copy moves (and a repeated call does not copy
// again). A launch is recorded as a function of the table's device address.
struct GroupedTable {
  std::vector<unsigned char> bytes;
  std::vector<std::function<void(const unsigned char*)>> launches;

  template <class X>
  std::size_t append(const std::vector<X>& xs) {
    static_assert(std::is_trivially_copyable_v<X>, "kernel values are copied to the device as bytes");
    constexpr std::size_t align = alignof(X) > 16 ? alignof(X) : 16;
    const std::size_t at = (bytes.size() + align - 1) / align * align;
    bytes.resize(at + xs.size() * sizeof(X));
    std::memcpy(bytes.data() + at, xs.data(), xs.size() * sizeof(X));
    return at;
  }
};

// A launch's vector length and scratch level: a tile entry's, or the small path's (1 and level 0).
template <bool kTiles, class Cfg>
struct GroupedLaunchShape {
  static constexpr int vector_length = 1, scratch_level = 0;
};
template <class Cfg>
struct GroupedLaunchShape<true, Cfg> {
  static constexpr int vector_length = Cfg::vector_length, scratch_level = Cfg::scratch_level;
};

// Appends the launch of kernels fs (one per group) over leagues of teams[i] teams each, with
// scratch_bytes per team; false where the leagues together pass INT_MAX teams (nothing appended).
// kTiles: F runs a tile entry, whose launch gets the backend's after-launch settings (after_launch).
template <bool kTiles, class F, class ExecSpace>
bool append_grouped_launch(GroupedTable& table, const ExecSpace& exec, const std::vector<F>& fs,
                           const std::vector<std::int64_t>& teams, std::size_t scratch_bytes,
                           std::size_t lifted, const std::string& what) {
  using Cfg = typename F::config;
  using League = GemmGroupedLeague<F>;
  using Shape = GroupedLaunchShape<kTiles, Cfg>;
  std::vector<int> first(fs.size() + 1, 0);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < fs.size(); ++i) {
    first[i] = static_cast<int>(total);
    total += teams[i];
    if (total > std::numeric_limits<int>::max()) return false;
  }
  first[fs.size()] = static_cast<int>(total);
  const std::size_t at_f = table.append(fs), at_first = table.append(first);
  const int count = static_cast<int>(fs.size()), league = static_cast<int>(total);
  table.launches.push_back([=](const unsigned char* base) {
    League g;
    g.groups = reinterpret_cast<const F*>(base + at_f);
    g.first = reinterpret_cast<const int*>(base + at_first);
    g.count = count;
    typename League::policy_type policy(exec, league, Cfg::team_size, Shape::vector_length);
    require_fits(policy, g, Shape::scratch_level, scratch_bytes, Cfg::team_size, "gemm_grouped", what,
                 lifted);
    policy.set_scratch_size(Shape::scratch_level, Kokkos::PerTeam(scratch_bytes));
    Kokkos::parallel_for("ridgeline::gemm_grouped", policy, g);
    if constexpr (kTiles) after_launch<League, Cfg>(exec);
  });
  return true;
}

// C_g = alpha_i op(A)_g op(B)_g + beta_i C_g for every matrix g of every group i listed (shapes
// validated, every extent and count > 0, alpha_i != 0).
template <class ExecSpace, class T, class TC>
void gemm_grouped_dispatch(const ExecSpace& exec, const std::vector<StridedBatch<const T>>& a,
                           const std::vector<StridedBatch<const T>>& b,
                           const std::vector<StridedBatch<TC>>& c,
                           const std::vector<AccumulatorType<T>>& alpha,
                           const std::vector<AccumulatorType<T>>& beta) {
  using Acc = AccumulatorType<T>;
  const GroupedPlan plan = gemm_grouped_plan(exec, a, b);
  GroupedTable table;
  std::vector<int> alone;  // groups whose launch passes the league range: run one by one, as gemm_batched
  for (const GroupedLaunch& l : plan.launches) {
    bool appended = false;
    if (l.path == BatchedPath::small) {
      using Cfg = BatchedSmallCfgOf<ExecSpace, T>;
      using Kernel = GemmBatchedSmall<ExecSpace, Cfg, T, TC, Acc>;
      std::vector<Kernel> fs;
      std::vector<std::int64_t> teams;
      std::size_t bytes = 0;
      for (int i : l.groups) {
        const int per = plan.group_plans[i].per_team;
        fs.push_back(make_batched_small<Cfg>(exec, per, a[i], b[i], c[i], alpha[i], beta[i]));
        teams.push_back((c[i].count + per - 1) / per);
        bytes = std::max(bytes, fs.back().scratch_bytes());
      }
      appended =
          append_grouped_launch<false>(table, exec, fs, teams, bytes, 0, "small matrices, several per team");
    } else if (l.path == BatchedPath::tiles) {
      GemmBatchedEntriesOf<ExecSpace, T>::visit(l.entry, [&](auto e) {
        with_entry_kernel<ExecSpace, T, TC, decltype(e)>(l.a_m, l.b_n, [&](auto kernel) {
          using Kernel = typename decltype(kernel)::type;
          using Batched = GemmBatchedTiles<Kernel>;
          using Cfg = typename Kernel::config;
          std::vector<Batched> fs;
          std::vector<std::int64_t> teams;
          for (int i : l.groups) {
            fs.push_back(make_batched_tiles<Kernel>(a[i], b[i], c[i], alpha[i], beta[i], "gemm_grouped"));
            teams.push_back(c[i].count * fs.back().tiles);
          }
          typename Batched::policy_type probe(exec, 1, Cfg::team_size, Cfg::vector_length);
          appended = append_grouped_launch<true>(table, exec, fs, teams, Batched::scratch_bytes(),
                                                 lifted_scratch<GemmGroupedLeague<Batched>>(exec, probe),
                                                 describe_gemm_cfg<Cfg>());
        });
      });
    }
    if (!appended) alone.insert(alone.end(), l.groups.begin(), l.groups.end());
  }
  if (!table.launches.empty()) {
    WorkspaceLease<ExecSpace> lease = lease_workspace(exec);
    const unsigned char* base = nullptr;
    try {
      base = lease.template put<unsigned char>(WorkSlot::group_table, table.bytes.data(), table.bytes.size());
    } catch (const WorkspaceLimitExceeded&) {
      base = nullptr;  // no room for the table: every group runs alone
    }
    if (base != nullptr) {
      for (const auto& launch : table.launches) launch(base);
    } else {
      for (const GroupedLaunch& l : plan.launches)
        alone.insert(alone.end(), l.groups.begin(), l.groups.end());
      std::sort(alone.begin(), alone.end());
      alone.erase(std::unique(alone.begin(), alone.end()), alone.end());
    }
  }
  for (int i : alone) gemm_batched_dispatch(exec, a[i], b[i], c[i], alpha[i], beta[i]);
}

}  // namespace ridgeline::detail
