// Files to remove when the process is interrupted: the CLI writes each output
// to a temporary file and renames them all into place at the end
// (emit::commit_outputs). Without this, Ctrl-C during a long write left a
// `.pte.tmp-XXXXXX` behind.
//
// Registration is lock-free (a fixed table of atomic pointers), so the signal
// handler only reads it and calls unlink(2), both async-signal-safe.
#pragma once

#include <signal.h>

#include <string>

namespace pteforge {

/// Registers `path` (a copy, owned here) for removal if the process gets
/// SIGINT, SIGTERM, SIGHUP or SIGQUIT while this object lives (once
/// install_interrupt_cleanup() has run); the destructor unregisters it.
/// At most 32 paths are registered at once; beyond that a path is not
/// registered (it is then left behind by an interrupt, as without this).
class RemoveOnInterrupt {
 public:
  explicit RemoveOnInterrupt(const std::string& path);
  ~RemoveOnInterrupt();
  RemoveOnInterrupt(const RemoveOnInterrupt&) = delete;
  RemoveOnInterrupt& operator=(const RemoveOnInterrupt&) = delete;

  /// Unregisters now (the file is complete and in place, or already removed).
  void release();

 private:
  std::string path_;  // never changed after registration: the handler reads its bytes
  int slot_ = -1;
};

/// While it lives, SIGINT, SIGTERM, SIGHUP and SIGQUIT are held back (blocked) and
/// delivered when it ends: for steps that must not be cut in two, such as
/// renaming a finished file into place and moving its registration.
class DeferInterrupts {
 public:
  DeferInterrupts();
  ~DeferInterrupts();
  DeferInterrupts(const DeferInterrupts&) = delete;
  DeferInterrupts& operator=(const DeferInterrupts&) = delete;

 private:
  sigset_t previous_;
};

/// Removes every registered path now (unlink(2) only: async-signal-safe and
/// allocation-free, so a handler for a failed allocation may call it).
void remove_registered_paths();

/// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT that remove every
/// registered path and then end the process by the same signal (default
/// action re-raised, so the exit status is what the shell expects, e.g. 130).
/// Also ignores SIGXFSZ, so a write past the file-size limit (ulimit -f) fails
/// with EFBIG and is reported as an error instead of killing the process.
/// Meant for programs (the CLI), not for the library: call it once from main.
void install_interrupt_cleanup();

}  // namespace pteforge
