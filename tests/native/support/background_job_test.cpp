// BackgroundJob: the work runs exactly once, on a second thread natively
// (inline under WebAssembly), and wait() / the destructor see it finished.
#include "support/background_job.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

using pteforge::BackgroundJob;

#if defined(__EMSCRIPTEN__)
constexpr bool kThreads = false;
#else
constexpr bool kThreads = true;
#endif

TEST_CASE("background_job: the work runs once and wait() returns after it, on another thread natively") {
  int runs = 0;
  std::thread::id ran_on;
  {
    BackgroundJob job([&] {
      ++runs;
      ran_on = std::this_thread::get_id();
    });
    CHECK(job.threaded() == kThreads);
    job.wait();
    CHECK(runs == 1);
    CHECK((ran_on != std::this_thread::get_id()) == kThreads);
    job.wait();  // a second wait returns at once
    CHECK(runs == 1);
  }
  CHECK(runs == 1);  // the destructor does not run it again
}

TEST_CASE("background_job: the destructor waits for work that is still running") {
  std::atomic<int> done{0};
  {
    BackgroundJob job([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      done.store(1);
    });
  }
  CHECK(done.load() == 1);
}

TEST_CASE("background_job: empty work does nothing and starts no thread") {
  BackgroundJob job{std::function<void()>()};
  CHECK_FALSE(job.threaded());
  job.wait();
}
