// A small fixed thread pool: the calling thread works too, so a pool of size N
// starts N-1 threads. A parallel_for that finds the pool busy (two
// interpreters sharing one delegate) runs inline on its own thread. Threads
// spin a short while before they sleep: a model's programs come tens of
// microseconds apart, about what waking a sleeping thread costs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fd {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  // Runs fn(0) .. fn(n-1), spread over the pool; returns when all are done.
  void parallel_for(int n, const std::function<void(int)>& fn);

 private:
  void worker_loop();
  void drain();

  std::vector<std::thread> workers_;
  std::mutex run_mu_;  // held by the parallel_for in flight
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int next_ = 0, total_ = 0;
  // Written under mu_, also read without it while spinning.
  std::atomic<int> finished_{0};
  std::atomic<long> generation_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace fd
