#include <doctest/doctest.h>

#include <string>

#include "support/interrupt_cleanup.h"

#ifndef __EMSCRIPTEN__  // fork(2) and signals to a child: native only
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>

using namespace pteforge;

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

void touch(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fclose(f);
}

/// Runs `child` in a forked process; returns its wait status.
template <typename F>
int in_child(F&& child) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // Whatever the test runner inherited (nohup ignores SIGHUP), the child
    // starts from the default actions, as an interactive CLI run does.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ}) std::signal(sig, SIG_DFL);
    child();
    std::_Exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

}  // namespace

TEST_CASE("interrupt_cleanup: a signal removes the registered files, keeps released ones, and ends the process by it") {
  char dir_template[] = "/tmp/pteforge-interrupt-XXXXXX";
  REQUIRE(::mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  const std::string partial = dir + "/out.pte.tmp-abc";
  const std::string side = dir + "/out.metadata.json";
  const std::string done = dir + "/done.json";
  const std::string other = dir + "/other.txt";
  touch(partial);
  touch(side);
  touch(done);
  touch(other);

  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    CAPTURE(sig);
    touch(partial);
    touch(side);
    const int status = in_child([&] {
      install_interrupt_cleanup();
      RemoveOnInterrupt a(partial);
      RemoveOnInterrupt b(side);
      RemoveOnInterrupt c(done);
      c.release();
      std::raise(sig);
    });
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK_FALSE(exists(partial));
    CHECK_FALSE(exists(side));
    CHECK(exists(done));
    CHECK(exists(other));
  }

  SUBCASE("unregistered by the destructor: nothing removed") {
    touch(partial);
    const int status = in_child([&] {
      install_interrupt_cleanup();
      { RemoveOnInterrupt a(partial); }
      std::raise(SIGTERM);
    });
    CHECK(WIFSIGNALED(status));
    CHECK(exists(partial));
  }

  SUBCASE("past the file-size limit a write fails with EFBIG instead of killing the process") {
    const int status = in_child([&] {
      install_interrupt_cleanup();
      struct rlimit limit {};
      limit.rlim_cur = 4096;
      limit.rlim_max = 4096;
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) std::_Exit(3);
      std::FILE* f = std::fopen(partial.c_str(), "w");
      if (!f) std::_Exit(4);
      std::setvbuf(f, nullptr, _IONBF, 0);
      const std::string block(8192, 'x');
      const size_t written = std::fwrite(block.data(), 1, block.size(), f);
      const int err = errno;
      std::fclose(f);
      std::_Exit(written < block.size() && err == EFBIG ? 0 : 5);
    });
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }

  for (const std::string& p : {partial, side, done, other}) std::remove(p.c_str());
  ::rmdir(dir.c_str());
  CHECK_FALSE(exists(dir));
}
#endif
