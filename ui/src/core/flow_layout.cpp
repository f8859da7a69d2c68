// SPDX-License-Identifier: GPL-3.0-or-later
#include "flow_layout.h"

#include <QWidget>
#include <algorithm>

namespace throttlelab::ui {

FlowLayout::FlowLayout(int spacing) {
  setSpacing(spacing);
  setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::addStretchWidget(QWidget* widget) {
  addWidget(widget);  // through addItem
  m_entries.back().stretch = true;
}

void FlowLayout::addGap(int pixels) {
  m_pendingGap += pixels;
}

void FlowLayout::addItem(QLayoutItem* item) {
  m_entries.push_back({item, false, m_pendingGap});
  m_items.push_back(item);
  m_pendingGap = 0;
  invalidate();
}

QLayoutItem* FlowLayout::itemAt(int index) const {
  return index >= 0 && index < count() ? m_items[static_cast<std::size_t>(index)] : nullptr;
}

QLayoutItem* FlowLayout::takeAt(int index) {
  if (index < 0 || index >= count()) return nullptr;
  QLayoutItem* item = m_items[static_cast<std::size_t>(index)];
  m_items.erase(m_items.begin() + index);
  m_entries.erase(m_entries.begin() + index);
  invalidate();
  return item;
}

int FlowLayout::wanted(const Entry& e) {
  if (!e.stretch) return e.item->sizeHint().width();
  return std::max(e.item->minimumSize().width(),
                  std::min(e.item->sizeHint().width(), kStretchRoom));
}

int FlowLayout::heightForWidth(int width) const {
  const QMargins m = contentsMargins();
  return arrange(QRect(0, 0, width, 0), false) + m.top() + m.bottom();
}

QSize FlowLayout::minimumSize() const {
  QSize size;
  for (const Entry& e : m_entries)
    if (!e.item->isEmpty())
      size = size.expandedTo(QSize(wanted(e), e.item->minimumSize().height()));
  const QMargins m = contentsMargins();
  return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const {
  // One row.
  int width = 0;
  int height = 0;
  for (const Entry& e : m_entries) {
    if (e.item->isEmpty()) continue;
    if (width > 0) width += spacing() + e.gapBefore;
    const QSize hint = e.item->sizeHint();
    width += hint.width();
    height = std::max(height, hint.height());
  }
  const QMargins m = contentsMargins();
  return QSize(width + m.left() + m.right(), height + m.top() + m.bottom());
}

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  arrange(rect.marginsRemoved(contentsMargins()), true);
}

int FlowLayout::arrange(const QRect& rect, bool place) const {
  const int room = std::max(rect.width(), 1);
  // Rows of entries, each as wide as it asks, a row broken where the next would not fit.
  std::vector<std::vector<const Entry*>> rows(1);
  int x = 0;
  for (const Entry& e : m_entries) {
    if (e.item->isEmpty()) continue;
    const int w = wanted(e);
    const int gap = rows.back().empty() ? 0 : spacing() + e.gapBefore;
    if (!rows.back().empty() && x + gap + w > room) {
      rows.emplace_back();
      x = w;
    } else {
      x += gap + w;
    }
    rows.back().push_back(&e);
  }
  int y = rect.top();
  for (const auto& row : rows) {
    if (row.empty()) continue;
    int used = 0;
    int stretches = 0;
    for (const Entry* e : row) {
      used += wanted(*e) + (e == row.front() ? 0 : spacing() + e->gapBefore);
      stretches += e->stretch ? 1 : 0;
    }
    const int extra = std::max(0, room - used);
    std::vector<int> widths;
    int height = 0;
    for (const Entry* e : row) {
      int w = wanted(*e) + (e->stretch ? extra / stretches : 0);
      w = std::min(w, room);
      widths.push_back(w);
      const int h =
          e->item->hasHeightForWidth() ? e->item->heightForWidth(w) : e->item->sizeHint().height();
      height = std::max(height, h);
    }
    if (place) {
      int left = rect.left();
      for (std::size_t i = 0; i < row.size(); ++i) {
        const Entry* e = row[i];
        if (i > 0) left += spacing() + e->gapBefore;
        const int h = e->item->hasHeightForWidth() ? e->item->heightForWidth(widths[i])
                                                   : e->item->sizeHint().height();
        e->item->setGeometry(QRect(left, y + (height - h) / 2, widths[i], h));
        left += widths[i];
      }
    }
    y += height + spacing();
  }
  return std::max(0, y - rect.top() - spacing());
}

}  // namespace throttlelab::ui
