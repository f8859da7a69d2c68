// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A read-only table over a vector of rows whose columns are a table of values (title, header
/// tooltip, how a row reads in the column) rather than parallel switches in data() and
/// headerData(). The trace's task and comparison tables and the compare view's delta table
/// are such models.
#include <QAbstractTableModel>
#include <QString>
#include <QVariant>
#include <functional>
#include <utility>
#include <vector>

namespace throttlelab::ui {

template <class Row>
class ColumnTableModel : public QAbstractTableModel {
 public:
  struct Column {
    QString header;
    QString toolTip;  ///< of the header; empty: none
    /// Qt::DisplayRole.
    std::function<QVariant(const Row&)> shown;
    /// Qt::EditRole and the sort role: the raw value (for sorting, tests and copying); unset:
    /// the shown value.
    std::function<QVariant(const Row&)> raw = {};
    bool alignLeft = false;  ///< text columns; numbers align right
  };
  static constexpr int kNoSortRole = -1;

  /// `sortRole`: a role that answers as Qt::EditRole does (for a QSortFilterProxyModel), or
  /// kNoSortRole.
  ColumnTableModel(std::vector<Column> columns, int sortRole, QObject* parent)
      : QAbstractTableModel(parent), m_columns(std::move(columns)), m_sortRole(sortRole) {}

  void setRows(std::vector<Row> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
  }
  void clear() { setRows({}); }
  const std::vector<Row>& rows() const { return m_rows; }

  int rowCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
  }
  int columnCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : static_cast<int>(m_columns.size());
  }
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    const Column& c = m_columns[static_cast<std::size_t>(index.column())];
    if (role == Qt::TextAlignmentRole)
      return c.alignLeft ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                         : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) return rowToolTip(r);
    if (role == Qt::DisplayRole) return c.shown(r);
    if (role == Qt::EditRole || (m_sortRole != kNoSortRole && role == m_sortRole))
      return c.raw ? c.raw(r) : c.shown(r);
    return {};
  }
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
    const Column& c = m_columns[static_cast<std::size_t>(section)];
    if (role == Qt::DisplayRole) return c.header;
    if (role == Qt::ToolTipRole && !c.toolTip.isEmpty()) return c.toolTip;
    return {};
  }

 protected:
  /// The tooltip of a row's cells; none unless a model says.
  virtual QVariant rowToolTip(const Row&) const { return {}; }

  std::vector<Column> m_columns;
  std::vector<Row> m_rows;

 private:
  int m_sortRole;
};

}  // namespace throttlelab::ui
