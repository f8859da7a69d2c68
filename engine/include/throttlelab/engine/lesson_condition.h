// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A lesson question's `check` (docs/lessons.md, Checks): a condition on the figures the step's
/// run measured, such as `freerun_mib < dirty_mib && dirty_mib < limit_mib`. Figures, numbers,
/// `+ - * /`, the comparisons `< <= > >= == !=`, `&&`, `||`, `!` and parentheses; nothing
/// else is evaluated. Qt-free.
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace throttlelab::engine {

/// A figure a check, a numeric question or a `{placeholder}` names: a metric
/// (lessonMetricNames()), for a task group (`pause_ms_p50:dd`) or a device (`write_mibps@sdb`)
/// where the metric takes one.
struct LessonFigure {
  std::string metric;
  std::string group;   ///< empty: no group
  std::string device;  ///< empty: no device
  /// As the lesson writes it: "pause_ms_p50:dd", "write_mibps@sdb".
  std::string text() const;
  bool operator==(const LessonFigure&) const = default;
};

/// A check that is not a condition: what() says what is wrong and at which character
/// (1-based) of the text.
class LessonConditionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A parsed condition. Values are doubles; a comparison, `&&`, `||` and `!` give truth values,
/// which arithmetic does not take; the whole must be a truth value, and comparisons do not
/// chain (`a < b < c` is refused: write `a < b && b < c`).
class LessonCondition {
 public:
  /// Throws LessonConditionError.
  static LessonCondition parse(std::string_view text);

  /// The figures it names, each once, in the order they first appear.
  const std::vector<LessonFigure>& figures() const { return m_figures; }

  struct Result {
    bool holds = false;
    /// Why it does not hold when a figure could not be measured ("dirty_mib is n/a"); empty
    /// otherwise.
    std::string unmeasured;
    std::vector<double> values;  ///< figures()' values, in the same order
  };
  /// Evaluates it with `value` giving each figure's measured value (NaN: not measured, which
  /// makes the condition not hold).
  Result evaluate(const std::function<double(const LessonFigure&)>& value) const;

 private:
  enum class Op {
    Number,
    Figure,
    Negate,
    Not,
    Add,
    Subtract,
    Multiply,
    Divide,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    Equal,
    NotEqual,
    And,
    Or
  };
  struct Node {
    Op op = Op::Number;
    double number = 0;  ///< Number: the value; Figure: the index into m_figures
    int a = -1;
    int b = -1;
  };
  friend class ConditionParser;
  double eval(int node, const std::vector<double>& values) const;

  std::vector<Node> m_nodes;
  int m_root = -1;
  std::vector<LessonFigure> m_figures;
};

/// Parses a figure reference, `metric[:GROUP][@DEVICE]`, as placeholders and numeric questions
/// write it (no spaces). Throws LessonConditionError.
LessonFigure parseLessonFigure(std::string_view text);

}  // namespace throttlelab::engine
