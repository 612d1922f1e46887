#include "support/interrupt_cleanup.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace pteforge {
namespace {

constexpr int kSlots = 32;
/// The signals whose default action ends the process and that a user or a
/// supervisor sends to stop a run (Ctrl-C, kill, a closed terminal, Ctrl-\\).
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
std::atomic<const char*> g_paths[kSlots];

extern "C" void remove_registered_and_reraise(int sig) {
  remove_registered_paths();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void remove_registered_paths() {
  for (auto& slot : g_paths) {
    if (const char* p = slot.load()) ::unlink(p);
  }
}

RemoveOnInterrupt::RemoveOnInterrupt(const std::string& path) : path_(path) {
  for (int i = 0; i < kSlots; ++i) {
    const char* expected = nullptr;
    if (g_paths[i].compare_exchange_strong(expected, path_.c_str())) {
      slot_ = i;
      return;
    }
  }
}

RemoveOnInterrupt::~RemoveOnInterrupt() { release(); }

void RemoveOnInterrupt::release() {
  if (slot_ >= 0) g_paths[slot_].store(nullptr);
  slot_ = -1;
}

DeferInterrupts::DeferInterrupts() {
  sigset_t held;
  sigemptyset(&held);
  for (int sig : kStopSignals) sigaddset(&held, sig);
  sigprocmask(SIG_BLOCK, &held, &previous_);
}

DeferInterrupts::~DeferInterrupts() { sigprocmask(SIG_SETMASK, &previous_, nullptr); }

void install_interrupt_cleanup() {
  // Past the file-size limit (ulimit -f) a write raises SIGXFSZ, whose default
  // action kills the process and leaves the partial file behind. Ignored, the
  // write fails with EFBIG instead: an IO_ERROR ("File too large") that the
  // writer reports after removing what it wrote.
  std::signal(SIGXFSZ, SIG_IGN);
  for (int sig : kStopSignals) {
    // A signal the caller's parent set to be ignored (nohup, a background
    // job's SIGINT) stays ignored: asked first, so it is never briefly handled.
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;
    struct sigaction handler {};
    handler.sa_handler = remove_registered_and_reraise;
    sigemptyset(&handler.sa_mask);
    sigaction(sig, &handler, nullptr);
  }
}

}  // namespace pteforge
