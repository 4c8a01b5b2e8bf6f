#pragma once
// Device memory that outlives a call: split-K partials and aligned operand copies.
//
// Allocating them per call cost a cudaMalloc and a cudaFree, which waits for the device, on every
// call: about 1 ms on 4097^3 fp32 with operand copies
// (perf/results/2026-11-30-h200-f40b979/h200-2026-11-30-f40b979-README.md). So each execution-space instance
// (a CUDA or HIP stream; one for the host) keeps grow-only buffers, one per slot, reused by later calls.
//
// Safety rules:
// - A call holds its instance's lease (a recursive mutex) while it enqueues the kernels that use
//   the buffers, so calls from several host threads on one stream cannot interleave their uses;
//   stream order then runs them one after another on the device.
// - Calls on different streams get different buffers.
// - A buffer is replaced only after fencing the instance, since earlier calls may still read it.
// - release_workspace() and Kokkos::finalize fence the device and free everything.
// - set_workspace_limit() caps the bytes held by all instances together. A buffer that would pass
//   the cap is not allocated (WorkspaceLimitExceeded), and the caller runs without it.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

namespace ridgeline::detail {

// kernel_params: a kernel's launch parameters that must live in device memory (device_params);
// group_table: a grouped call's kernel values, one per group (dispatch_grouped.hpp); complex_a,
// complex_b: a complex product's expanded operand and real-view copy (gemm_complex_as_real.hpp), held
// while the real product they feed takes a_copy, b_copy and partials for itself.
enum class WorkSlot : int {
  a_copy = 0,
  b_copy = 1,
  partials = 2,
  kernel_params = 3,
  group_table = 4,
  complex_a = 5,
  complex_b = 6
};
inline constexpr int kWorkSlots = 7;

class WorkspaceBase {
 public:
  virtual ~WorkspaceBase() = default;
  virtual void release() = 0;  // the caller has fenced the device
  std::recursive_mutex lease_mutex;
};

struct WorkspaceLimitExceeded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct WorkspaceRegistry {
  std::mutex mutex;
  std::map<std::pair<std::type_index, const void*>, std::unique_ptr<WorkspaceBase>> spaces;
  bool finalize_hook = false;
  std::atomic<std::size_t> held{0};  // bytes of every instance's buffers, and reservations
  std::atomic<std::size_t> limit{std::numeric_limits<std::size_t>::max()};
};

// Never destroyed: a static's destructor runs at exit in reverse order of construction, so a registry
// first built during a call would be gone before an atexit handler registered earlier (the C API's
// Kokkos::finalize, an application's own) runs Kokkos's finalize hook, which releases it. The C API test
// on the H200 crashed or hung at exit that way once a split-K complex product had built it during the
// run (perf/results/2026-12-02-h200-8423c69/, -c-api-exit-diag*). Its buffers are freed by that hook;
// without a finalize, the process's end frees them.
inline WorkspaceRegistry& workspace_registry() {
  static WorkspaceRegistry* r = new WorkspaceRegistry;
  return *r;
}

// Whether a workspace of `bytes` could exist under the limit at all (the dispatcher's plan; a call
// can still find the room taken by other buffers, and then runs without it).
inline bool workspace_allows(std::size_t bytes) {
  return bytes <= workspace_registry().limit.load();
}

template <class MemSpace>
class Workspace final : public WorkspaceBase {
 public:
  // A buffer of at least count Ts in slot; its old contents are not kept.
  template <class T, class ExecSpace>
  T* get(const ExecSpace& exec, WorkSlot slot, std::size_t count) {
    Buffer& buf = bufs_[static_cast<int>(slot)];
    const std::size_t need = count * sizeof(T);
    if (buf.extent(0) < need) {
      WorkspaceRegistry& r = workspace_registry();
      const std::size_t old = buf.extent(0);
      // Reserve the new size against the limit first, so that instances growing at once on other
      // threads cannot pass it together; until the old buffer goes, both count.
      std::size_t held = r.held.load();
      do {
        const std::size_t limit = r.limit.load();
        if (held - old > limit || need > limit - (held - old)) {
          throw WorkspaceLimitExceeded("ridgeline: a workspace buffer of " + std::to_string(need) +
                                       " bytes would take the workspace past its limit of " +
                                       std::to_string(limit) + " bytes (" + std::to_string(held) + " held)");
        }
      } while (!r.held.compare_exchange_weak(held, held + need));
      exec.fence();  // earlier calls on this instance may still read the old buffer
      buf = Buffer();
      shadow_[static_cast<int>(slot)].clear();  // put()'s bytes went with it
      r.held -= old;
      try {
        buf = Buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ridgeline::workspace"), need);
      } catch (...) {
        r.held -= need;
        throw;
      }
    }
    return reinterpret_cast<T*>(buf.data());
  }
  // count Ts copied from host into slot (enqueued on exec, before what exec runs next); the device
  // copy. A copy equal to the slot's last one is not made again: repeated calls on the same
  // operands enqueue nothing here.
  template <class T, class ExecSpace>
  const T* put(const ExecSpace& exec, WorkSlot slot, const T* host, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>, "bytes copied as they are");
    const std::size_t bytes = count * sizeof(T);
    const int i = static_cast<int>(slot);
    unsigned char* d = get<unsigned char>(exec, slot, bytes);
    const auto* h = reinterpret_cast<const unsigned char*>(host);
    if (shadow_[i].size() != bytes || !std::equal(h, h + bytes, shadow_[i].begin())) {
      Kokkos::deep_copy(
          exec, Kokkos::View<unsigned char*, MemSpace, Kokkos::MemoryUnmanaged>(d, bytes),
          Kokkos::View<const unsigned char*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(h, bytes));
      shadow_[i].assign(h, h + bytes);
    }
    return reinterpret_cast<const T*>(d);
  }
  void drop(WorkSlot slot) {
    free_buffer(bufs_[static_cast<int>(slot)]);
    shadow_[static_cast<int>(slot)].clear();
  }
  void release() override {
    for (Buffer& b : bufs_) free_buffer(b);
    for (auto& sh : shadow_) sh.clear();
  }

 private:
  // Kokkos allocations are aligned far beyond the 16 bytes a packet needs.
  using Buffer = Kokkos::View<unsigned char*, MemSpace>;
  static void free_buffer(Buffer& b) {
    workspace_registry().held -= b.extent(0);
    b = Buffer();
  }
  Buffer bufs_[kWorkSlots];
  std::vector<unsigned char> shadow_[kWorkSlots];  // what put() last copied into each slot
};

// Frees every cached buffer after waiting for the device; new calls allocate again.
// Entries are never erased, so the pointers stay valid after the registry lock is dropped; a lease
// holder may take the registry lock (a nested call), so it is not held while waiting for leases.
inline void release_all_workspaces() {
  WorkspaceRegistry& r = workspace_registry();
  std::vector<WorkspaceBase*> all;
  {
    std::lock_guard<std::mutex> g(r.mutex);
    for (auto& entry : r.spaces) all.push_back(entry.second.get());
  }
  if (all.empty()) return;
  Kokkos::fence();
  for (WorkspaceBase* ws : all) {
    std::lock_guard<std::recursive_mutex> l(ws->lease_mutex);
    ws->release();
  }
}

inline std::size_t workspace_bytes_held() {
  return workspace_registry().held.load();
}

// The workspace of exec's instance (instance_key: its stream, or null where calls are synchronous),
// locked for the lifetime of the lease.
template <class ExecSpace>
class WorkspaceLease {
 public:
  WorkspaceLease(const ExecSpace& exec, const void* instance_key) : exec_(exec) {
    using Ws = Workspace<typename ExecSpace::memory_space>;
    WorkspaceRegistry& r = workspace_registry();
    {
      std::lock_guard<std::mutex> g(r.mutex);
      auto& slot = r.spaces[{std::type_index(typeid(ExecSpace)), instance_key}];
      if (!slot) slot = std::make_unique<Ws>();
      ws_ = static_cast<Ws*>(slot.get());
      if (!r.finalize_hook) {
        // Device buffers must go before Kokkos does. A later Kokkos::initialize registers again.
        Kokkos::push_finalize_hook([] {
          release_all_workspaces();
          std::lock_guard<std::mutex> g2(workspace_registry().mutex);
          workspace_registry().finalize_hook = false;
        });
        r.finalize_hook = true;
      }
    }
    lock_ = std::unique_lock<std::recursive_mutex>(ws_->lease_mutex);
  }
  template <class T>
  T* get(WorkSlot slot, std::size_t count) {
    return ws_->template get<T>(exec_, slot, count);
  }
  template <class T>
  const T* put(WorkSlot slot, const T* host, std::size_t count) {
    return ws_->template put<T>(exec_, slot, host, count);
  }
  void drop(WorkSlot slot) { ws_->drop(slot); }

 private:
  ExecSpace exec_;
  Workspace<typename ExecSpace::memory_space>* ws_ = nullptr;
  std::unique_lock<std::recursive_mutex> lock_;
};

}  // namespace ridgeline::detail
