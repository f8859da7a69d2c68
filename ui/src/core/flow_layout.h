// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A bar of controls that wraps onto more rows when its view is narrower than the bar: the
/// view's least width is then its widest control, not the sum of them, so a view with a row
/// of buttons still fits a 1024 px projector beside the parameters.
#include <QLayout>
#include <QList>
#include <vector>

namespace throttlelab::ui {

class FlowLayout : public QLayout {
 public:
  explicit FlowLayout(int spacing = 6);
  ~FlowLayout() override;

  /// A widget that takes what is left of its row (a label); it starts a new row when less
  /// than kStretchRoom pixels (or its whole text) would be left for it.
  void addStretchWidget(QWidget* widget);
  /// Space before the next item, unless it starts a row.
  void addGap(int pixels);

  void addItem(QLayoutItem* item) override;
  int count() const override { return static_cast<int>(m_items.size()); }
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;
  Qt::Orientations expandingDirections() const override { return {}; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;

  static constexpr int kStretchRoom = 200;

 private:
  struct Entry {
    QLayoutItem* item;
    bool stretch;
    int gapBefore;
  };
  /// Lays the entries out in `rect` (or only measures, if `place` is false); returns the
  /// height used.
  int arrange(const QRect& rect, bool place) const;
  /// The width an entry asks for in its row.
  static int wanted(const Entry& e);

  std::vector<Entry> m_entries;
  std::vector<QLayoutItem*> m_items;  ///< the same, for itemAt
  int m_pendingGap = 0;
};

}  // namespace throttlelab::ui
