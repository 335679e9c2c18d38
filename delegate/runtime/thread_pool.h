// A small fixed thread pool: the calling thread works too, so a pool of size N
// starts N-1 threads. Task i belongs to thread i % N (the caller is thread 0),
// so consecutive programs split the same way find their rows in the cache of
// the core that wrote them; a thread done with its own tasks takes those of a
// thread that has not started yet. Threads spin a short while before they
// sleep: a model's programs come microseconds apart, and waking a sleeping
// thread costs 12-30 us here. A parallel_for that finds the pool busy (two
// interpreters sharing one delegate) runs inline on its own thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
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

  int size() const { return threads_; }
  // Runs fn(0) .. fn(n-1), each once, spread over the pool; returns when all
  // are done.
  void parallel_for(int n, const std::function<void(int)>& fn);

 private:
  void worker_loop(int thread);
  void work(int thread);  // its own tasks of the current job, then anybody's

  const int threads_;
  std::vector<std::thread> workers_;
  std::atomic<bool> busy_{false};  // a parallel_for is in flight
  // Guards starting a job (job_, total_, generation_ move together) and the
  // condition variables of sleeping threads.
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int total_ = 0;
  std::atomic<long> generation_{0};
  std::atomic<bool> stop_{false};
  // Per thread: how many of its tasks (thread, thread + size, ...) are taken.
  std::unique_ptr<std::atomic<int>[]> taken_;
  std::atomic<int> finished_{0};  // tasks done
  std::atomic<int> inside_{0};    // workers inside a job; none while the next one is set up
};

// Pools by thread count, each made when first asked for and shared with the
// runs in flight (a front end's, or a delegate's): none for one thread.
class ThreadPools {
 public:
  std::shared_ptr<ThreadPool> get(int threads);

 private:
  std::mutex mu_;
  std::map<int, std::shared_ptr<ThreadPool>> pools_;
};

}  // namespace fd
