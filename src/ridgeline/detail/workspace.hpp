#pragma once
// Device memory that outlives a call: split-K partials and aligned operand copies.
//
// Allocating them per call cost a cudaMalloc and a cudaFree, which waits for the device, on every
// call: about 1 ms on 4097^3 fp32 with operand copies (perf/results/h200-2026-11-30-f40b979-README.md).
// So each execution-space instance (a CUDA or HIP stream; one for the host) keeps grow-only buffers,
// one per slot, reused by later calls.
//
// Safety rules:
// - A call holds its instance's lease (a recursive mutex) while it enqueues the kernels that use
//   the buffers, so calls from several host threads on one stream cannot interleave their uses;
//   stream order then runs them one after another on the device.
// - Calls on different streams get different buffers.
// - A buffer is replaced only after fencing the instance, since earlier calls may still read it.
// - release_workspace() and Kokkos::finalize fence the device and free everything.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <typeindex>
#include <utility>
#include <vector>

namespace ridgeline::detail {

enum class WorkSlot : int { a_copy = 0, b_copy = 1, partials = 2 };
inline constexpr int kWorkSlots = 3;

class WorkspaceBase {
 public:
  virtual ~WorkspaceBase() = default;
  virtual void release() = 0;  // the caller has fenced the device
  virtual std::size_t bytes() const = 0;
  std::recursive_mutex lease_mutex;
};

template <class MemSpace>
class Workspace final : public WorkspaceBase {
 public:
  // A buffer of at least count Ts in slot; its old contents are not kept.
  template <class T, class ExecSpace>
  T* get(const ExecSpace& exec, WorkSlot slot, std::size_t count) {
    Buffer& buf = bufs_[static_cast<int>(slot)];
    const std::size_t need = count * sizeof(T);
    if (buf.extent(0) < need) {
      exec.fence();  // earlier calls on this instance may still read the old buffer
      buf = Buffer();
      buf = Buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ridgeline::workspace"), need);
    }
    return reinterpret_cast<T*>(buf.data());
  }
  void drop(WorkSlot slot) { bufs_[static_cast<int>(slot)] = Buffer(); }
  void release() override {
    for (Buffer& b : bufs_) b = Buffer();
  }
  std::size_t bytes() const override {
    std::size_t n = 0;
    for (const Buffer& b : bufs_) n += b.extent(0);
    return n;
  }

 private:
  // Kokkos allocations are aligned far beyond the 16 bytes a packet needs.
  using Buffer = Kokkos::View<unsigned char*, MemSpace>;
  Buffer bufs_[kWorkSlots];
};

struct WorkspaceRegistry {
  std::mutex mutex;
  std::map<std::pair<std::type_index, const void*>, std::unique_ptr<WorkspaceBase>> spaces;
  bool finalize_hook = false;
};

inline WorkspaceRegistry& workspace_registry() {
  static WorkspaceRegistry r;
  return r;
}

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
  WorkspaceRegistry& r = workspace_registry();
  std::lock_guard<std::mutex> g(r.mutex);
  std::size_t n = 0;
  for (auto& [key, ws] : r.spaces) n += ws->bytes();
  return n;
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
  void drop(WorkSlot slot) { ws_->drop(slot); }

 private:
  ExecSpace exec_;
  Workspace<typename ExecSpace::memory_space>* ws_ = nullptr;
  std::unique_lock<std::recursive_mutex> lock_;
};

}  // namespace ridgeline::detail
