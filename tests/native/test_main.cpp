// doctest entry point shared by every native test binary.
//
// CTest runs each test case by name (doctest_discover_tests passes
// --test-case=NAME). A run whose filters select no test case fails here:
// without this, a name CTest cannot pass through (CMake splits arguments at
// ';') or a filter that matches nothing ran nothing and passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

/// Remembers how many test cases the run selected (a listener: it reports nothing).
struct SelectedCount : doctest::IReporter {
  static inline unsigned selected = 0;
  explicit SelectedCount(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override { selected = stats.numTestCasesPassingFilters; }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("selected_count", 1, SelectedCount);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int rc = context.run();
  // --help, --list-test-cases and the like run no test on purpose.
  if (context.shouldExit()) return rc;
  if (SelectedCount::selected == 0) {
    std::fprintf(stderr, "no test case matched the filters: nothing ran\n");
    return 1;
  }
  return rc;
}
