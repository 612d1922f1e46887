// BackgroundJob: one piece of work run on a second thread while the caller
// goes on, for independent steps of a conversion (e.g. parsing the payload
// configs while the program imports).
//
// Native builds start a thread; the WebAssembly build has none, and there
// (or when a thread cannot be started) the work runs at once, inside the
// constructor, so callers behave the same either way. The work must not
// touch what the caller uses until wait() returns.
#pragma once

#include <functional>
#include <memory>

namespace pteforge {

class BackgroundJob {
 public:
  /// Starts `work` on a second thread, or runs it now where there is none.
  explicit BackgroundJob(std::function<void()> work);
  /// Waits for the work (a job is never left running).
  ~BackgroundJob();
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  /// Waits until the work has finished; later calls return at once.
  void wait();
  /// True when the work ran (or runs) on a second thread.
  bool threaded() const;

 private:
  struct State;  // the work and the thread
  std::unique_ptr<State> state_;
};

}  // namespace pteforge
