// CLI11's messages for an option's value count, in the words of pteforge's
// other usage errors ("--opt: what is wrong"); anything else passes through.
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"

namespace pteforge::cli {

namespace {

/// "{a,b,c}" at the end of a CLI11 type name as "one of a, b, c"; "" when none.
std::string choices_of(const std::string& type_name) {
  const size_t open = type_name.find('{');
  if (open == std::string::npos || type_name.back() != '}') return "";
  std::string out = "one of ";
  for (size_t i = open + 1; i + 1 < type_name.size(); ++i) {
    out += type_name[i];
    if (type_name[i] == ',') out += ' ';
  }
  return out;
}

}  // namespace

std::string reword_parse_error(const std::string& what) {
  static const std::regex at_most(R"(^(-\S+): At Most 1 required but received (\d+)$)");
  static const std::regex missing(R"(^(-\S+): 1 required (\S+) missing$)");
  // [\s\S]: a value may hold a line break (escaped only when printed).
  static const std::regex not_in(R"(^(-\S+): ([\s\S]*) not in (\{[^{}]*\})$)");
  static const std::regex range(R"(^(-\S+): Value ([\s\S]*) not in range (\S+) to (\S+)$)");
  static const std::regex flag_value(R"(^Could not convert: (-\S+) = ([\s\S]*)$)");
  static const std::regex extra(R"(^The following argument was not expected: ([\s\S]*)$)");
  // CLI11 lists several last first, joined by spaces.
  static const std::regex extras(R"(^The following arguments were not expected: ([\s\S]*)$)");
  std::smatch m;
  if (std::regex_match(what, m, at_most)) {
    return m[1].str() + ": given " + m[2].str() + " times, but it takes one value";
  }
  if (std::regex_match(what, m, missing)) {
    const std::string choices = choices_of(m[2].str());
    return m[1].str() + ": needs a value" + (choices.empty() ? "" : " (" + choices + ")");
  }
  if (std::regex_match(what, m, not_in)) {
    return m[1].str() + ": '" + m[2].str() + "' is not " + choices_of(m[3].str());
  }
  if (std::regex_match(what, m, range)) {
    return m[1].str() + ": '" + m[2].str() + "' is not a whole number from " + m[3].str() + " to " +
           m[4].str();
  }
  if (std::regex_match(what, m, flag_value)) {
    return m[1].str() + ": '" + m[2].str() + "' is not a value it takes (a switch: write " + m[1].str() +
           " alone)";
  }
  if (std::regex_match(what, m, extras)) {
    std::vector<std::string> words;
    std::istringstream in(m[1].str());
    for (std::string w; in >> w;) words.push_back(w);
    std::string listed;
    for (auto it = words.rbegin(); it != words.rend(); ++it)
      listed += (listed.empty() ? "'" : ", '") + *it + "'";
    return "unexpected arguments " + listed +
           ": a command takes one input, and each option value follows its own option name";
  }
  if (std::regex_match(what, m, extra)) {
    return "unexpected argument '" + m[1].str() +
           "': a command takes one input, and each option value follows its own option name";
  }
  return what;
}

}  // namespace pteforge::cli
