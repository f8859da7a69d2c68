// SPDX-License-Identifier: GPL-3.0-or-later
// The `check` of a lesson's question: a small recursive-descent parser with C's precedence
// (unary, * /, + -, < <= > >=, == !=, &&, ||) and two types (number, truth value), and an
// evaluator over the step's figures. Nothing but these operators is ever evaluated.
#include "throttlelab/engine/lesson_condition.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <utility>

namespace throttlelab::engine {

namespace {

constexpr std::size_t kMaxConditionChars = 2000;
constexpr int kMaxDepth = 64;

bool isNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
/// Task group and device names: what scenarios use (`dd-host`, `sdb`, `nvme0n1`).
bool isQualifierChar(char c) {
  return isNameChar(c) || c == '-' || c == '.';
}

std::string shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
  if (s.size() > 40) out += "...";
  return out;
}

/// Reads `metric[:GROUP][@DEVICE]` at `pos`; leaves `pos` after it.
LessonFigure readFigure(std::string_view text, std::size_t& pos) {
  const auto fail = [&](std::size_t at, const std::string& what) {
    throw LessonConditionError("at character " + std::to_string(at + 1) + ": " + what);
  };
  LessonFigure f;
  const std::size_t start = pos;
  while (pos < text.size() && isNameChar(text[pos])) ++pos;
  f.metric = std::string(text.substr(start, pos - start));
  for (char mark : {':', '@'}) {
    if (pos >= text.size() || text[pos] != mark) continue;
    const std::size_t at = ++pos;
    while (pos < text.size() && isQualifierChar(text[pos])) ++pos;
    if (pos == at)
      fail(at, std::string(mark == ':' ? "a task group's name" : "a device's name") +
                   " must follow '" + mark + "'");
    (mark == ':' ? f.group : f.device) = std::string(text.substr(at, pos - at));
  }
  return f;
}

}  // namespace

std::string LessonFigure::text() const {
  std::string out = metric;
  if (!group.empty()) out += ":" + group;
  if (!device.empty()) out += "@" + device;
  return out;
}

LessonFigure parseLessonFigure(std::string_view text) {
  if (text.empty() || !isNameStart(text.front()))
    throw LessonConditionError("'" + shown(text) + "' is not a figure's name");
  std::size_t pos = 0;
  LessonFigure f = readFigure(text, pos);
  if (pos != text.size())
    throw LessonConditionError("'" + shown(text) + "' is not a figure's name (at character " +
                               std::to_string(pos + 1) + ")");
  return f;
}

class ConditionParser {
 public:
  explicit ConditionParser(std::string_view text) : m_text(text) {}

  LessonCondition parse() {
    if (m_text.size() > kMaxConditionChars)
      throw LessonConditionError("longer than " + std::to_string(kMaxConditionChars) +
                                 " characters");
    skipSpace();
    if (m_pos == m_text.size()) throw LessonConditionError("is empty");
    const Typed root = orExpr();
    skipSpace();
    if (m_pos != m_text.size()) fail("unexpected '" + shown(m_text.substr(m_pos, 10)) + "'");
    if (!root.truth)
      throw LessonConditionError(
          "is a number, not a condition: compare it (`dirty_mib < limit_mib`)");
    m_c.m_root = root.node;
    return std::move(m_c);
  }

 private:
  using Op = LessonCondition::Op;
  struct Typed {
    int node = -1;
    bool truth = false;  ///< a truth value, else a number
  };

  [[noreturn]] void fail(const std::string& what) const {
    throw LessonConditionError("at character " + std::to_string(m_pos + 1) + ": " + what);
  }

  void skipSpace() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
      ++m_pos;
  }

  /// Consumes `token` if it comes next (after spaces).
  bool accept(std::string_view token) {
    skipSpace();
    if (m_text.substr(m_pos, token.size()) != token) return false;
    m_pos += token.size();
    return true;
  }

  int add(Op op, int a = -1, int b = -1, double number = 0) {
    m_c.m_nodes.push_back({op, number, a, b});
    return static_cast<int>(m_c.m_nodes.size()) - 1;
  }

  void want(const Typed& t, bool truth, std::string_view op) {
    if (t.truth == truth) return;
    fail(truth ? "'" + std::string(op) + "' takes conditions, not numbers"
               : "'" + std::string(op) + "' takes numbers, not conditions");
  }

  /// One level of left-associative operators (`a - b + c`): operands of the level below,
  /// joined by any of `ops`; `truth` says whether operands and results are conditions.
  Typed leftAssociative(Typed (ConditionParser::*next)(),
                        std::initializer_list<std::pair<std::string_view, Op>> ops, bool truth) {
    Typed left = (this->*next)();
    for (;;) {
      const auto found =
          std::find_if(ops.begin(), ops.end(), [&](const auto& o) { return accept(o.first); });
      if (found == ops.end()) return left;
      want(left, truth, found->first);
      const Typed right = (this->*next)();
      want(right, truth, found->first);
      left = {add(found->second, left.node, right.node), truth};
    }
  }

  Typed orExpr() { return leftAssociative(&ConditionParser::andExpr, {{"||", Op::Or}}, true); }

  Typed andExpr() { return leftAssociative(&ConditionParser::equality, {{"&&", Op::And}}, true); }

  Typed equality() {
    const Typed left = relational();
    for (const auto& [token, op] : {std::pair{"==", Op::Equal}, std::pair{"!=", Op::NotEqual}}) {
      if (!accept(token)) continue;
      want(left, false, token);
      const Typed right = relational();
      want(right, false, token);
      skipSpace();
      if (m_text.substr(m_pos, 2) == "==" || m_text.substr(m_pos, 2) == "!=")
        fail("comparisons do not chain: join them with &&");
      return {add(op, left.node, right.node), true};
    }
    return left;
  }

  Typed relational() {
    const Typed left = additive();
    // Two-character operators first.
    for (const auto& [token, op] :
         {std::pair{"<=", Op::LessEqual}, std::pair{">=", Op::GreaterEqual},
          std::pair{"<", Op::Less}, std::pair{">", Op::Greater}}) {
      if (!accept(token)) continue;
      want(left, false, token);
      const Typed right = additive();
      want(right, false, token);
      skipSpace();
      if (m_pos < m_text.size() && (m_text[m_pos] == '<' || m_text[m_pos] == '>'))
        fail("comparisons do not chain (a < b < c): write a < b && b < c");
      return {add(op, left.node, right.node), true};
    }
    return left;
  }

  Typed additive() {
    return leftAssociative(&ConditionParser::multiplicative, {{"+", Op::Add}, {"-", Op::Subtract}},
                           false);
  }

  Typed multiplicative() {
    return leftAssociative(&ConditionParser::unary, {{"*", Op::Multiply}, {"/", Op::Divide}},
                           false);
  }

  Typed unary() {
    skipSpace();
    // "!=" is not a "!": it cannot start an operand anyway, and primary() says so.
    if (m_text.substr(m_pos, 2) != "!=" && accept("!")) {
      const Typed operand = nested([this] { return unary(); });
      want(operand, true, "!");
      return {add(Op::Not, operand.node), true};
    }
    if (accept("-")) {
      const Typed operand = nested([this] { return unary(); });
      want(operand, false, "-");
      return {add(Op::Negate, operand.node), false};
    }
    return primary();
  }

  template <class F>
  Typed nested(F f) {
    if (++m_depth > kMaxDepth) fail("nested more than " + std::to_string(kMaxDepth) + " deep");
    const Typed t = f();
    --m_depth;
    return t;
  }

  Typed primary() {
    skipSpace();
    if (m_pos == m_text.size()) fail("the condition ends where a figure or a number is needed");
    const char c = m_text[m_pos];
    if (c == '(') {
      ++m_pos;
      const Typed inner = nested([this] { return orExpr(); });
      if (!accept(")")) fail("a '(' without its ')'");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && m_pos + 1 < m_text.size() &&
         std::isdigit(static_cast<unsigned char>(m_text[m_pos + 1]))))
      return number();
    if (isNameStart(c)) {
      LessonFigure f = readFigure(m_text, m_pos);
      auto& figures = m_c.m_figures;
      auto it = std::find(figures.begin(), figures.end(), f);
      if (it == figures.end()) it = figures.insert(figures.end(), std::move(f));
      return {add(Op::Figure, -1, -1, static_cast<double>(it - figures.begin())), false};
    }
    fail("expected a figure, a number or '(', not '" + shown(m_text.substr(m_pos, 10)) + "'");
  }

  Typed number() {
    std::size_t end = m_pos;
    while (end < m_text.size() &&
           (std::isdigit(static_cast<unsigned char>(m_text[end])) || m_text[end] == '.'))
      ++end;
    if (end < m_text.size() && (m_text[end] == 'e' || m_text[end] == 'E')) {
      std::size_t e = end + 1;
      if (e < m_text.size() && (m_text[e] == '+' || m_text[e] == '-')) ++e;
      if (e < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[e]))) {
        end = e;
        while (end < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[end]))) ++end;
      }
    }
    const std::string literal(m_text.substr(m_pos, end - m_pos));
    char* stop = nullptr;
    const double v = std::strtod(literal.c_str(), &stop);
    if (stop != literal.c_str() + literal.size() || !std::isfinite(v))
      fail("'" + shown(literal) + "' is not a number");
    if (end < m_text.size() && isNameChar(m_text[end]))
      fail("a number followed by '" + shown(m_text.substr(end, 1)) +
           "': figures' names start with a letter");
    m_pos = end;
    return {add(Op::Number, -1, -1, v), false};
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  int m_depth = 0;
  LessonCondition m_c;
};

LessonCondition LessonCondition::parse(std::string_view text) {
  return ConditionParser(text).parse();
}

double LessonCondition::eval(int n, const std::vector<double>& values) const {
  const Node& node = m_nodes[static_cast<std::size_t>(n)];
  const auto a = [&] { return eval(node.a, values); };
  const auto b = [&] { return eval(node.b, values); };
  switch (node.op) {
    case Op::Number:
      return node.number;
    case Op::Figure:
      return values[static_cast<std::size_t>(node.number)];
    case Op::Negate:
      return -a();
    case Op::Not:
      return a() != 0 ? 0 : 1;
    case Op::Add:
      return a() + b();
    case Op::Subtract:
      return a() - b();
    case Op::Multiply:
      return a() * b();
    case Op::Divide:
      return a() / b();
    case Op::Less:
      return a() < b() ? 1 : 0;
    case Op::LessEqual:
      return a() <= b() ? 1 : 0;
    case Op::Greater:
      return a() > b() ? 1 : 0;
    case Op::GreaterEqual:
      return a() >= b() ? 1 : 0;
    case Op::Equal:
      return a() == b() ? 1 : 0;
    case Op::NotEqual:
      return a() != b() ? 1 : 0;
    case Op::And:
      return a() != 0 && b() != 0 ? 1 : 0;
    case Op::Or:
      return a() != 0 || b() != 0 ? 1 : 0;
  }
  return 0;
}

LessonCondition::Result LessonCondition::evaluate(
    const std::function<double(const LessonFigure&)>& value) const {
  Result r;
  for (const LessonFigure& f : m_figures) {
    r.values.push_back(value(f));
    if (!std::isfinite(r.values.back()) && r.unmeasured.empty())
      r.unmeasured = f.text() + " is n/a";
  }
  if (!r.unmeasured.empty() || m_root < 0) return r;
  r.holds = eval(m_root, r.values) != 0;
  return r;
}

}  // namespace throttlelab::engine
