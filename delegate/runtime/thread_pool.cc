#include "runtime/thread_pool.h"

#include <algorithm>
#include <chrono>

namespace fd {
namespace {

// How long a thread polls before it blocks.
constexpr auto kSpin = std::chrono::microseconds(100);

template <class Ready>
bool spin_until(Ready ready) {
  const auto end = std::chrono::steady_clock::now() + kSpin;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace

ThreadPool::ThreadPool(int threads) : threads_(std::max(1, threads)), taken_(new std::atomic<int>[threads_]) {
  for (int i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::work(int thread) {
  for (int i = 0; i < threads_; ++i) {
    const int owner = (thread + i) % threads_;
    for (;;) {
      const int task = owner + taken_[owner].fetch_add(1) * threads_;
      if (task >= total_) break;
      (*job_)(task);
      if (finished_.fetch_add(1) + 1 == total_) {
        std::lock_guard<std::mutex> lock(mu_);  // so a sleeping caller cannot miss it
        done_.notify_all();
      }
    }
  }
}

void ThreadPool::worker_loop(int thread) {
  long seen = 0;
  for (;;) {
    auto woken = [&] { return stop_.load() || generation_.load() != seen; };
    if (!spin_until(woken)) {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, woken);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      seen = generation_.load();
      if (!job_) continue;  // that job is over
      ++inside_;
    }
    work(thread);
    --inside_;
  }
}

void ThreadPool::parallel_for(int n, const std::function<void(int)>& fn) {
  if (workers_.empty() || n <= 1 || busy_.exchange(true)) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
  while (inside_.load() != 0) std::this_thread::yield();  // a late worker leaving the last job
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &fn;
    total_ = n;
    finished_ = 0;
    for (int t = 0; t < threads_; ++t) taken_[t] = 0;
    ++generation_;
  }
  wake_.notify_all();
  work(0);
  auto all_done = [&] { return finished_.load() == n; };
  if (!spin_until(all_done)) {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, all_done);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = nullptr;
  }
  busy_ = false;
}

std::shared_ptr<ThreadPool> ThreadPools::get(int threads) {
  if (threads <= 1) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  auto& pool = pools_[threads];
  if (!pool) pool = std::make_shared<ThreadPool>(threads);
  return pool;
}

}  // namespace fd
