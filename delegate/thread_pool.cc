#include "thread_pool.h"

#include <chrono>

namespace fd {
namespace {

// How long a thread polls before it blocks.
constexpr auto kSpin = std::chrono::microseconds(100);

template <class Ready>
void spin_until(Ready ready) {
  const auto end = std::chrono::steady_clock::now() + kSpin;
  while (!ready() && std::chrono::steady_clock::now() < end) std::this_thread::yield();
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

// Takes tasks of the current job until none is left.
void ThreadPool::drain() {
  std::unique_lock<std::mutex> lock(mu_);
  while (next_ < total_) {
    const int task = next_++;
    lock.unlock();
    (*job_)(task);
    lock.lock();
    if (++finished_ == total_) done_.notify_all();
  }
}

void ThreadPool::worker_loop() {
  long seen = 0;
  for (;;) {
    spin_until([&] { return stop_.load() || generation_.load() != seen; });
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    drain();
  }
}

void ThreadPool::parallel_for(int n, const std::function<void(int)>& fn) {
  std::unique_lock<std::mutex> running(run_mu_, std::try_to_lock);
  if (!running || workers_.empty() || n <= 1) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &fn;
    next_ = 0;
    total_ = n;
    finished_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  drain();
  spin_until([&] { return finished_.load() == n; });
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [&] { return finished_ == total_; });
  job_ = nullptr;
}

}  // namespace fd
