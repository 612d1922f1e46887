// BackgroundJob (see background_job.h).
#include "support/background_job.h"

#include <utility>

#if !defined(__EMSCRIPTEN__)
#include <pthread.h>
#endif

namespace pteforge {

struct BackgroundJob::State {
  std::function<void()> work;
  bool started = false;
  bool joined = false;
#if !defined(__EMSCRIPTEN__)
  pthread_t thread{};
#endif
};

BackgroundJob::BackgroundJob(std::function<void()> work) : state_(std::make_unique<State>()) {
  state_->work = std::move(work);
  if (!state_->work) return;
#if !defined(__EMSCRIPTEN__)
  auto body = [](void* s) -> void* {
    static_cast<State*>(s)->work();
    return nullptr;
  };
  state_->started = pthread_create(&state_->thread, nullptr, body, state_.get()) == 0;
#endif
  if (!state_->started) state_->work();  // no thread: run it here
}

BackgroundJob::~BackgroundJob() { wait(); }

bool BackgroundJob::threaded() const { return state_->started; }

void BackgroundJob::wait() {
#if !defined(__EMSCRIPTEN__)
  if (state_->started && !state_->joined) {
    pthread_join(state_->thread, nullptr);
    state_->joined = true;
  }
#endif
}

}  // namespace pteforge
